// jnp functions without a primitive of their own, composed from primitives. Defined once
// here; jax.numpy and numpy bind them by name (the numpy binding first casts to numpy's
// dtypes, so the same composition serves both).
#include <cmath>

#include "trace/ops.hpp"

namespace shard::trace {

namespace {

DTypeW dtw(Trace& t, ValueId x) { return {t.type(x).dtype(), t.type(x).weak_type()}; }
// A weak constant of x's floating dtype.
ValueId cst(Trace& t, double v, ValueId like) { return scalar_constant(t, v, {to_inexact(dtw(t, like)).dtype, true}); }
ValueId to_float(Trace& t, ValueId x) { return convert(t, x, to_inexact(dtw(t, x))); }
bool is_exact(Trace& t, ValueId x) { return !types::is_float(t.type(x).dtype()); }
ValueId to_bool(Trace& t, ValueId x) { return convert(t, x, {DType::Bool, false}); }

ValueId un(Trace& t, EwOp op, ValueId x) { return unary(t, ir::ew_info(op).primitive, op, x); }
ValueId bin(Trace& t, EwOp op, ValueId x, ValueId y) { return binary(t, ir::ew_info(op).primitive, op, x, y); }
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
      {"fabs", [](Trace& t, ValueId x) { return un(t, EwOp::Abs, to_float(t, x)); }},
      {"positive", identity},
      {"conj", identity},
      {"conjugate", identity},
      {"real", identity},
      {"fix", trunc},
      {"trunc", trunc},
      {"logical_not", [](Trace& t, ValueId x) { return un(t, EwOp::Not, to_bool(t, x)); }},
      {"exp2", [](Trace& t, ValueId x) { return un(t, EwOp::Exp, scaled(t, x, M_LN2)); }},
      {"log2", [](Trace& t, ValueId x) { return log_base(t, x, M_LN2); }},
      {"log10", [](Trace& t, ValueId x) { return log_base(t, x, M_LN10); }},
      {"arcsin", [](Trace& t, ValueId x) { x = to_float(t, x); return bin(t, EwOp::Atan2, x, sqrt_one_minus_sq(t, x)); }},
      {"arccos", [](Trace& t, ValueId x) { x = to_float(t, x); return bin(t, EwOp::Atan2, sqrt_one_minus_sq(t, x), x); }},
      {"arctan", [](Trace& t, ValueId x) { x = to_float(t, x); return bin(t, EwOp::Atan2, x, cst(t, 1, x)); }},
      // Inverse hyperbolics through log1p, so they keep their digits near zero.
      {"arcsinh", [](Trace& t, ValueId x) {
         x = to_float(t, x);
         ValueId ax = un(t, EwOp::Abs, x), sq = bin(t, EwOp::Mul, x, x);
         ValueId root = un(t, EwOp::Sqrt, bin(t, EwOp::Add, cst(t, 1, x), sq));
         ValueId r = un(t, EwOp::Log1p, bin(t, EwOp::Add, ax, bin(t, EwOp::Div, sq, bin(t, EwOp::Add, cst(t, 1, x), root))));
         return bin(t, EwOp::Mul, un(t, EwOp::Sign, x), r);
       }},
      {"arccosh", [](Trace& t, ValueId x) {
         x = to_float(t, x);
         ValueId below = un(t, EwOp::Sqrt, bin(t, EwOp::Sub, x, cst(t, 1, x)));
         ValueId above = un(t, EwOp::Sqrt, bin(t, EwOp::Add, x, cst(t, 1, x)));
         ValueId root = bin(t, EwOp::Mul, below, above);
         return un(t, EwOp::Log, bin(t, EwOp::Add, x, root));
       }},
      {"arctanh", [](Trace& t, ValueId x) {
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
      {"signbit", [](Trace& t, ValueId x) { return bin(t, EwOp::Lt, x, scalar_constant(t, 0, {DType::I32, true})); }},
      {"copy", identity},  // values are immutable: the same value is a copy
      {"isposinf", [](Trace& t, ValueId x) { return infinity_test(t, x, 1); }},
      {"isneginf", [](Trace& t, ValueId x) { return infinity_test(t, x, -1); }},
      // Arrays here are real: imag is zero, isreal true, iscomplex false.
      {"imag", [](Trace& t, ValueId x) { return full(t, t.type(x).shape(), 0, dtw(t, x), std::nullopt); }},
      {"isreal", [](Trace& t, ValueId x) { return full(t, t.type(x).shape(), 1, {DType::Bool, false}, std::nullopt); }},
      {"iscomplex", [](Trace& t, ValueId x) { return full(t, t.type(x).shape(), 0, {DType::Bool, false}, std::nullopt); }},
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
         DTypeW p = to_inexact(promote(dtw(t, x), dtw(t, h0)));
         x = convert(t, x, p);
         h0 = convert(t, h0, p);
         ValueId zero = scalar_constant(t, 0, {p.dtype, true}), one = scalar_constant(t, 1, {p.dtype, true});
         ValueId below = bin(t, EwOp::Lt, x, zero);
         ValueId above = bin(t, EwOp::Gt, x, zero);
         return where(t, below, zero, where(t, above, one, h0));
       }},
      {"copysign", [](Trace& t, ValueId x, ValueId y) {
         ValueId ax = un(t, EwOp::Abs, to_float(t, x));
         ValueId neg = bin(t, EwOp::Lt, y, scalar_constant(t, 0, {DType::I32, true}));
         return where(t, neg, un(t, EwOp::Neg, ax), ax);
       }},
  };
  return table;
}

ValueId isclose(Trace& t, ValueId a, ValueId b, double rtol, double atol, bool equal_nan) {
  DTypeW p = promote(dtw(t, a), dtw(t, b));
  if (!types::is_float(p.dtype)) return bin(t, EwOp::Eq, a, b);
  a = convert(t, a, p);
  b = convert(t, b, p);
  ValueId diff = un(t, EwOp::Abs, bin(t, EwOp::Sub, a, b));
  ValueId atol_c = scalar_constant(t, atol, {p.dtype, true});
  ValueId rtol_c = scalar_constant(t, rtol, {p.dtype, true});
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

ValueId round_decimals(Trace& t, ValueId x, int64_t decimals) {
  if (is_exact(t, x)) return x;
  if (decimals == 0) return un(t, EwOp::Round, x);
  ValueId f = cst(t, std::pow(10.0, static_cast<double>(decimals)), x);
  return bin(t, EwOp::Div, un(t, EwOp::Round, bin(t, EwOp::Mul, x, f)), f);
}

}  // namespace shard::trace
