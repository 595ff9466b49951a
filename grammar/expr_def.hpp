// Definitions of the expression rules: Python 3.11's expression grammar, one rule per
// precedence level. Semantic actions build ast::ExprP nodes through build.hpp; each rule
// is written so that no alternative re-parses a whole sub-expression after backtracking
// (X3 has no memoisation, so that would be exponential in nesting depth).
#pragma once
#include <boost/fusion/include/at_c.hpp>

#include "grammar/expr.hpp"
#include "grammar/tokens.hpp"

namespace shard::grammar::rules {

namespace fu = boost::fusion;
using ast::ExprKind;
using ast::ExprP;
using x3::_attr;
using x3::_val;
using x3::_where;

template <typename Ctx>
ast::Loc where_loc(Ctx& ctx) {
  return state_of(ctx).loc(x3::get<start_tag>(ctx));
}

// ---- rules private to this translation unit ----
#define SHARD_LOCAL_RULE(name, attr, text) \
  struct name##_class;                     \
  const x3::rule<name##_class, attr> name = text;

SHARD_LOCAL_RULE(lambdef, ExprP, "lambda")
SHARD_LOCAL_RULE(and_test, ExprP, "and_test")
SHARD_LOCAL_RULE(not_test, ExprP, "not_test")
SHARD_LOCAL_RULE(comparison, ExprP, "comparison")
SHARD_LOCAL_RULE(comp_op, ast::CmpOpKind, "comparison operator")
SHARD_LOCAL_RULE(xor_expr, ExprP, "xor_expr")
SHARD_LOCAL_RULE(and_expr, ExprP, "and_expr")
SHARD_LOCAL_RULE(shift_expr, ExprP, "shift_expr")
SHARD_LOCAL_RULE(arith_expr, ExprP, "arith_expr")
SHARD_LOCAL_RULE(term, ExprP, "term")
SHARD_LOCAL_RULE(factor, ExprP, "factor")
SHARD_LOCAL_RULE(power, ExprP, "power")
SHARD_LOCAL_RULE(primary, ExprP, "primary")
SHARD_LOCAL_RULE(atom, ExprP, "atom")
SHARD_LOCAL_RULE(paren_body, ExprP, "parenthesized expression")
SHARD_LOCAL_RULE(list_body, ExprP, "list")
SHARD_LOCAL_RULE(brace_body, ExprP, "dict or set")
SHARD_LOCAL_RULE(comp_for, std::vector<ast::Comprehension>, "comprehension")
SHARD_LOCAL_RULE(subscript, ExprP, "subscript")
SHARD_LOCAL_RULE(slice_item, ExprP, "slice")
SHARD_LOCAL_RULE(star_or_named, ExprP, "expression")
SHARD_LOCAL_RULE(star_or_test, ExprP, "expression")
SHARD_LOCAL_RULE(star_or_bitor, ExprP, "target")

// ---- operator tables ----
using ast::BinOpKind;
using ast::CmpOpKind;
using ast::UnaryOpKind;
inline constexpr op_entry<BinOpKind> shift_table[] = {{"<<", BinOpKind::LShift}, {">>", BinOpKind::RShift}};
inline constexpr op_entry<BinOpKind> add_table[] = {{"+", BinOpKind::Add}, {"-", BinOpKind::Sub}};
inline constexpr op_entry<BinOpKind> mul_table[] = {{"*", BinOpKind::Mul},
                                                    {"/", BinOpKind::Div},
                                                    {"//", BinOpKind::FloorDiv},
                                                    {"%", BinOpKind::Mod},
                                                    {"@", BinOpKind::MatMul}};
inline constexpr op_entry<UnaryOpKind> unary_table[] = {
    {"-", UnaryOpKind::Neg}, {"+", UnaryOpKind::Pos}, {"~", UnaryOpKind::Invert}};
inline constexpr op_entry<CmpOpKind> cmp_table[] = {{"==", CmpOpKind::Eq}, {"!=", CmpOpKind::NotEq},
                                                    {"<", CmpOpKind::Lt},  {"<=", CmpOpKind::LtE},
                                                    {">", CmpOpKind::Gt},  {">=", CmpOpKind::GtE}};

// ---- semantic actions ----
inline const auto set_val = located([](auto& ctx) { _val(ctx) = std::move(_attr(ctx)); });

// first (op operand)* folded to the left.
inline const auto fold_binops = located([](auto& ctx) {
  auto& a = _attr(ctx);
  ExprP e = std::move(fu::at_c<0>(a));
  for (auto& step : fu::at_c<1>(a)) {
    e = build::binop(std::move(e), fu::at_c<0>(step), std::move(fu::at_c<1>(step)));
    e->loc = where_loc(ctx);
  }
  _val(ctx) = std::move(e);
});
template <BinOpKind Op>
inline const auto fold_fixed = located([](auto& ctx) {
  auto& a = _attr(ctx);
  ExprP e = std::move(fu::at_c<0>(a));
  for (auto& r : fu::at_c<1>(a)) {
    e = build::binop(std::move(e), Op, std::move(r));
    e->loc = where_loc(ctx);
  }
  _val(ctx) = std::move(e);
});
template <ast::BoolOpKind Op>
inline const auto fold_bool = located([](auto& ctx) {
  auto& a = _attr(ctx);
  const bool single = fu::at_c<1>(a).empty();
  _val(ctx) = build::boolop(Op, std::move(fu::at_c<0>(a)), fu::at_c<1>(a));
  if (!single) _val(ctx)->loc = where_loc(ctx);
});
inline const auto make_or_test = located([](auto& ctx) {
  auto& a = _attr(ctx);
  const bool single = fu::at_c<1>(a).empty();
  _val(ctx) = build::boolop(ast::BoolOpKind::Or, std::move(fu::at_c<0>(a)), fu::at_c<1>(a));
  if (!single) _val(ctx)->loc = where_loc(ctx);
  state_of(ctx).expression_done(x3::get<start_tag>(ctx), _where(ctx).begin(), _val(ctx));
});
inline const auto make_compare = located([](auto& ctx) {
  auto& a = _attr(ctx);
  auto& rest = fu::at_c<1>(a);
  if (rest.empty()) {
    _val(ctx) = std::move(fu::at_c<0>(a));
    return;
  }
  auto c = ast::make_expr(ExprKind::Compare, where_loc(ctx));
  c->a = std::move(fu::at_c<0>(a));
  for (auto& step : rest) {
    c->cmp_ops.push_back(fu::at_c<0>(step));
    c->elts.push_back(std::move(fu::at_c<1>(step)));
  }
  _val(ctx) = std::move(c);
});
inline const auto make_not = located([](auto& ctx) {
  _val(ctx) = build::unary(where_loc(ctx), UnaryOpKind::Not, std::move(_attr(ctx)));
});
inline const auto make_unary = located([](auto& ctx) {
  auto& a = _attr(ctx);
  _val(ctx) = build::unary(where_loc(ctx), fu::at_c<0>(a), std::move(fu::at_c<1>(a)));
});
inline const auto make_power = located([](auto& ctx) {
  auto& a = _attr(ctx);
  if (fu::at_c<1>(a)) {
    _val(ctx) = build::binop(std::move(fu::at_c<0>(a)), BinOpKind::Pow, std::move(*fu::at_c<1>(a)));
    _val(ctx)->loc = where_loc(ctx);
  }
  else _val(ctx) = std::move(fu::at_c<0>(a));
});
inline const auto make_ifexp = located([](auto& ctx) {
  auto& a = _attr(ctx);
  auto& tail = fu::at_c<1>(a);
  if (tail) {
    _val(ctx) = build::ifexp(std::move(fu::at_c<0>(a)), std::move(fu::at_c<0>(*tail)), std::move(fu::at_c<1>(*tail)));
    _val(ctx)->loc = where_loc(ctx);
  }
  else _val(ctx) = std::move(fu::at_c<0>(a));
});
inline const auto make_lambda = located([](auto& ctx) {
  auto& a = _attr(ctx);
  _val(ctx) = build::lambda(where_loc(ctx), fu::at_c<0>(a), std::move(fu::at_c<1>(a)));
});
inline const auto make_named = located([](auto& ctx) {
  auto& a = _attr(ctx);
  _val(ctx) = build::named(where_loc(ctx), std::move(fu::at_c<0>(a)), std::move(fu::at_c<1>(a)));
});
inline const auto make_starred = located([](auto& ctx) { _val(ctx) = build::starred(where_loc(ctx), std::move(_attr(ctx))); });
inline const auto make_name = located([](auto& ctx) { _val(ctx) = build::name(where_loc(ctx), std::move(_attr(ctx))); });
template <ExprKind K, bool V = false>
inline const auto make_constant = located([](auto& ctx) { _val(ctx) = build::constant(K, where_loc(ctx), V); });

inline const auto make_yield = located([](auto& ctx) {
  _val(ctx) = ast::make_expr(ExprKind::Yield, where_loc(ctx));
  if (_attr(ctx)) _val(ctx)->a = std::move(*_attr(ctx));
});
inline const auto make_yield_from = located([](auto& ctx) {
  _val(ctx) = ast::make_expr(ExprKind::YieldFrom, where_loc(ctx));
  _val(ctx)->a = std::move(_attr(ctx));
});

// `a, b` -> Tuple; `a` -> a.
inline const auto make_tuple = located([](auto& ctx) {
  auto& a = _attr(ctx);
  _val(ctx) = build::tuple_or_single(fu::at_c<0>(a), fu::at_c<1>(a));
});
inline const auto make_tuple_lenient = located([](auto& ctx) {
  auto& a = _attr(ctx);
  _val(ctx) = build::tuple_or_single(fu::at_c<0>(a), fu::at_c<1>(a), true);
});
inline const auto make_index = located([](auto& ctx) {
  auto& a = _attr(ctx);
  auto& elts = fu::at_c<0>(a);
  const bool comma = fu::at_c<1>(a) || (elts.size() == 1 && elts[0]->kind == ExprKind::Starred);
  _val(ctx) = build::tuple_or_single(elts, comma);
});

// Trailers.
inline const auto make_call = located([](auto& ctx) {
  const ast::Loc start = state_of(ctx).start_of(_val(ctx));
  _val(ctx) = build::call_finish(std::move(_val(ctx)), std::move(_attr(ctx)), where_loc(ctx));
  _val(ctx)->loc = start;
});
inline const auto make_subscript = located([](auto& ctx) {
  const ast::Loc start = state_of(ctx).start_of(_val(ctx));
  _val(ctx) = build::subscript(std::move(_val(ctx)), std::move(_attr(ctx)));
  _val(ctx)->loc = start;
});
inline const auto make_attribute = located([](auto& ctx) {
  const ast::Loc start = state_of(ctx).start_of(_val(ctx));
  _val(ctx) = build::attribute(std::move(_val(ctx)), std::move(_attr(ctx)));
  _val(ctx)->loc = start;
});

// Call arguments, collected into the Call node in _val.
inline const auto args_init = located([](auto& ctx) { _val(ctx) = ast::make_expr(ExprKind::Call, where_loc(ctx)); });
inline const auto args_trailing_comma = located([](auto& ctx) { _val(ctx)->int_value = 1; });
inline const auto arg_star = located([](auto& ctx) { build::call_add_star(_val(ctx), where_loc(ctx), std::move(_attr(ctx))); });
inline const auto arg_double_star = located([](auto& ctx) {
  build::call_add_double_star(_val(ctx), where_loc(ctx), std::move(_attr(ctx)));
});
inline const auto arg_keyword = located([](auto& ctx) {
  auto& a = _attr(ctx);
  build::call_add_keyword(_val(ctx), where_loc(ctx), std::move(fu::at_c<0>(a)), std::move(fu::at_c<1>(a)));
});
inline const auto arg_positional = located([](auto& ctx) {
  auto& a = _attr(ctx);
  build::call_add_positional(_val(ctx), std::move(fu::at_c<0>(a)), fu::at_c<1>(a));
});

// Slices: _val holds the lower bound, then becomes the Slice.
inline const auto slice_from_lower = located([](auto& ctx) {
  const ast::Loc start = state_of(ctx).start_of(_val(ctx));
  _val(ctx) = build::slice_start(where_loc(ctx), std::move(_val(ctx)));
  _val(ctx)->loc = start;
});
inline const auto slice_empty = located([](auto& ctx) { _val(ctx) = build::slice_start(where_loc(ctx), nullptr); });
inline const auto slice_upper = located([](auto& ctx) { _val(ctx)->b = std::move(_attr(ctx)); });
inline const auto slice_step = located([](auto& ctx) { _val(ctx)->c = std::move(_attr(ctx)); });

// Displays: _val holds the first element, then the node being built.
inline const auto paren_loc = located([](auto& ctx) {
  ExprP e = std::move(_attr(ctx));
  if (e->kind == ExprKind::Starred) build::syntax_error(e->loc, "can't use starred expression here");
  if (e->kind == ExprKind::Tuple || e->kind == ExprKind::GeneratorExp) e->loc = where_loc(ctx);
  state_of(ctx).paren_expr = e;
  state_of(ctx).paren_loc = where_loc(ctx);
  _val(ctx) = std::move(e);
});
inline const auto bracket_loc = located([](auto& ctx) {
  _val(ctx) = std::move(_attr(ctx));
  _val(ctx)->loc = where_loc(ctx);
});
template <ExprKind K>
inline const auto make_empty = located([](auto& ctx) { _val(ctx) = ast::make_expr(K, where_loc(ctx)); });
template <ExprKind K>
inline const auto to_comprehension = located([](auto& ctx) {
  ExprP elt = std::move(_val(ctx));
  ast::Loc loc = elt->loc;
  _val(ctx) = build::comprehension(K, loc, std::move(elt), _attr(ctx));
});
template <ExprKind K>
inline const auto to_sequence = located([](auto& ctx) {
  ExprP first = std::move(_val(ctx));
  ast::Loc loc = first->loc;
  _val(ctx) = build::sequence(K, loc, std::move(first), _attr(ctx));
});
inline const auto to_single_tuple = located([](auto& ctx) {
  std::vector<ExprP> none;
  ExprP first = std::move(_val(ctx));
  ast::Loc loc = first->loc;
  _val(ctx) = build::sequence(ExprKind::Tuple, loc, std::move(first), none);
});
inline const auto dict_first_double_star = located([](auto& ctx) {
  _val(ctx) = ast::make_expr(ExprKind::Dict, where_loc(ctx));
  build::dict_add(_val(ctx), nullptr, std::move(_attr(ctx)));
});
inline const auto dict_first_pair = located([](auto& ctx) {
  ExprP key = std::move(_val(ctx));
  _val(ctx) = ast::make_expr(ExprKind::Dict, key->loc);
  build::dict_add(_val(ctx), std::move(key), std::move(_attr(ctx)));
});
inline const auto dict_double_star = located([](auto& ctx) { build::dict_add(_val(ctx), nullptr, std::move(_attr(ctx))); });
inline const auto dict_pair = located([](auto& ctx) {
  auto& a = _attr(ctx);
  build::dict_add(_val(ctx), std::move(fu::at_c<0>(a)), std::move(fu::at_c<1>(a)));
});
inline const auto dict_to_comprehension = located([](auto& ctx) {
  ExprP d = std::move(_val(ctx));
  if (!d->keys[0]) build::syntax_error(d->loc, "dict unpacking cannot be used in dict comprehension");
  auto e = ast::make_expr(ExprKind::DictComp, d->loc);
  e->a = std::move(d->keys[0]);
  e->b = std::move(d->elts[0]);
  e->comps = std::move(_attr(ctx));
  _val(ctx) = std::move(e);
});
inline const auto set_from_val = located([](auto& ctx) {
  ExprP first = std::move(_val(ctx));
  _val(ctx) = ast::make_expr(ExprKind::Set, first->loc);
  _val(ctx)->elts.push_back(std::move(first));
});
inline const auto set_add = located([](auto& ctx) { _val(ctx)->elts.push_back(std::move(_attr(ctx))); });
inline const auto set_to_comprehension = located([](auto& ctx) {
  ExprP s = std::move(_val(ctx));
  _val(ctx) = build::comprehension(ExprKind::SetComp, s->loc, std::move(s->elts[0]), _attr(ctx));
});
inline const auto add_comp_clause = located([](auto& ctx) {
  auto& a = _attr(ctx);
  _val(ctx).push_back(build::comp_clause(std::move(fu::at_c<0>(a)), std::move(fu::at_c<1>(a)), fu::at_c<2>(a)));
});

// Parameters (lambda: no annotations; def: `name: annotation = default`).
inline const auto param_plain = located([](auto& ctx) {
  auto& a = _attr(ctx);
  build::param_add(_val(ctx), where_loc(ctx), std::move(fu::at_c<0>(a)), fu::at_c<1>(a));
});
inline const auto param_annotated = located([](auto& ctx) {
  auto& a = _attr(ctx);
  build::param_add(_val(ctx), where_loc(ctx), std::move(fu::at_c<0>(a)), fu::at_c<2>(a));
});
template <typename Ctx>
ast::Loc after_stars(Ctx& ctx, int n) {
  return state_of(ctx).loc(x3::get<start_tag>(ctx) + n);
}
inline const auto param_star_plain = located([](auto& ctx) { build::param_star(_val(ctx), where_loc(ctx), after_stars(ctx, 1), _attr(ctx)); });
inline const auto param_star_annotated = located([](auto& ctx) {
  boost::optional<std::string> name;
  if (_attr(ctx)) name = std::move(fu::at_c<0>(*_attr(ctx)));
  build::param_star(_val(ctx), where_loc(ctx), after_stars(ctx, 1), name);
});
inline const auto param_kwargs_plain = located([](auto& ctx) {
  build::param_double_star(_val(ctx), after_stars(ctx, 2), std::move(_attr(ctx)));
});
inline const auto param_kwargs_annotated = located([](auto& ctx) {
  build::param_double_star(_val(ctx), after_stars(ctx, 2), std::move(fu::at_c<0>(_attr(ctx))));
});
inline const auto param_slash = located([](auto& ctx) { build::param_slash(_val(ctx), where_loc(ctx)); });

// ---- the grammar ----

const auto test_def = nest[lambdef[set_val] |
                           (or_test >> -(kw("if") >> or_test >>
                                         (kw("else") | fail_parser("expected 'else' after 'if' expression")) >> test))
                               [make_ifexp]];
const auto namedexpr_def = (NAME >> tok(":=") >> test)[make_named] | test[set_val];
const auto lambdef_def = (kw("lambda") >> lambda_params >> tok(":") >> test)[make_lambda];

const auto or_test_def = (and_test >> *(kw("or") >> and_test))[make_or_test];
const auto and_test_def = (not_test >> *(kw("and") >> not_test))[fold_bool<ast::BoolOpKind::And>];
const auto not_test_def = nest[(kw("not") >> not_test)[make_not] | comparison[set_val]];
const auto comparison_def = (bitor_expr >> *(comp_op >> bitor_expr))[make_compare];
const auto comp_op_def = ops(cmp_table)[set_val] |
                         (kw("not") >> kw("in"))[([](auto& ctx) { _val(ctx) = CmpOpKind::NotIn; })] |
                         (kw("is") >> kw("not"))[([](auto& ctx) { _val(ctx) = CmpOpKind::IsNot; })] |
                         kw("is")[([](auto& ctx) { _val(ctx) = CmpOpKind::Is; })] |
                         kw("in")[([](auto& ctx) { _val(ctx) = CmpOpKind::In; })];

const auto bitor_expr_def = (xor_expr >> *(tok("|") >> xor_expr))[fold_fixed<BinOpKind::BitOr>];
const auto xor_expr_def = (and_expr >> *(tok("^") >> and_expr))[fold_fixed<BinOpKind::BitXor>];
const auto and_expr_def = (shift_expr >> *(tok("&") >> shift_expr))[fold_fixed<BinOpKind::BitAnd>];
const auto shift_expr_def = (arith_expr >> *(ops(shift_table) >> arith_expr))[fold_binops];
const auto arith_expr_def = (term >> *(ops(add_table) >> term))[fold_binops];
const auto term_def = (factor >> *(ops(mul_table) >> factor))[fold_binops];
const auto factor_def = nest[(ops(unary_table) >> factor)[make_unary] | power[set_val]];
const auto power_def = (primary >> -(tok("**") >> factor))[make_power];

const auto primary_def = atom[set_val] >> *((tok("(") >> call_args >> tok(")"))[make_call] |
                                            (tok("[") >> subscript >> tok("]"))[make_subscript] |
                                            (tok(".") >> NAME)[make_attribute]);

const auto atom_def = (tok("(") >> paren_body >> tok(")"))[paren_loc] |
                      (tok("[") >> list_body >> tok("]"))[bracket_loc] |
                      (tok("{") >> brace_body >> tok("}"))[bracket_loc] | NAME[make_name] | NUMBER[set_val] |
                      STRING[set_val] | tok("...")[make_constant<ExprKind::EllipsisLit>] |
                      kw("None")[make_constant<ExprKind::NoneLit>] |
                      kw("True")[make_constant<ExprKind::Bool, true>] |
                      kw("False")[make_constant<ExprKind::Bool, false>];

const auto paren_body_def =
    (&tok(")"))[make_empty<ExprKind::Tuple>] | yield_expr[set_val] |
    (star_or_named[set_val] >> -(comp_for[to_comprehension<ExprKind::GeneratorExp>] |
                                 (+(tok(",") >> star_or_named) >> -tok(","))[to_sequence<ExprKind::Tuple>] |
                                 tok(",")[to_single_tuple]));
const auto list_body_def =
    (&tok("]"))[make_empty<ExprKind::List>] |
    (star_or_named[set_val] >> (comp_for[to_comprehension<ExprKind::ListComp>] |
                                (*(tok(",") >> star_or_named) >> -tok(","))[to_sequence<ExprKind::List>]));

const auto dict_item = (tok("**") >> bitor_expr)[dict_double_star] | (test >> tok(":") >> test)[dict_pair];
const auto dict_tail = comp_for[dict_to_comprehension] | (*(tok(",") >> dict_item) >> -tok(","));
const auto set_tail = comp_for[set_to_comprehension] | (*(tok(",") >> star_or_named[set_add]) >> -tok(","));
const auto brace_body_def = (&tok("}"))[make_empty<ExprKind::Dict>] |
                            ((tok("**") >> bitor_expr)[dict_first_double_star] >> dict_tail) |
                            (star_expr[set_val] >> x3::eps[set_from_val] >> set_tail) |
                            (namedexpr[set_val] >> ((tok(":") >> test)[dict_first_pair] >> dict_tail |
                                                    x3::eps[set_from_val] >> set_tail));

const auto comp_for_def =
    +((kw("for") >> exprlist >> kw("in") >> or_test >> *(kw("if") >> or_test))[add_comp_clause]);

const auto argument = (tok("*") >> test)[arg_star] | (tok("**") >> test)[arg_double_star] |
                      (NAME >> tok("=") >> test)[arg_keyword] | (namedexpr >> -comp_for)[arg_positional];
const auto call_args_def = x3::eps[args_init] >> -(argument % tok(",") >> -tok(",")[args_trailing_comma]);

const auto subscript_def = (slice_item % tok(",") >> x3::matches[tok(",")])[make_index];
const auto slice_rest = -test[slice_upper] >> -(tok(":") >> -test[slice_step]);
const auto slice_item_def = (namedexpr[set_val] >> -(tok(":")[slice_from_lower] >> slice_rest)) |
                            (tok(":")[slice_empty] >> slice_rest) | star_expr[set_val];

const auto star_expr_def = (tok("*") >> bitor_expr)[make_starred];
const auto star_or_named_def = star_expr[set_val] | namedexpr[set_val];
const auto star_or_test_def = star_expr[set_val] | test[set_val];
const auto star_or_bitor_def = star_expr[set_val] | bitor_expr[set_val];
const auto testlist_star_expr_def = (star_or_test % tok(",") >> x3::matches[tok(",")])[make_tuple];
const auto star_targets_def = (star_or_test % tok(",") >> x3::matches[tok(",")])[make_tuple_lenient];
const auto exprlist_def = (star_or_bitor % tok(",") >> x3::matches[tok(",")])[make_tuple];

const auto lambda_param = (tok("**") >> NAME)[param_kwargs_plain] | (tok("*") >> -NAME)[param_star_plain] |
                          tok("/")[param_slash] | (NAME >> -(tok("=") >> test))[param_plain];
const auto lambda_params_def = -(lambda_param % tok(",") >> -tok(","));

const auto annotation = -(tok(":") >> test);
const auto def_param = (tok("**") >> NAME >> annotation)[param_kwargs_annotated] |
                       (tok("*") >> -(NAME >> annotation))[param_star_annotated] | tok("/")[param_slash] |
                       (NAME >> annotation >> -(tok("=") >> test))[param_annotated];
const auto def_params_def = -(def_param % tok(",") >> -tok(","));

const auto yield_expr_def = (kw("yield") >> kw("from") >> test)[make_yield_from] |
                            (kw("yield") >> -testlist_star_expr)[make_yield];
const auto expression_input_def = testlist_star_expr[set_val];

BOOST_SPIRIT_DEFINE(test, namedexpr, lambdef, or_test, and_test, not_test, comparison, comp_op, bitor_expr, xor_expr,
                    and_expr, shift_expr, arith_expr, term, factor, power, primary, atom, paren_body, list_body,
                    brace_body, comp_for, call_args, subscript, slice_item, star_expr, star_or_named, star_or_test,
                    star_or_bitor, testlist_star_expr, star_targets, exprlist, lambda_params, def_params, yield_expr,
                    expression_input)

}  // namespace shard::grammar::rules
