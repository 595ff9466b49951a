// AST building and checking for the grammar's semantic actions (see build.hpp).
#include "grammar/build.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "grammar/parse.hpp"

namespace shard::grammar::build {

using ast::ExprKind;

void syntax_error(Loc loc, const std::string& msg) { throw SyntaxError(loc, "SyntaxError", msg); }

ExprP name(Loc loc, std::string id) {
  auto e = ast::make_expr(ExprKind::Name, loc);
  e->id = std::move(id);
  return e;
}

ExprP constant(ExprKind kind, Loc loc, bool value) {
  auto e = ast::make_expr(kind, loc);
  e->bool_value = value;
  return e;
}

ExprP binop(ExprP left, ast::BinOpKind op, ExprP right) {
  auto e = ast::make_expr(ExprKind::BinOp, left->loc);
  e->binop = op;
  e->a = std::move(left);
  e->b = std::move(right);
  return e;
}

ExprP unary(Loc loc, ast::UnaryOpKind op, ExprP operand) {
  auto e = ast::make_expr(ExprKind::UnaryOp, loc);
  e->unop = op;
  e->a = std::move(operand);
  return e;
}

ExprP boolop(ast::BoolOpKind op, ExprP first, std::vector<ExprP>& rest) {
  if (rest.empty()) return first;
  auto e = ast::make_expr(ExprKind::BoolOp, first->loc);
  e->boolop = op;
  e->elts.push_back(std::move(first));
  for (auto& r : rest) e->elts.push_back(std::move(r));
  return e;
}

ExprP starred(Loc loc, ExprP value) {
  auto e = ast::make_expr(ExprKind::Starred, loc);
  e->a = std::move(value);
  return e;
}

ExprP named(Loc loc, std::string target, ExprP value) {
  auto e = ast::make_expr(ExprKind::NamedExpr, loc);
  e->a = name(loc, std::move(target));
  e->b = std::move(value);
  return e;
}

ExprP ifexp(ExprP body, ExprP test, ExprP orelse) {
  auto e = ast::make_expr(ExprKind::IfExp, body->loc);
  e->a = std::move(test);
  e->b = std::move(body);
  e->c = std::move(orelse);
  return e;
}

ExprP tuple_or_single(std::vector<ExprP>& elts, bool trailing_comma, bool allow_lone_star) {
  if (elts.size() == 1 && !trailing_comma) {
    if (elts[0]->kind == ExprKind::Starred && !allow_lone_star)
      syntax_error(elts[0]->loc, "can't use starred expression here");
    return elts[0];
  }
  auto t = ast::make_expr(ExprKind::Tuple, elts.empty() ? Loc{} : elts[0]->loc);
  t->elts = std::move(elts);
  return t;
}

ExprP sequence(ExprKind kind, Loc loc, ExprP first, std::vector<ExprP>& rest) {
  auto e = ast::make_expr(kind, loc);
  if (first) e->elts.push_back(std::move(first));
  for (auto& r : rest) e->elts.push_back(std::move(r));
  return e;
}

ExprP comprehension(ExprKind kind, Loc loc, ExprP elt, std::vector<ast::Comprehension>& comps) {
  if (elt->kind == ExprKind::Starred) syntax_error(elt->loc, "iterable unpacking cannot be used in comprehension");
  auto e = ast::make_expr(kind, loc);
  e->a = std::move(elt);
  e->comps = std::move(comps);
  return e;
}

ast::Comprehension comp_clause(ExprP target, ExprP iter, std::vector<ExprP>& ifs) {
  check_target(target, TargetUse::For);
  ast::Comprehension c;
  c.target = std::move(target);
  c.iter = std::move(iter);
  c.ifs = std::move(ifs);
  return c;
}

// ---- calls ----

namespace {
bool has_keywords(const ExprP& call) { return !call->keywords.empty(); }
bool has_double_star(const ExprP& call) {
  return std::any_of(call->keywords.begin(), call->keywords.end(), [](auto& k) { return k.name.empty(); });
}
}  // namespace

void call_add_positional(ExprP& call, ExprP value, boost::optional<std::vector<ast::Comprehension>>& comps) {
  if (comps) {
    const Loc loc = value->loc;
    value = comprehension(ExprKind::GeneratorExp, loc, std::move(value), *comps);
    call->bool_value = true;  // remembers a bare generator argument until call_finish
  }
  if (has_double_star(call)) syntax_error(value->loc, "positional argument follows keyword argument unpacking");
  if (has_keywords(call)) syntax_error(value->loc, "positional argument follows keyword argument");
  call->elts.push_back(std::move(value));
}

void call_add_star(ExprP& call, Loc loc, ExprP value) {
  if (has_double_star(call)) syntax_error(loc, "iterable argument unpacking follows keyword argument unpacking");
  call->elts.push_back(starred(loc, std::move(value)));
}

void call_add_keyword(ExprP& call, Loc loc, std::string name, ExprP value) {
  for (auto& k : call->keywords)
    if (k.name == name) syntax_error(loc, "keyword argument repeated: " + name);
  call->keywords.push_back(ast::Keyword{std::move(name), std::move(value), loc});
}

void call_add_double_star(ExprP& call, Loc loc, ExprP value) {
  call->keywords.push_back(ast::Keyword{"", std::move(value), loc});
}

ExprP call_finish(ExprP func, ExprP args, Loc paren) {
  // int_value = 1 marks a trailing comma, which a bare generator argument may not have.
  if (args->bool_value && (args->elts.size() + args->keywords.size() > 1 || args->int_value)) {
    for (auto& a : args->elts)
      if (a->kind == ExprKind::GeneratorExp) syntax_error(a->loc, "Generator expression must be parenthesized");
  }
  if (args->bool_value) args->elts[0]->loc = paren;
  args->bool_value = false;
  args->int_value = 0;
  args->loc = func->loc;
  args->a = std::move(func);
  return args;
}

ExprP attribute(ExprP value, std::string attr) {
  auto e = ast::make_expr(ExprKind::Attribute, value->loc);
  e->a = std::move(value);
  e->id = std::move(attr);
  return e;
}

ExprP subscript(ExprP value, ExprP index) {
  auto e = ast::make_expr(ExprKind::Subscript, value->loc);
  e->a = std::move(value);
  e->b = std::move(index);
  return e;
}

ExprP slice_start(Loc loc, ExprP lower) {
  auto e = ast::make_expr(ExprKind::Slice, lower ? lower->loc : loc);
  e->a = std::move(lower);
  return e;
}

// ---- parameters ----

namespace {
void check_duplicate(const ParamsBuilder& b, Loc loc, const std::string& name) {
  auto same = [&](const ast::Param& p) { return p.name == name; };
  const auto& p = *b.params;
  if (std::any_of(p.positional.begin(), p.positional.end(), same) ||
      std::any_of(p.kwonly.begin(), p.kwonly.end(), same) || (p.vararg && same(*p.vararg)) ||
      (p.kwarg && same(*p.kwarg)))
    syntax_error(loc, fmt::format("duplicate argument '{}' in function definition", name));
}
void check_not_done(const ParamsBuilder& b, Loc loc) {
  if (b.done) syntax_error(loc, "arguments cannot follow var-keyword argument");
}
}  // namespace

void param_add(ParamsBuilder& b, Loc loc, std::string name, boost::optional<ExprP>& default_value) {
  check_not_done(b, loc);
  check_duplicate(b, loc, name);
  ast::Param p{std::move(name), default_value ? *default_value : nullptr, loc};
  if (b.star) {
    b.bare_star = false;
    b.params->kwonly.push_back(std::move(p));
    return;
  }
  if (p.default_value) b.seen_default = true;
  else if (b.seen_default) syntax_error(loc, "non-default argument follows default argument");
  b.params->positional.push_back(std::move(p));
}

void param_star(ParamsBuilder& b, Loc star_loc, Loc name_loc, boost::optional<std::string>& name) {
  check_not_done(b, star_loc);
  if (b.star) syntax_error(star_loc, "* argument may appear only once");
  b.star = true;
  if (name) {
    check_duplicate(b, name_loc, *name);
    b.params->vararg = ast::Param{*name, nullptr, name_loc};
  } else {
    b.bare_star = true;
    b.bare_star_loc = star_loc;
  }
}

void param_double_star(ParamsBuilder& b, Loc loc, std::string name) {
  check_not_done(b, loc);
  if (b.bare_star) syntax_error(b.bare_star_loc, "named arguments must follow bare *");
  check_duplicate(b, loc, name);
  b.params->kwarg = ast::Param{std::move(name), nullptr, loc};
  b.done = true;
}

void param_slash(ParamsBuilder& b, Loc loc) {
  // Positional-only marker: accepted, and the parameters before it stay positional.
  if (b.star || b.done) syntax_error(loc, "/ must be ahead of *");
}

std::shared_ptr<ast::Params> params_finish(ParamsBuilder& b) {
  if (b.bare_star) syntax_error(b.bare_star_loc, "named arguments must follow bare *");
  return b.params;
}

ExprP lambda(Loc loc, ParamsBuilder& params, ExprP body) {
  auto e = ast::make_expr(ExprKind::Lambda, loc);
  e->params = params_finish(params);
  e->a = std::move(body);
  return e;
}

// ---- targets ----

namespace {

// What CPython calls an expression that cannot be assigned to; null when it can be.
const char* invalid_target_name(const ast::Expr& e) {
  switch (e.kind) {
    case ExprKind::Name:
    case ExprKind::Attribute:
    case ExprKind::Subscript:
    case ExprKind::Tuple:
    case ExprKind::List:
    case ExprKind::Starred: return nullptr;
    case ExprKind::Call: return "function call";
    case ExprKind::Int:
    case ExprKind::Float:
    case ExprKind::Imag:
    case ExprKind::Str:
    case ExprKind::EllipsisLit: return "literal";
    case ExprKind::Bool: return e.bool_value ? "True" : "False";
    case ExprKind::NoneLit: return "None";
    case ExprKind::FString:
    case ExprKind::FormattedValue: return "f-string expression";
    case ExprKind::Compare: return "comparison";
    case ExprKind::IfExp: return "conditional expression";
    case ExprKind::Lambda: return "lambda";
    case ExprKind::Dict: return "dict literal";
    case ExprKind::Set: return "set display";
    case ExprKind::ListComp: return "list comprehension";
    case ExprKind::SetComp: return "set comprehension";
    case ExprKind::DictComp: return "dict comprehension";
    case ExprKind::GeneratorExp: return "generator expression";
    case ExprKind::NamedExpr: return "named expression";
    case ExprKind::Yield:
    case ExprKind::YieldFrom: return "yield expression";
    default: return "expression";
  }
}

bool is_singleton_name(const char* what) {
  return std::string_view(what) == "True" || std::string_view(what) == "False" || std::string_view(what) == "None";
}

// Finds the first invalid target inside e (recursing into tuples, lists, starred).
const ast::Expr* first_invalid(const ast::Expr& e) {
  if (e.kind == ExprKind::Tuple || e.kind == ExprKind::List) {
    for (auto& x : e.elts)
      if (auto bad = first_invalid(*x)) return bad;
    return nullptr;
  }
  if (e.kind == ExprKind::Starred) return first_invalid(*e.a);
  return invalid_target_name(e) ? &e : nullptr;
}

}  // namespace

void check_target(const ExprP& e, TargetUse use, bool first_assign_target) {
  if (use == TargetUse::AugAssign) {
    if (e->kind == ExprKind::Name || e->kind == ExprKind::Attribute || e->kind == ExprKind::Subscript) return;
    const char* what = e->kind == ExprKind::Tuple     ? "tuple"
                       : e->kind == ExprKind::List    ? "list"
                       : e->kind == ExprKind::Starred ? "starred"
                                                      : invalid_target_name(*e);
    syntax_error(e->loc, fmt::format("'{}' is an illegal expression for augmented assignment", what));
  }
  if (use == TargetUse::Assign && e->kind == ExprKind::Starred)
    syntax_error(e->loc, "starred assignment target must be in a list or tuple");
  const ast::Expr* bad = first_invalid(*e);
  if (!bad) {
    if (use == TargetUse::Delete && e->kind == ExprKind::Starred) syntax_error(e->loc, "cannot delete starred");
    return;
  }
  const char* what = invalid_target_name(*bad);
  if (use == TargetUse::Delete) syntax_error(bad->loc, fmt::format("cannot delete {}", what));
  if (bad->kind == ExprKind::Yield || bad->kind == ExprKind::YieldFrom)
    syntax_error(bad->loc, "assignment to yield expression not possible");
  // CPython adds the '==' hint unless the bad target sits inside a parenthesised tuple.
  const bool parenthesized = e->kind == ExprKind::Tuple && !e->elts.empty() &&
                             (e->loc.line != e->elts[0]->loc.line || e->loc.col != e->elts[0]->loc.col);
  if (use == TargetUse::Assign && first_assign_target && !parenthesized && !is_singleton_name(what))
    syntax_error(bad->loc, fmt::format("cannot assign to {} here. Maybe you meant '==' instead of '='?", what));
  syntax_error(bad->loc, fmt::format("cannot assign to {}", what));
}

void dict_add(ExprP& dict, ExprP key, ExprP value) {
  dict->keys.push_back(std::move(key));
  dict->elts.push_back(std::move(value));
}

}  // namespace shard::grammar::build
