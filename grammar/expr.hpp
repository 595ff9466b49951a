// Declarations of the expression rules (defined in expr_def.hpp, instantiated in expr.cpp),
// so the statement rules in another translation unit can use them.
#pragma once
#include <vector>

#include "grammar/build.hpp"
#include "grammar/config.hpp"

namespace shard::grammar::rules {

#define SHARD_DECLARE_RULE(name, attr)           \
  struct name##_class;                           \
  using name##_type = x3::rule<name##_class, attr>; \
  BOOST_SPIRIT_DECLARE(name##_type)

// `test`: a conditional expression or lambda; `namedexpr`: test or NAME := test.
SHARD_DECLARE_RULE(test, ast::ExprP);
SHARD_DECLARE_RULE(namedexpr, ast::ExprP);
SHARD_DECLARE_RULE(or_test, ast::ExprP);
SHARD_DECLARE_RULE(bitor_expr, ast::ExprP);
SHARD_DECLARE_RULE(star_expr, ast::ExprP);
// Comma lists that become a Tuple when there is a comma: (test | *expr), ...
SHARD_DECLARE_RULE(testlist_star_expr, ast::ExprP);
// The same, but a lone `*x` is kept (the start of an expression statement or assignment).
SHARD_DECLARE_RULE(star_targets, ast::ExprP);
// Targets of `for` and `del`: (bitor | *bitor), ...
SHARD_DECLARE_RULE(exprlist, ast::ExprP);
// The arguments of a call (or class bases): a Call node whose func is still null.
SHARD_DECLARE_RULE(call_args, ast::ExprP);
SHARD_DECLARE_RULE(lambda_params, build::ParamsBuilder);
SHARD_DECLARE_RULE(def_params, build::ParamsBuilder);
// `yield`, `yield x, y` or `yield from x` (a statement, an assignment's value, or in parentheses).
SHARD_DECLARE_RULE(yield_expr, ast::ExprP);
// A whole expression input for parse_expression: testlist then end of input.
SHARD_DECLARE_RULE(expression_input, ast::ExprP);

inline const test_type test = "test";
inline const namedexpr_type namedexpr = "named expression";
inline const or_test_type or_test = "or_test";
inline const bitor_expr_type bitor_expr = "bitor";
inline const star_expr_type star_expr = "starred expression";
inline const testlist_star_expr_type testlist_star_expr = "expression list";
inline const star_targets_type star_targets = "assignment targets";
inline const exprlist_type exprlist = "target list";
inline const call_args_type call_args = "arguments";
inline const lambda_params_type lambda_params = "lambda parameters";
inline const def_params_type def_params = "parameters";
inline const yield_expr_type yield_expr = "yield expression";
inline const expression_input_type expression_input = "expression";

}  // namespace shard::grammar::rules
