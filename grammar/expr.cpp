// Instantiates the expression rules for the one iterator/context configuration.
#include "grammar/expr_def.hpp"

namespace shard::grammar::rules {

BOOST_SPIRIT_INSTANTIATE(test_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(namedexpr_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(or_test_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(bitor_expr_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(star_expr_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(testlist_star_expr_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(star_targets_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(exprlist_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(call_args_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(lambda_params_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(def_params_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(yield_expr_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(expression_input_type, iterator_type, context_type)

}  // namespace shard::grammar::rules
