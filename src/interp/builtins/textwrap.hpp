// CPython's textwrap algorithms on code points, without the interpreter (textwrap.cpp);
// the `textwrap` module (mod_textwrap.cpp) binds them.
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace shard::interp::bi::textwrap {

// TextWrapper's attributes, with its defaults.
struct Options {
  int64_t width = 70;
  std::u32string initial_indent, subsequent_indent;
  bool expand_tabs = true;
  bool replace_whitespace = true;
  bool fix_sentence_endings = false;
  bool break_long_words = true;
  bool drop_whitespace = true;
  bool break_on_hyphens = true;
  int64_t tabsize = 8;
  std::optional<int64_t> max_lines;
  std::u32string placeholder = U" [...]";
};

// ValueError("invalid width 0 (must be > 0)"), ("placeholder too large for max width").
struct WrapError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// TextWrapper.wrap: the lines of one paragraph.
std::vector<std::u32string> wrap(const std::u32string& text, const Options& o);
// The chunks wrap() works on (words, whitespace runs, hyphenated parts); exposed for tests.
std::vector<std::u32string> split_chunks(const std::u32string& text, const Options& o);
// textwrap.dedent.
std::u32string dedent(const std::u32string& text);
// str.isspace over the whole string (false for ""): textwrap's `s.strip() == ''` is !has_text.
bool has_text(const std::u32string& s);

}  // namespace shard::interp::bi::textwrap
