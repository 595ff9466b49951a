// Replacement templates (re.sub's repl string, Match.expand) read as CPython 3.11's
// re/_parser.py parse_template does: \g<name>, \g<N>, \N (one or two digits) and three-digit
// octal escapes, the escapes \a \b \f \n \r \t \v \\, errors for other ASCII-letter escapes,
// and any other backslash pair kept as it is.
#include <fmt/format.h>

#include "interp/builtins/re_tokenizer.hpp"

namespace shard::interp::bi::re {

std::vector<TemplatePiece> parse_template(std::string_view repl, size_t groups,
                                          const std::vector<std::pair<std::string, size_t>>& names) {
  Tokenizer s(to_u32(repl));
  std::vector<TemplatePiece> pieces;
  std::u32string literal;
  auto flush = [&] {
    if (literal.empty()) return;
    pieces.push_back({from_u32(literal), -1});
    literal.clear();
  };
  auto add_group = [&](uint64_t index, size_t offset) {
    if (index > groups) s.error(fmt::format("invalid group reference {}", index), offset);
    flush();
    pieces.push_back({"", int64_t(index)});
  };
  while (true) {
    Token tok = s.get();
    if (tok.empty()) break;
    if (tok[0] != '\\') {
      literal += tok;
      continue;
    }
    char32_t c = tok[1];
    if (c == 'g') {
      if (!s.match('<')) s.error("missing <");
      std::u32string name = s.get_until('>', "group name");
      if (is_identifier(name)) {
        std::string key = from_u32(name);
        const std::pair<std::string, size_t>* found = nullptr;
        for (auto& entry : names)
          if (entry.first == key) found = &entry;
        if (!found) throw SyntaxError{"unknown group name " + repr_u32(name), std::nullopt, "IndexError"};
        add_group(found->second, name.size() + 1);
        continue;
      }
      bool digits = !name.empty();
      for (char32_t d : name) digits = digits && is_digit(d);
      if (!digits) s.error("bad character in group name " + repr_u32(name), name.size() + 1);
      if (name.size() > 18) s.error("invalid group reference " + from_u32(name), name.size() + 1);
      add_group(std::stoull(from_u32(name)), name.size() + 1);
    } else if (c == '0') {
      std::u32string esc = tok + s.get_while(2, is_octal);
      literal += char32_t(std::stoul(from_u32(esc.substr(1)), nullptr, 8) & 0xff);
    } else if (is_digit(c)) {
      std::u32string esc = tok;
      if (s.next().size() == 1 && is_digit(s.next()[0])) {
        esc += s.get();
        if (is_octal(c) && is_octal(esc[2]) && s.next().size() == 1 && is_octal(s.next()[0])) {
          esc += s.get();
          unsigned long v = std::stoul(from_u32(esc.substr(1)), nullptr, 8);
          if (v > 0377) s.error(fmt::format("octal escape value {} outside of range 0-0o377", from_u32(esc)), esc.size());
          literal += char32_t(v);
          continue;
        }
      }
      add_group(std::stoull(from_u32(esc.substr(1))), esc.size() - 1);
    } else {
      switch (c) {
        case 'a': literal += U'\a'; break;
        case 'b': literal += U'\b'; break;
        case 'f': literal += U'\f'; break;
        case 'n': literal += U'\n'; break;
        case 'r': literal += U'\r'; break;
        case 't': literal += U'\t'; break;
        case 'v': literal += U'\v'; break;
        case '\\': literal += U'\\'; break;
        default:
          if (is_ascii_letter(c)) s.error("bad escape " + from_u32(tok), tok.size());
          literal += tok;  // an unknown non-letter escape keeps its backslash
      }
    }
  }
  flush();
  return pieces;
}

}  // namespace shard::interp::bi::re
