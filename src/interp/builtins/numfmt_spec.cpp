// The format-spec mini-language (Python/formatter_unicode.c) and printf-style conversions
// (Objects/unicodeobject.c), reproducing CPython's layout and error messages.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <vector>

#include "interp/builtins/numfmt.hpp"

namespace shard::interp::numfmt {

namespace {

[[noreturn]] void value_error(std::string msg) { throw FormatError{"ValueError", std::move(msg)}; }

bool is_align(char c) { return c == '<' || c == '>' || c == '^' || c == '='; }

std::string char_repr(char c) {
  if (c >= 0x20 && c < 0x7f) return std::string(1, c);
  char buf[8];
  snprintf(buf, sizeof buf, "\\x%x", unsigned(static_cast<unsigned char>(c)));
  return buf;
}

[[noreturn]] void unknown_code(char type, std::string_view type_name) {
  value_error("Unknown format code '" + char_repr(type) + "' for object of type '" +
              std::string(type_name) + "'");
}

// Reads decimal digits at pos; returns the number of digits consumed (raises on overflow).
int get_integer(std::string_view s, size_t& pos, int64_t& out) {
  int consumed = 0;
  int64_t acc = 0;
  while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
    int d = s[pos] - '0';
    if (acc > (INT64_MAX - d) / 10) value_error("Too many decimal digits in format string");
    acc = acc * 10 + d;
    ++pos;
    ++consumed;
  }
  out = acc;
  return consumed;
}

// Inserts thousands separators (and zero padding up to min_width) into a digit run, as
// _PyUnicode_InsertThousandsGrouping does. group == 0 means no grouping.
std::string group_digits(std::string_view digits, int group, std::string_view sep,
                         int64_t min_width) {
  min_width = std::max<int64_t>(0, min_width);
  std::vector<std::string> chunks;  // right to left
  int64_t remaining = int64_t(digits.size());
  size_t end = digits.size();
  bool use_sep = false, broken = false;
  auto take = [&](int64_t l) {
    int64_t n_zeros = std::max<int64_t>(0, l - remaining);
    int64_t n_chars = std::max<int64_t>(0, std::min(remaining, l));
    std::string chunk(size_t(n_zeros), '0');
    chunk.append(digits.substr(end - size_t(n_chars), size_t(n_chars)));
    end -= size_t(n_chars);
    if (use_sep) chunk += sep;
    chunks.push_back(std::move(chunk));
    use_sep = true;
    remaining -= n_chars;
  };
  if (group > 0) {
    while (true) {
      int64_t l = std::min<int64_t>(group, std::max<int64_t>(std::max(remaining, min_width), 1));
      take(l);
      min_width -= l;
      if (remaining <= 0 && min_width <= 0) {
        broken = true;
        break;
      }
      min_width -= int64_t(sep.size());
    }
  }
  if (!broken) take(std::max<int64_t>(std::max(remaining, min_width), 1));
  std::string out;
  for (size_t i = chunks.size(); i-- > 0;) out += chunks[i];
  return out;
}

// Widths beyond this would need gigabytes; refuse them instead of exhausting memory.
constexpr int64_t kMaxWidth = int64_t(1) << 30;

std::string repeat_fill(const std::string& fill, int64_t n) {
  if (n > kMaxWidth) throw FormatError{"MemoryError", ""};
  std::string s;
  for (int64_t i = 0; i < n; ++i) s += fill;
  return s;
}

// Lays out <lpad><sign><prefix><spad><grouped digits><.><remainder><rpad> (calc_number_widths).
std::string layout_number(const FormatSpec& spec, char sign_char, std::string_view prefix,
                          std::string_view digits, bool has_decimal, std::string_view remainder,
                          int group) {
  std::string sign;
  if (spec.sign == '+') sign = sign_char == '-' ? "-" : "+";
  else if (spec.sign == ' ') sign = sign_char == '-' ? "-" : " ";
  else if (sign_char == '-') sign = "-";
  int64_t n_non_digit = int64_t(sign.size() + prefix.size() + (has_decimal ? 1 : 0) +
                                utf8_length(remainder));
  if (spec.width > kMaxWidth) throw FormatError{"MemoryError", ""};
  int64_t min_width = (spec.fill == "0" && spec.align == '=') ? spec.width - n_non_digit : 0;
  std::string grouped;
  if (!digits.empty()) {
    std::string_view sep = spec.grouping == ',' ? "," : spec.grouping == '_' ? "_" : "";
    grouped = group_digits(digits, spec.grouping ? group : 0, sep, min_width);
  }
  int64_t n_padding = spec.width - (n_non_digit + int64_t(grouped.size()));
  int64_t lpad = 0, spad = 0, rpad = 0;
  if (n_padding > 0) {
    switch (spec.align) {
      case '<': rpad = n_padding; break;
      case '^': lpad = n_padding / 2; rpad = n_padding - lpad; break;
      case '=': spad = n_padding; break;
      default: lpad = n_padding; break;
    }
  }
  std::string out = repeat_fill(spec.fill, lpad);
  out += sign;
  out += prefix;
  out += repeat_fill(spec.fill, spad);
  out += grouped;
  if (has_decimal) out += '.';
  out += remainder;
  out += repeat_fill(spec.fill, rpad);
  return out;
}

}  // namespace

FormatSpec parse_format_spec(std::string_view spec, std::string_view type_name,
                             char default_align) {
  FormatSpec f;
  f.align = default_align;
  size_t pos = 0, end = spec.size();
  bool fill_given = false, align_given = false;
  // The fill may be any code point: find where the second code point starts.
  size_t second = 0;
  if (end > 0) {
    size_t i = 0;
    utf8_next(spec, i);
    second = i;
  }
  if (end > second && is_align(spec[second])) {
    f.fill = std::string(spec.substr(0, second));
    f.align = spec[second];
    fill_given = align_given = true;
    pos = second + 1;
  } else if (end > 0 && is_align(spec[0])) {
    f.align = spec[0];
    align_given = true;
    pos = 1;
  }
  if (pos < end && (spec[pos] == '+' || spec[pos] == '-' || spec[pos] == ' ')) f.sign = spec[pos++];
  if (pos < end && spec[pos] == 'z') {
    f.no_neg_0 = true;
    ++pos;
  }
  if (pos < end && spec[pos] == '#') {
    f.alt = true;
    ++pos;
  }
  if (!fill_given && pos < end && spec[pos] == '0') {
    f.fill = "0";
    if (!align_given && default_align == '>') f.align = '=';
    ++pos;
  }
  if (get_integer(spec, pos, f.width) == 0) f.width = -1;
  if (pos < end && spec[pos] == ',') {
    f.grouping = ',';
    ++pos;
  }
  if (pos < end && spec[pos] == '_') {
    if (f.grouping) value_error("Cannot specify both ',' and '_'.");
    f.grouping = '_';
    ++pos;
  }
  if (pos < end && spec[pos] == ',' && f.grouping == '_') value_error("Cannot specify both ',' and '_'.");
  if (pos < end && spec[pos] == '.') {
    ++pos;
    if (get_integer(spec, pos, f.precision) == 0) value_error("Format specifier missing precision");
  }
  if (end - pos > 1)
    value_error("Invalid format specifier '" + std::string(spec) + "' for object of type '" +
                std::string(type_name) + "'");
  if (end - pos == 1) f.type = spec[pos];
  return f;
}

namespace {
// Validates grouping against the (defaulted) type, as the parser does.
void check_grouping(const FormatSpec& f, char type) {
  if (!f.grouping) return;
  switch (type) {
    case 'd': case 'e': case 'f': case 'g': case 'E': case 'G': case '%': case 'F': case 0:
      return;
    case 'b': case 'o': case 'x': case 'X':
      if (f.grouping == '_') return;
      [[fallthrough]];
    default:
      value_error(std::string("Cannot specify '") + f.grouping + "' with '" + char_repr(type) + "'.");
  }
}
}  // namespace

std::string format_float(double v, const FormatSpec& s, std::string_view type_name) {
  char type = s.type;
  check_grouping(s, type);
  switch (type) {
    case 0: case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'n': case '%': break;
    default: unknown_code(type, type_name);
  }
  if (s.precision > INT_MAX) value_error("precision too big");
  if (s.precision > kMaxWidth) throw FormatError{"MemoryError", ""};
  int precision = int(s.precision);
  bool add_dot_0 = false, pct = false;
  int default_precision = 6;
  if (type == 0) {
    add_dot_0 = true;
    type = 'r';
    default_precision = 0;
  }
  if (type == 'n') type = 'g';
  if (type == '%') {
    type = 'f';
    v *= 100;
    pct = true;
  }
  if (precision < 0) precision = default_precision;
  else if (type == 'r') type = 'g';
  std::string buf = double_to_string(v, type, precision, s.alt, add_dot_0, s.no_neg_0);
  if (pct) buf += '%';
  char sign_char = 0;
  std::string_view body(buf);
  if (!body.empty() && body[0] == '-') {
    sign_char = '-';
    body.remove_prefix(1);
  }
  size_t nd = 0;
  while (nd < body.size() && body[nd] >= '0' && body[nd] <= '9') ++nd;
  bool has_decimal = nd < body.size() && body[nd] == '.';
  std::string_view rem = body.substr(nd + (has_decimal ? 1 : 0));
  return layout_number(s, sign_char, "", body.substr(0, nd), has_decimal, rem, 3);
}

std::string format_float(double v, std::string_view spec, std::string_view type_name) {
  return format_float(v, parse_format_spec(spec, type_name, '>'), type_name);
}

namespace {
// One part of a complex number laid out without padding (format_complex_internal's
// calc_number_widths with fill and width turned off).
std::string complex_part(const std::string& buf, const FormatSpec& s) {
  char sign_char = 0;
  std::string_view body(buf);
  if (!body.empty() && body[0] == '-') {
    sign_char = '-';
    body.remove_prefix(1);
  }
  size_t nd = 0;
  while (nd < body.size() && body[nd] >= '0' && body[nd] <= '9') ++nd;
  bool has_decimal = nd < body.size() && body[nd] == '.';
  std::string_view rem = body.substr(nd + (has_decimal ? 1 : 0));
  return layout_number(s, sign_char, "", body.substr(0, nd), has_decimal, rem, 3);
}
}  // namespace

std::string complex_repr(double re, double im) {
  if (re == 0.0 && !std::signbit(re)) return double_to_string(im, 'r', 0, false, false) + "j";
  std::string i = double_to_string(im, 'r', 0, false, false);
  if (i[0] != '-') i.insert(0, "+");  // a NaN's sign is never shown
  return "(" + double_to_string(re, 'r', 0, false, false) + i + "j)";
}

std::string format_complex(double re, double im, std::string_view spec, std::string_view type_name) {
  FormatSpec s = parse_format_spec(spec, type_name, '>');
  char type = s.type;
  check_grouping(s, type);
  switch (type) {
    case 0: case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'n': break;
    default: unknown_code(type, type_name);
  }
  if (s.fill == "0") value_error("Zero padding is not allowed in complex format specifier");
  if (s.align == '=') value_error("'=' alignment flag is not allowed in complex format specifier");
  if (s.precision > INT_MAX) value_error("precision too big");
  if (s.precision > kMaxWidth) throw FormatError{"MemoryError", ""};
  int precision = int(s.precision);
  int default_precision = 6;
  bool skip_re = false, add_parens = false;
  if (type == 0) {
    type = 'r';
    default_precision = 0;
    if (re == 0.0 && !std::signbit(re)) skip_re = true;
    else add_parens = true;
  }
  if (type == 'n') type = 'g';
  if (precision < 0) precision = default_precision;
  else if (type == 'r') type = 'g';
  FormatSpec part = s;
  part.fill = " ";
  part.align = '<';
  part.width = -1;
  std::string body = add_parens ? "(" : "";
  if (!skip_re) {
    body += complex_part(double_to_string(re, type, precision, s.alt, false, s.no_neg_0), part);
    part.sign = '+';
  }
  body += complex_part(double_to_string(im, type, precision, s.alt, false, s.no_neg_0), part);
  body += 'j';
  if (add_parens) body += ')';
  return pad_to_width(body, s, '>');
}

std::string format_int(int64_t v, const FormatSpec& s0, std::string_view type_name) {
  FormatSpec s = s0;
  if (s.type == 0) s.type = 'd';
  check_grouping(s, s.type);
  switch (s.type) {
    case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case '%':
      return format_float(double(v), s, type_name);
    case 'b': case 'c': case 'd': case 'o': case 'x': case 'X': case 'n': break;
    default: unknown_code(s.type, type_name);
  }
  if (s.precision != -1) value_error("Precision not allowed in integer format specifier");
  if (s.no_neg_0) value_error("Negative zero coercion (z) not allowed in integer format specifier");
  if (s.type == 'c') {
    if (s.sign) value_error("Sign not allowed with integer format specifier 'c'");
    if (s.alt) value_error("Alternate form (#) not allowed with integer format specifier 'c'");
    if (v < 0 || v > 0x10ffff) throw FormatError{"OverflowError", "%c arg not in range(0x110000)"};
    std::string ch;
    utf8_append(ch, uint32_t(v));
    return layout_number(s, 0, "", "", false, ch, 3);
  }
  int base = 10;
  std::string prefix;
  switch (s.type) {
    case 'b': base = 2; prefix = "0b"; break;
    case 'o': base = 8; prefix = "0o"; break;
    case 'x': base = 16; prefix = "0x"; break;
    case 'X': base = 16; prefix = "0X"; break;
    default: break;
  }
  if (!s.alt) prefix.clear();
  std::string digits = int_to_base(v, base, s.type == 'X');
  char sign_char = 0;
  if (v < 0) {
    sign_char = '-';
    digits.erase(0, 1);
  }
  int group = (base != 10 && s.grouping == '_') ? 4 : 3;
  return layout_number(s, sign_char, prefix, digits, false, "", group);
}

std::string format_int(int64_t v, std::string_view spec, std::string_view type_name) {
  FormatSpec s = parse_format_spec(spec, type_name, '>');
  return format_int(v, s, type_name);
}

std::string pad_to_width(std::string_view body, const FormatSpec& s, char default_align) {
  int64_t len = int64_t(utf8_length(body));
  if (s.width <= len) return std::string(body);
  int64_t pad = s.width - len, left = 0;
  char align = s.align ? s.align : default_align;
  if (align == '>') left = pad;
  else if (align == '^') left = pad / 2;
  return repeat_fill(s.fill, left) + std::string(body) + repeat_fill(s.fill, pad - left);
}

std::string format_str(std::string_view v, std::string_view spec, std::string_view type_name) {
  FormatSpec s = parse_format_spec(spec, type_name, '<');
  if (s.type == 0) s.type = 's';
  check_grouping(s, s.type);
  if (s.type != 's') unknown_code(s.type, type_name);
  if (s.sign == ' ') value_error("Space not allowed in string format specifier");
  if (s.sign) value_error("Sign not allowed in string format specifier");
  if (s.no_neg_0) value_error("Negative zero coercion (z) not allowed in string format specifier");
  if (s.alt) value_error("Alternate form (#) not allowed in string format specifier");
  if (s.align == '=') value_error("'=' alignment not allowed in string format specifier");
  std::string_view body = v;
  if (s.precision >= 0) {
    size_t i = 0;
    for (int64_t n = 0; n < s.precision && i < v.size(); ++n) utf8_next(v, i);
    body = v.substr(0, i);
  }
  return pad_to_width(body, s, '<');
}

// ---- printf-style ----

namespace {
// Pads a numeric conversion: [sign][prefix][digits] with zeros after the prefix when the '0'
// flag is given (and not '-'), else spaces on the left (or right with '-').
std::string percent_pad(std::string sign, std::string prefix, std::string digits,
                        const PercentFlags& f) {
  int64_t len = int64_t(sign.size() + prefix.size() + utf8_length(digits));
  if (f.width > kMaxWidth || f.precision > kMaxWidth) throw FormatError{"MemoryError", ""};
  if (f.width > len) {
    int64_t pad = f.width - len;
    if (f.left) return sign + prefix + digits + std::string(size_t(pad), ' ');
    if (f.zero) return sign + prefix + std::string(size_t(pad), '0') + digits;
    return std::string(size_t(pad), ' ') + sign + prefix + digits;
  }
  return sign + prefix + digits;
}
}  // namespace

std::string percent_int(int64_t v, char conv, const PercentFlags& f) {
  if (f.precision > kMaxWidth) throw FormatError{"MemoryError", ""};
  int base = conv == 'x' || conv == 'X' ? 16 : conv == 'o' ? 8 : 10;
  std::string digits = int_to_base(v, base, conv == 'X');
  bool neg = v < 0;
  if (neg) digits.erase(0, 1);
  if (f.precision > int64_t(digits.size()))
    digits.insert(0, size_t(f.precision) - digits.size(), '0');
  std::string sign = neg ? "-" : f.plus ? "+" : f.blank ? " " : "";
  std::string prefix;
  if (f.alt && base == 16) prefix = conv == 'X' ? "0X" : "0x";
  if (f.alt && base == 8) prefix = "0o";
  return percent_pad(sign, prefix, digits, f);
}

std::string percent_float(double v, char conv, const PercentFlags& f) {
  if (f.precision > kMaxWidth) throw FormatError{"MemoryError", ""};
  int prec = f.precision < 0 ? 6 : int(std::min<int64_t>(f.precision, INT_MAX));
  std::string buf = double_to_string(v, conv, prec, f.alt, false);
  std::string sign;
  if (!buf.empty() && buf[0] == '-') {
    sign = "-";
    buf.erase(0, 1);
  } else if (f.plus) {
    sign = "+";
  } else if (f.blank) {
    sign = " ";
  }
  return percent_pad(sign, "", buf, f);
}

std::string percent_str(std::string_view s, const PercentFlags& f) {
  std::string_view body = s;
  if (f.precision >= 0) {
    size_t i = 0;
    for (int64_t n = 0; n < f.precision && i < s.size(); ++n) utf8_next(s, i);
    body = s.substr(0, i);
  }
  int64_t len = int64_t(utf8_length(body));
  if (f.width > kMaxWidth) throw FormatError{"MemoryError", ""};
  if (f.width > len) {
    std::string pad(size_t(f.width - len), ' ');
    return f.left ? std::string(body) + pad : pad + std::string(body);
  }
  return std::string(body);
}

}  // namespace shard::interp::numfmt
