// CPython's complex arithmetic (_Py_c_sum ... _Py_c_pow, c_powi, _Py_c_abs) and the text
// grammar of complex('...'); see complex_math.hpp.
#include "interp/builtins/complex_math.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace shard::interp::cx {

C sum(C a, C b) { return {a.re + b.re, a.im + b.im}; }
C diff(C a, C b) { return {a.re - b.re, a.im - b.im}; }
C neg(C a) { return {-a.re, -a.im}; }
C prod(C a, C b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }

C quot(C a, C b) {
  const double abs_breal = b.re < 0 ? -b.re : b.re;
  const double abs_bimag = b.im < 0 ? -b.im : b.im;
  C r;
  if (abs_breal >= abs_bimag) {
    if (abs_breal == 0.0) {
      errno = EDOM;
      r = {0.0, 0.0};
    } else {
      const double ratio = b.im / b.re;
      const double denom = b.re + b.im * ratio;
      r.re = (a.re + a.im * ratio) / denom;
      r.im = (a.im - a.re * ratio) / denom;
    }
  } else if (abs_bimag >= abs_breal) {
    const double ratio = b.re / b.im;
    const double denom = b.re * ratio + b.im;
    r.re = (a.re * ratio + a.im) / denom;
    r.im = (a.im * ratio - a.re) / denom;
  } else {
    r = {NAN, NAN};  // a NaN in b
  }
  return r;
}

namespace {

C pow_general(C a, C b) {
  if (b.re == 0. && b.im == 0.) return {1., 0.};
  if (a.re == 0. && a.im == 0.) {
    if (b.im != 0. || b.re < 0.) errno = EDOM;
    return {0., 0.};
  }
  double vabs = std::hypot(a.re, a.im);
  double len = std::pow(vabs, b.re);
  double at = std::atan2(a.im, a.re);
  double phase = at * b.re;
  if (b.im != 0.0) {
    len /= std::exp(at * b.im);
    phase += b.im * std::log(vabs);
  }
  return {len * std::cos(phase), len * std::sin(phase)};
}

C pow_unsigned(C x, long n) {
  C r{1., 0.}, p = x;
  long mask = 1;
  while (mask > 0 && n >= mask) {
    if (n & mask) r = prod(r, p);
    mask <<= 1;
    p = prod(p, p);
  }
  return r;
}

C pow_int(C x, long n) {
  if (n > 0) return pow_unsigned(x, n);
  return quot(C{1., 0.}, pow_unsigned(x, -n));
}

}  // namespace

C pow(C a, C b) {
  errno = 0;
  C p;
  if (b.im == 0.0 && b.re == std::floor(b.re) && std::fabs(b.re) <= 100.0) p = pow_int(a, long(b.re));
  else p = pow_general(a, b);
  if (std::isinf(p.re) || std::isinf(p.im)) {
    if (errno == 0) errno = ERANGE;
  } else if (errno == ERANGE) {
    errno = 0;
  }
  return p;
}

double abs(C z) {
  if (!std::isfinite(z.re) || !std::isfinite(z.im)) {
    errno = 0;
    if (std::isinf(z.re)) return std::fabs(z.re);
    if (std::isinf(z.im)) return std::fabs(z.im);
    return NAN;
  }
  double r = std::hypot(z.re, z.im);
  errno = std::isfinite(r) ? 0 : ERANGE;
  return r;
}

namespace {

bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
char lower(char c) { return (c >= 'A' && c <= 'Z') ? char(c + 32) : c; }

bool starts_with_ci(std::string_view s, size_t at, std::string_view word) {
  if (s.size() - at < word.size()) return false;
  for (size_t i = 0; i < word.size(); ++i)
    if (lower(s[at + i]) != word[i]) return false;
  return true;
}

// The longest float prefix of s[at..] as PyOS_string_to_double reads it (an optional
// sign, then digits with an optional fraction and exponent, or inf / infinity / nan);
// returns the end offset (== at when there is none). Overflow gives an infinity.
size_t float_prefix(std::string_view s, size_t at, double& out) {
  size_t i = at;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  if (starts_with_ci(s, i, "infinity") || starts_with_ci(s, i, "inf")) {
    out = neg ? -HUGE_VAL : HUGE_VAL;
    return i + (starts_with_ci(s, i, "infinity") ? 8 : 3);
  }
  if (starts_with_ci(s, i, "nan")) {
    out = neg ? -NAN : NAN;
    return i + 3;
  }
  size_t start = i, digits = 0;
  while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return at;
  if (i < s.size() && lower(s[i]) == 'e') {
    size_t e = i + 1;
    if (e < s.size() && (s[e] == '+' || s[e] == '-')) ++e;
    if (e < s.size() && is_digit(s[e])) {
      while (e < s.size() && is_digit(s[e])) ++e;
      i = e;
    }
  }
  std::string text(s.substr(start, i - start));
  double v = std::strtod(text.c_str(), nullptr);  // "C" locale: the interpreter never sets one
  out = neg ? -v : v;
  return i;
}

}  // namespace

ParseResult parse(std::string_view text) {
  ParseResult res;
  std::string buf;
  if (text.find('_') != std::string_view::npos) {
    char prev = 0;
    for (char c : text) {
      if (c == '_') {
        if (!is_digit(prev)) return {{}, ParseError::Underscore};
      } else {
        buf += c;
        if (prev == '_' && !is_digit(c)) return {{}, ParseError::Underscore};
      }
      prev = c;
    }
    if (prev == '_') return {{}, ParseError::Underscore};
    text = buf;
  }
  const std::string_view s = text;
  size_t i = 0;
  auto malformed = [] { return ParseResult{{}, ParseError::Malformed}; };
  while (i < s.size() && is_space(s[i])) ++i;
  bool bracket = false;
  if (i < s.size() && s[i] == '(') {
    bracket = true;
    ++i;
    while (i < s.size() && is_space(s[i])) ++i;
  }
  auto is_j = [&](size_t k) { return k < s.size() && (s[k] == 'j' || s[k] == 'J'); };
  double x = 0.0, y = 0.0, z = 0.0;
  size_t end = float_prefix(s, i, z);
  if (end != i) {
    i = end;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
      x = z;
      end = float_prefix(s, i, y);
      if (end != i) {
        i = end;
      } else {
        y = s[i] == '+' ? 1.0 : -1.0;
        ++i;
      }
      if (!is_j(i)) return malformed();
      ++i;
    } else if (is_j(i)) {
      ++i;
      y = z;
    } else {
      x = z;
    }
  } else {
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
      y = s[i] == '+' ? 1.0 : -1.0;
      ++i;
    } else {
      y = 1.0;
    }
    if (!is_j(i)) return malformed();
    ++i;
  }
  while (i < s.size() && is_space(s[i])) ++i;
  if (bracket) {
    if (i >= s.size() || s[i] != ')') return malformed();
    ++i;
    while (i < s.size() && is_space(s[i])) ++i;
  }
  if (i != s.size()) return malformed();
  res.value = {x, y};
  return res;
}

}  // namespace shard::interp::cx
