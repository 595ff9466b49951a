// jnp functions without a primitive of their own, composed from primitives. Defined once
// here; jax.numpy and numpy bind them by name (the numpy binding first casts to numpy's
// dtypes, so the same composition serves both).
#include <cmath>

#include "trace/ops.hpp"
#include "trace/ops_random.hpp"  // bitcast_convert

namespace shard::trace {

namespace {

DTypeW dtw(Trace& t, ValueId x) { return {t.type(x).dtype(), t.type(x).weak_type()}; }
// A weak constant of x's floating dtype.
ValueId cst(Trace& t, double v, ValueId like) { return scalar_constant(t, v, {to_inexact(dtw(t, like)).dtype, true}); }
ValueId to_float(Trace& t, ValueId x) { return convert(t, x, to_inexact(dtw(t, x))); }
bool is_exact(Trace& t, ValueId x) { return !types::is_inexact(t.type(x).dtype()); }
ValueId to_bool(Trace& t, ValueId x) { return convert(t, x, {DType::Bool, false}); }

ValueId un(Trace& t, EwOp op, ValueId x) { return unary(t, ir::ew_info(op).primitive, op, x); }
ValueId bin(Trace& t, EwOp op, ValueId x, ValueId y) { return binary(t, ir::ew_info(op).primitive, op, x, y); }
bool is_complex_value(Trace& t, ValueId x) { return types::is_complex(t.type(x).dtype()); }
// JAX's error for a function defined on real values only, when x is complex.
void real_only(Trace& t, ValueId x, const char* py_type, const char* message) {
  if (is_complex_value(t, x)) throw types::ShardingError(py_type, message);
}
ValueId scaled(Trace& t, ValueId x, double factor) {
  x = to_float(t, x);
  return bin(t, EwOp::Mul, x, cst(t, factor, x));
}

// asin(x) = atan2(x, sqrt(1 - x^2)), acos(x) = atan2(sqrt(1 - x^2), x).
ValueId sqrt_one_minus_sq(Trace& t, ValueId x) {
  ValueId one = cst(t, 1, x);
  ValueId sq = bin(t, EwOp::Mul, x, x);
  return un(t, EwOp::Sqrt, bin(t, EwOp::Sub, one, sq));
}

// Rounds toward zero; integers are already whole.
ValueId trunc(Trace& t, ValueId x) {
  if (is_exact(t, x)) return x;
  ValueId neg = bin(t, EwOp::Lt, x, cst(t, 0, x));
  ValueId up = un(t, EwOp::Ceil, x);
  ValueId down = un(t, EwOp::Floor, x);
  return where(t, neg, up, down);
}

ValueId identity(Trace&, ValueId x) { return x; }

// log(x) / ln(base), x floating.
ValueId log_base(Trace& t, ValueId x, double ln_base) {
  x = to_float(t, x);
  ValueId log_x = un(t, EwOp::Log, x);
  return bin(t, EwOp::Div, log_x, cst(t, ln_base, x));
}

// logical_and / or / xor: both operands as bool.
ValueId logical(Trace& t, EwOp op, ValueId x, ValueId y) {
  ValueId xb = to_bool(t, x);
  ValueId yb = to_bool(t, y);
  return bin(t, op, xb, yb);
}

ValueId both_nan(Trace& t, ValueId a, ValueId b) {
  ValueId a_nan = un(t, EwOp::IsNan, a);
  ValueId b_nan = un(t, EwOp::IsNan, b);
  return bin(t, EwOp::And, a_nan, b_nan);
}

// x == +inf (sign 1) or -inf (sign -1); integers are never infinite.
ValueId infinity_test(Trace& t, ValueId x, int sign) {
  if (is_exact(t, x)) return full(t, t.type(x).shape(), 0, {DType::Bool, false}, std::nullopt);
  return bin(t, EwOp::Eq, x, cst(t, sign * INFINITY, x));
}

}  // namespace

const std::vector<UnaryComposite>& unary_composites() {
  static const std::vector<UnaryComposite> table = {
      {"fabs", [](Trace& t, ValueId x) { real_only(t, x, "TypeError", "ufunc 'fabs' does not support complex dtypes"); return un(t, EwOp::Abs, to_float(t, x)); }},
      {"positive", identity},
      {"conj", conj},
      {"conjugate", conj},
      {"real", real},
      {"fix", trunc},
      {"trunc", trunc},
      {"logical_not", [](Trace& t, ValueId x) { return un(t, EwOp::Not, to_bool(t, x)); }},
      {"exp2", [](Trace& t, ValueId x) { return un(t, EwOp::Exp, scaled(t, x, M_LN2)); }},
      {"log2", [](Trace& t, ValueId x) { return log_base(t, x, M_LN2); }},
      {"log10", [](Trace& t, ValueId x) { return log_base(t, x, M_LN10); }},
      {"arcsin", [](Trace& t, ValueId x) { if (is_complex_value(t, x)) return complex_inverse(t, "arcsin", x); x = to_float(t, x); return bin(t, EwOp::Atan2, x, sqrt_one_minus_sq(t, x)); }},
      {"arccos", [](Trace& t, ValueId x) { if (is_complex_value(t, x)) return complex_inverse(t, "arccos", x); x = to_float(t, x); return bin(t, EwOp::Atan2, sqrt_one_minus_sq(t, x), x); }},
      {"arctan", [](Trace& t, ValueId x) { if (is_complex_value(t, x)) return complex_inverse(t, "arctan", x); x = to_float(t, x); return bin(t, EwOp::Atan2, x, cst(t, 1, x)); }},
      // Inverse hyperbolics through log1p, so they keep their digits near zero.
      {"arcsinh", [](Trace& t, ValueId x) {
         if (is_complex_value(t, x)) return complex_inverse(t, "arcsinh", x);
         x = to_float(t, x);
         ValueId ax = un(t, EwOp::Abs, x), sq = bin(t, EwOp::Mul, x, x);
         ValueId root = un(t, EwOp::Sqrt, bin(t, EwOp::Add, cst(t, 1, x), sq));
         ValueId r = un(t, EwOp::Log1p, bin(t, EwOp::Add, ax, bin(t, EwOp::Div, sq, bin(t, EwOp::Add, cst(t, 1, x), root))));
         return bin(t, EwOp::Mul, un(t, EwOp::Sign, x), r);
       }},
      {"arccosh", [](Trace& t, ValueId x) {
         if (is_complex_value(t, x)) return complex_inverse(t, "arccosh", x);
         x = to_float(t, x);
         ValueId below = un(t, EwOp::Sqrt, bin(t, EwOp::Sub, x, cst(t, 1, x)));
         ValueId above = un(t, EwOp::Sqrt, bin(t, EwOp::Add, x, cst(t, 1, x)));
         ValueId root = bin(t, EwOp::Mul, below, above);
         return un(t, EwOp::Log, bin(t, EwOp::Add, x, root));
       }},
      {"arctanh", [](Trace& t, ValueId x) {
         if (is_complex_value(t, x)) return complex_inverse(t, "arctanh", x);
         x = to_float(t, x);
         ValueId twice = bin(t, EwOp::Mul, cst(t, 2, x), x);
         ValueId one_minus = bin(t, EwOp::Sub, cst(t, 1, x), x);
         ValueId q = bin(t, EwOp::Div, twice, one_minus);
         ValueId half = cst(t, 0.5, x);
         return bin(t, EwOp::Mul, half, un(t, EwOp::Log1p, q));
       }},
      {"deg2rad", [](Trace& t, ValueId x) { return scaled(t, x, M_PI / 180); }},
      {"radians", [](Trace& t, ValueId x) { return scaled(t, x, M_PI / 180); }},
      {"rad2deg", [](Trace& t, ValueId x) { return scaled(t, x, 180 / M_PI); }},
      {"degrees", [](Trace& t, ValueId x) { return scaled(t, x, 180 / M_PI); }},
      {"signbit", [](Trace& t, ValueId x) {
         real_only(t, x, "ValueError", "jnp.signbit is not well defined for complex-valued inputs.");
         const DType d = t.type(x).dtype();
         if (d == DType::Bool) return full(t, t.type(x).shape(), 0, {DType::Bool, false}, std::nullopt);
         if (!types::is_float(d)) return bin(t, EwOp::Lt, x, scalar_constant(t, 0, {DType::I32, true}));
         // The sign bit itself, as JAX reads it: set for -0.0 and negative NaNs too, which
         // x < 0 misses. 32/64-bit floats read as signed ints of their width; 16-bit ones as
         // uint16 (shard has no int16) at or above 0x8000.
         if (d == DType::F32 || d == DType::F64) {
           const DType as_int = d == DType::F32 ? DType::I32 : DType::I64;
           ValueId bits = bitcast_convert(t, x, as_int);
           return bin(t, EwOp::Lt, bits, scalar_constant(t, 0, {as_int, false}));
         }
         ValueId bits = bitcast_convert(t, x, DType::U16);
         return bin(t, EwOp::Ge, bits, scalar_constant(t, 0x8000, {DType::U16, false}));
       }},
      {"copy", identity},  // values are immutable: the same value is a copy
      {"isposinf", [](Trace& t, ValueId x) { return infinity_test(t, x, 1); }},
      {"isneginf", [](Trace& t, ValueId x) { return infinity_test(t, x, -1); }},
      // isreal / iscomplex test the imaginary part (zero for real arrays).
      {"imag", imag},
      {"isreal", [](Trace& t, ValueId x) { return bin(t, EwOp::Eq, imag(t, x), cst(t, 0, imag(t, x))); }},
      {"iscomplex", [](Trace& t, ValueId x) { return bin(t, EwOp::Ne, imag(t, x), cst(t, 0, imag(t, x))); }},
      {"sinc", [](Trace& t, ValueId x) {  // sin(pi x) / (pi x), 1 at 0
         ValueId px = scaled(t, x, M_PI);
         ValueId at_zero = bin(t, EwOp::Eq, px, cst(t, 0, px));
         ValueId one = cst(t, 1, px);
         ValueId ratio = bin(t, EwOp::Div, un(t, EwOp::Sin, px), px);
         return where(t, at_zero, one, ratio);
       }},
  };
  return table;
}

const std::vector<BinaryComposite>& binary_composites() {
  static const std::vector<BinaryComposite> table = {
      {"float_power", [](Trace& t, ValueId x, ValueId y) { return bin(t, EwOp::Pow, to_float(t, x), y); }},
      {"logical_and", [](Trace& t, ValueId x, ValueId y) { return logical(t, EwOp::And, x, y); }},
      {"logical_or", [](Trace& t, ValueId x, ValueId y) { return logical(t, EwOp::Or, x, y); }},
      {"logical_xor", [](Trace& t, ValueId x, ValueId y) { return logical(t, EwOp::Xor, x, y); }},
      {"hypot", [](Trace& t, ValueId x, ValueId y) {
         for (ValueId v : {x, y})
           real_only(t, v, "ValueError", "jnp.hypot is not well defined for complex-valued inputs. Consider jnp.abs.");
         x = to_float(t, x);
         y = to_float(t, y);
         ValueId xx = bin(t, EwOp::Mul, x, x);
         ValueId yy = bin(t, EwOp::Mul, y, y);
         return un(t, EwOp::Sqrt, bin(t, EwOp::Add, xx, yy));
       }},
      {"logaddexp2", [](Trace& t, ValueId x, ValueId y) {  // log2(2**x + 2**y) through the natural-log primitive
         ValueId xs = scaled(t, x, M_LN2);
         ValueId ys = scaled(t, y, M_LN2);
         ValueId l = bin(t, EwOp::LogAddExp, xs, ys);
         return bin(t, EwOp::Div, l, cst(t, M_LN2, l));
       }},
      {"heaviside", [](Trace& t, ValueId x, ValueId h0) {  // 0 below zero, 1 above, h0 at zero
         for (ValueId v : {x, h0}) real_only(t, v, "TypeError", "heaviside does not accept dtype complex64.");
         DTypeW p = to_inexact(promote(dtw(t, x), dtw(t, h0)));
         x = convert(t, x, p);
         h0 = convert(t, h0, p);
         ValueId zero = scalar_constant(t, 0, {p.dtype, true}), one = scalar_constant(t, 1, {p.dtype, true});
         ValueId below = bin(t, EwOp::Lt, x, zero);
         ValueId above = bin(t, EwOp::Gt, x, zero);
         return where(t, below, zero, where(t, above, one, h0));
       }},
      {"copysign", [](Trace& t, ValueId x, ValueId y) {
         for (ValueId v : {x, y}) real_only(t, v, "TypeError", "copysign does not support complex-valued inputs");
         ValueId ax = un(t, EwOp::Abs, to_float(t, x));
         ValueId neg = bin(t, EwOp::Lt, y, scalar_constant(t, 0, {DType::I32, true}));
         return where(t, neg, un(t, EwOp::Neg, ax), ax);
       }},
  };
  return table;
}

ValueId isclose(Trace& t, ValueId a, ValueId b, double rtol, double atol, bool equal_nan) {
  DTypeW p = promote(dtw(t, a), dtw(t, b));
  if (!types::is_inexact(p.dtype)) return bin(t, EwOp::Eq, a, b);
  a = convert(t, a, p);
  b = convert(t, b, p);
  ValueId diff = un(t, EwOp::Abs, bin(t, EwOp::Sub, a, b));  // real for complex operands
  const DType rd = types::is_complex(p.dtype) ? types::complex_part_dtype(p.dtype) : p.dtype;
  ValueId atol_c = scalar_constant(t, atol, {rd, true});
  ValueId rtol_c = scalar_constant(t, rtol, {rd, true});
  ValueId tol = bin(t, EwOp::Add, atol_c, bin(t, EwOp::Mul, rtol_c, un(t, EwOp::Abs, b)));
  ValueId out = bin(t, EwOp::Le, diff, tol);
  // Infinities are close only to themselves.
  ValueId a_inf = un(t, EwOp::IsInf, a);
  ValueId b_inf = un(t, EwOp::IsInf, b);
  ValueId any_inf = bin(t, EwOp::Or, a_inf, b_inf);
  out = where(t, any_inf, bin(t, EwOp::Eq, a, b), out);
  if (equal_nan) out = bin(t, EwOp::Or, out, both_nan(t, a, b));
  return out;
}

ValueId array_equal(Trace& t, ValueId a, ValueId b, bool equal_nan) {
  ValueId eq = bin(t, EwOp::Eq, a, b);
  if (equal_nan && !is_exact(t, a) && !is_exact(t, b))
    eq = bin(t, EwOp::Or, eq, both_nan(t, a, b));
  return reduce(t, "array_equal", ReduceKind::And, eq, {}, false);
}

ValueId logsumexp(Trace& t, ValueId x, std::vector<int64_t> axes, bool keepdims, std::optional<ValueId> b) {
  x = to_float(t, x);
  if (b) x = broadcast_to(t, x, broadcast_shapes("logsumexp", {t.type(x).shape(), t.type(*b).shape()}));
  const size_t rank = t.type(x).rank();
  if (axes.empty())
    for (size_t d = 0; d < rank; ++d) axes.push_back(static_cast<int64_t>(d));
  for (auto& a : axes) a = normalize_axis("logsumexp", a, rank);
  ValueId m = reduce(t, "logsumexp", ReduceKind::Max, x, axes, /*keepdims=*/true);
  // An all -inf (or inf) slice: subtract 0 instead, so the sum gives exp(-inf) = 0 -> -inf.
  ValueId finite = un(t, EwOp::IsFinite, m);
  m = where(t, finite, m, cst(t, 0, m));
  ValueId e = un(t, EwOp::Exp, bin(t, EwOp::Sub, x, m));
  if (b) e = bin(t, EwOp::Mul, e, *b);
  ValueId out = bin(t, EwOp::Add, un(t, EwOp::Log, reduce(t, "logsumexp", ReduceKind::Sum, e, axes, /*keepdims=*/true)), m);
  return keepdims ? out : squeeze(t, out, axes);
}

namespace {
ValueId x_times(Trace& t, ValueId x, ValueId y, EwOp log_op) {
  DTypeW p = to_inexact(promote(dtw(t, x), dtw(t, y)));
  x = convert(t, x, p);
  y = convert(t, y, p);
  ValueId zero = scalar_constant(t, 0, {p.dtype, true});
  ValueId x_zero = bin(t, EwOp::Eq, x, zero);
  ValueId product = bin(t, EwOp::Mul, x, un(t, log_op, y));
  return where(t, x_zero, zero, product);
}
}  // namespace

ValueId xlogy(Trace& t, ValueId x, ValueId y) { return x_times(t, x, y, EwOp::Log); }
ValueId xlog1py(Trace& t, ValueId x, ValueId y) { return x_times(t, x, y, EwOp::Log1p); }

// ---- jax.scipy.special: the gamma family and the normal distribution ----------------------
// Composed as JAX composes them (jax/_src/scipy/special.py), ops emitted in the order of its
// Python (one op-emitting argument per call). Constants written there as numpy scalars of x's
// dtype (typ(1.0), dtype(0.5)) are strong here too: gammasgn(2.5) is float32, not weak.

namespace {
ValueId strong(Trace& t, double v, ValueId like) { return scalar_constant(t, v, {t.type(like).dtype(), false}); }
ValueId lgamma(Trace& t, ValueId x) { return un(t, EwOp::Lgamma, x); }
std::pair<ValueId, ValueId> promote_inexact(Trace& t, ValueId a, ValueId b) {
  DTypeW p = to_inexact(promote(dtw(t, a), dtw(t, b)));
  ValueId ac = convert(t, a, p);
  return {ac, convert(t, b, p)};
}
// Binary ops on values already computed, and on a value and a constant made just before.
struct Ops {
  Trace& t;
  ValueId operator()(EwOp op, ValueId a, ValueId b) const { return bin(t, op, a, b); }
  ValueId operator()(EwOp op, ValueId a, double k) const { return bin(t, op, a, cst(t, k, a)); }
  ValueId operator()(EwOp op, double k, ValueId b) const {
    ValueId kc = cst(t, k, b);
    return bin(t, op, kc, b);
  }
};
}  // namespace

ValueId gammaln(Trace& t, ValueId x) { return lgamma(t, to_float(t, x)); }
ValueId digamma(Trace& t, ValueId x) { return un(t, EwOp::Digamma, to_float(t, x)); }

ValueId polygamma(Trace& t, ValueId n, ValueId x) {
  auto [m, y] = promote_inexact(t, n, x);
  return bin(t, EwOp::Polygamma, m, y);
}

// The sign of Gamma(x): NaN at the poles (and for NaN), -1 where floor(x) is odd and
// negative and at -0.0, else 1.
ValueId gammasgn(Trace& t, ValueId x) {
  const Ops o{t};
  x = to_float(t, x);
  ValueId floor_x = un(t, EwOp::Floor, x);
  ValueId negative = o(EwOp::Lt, x, 0.0);
  ValueId pole = o(EwOp::And, negative, o(EwOp::Eq, x, floor_x));
  pole = o(EwOp::Or, pole, un(t, EwOp::IsNan, x));
  ValueId odd = o(EwOp::Ne, o(EwOp::Mod, floor_x, 2.0), 0.0);
  ValueId minus = o(EwOp::And, negative, odd);
  // x == 0 with its sign bit set: 1 / -0.0 is -inf.
  ValueId zero = o(EwOp::Eq, x, 0.0);
  ValueId negative_zero = o(EwOp::And, zero, o(EwOp::Lt, o(EwOp::Div, 1.0, x), 0.0));
  minus = o(EwOp::Or, minus, negative_zero);
  ValueId nan = strong(t, NAN, x);
  ValueId minus_one = strong(t, -1, x);
  ValueId sign = where(t, minus, minus_one, strong(t, 1, x));
  return where(t, pole, nan, sign);
}

ValueId gamma(Trace& t, ValueId x) {
  x = to_float(t, x);
  ValueId sign = gammasgn(t, x);
  return bin(t, EwOp::Mul, sign, un(t, EwOp::Exp, lgamma(t, x)));
}

namespace {
// log(Gamma(b) / Gamma(a + b)) for 8 <= b, a <= b: cdflib's algdiv (Didonato and Morris), the
// Stirling remainders of b and a + b subtracted in one series, as JAX's betaln uses it.
ValueId algdiv(Trace& t, ValueId a, ValueId b) {
  const Ops o{t};
  const double c[6] = {0.833333333333333e-01, -0.277777777760991e-02, 0.793650666825390e-03,
                       -0.595202931351870e-03, 0.837308034031215e-03, -0.165322962780713e-02};
  ValueId h = o(EwOp::Div, a, b);
  ValueId x = o(EwOp::Div, h, o(EwOp::Add, 1.0, h));  // also algdiv's c
  ValueId d = o(EwOp::Add, b, o(EwOp::Sub, a, 0.5));
  ValueId x2 = o(EwOp::Mul, x, x);
  // s_n = (1 - x^n) / (1 - x) for n = 3, 5, ..., 11.
  ValueId s3 = o(EwOp::Add, 1.0, o(EwOp::Add, x, x2));
  ValueId s5 = o(EwOp::Add, 1.0, o(EwOp::Add, x, o(EwOp::Mul, x2, s3)));
  ValueId s7 = o(EwOp::Add, 1.0, o(EwOp::Add, x, o(EwOp::Mul, x2, s5)));
  ValueId s9 = o(EwOp::Add, 1.0, o(EwOp::Add, x, o(EwOp::Mul, x2, s7)));
  ValueId s11 = o(EwOp::Add, 1.0, o(EwOp::Add, x, o(EwOp::Mul, x2, s9)));
  ValueId inv_b = o(EwOp::Div, 1.0, b);
  ValueId t2 = o(EwOp::Mul, inv_b, inv_b);
  ValueId w = o(EwOp::Mul, o(EwOp::Mul, c[5], s11), t2);
  w = o(EwOp::Add, w, o(EwOp::Mul, c[4], s9));
  const ValueId* s[] = {&s7, &s5, &s3};
  for (int i = 0; i < 3; ++i) {
    w = o(EwOp::Mul, w, t2);
    w = o(EwOp::Add, w, o(EwOp::Mul, c[3 - i], *s[i]));
  }
  w = o(EwOp::Add, o(EwOp::Mul, w, t2), c[0]);
  w = o(EwOp::Mul, w, o(EwOp::Div, x, b));
  ValueId u = o(EwOp::Mul, d, un(t, EwOp::Log1p, o(EwOp::Div, a, b)));
  ValueId v = o(EwOp::Mul, a, o(EwOp::Sub, un(t, EwOp::Log, b), 1.0));
  ValueId u_first = o(EwOp::Le, u, v);
  ValueId if_first = o(EwOp::Sub, o(EwOp::Sub, w, v), u);
  ValueId otherwise = o(EwOp::Sub, o(EwOp::Sub, w, u), v);
  return where(t, u_first, if_first, otherwise);
}
}  // namespace

// log|B(a, b)|: lgamma(a) + lgamma(b) - lgamma(a + b) for b < 8 (a <= b), else lgamma(a) plus
// algdiv, which keeps its digits for large b.
ValueId betaln(Trace& t, ValueId a, ValueId b) {
  const Ops o{t};
  auto [x, y] = promote_inexact(t, a, b);
  ValueId lo = o(EwOp::Min, x, y);
  ValueId hi = o(EwOp::Max, x, y);
  ValueId lgamma_lo = lgamma(t, lo);
  ValueId lgamma_hi = lgamma(t, hi);
  ValueId rest = o(EwOp::Sub, lgamma_hi, lgamma(t, o(EwOp::Add, lo, hi)));
  ValueId small_b = o(EwOp::Add, lgamma_lo, rest);
  ValueId lgamma_lo_again = lgamma(t, lo);  // JAX evaluates it twice
  ValueId large_b = o(EwOp::Add, lgamma_lo_again, algdiv(t, lo, hi));
  return where(t, o(EwOp::Lt, hi, 8.0), small_b, large_b);
}

ValueId beta(Trace& t, ValueId a, ValueId b) {
  const Ops o{t};
  auto [x, y] = promote_inexact(t, a, b);
  ValueId sign = gammasgn(t, x);
  sign = o(EwOp::Mul, sign, gammasgn(t, y));
  sign = o(EwOp::Mul, sign, gammasgn(t, o(EwOp::Add, x, y)));
  return o(EwOp::Mul, sign, un(t, EwOp::Exp, betaln(t, x, y)));
}

// n! = Gamma(n + 1) through lgamma, 0 for negative n (scipy's exact=False).
ValueId factorial(Trace& t, ValueId n) {
  const Ops o{t};
  n = to_float(t, n);
  ValueId negative = o(EwOp::Lt, n, 0.0);
  ValueId zero = scalar_constant(t, 0, {DType::I32, true});
  return where(t, negative, zero, un(t, EwOp::Exp, lgamma(t, o(EwOp::Add, n, 1.0))));
}

// log Gamma_d(a) = d(d-1)/4 log(pi) + sum_{i<d} lgamma(a - i/2), the sum over a new last axis.
ValueId multigammaln(Trace& t, ValueId a, int64_t d) {
  ValueId d_ = scalar_constant(t, static_cast<double>(d), {DType::I32, true});
  DTypeW p = to_inexact(promote(dtw(t, a), dtw(t, d_)));
  a = convert(t, a, p);
  d_ = convert(t, d_, p);
  ValueId quarter = strong(t, 0.25, a);
  ValueId constant = bin(t, EwOp::Mul, quarter, d_);
  constant = bin(t, EwOp::Mul, constant, bin(t, EwOp::Sub, d_, strong(t, 1, a)));
  constant = bin(t, EwOp::Mul, constant, un(t, EwOp::Log, strong(t, M_PI, a)));
  ValueId range = arange(t, 0, static_cast<double>(d), 1, {p.dtype, false}, std::nullopt);
  ValueId halves = bin(t, EwOp::Div, range, strong(t, 2, a));
  const int64_t rank = static_cast<int64_t>(t.type(a).rank());
  std::vector<int64_t> lead(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) lead[static_cast<size_t>(i)] = i;
  ValueId column = expand_dims(t, a, {rank});
  ValueId terms = lgamma(t, bin(t, EwOp::Sub, column, expand_dims(t, halves, lead)));
  ValueId sum = reduce(t, "multigammaln", ReduceKind::Sum, terms, {rank}, false);
  return bin(t, EwOp::Add, sum, constant);
}

// -x log x for x > 0, 0 at 0, -inf below.
ValueId entr(Trace& t, ValueId x) {
  x = to_float(t, x);
  ValueId negative = bin(t, EwOp::Lt, x, cst(t, 0, x));
  ValueId minus_inf = full(t, t.type(x).shape(), -INFINITY, dtw(t, x), std::nullopt);
  return where(t, negative, minus_inf, un(t, EwOp::Neg, xlogy(t, x, x)));
}

// The standard normal CDF: (1 + erf(x/sqrt 2)) / 2 near 0, erfc beyond (float32 / float64 x).
ValueId ndtr(Trace& t, ValueId x) {
  const double half_sqrt_2 = t.type(x).dtype() == DType::F32 ? static_cast<double>(0.5f * std::sqrt(2.0f)) : 0.5 * std::sqrt(2.0);
  ValueId w = bin(t, EwOp::Mul, x, strong(t, half_sqrt_2, x));
  ValueId z = un(t, EwOp::Abs, w);
  ValueId near = bin(t, EwOp::Lt, z, strong(t, half_sqrt_2, x));
  ValueId one = strong(t, 1, x);
  ValueId y_near = bin(t, EwOp::Add, one, un(t, EwOp::Erf, w));
  ValueId positive = bin(t, EwOp::Gt, w, strong(t, 0, x));
  ValueId two = strong(t, 2, x);
  ValueId y_right = bin(t, EwOp::Sub, two, un(t, EwOp::Erfc, z));
  ValueId y_far = where(t, positive, y_right, un(t, EwOp::Erfc, z));
  ValueId y = where(t, near, y_near, y_far);
  ValueId half = strong(t, 0.5, x);
  return bin(t, EwOp::Mul, half, y);
}

namespace {
// c[0] + v (c[1] + v (c[2] + ...)), the coefficients in ascending powers.
ValueId polynomial(Trace& t, ValueId v, std::initializer_list<double> ascending) {
  std::vector<double> c(ascending);
  ValueId acc = strong(t, c.back(), v);
  for (size_t i = c.size() - 1; i-- > 0;) {
    ValueId k = strong(t, c[i], v);
    acc = bin(t, EwOp::Add, k, bin(t, EwOp::Mul, acc, v));
  }
  return acc;
}
}  // namespace

// The inverse of ndtr: Cephes' ndtri (Moshier), three rational approximations: in w = p - 1/2
// for exp(-2) < p < 1 - exp(-2), else in 1/z with z = sqrt(-2 log p), split at z = 8.
ValueId ndtri(Trace& t, ValueId p) {
  auto k = [&](double v) { return strong(t, v, p); };
  auto op = [&](EwOp o, ValueId x, ValueId y) { return bin(t, o, x, y); };
  auto op_k = [&](EwOp o, ValueId x, double v) { return bin(t, o, x, k(v)); };
  auto k_op = [&](EwOp o, double v, ValueId y) {
    ValueId kv = k(v);
    return bin(t, o, kv, y);
  };
  ValueId upper = op_k(EwOp::Gt, p, -std::expm1(-2.0));
  ValueId complement = where(t, upper, k_op(EwOp::Sub, 1, p), p);
  // p == 0 gives -inf below; any value keeps the unused branches free of NaN meanwhile.
  ValueId is_zero = op_k(EwOp::Eq, complement, 0);
  ValueId q = where(t, is_zero, k(0.5), complement);
  ValueId w = op_k(EwOp::Sub, q, 0.5);
  ValueId ww = op(EwOp::Mul, w, w);
  ValueId p0 = polynomial(t, ww, {-1.23916583867381258016E0, 1.39312609387279679503E1, -5.66762857469070293439E1,
                                  9.80010754185999661536E1, -5.99633501014107895267E1});
  ValueId q0 = polynomial(t, ww, {-1.18331621121330003142E0, 1.59056225126211695515E1, -8.20372256168333339912E1,
                                  2.00260212380060660359E2, -2.25462687854119370527E2, 8.63602421390890590575E1,
                                  4.67627912898881538453E0, 1.95448858338141759834E0, 1.0});
  ValueId w3 = op(EwOp::Mul, w, ww);
  ValueId x_big = op(EwOp::Add, w, op(EwOp::Mul, w3, op(EwOp::Div, p0, q0)));
  x_big = op_k(EwOp::Mul, x_big, -std::sqrt(2 * M_PI));
  ValueId z = un(t, EwOp::Sqrt, k_op(EwOp::Mul, -2, un(t, EwOp::Log, q)));
  ValueId first = op(EwOp::Sub, z, op(EwOp::Div, un(t, EwOp::Log, z), z));
  ValueId inv_z = k_op(EwOp::Div, 1, z);
  ValueId p2 = polynomial(t, inv_z, {6.23974539184983293730E-9, 2.65806974686737550832E-6, 3.01581553508235416007E-4,
                                     1.23716634817820021358E-2, 2.01485389549179081538E-1, 1.33303460815807542389E0,
                                     3.93881025292474443415E0, 6.91522889068984211695E0, 3.23774891776946035970E0});
  ValueId q2 = polynomial(t, inv_z, {6.79019408009981274425E-9, 2.89247864745380683936E-6, 3.28014464682127739104E-4,
                                     1.34204006088543189037E-2, 2.16236993594496635890E-1, 1.37702099489081330271E0,
                                     3.67983563856160859403E0, 6.02427039364742014255E0, 1.0});
  ValueId tiny_term = op(EwOp::Div, op(EwOp::Div, p2, q2), z);
  ValueId p1 = polynomial(t, inv_z, {-8.57456785154685413611E-4, -3.50424626827848203418E-2, -1.40256079171354495875E-1,
                                     2.18663306850790267539E0, 1.46849561928858024014E1, 4.40805073893200834700E1,
                                     5.71628192246421288162E1, 3.15251094599893866154E1, 4.05544892305962419923E0});
  ValueId q1 = polynomial(t, inv_z, {-9.33259480895457427372E-4, -3.80806407691578277194E-2, -1.42182922854787788574E-1,
                                     2.50464946208309415979E0, 1.50425385692907503408E1, 4.13172038254672030440E1,
                                     4.53907635128879210584E1, 1.57799883256466749731E1, 1.0});
  ValueId small_term = op(EwOp::Div, op(EwOp::Div, p1, q1), z);
  ValueId x_tiny = op(EwOp::Sub, first, tiny_term);
  ValueId x_small = op(EwOp::Sub, first, small_term);
  ValueId big = op_k(EwOp::Gt, q, std::exp(-2.0));
  ValueId x = where(t, big, x_big, where(t, op_k(EwOp::Ge, z, 8), x_tiny, x_small));
  ValueId keep = op_k(EwOp::Gt, p, 1 - std::exp(-2.0));
  x = where(t, keep, x, un(t, EwOp::Neg, x));
  ValueId at_zero = op_k(EwOp::Eq, p, 0);
  ValueId minus_inf = k(-INFINITY);
  ValueId at_one = op_k(EwOp::Eq, p, 1);
  ValueId rest = where(t, at_one, k(INFINITY), x);
  return where(t, at_zero, minus_inf, rest);
}

// log(ndtr(x)): -ndtr(-x) above 5 (float32; 8 for float64), log(ndtr(x)) down to -10 (-20),
// below that the asymptotic series of the lower tail to `series_order` terms.
ValueId log_ndtr(Trace& t, ValueId x, int64_t series_order) {
  const bool f64 = t.type(x).dtype() == DType::F64;
  ValueId lower = strong(t, f64 ? -20 : -10, x);
  ValueId upper = strong(t, f64 ? 8 : 5, x);
  ValueId above = bin(t, EwOp::Gt, x, upper);
  ValueId upper_tail = un(t, EwOp::Neg, ndtr(t, un(t, EwOp::Neg, x)));
  ValueId inside = bin(t, EwOp::Gt, x, lower);
  ValueId middle = un(t, EwOp::Log, ndtr(t, bin(t, EwOp::Max, x, lower)));
  // The lower tail: log(phi(x) / -x) + log(1 + sum_n (-1)^n (2n-1)!! / x^2n).
  ValueId xl = bin(t, EwOp::Min, x, lower);
  ValueId x2 = bin(t, EwOp::Mul, xl, xl);
  ValueId minus_half = strong(t, -0.5, x);
  ValueId log_scale = bin(t, EwOp::Mul, minus_half, x2);
  log_scale = bin(t, EwOp::Sub, log_scale, un(t, EwOp::Log, un(t, EwOp::Neg, xl)));
  log_scale = bin(t, EwOp::Sub, log_scale, strong(t, 0.5 * std::log(2 * M_PI), x));
  ValueId series = strong(t, 1, x);
  if (series_order > 0) {
    ValueId even = full(t, t.type(x).shape(), 0, dtw(t, x), std::nullopt);
    ValueId odd = full(t, t.type(x).shape(), 0, dtw(t, x), std::nullopt);
    ValueId x_2n = x2;
    double double_factorial = 1;  // (2n - 1)!!
    for (int64_t n = 1; n <= series_order; ++n) {
      if (n > 1) double_factorial *= static_cast<double>(2 * n - 1);
      ValueId y = bin(t, EwOp::Div, strong(t, double_factorial, x), x_2n);
      if (n % 2) odd = bin(t, EwOp::Add, odd, y);
      else even = bin(t, EwOp::Add, even, y);
      x_2n = bin(t, EwOp::Mul, x_2n, x2);
    }
    series = bin(t, EwOp::Sub, bin(t, EwOp::Add, strong(t, 1, x), even), odd);
  }
  ValueId tail = bin(t, EwOp::Add, log_scale, un(t, EwOp::Log, series));
  return where(t, above, upper_tail, where(t, inside, middle, tail));
}

ValueId round_decimals(Trace& t, ValueId x, int64_t decimals) {
  // jnp.round of a complex value rounds each part
  if (types::is_complex(t.type(x).dtype()))
    return make_complex(t, round_decimals(t, real(t, x), decimals), round_decimals(t, imag(t, x), decimals));
  if (is_exact(t, x)) return x;
  if (decimals == 0) return un(t, EwOp::Round, x);
  ValueId f = cst(t, std::pow(10.0, static_cast<double>(decimals)), x);
  return bin(t, EwOp::Div, un(t, EwOp::Round, bin(t, EwOp::Mul, x, f)), f);
}

}  // namespace shard::trace
