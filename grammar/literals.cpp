// Number and string literals, including f-strings (Python 3.11 rules: a replacement field
// is scanned with bracket and quote tracking, then parsed with parse_expression).
#include "grammar/literals.hpp"

#include <charconv>
#include <cstring>

#include <fmt/format.h>

#include "grammar/parse.hpp"

namespace shard::grammar {

using ast::ExprKind;
using ast::ExprP;

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
int hex_value(char c) { return is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10; }

[[noreturn]] void fail(const ParseState& st, const char* at, const std::string& msg) {
  throw SyntaxError(st.loc(at), "SyntaxError", msg);
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Decodes the escape at s[i] == '\\'; returns the index after it.
size_t decode_one_escape(std::string_view s, size_t i, std::string& out, bool bytes, const Locator& loc,
                         size_t offset) {
  auto error = [&](const std::string& what) {
    throw SyntaxError(loc.at(offset + i), "SyntaxError",
                      fmt::format("({} error) '{}' codec can't decode bytes in position {}-{}: {}",
                                  bytes ? "value" : "unicode", bytes ? "bytes" : "unicodeescape", i,
                                  std::min(s.size(), i + 1), what));
  };
  if (i + 1 >= s.size()) {
    out += '\\';
    return i + 1;
  }
  const char c = s[i + 1];
  switch (c) {
    case '\n': return i + 2;
    case '\r': return (i + 2 < s.size() && s[i + 2] == '\n') ? i + 3 : i + 2;
    case '\\': out += '\\'; return i + 2;
    case '\'': out += '\''; return i + 2;
    case '"': out += '"'; return i + 2;
    case 'a': out += '\a'; return i + 2;
    case 'b': out += '\b'; return i + 2;
    case 'f': out += '\f'; return i + 2;
    case 'n': out += '\n'; return i + 2;
    case 'r': out += '\r'; return i + 2;
    case 't': out += '\t'; return i + 2;
    case 'v': out += '\v'; return i + 2;
    default: break;
  }
  if (c >= '0' && c <= '7') {
    uint32_t v = 0;
    size_t j = i + 1;
    for (int n = 0; n < 3 && j < s.size() && s[j] >= '0' && s[j] <= '7'; ++n, ++j) v = v * 8 + (s[j] - '0');
    if (bytes) out += static_cast<char>(v & 0xFF);
    else append_utf8(out, v);
    return j;
  }
  if (c == 'x' || (!bytes && (c == 'u' || c == 'U'))) {
    const int n = c == 'x' ? 2 : c == 'u' ? 4 : 8;
    uint32_t v = 0;
    for (int k = 0; k < n; ++k) {
      size_t j = i + 2 + k;
      if (j >= s.size() || !is_hex(s[j])) error(fmt::format("truncated \\{}{} escape", c, std::string(n, 'X')));
      v = v * 16 + hex_value(s[j]);
    }
    if (v > 0x10FFFF) error("illegal Unicode character");
    if (bytes) out += static_cast<char>(v);
    else append_utf8(out, v);
    return i + 2 + n;
  }
  if (c == 'N' && !bytes) error("\\N{...} escapes are not supported by shard");
  out += '\\';  // unknown escapes are kept as written
  return i + 1;
}

// Splits an f-string body into literal parts and replacement fields.
class FStringParser {
 public:
  // Parts get the location of the whole (concatenated) literal and format specs that of
  // their own string token, as in CPython 3.11.
  FStringParser(ParseState& st, bool raw, ast::Loc loc, ast::Loc token_loc)
      : st_(st), text_(st.locator.text()), raw_(raw), loc_(loc), token_loc_(token_loc) {}

  // Parses text_[i, end) into parts; in a format spec stops at its closing '}'.
  size_t literal_and_fields(size_t i, size_t end, std::vector<ExprP>& parts, std::string& pending, int nesting,
                            bool in_spec) {
    while (i < end) {
      const char c = text_[i];
      if (c == '{') {
        if (!in_spec && i + 1 < end && text_[i + 1] == '{') {
          pending += '{';
          i += 2;
          continue;
        }
        flush(parts, pending);
        i = field(i + 1, end, parts, nesting);
      } else if (c == '}') {
        if (in_spec) return i;
        if (i + 1 < end && text_[i + 1] == '}') {
          pending += '}';
          i += 2;
          continue;
        }
        error(i, "f-string: single '}' is not allowed");
      } else if (c == '\\' && !raw_) {
        i = decode_one_escape(text_.substr(0, end), i, pending, false, st_.locator, 0);
      } else {
        pending += c;
        ++i;
      }
    }
    return i;
  }

  void flush(std::vector<ExprP>& parts, std::string& pending) {
    if (pending.empty()) return;
    auto s = ast::make_expr(ExprKind::Str, loc_);
    s->str_value = std::move(pending);
    pending.clear();
    parts.push_back(std::move(s));
  }

 private:
  [[noreturn]] void error(size_t at, const std::string& msg) {
    throw SyntaxError(st_.locator.at(at), "SyntaxError", msg);
  }

  // A replacement field starting just after its '{'; returns the index after its '}'.
  size_t field(size_t i, size_t end, std::vector<ExprP>& parts, int nesting) {
    if (nesting >= 2) error(i, "f-string: expressions nested too deeply");
    const size_t start = i;
    int depth = 0;
    char quote = 0;
    bool triple = false;
    for (; i < end; ++i) {
      const char c = text_[i];
      if (quote) {
        if (c == quote) {
          if (!triple) quote = 0;
          else if (i + 2 < end && text_[i + 1] == quote && text_[i + 2] == quote) quote = 0, i += 2;
        }
        continue;
      }
      if (c == '\\') error(i, "f-string expression part cannot include a backslash");
      if (c == '\'' || c == '"') {
        quote = c;
        triple = i + 2 < end && text_[i + 1] == c && text_[i + 2] == c;
        if (triple) i += 2;
      } else if (c == '(' || c == '[' || c == '{') {
        ++depth;
      } else if (c == ')' || c == ']' || c == '}') {
        if (depth == 0) {
          if (c == '}') break;
          error(i, fmt::format("f-string: unmatched '{}'", c));
        }
        --depth;
      } else if (c == '#') {
        error(i, "f-string expression part cannot include '#'");
      } else if (depth == 0 && (c == '!' || c == ':' || c == '=' || c == '<' || c == '>')) {
        if (i + 1 < end && text_[i + 1] == '=' && c != ':') {
          ++i;  // != == <= >=
          continue;
        }
        if (c == '<' || c == '>') continue;
        break;
      }
    }
    if (quote) error(start, "f-string: unterminated string");
    if (i >= end) error(i, "f-string: expecting '}'");
    const size_t expr_end = i;
    std::string_view expr_text = text_.substr(start, expr_end - start);
    if (expr_text.find_first_not_of(" \t\n\r\f") == std::string_view::npos)
      error(i, "f-string: empty expression not allowed");

    std::string self_doc;
    if (text_[i] == '=') {
      ++i;
      while (i < end && (text_[i] == ' ' || text_[i] == '\t' || text_[i] == '\n' || text_[i] == '\r')) ++i;
      self_doc = std::string(text_.substr(start, i - start));
    }
    char conversion = 0;
    if (i < end && text_[i] == '!') {
      ++i;
      if (i >= end) error(i, "f-string: expecting '}'");
      conversion = text_[i];
      if (conversion != 'r' && conversion != 's' && conversion != 'a')
        error(i, "f-string: invalid conversion character: expected 's', 'r', or 'a'");
      ++i;
    }
    ExprP spec;
    if (i < end && text_[i] == ':') {
      ++i;
      std::vector<ExprP> spec_parts;
      std::string pending;
      i = literal_and_fields(i, end, spec_parts, pending, nesting + 1, true);
      flush(spec_parts, pending);
      if (!spec_parts.empty()) {
        for (auto& part : spec_parts)
          if (part->kind == ExprKind::Str) part->loc = token_loc_;
        spec = ast::make_expr(ExprKind::FString, token_loc_);
        spec->elts = std::move(spec_parts);
      }
    }
    if (i >= end || text_[i] != '}') error(i, "f-string: expecting '}'");
    ++i;

    ExprP value;
    try {
      value = parse_nested_expression(std::string(expr_text), st_.locator.at(start), st_.depth + 3 * nesting + 3);
    } catch (SyntaxError& e) {
      std::string msg = e.what();
      if (msg.rfind("f-string", 0) != 0) msg = "f-string: " + msg;
      throw SyntaxError(e.loc, e.kind, msg);
    }
    if (!self_doc.empty() && conversion == 0 && !spec) conversion = 'r';
    auto fv = ast::make_expr(ExprKind::FormattedValue, loc_);
    fv->a = std::move(value);
    fv->b = std::move(spec);
    fv->conversion = conversion;
    if (!self_doc.empty()) {
      // CPython puts the "x=" text in a literal part before the value; shard keeps it here.
      fv->str_value = std::move(self_doc);
    }
    parts.push_back(std::move(fv));
    return i;
  }

  ParseState& st_;
  std::string_view text_;
  bool raw_;
  ast::Loc loc_;
  ast::Loc token_loc_;
};

}  // namespace

std::string decode_escapes(std::string_view body, bool bytes, const Locator& loc, size_t body_offset) {
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size();) {
    if (body[i] == '\\') {
      i = decode_one_escape(body, i, out, bytes, loc, body_offset);
    } else {
      out += body[i++];
    }
  }
  return out;
}

ExprP parse_number_literal(ParseState& st, const char*& p, const char* last) {
  const char* s = p;
  if (s == last) return nullptr;
  if (!(is_digit(*s) || (*s == '.' && s + 1 < last && is_digit(s[1])))) return nullptr;
  NumberScan ns = scan_number(s, last);  // the pre-lexer has already checked the form
  if (ns.error) fail(st, ns.error_at, ns.error_text);
  std::string digits;
  for (const char* q = s; q < ns.end; ++q)
    if (*q != '_') digits += *q;
  const ast::Loc loc = st.loc(s);
  p = ns.end;
  const char last_char = static_cast<char>(digits.back() | 0x20);
  const bool imag = last_char == 'j';  // 2.5j: an imaginary literal
  if (imag) digits.pop_back();
  const bool prefixed = digits.size() > 1 && digits[0] == '0' && std::strchr("xob", digits[1] | 0x20);
  if (imag || (!prefixed && digits.find_first_of(".eE") != std::string::npos)) {
    double v = 0;
    auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (r.ec == std::errc::result_out_of_range) {
      // Overflow gives inf as in Python; underflow gives 0.
      const size_t e = digits.find_first_of("eE");
      v = (e != std::string::npos && digits[e + 1] == '-') ? 0.0 : HUGE_VAL;
    }
    auto e = ast::make_expr(imag ? ExprKind::Imag : ExprKind::Float, loc);
    e->float_value = v;
    return e;
  }
  const int base = !prefixed ? 10 : (digits[1] | 0x20) == 'x' ? 16 : (digits[1] | 0x20) == 'o' ? 8 : 2;
  const char* from = digits.data() + (prefixed ? 2 : 0);
  uint64_t v = 0;
  auto r = std::from_chars(from, digits.data() + digits.size(), v, base);
  if (r.ec != std::errc() || v > static_cast<uint64_t>(INT64_MAX))
    fail(st, s, "integer literal too large (shard ints are 64-bit)");
  auto e = ast::make_expr(ExprKind::Int, loc);
  e->int_value = static_cast<int64_t>(v);
  return e;
}

ExprP parse_string_literals(ParseState& st, const char*& p, const char* last) {
  if (p == last || *p != kString) return nullptr;
  std::vector<const StringToken*> toks;
  const char* q = p;
  const char* end_of_last = p;
  while (q < last && *q == kString) {
    const StringToken* tok = st.px.string_at(static_cast<size_t>(q - st.begin));
    if (!tok) return nullptr;
    toks.push_back(tok);
    end_of_last = ++q;
    while (q < last && (*q == ' ' || *q == '\t')) ++q;
  }
  const ast::Loc loc = st.loc(p);
  p = end_of_last;

  bool any_f = false, any_bytes = false, all_bytes = true;
  for (auto* t : toks) {
    any_f |= t->fstring;
    any_bytes |= t->bytes;
    all_bytes &= t->bytes;
  }
  if (any_bytes && !all_bytes) throw SyntaxError(loc, "SyntaxError", "cannot mix bytes and nonbytes literals");

  const std::string_view text = st.locator.text();
  std::vector<ExprP> parts;
  std::string pending;
  for (auto* t : toks) {
    std::string_view body = text.substr(t->body_begin, t->body_end - t->body_begin);
    if (t->fstring) {
      FStringParser fp(st, t->raw, loc, st.locator.at(t->start));
      fp.literal_and_fields(t->body_begin, t->body_end, parts, pending, 0, false);
    } else if (t->raw) {
      pending += body;
    } else {
      pending += decode_escapes(body, t->bytes, st.locator, t->body_begin);
    }
  }
  if (!any_f) {
    auto s = ast::make_expr(ExprKind::Str, loc);
    s->str_value = std::move(pending);
    return s;
  }
  if (!pending.empty()) {
    auto s = ast::make_expr(ExprKind::Str, loc);
    s->str_value = std::move(pending);
    parts.push_back(std::move(s));
  }
  // Adjacent literal parts (from implicit concatenation) are merged.
  auto f = ast::make_expr(ExprKind::FString, loc);
  for (auto& part : parts) {
    if (part->kind == ExprKind::Str && !f->elts.empty() && f->elts.back()->kind == ExprKind::Str) {
      f->elts.back()->str_value += part->str_value;
    } else {
      f->elts.push_back(std::move(part));
    }
  }
  return f;
}

}  // namespace shard::grammar
