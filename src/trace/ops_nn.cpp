// jax.nn's activations and normalisations, composed from primitives once. Where JAX gives
// a function a custom derivative at a kink (relu at 0), the composition picks the branch
// with that derivative: a select gives the untaken side a zero tangent.
#include <cmath>
#include <numbers>

#include "trace/ops.hpp"

namespace shard::trace {

namespace {
ValueId f(Trace& t, ValueId x) { return convert(t, x, to_inexact({t.type(x).dtype(), t.type(x).weak_type()})); }
ValueId c(Trace& t, double v, ValueId like) { return scalar_constant(t, v, {t.type(like).dtype(), true}); }
ValueId un(Trace& t, EwOp op, ValueId x) { return unary(t, ir::ew_info(op).primitive, op, x); }
ValueId bin(Trace& t, EwOp op, ValueId a, ValueId b) { return binary(t, ir::ew_info(op).primitive, op, a, b); }

// x inside (lo, hi), lo below it and hi above it: relu6 and hard_tanh, whose derivative is
// 0 at the kinks, as JAX's.
ValueId clamp_outside(Trace& t, ValueId x, double lo, double hi) {
  ValueId above_lo = bin(t, EwOp::Gt, x, c(t, lo, x));
  ValueId below_hi = bin(t, EwOp::Lt, x, c(t, hi, x));
  ValueId inside = bin(t, EwOp::And, above_lo, below_hi);
  ValueId at_or_above_hi = bin(t, EwOp::Ge, x, c(t, hi, x));
  ValueId hi_c = c(t, hi, x);
  ValueId lo_c = c(t, lo, x);
  return where(t, inside, x, where(t, at_or_above_hi, hi_c, lo_c));
}
}  // namespace

ValueId nn_relu(Trace& t, ValueId x) {
  ValueId pos = bin(t, EwOp::Gt, x, c(t, 0, x));
  return where(t, pos, x, c(t, 0, x));  // derivative 0 at 0, as JAX
}

ValueId nn_relu6(Trace& t, ValueId x) {
  return clamp_outside(t, x, 0, 6);
}

ValueId nn_sigmoid(Trace& t, ValueId x) { return un(t, EwOp::Logistic, f(t, x)); }

ValueId nn_softplus(Trace& t, ValueId x) {
  x = f(t, x);
  return bin(t, EwOp::LogAddExp, x, c(t, 0, x));
}

ValueId nn_log_sigmoid(Trace& t, ValueId x) { return un(t, EwOp::Neg, nn_softplus(t, un(t, EwOp::Neg, f(t, x)))); }

ValueId nn_soft_sign(Trace& t, ValueId x) {
  x = f(t, x);
  ValueId ax = un(t, EwOp::Abs, x);
  return bin(t, EwOp::Div, x, bin(t, EwOp::Add, ax, c(t, 1, x)));
}

ValueId nn_silu(Trace& t, ValueId x) {
  x = f(t, x);
  return bin(t, EwOp::Mul, x, un(t, EwOp::Logistic, x));
}

ValueId nn_gelu(Trace& t, ValueId x, bool approximate) {
  x = f(t, x);
  ValueId inner;
  if (approximate) {  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    ValueId cube = integer_pow(t, x, 3);
    ValueId k = c(t, std::sqrt(2 / std::numbers::pi), x);
    ValueId cubic = bin(t, EwOp::Mul, c(t, 0.044715, x), cube);
    ValueId arg = bin(t, EwOp::Mul, k, bin(t, EwOp::Add, x, cubic));
    inner = un(t, EwOp::Tanh, arg);
  } else {  // 0.5 x (1 + erf(x / sqrt(2)))
    inner = un(t, EwOp::Erf, bin(t, EwOp::Mul, x, c(t, 1 / std::numbers::sqrt2, x)));
  }
  ValueId half_x = bin(t, EwOp::Mul, c(t, 0.5, x), x);
  ValueId one_plus = bin(t, EwOp::Add, c(t, 1, x), inner);
  return bin(t, EwOp::Mul, half_x, one_plus);
}

ValueId nn_elu(Trace& t, ValueId x, double alpha) {
  x = f(t, x);
  ValueId pos = bin(t, EwOp::Gt, x, c(t, 0, x));
  ValueId safe = where(t, pos, c(t, 0, x), x);  // expm1 of large x would overflow in the untaken branch
  ValueId a = c(t, alpha, x);
  return where(t, pos, x, bin(t, EwOp::Mul, a, un(t, EwOp::Expm1, safe)));
}

ValueId nn_celu(Trace& t, ValueId x, double alpha) {
  x = f(t, x);
  ValueId pos = bin(t, EwOp::Gt, x, c(t, 0, x));
  ValueId safe = where(t, pos, c(t, 0, x), x);
  ValueId a = c(t, alpha, x);
  ValueId e = un(t, EwOp::Expm1, bin(t, EwOp::Div, safe, c(t, alpha, x)));
  return where(t, pos, x, bin(t, EwOp::Mul, a, e));
}

ValueId nn_selu(Trace& t, ValueId x) {
  const double alpha = 1.6732632423543772848170429916717, scale = 1.0507009873554804934193349852946;
  ValueId e = nn_elu(t, x, alpha);
  return bin(t, EwOp::Mul, c(t, scale, e), e);
}

ValueId nn_leaky_relu(Trace& t, ValueId x, double negative_slope) {
  x = f(t, x);
  ValueId pos = bin(t, EwOp::Ge, x, c(t, 0, x));
  ValueId scaled = bin(t, EwOp::Mul, c(t, negative_slope, x), x);
  return where(t, pos, x, scaled);
}

ValueId nn_hard_tanh(Trace& t, ValueId x) {
  x = f(t, x);
  return clamp_outside(t, x, -1, 1);
}

// exp(x - max) / sum(exp(x - max)); the max only shifts, so it carries no derivative (as JAX).
ValueId nn_softmax(Trace& t, ValueId x, const std::vector<int64_t>& axes) {
  x = f(t, x);
  ValueId m = stop_gradient(t, reduce(t, "softmax", ReduceKind::Max, x, axes, true));
  ValueId e = un(t, EwOp::Exp, bin(t, EwOp::Sub, x, m));
  return bin(t, EwOp::Div, e, reduce(t, "softmax", ReduceKind::Sum, e, axes, true));
}

ValueId nn_log_softmax(Trace& t, ValueId x, const std::vector<int64_t>& axes) {
  x = f(t, x);
  ValueId shifted = bin(t, EwOp::Sub, x, stop_gradient(t, reduce(t, "log_softmax", ReduceKind::Max, x, axes, true)));
  ValueId lse = un(t, EwOp::Log, reduce(t, "log_softmax", ReduceKind::Sum, un(t, EwOp::Exp, shifted), axes, true));
  return bin(t, EwOp::Sub, shifted, lse);
}

// (x - mean) / sqrt(variance + epsilon) over `axes`.
ValueId nn_standardize(Trace& t, ValueId x, const std::vector<int64_t>& axes, double epsilon) {
  x = f(t, x);
  ValueId m = mean(t, x, axes, true);
  ValueId centered = bin(t, EwOp::Sub, x, m);
  ValueId v = mean(t, bin(t, EwOp::Mul, centered, centered), axes, true);
  return bin(t, EwOp::Mul, centered, un(t, EwOp::Rsqrt, bin(t, EwOp::Add, v, c(t, epsilon, x))));
}

// x[..., None] == arange(num_classes) at `axis`, as `dtype`.
ValueId nn_one_hot(Trace& t, ValueId x, int64_t num_classes, DTypeW dtype, int64_t axis) {
  const auto xt = t.type(x);
  const auto out_rank = xt.rank() + 1;
  const int64_t ax = normalize_axis("one_hot", axis, out_rank);
  Shape shape = xt.shape();
  shape.insert(shape.begin() + ax, num_classes);
  std::vector<int64_t> dims;
  for (size_t d = 0; d < out_rank; ++d)
    if (static_cast<int64_t>(d) != ax) dims.push_back(static_cast<int64_t>(d));
  ValueId xb = broadcast_in_dim(t, x, shape, dims);
  ValueId classes = iota(t, xt.dtype() == DType::Bool ? DType::I32 : xt.dtype(), shape, ax, std::nullopt);
  return convert(t, bin(t, EwOp::Eq, xb, classes), dtype);
}

}  // namespace shard::trace
