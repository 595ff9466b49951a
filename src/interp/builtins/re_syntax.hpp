// Python's regular-expression syntax, as CPython 3.11's re/_parser.py reads it:
//   re_translate.cpp  a str pattern checked with CPython's errors and re-emitted in PCRE2's
//                     syntax (the engine behind `re`), with its groups and flags
//   re_template.cpp   replacement templates (re.sub's repl, Match.expand) split into
//                     literal text and group references
// Positions are code-point indices into the pattern or template, as re.error reports them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shard::interp::bi::re {

// The flag bits of CPython's sre (re.IGNORECASE == 2, ...).
enum Flag : int64_t {
  kTemplate = 1, kIgnoreCase = 2, kLocale = 4, kMultiline = 8, kDotAll = 16,
  kUnicode = 32, kVerbose = 64, kDebug = 128, kAscii = 256,
};

// An error CPython raises while reading a pattern or template. `type` is empty for re.error,
// else the built-in exception CPython raises instead (ValueError for incompatible flags,
// OverflowError for huge repeat counts, IndexError for an unknown group name in a template).
struct SyntaxError {
  std::string msg;
  std::optional<size_t> pos;
  std::string type;
};

struct Translation {
  std::string pcre;             // the pattern in PCRE2 syntax (UTF-8)
  std::vector<size_t> origin;   // for each byte of `pcre`, the pattern position it came from
  int64_t flags = 0;            // the flags with inline global flags and UNICODE (or ASCII) settled
  size_t groups = 0;            // capturing groups
  std::vector<std::pair<std::string, size_t>> names;  // named groups in definition order
  // close_rank[g - 1]: the order in which group g's ')' appears in the pattern (for lastindex)
  std::vector<size_t> close_rank;
};

// Reads `pattern` with `flags` (the compile() argument); throws SyntaxError.
Translation translate(std::string_view pattern, int64_t flags);

// A replacement template: literal text and group references, in order.
struct TemplatePiece {
  std::string text;    // literal text, when group < 0
  int64_t group = -1;  // group number to substitute
};

// Reads `repl` for a pattern with `groups` capturing groups and the named groups `names`.
// Throws SyntaxError.
std::vector<TemplatePiece> parse_template(
    std::string_view repl, size_t groups,
    const std::vector<std::pair<std::string, size_t>>& names);

}  // namespace shard::interp::bi::re
