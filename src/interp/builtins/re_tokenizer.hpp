// The token stream of re/_parser.py's Tokenizer over a pattern or template's code points: a
// token is one character, or a backslash with the character after it. Shared by
// re_translate.cpp and re_template.cpp so that both report CPython's positions.
#pragma once
#include <string>

#include "interp/builtins/re_syntax.hpp"
#include "interp/builtins/str_util.hpp"

namespace shard::interp::bi::re {

using Token = std::u32string;  // empty at the end of the input

inline bool is_char(const Token& t, char32_t c) { return t.size() == 1 && t[0] == c; }
inline bool is_digit(char32_t c) { return c >= '0' && c <= '9'; }
inline bool is_octal(char32_t c) { return c >= '0' && c <= '7'; }
inline bool is_hex(char32_t c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
inline bool is_ascii_letter(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// str.isidentifier() for group names, by Unicode category (XID_Start / XID_Continue).
bool is_identifier(std::u32string_view s);

// Python's repr() of a str given as code points (for messages such as "unknown group name 'x'").
std::string repr_u32(std::u32string_view s);

class Tokenizer {
 public:
  explicit Tokenizer(std::u32string text) : s_(std::move(text)) { advance(); }

  const Token& next() const { return next_; }
  bool at_end() const { return next_.empty(); }
  // Consumes the next token when it is the plain (unescaped) character c.
  bool match(char32_t c) {
    if (!is_char(next_, c)) return false;
    advance();
    return true;
  }
  Token get() {
    Token t = next_;
    advance();
    return t;
  }
  // Up to n tokens that are single characters satisfying pred.
  template <class Pred>
  std::u32string get_while(size_t n, Pred pred) {
    std::u32string out;
    while (out.size() < n && next_.size() == 1 && pred(next_[0])) out += get();
    return out;
  }
  // The tokens up to `terminator` (consumed), with CPython's errors for a missing name.
  std::u32string get_until(char32_t terminator, const std::string& name) {
    std::u32string out;
    while (true) {
      Token c = get();
      if (c.empty()) {
        if (out.empty()) error("missing " + name);
        error(std::string("missing ") + char(terminator) + ", unterminated name", out.size());
      }
      if (is_char(c, terminator)) {
        if (out.empty()) error("missing " + name, 1);
        return out;
      }
      out += c;
    }
  }
  // Position of the next token.
  size_t tell() const { return index_ - next_.size(); }
  void seek(size_t index) {
    index_ = index;
    advance();
  }
  // re.error at tell() - offset, as Tokenizer.error does.
  [[noreturn]] void error(std::string msg, size_t offset = 0) const {
    throw SyntaxError{std::move(msg), tell() - offset, ""};
  }

 private:
  void advance() {
    if (index_ >= s_.size()) {
      next_.clear();
      return;
    }
    size_t at = index_;
    next_.assign(1, s_[at]);
    if (s_[at] == '\\') {
      if (at + 1 >= s_.size()) throw SyntaxError{"bad escape (end of pattern)", s_.size() - 1, ""};
      next_.push_back(s_[++at]);
    }
    index_ = at + 1;
  }

  std::u32string s_;
  size_t index_ = 0;
  Token next_;
};

}  // namespace shard::interp::bi::re
