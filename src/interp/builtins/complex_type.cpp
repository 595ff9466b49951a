// complex: the constructor (numbers, __complex__ / __float__ / __index__, strings),
// arithmetic with int / float / complex operands on either side as CPython 3.11 does it,
// == with exact int comparison, hashing consistent with int and float, repr and format.
#include <fmt/format.h>

#include <cerrno>
#include <cmath>

#include "interp/builtins/complex_math.hpp"
#include "interp/builtins/numbers.hpp"
#include "interp/complex_value.hpp"

namespace shard::interp::bi {

namespace {

using cx::C;

C self_cx(Interp& I, CallArgs& a, const char* meth) {
  const ComplexObj* c = a.args.empty() ? nullptr : complex_obj(a.args[0]);
  if (!c) bad_self(I, a, "complex", meth);
  return {c->re, c->im};
}

// An operand of complex arithmetic: complex, int, bool or float (as complex_add's
// TO_COMPLEX); nullopt gives NotImplemented.
std::optional<C> operand(const Value& v) {
  if (const ComplexObj* c = complex_obj(v)) return C{c->re, c->im};
  if (auto d = real_of(v)) return C{*d, 0.0};
  return std::nullopt;
}

Value value_of(C z) { return make_complex(z.re, z.im); }

using CxBinFn = Value (*)(Interp&, C, C);

void def_binop(const ClassP& c, const char* name, const char* rname, CxBinFn fn) {
  def(c, name, [fn, name](Interp& I, CallArgs& a) -> Value {
    method_nargs(I, a, name, 1, 1);
    C x = self_cx(I, a, name);
    auto y = operand(a.args[1]);
    if (!y) return not_implemented();
    return fn(I, x, *y);
  });
  def(c, rname, [fn, rname](Interp& I, CallArgs& a) -> Value {
    method_nargs(I, a, rname, 1, 1);
    C x = self_cx(I, a, rname);
    auto y = operand(a.args[1]);
    if (!y) return not_implemented();
    return fn(I, *y, x);
  });
}

Value divide(Interp& I, C a, C b) {
  errno = 0;
  C r = cx::quot(a, b);
  if (errno == EDOM) I.raise("ZeroDivisionError", "complex division by zero");
  return value_of(r);
}

Value power(Interp& I, C a, C b) {
  C r = cx::pow(a, b);
  if (errno == EDOM) I.raise("ZeroDivisionError", "0.0 to a negative or complex power");
  if (errno == ERANGE) I.raise("OverflowError", "complex exponentiation");
  return value_of(r);
}

void def_arith(const ClassP& c) {
  def_binop(c, "__add__", "__radd__", [](Interp&, C a, C b) { return value_of(cx::sum(a, b)); });
  def_binop(c, "__sub__", "__rsub__", [](Interp&, C a, C b) { return value_of(cx::diff(a, b)); });
  def_binop(c, "__mul__", "__rmul__", [](Interp&, C a, C b) { return value_of(cx::prod(a, b)); });
  def_binop(c, "__truediv__", "__rtruediv__", divide);
  for (auto [name, reflected] : {std::pair{"__pow__", false}, std::pair{"__rpow__", true}}) {
    def(c, name, [name, reflected](Interp& I, CallArgs& a) -> Value {
      method_nargs(I, a, name, 1, 2);
      C x = self_cx(I, a, name);
      auto y = operand(a.args[1]);
      if (!y) return not_implemented();
      if (a.args.size() == 3 && a.args[2]->kind != ObjKind::None) I.raise("ValueError", "complex modulo");
      return reflected ? power(I, *y, x) : power(I, x, *y);
    });
  }
}

// complex == x (complex_richcompare): an int compares exactly with the real part when the
// imaginary part is 0; < <= > >= are not defined.
void def_compare(const ClassP& c) {
  for (const char* name : {"__eq__", "__ne__"}) {
    const bool ne = name[2] == 'n';
    def(c, name, [name, ne](Interp& I, CallArgs& a) -> Value {
      method_nargs(I, a, name, 1, 1);
      C x = self_cx(I, a, name);
      const Value& w = a.args[1];
      bool equal;
      if (complex_obj(w)) {
        C y = *operand(w);
        equal = x.re == y.re && x.im == y.im;
      } else if (is_float(w)) {
        equal = x.re == *real_of(w) && x.im == 0.0;
      } else if (int_of(w)) {
        equal = x.im == 0.0 && compare_numbers(make_float(x.re), w) == 0;
      } else {
        return not_implemented();
      }
      return make_bool(equal != ne);
    });
  }
  for (const char* name : {"__lt__", "__le__", "__gt__", "__ge__"})
    def(c, name, [name](Interp& I, CallArgs& a) -> Value {
      method_nargs(I, a, name, 1, 1);
      self_cx(I, a, name);
      return not_implemented();
    });
}

// hash(complex): hash(re) + 1000003 * hash(im), so hash(1+0j) == hash(1); a NaN part hashes
// by identity, as a NaN float does.
int64_t complex_hash(const Value& self, C z) {
  if (!std::isnan(z.re) && !std::isnan(z.im)) return numfmt::hash_complex(z.re, z.im);
  auto part = [&](double d) -> uint64_t {
    if (std::isnan(d)) {
      auto p = reinterpret_cast<uintptr_t>(self.get());
      return uint64_t(int64_t((p >> 4) | (p << 60)) & INT64_MAX);
    }
    return uint64_t(numfmt::hash_float(d));
  };
  uint64_t h = part(z.re) + 1000003ull * part(z.im);
  if (h == uint64_t(-1)) h = uint64_t(-2);
  return int64_t(h);
}

void def_unary(const ClassP& c) {
  def(c, "__neg__", [](Interp& I, CallArgs& a) { return value_of(cx::neg(self_cx(I, a, "__neg__"))); });
  def(c, "__pos__", [](Interp& I, CallArgs& a) { return value_of(self_cx(I, a, "__pos__")); });
  def(c, "__abs__", [](Interp& I, CallArgs& a) {
    double r = cx::abs(self_cx(I, a, "__abs__"));
    if (errno == ERANGE) I.raise("OverflowError", "absolute value too large");
    return make_float(r);
  });
  def(c, "__bool__", [](Interp& I, CallArgs& a) {
    C z = self_cx(I, a, "__bool__");
    return make_bool(z.re != 0.0 || z.im != 0.0);
  });
  def(c, "__hash__", [](Interp& I, CallArgs& a) {
    return make_int(complex_hash(a.args.empty() ? Value() : a.args[0], self_cx(I, a, "__hash__")));
  });
  def(c, "__repr__", [](Interp& I, CallArgs& a) {
    C z = self_cx(I, a, "__repr__");
    return make_str(numfmt::complex_repr(z.re, z.im));
  });
  def(c, "__format__", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "complex.__format__", 1, 1);
    C z = self_cx(I, a, "__format__");
    const std::string& spec = str_arg(I, a.args[1], "format() argument 2");
    if (spec.empty()) return make_str(I.str(a.args[0]));
    try {
      return make_str(numfmt::format_complex(z.re, z.im, spec, I.type_name(a.args[0])));
    } catch (const numfmt::FormatError& e) {
      raise_format_error(I, e);
    }
  });
  def(c, "conjugate", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "complex.conjugate", 0, 0);
    C z = self_cx(I, a, "conjugate");
    return make_complex(z.re, -z.im);
  });
  def(c, "__complex__", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "complex.__complex__", 0, 0);
    return value_of(self_cx(I, a, "__complex__"));
  });
  def(c, "__getnewargs__", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "complex.__getnewargs__", 0, 0);
    C z = self_cx(I, a, "__getnewargs__");
    return make_tuple({make_float(z.re), make_float(z.im)});
  });
  // Read-only members, as CPython's T_DOUBLE READONLY.
  auto readonly = [](Interp& I, CallArgs&) -> Value { I.raise("AttributeError", "readonly attribute"); };
  def_property(c, "real", [](Interp& I, CallArgs& a) { return make_float(self_cx(I, a, "real").re); }, readonly);
  def_property(c, "imag", [](Interp& I, CallArgs& a) { return make_float(self_cx(I, a, "imag").im); }, readonly);
}

// x.__complex__() when type(x) defines it (try_complex_special_method).
std::optional<C> complex_special(Interp& I, const Value& x) {
  if (!x->cls->lookup("__complex__")) return std::nullopt;
  Value r = *I.call_method(x, "__complex__", {});
  const ComplexObj* c = complex_obj(r);
  if (!c) I.raise("TypeError", fmt::format("__complex__ returned non-complex (type {})", I.type_name(r)));
  return C{c->re, c->im};
}

bool has_float_or_index(const Value& x) {
  return real_of(x) || x->cls->lookup("__float__") || x->cls->lookup("__index__");
}

// float(x) for a value with __float__ or __index__ (PyNumber_Float).
double number_float(Interp& I, const Value& x) {
  if (auto d = real_of(x)) return *d;
  if (x->cls->lookup("__float__")) {
    Value r = *I.call_method(x, "__float__", {});
    auto d = real_of(r);
    if (!d || !is_float(r))
      I.raise("TypeError", fmt::format("{}.__float__ returned non-float (type {})", I.type_name(x), I.type_name(r)));
    return *d;
  }
  return double(index_of(I, x, ""));
}

}  // namespace

// complex(real=0, imag=0) and complex(string), as complex_new in CPython 3.11.
Value complex_new(Interp& I, const ClassP& cls, CallArgs& a) {
  ArgParser p(I, a, "complex", {"$clinic", "real=", "imag="});
  Value r = p.get("real"), i = p.get("imag");
  const bool exact_cls = !cls || cls.get() == T().complex.get();
  auto result = [&](double re, double im) {
    Value v = make_complex(re, im);
    return exact_cls ? v : wrap_for_class(cls, v);
  };
  if (!r) r = make_int(0);
  if (r->kind == ObjKind::Complex && !i && exact_cls) return r;
  if (StrObj* s = str_of(r)) {
    if (i) I.raise("TypeError", "complex() can't take second arg if first is a string");
    cx::ParseResult pr = cx::parse(s->v);
    if (pr.error == cx::ParseError::Underscore)
      I.raise("ValueError", fmt::format("could not convert string to complex: {}", str_repr(s->v)));
    if (pr.error != cx::ParseError::None) I.raise("ValueError", "complex() arg is a malformed string");
    return result(pr.value.re, pr.value.im);
  }
  if (i && str_of(i)) I.raise("TypeError", "complex() second arg can't be a string");
  std::optional<C> special = complex_special(I, r);
  const bool r_complex = special || complex_obj(r);
  if (!r_complex && !has_float_or_index(r))
    I.raise("TypeError", fmt::format("complex() first argument must be a string or a number, not '{}'", I.type_name(r)));
  if (i && !complex_obj(i) && !has_float_or_index(i))
    I.raise("TypeError", fmt::format("complex() second argument must be a number, not '{}'", I.type_name(i)));
  C cr, ci;
  if (r_complex) cr = special ? *special : *operand(r);
  else cr = {number_float(I, r), 0.0};
  bool ci_complex = false;
  if (!i) {
    ci.re = cr.im;
  } else if (const ComplexObj* c = complex_obj(i)) {
    ci = {c->re, c->im};
    ci_complex = true;
  } else {
    ci.re = number_float(I, i);
  }
  if (ci_complex) cr.re -= ci.im;
  if (r_complex && i) ci.re += cr.im;
  return result(cr.re, ci.re);
}

// A negative float to a fractional power is complex in Python 3 (float_pow hands it to
// complex's pow); float.__pow__ calls this first. Null when the float rules apply.
Value float_pow_complex(Interp& I, double x, double y) {
  if (!(x < 0 && std::isfinite(x) && std::isfinite(y) && y != std::floor(y))) return nullptr;
  return power(I, C{x, 0.0}, C{y, 0.0});
}

void init_complex_type() {
  auto& c = T().complex;
  c->native_new = complex_new;
  def_arith(c);
  def_compare(c);
  def_unary(c);
}

}  // namespace shard::interp::bi
