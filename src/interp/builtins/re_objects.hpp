// The objects of the `re` module, shared by its files:
//   mod_re.cpp          the module: functions, flags (RegexFlag), re.error, compiling and
//                       the pattern cache
//   mod_re_pattern.cpp  Pattern objects and the scans behind search/findall/sub/split
//   mod_re_match.cpp    Match objects and template expansion
// Patterns run on PCRE2 (8-bit, UTF mode, Unicode properties unless re.ASCII, JIT-compiled).
// Python positions are code-point indices; PCRE2 works in byte offsets of the UTF-8 text,
// converted by Scanner.
#pragma once
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "interp/builtins/re_syntax.hpp"
#include "interp/builtins/str_util.hpp"
#include "interp/builtins/support.hpp"

namespace shard::interp::bi::re {

struct PatternObj : NativeObj {
  std::string pattern;  // the Python source
  int64_t flags = 0;    // as Pattern.flags reports them
  size_t groups = 0;
  std::vector<std::pair<std::string, size_t>> names;  // named groups in definition order
  std::vector<size_t> close_rank;                     // see Translation::close_rank
  std::string pcre;                                   // the PCRE2 source and compile options
  uint32_t options = 0;
  // For valid UTF-8 text, checked once per scan. A str holding a lone surrogate (stored as
  // its 3-byte form) is not valid UTF-8: it is searched with `lenient_code`, compiled on
  // first need with PCRE2_MATCH_INVALID_UTF, under which no pattern matches the surrogate.
  // (That option is not the default: without the JIT it makes every match call cost a pass
  // over the whole text.)
  pcre2_code* code = nullptr;
  pcre2_code* lenient_code = nullptr;
  using NativeObj::NativeObj;
  ~PatternObj() override {
    pcre2_code_free(code);
    pcre2_code_free(lenient_code);
  }
};

struct MatchObj : NativeObj {
  Value pattern;  // the PatternObj
  Value string;   // the str searched
  int64_t pos = 0, endpos = 0;
  // Group g's start and end at [2g] and [2g + 1], -1 when it did not participate: as byte
  // offsets into the text and as code-point indices.
  std::vector<int64_t> bytes, chars;
  int64_t lastindex = -1;
  using NativeObj::NativeObj;
  PatternObj& re() const { return static_cast<PatternObj&>(*pattern); }
  const std::string& text() const { return str_of(string)->v; }
  // Group g's text, or nullopt when it did not participate.
  std::optional<std::string_view> group_text(size_t g) const {
    if (bytes[2 * g] < 0) return std::nullopt;
    return std::string_view(text()).substr(size_t(bytes[2 * g]), size_t(bytes[2 * g + 1] - bytes[2 * g]));
  }
};

ClassP pattern_class();
ClassP match_class();
void init_pattern_class(const ClassP& cls);
void init_match_class(const ClassP& cls);

// PCRE2's text for an error code.
std::string pcre2_message(int code);
// The pattern's lenient_code, compiled on first use.
pcre2_code* lenient_code(Interp& I, PatternObj& re);
// re.error(msg, pattern, pos) for a syntax error, or the built-in error CPython raises.
[[noreturn]] void raise_syntax_error(Interp& I, const SyntaxError& e, const std::string& source);
// The string argument to search, checked to be a str ("expected string or bytes-like object").
Value subject_arg(Interp& I, const Value& v);
// A pattern argument: a Pattern as it is, a str compiled with `flags` (null: 0) through the
// cache; `pattern` is replaced by the Pattern.
PatternObj& compiled(Interp& I, Value& pattern, const Value& flags);

// Successive matches of a pattern over one str between pos and endpos (Python's clamping),
// stepping as CPython does: after an empty match the next one may not be empty at the same
// position (PCRE2_NOTEMPTY_ATSTART), so the scan always moves on.
class Scanner {
 public:
  Scanner(Interp& I, Value pattern, Value string, int64_t pos = 0, int64_t endpos = INT64_MAX);
  ~Scanner();
  Scanner(const Scanner&) = delete;
  Scanner& operator=(const Scanner&) = delete;

  // The next match; `anchor` is 0 (search), PCRE2_ANCHORED (match) or PCRE2_ANCHORED |
  // PCRE2_ENDANCHORED (fullmatch). False when there is none (and from then on).
  bool next(uint32_t anchor = 0);
  // Of the last match: group g's byte offsets (start > end never happens: no \K in Python).
  bool has_group(size_t g) const { return g < set_ && ovector_[2 * g] != PCRE2_UNSET; }
  size_t start_byte(size_t g = 0) const { return ovector_[2 * g]; }
  size_t end_byte(size_t g = 0) const { return ovector_[2 * g + 1]; }
  std::optional<std::string_view> group_text(size_t g) const;
  Value group_value(size_t g, const Value& unset) const;  // str, or `unset`
  Value match_object() const;

  const std::string& text() const { return text_; }
  size_t end_limit() const { return end_byte_; }
  PatternObj& re() const { return re_; }

 private:
  Interp& I_;
  Value pattern_, string_;
  PatternObj& re_;
  const std::string& text_;
  U8 index_;
  int64_t pos_, endpos_;        // code points, clamped
  size_t cursor_, end_byte_;    // byte offsets: where the next search starts, the end limit
  bool must_advance_ = false, done_ = false;
  bool checked_ = false;        // PCRE2 has found the text valid UTF-8 (no need to check again)
  bool lenient_ = false;        // the text is not valid UTF-8: lenient_code searches it
  pcre2_match_data* data_;
  const PCRE2_SIZE* ovector_;
  size_t set_ = 0;              // groups (with group 0) the last match reported
};

// Template text with the groups a match supplies (unmatched groups give "").
template <class GroupText>
std::string expand_template(const std::vector<TemplatePiece>& pieces, const GroupText& group_text) {
  std::string out;
  for (auto& p : pieces) {
    if (p.group < 0) out += p.text;
    else if (auto g = group_text(size_t(p.group))) out += *g;
  }
  return out;
}
// parse_template for a pattern, raising re.error / IndexError as CPython does.
std::vector<TemplatePiece> template_for(Interp& I, const PatternObj& re, const Value& repl);

}  // namespace shard::interp::bi::re
