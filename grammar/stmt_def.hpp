// Definitions of the statement rules. Blocks are NEWLINE INDENT statement+ DEDENT, with the
// markers placed by the pre-lexer; a missing INDENT after a header's ':' is CPython's
// IndentationError "expected an indented block after ...".
#pragma once
#include <boost/fusion/include/at_c.hpp>

#include "grammar/build.hpp"
#include "grammar/stmt.hpp"
#include "grammar/tokens.hpp"

namespace shard::grammar::rules {

namespace fu = boost::fusion;
using ast::Body;
using ast::ExprKind;
using ast::ExprP;
using ast::StmtKind;
using ast::StmtP;
using x3::_attr;
using x3::_val;
using x3::_where;

template <typename Ctx>
ast::Loc stmt_loc(Ctx& ctx) {
  return state_of(ctx).loc(x3::get<start_tag>(ctx));
}

#define SHARD_STMT_RULE(name, attr, text) \
  struct name##_class;                    \
  const x3::rule<name##_class, attr> name = text;

SHARD_STMT_RULE(statement, Body, "statement")
SHARD_STMT_RULE(simple_stmts, Body, "simple statements")
SHARD_STMT_RULE(small_stmt, StmtP, "simple statement")
SHARD_STMT_RULE(expr_stmt, StmtP, "expression statement")
SHARD_STMT_RULE(yield_or_targets, ExprP, "assignment targets")
SHARD_STMT_RULE(yield_or_list, ExprP, "expression list")
SHARD_STMT_RULE(compound_stmt, StmtP, "compound statement")
SHARD_STMT_RULE(block, Body, "block")
SHARD_STMT_RULE(if_stmt, StmtP, "if statement")
SHARD_STMT_RULE(elif_clause, StmtP, "elif clause")
SHARD_STMT_RULE(else_block, Body, "else clause")
SHARD_STMT_RULE(while_stmt, StmtP, "while statement")
SHARD_STMT_RULE(for_stmt, StmtP, "for statement")
SHARD_STMT_RULE(try_stmt, StmtP, "try statement")
SHARD_STMT_RULE(except_clause, ast::ExceptHandler, "except clause")
SHARD_STMT_RULE(finally_block, Body, "finally clause")
SHARD_STMT_RULE(with_stmt, StmtP, "with statement")
SHARD_STMT_RULE(with_items, std::vector<ast::WithItem>, "with items")
SHARD_STMT_RULE(with_item, ast::WithItem, "with item")
SHARD_STMT_RULE(funcdef, StmtP, "function definition")
SHARD_STMT_RULE(classdef, StmtP, "class definition")
SHARD_STMT_RULE(decorated, StmtP, "decorated definition")
SHARD_STMT_RULE(decorator, ExprP, "decorator")
SHARD_STMT_RULE(definition, StmtP, "definition")
SHARD_STMT_RULE(dotted_name, std::string, "dotted name")
SHARD_STMT_RULE(dotted_as_name, ast::Alias, "import name")
SHARD_STMT_RULE(import_as_name, ast::Alias, "import name")
SHARD_STMT_RULE(import_targets, std::vector<ast::Alias>, "import names")
SHARD_STMT_RULE(import_dots, int, "relative import dots")

using ast::BinOpKind;
inline constexpr op_entry<BinOpKind> augassign_table[] = {
    {"+=", BinOpKind::Add},       {"-=", BinOpKind::Sub},     {"*=", BinOpKind::Mul},
    {"/=", BinOpKind::Div},       {"//=", BinOpKind::FloorDiv}, {"%=", BinOpKind::Mod},
    {"@=", BinOpKind::MatMul},    {"&=", BinOpKind::BitAnd},  {"|=", BinOpKind::BitOr},
    {"^=", BinOpKind::BitXor},    {">>=", BinOpKind::RShift}, {"<<=", BinOpKind::LShift},
    {"**=", BinOpKind::Pow}};

// ---- semantic actions ----
inline const auto s_set = located([](auto& ctx) { _val(ctx) = std::move(_attr(ctx)); });
inline const auto s_push = located([](auto& ctx) { _val(ctx).push_back(std::move(_attr(ctx))); });
inline const auto s_append = located([](auto& ctx) {
  for (auto& s : _attr(ctx)) _val(ctx).push_back(std::move(s));
});
inline const auto s_clear = located([](auto& ctx) { _val(ctx).clear(); });

template <StmtKind K>
inline const auto make_simple = located([](auto& ctx) { _val(ctx) = ast::make_stmt(K, stmt_loc(ctx)); });

inline const auto make_return = located([](auto& ctx) {
  _val(ctx) = ast::make_stmt(StmtKind::Return, stmt_loc(ctx));
  if (_attr(ctx)) _val(ctx)->value = std::move(*_attr(ctx));
});
inline const auto make_raise = located([](auto& ctx) {
  _val(ctx) = ast::make_stmt(StmtKind::Raise, stmt_loc(ctx));
  if (auto& a = _attr(ctx)) {
    _val(ctx)->value = std::move(fu::at_c<0>(*a));
    if (fu::at_c<1>(*a)) _val(ctx)->cause = std::move(*fu::at_c<1>(*a));
  }
});
template <StmtKind K>
inline const auto make_names = located([](auto& ctx) {
  _val(ctx) = ast::make_stmt(K, stmt_loc(ctx));
  _val(ctx)->names = std::move(_attr(ctx));
});
inline const auto make_delete = located([](auto& ctx) {
  _val(ctx) = ast::make_stmt(StmtKind::Delete, stmt_loc(ctx));
  for (auto& t : _attr(ctx)) build::check_target(t, build::TargetUse::Delete);
  _val(ctx)->targets = std::move(_attr(ctx));
});
inline const auto make_assert = located([](auto& ctx) {
  auto& a = _attr(ctx);
  _val(ctx) = ast::make_stmt(StmtKind::Assert, stmt_loc(ctx));
  _val(ctx)->test = std::move(fu::at_c<0>(a));
  if (fu::at_c<1>(a)) _val(ctx)->msg = std::move(*fu::at_c<1>(a));
});
inline const auto make_import = located([](auto& ctx) {
  _val(ctx) = ast::make_stmt(StmtKind::Import, stmt_loc(ctx));
  _val(ctx)->aliases = std::move(_attr(ctx));
});
inline const auto make_from = located([](auto& ctx) {
  auto& a = _attr(ctx);
  if (fu::at_c<0>(a) == 0 && !fu::at_c<1>(a)) {
    x3::_pass(ctx) = false;  // `from import x`
    return;
  }
  _val(ctx) = ast::make_stmt(StmtKind::ImportFrom, stmt_loc(ctx));
  _val(ctx)->level = fu::at_c<0>(a);
  if (fu::at_c<1>(a)) _val(ctx)->name = std::move(*fu::at_c<1>(a));
  _val(ctx)->aliases = std::move(fu::at_c<2>(a));
});
inline const auto add_dots = located([](auto& ctx) { _val(ctx) += 1; });
inline const auto add_ellipsis_dots = located([](auto& ctx) { _val(ctx) += 3; });
inline const auto dotted_append = located([](auto& ctx) {
  if (!_val(ctx).empty()) _val(ctx) += '.';
  _val(ctx) += _attr(ctx);
});
inline const auto make_alias = located([](auto& ctx) {
  auto& a = _attr(ctx);
  _val(ctx).name = std::move(fu::at_c<0>(a));
  if (fu::at_c<1>(a)) _val(ctx).asname = std::move(*fu::at_c<1>(a));
  _val(ctx).loc = stmt_loc(ctx);
});
inline const auto star_alias = located([](auto& ctx) {
  _val(ctx).push_back(ast::Alias{"*", "", stmt_loc(ctx)});
});

// Expression statements and assignments: _val starts as an ExprStmt holding the first list.
inline const auto expr_first = located([](auto& ctx) {
  ExprP e = std::move(_attr(ctx));
  _val(ctx) = ast::make_stmt(StmtKind::ExprStmt, e->loc);
  _val(ctx)->value = std::move(e);
});
inline const auto expr_only = located([](auto& ctx) {
  const ExprP& e = _val(ctx)->value;
  if (e->kind == ExprKind::Starred) build::syntax_error(e->loc, "can't use starred expression here");
});
inline const auto make_augassign = located([](auto& ctx) {
  auto& a = _attr(ctx);
  StmtP& s = _val(ctx);
  build::check_target(s->value, build::TargetUse::AugAssign);
  s->kind = StmtKind::AugAssign;
  s->target = std::move(s->value);
  s->binop = fu::at_c<0>(a);
  s->value = std::move(fu::at_c<1>(a));
});
// `target: annotation` is only tried for a name, attribute or subscript (CPython's first pass).
inline const auto annotatable = located([](auto& ctx) {
  const ExprKind k = _val(ctx)->value->kind;
  x3::_pass(ctx) = k == ExprKind::Name || k == ExprKind::Attribute || k == ExprKind::Subscript;
});
// Other targets followed by `: annotation` get CPython's specific messages.
inline const auto bad_annotation_target = located([](auto& ctx) {
  const ExprP& t = _val(ctx)->value;
  if (t->kind == ExprKind::Tuple) build::syntax_error(t->loc, "only single target (not tuple) can be annotated");
  if (t->kind == ExprKind::List) build::syntax_error(t->loc, "only single target (not list) can be annotated");
  build::syntax_error(t->loc, "illegal target for annotation");
});
inline const auto make_annassign = located([](auto& ctx) {
  auto& a = _attr(ctx);
  StmtP& s = _val(ctx);
  s->kind = StmtKind::AnnAssign;
  s->target = std::move(s->value);
  s->annotation = std::move(fu::at_c<0>(a));
  s->value = fu::at_c<1>(a) ? std::move(*fu::at_c<1>(a)) : nullptr;
});
inline const auto make_assign = located([](auto& ctx) {
  auto& rhs = _attr(ctx);  // every list after an '='
  StmtP& s = _val(ctx);
  s->kind = StmtKind::Assign;
  s->targets.push_back(std::move(s->value));
  for (size_t i = 0; i + 1 < rhs.size(); ++i) s->targets.push_back(std::move(rhs[i]));
  for (size_t i = 0; i < s->targets.size(); ++i)
    build::check_target(s->targets[i], build::TargetUse::Assign, i == 0 && s->targets.size() == 1);
  s->value = std::move(rhs.back());
  if (s->value->kind == ExprKind::Starred) build::syntax_error(s->value->loc, "can't use starred expression here");
});

// Compound statements.
inline const auto make_if = located([](auto& ctx) {
  auto& a = _attr(ctx);
  auto s = ast::make_stmt(StmtKind::If, stmt_loc(ctx));
  s->test = std::move(fu::at_c<0>(a));
  s->body = std::move(fu::at_c<1>(a));
  ast::Stmt* tail = s.get();
  for (auto& elif : fu::at_c<2>(a)) {
    tail->orelse.push_back(elif);
    tail = elif.get();
  }
  if (fu::at_c<3>(a)) tail->orelse = std::move(*fu::at_c<3>(a));
  _val(ctx) = std::move(s);
});
inline const auto make_elif = located([](auto& ctx) {
  auto& a = _attr(ctx);
  _val(ctx) = ast::make_stmt(StmtKind::If, stmt_loc(ctx));
  _val(ctx)->test = std::move(fu::at_c<0>(a));
  _val(ctx)->body = std::move(fu::at_c<1>(a));
});
inline const auto make_while = located([](auto& ctx) {
  auto& a = _attr(ctx);
  _val(ctx) = ast::make_stmt(StmtKind::While, stmt_loc(ctx));
  _val(ctx)->test = std::move(fu::at_c<0>(a));
  _val(ctx)->body = std::move(fu::at_c<1>(a));
  if (fu::at_c<2>(a)) _val(ctx)->orelse = std::move(*fu::at_c<2>(a));
});
inline const auto make_for = located([](auto& ctx) {
  auto& a = _attr(ctx);
  build::check_target(fu::at_c<0>(a), build::TargetUse::For);
  _val(ctx) = ast::make_stmt(StmtKind::For, stmt_loc(ctx));
  _val(ctx)->target = std::move(fu::at_c<0>(a));
  _val(ctx)->iter = std::move(fu::at_c<1>(a));
  _val(ctx)->body = std::move(fu::at_c<2>(a));
  if (fu::at_c<3>(a)) _val(ctx)->orelse = std::move(*fu::at_c<3>(a));
});
inline const auto make_try = located([](auto& ctx) {
  auto& a = _attr(ctx);
  auto s = ast::make_stmt(StmtKind::Try, stmt_loc(ctx));
  s->body = std::move(fu::at_c<0>(a));
  s->handlers = std::move(fu::at_c<1>(a));
  if (fu::at_c<2>(a)) s->orelse = std::move(*fu::at_c<2>(a));
  const bool has_finally = static_cast<bool>(fu::at_c<3>(a));
  if (has_finally) s->finalbody = std::move(*fu::at_c<3>(a));
  if (s->handlers.empty() && !has_finally) {
    // A broken `except`/`finally` clause is an ordinary syntax error inside that clause.
    const char* next = _where(ctx).begin();
    while (*next == ' ' || *next == '\t') ++next;
    if (std::strncmp(next, "except", 6) == 0 || std::strncmp(next, "finally", 7) == 0) {
      x3::_pass(ctx) = false;
      return;
    }
    build::syntax_error(state_of(ctx).loc(next), "expected 'except' or 'finally' block");
  }
  for (size_t i = 0; i + 1 < s->handlers.size(); ++i)
    if (!s->handlers[i].type) build::syntax_error(s->handlers[i].loc, "default 'except:' must be last");
  _val(ctx) = std::move(s);
});
inline const auto make_handler = located([](auto& ctx) {
  auto& a = _attr(ctx);
  ast::ExceptHandler h;
  h.loc = stmt_loc(ctx);
  if (auto& spec = fu::at_c<0>(a)) {
    h.type = std::move(fu::at_c<0>(*spec));
    if (fu::at_c<1>(*spec)) h.name = std::move(*fu::at_c<1>(*spec));
  }
  h.body = std::move(fu::at_c<1>(a));
  _val(ctx) = std::move(h);
});
inline const auto make_with_item = located([](auto& ctx) {
  auto& a = _attr(ctx);
  _val(ctx).context = std::move(fu::at_c<0>(a));
  if (fu::at_c<1>(a)) {
    build::check_target(*fu::at_c<1>(a), build::TargetUse::With);
    _val(ctx).target = std::move(*fu::at_c<1>(a));
  }
});
inline const auto make_with = located([](auto& ctx) {
  auto& a = _attr(ctx);
  _val(ctx) = ast::make_stmt(StmtKind::With, stmt_loc(ctx));
  _val(ctx)->items = std::move(fu::at_c<0>(a));
  _val(ctx)->body = std::move(fu::at_c<1>(a));
});
inline const auto make_def = located([](auto& ctx) {
  auto& a = _attr(ctx);
  _val(ctx) = ast::make_stmt(StmtKind::FunctionDef, stmt_loc(ctx));
  _val(ctx)->name = std::move(fu::at_c<0>(a));
  _val(ctx)->params = build::params_finish(fu::at_c<1>(a));
  _val(ctx)->body = std::move(fu::at_c<3>(a));
});
inline const auto make_class = located([](auto& ctx) {
  auto& a = _attr(ctx);
  _val(ctx) = ast::make_stmt(StmtKind::ClassDef, stmt_loc(ctx));
  _val(ctx)->name = std::move(fu::at_c<0>(a));
  if (auto& args = fu::at_c<1>(a)) {
    for (auto& e : (*args)->elts) {
      if (e->kind == ExprKind::GeneratorExp) build::syntax_error(e->loc, "invalid syntax");
      _val(ctx)->bases.push_back(e);
    }
    _val(ctx)->keywords = std::move((*args)->keywords);
  }
  _val(ctx)->body = std::move(fu::at_c<2>(a));
});
inline const auto make_decorated = located([](auto& ctx) {
  auto& a = _attr(ctx);
  _val(ctx) = std::move(fu::at_c<1>(a));
  _val(ctx)->decorators = std::move(fu::at_c<0>(a));
});

// ---- the grammar ----
const auto colon = expect(":", "expected ':'");
const auto forced_colon = forced(":", "expected ':'");

const auto file_input_def = *statement[s_append];
const auto statement_def = compound_stmt[s_push] | simple_stmts[s_append];
const auto simple_stmts_def = small_stmt[s_push] % tok(";") >> -tok(";") >> NEWLINE;
const auto block_def = (NEWLINE >> BLOCK_INDENT >> +statement[s_append] >> DEDENT) | simple_stmts[s_append];

const auto small_stmt_def =
    kw("pass")[make_simple<StmtKind::Pass>] | kw("break")[make_simple<StmtKind::Break>] |
    kw("continue")[make_simple<StmtKind::Continue>] | (kw("return") >> -testlist_star_expr)[make_return] |
    (kw("raise") >> -(test >> -(kw("from") >> test)))[make_raise] |
    (kw("global") >> (NAME % tok(",")))[make_names<StmtKind::Global>] |
    (kw("nonlocal") >> (NAME % tok(",")))[make_names<StmtKind::Nonlocal>] |
    (kw("del") >> (bitor_expr % tok(",")) >> -tok(","))[make_delete] |
    (kw("assert") >> test >> -(tok(",") >> test))[make_assert] |
    (kw("import") >> (dotted_as_name % tok(",")))[make_import] |
    (kw("from") >> import_dots >> -dotted_name >> kw("import") >> import_targets)[make_from] | expr_stmt[s_set];

const auto yield_or_targets_def = yield_expr[s_set] | star_targets[s_set];
const auto yield_or_list_def = yield_expr[s_set] | testlist_star_expr[s_set];
const auto expr_stmt_def = yield_or_targets[expr_first] >>
                           ((ops(augassign_table) >> yield_or_list)[make_augassign] |
                            (x3::eps[annotatable] >> tok(":") >> test >> -(tok("=") >> testlist_star_expr))
                                [make_annassign] |
                            probe[(tok(":") >> test)[bad_annotation_target]] |
                            (+(tok("=") >> yield_or_targets))[make_assign] | x3::eps[expr_only]);

const auto dotted_name_def = NAME[dotted_append] % tok(".");
const auto dotted_as_name_def = (dotted_name >> -(kw("as") >> NAME))[make_alias];
const auto import_as_name_def = (NAME >> -(kw("as") >> NAME))[make_alias];
const auto import_dots_def = *(tok("...")[add_ellipsis_dots] | tok(".")[add_dots]);
const auto import_targets_def =
    tok("*")[star_alias] | (tok("(") >> (import_as_name[s_push] % tok(",")) >> -tok(",") >> tok(")")) |
    ((import_as_name[s_push] % tok(",")) >>
     -(tok(",") >> fail_parser("trailing comma not allowed without surrounding parentheses")));

const auto compound_stmt_def = if_stmt[s_set] | while_stmt[s_set] | for_stmt[s_set] | try_stmt[s_set] |
                               with_stmt[s_set] | funcdef[s_set] | classdef[s_set] | decorated[s_set];

const auto if_stmt_def =
    (header("if", "'if' statement") >> namedexpr >> colon >> block >> *elif_clause >> -else_block)[make_if];
const auto elif_clause_def = (header("elif", "'elif' statement") >> namedexpr >> colon >> block)[make_elif];
const auto else_block_def = header("else", "'else' statement") >> forced_colon >> block[s_set];
const auto while_stmt_def =
    (header("while", "'while' statement") >> namedexpr >> colon >> block >> -else_block)[make_while];
const auto for_stmt_def = (header("for", "'for' statement") >> exprlist >> kw("in") >> testlist_star_expr >> colon >>
                           block >> -else_block)[make_for];
const auto try_stmt_def = (header("try", "'try' statement") >> forced_colon >> block >> *except_clause >> -else_block >>
                           -finally_block)[make_try];
const auto except_clause_def =
    (header("except", "'except' statement") >> -(test >> -(kw("as") >> NAME)) >> colon >> block)[make_handler];
const auto finally_block_def = header("finally", "'finally' statement") >> forced_colon >> block[s_set];
const auto with_stmt_def = (header("with", "'with' statement") >> with_items >> colon >> block)[make_with];
const auto with_items_def =
    (tok("(") >> (with_item[s_push] % tok(",")) >> -tok(",") >> tok(")") >> &tok(":")) |
    (x3::eps[s_clear] >> (with_item[s_push] % tok(",")));
const auto with_item_def = (test >> -(kw("as") >> bitor_expr))[make_with_item];
const auto funcdef_def = (header("def", "function definition") >> NAME >> forced("(", "expected '('") >> def_params >>
                          tok(")") >> -(tok("->") >> test) >> forced_colon >> block)[make_def];
const auto classdef_def =
    (header("class", "class definition") >> NAME >> -(tok("(") >> call_args >> tok(")")) >> colon >> block)
        [make_class];
const auto decorator_def = tok("@") >> namedexpr[s_set] >> NEWLINE;
const auto definition_def = funcdef[s_set] | classdef[s_set];
const auto decorated_def = (+decorator >> definition)[make_decorated];

BOOST_SPIRIT_DEFINE(file_input, statement, simple_stmts, block, small_stmt, expr_stmt, yield_or_targets, yield_or_list, dotted_name, dotted_as_name,
                    import_as_name, import_dots, import_targets, compound_stmt, if_stmt, elif_clause, else_block,
                    while_stmt, for_stmt, try_stmt, except_clause, finally_block, with_stmt, with_items, with_item,
                    funcdef, classdef, decorator, definition, decorated)

}  // namespace shard::grammar::rules
