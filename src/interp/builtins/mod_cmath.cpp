// The `cmath` module: CPython 3.11's algorithms for finite arguments (Modules/cmathmodule.c:
// the scaling that avoids overflow and underflow, log1p near |z| = 1, the same libm calls),
// so results match CPython's to the bit; non-finite arguments are answered from the tables
// of cmath_special_values.inc, read off CPython by scripts/gen_cmath_special_values.py.
// Errors as CPython: ValueError "math domain error", OverflowError "math range error".
#include <fmt/format.h>

#include <cerrno>
#include <cfloat>
#include <cmath>

#include "interp/builtins/complex_math.hpp"
#include "interp/builtins/numbers.hpp"
#include "interp/complex_value.hpp"

namespace shard::interp::bi {

namespace {

using cx::C;

struct Special {
  double re, im;
  int edom;
};
constexpr double N = NAN;
constexpr double I = HUGE_VAL;
#include "interp/builtins/cmath_special_values.inc"

constexpr double kLargeDouble = DBL_MAX / 4.;
const double kSqrtLargeDouble = std::sqrt(kLargeDouble);
const double kLogLargeDouble = std::log(kLargeDouble);
const double kSqrtDblMin = std::sqrt(DBL_MIN);
constexpr int kScaleUp = 2 * (DBL_MANT_DIG / 2) + 1;
constexpr int kScaleDown = -(kScaleUp + 1) / 2;
constexpr double kPi = 3.141592653589793238462643383279502884;
constexpr double kE = 2.718281828459045235360287471352662498;
constexpr double kLn2 = 0.6931471805599453094;
constexpr double kLn10 = 2.302585092994045684;

// The kind of a part: -inf, negative, -0, +0, positive, +inf, nan (the tables' index).
int kind(double d) {
  if (std::isnan(d)) return 6;
  if (std::isinf(d)) return d > 0 ? 5 : 0;
  if (d != 0) return d > 0 ? 4 : 1;
  return std::signbit(d) ? 2 : 3;
}

bool finite(C z) { return std::isfinite(z.re) && std::isfinite(z.im); }

C special(const Special (&table)[7][7], double a, double b) {
  const Special& s = table[kind(a)][kind(b)];
  errno = s.edom ? EDOM : 0;
  return {s.re, s.im};
}

C c_sqrt(C z) {
  if (!finite(z)) return special(k_sqrt, z.re, z.im);
  if (z.re == 0. && z.im == 0.) {
    errno = 0;
    return {0., z.im};
  }
  double ax = std::fabs(z.re), ay = std::fabs(z.im), s;
  if (ax < DBL_MIN && ay < DBL_MIN) {
    ax = std::ldexp(ax, kScaleUp);
    s = std::ldexp(std::sqrt(ax + std::hypot(ax, std::ldexp(ay, kScaleUp))), kScaleDown);
  } else {
    ax /= 8.;
    s = 2. * std::sqrt(ax + std::hypot(ax, ay / 8.));
  }
  double d = ay / (2. * s);
  errno = 0;
  if (z.re >= 0.) return {s, std::copysign(d, z.im)};
  return {d, std::copysign(s, z.im)};
}

C c_exp(C z) {
  C r;
  if (!finite(z)) {
    if (std::isinf(z.re) && std::isfinite(z.im) && z.im != 0.) {
      if (z.re > 0) r = {std::copysign(I, std::cos(z.im)), std::copysign(I, std::sin(z.im))};
      else r = {std::copysign(0., std::cos(z.im)), std::copysign(0., std::sin(z.im))};
      errno = 0;
      return r;
    }
    return special(k_exp, z.re, z.im);
  }
  if (z.re > kLogLargeDouble) {
    double l = std::exp(z.re - 1.);
    r = {l * std::cos(z.im) * kE, l * std::sin(z.im) * kE};
  } else {
    double l = std::exp(z.re);
    r = {l * std::cos(z.im), l * std::sin(z.im)};
  }
  errno = (std::isinf(r.re) || std::isinf(r.im)) ? ERANGE : 0;
  return r;
}

C c_log(C z) {
  if (!finite(z)) return special(k_log, z.re, z.im);
  double ax = std::fabs(z.re), ay = std::fabs(z.im);
  C r;
  if (ax > kLargeDouble || ay > kLargeDouble) {
    r.re = std::log(std::hypot(ax / 2., ay / 2.)) + kLn2;
  } else if (ax < DBL_MIN && ay < DBL_MIN) {
    if (ax > 0. || ay > 0.) {
      r.re = std::log(std::hypot(std::ldexp(ax, DBL_MANT_DIG), std::ldexp(ay, DBL_MANT_DIG))) - DBL_MANT_DIG * kLn2;
    } else {
      errno = EDOM;
      return {-I, std::atan2(z.im, z.re)};
    }
  } else {
    double h = std::hypot(ax, ay);
    if (0.71 <= h && h <= 1.73) {
      double am = ax > ay ? ax : ay, an = ax > ay ? ay : ax;
      r.re = std::log1p((am - 1) * (am + 1) + an * an) / 2.;
    } else {
      r.re = std::log(h);
    }
  }
  r.im = std::atan2(z.im, z.re);
  errno = 0;
  return r;
}

C c_log10(C z) {
  C r = c_log(z);
  int saved = errno;
  r.re /= kLn10;
  r.im /= kLn10;
  errno = saved;
  return r;
}

C c_cosh(C z) {
  C r;
  if (!finite(z)) {
    if (std::isinf(z.re) && std::isfinite(z.im) && z.im != 0.) {
      if (z.re > 0) r = {std::copysign(I, std::cos(z.im)), std::copysign(I, std::sin(z.im))};
      else r = {std::copysign(I, std::cos(z.im)), -std::copysign(I, std::sin(z.im))};
      errno = 0;
      return r;
    }
    return special(k_cosh, z.re, z.im);
  }
  if (std::fabs(z.re) > kLogLargeDouble) {
    double x = z.re - std::copysign(1., z.re);
    r = {std::cos(z.im) * std::cosh(x) * kE, std::sin(z.im) * std::sinh(x) * kE};
  } else {
    r = {std::cos(z.im) * std::cosh(z.re), std::sin(z.im) * std::sinh(z.re)};
  }
  errno = (std::isinf(r.re) || std::isinf(r.im)) ? ERANGE : 0;
  return r;
}

C c_sinh(C z) {
  C r;
  if (!finite(z)) {
    if (std::isinf(z.re) && std::isfinite(z.im) && z.im != 0.) {
      if (z.re > 0) r = {std::copysign(I, std::cos(z.im)), std::copysign(I, std::sin(z.im))};
      else r = {-std::copysign(I, std::cos(z.im)), std::copysign(I, std::sin(z.im))};
      errno = 0;
      return r;
    }
    return special(k_sinh, z.re, z.im);
  }
  if (std::fabs(z.re) > kLogLargeDouble) {
    double x = z.re - std::copysign(1., z.re);
    r = {std::cos(z.im) * std::sinh(x) * kE, std::sin(z.im) * std::cosh(x) * kE};
  } else {
    r = {std::cos(z.im) * std::sinh(z.re), std::sin(z.im) * std::cosh(z.re)};
  }
  errno = (std::isinf(r.re) || std::isinf(r.im)) ? ERANGE : 0;
  return r;
}

C c_tanh(C z) {
  C r;
  if (!finite(z)) {
    if (std::isinf(z.re) && std::isfinite(z.im) && z.im != 0.) {
      r = {z.re > 0 ? 1.0 : -1.0, std::copysign(0., 2. * std::sin(z.im) * std::cos(z.im))};
      errno = 0;
      return r;
    }
    return special(k_tanh, z.re, z.im);
  }
  if (std::fabs(z.re) > kLogLargeDouble) {
    r = {std::copysign(1., z.re), 4. * std::sin(z.im) * std::cos(z.im) * std::exp(-2. * std::fabs(z.re))};
  } else {
    double tx = std::tanh(z.re), ty = std::tan(z.im), cx = 1. / std::cosh(z.re);
    double txty = tx * ty, denom = 1. + txty * txty;
    r = {tx * (1. + ty * ty) / denom, ((ty / denom) * cx) * cx};
  }
  errno = 0;
  return r;
}

C c_asinh(C z) {
  if (!finite(z)) return special(k_asinh, z.re, z.im);
  C r;
  if (std::fabs(z.re) > kLargeDouble || std::fabs(z.im) > kLargeDouble) {
    double l = std::log(std::hypot(z.re / 2., z.im / 2.)) + kLn2 * 2.;
    r.re = z.im >= 0. ? std::copysign(l, z.re) : -std::copysign(l, -z.re);
    r.im = std::atan2(z.im, std::fabs(z.re));
  } else {
    C s1 = c_sqrt({1. + z.im, -z.re}), s2 = c_sqrt({1. - z.im, z.re});
    r.re = std::asinh(s1.re * s2.im - s2.re * s1.im);
    r.im = std::atan2(z.im, s1.re * s2.re - s1.im * s2.im);
  }
  errno = 0;
  return r;
}

C c_acos(C z) {
  if (!finite(z)) return special(k_acos, z.re, z.im);
  C r;
  if (std::fabs(z.re) > kLargeDouble || std::fabs(z.im) > kLargeDouble) {
    r.re = std::atan2(std::fabs(z.im), z.re);
    double l = std::log(std::hypot(z.re / 2., z.im / 2.)) + kLn2 * 2.;
    r.im = z.re < 0. ? -std::copysign(l, z.im) : std::copysign(l, -z.im);
  } else {
    C s1 = c_sqrt({1. - z.re, -z.im}), s2 = c_sqrt({1. + z.re, z.im});
    r.re = 2. * std::atan2(s1.re, s2.re);
    r.im = std::asinh(s2.re * s1.im - s2.im * s1.re);
  }
  errno = 0;
  return r;
}

C c_acosh(C z) {
  if (!finite(z)) return special(k_acosh, z.re, z.im);
  C r;
  if (std::fabs(z.re) > kLargeDouble || std::fabs(z.im) > kLargeDouble) {
    r.re = std::log(std::hypot(z.re / 2., z.im / 2.)) + kLn2 * 2.;
    r.im = std::atan2(z.im, z.re);
  } else {
    C s1 = c_sqrt({z.re - 1., z.im}), s2 = c_sqrt({z.re + 1., z.im});
    r.re = std::asinh(s1.re * s2.re + s1.im * s2.im);
    r.im = 2. * std::atan2(s1.im, s2.re);
  }
  errno = 0;
  return r;
}

C c_atanh(C z) {
  if (!finite(z)) return special(k_atanh, z.re, z.im);
  if (z.re < 0.) return cx::neg(c_atanh(cx::neg(z)));  // atanh(z) = -atanh(-z)
  C r;
  double ay = std::fabs(z.im);
  if (z.re > kSqrtLargeDouble || ay > kSqrtLargeDouble) {
    double h = std::hypot(z.re / 2., z.im / 2.);
    r = {z.re / 4. / h / h, -std::copysign(kPi / 2., -z.im)};
    errno = 0;
  } else if (z.re == 1. && ay < kSqrtDblMin) {
    if (ay == 0.) {
      r = {I, z.im};
      errno = EDOM;
    } else {
      r = {-std::log(std::sqrt(ay) / std::sqrt(std::hypot(ay, 2.))), std::copysign(std::atan2(2., -ay) / 2, z.im)};
      errno = 0;
    }
  } else {
    r.re = std::log1p(4. * z.re / ((1 - z.re) * (1 - z.re) + ay * ay)) / 4.;
    r.im = -std::atan2(-2. * z.im, (1 - z.re) * (1 + z.re) - ay * ay) / 2.;
    errno = 0;
  }
  return r;
}

// The functions of i*z, as CPython derives them: asin(z) = -i asinh(iz), sin(z) = -i sinh(iz),
// tan(z) = -i tanh(iz), atan(z) = -i atanh(iz), cos(z) = cosh(iz).
template <C (*F)(C)>
C rotated(C z) {
  C s = F({-z.im, z.re});
  return {s.im, -s.re};
}
C c_cos(C z) { return c_cosh({-z.im, z.re}); }

// atan2 of the parts with C99's infinities (c_atan2).
double c_atan2(C z) {
  if (std::isnan(z.re) || std::isnan(z.im)) return NAN;
  if (std::isinf(z.im)) {
    if (std::isinf(z.re)) return std::copysign((std::copysign(1., z.re) == 1. ? 0.25 : 0.75) * kPi, z.im);
    return std::copysign(0.5 * kPi, z.im);
  }
  if (std::isinf(z.re) || z.im == 0.) return std::copysign(std::copysign(1., z.re) == 1. ? 0. : kPi, z.im);
  return std::atan2(z.im, z.re);
}

void math_error(Interp& In) {
  if (errno == EDOM) In.raise("ValueError", "math domain error");
  if (errno == ERANGE) In.raise("OverflowError", "math range error");
}

// A float argument (the "d" converter): must be real number, not complex.
double real_arg(Interp& In, const Value& v) {
  if (auto d = real_of(v)) return *d;
  if (v->cls->lookup("__float__")) {
    Value r = *In.call_method(v, "__float__", {});
    if (auto d = real_of(r)) return *d;
    In.raise("TypeError", fmt::format("{}.__float__ returned non-float (type {})", In.type_name(v), In.type_name(r)));
  }
  if (auto i = try_index(In, v)) return double(*i);
  In.raise("TypeError", fmt::format("must be real number, not {}", In.type_name(v)));
}

// A complex argument (PyComplex_AsCComplex): complex, __complex__, else a real number.
C complex_arg(Interp& In, const Value& v) {
  if (const ComplexObj* c = complex_obj(v)) return {c->re, c->im};
  if (v->cls->lookup("__complex__")) {
    Value r = *In.call_method(v, "__complex__", {});
    const ComplexObj* c = complex_obj(r);
    if (!c) In.raise("TypeError", fmt::format("__complex__ returned non-complex (type {})", In.type_name(r)));
    return {c->re, c->im};
  }
  return {real_arg(In, v), 0.0};
}

Value value_of(C z) { return make_complex(z.re, z.im); }

void fill_cmath(Interp&, ModuleObj& m) {
  auto add = [&](const char* name, NativeFn fn) { m.dict.set(name, make_builtin(name, std::move(fn))); };
  m.dict.set("pi", make_float(kPi));
  m.dict.set("e", make_float(kE));
  m.dict.set("tau", make_float(2 * kPi));
  m.dict.set("inf", make_float(HUGE_VAL));
  m.dict.set("nan", make_float(NAN));
  m.dict.set("infj", make_complex(0.0, HUGE_VAL));
  m.dict.set("nanj", make_complex(0.0, NAN));
  struct U {
    const char* name;
    const char* qualified;
    C (*f)(C);
  };
  static const U unaries[] = {
      {"sqrt", "cmath.sqrt", c_sqrt},       {"exp", "cmath.exp", c_exp},
      {"log10", "cmath.log10", c_log10},    {"sin", "cmath.sin", rotated<c_sinh>},
      {"cos", "cmath.cos", c_cos},          {"tan", "cmath.tan", rotated<c_tanh>},
      {"asin", "cmath.asin", rotated<c_asinh>}, {"acos", "cmath.acos", c_acos},
      {"atan", "cmath.atan", rotated<c_atanh>}, {"sinh", "cmath.sinh", c_sinh},
      {"cosh", "cmath.cosh", c_cosh},       {"tanh", "cmath.tanh", c_tanh},
      {"asinh", "cmath.asinh", c_asinh},    {"acosh", "cmath.acosh", c_acosh},
      {"atanh", "cmath.atanh", c_atanh},
  };
  for (const U& u : unaries)
    add(u.name, [&u](Interp& In, CallArgs& a) {
      func_nargs(In, a, u.qualified, 1, 1);
      C z = complex_arg(In, a.args[0]);
      errno = 0;
      C r = u.f(z);
      math_error(In);
      return value_of(r);
    });
  add("log", [](Interp& In, CallArgs& a) {
    func_nargs(In, a, "log", 1, 2);
    C x = complex_arg(In, a.args[0]);
    C base;
    if (a.args.size() == 2) base = complex_arg(In, a.args[1]);
    errno = 0;
    x = c_log(x);
    if (a.args.size() == 2) x = cx::quot(x, c_log(base));
    math_error(In);
    return value_of(x);
  });
  add("phase", [](Interp& In, CallArgs& a) {
    func_nargs(In, a, "cmath.phase", 1, 1);
    C z = complex_arg(In, a.args[0]);
    errno = 0;
    double phi = c_atan2(z);  // libm's atan2 sets ERANGE when the angle underflows
    math_error(In);
    return make_float(phi);
  });
  add("polar", [](Interp& In, CallArgs& a) {
    func_nargs(In, a, "cmath.polar", 1, 1);
    C z = complex_arg(In, a.args[0]);
    errno = 0;
    double phi = c_atan2(z);
    double r = cx::abs(z);  // sets errno: ERANGE on overflow, else 0
    math_error(In);
    return make_tuple({make_float(r), make_float(phi)});
  });
  add("rect", [](Interp& In, CallArgs& a) {
    func_nargs(In, a, "rect", 2, 2);
    double r = real_arg(In, a.args[0]), phi = real_arg(In, a.args[1]);
    C z;
    if (!std::isfinite(r) || !std::isfinite(phi)) {
      if (std::isinf(r) && std::isfinite(phi) && phi != 0.) {
        z = {std::copysign(I, std::cos(phi)), std::copysign(I, std::sin(phi))};
        if (r < 0) z = cx::neg(z);
        errno = 0;
      } else {
        z = special(k_rect, r, phi);
      }
    } else if (phi == 0.0) {
      z = {r, r * phi};
      errno = 0;
    } else {
      z = {r * std::cos(phi), r * std::sin(phi)};
      errno = 0;
    }
    math_error(In);
    return value_of(z);
  });
  for (const char* name : {"isnan", "isinf", "isfinite"}) {
    add(name, [name](Interp& In, CallArgs& a) {
      func_nargs(In, a, std::string("cmath.") + name, 1, 1);
      C z = complex_arg(In, a.args[0]);
      bool r = name[2] == 'n' ? (std::isnan(z.re) || std::isnan(z.im))
               : name[2] == 'i' ? (std::isinf(z.re) || std::isinf(z.im))
                                : finite(z);
      return make_bool(r);
    });
  }
  add("isclose", [](Interp& In, CallArgs& a) {
    ArgParser p(In, a, "isclose", {"$clinic", "a", "b", "*", "rel_tol=", "abs_tol="});
    C x = complex_arg(In, p.get("a")), y = complex_arg(In, p.get("b"));
    double rel = p.has("rel_tol") ? real_arg(In, p.get("rel_tol")) : 1e-9;
    double abs_tol = p.has("abs_tol") ? real_arg(In, p.get("abs_tol")) : 0.0;
    if (rel < 0.0 || abs_tol < 0.0) In.raise("ValueError", "tolerances must be non-negative");
    if (x.re == y.re && x.im == y.im) return make_bool(true);
    if (std::isinf(x.re) || std::isinf(x.im) || std::isinf(y.re) || std::isinf(y.im)) return make_bool(false);
    double diff = cx::abs(cx::diff(x, y));
    return make_bool(diff <= rel * cx::abs(y) || diff <= rel * cx::abs(x) || diff <= abs_tol);
  });
}

}  // namespace

void register_cmath_module() { Interp::register_builtin_module("cmath", fill_cmath); }

}  // namespace shard::interp::bi
