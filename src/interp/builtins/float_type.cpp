// float: arithmetic with CPython's special cases, comparisons with exact int/float ordering,
// hashing consistent with int, repr/format, and float().
#include <fmt/format.h>

#include <cmath>

#include "interp/builtins/numbers.hpp"

namespace shard::interp::bi {

void init_int_types();

namespace {

double self_float(Interp& I, CallArgs& a, const char* meth) {
  auto* f = a.args.empty() ? nullptr : unwrap<FloatObj>(a.args[0], ObjKind::Float);
  if (!f) bad_self(I, a, "float", meth);
  return f->v;
}

using FloatBinFn = Value (*)(Interp&, double, double);

void def_binop(const ClassP& c, const char* name, const char* rname, FloatBinFn fn) {
  def(c, name, [fn, name](Interp& I, CallArgs& a) -> Value {
    method_nargs(I, a, name, 1, 1);
    double x = self_float(I, a, name);
    auto y = real_of(a.args[1]);
    if (!y) return not_implemented();
    return fn(I, x, *y);
  });
  def(c, rname, [fn, rname](Interp& I, CallArgs& a) -> Value {
    method_nargs(I, a, rname, 1, 1);
    double x = self_float(I, a, rname);
    auto y = real_of(a.args[1]);
    if (!y) return not_implemented();
    return fn(I, *y, x);
  });
}

void def_arith(const ClassP& c) {
  def_binop(c, "__add__", "__radd__", [](Interp&, double a, double b) { return make_float(a + b); });
  def_binop(c, "__sub__", "__rsub__", [](Interp&, double a, double b) { return make_float(a - b); });
  def_binop(c, "__mul__", "__rmul__", [](Interp&, double a, double b) { return make_float(a * b); });
  def_binop(c, "__truediv__", "__rtruediv__", [](Interp& I, double a, double b) {
    if (b == 0) I.raise("ZeroDivisionError", "float division by zero");
    return make_float(a / b);
  });
  def_binop(c, "__floordiv__", "__rfloordiv__", [](Interp& I, double a, double b) {
    if (b == 0) I.raise("ZeroDivisionError", "float floor division by zero");
    return make_float(float_divmod(a, b).first);
  });
  def_binop(c, "__mod__", "__rmod__", [](Interp& I, double a, double b) {
    if (b == 0) I.raise("ZeroDivisionError", "float modulo");
    return make_float(float_mod(a, b));
  });
  def_binop(c, "__divmod__", "__rdivmod__", [](Interp& I, double a, double b) {
    if (b == 0) I.raise("ZeroDivisionError", "float divmod()");
    auto [q, r] = float_divmod(a, b);
    return make_tuple({make_float(q), make_float(r)});
  });
  for (auto [name, reflected] : {std::pair{"__pow__", false}, std::pair{"__rpow__", true}}) {
    def(c, name, [name, reflected](Interp& I, CallArgs& a) -> Value {
      method_nargs(I, a, name, 1, 2);
      double x = self_float(I, a, name);
      // float_pow refuses a modulus before it looks at the other operand.
      if (a.args.size() == 3 && a.args[2]->kind != ObjKind::None)
        I.raise("TypeError", "pow() 3rd argument not allowed unless all arguments are integers");
      auto y = real_of(a.args[1]);
      if (!y) return not_implemented();
      double base = reflected ? *y : x, exponent = reflected ? x : *y;
      if (Value z = float_pow_complex(I, base, exponent)) return z;
      return make_float(float_pow(I, base, exponent));
    });
  }
}

void def_compare(const ClassP& c) {
  struct Cmp {
    const char* name;
    bool (*test)(int);
  };
  static const Cmp cmps[] = {
      {"__eq__", [](int r) { return r == 0; }}, {"__ne__", [](int r) { return r != 0; }},
      {"__lt__", [](int r) { return r == -1; }}, {"__le__", [](int r) { return r == -1 || r == 0; }},
      {"__gt__", [](int r) { return r == 1; }}, {"__ge__", [](int r) { return r == 1 || r == 0; }},
  };
  for (const Cmp& cmp : cmps) {
    auto test = cmp.test;
    const char* name = cmp.name;
    def(c, name, [test, name](Interp& I, CallArgs& a) -> Value {
      method_nargs(I, a, name, 1, 1);
      self_float(I, a, name);
      if (!real_of(a.args[1])) return not_implemented();
      return make_bool(test(compare_numbers(a.args[0], a.args[1])));
    });
  }
}

// (numerator, denominator) of a finite double, as float.as_integer_ratio.
Value integer_ratio(Interp& I, double x) {
  if (std::isinf(x)) I.raise("OverflowError", "cannot convert Infinity to integer ratio");
  if (std::isnan(x)) I.raise("ValueError", "cannot convert NaN to integer ratio");
  int e;
  double m = std::frexp(x, &e);
  for (int i = 0; i < 300 && m != std::floor(m); ++i) {
    m *= 2.0;
    e--;
  }
  if (std::fabs(m) >= 9223372036854775808.0) int_overflow(I);
  int64_t num = int64_t(m), den = 1;
  if (e > 0) {
    if (e >= 63) int_overflow(I);
    num = checked_mul(I, num, int64_t(1) << e);
  } else {
    if (-e >= 63) int_overflow(I);
    den = int64_t(1) << -e;
  }
  return make_tuple({make_int(num), make_int(den)});
}

void def_unary(const ClassP& c) {
  def(c, "__neg__", [](Interp& I, CallArgs& a) { return make_float(-self_float(I, a, "__neg__")); });
  def(c, "__pos__", [](Interp& I, CallArgs& a) { return make_float(self_float(I, a, "__pos__")); });
  def(c, "__abs__", [](Interp& I, CallArgs& a) { return make_float(std::fabs(self_float(I, a, "__abs__"))); });
  def(c, "__bool__", [](Interp& I, CallArgs& a) { return make_bool(self_float(I, a, "__bool__") != 0); });
  def(c, "__float__", [](Interp& I, CallArgs& a) { return make_float(self_float(I, a, "__float__")); });
  for (const char* n : {"__int__", "__trunc__"})
    def(c, n, [n](Interp& I, CallArgs& a) { return make_int(int_from_double(I, self_float(I, a, n))); });
  def(c, "__floor__", [](Interp& I, CallArgs& a) {
    return make_int(int_from_double(I, std::floor(self_float(I, a, "__floor__"))));
  });
  def(c, "__ceil__", [](Interp& I, CallArgs& a) {
    return make_int(int_from_double(I, std::ceil(self_float(I, a, "__ceil__"))));
  });
  def(c, "__round__", [](Interp& I, CallArgs& a) -> Value {
    method_nargs(I, a, "float.__round__", 0, 1);
    double x = self_float(I, a, "__round__");
    if (a.args.size() < 2 || a.args[1]->kind == ObjKind::None) return make_int(round_half_even(I, x));
    int64_t nd = index_of(I, a.args[1], "");
    double r = numfmt::round_double(x, nd);
    if (std::isinf(r) && std::isfinite(x)) I.raise("OverflowError", "rounded value too large to represent");
    return make_float(r);
  });
  def(c, "__hash__", [](Interp& I, CallArgs& a) {
    double x = self_float(I, a, "__hash__");
    if (std::isnan(x)) {
      auto p = reinterpret_cast<uintptr_t>(a.args[0].get());
      return make_int(int64_t((p >> 4) | (p << 60)) & INT64_MAX);
    }
    return make_int(numfmt::hash_float(x));
  });
  def(c, "__repr__", [](Interp& I, CallArgs& a) { return make_str(numfmt::float_repr(self_float(I, a, "__repr__"))); });
  def(c, "__format__", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "float.__format__", 1, 1);
    double x = self_float(I, a, "__format__");
    const std::string& spec = str_arg(I, a.args[1], "format() argument 2");
    if (spec.empty()) return make_str(I.str(a.args[0]));
    try {
      return make_str(numfmt::format_float(x, spec, I.type_name(a.args[0])));
    } catch (const numfmt::FormatError& e) {
      raise_format_error(I, e);
    }
  });
  def(c, "is_integer", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "float.is_integer", 0, 0);
    double x = self_float(I, a, "is_integer");
    return make_bool(std::isfinite(x) && x == std::floor(x));
  });
  def(c, "as_integer_ratio", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "float.as_integer_ratio", 0, 0);
    return integer_ratio(I, self_float(I, a, "as_integer_ratio"));
  });
  def(c, "conjugate", [](Interp& I, CallArgs& a) { return make_float(self_float(I, a, "conjugate")); });
  def(c, "hex", [](Interp& I, CallArgs& a) {
    double x = self_float(I, a, "hex");
    if (std::isnan(x)) return make_str("nan");
    if (std::isinf(x)) return make_str(x < 0 ? "-inf" : "inf");
    if (x == 0) return make_str(std::signbit(x) ? "-0x0.0p+0" : "0x0.0p+0");
    int e;
    double m = std::frexp(std::fabs(x), &e);  // m in [0.5, 1)
    m *= 2;
    e -= 1;
    uint64_t bits = uint64_t(std::ldexp(m - 1.0, 52));
    if (m < 1.0) bits = 0;  // subnormals are shown normalised like CPython's %a
    return make_str(fmt::format("{}0x1.{:013x}p{:+d}", x < 0 ? "-" : "", bits, e));
  });
  def_property(c, "real", [](Interp& I, CallArgs& a) { return make_float(self_float(I, a, "real")); });
  def_property(c, "imag", [](Interp&, CallArgs&) { return make_float(0.0); });
}

}  // namespace

Value float_new(Interp& I, const ClassP& cls, CallArgs& a) {
  no_kwargs(I, a, "float");
  if (a.args.size() > 1) I.raise("TypeError", fmt::format("float expected at most 1 argument, got {}", a.args.size()));
  double result = 0.0;
  if (!a.args.empty()) {
    const Value& x = a.args[0];
    if (auto d = real_of(x)) {
      result = *d;
    } else if (auto* s = str_of(x)) {
      auto v = parse_float_text(s->v);
      if (!v) I.raise("ValueError", fmt::format("could not convert string to float: {}", str_repr(s->v)));
      result = *v;
    } else {
      std::optional<Value> r;
      if (x->cls->lookup("__float__")) r = I.call_method(x, "__float__", {});
      else if (x->cls->lookup("__index__")) r = I.call_method(x, "__index__", {});
      if (!r)
        I.raise("TypeError", fmt::format("float() argument must be a string or a real number, not '{}'", I.type_name(x)));
      auto d = real_of(*r);
      if (!d) I.raise("TypeError", fmt::format("{}.__float__ returned non-float (type {})", I.type_name(x), I.type_name(*r)));
      result = *d;
    }
  }
  if (!cls || cls.get() == T().float_.get()) return make_float(result);
  return wrap_for_class(cls, make_float(result));
}

void init_number_types() {
  init_int_types();
  auto& c = T().float_;
  c->native_new = float_new;
  def_arith(c);
  def_compare(c);
  def_unary(c);
  def_classmethod(c, "fromhex", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "float.fromhex", 1, 1);
    const std::string& s = str_arg(I, a.args[1], "fromhex() argument");
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (end == s.c_str()) I.raise("ValueError", "invalid hexadecimal floating-point string");
    return make_float(v);
  });
}

}  // namespace shard::interp::bi
