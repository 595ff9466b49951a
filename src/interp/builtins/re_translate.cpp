// A Python str pattern read as CPython 3.11's re/_parser.py reads it (same structure, same
// errors and positions) and re-emitted in PCRE2 syntax. Re-emitting rather than passing the
// text through is what keeps Python's meaning where the two syntaxes differ:
//   - \Z is PCRE2's \z; \v is a vertical tab, not a class; \uXXXX / \UXXXXXXXX / \xhh become
//     \x{...}; \1..\99 become \g{N} (never octal); octal escapes become \x{...}
//   - ASCII-letter escapes Python does not know (\e, \h, \K, \R, \p, \Q, ...) are errors, as
//     are PCRE2-only groups ((?|, (?R), (?&name), (*VERB), ...)
//   - {,n} means {0,n}; a '{' that starts no valid repeat is a literal; '[' inside a class is
//     a literal (PCRE2 would read [:alpha:])
//   - VERBOSE whitespace and comments are removed here with Python's rules, so PCRE2 never
//     sees its own extended mode; inline global flags become compile options
//   - named groups are emitted as plain groups and references to them by number, so any
//     Python identifier is a valid name
#include <fmt/format.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "interp/builtins/re_tokenizer.hpp"
#include "interp/builtins/support.hpp"

namespace shard::interp::bi::re {

std::string repr_u32(std::u32string_view s) { return str_repr(from_u32(s)); }

bool is_identifier(std::u32string_view s) {
  // XID_Start is letters, letter numbers and '_'; XID_Continue adds marks, digits and connectors.
  static pcre2_code* const identifier = [] {
    const char* pattern = R"(\A[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*\z)";
    int code;
    PCRE2_SIZE offset;
    return pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern), PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP, &code,
                         &offset, nullptr);
  }();
  std::string text = from_u32(s);
  pcre2_match_data* data = pcre2_match_data_create_from_pattern(identifier, nullptr);
  int rc = pcre2_match(identifier, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0, 0, data, nullptr);
  pcre2_match_data_free(data);
  return rc > 0;
}

namespace {

constexpr uint64_t kMaxRepeat = 4294967295u;  // _sre.MAXREPEAT
constexpr uint64_t kMaxGroups = 1073741823u;  // _sre.MAXGROUPS on 64-bit builds
constexpr size_t kMaxDepth = 400;             // nested groups (see group())

bool is_py_space(char32_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

int64_t flag_of(char32_t c) {
  switch (c) {
    case 'i': return kIgnoreCase;
    case 'L': return kLocale;
    case 'm': return kMultiline;
    case 's': return kDotAll;
    case 'x': return kVerbose;
    case 'a': return kAscii;
    case 't': return kTemplate;
    case 'u': return kUnicode;
    default: return 0;
  }
}

constexpr int64_t kTypeFlags = kAscii | kLocale | kUnicode;
constexpr int64_t kGlobalFlags = kDebug | kTemplate;

std::string utf8(std::u32string_view s) { return from_u32(s); }

// What the last item of a branch was, for "nothing to repeat" / "multiple repeat".
enum class Item { None, Anchor, Repeat, Other };

// One member of a character class: a single character or a category (\d, \w, ...).
struct ClassMember {
  bool single = true;
  char32_t cp = 0;
  const char* category = nullptr;
};

class Translator {
 public:
  Translator(std::string_view pattern, int64_t flags) : src_(to_u32(pattern)) { t_.flags = flags; }

  Translation run() {
    parse_alternation(t_.flags & kVerbose, 0);
    fix_flags();
    if (!src_.at_end()) src_.error("unbalanced parenthesis");
    for (auto& [group, pos] : forward_refs_)
      if (group >= groups()) throw SyntaxError{fmt::format("invalid group reference {}", group), pos, ""};
    t_.groups = groups() - 1;
    return std::move(t_);
  }

 private:
  // ---- state (re/_parser.py's State) ----
  size_t groups() const { return closed_.size(); }  // including group 0
  bool check_group(size_t g) const { return g < closed_.size() && closed_[g]; }
  void check_lookbehind_group(size_t g) {
    if (!lookbehind_groups_) return;
    if (!check_group(g)) src_.error("cannot refer to an open group");
    if (g >= *lookbehind_groups_) src_.error("cannot refer to group defined in the same lookbehind subpattern");
  }
  std::optional<size_t> group_named(const std::u32string& name) const {
    std::string n = utf8(name);
    for (auto& [k, g] : t_.names)
      if (k == n) return g;
    return std::nullopt;
  }
  size_t open_group(const std::optional<std::u32string>& name) {
    size_t gid = groups();
    if (name) {
      if (auto old = group_named(*name))
        src_.error(fmt::format("redefinition of group name {} as group {}; was group {}", repr_u32(*name), gid, *old),
                   name->size() + 1);
      t_.names.emplace_back(utf8(*name), gid);
    }
    closed_.push_back(false);
    t_.close_rank.push_back(0);
    return gid;
  }
  void close_group(size_t gid) {
    closed_[gid] = true;
    t_.close_rank[gid - 1] = closes_++;
  }

  // Unicode matching (not ASCII). Global flags come first, so this is settled by the time a
  // class escape is read.
  bool unicode() const { return !(t_.flags & kAscii); }

  // ---- output ----
  void put(std::string_view s, size_t at) {
    t_.pcre += s;
    t_.origin.insert(t_.origin.end(), s.size(), at);
  }
  // A character that matches itself, inside or outside a class.
  void put_literal(char32_t c, size_t at) {
    std::string s;
    if (c < 0x80 && ((c >= '0' && c <= '9') || is_ascii_letter(c))) {
      s = char(c);
    } else if (c >= 0x20 && c < 0x7f) {
      s = {'\\', char(c)};  // escaped ASCII punctuation is always a literal in PCRE2
    } else if (c < 0x20 || c == 0x7f || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff) {
      s = fmt::format("\\x{{{:x}}}", uint32_t(c));  // PCRE2 reports surrogates itself
    } else {
      numfmt::utf8_append(s, c);
    }
    put(s, at);
  }

  // ---- alternation and sequence (_parse_sub, _parse) ----
  void parse_alternation(bool verbose, int nested) {
    bool first_branch = true;
    while (true) {
      parse_sequence(verbose, nested + 1, nested == 0 && first_branch);
      first_branch = false;
      size_t at = src_.tell();
      if (!src_.match('|')) break;
      put("|", at);
      if (nested == 0) verbose = t_.flags & kVerbose;
    }
  }

  void parse_sequence(bool verbose, int nested, bool first) {
    Item last = Item::None;
    while (true) {
      const Token& next = src_.next();
      if (next.empty() || is_char(next, '|') || is_char(next, ')')) break;
      size_t at = src_.tell();
      Token tok = src_.get();
      if (verbose) {
        if (tok.size() == 1 && is_py_space(tok[0])) continue;
        if (is_char(tok, '#')) {
          while (true) {
            Token c = src_.get();
            if (c.empty() || is_char(c, '\n')) break;
          }
          continue;
        }
      }
      if (tok[0] == '\\') {
        last = escape(tok, at);
        continue;
      }
      switch (tok[0]) {
        case '[':
          char_class(at);
          last = Item::Other;
          break;
        case '*': case '+': case '?': case '{':
          if (repeat(tok[0], at, last)) last = Item::Repeat;
          else last = Item::Other;  // a literal '{'
          break;
        case '.':
          put(".", at);
          last = Item::Other;
          break;
        case '(':
          if (auto item = group(at, verbose, nested, first && last == Item::None)) last = *item;
          break;
        case '^': case '$':
          put(utf8(tok), at);
          last = Item::Anchor;
          break;
        default:
          put_literal(tok[0], at);
          last = Item::Other;
      }
    }
  }

  // A repeat after the last item; false when `c` is a '{' that starts no repeat (then it was
  // emitted as a literal).
  bool repeat(char32_t c, size_t at, Item last) {
    std::string q(1, char(c));
    if (c == '{') {
      size_t here = src_.tell();
      if (is_char(src_.next(), '}')) {
        put_literal('{', at);
        return false;
      }
      std::u32string lo, hi;
      lo = src_.get_while(SIZE_MAX, is_digit);
      if (src_.match(',')) hi = src_.get_while(SIZE_MAX, is_digit);
      else hi = lo;
      if (!src_.match('}')) {
        put_literal('{', at);
        src_.seek(here);
        return false;
      }
      auto number = [&](const std::u32string& digits) {
        uint64_t v = 0;
        for (char32_t d : digits) {
          v = v * 10 + (d - '0');
          if (v >= kMaxRepeat) throw SyntaxError{"the repetition number is too large", std::nullopt, "OverflowError"};
        }
        return v;
      };
      uint64_t min = lo.empty() ? 0 : number(lo);
      std::optional<uint64_t> max;
      if (!hi.empty()) {
        max = number(hi);
        if (*max < min) src_.error("min repeat greater than max repeat", src_.tell() - here);
      }
      if (!max) q = fmt::format("{{{},}}", min);
      else if (*max == min) q = fmt::format("{{{}}}", min);
      else q = fmt::format("{{{},{}}}", min, *max);
    }
    if (last == Item::None || last == Item::Anchor) throw SyntaxError{"nothing to repeat", at, ""};
    if (last == Item::Repeat) throw SyntaxError{"multiple repeat", at, ""};
    put(q, at);
    size_t mod_at = src_.tell();
    if (src_.match('?')) put("?", mod_at);  // lazy
    else if (src_.match('+')) put("+", mod_at);  // possessive
    return true;
  }

  // ---- escapes (_escape, _class_escape) ----
  // The code point of \x, \u, \U escapes (tok is "\x" etc.; reads the digits).
  char32_t hex_escape(const Token& tok, size_t at) {
    size_t digits = tok[1] == 'x' ? 2 : tok[1] == 'u' ? 4 : 8;
    std::u32string esc = tok + src_.get_while(digits, is_hex);
    if (esc.size() != digits + 2) src_.error("incomplete escape " + utf8(esc), esc.size());
    uint64_t v = std::stoull(utf8(esc.substr(2)), nullptr, 16);
    if (v > 0x10ffff) src_.error("bad escape " + utf8(esc), esc.size());
    return char32_t(v);
  }
  // \N{...} needs the Unicode name table, which shard does not carry.
  [[noreturn]] void named_escape(size_t at) {
    if (!src_.match('{')) src_.error("missing {");
    src_.get_until('}', "character name");
    throw SyntaxError{"named Unicode escapes \\N{...} are not supported", at, ""};
  }

  Item escape(const Token& tok, size_t at) {
    char32_t c = tok[1];
    switch (c) {
      case 'A': put("\\A", at); return Item::Anchor;
      case 'Z': put("\\z", at); return Item::Anchor;
      case 'b': put("\\b", at); return Item::Anchor;
      case 'B': put("\\B", at); return Item::Anchor;
      case 'd': case 'D': case 'w': case 'W':
        put(utf8(tok), at);
        return Item::Other;
      case 's': case 'S':
        // Python's Unicode \s also holds \x1c-\x1f (str.isspace()); PCRE2's does not. (Inside
        // a class, \S still lets them through: a class cannot subtract.)
        put(unicode() ? (c == 's' ? "[\\s\\x{1c}-\\x{1f}]" : "[^\\s\\x{1c}-\\x{1f}]") : utf8(tok), at);
        return Item::Other;
      case 'a': put_literal('\a', at); return Item::Other;
      case 'f': put_literal('\f', at); return Item::Other;
      case 'n': put_literal('\n', at); return Item::Other;
      case 'r': put_literal('\r', at); return Item::Other;
      case 't': put_literal('\t', at); return Item::Other;
      case 'v': put_literal('\v', at); return Item::Other;
      case 'x': case 'u': case 'U': put_literal(hex_escape(tok, at), at); return Item::Other;
      case 'N': named_escape(at);
      case '0': {
        std::u32string esc = tok + src_.get_while(2, is_octal);
        put_literal(char32_t(std::stoul(utf8(esc.substr(1)), nullptr, 8)), at);
        return Item::Other;
      }
      default: break;
    }
    if (is_digit(c)) {
      std::u32string esc = tok;
      if (src_.next().size() == 1 && is_digit(src_.next()[0])) {
        esc += src_.get();
        if (is_octal(esc[1]) && is_octal(esc[2]) && src_.next().size() == 1 && is_octal(src_.next()[0])) {
          esc += src_.get();
          unsigned long v = std::stoul(utf8(esc.substr(1)), nullptr, 8);
          if (v > 0377) src_.error(fmt::format("octal escape value {} outside of range 0-0o377", utf8(esc)), esc.size());
          put_literal(char32_t(v), at);
          return Item::Other;
        }
      }
      size_t group = std::stoul(utf8(esc.substr(1)));
      if (group < groups()) {
        if (!check_group(group)) src_.error("cannot refer to an open group", esc.size());
        check_lookbehind_group(group);
        put(fmt::format("\\g{{{}}}", group), at);
        return Item::Other;
      }
      src_.error(fmt::format("invalid group reference {}", group), esc.size() - 1);
    }
    if (is_ascii_letter(c)) src_.error("bad escape " + utf8(tok), tok.size());
    put_literal(c, at);
    return Item::Other;
  }

  ClassMember class_escape(const Token& tok, size_t at) {
    char32_t c = tok[1];
    switch (c) {
      case 'a': return {true, '\a'};
      case 'b': return {true, '\b'};
      case 'f': return {true, '\f'};
      case 'n': return {true, '\n'};
      case 'r': return {true, '\r'};
      case 't': return {true, '\t'};
      case 'v': return {true, '\v'};
      case '\\': return {true, '\\'};
      case 'd': return {false, 0, "\\d"};
      case 'D': return {false, 0, "\\D"};
      case 's': return {false, 0, unicode() ? "\\s\\x{1c}-\\x{1f}" : "\\s"};
      case 'S': return {false, 0, "\\S"};
      case 'w': return {false, 0, "\\w"};
      case 'W': return {false, 0, "\\W"};
      case 'x': case 'u': case 'U': return {true, hex_escape(tok, at)};
      case 'N': named_escape(at);
      default: break;
    }
    if (is_octal(c)) {
      std::u32string esc = tok + src_.get_while(2, is_octal);
      unsigned long v = std::stoul(utf8(esc.substr(1)), nullptr, 8);
      if (v > 0377) src_.error(fmt::format("octal escape value {} outside of range 0-0o377", utf8(esc)), esc.size());
      return {true, char32_t(v)};
    }
    if (is_digit(c) || is_ascii_letter(c)) src_.error("bad escape " + utf8(tok), tok.size());
    return {true, c};
  }

  // ---- character class ----
  void put_member(const ClassMember& m, size_t at) {
    if (m.single) put_literal(m.cp, at);
    else put(m.category, at);
  }

  void char_class(size_t here) {
    put("[", here);
    size_t at = src_.tell();
    if (src_.match('^')) put("^", at);
    bool empty = true;
    while (true) {
      at = src_.tell();
      Token tok = src_.get();
      if (tok.empty()) src_.error("unterminated character set", src_.tell() - here);
      if (is_char(tok, ']') && !empty) break;
      ClassMember first = tok[0] == '\\' ? class_escape(tok, at) : ClassMember{true, tok[0]};
      empty = false;
      if (!src_.match('-')) {
        put_member(first, at);
        continue;
      }
      size_t at2 = src_.tell();
      Token that = src_.get();
      if (that.empty()) src_.error("unterminated character set", src_.tell() - here);
      if (is_char(that, ']')) {
        put_member(first, at);
        put_literal('-', at2 - 1);
        break;
      }
      ClassMember last = that[0] == '\\' ? class_escape(that, at2) : ClassMember{true, that[0]};
      if (!first.single || !last.single || last.cp < first.cp)
        src_.error("bad character range " + utf8(tok) + "-" + utf8(that), tok.size() + 1 + that.size());
      put_literal(first.cp, at);
      put("-", at2 - 1);
      put_literal(last.cp, at2);
    }
    put("]", src_.tell() - 1);
  }

  // ---- groups ----
  // Inline flags after "(?" (first letter `c` already read): nullopt for global flags
  // ("(?i)"), else the flags a scoped group "(?i-s:...)" turns on and off.
  std::optional<std::pair<int64_t, int64_t>> parse_flags(Token c) {
    int64_t add = 0, del = 0;
    auto unknown = [](const Token& t, const char* otherwise) {
      return t.size() == 1 && cp_is_alpha(t[0]) ? "unknown flag" : otherwise;
    };
    if (!is_char(c, '-')) {
      while (true) {
        int64_t flag = flag_of(c[0]);
        if (c[0] == 'L') src_.error("bad inline flags: cannot use 'L' flag with a str pattern");
        add |= flag;
        if ((flag & kTypeFlags) && (add & kTypeFlags) != flag)
          src_.error("bad inline flags: flags 'a', 'u' and 'L' are incompatible");
        c = src_.get();
        if (c.empty()) src_.error("missing -, : or )");
        if (is_char(c, ')') || is_char(c, '-') || is_char(c, ':')) break;
        if (c.size() != 1 || !flag_of(c[0])) src_.error(unknown(c, "missing -, : or )"), c.size());
      }
    }
    if (is_char(c, ')')) {
      t_.flags |= add;
      return std::nullopt;
    }
    if (add & kGlobalFlags) src_.error("bad inline flags: cannot turn on global flag", 1);
    if (is_char(c, '-')) {
      c = src_.get();
      if (c.empty()) src_.error("missing flag");
      if (c.size() != 1 || !flag_of(c[0])) src_.error(unknown(c, "missing flag"), c.size());
      while (true) {
        int64_t flag = flag_of(c[0]);
        if (flag & kTypeFlags) src_.error("bad inline flags: cannot turn off flags 'a', 'u' and 'L'");
        del |= flag;
        c = src_.get();
        if (c.empty()) src_.error("missing :");
        if (is_char(c, ':')) break;
        if (c.size() != 1 || !flag_of(c[0])) src_.error(unknown(c, "missing :"), c.size());
      }
    }
    if (del & kGlobalFlags) src_.error("bad inline flags: cannot turn off global flag", 1);
    if (add & del) src_.error("bad inline flags: flag turned on and off", 1);
    return std::make_pair(add, del);
  }

  // PCRE2's opener for a group with scoped flags: i, m and s map over; x is handled here; a
  // and u are no-ops when they agree with the pattern's type (scoping them is unsupported).
  std::string scoped_flags_opener(int64_t add, int64_t del, size_t start) {
    bool ascii_pattern = t_.flags & kAscii;
    if (((add & kAscii) && !ascii_pattern) || ((add & kUnicode) && ascii_pattern))
      throw SyntaxError{"switching between ASCII and Unicode matching inside a pattern is not supported", start, ""};
    auto letters = [](int64_t f) {
      std::string s;
      if (f & kIgnoreCase) s += 'i';
      if (f & kMultiline) s += 'm';
      if (f & kDotAll) s += 's';
      return s;
    };
    std::string on = letters(add), off = letters(del);
    return "(?" + on + (off.empty() ? "" : "-" + off) + ":";
  }

  // A group after '(' at `start`; the item it appends, or nullopt when it appends none (a
  // comment or global flags).
  std::optional<Item> group(size_t start, bool& verbose, int nested, bool at_start) {
    // CPython's recursive parser runs out of stack a little under 500 levels.
    if (++depth_ > kMaxDepth) throw SyntaxError{"maximum recursion depth exceeded", std::nullopt, "RecursionError"};
    struct Leave {
      size_t& depth;
      ~Leave() { --depth; }
    } leave{depth_};
    bool capture = true;
    std::optional<std::u32string> name;
    int64_t add = 0, del = 0;
    std::string opener = "(";
    if (src_.match('?')) {
      Token c = src_.get();
      if (c.empty()) src_.error("unexpected end of pattern");
      if (is_char(c, 'P')) {
        if (src_.match('<')) {
          name = src_.get_until('>', "group name");
          check_group_name(*name);
        } else if (src_.match('=')) {
          std::u32string ref = src_.get_until(')', "group name");
          check_group_name(ref);
          auto gid = group_named(ref);
          if (!gid) src_.error("unknown group name " + repr_u32(ref), ref.size() + 1);
          if (!check_group(*gid)) src_.error("cannot refer to an open group", ref.size() + 1);
          check_lookbehind_group(*gid);
          put(fmt::format("\\g{{{}}}", *gid), start);
          return Item::Other;
        } else {
          Token c2 = src_.get();
          if (c2.empty()) src_.error("unexpected end of pattern");
          src_.error("unknown extension ?P" + utf8(c2), c2.size() + 2);
        }
      } else if (is_char(c, ':')) {
        capture = false;
        opener = "(?:";
      } else if (is_char(c, '#')) {
        while (true) {
          if (src_.at_end()) src_.error("missing ), unterminated comment", src_.tell() - start);
          if (is_char(src_.get(), ')')) break;
        }
        return std::nullopt;
      } else if (is_char(c, '=') || is_char(c, '!') || is_char(c, '<')) {
        return lookaround(start, c, verbose, nested);
      } else if (is_char(c, '(')) {
        return conditional(start, verbose, nested);
      } else if (is_char(c, '>')) {
        capture = false;
        opener = "(?>";
      } else if (c.size() == 1 && (flag_of(c[0]) || c[0] == '-')) {
        auto flags = parse_flags(c);
        if (!flags) {
          if (!at_start) src_.error("global flags not at the start of the expression", src_.tell() - start);
          verbose = t_.flags & kVerbose;
          return std::nullopt;
        }
        std::tie(add, del) = *flags;
        capture = false;
        opener = scoped_flags_opener(add, del, start);
      } else {
        src_.error("unknown extension ?" + utf8(c), c.size() + 1);
      }
    }
    size_t gid = capture ? open_group(name) : 0;
    put(opener, start);
    bool sub_verbose = (verbose || (add & kVerbose)) && !(del & kVerbose);
    parse_alternation(sub_verbose, nested + 1);
    close_paren(start);
    if (capture) close_group(gid);
    return Item::Other;
  }

  void close_paren(size_t start) {
    size_t at = src_.tell();
    if (!src_.match(')')) src_.error("missing ), unterminated subpattern", src_.tell() - start);
    put(")", at);
  }

  void check_group_name(const std::u32string& name) {
    if (!is_identifier(name)) src_.error("bad character in group name " + repr_u32(name), name.size() + 1);
  }

  Item lookaround(size_t start, Token c, bool verbose, int nested) {
    bool behind = is_char(c, '<');
    std::optional<size_t> outer = lookbehind_groups_;
    if (behind) {
      c = src_.get();
      if (c.empty()) src_.error("unexpected end of pattern");
      if (!is_char(c, '=') && !is_char(c, '!')) src_.error("unknown extension ?<" + utf8(c), c.size() + 2);
      if (!lookbehind_groups_) lookbehind_groups_ = groups();
    }
    put(std::string(behind ? "(?<" : "(?") + char(c[0]), start);
    parse_alternation(verbose, nested + 1);
    if (behind && !outer) lookbehind_groups_.reset();
    close_paren(start);
    return Item::Other;
  }

  // (?(id/name)yes|no)
  Item conditional(size_t start, bool verbose, int nested) {
    std::u32string ref = src_.get_until(')', "group name");
    size_t gid = 0;
    if (is_identifier(ref)) {
      auto g = group_named(ref);
      if (!g) src_.error("unknown group name " + repr_u32(ref), ref.size() + 1);
      gid = *g;
    } else {
      bool digits = !ref.empty();
      for (char32_t d : ref) digits = digits && is_digit(d);
      if (!digits) src_.error("bad character in group name " + repr_u32(ref), ref.size() + 1);
      std::string text = utf8(ref);
      if (text.size() > 12) src_.error(fmt::format("invalid group reference {}", text), ref.size() + 1);
      uint64_t n = std::stoull(text);
      if (n == 0) src_.error("bad group number", ref.size() + 1);
      if (n >= kMaxGroups) src_.error(fmt::format("invalid group reference {}", n), ref.size() + 1);
      gid = size_t(n);
      bool seen = false;
      for (auto& r : forward_refs_) seen = seen || r.first == gid;
      if (!seen) forward_refs_.emplace_back(gid, src_.tell() - ref.size() - 1);
    }
    check_lookbehind_group(gid);
    put(fmt::format("(?({})", gid), start);
    parse_sequence(verbose, nested + 1, false);
    size_t at = src_.tell();
    if (src_.match('|')) {
      put("|", at);
      parse_sequence(verbose, nested + 1, false);
      if (is_char(src_.next(), '|')) src_.error("conditional backref with more than two branches");
    }
    close_paren(start);
    return Item::Other;
  }

  // fix_flags for a str pattern.
  void fix_flags() {
    if (t_.flags & kLocale) throw SyntaxError{"cannot use LOCALE flag with a str pattern", std::nullopt, "ValueError"};
    if (!(t_.flags & kAscii)) t_.flags |= kUnicode;
    else if (t_.flags & kUnicode)
      throw SyntaxError{"ASCII and UNICODE flags are incompatible", std::nullopt, "ValueError"};
  }

  Tokenizer src_;
  Translation t_;
  std::vector<bool> closed_{true};  // closed_[g]: group g's ')' has been read (group 0: the match)
  std::optional<size_t> lookbehind_groups_;  // groups() when the outermost lookbehind began
  std::vector<std::pair<size_t, size_t>> forward_refs_;  // conditional references: group, position
  size_t closes_ = 0;
  size_t depth_ = 0;  // groups open around the current position
};

}  // namespace

Translation translate(std::string_view pattern, int64_t flags) { return Translator(pattern, flags).run(); }

}  // namespace shard::interp::bi::re
