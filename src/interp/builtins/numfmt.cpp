// Float-to-text conversion with CPython's rules (Python/pystrtod.c format_float_short),
// built on std::to_chars, which is correctly rounded (half-even on the exact binary value)
// like David Gay's dtoa that CPython uses.
#include "interp/builtins/numfmt.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace shard::interp::numfmt {

namespace {

// The digits dtoa would return: value = 0.DIGITS * 10**decpt, no trailing zeros.
struct Digits {
  std::string digits;
  int decpt = 0;
};

// Parses to_chars scientific output "d.ddde+XX" into digits/decpt.
Digits from_scientific(const char* b, const char* e) {
  Digits r;
  const char* p = b;
  while (p < e && *p != 'e') {
    if (*p != '.') r.digits += *p;
    ++p;
  }
  // the exponent ("e+16"); the buffer is not NUL-terminated, so parse up to `e`
  int exp = 0;
  bool neg = false;
  if (p < e) {
    ++p;
    if (p < e && (*p == '+' || *p == '-')) neg = *p++ == '-';
    while (p < e) exp = exp * 10 + (*p++ - '0');
  }
  if (neg) exp = -exp;
  r.decpt = exp + 1;
  while (r.digits.size() > 1 && r.digits.back() == '0') r.digits.pop_back();
  return r;
}

// mode 0: shortest round-trip; mode 2: `nd` significant digits; mode 3: `nd` digits after
// the decimal point. `x` is finite and non-negative.
Digits dtoa(double x, int mode, int nd) {
  if (x == 0) return {"0", 1};
  if (mode == 0) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
    return from_scientific(buf, r.ptr);
  }
  if (mode == 2) {
    std::string buf(std::max(nd, 1) + 16, '\0');
    auto r = std::to_chars(buf.data(), buf.data() + buf.size(), x, std::chars_format::scientific,
                           std::max(nd, 1) - 1);
    return from_scientific(buf.data(), r.ptr);
  }
  std::string buf(size_t(nd) + 340, '\0');
  auto r = std::to_chars(buf.data(), buf.data() + buf.size(), x, std::chars_format::fixed, nd);
  std::string_view s(buf.data(), r.ptr - buf.data());
  Digits d;
  size_t dot = s.find('.');
  int int_digits = int(dot == std::string_view::npos ? s.size() : dot);
  for (char c : s)
    if (c != '.') d.digits += c;
  size_t lead = 0;
  while (lead < d.digits.size() && d.digits[lead] == '0') ++lead;
  d.digits.erase(0, lead);
  d.decpt = int_digits - int(lead);
  while (!d.digits.empty() && d.digits.back() == '0') d.digits.pop_back();
  if (d.digits.empty()) d.decpt = -nd;
  return d;
}

}  // namespace

std::string double_to_string(double x, char code, int precision, bool alt, bool add_dot_0,
                             bool no_neg_0) {
  bool upper = false;
  int mode = 0;
  switch (code) {
    case 'E': upper = true; [[fallthrough]];
    case 'e': code = 'e'; mode = 2; precision++; break;
    case 'F': upper = true; [[fallthrough]];
    case 'f': code = 'f'; mode = 3; break;
    case 'G': upper = true; [[fallthrough]];
    case 'g': code = 'g'; mode = 2; if (precision == 0) precision = 1; break;
    default: code = 'r'; mode = 0; precision = 0; break;
  }
  bool neg = std::signbit(x);
  if (std::isnan(x)) return upper ? "NAN" : "nan";
  if (std::isinf(x)) return std::string(neg ? "-" : "") + (upper ? "INF" : "inf");

  Digits dg = dtoa(std::fabs(x), mode, precision);
  const std::string& digits = dg.digits;
  long digits_len = long(digits.size());
  long decpt = dg.decpt;
  if (no_neg_0 && neg && (digits_len == 0 || (digits_len == 1 && digits[0] == '0'))) neg = false;

  long vdigits_end = digits_len;
  bool use_exp = false;
  switch (code) {
    case 'e': use_exp = true; vdigits_end = precision; break;
    case 'f': vdigits_end = decpt + precision; break;
    case 'g':
      if (decpt <= -4 || decpt > (add_dot_0 ? precision - 1 : precision)) use_exp = true;
      if (alt) vdigits_end = precision;
      break;
    default:
      if (decpt <= -4 || decpt > 16) use_exp = true;
      break;
  }
  long exp = 0;
  if (use_exp) {
    exp = decpt - 1;
    decpt = 1;
  }
  long vdigits_start = decpt <= 0 ? decpt - 1 : 0;
  if (!use_exp && add_dot_0)
    vdigits_end = vdigits_end > decpt ? vdigits_end : decpt + 1;
  else
    vdigits_end = vdigits_end > decpt ? vdigits_end : decpt;

  std::string out;
  out.reserve(size_t(vdigits_end - vdigits_start) + 8);
  if (neg) out += '-';
  if (decpt <= 0) {
    out.append(size_t(decpt - vdigits_start), '0');
    out += '.';
    out.append(size_t(-decpt), '0');
  } else {
    out.append(size_t(-vdigits_start), '0');
  }
  if (0 < decpt && decpt <= digits_len) {
    out.append(digits, 0, size_t(decpt));
    out += '.';
    out.append(digits, size_t(decpt), std::string::npos);
  } else {
    out += digits;
  }
  if (digits_len < decpt) {
    out.append(size_t(decpt - digits_len), '0');
    out += '.';
    out.append(size_t(vdigits_end - decpt), '0');
  } else {
    out.append(size_t(vdigits_end - digits_len), '0');
  }
  if (!out.empty() && out.back() == '.' && !alt) out.pop_back();
  if (use_exp) {
    out += upper ? 'E' : 'e';
    out += exp < 0 ? '-' : '+';
    long a = exp < 0 ? -exp : exp;
    if (a < 10) out += '0';
    out += std::to_string(a);
  }
  return out;
}

std::string float_repr(double x) { return double_to_string(x, 'r', 0, false, true); }

std::string int_to_base(int64_t v, int base, bool upper) {
  uint64_t m = v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v);
  const char* dig = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  char buf[72];
  int n = 0;
  do {
    buf[n++] = dig[m % uint64_t(base)];
    m /= uint64_t(base);
  } while (m);
  std::string s;
  if (v < 0) s += '-';
  while (n) s += buf[--n];
  return s;
}

std::string int_with_prefix(int64_t v, int base) {
  std::string d = int_to_base(v, base);
  const char* pre = base == 2 ? "0b" : base == 8 ? "0o" : base == 16 ? "0x" : "";
  if (v < 0) return "-" + std::string(pre) + d.substr(1);
  return pre + d;
}

// ---- round(x, n) ----

namespace {
// Rounds the decimal integer string `digits` (no sign) to a multiple of 10**k (k > 0),
// half-even, where `sticky` says the true value has a non-zero fraction beyond `digits`.
std::string round_int_string(std::string digits, size_t k, bool sticky) {
  if (k > digits.size()) {
    return "0";  // |x| < 10**(k-1)*... : always rounds to 0 (half case impossible)
  }
  size_t keep = digits.size() - k;
  char first_dropped = digits[keep];
  bool rest_nonzero = sticky;
  for (size_t i = keep + 1; i < digits.size(); ++i)
    if (digits[i] != '0') rest_nonzero = true;
  std::string head = digits.substr(0, keep);
  if (head.empty()) head = "0";
  bool up = false;
  if (first_dropped > '5') up = true;
  else if (first_dropped == '5') up = rest_nonzero || ((head.back() - '0') % 2 == 1);
  if (up) {
    int i = int(head.size()) - 1;
    while (i >= 0 && head[size_t(i)] == '9') head[size_t(i--)] = '0';
    if (i < 0) head.insert(head.begin(), '1');
    else head[size_t(i)]++;
  }
  return head + std::string(k, '0');
}
}  // namespace

double round_double(double x, int64_t ndigits) {
  if (!std::isfinite(x)) return x;
  if (ndigits > 323) return x;
  if (ndigits < -308) return 0.0 * x;
  if (x == 0) return x;
  std::string text;
  if (ndigits >= 0) {
    std::string buf(size_t(ndigits) + 340, '\0');
    auto r = std::to_chars(buf.data(), buf.data() + buf.size(), x, std::chars_format::fixed,
                           int(ndigits));
    text.assign(buf.data(), r.ptr);
  } else {
    double ip = std::trunc(x);
    bool sticky = ip != x;
    char buf[400];
    auto r = std::to_chars(buf, buf + sizeof buf, std::fabs(ip), std::chars_format::fixed, 0);
    std::string digits(buf, r.ptr);
    text = (x < 0 ? "-" : "") + round_int_string(digits, size_t(-ndigits), sticky);
  }
  double out = std::strtod(text.c_str(), nullptr);
  if (out == 0 && std::signbit(x)) out = -0.0;
  return out;
}

// ---- UTF-8 ----

bool is_ascii(std::string_view s) {
  for (unsigned char c : s)
    if (c >= 0x80) return false;
  return true;
}

size_t utf8_length(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

void utf8_append(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

uint32_t utf8_next(std::string_view s, size_t& i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    ++i;
    return c;
  }
  size_t n = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
  if (n == 0 || i + n >= s.size()) {  // stray continuation byte or truncated sequence
    ++i;
    return c;
  }
  uint32_t cp = c & (0x3F >> n);
  for (size_t k = 1; k <= n; ++k) {
    unsigned char cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) {
      ++i;
      return c;
    }
    cp = (cp << 6) | (cc & 0x3F);
  }
  i += n + 1;
  return cp;
}

// ---- hashes (Python/pyhash.c, Objects/tupleobject.c) ----

namespace {
constexpr int kHashBits = 61;
constexpr uint64_t kHashModulus = (uint64_t(1) << kHashBits) - 1;
}  // namespace

int64_t hash_int(int64_t v) {
  uint64_t m = v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v);
  int64_t h = int64_t(m % kHashModulus);
  if (v < 0) h = -h;
  if (h == -1) h = -2;
  return h;
}

int64_t hash_float(double v) {
  if (!std::isfinite(v)) {
    if (std::isinf(v)) return v > 0 ? 314159 : -314159;
    return 0;
  }
  int e;
  double m = std::frexp(v, &e);
  int sign = 1;
  if (m < 0) {
    sign = -1;
    m = -m;
  }
  uint64_t x = 0;
  while (m) {
    x = ((x << 28) & kHashModulus) | x >> (kHashBits - 28);
    m *= 268435456.0;
    e -= 28;
    uint64_t y = uint64_t(m);
    m -= double(y);
    x += y;
    if (x >= kHashModulus) x -= kHashModulus;
  }
  e = e >= 0 ? e % kHashBits : kHashBits - 1 - ((-1 - e) % kHashBits);
  x = ((x << e) & kHashModulus) | x >> (kHashBits - e);
  x = x * uint64_t(int64_t(sign));
  if (x == uint64_t(-1)) x = uint64_t(-2);
  return int64_t(x);
}

int64_t hash_complex(double re, double im) {
  uint64_t h = uint64_t(hash_float(re)) + 1000003ull * uint64_t(hash_float(im));
  if (h == uint64_t(-1)) h = uint64_t(-2);
  return int64_t(h);
}

int64_t hash_tuple(const int64_t* items, size_t n) {
  const uint64_t p1 = 11400714785074694791ULL, p2 = 14029467366897019727ULL,
                 p5 = 2870177450012600261ULL;
  uint64_t acc = p5;
  for (size_t i = 0; i < n; ++i) {
    uint64_t lane = uint64_t(items[i]);
    acc += lane * p2;
    acc = (acc << 31) | (acc >> 33);
    acc *= p1;
  }
  acc += uint64_t(n) ^ (p5 ^ 3527539UL);
  if (acc == uint64_t(-1)) return 1546275796;
  return int64_t(acc);
}

uint64_t hash_bytes(std::string_view s) {
  // FNV-1a, then a final mix; never -1 as a Python hash.
  uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 32;
  if (h == uint64_t(-1)) h = uint64_t(-2);
  return h;
}

}  // namespace shard::interp::numfmt
