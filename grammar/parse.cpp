// Entry points of the front end: pre-lex, run the X3 rules, and turn a failed parse into
// CPython's "invalid syntax" at the first token the grammar could not use.
#include "grammar/parse.hpp"

#include <cstring>

#include <fmt/format.h>

#include "ast/source.hpp"
#include "grammar/checks.hpp"
#include "grammar/config.hpp"
#include "grammar/expr.hpp"
#include "grammar/literals.hpp"
#include "grammar/stmt.hpp"

namespace shard::grammar {
namespace {

// Whether the token at p could start an expression (for the "forgot a comma" hint).
bool starts_expression(const char* p, const char* end) {
  if (p >= end) return false;
  const unsigned char c = static_cast<unsigned char>(*p);
  if (c == kString || c == '(' || c == '[' || c == '{' || (c >= '0' && c <= '9')) return true;
  if (!is_ident_start(c)) return false;
  const char* q = p;
  while (q < end && is_ident_char(static_cast<unsigned char>(*q))) ++q;
  std::string_view word(p, static_cast<size_t>(q - p));
  return !is_keyword(word) || word == "None" || word == "True" || word == "False" || word == "lambda" ||
         word == "not";
}

int bracket_depth_at(const ParseState& st, const char* p) {
  int depth = 0;
  for (const char* q = st.begin; q < p; ++q) {
    if (*q == '(' || *q == '[' || *q == '{') ++depth;
    else if (*q == ')' || *q == ']' || *q == '}') --depth;
  }
  return depth;
}

const char* skip_blanks(const char* p, const char* end) {
  while (p < end && (*p == ' ' || *p == '\t')) ++p;
  return p;
}

// A parse that failed: the error is at the first token the grammar could not use, with
// CPython's order between parser and tokenizer errors (pegen_errors.c): a tokenizer error
// the parser reached wins; a generic "invalid syntax" before it gives way to it if it is
// one that CPython raises as an exception (not the indentation ones); an unclosed bracket
// wins over an error on a later line.
[[noreturn]] void report_failure(const ParseState& st, const char* at) {
  const Prelexed& px = st.px;
  const char* end = st.begin + px.stream.size();
  const char* p = skip_blanks(std::max(at, st.furthest), end);
  const SyntaxError tokenizer_error(px.error_loc, px.error_kind, px.error_message);
  if (px.has_error && p >= st.begin + px.error_pos) throw tokenizer_error;
  if (px.unclosed && (p >= end || st.loc(p).line > px.unclosed_loc.line))
    throw SyntaxError(px.unclosed_loc, "SyntaxError", px.unclosed_message);
  if (p < end && *p == kIndent) {
    // CPython gives the width of the indentation as the offset.
    ast::Loc l = st.loc(p);
    l.col = l.col > 1 ? l.col - 1 : 1;
    throw SyntaxError(l, "IndentationError", "unexpected indent");
  }
  const bool overriding = px.has_error && px.error_kind == "SyntaxError" &&
                          px.error_message != "unexpected EOF while parsing";
  if (overriding) throw tokenizer_error;
  for (const char* word : {"async", "await"}) {
    const size_t n = std::strlen(word);
    if (static_cast<size_t>(end - p) >= n && std::memcmp(p, word, n) == 0 &&
        (p + n == end || !is_ident_char(static_cast<unsigned char>(p[n]))))
      throw SyntaxError(st.loc(p), "SyntaxError", fmt::format("'{}' is not supported by shard", word));
  }
  const bool expr_before = st.last_expr && skip_blanks(st.last_expr_end, end) == p;
  if (expr_before && starts_expression(p, end)) {
    const ast::Expr& e = *st.last_expr;
    if (e.kind == ast::ExprKind::Name && e.id == "match")
      throw SyntaxError(e.loc, "SyntaxError", "match statements are not supported by shard");
    if (e.kind == ast::ExprKind::Name && (e.id == "print" || e.id == "exec"))
      throw SyntaxError(e.loc, "SyntaxError",
                        fmt::format("Missing parentheses in call to '{}'. Did you mean {}(...)?", e.id, e.id));
    if (bracket_depth_at(st, p) > 0)
      throw SyntaxError(st.loc(st.last_expr_start), "SyntaxError", "invalid syntax. Perhaps you forgot a comma?");
  }
  throw SyntaxError(st.loc(p), "SyntaxError", "invalid syntax");
}

template <typename Rule, typename Attr>
void run(const Rule& rule, ParseState& st, Attr& attr) {
  const char* first = st.begin;
  const char* const last = first + st.px.stream.size();
  bool ok = false;
  try {
    ok = x3::phrase_parse(first, last, x3::with<state_tag>(st)[rule], x3::ascii::blank, attr);
  } catch (const x3::expectation_failure<iterator_type>& e) {
    report_failure(st, e.where());
  }
  if (!ok || first != last) report_failure(st, first);
}

}  // namespace

ast::Module parse_module(uint32_t file) {
  const ast::SourceFile& src = ast::source(file);
  Locator locator(src.text, ast::Loc{file, 1, 1});
  Prelexed px = prelex(src.text, locator, PrelexMode::Module);
  ParseState st(px, locator);
  ast::Module m;
  m.file = file;
  run(rules::file_input, st, m.body);
  check_module(m);
  return m;
}

ast::ExprP parse_expression(const std::string& text, ast::Loc base) { return parse_nested_expression(text, base, 0); }

ast::ExprP parse_nested_expression(const std::string& text, ast::Loc base, int outer_depth) {
  Locator locator(text, base);
  Prelexed px = prelex(text, locator, PrelexMode::Expression);
  ParseState st(px, locator);
  st.depth = outer_depth;  // an f-string field shares its enclosing expression's nesting budget
  ast::ExprP e;
  run(rules::expression_input, st, e);
  return e;
}

}  // namespace shard::grammar
