// The `math` module with CPython's domain/range errors ("math domain error",
// "math range error") and exact integer functions (gcd, lcm, factorial, comb, perm, isqrt).
#include <fmt/format.h>

#include <cmath>
#include <numeric>

#include "interp/builtins/numbers.hpp"

namespace shard::interp::bi {

namespace {

double real_arg(Interp& I, const Value& v) {
  if (auto d = real_of(v)) return *d;
  if (v->cls->lookup("__float__")) {
    auto r = I.call_method(v, "__float__", {});
    if (r)
      if (auto d = real_of(*r)) return *d;
  }
  if (auto i = try_index(I, v)) return double(*i);
  I.raise("TypeError", fmt::format("must be real number, not {}", I.type_name(v)));
}

int64_t int_arg(Interp& I, const Value& v) { return index_of(I, v, ""); }

[[noreturn]] void domain_error(Interp& I) { I.raise("ValueError", "math domain error"); }
[[noreturn]] void range_error(Interp& I) { I.raise("OverflowError", "math range error"); }

// Wraps a one-argument libm function with CPython's math_1 error rules.
NativeFn unary(const char* name, double (*f)(double), bool can_overflow) {
  return [name, f, can_overflow](Interp& I, CallArgs& a) {
    func_nargs(I, a, name, 1, 1);
    double x = real_arg(I, a.args[0]);
    double r = f(x);
    if (std::isnan(r) && !std::isnan(x)) domain_error(I);
    if (std::isinf(r) && std::isfinite(x)) {
      if (can_overflow) range_error(I);
      domain_error(I);
    }
    return make_float(r);
  };
}

double m_log(Interp& I, const Value& v) {
  double x = real_arg(I, v);
  if (std::isnan(x)) return x;
  if (x <= 0) domain_error(I);
  return std::log(x);
}

// Exact summation: CPython's math.fsum (Shewchuk's algorithm).
double fsum(Interp& I, const std::vector<Value>& items) {
  std::vector<double> p;
  double special_sum = 0.0, inf_sum = 0.0;
  for (auto& v : items) {
    double x = real_arg(I, v);
    double xsave = x;
    size_t i = 0;
    for (double y : p) {
      if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
      double hi = x + y;
      double lo = y - (hi - x);
      if (lo != 0.0) p[i++] = lo;
      x = hi;
    }
    p.resize(i);
    if (x != 0.0) {
      if (!std::isfinite(x)) {
        if (std::isfinite(xsave)) I.raise("OverflowError", "intermediate overflow in fsum");
        if (std::isinf(xsave)) inf_sum += xsave;
        special_sum += xsave;
        p.clear();
      } else {
        p.push_back(x);
      }
    }
  }
  if (special_sum != 0.0) {
    if (std::isnan(inf_sum)) I.raise("ValueError", "-inf + inf in fsum");
    return special_sum;
  }
  double hi = 0.0;
  size_t n = p.size();
  if (n > 0) {
    hi = p[--n];
    double lo = 0;
    while (n > 0) {
      double x = hi;
      double y = p[--n];
      hi = x + y;
      double yr = hi - x;
      lo = y - yr;
      if (lo != 0.0) break;
    }
    if (n > 0 && ((lo < 0.0 && p[n - 1] < 0.0) || (lo > 0.0 && p[n - 1] > 0.0))) {
      double y = lo * 2.0;
      double x = hi + y;
      double yr = x - hi;
      if (y == yr) hi = x;
    }
  }
  return hi;
}

int64_t gcd64(int64_t a, int64_t b) {
  uint64_t x = a < 0 ? uint64_t(0) - uint64_t(a) : uint64_t(a);
  uint64_t y = b < 0 ? uint64_t(0) - uint64_t(b) : uint64_t(b);
  return int64_t(std::gcd(x, y));
}

Value round_to_int(Interp& I, const Value& v, const char* dunder, double (*f)(double)) {
  if (auto i = int_of(v)) return make_int(*i);
  if (is_float(v)) return make_int(int_from_double(I, f(*real_of(v))));
  if (v->cls->lookup(dunder)) return *I.call_method(v, dunder, {});
  return make_int(int_from_double(I, f(real_arg(I, v))));
}

void fill_math(Interp& I, ModuleObj& m) {
  auto add = [&](const char* name, NativeFn fn) { m.dict.set(name, make_builtin(name, std::move(fn))); };
  m.dict.set("pi", make_float(M_PI));
  m.dict.set("e", make_float(M_E));
  m.dict.set("tau", make_float(2 * M_PI));
  m.dict.set("inf", make_float(HUGE_VAL));
  m.dict.set("nan", make_float(NAN));
  struct U {
    const char* name;
    double (*f)(double);
    bool overflow;
  };
  static const U unaries[] = {
      {"sqrt", [](double x) { return std::sqrt(x); }, false}, {"exp", [](double x) { return std::exp(x); }, true},
      {"exp2", [](double x) { return std::exp2(x); }, true}, {"expm1", [](double x) { return std::expm1(x); }, true},
      {"log2", [](double x) { return x <= 0 ? NAN : std::log2(x); }, false},
      {"log10", [](double x) { return x <= 0 ? NAN : std::log10(x); }, false},
      {"log1p", [](double x) { return x <= -1 ? NAN : std::log1p(x); }, false},
      {"sin", [](double x) { return std::sin(x); }, false}, {"cos", [](double x) { return std::cos(x); }, false},
      {"tan", [](double x) { return std::tan(x); }, false}, {"asin", [](double x) { return std::asin(x); }, false},
      {"acos", [](double x) { return std::acos(x); }, false}, {"atan", [](double x) { return std::atan(x); }, false},
      {"sinh", [](double x) { return std::sinh(x); }, true}, {"cosh", [](double x) { return std::cosh(x); }, true},
      {"tanh", [](double x) { return std::tanh(x); }, false}, {"asinh", [](double x) { return std::asinh(x); }, false},
      {"acosh", [](double x) { return std::acosh(x); }, false},
      {"atanh", [](double x) { return std::fabs(x) >= 1 ? NAN : std::atanh(x); }, false},
      {"fabs", [](double x) { return std::fabs(x); }, false}, {"erf", [](double x) { return std::erf(x); }, false},
      {"erfc", [](double x) { return std::erfc(x); }, false},
      {"gamma", [](double x) { return (x <= 0 && x == std::floor(x)) ? NAN : std::tgamma(x); }, true},
      // lgamma_r: glibc's lgamma writes the global signgam, which threads would share.
      {"lgamma", [](double x) { int sign; return (x <= 0 && x == std::floor(x) && std::isfinite(x)) ? NAN : lgamma_r(x, &sign); }, true},
      {"degrees", [](double x) { return x * (180.0 / M_PI); }, false},
      {"radians", [](double x) { return x * (M_PI / 180.0); }, false},
      {"cbrt", [](double x) { return std::cbrt(x); }, false},
  };
  for (const U& u : unaries) add(u.name, unary(u.name, u.f, u.overflow));
  add("log", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "log", 1, 2);
    double num = m_log(I, a.args[0]);
    if (a.args.size() == 1) return make_float(num);
    double den = m_log(I, a.args[1]);
    if (den == 0) I.raise("ZeroDivisionError", "float division by zero");
    return make_float(num / den);
  });
  add("pow", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "pow", 2, 2);
    double x = real_arg(I, a.args[0]), y = real_arg(I, a.args[1]);
    if (x == 0 && y < 0) domain_error(I);
    if (x < 0 && std::isfinite(x) && std::isfinite(y) && y != std::floor(y)) domain_error(I);
    double r = std::pow(x, y);
    if (std::isinf(r) && std::isfinite(x) && std::isfinite(y)) range_error(I);
    return make_float(r);
  });
  add("atan2", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "atan2", 2, 2);
    return make_float(std::atan2(real_arg(I, a.args[0]), real_arg(I, a.args[1])));
  });
  add("copysign", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "copysign", 2, 2);
    return make_float(std::copysign(real_arg(I, a.args[0]), real_arg(I, a.args[1])));
  });
  add("fmod", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "fmod", 2, 2);
    double x = real_arg(I, a.args[0]), y = real_arg(I, a.args[1]);
    if (std::isinf(y) && std::isfinite(x)) return make_float(x);
    if (y == 0 || std::isinf(x)) domain_error(I);
    return make_float(std::fmod(x, y));
  });
  add("remainder", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "remainder", 2, 2);
    double x = real_arg(I, a.args[0]), y = real_arg(I, a.args[1]);
    if (y == 0 || std::isinf(x)) domain_error(I);
    return make_float(std::remainder(x, y));
  });
  add("modf", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "modf", 1, 1);
    double ip, x = real_arg(I, a.args[0]);
    double fp = std::modf(x, &ip);
    return make_tuple({make_float(fp), make_float(ip)});
  });
  add("frexp", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "frexp", 1, 1);
    int e = 0;
    double mnt = std::frexp(real_arg(I, a.args[0]), &e);
    return make_tuple({make_float(mnt), make_int(e)});
  });
  add("ldexp", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "ldexp", 2, 2);
    double x = real_arg(I, a.args[0]);
    int64_t e = int_arg(I, a.args[1]);
    double r = std::ldexp(x, int(std::clamp<int64_t>(e, -100000, 100000)));
    if (std::isinf(r) && std::isfinite(x)) range_error(I);
    return make_float(r);
  });
  add("floor", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "floor", 1, 1);
    return round_to_int(I, a.args[0], "__floor__", [](double x) { return std::floor(x); });
  });
  add("ceil", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "ceil", 1, 1);
    return round_to_int(I, a.args[0], "__ceil__", [](double x) { return std::ceil(x); });
  });
  add("trunc", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "trunc", 1, 1);
    return round_to_int(I, a.args[0], "__trunc__", [](double x) { return std::trunc(x); });
  });
  add("isnan", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "isnan", 1, 1);
    return make_bool(std::isnan(real_arg(I, a.args[0])));
  });
  add("isinf", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "isinf", 1, 1);
    return make_bool(std::isinf(real_arg(I, a.args[0])));
  });
  add("isfinite", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "isfinite", 1, 1);
    return make_bool(std::isfinite(real_arg(I, a.args[0])));
  });
  add("isclose", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "isclose", {"a", "b", "*", "rel_tol=", "abs_tol="});
    double x = real_arg(I, p.get("a")), y = real_arg(I, p.get("b"));
    double rel = p.has("rel_tol") ? real_arg(I, p.get("rel_tol")) : 1e-9;
    double abs_tol = p.has("abs_tol") ? real_arg(I, p.get("abs_tol")) : 0.0;
    if (rel < 0 || abs_tol < 0) I.raise("ValueError", "tolerances must be non-negative");
    if (x == y) return make_bool(true);
    if (std::isinf(x) || std::isinf(y)) return make_bool(false);
    double diff = std::fabs(y - x);
    return make_bool((diff <= std::fabs(rel * y)) || (diff <= std::fabs(rel * x)) || diff <= abs_tol);
  });
  add("hypot", [](Interp& I, CallArgs& a) {
    no_kwargs(I, a, "hypot");
    double acc = 0;
    bool any_inf = false, any_nan = false;
    std::vector<double> xs;
    for (auto& v : a.args) {
      double x = std::fabs(real_arg(I, v));
      if (std::isinf(x)) any_inf = true;
      if (std::isnan(x)) any_nan = true;
      xs.push_back(x);
    }
    if (any_inf) return make_float(HUGE_VAL);
    if (any_nan) return make_float(NAN);
    if (xs.size() == 2) return make_float(std::hypot(xs[0], xs[1]));
    double mx = 0;
    for (double x : xs) mx = std::max(mx, x);
    if (mx == 0) return make_float(0.0);
    for (double x : xs) acc += (x / mx) * (x / mx);
    return make_float(mx * std::sqrt(acc));
  });
  add("dist", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "dist", 2, 2);
    auto p = collect(I, a.args[0]), q = collect(I, a.args[1]);
    if (p.size() != q.size()) I.raise("ValueError", "both points must have the same number of dimensions");
    double acc = 0;
    for (size_t i = 0; i < p.size(); ++i) {
      double d = real_arg(I, p[i]) - real_arg(I, q[i]);
      acc += d * d;
    }
    return make_float(std::sqrt(acc));
  });
  add("fsum", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "fsum", 1, 1);
    return make_float(fsum(I, collect(I, a.args[0])));
  });
  add("prod", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "prod", {"iterable", "/", "*", "start="});
    Value acc = p.has("start") ? p.get("start") : make_int(1);
    for (auto& x : collect(I, p.get("iterable"))) {
      auto ai = int_of(acc), xi = int_of(x);
      if (ai && xi && acc->kind != ObjKind::Instance && x->kind != ObjKind::Instance) acc = make_int(checked_mul(I, *ai, *xi));
      else acc = I.binary_op(ast::BinOpKind::Mul, acc, x);
    }
    return acc;
  });
  add("gcd", [](Interp& I, CallArgs& a) {
    no_kwargs(I, a, "gcd");
    int64_t g = 0;
    for (auto& v : a.args) g = gcd64(g, int_arg(I, v));
    return make_int(g);
  });
  add("lcm", [](Interp& I, CallArgs& a) {
    no_kwargs(I, a, "lcm");
    int64_t l = 1;
    for (auto& v : a.args) {
      int64_t x = int_arg(I, v);
      if (x == 0 || l == 0) {
        l = 0;
        continue;
      }
      int64_t g = gcd64(l, x);
      l = checked_mul(I, l / g, x < 0 ? -x : x);
      if (l < 0) l = -l;
    }
    return make_int(l);
  });
  add("factorial", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "factorial", 1, 1);
    int64_t n = int_arg(I, a.args[0]);
    if (n < 0) I.raise("ValueError", "factorial() not defined for negative values");
    int64_t r = 1;
    for (int64_t i = 2; i <= n; ++i) r = checked_mul(I, r, i);
    return make_int(r);
  });
  add("comb", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "comb", 2, 2);
    int64_t n = int_arg(I, a.args[0]), k = int_arg(I, a.args[1]);
    if (n < 0) I.raise("ValueError", "n must be a non-negative integer");
    if (k < 0) I.raise("ValueError", "k must be a non-negative integer");
    if (k > n) return make_int(0);
    k = std::min(k, n - k);
    __int128 r = 1;
    for (int64_t i = 1; i <= k; ++i) {
      r = r * (n - k + i) / i;
      if (r > INT64_MAX) int_overflow(I);
    }
    return make_int(int64_t(r));
  });
  add("perm", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "perm", 1, 2);
    int64_t n = int_arg(I, a.args[0]);
    int64_t k = a.args.size() > 1 && a.args[1]->kind != ObjKind::None ? int_arg(I, a.args[1]) : n;
    if (n < 0) I.raise("ValueError", "n must be a non-negative integer");
    if (k < 0) I.raise("ValueError", "k must be a non-negative integer");
    if (k > n) return make_int(0);
    int64_t r = 1;
    for (int64_t i = 0; i < k; ++i) r = checked_mul(I, r, n - i);
    return make_int(r);
  });
  add("isqrt", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "isqrt", 1, 1);
    int64_t n = int_arg(I, a.args[0]);
    if (n < 0) I.raise("ValueError", "isqrt() argument must be nonnegative");
    int64_t r = int64_t(std::sqrt(double(n)));
    while (r > 0 && (__int128)r * r > n) --r;
    while ((__int128)(r + 1) * (r + 1) <= n) ++r;
    return make_int(r);
  });
}

}  // namespace

void register_math_module() { Interp::register_builtin_module("math", fill_math); }

}  // namespace shard::interp::bi
