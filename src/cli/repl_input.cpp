#include "cli/repl_input.hpp"

#include <algorithm>

#include "ast/source.hpp"
#include "grammar/parse.hpp"

namespace shard::cli {
namespace {

bool is_blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

uint32_t count_lines(const std::string& text) {
  return static_cast<uint32_t>(std::count(text.begin(), text.end(), '\n')) + 1;
}

// Syntax errors that only more input can cure, whatever their location.
bool curable_message(std::string_view msg) {
  for (std::string_view m : {"was never closed", "unterminated triple-quoted string literal",
                             "unexpected EOF while parsing", "expected an indented block"})
    if (msg.find(m) != std::string_view::npos) return true;
  return false;
}

bool is_compound(ast::StmtKind k) {
  using K = ast::StmtKind;
  return k == K::FunctionDef || k == K::ClassDef || k == K::If || k == K::For || k == K::While ||
         k == K::With || k == K::Try;
}

}  // namespace

ChunkState classify_chunk(const std::string& text, bool blank_line_ends) {
  if (is_blank(text)) return ChunkState::Complete;
  const std::string source = text + "\n";
  try {
    ast::Module m = grammar::parse_module(ast::add_source("<stdin>", source));
    // A block may still grow (more statements, elif/else/except); CPython waits for a blank line.
    if (!blank_line_ends && !m.body.empty() && is_compound(m.body.front()->kind)) return ChunkState::Incomplete;
    return ChunkState::Complete;
  } catch (const grammar::SyntaxError& e) {
    if (blank_line_ends && std::string_view(e.what()).find("expected an indented block") != std::string_view::npos)
      return ChunkState::Complete;  // `if x:` then an empty line: report the missing body
    if (curable_message(e.what())) return ChunkState::Incomplete;
    // Found only past the last line (a decorator without its def, `try:` without `except`).
    if (!blank_line_ends && e.loc.line > count_lines(text)) return ChunkState::Incomplete;
    return ChunkState::Complete;
  }
}

bool line_starts_new_statement(std::string_view line) {
  if (line.empty() || line[0] == ' ' || line[0] == '\t' || line[0] == '#') return false;
  if (line[0] == ')' || line[0] == ']' || line[0] == '}') return false;
  size_t n = 0;
  while (n < line.size() && (std::isalnum(static_cast<unsigned char>(line[n])) || line[n] == '_')) ++n;
  std::string_view word = line.substr(0, n);
  for (std::string_view cont : {"else", "elif", "except", "finally", "case"})
    if (word == cont) return false;
  return true;
}

}  // namespace shard::cli
