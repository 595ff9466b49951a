// The table of source files seen in this process, so a Loc can be turned back into
// "FILE:LINE:COL" and the text of its line for error messages.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "ast/ast.hpp"

namespace shard::ast {

struct SourceFile {
  std::string name;  // as the user named it (path or "<string>", "<stdin>")
  std::string text;  // the whole original text
};

// Registers a file and returns its id (never 0: id 0 means "unknown").
uint32_t add_source(std::string name, std::string text);
const SourceFile& source(uint32_t id);
// The text of a 1-based line without its newline ("" when out of range).
std::string_view source_line(uint32_t id, uint32_t line);
// "FILE:LINE:COL"
std::string format_loc(Loc loc);

// Source must be UTF-8 (no encoding declarations): CPython's SyntaxError text for the first
// invalid byte of `text` read from `path`, or "" when the text is valid.
std::string non_utf8_error(const std::string& text, const std::string& path);

}  // namespace shard::ast
