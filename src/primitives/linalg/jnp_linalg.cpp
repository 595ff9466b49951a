// jax.numpy.linalg's functions that are not primitives, composed as jnp composes them: solve,
// inv, det and slogdet from lu and triangular_solve, pinv from svd, matrix_power from
// products. Their derivatives follow from the primitives' rules.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "primitives/linalg/linalg.hpp"
#include "trace/ops.hpp"

namespace shard::trace {

namespace {
ValueId ew(Trace& t, EwOp op, const char* name, ValueId a, ValueId b) { return binary(t, name, op, a, b); }
ValueId constant_like(Trace& t, double v, ValueId like) { return scalar_constant(t, v, {t.type(like).dtype(), true}); }

// The sign (+1 / -1) of the permutation the pivots describe: each pivot that is not its own
// row is one swap.
ValueId pivot_sign(Trace& t, ValueId pivots, DType dtype) {
  const auto pt = t.type(pivots);
  ValueId rows = iota(t, DType::I32, pt.shape(), static_cast<int64_t>(pt.rank()) - 1, std::nullopt);
  ValueId swapped = convert(t, ew(t, EwOp::Ne, "ne", pivots, rows), {DType::I32, false});
  ValueId swaps = reduce(t, "det", ReduceKind::Sum, swapped, {static_cast<int64_t>(pt.rank()) - 1}, false);
  ValueId odd = convert(t, ew(t, EwOp::Rem, "rem", swaps, scalar_constant(t, 2, {DType::I32, true})), {dtype, false});
  // 1 - 2 * odd
  ValueId one = scalar_constant(t, 1, {dtype, true});
  ValueId twice_odd = ew(t, EwOp::Mul, "mul", scalar_constant(t, 2, {dtype, true}), odd);
  return ew(t, EwOp::Sub, "sub", one, twice_odd);
}
}  // namespace

ValueId symmetrize(Trace& t, ValueId a) {
  ValueId sum = ew(t, EwOp::Add, "add", a, linalg::mT(t, a));
  return ew(t, EwOp::Div, "div", sum, constant_like(t, 2, a));
}

ValueId solve(Trace& t, ValueId a, ValueId b) {
  const auto at = t.type(a), bt = t.type(b);
  if (at.rank() < 2)
    throw types::ShardingError("ValueError", fmt::format("left hand array must be at least two dimensional; got a.shape={}",
                                                         types::py_int_tuple(at.shape())));
  const int64_t m = at.shape().back();
  const bool vector = bt.rank() == 1;
  auto shape_error = [&] {
    throw types::ShardingError("ValueError", fmt::format("The arguments to solve must have shapes a=[..., m, m] and b=[..., m, k] or "
                                                         "b=[..., m]; got a={} and b={}",
                                                         types::py_int_tuple(at.shape()), types::py_int_tuple(bt.shape())));
  };
  if (at.shape()[at.rank() - 2] != m || bt.rank() == 0) shape_error();
  if (vector ? bt.shape()[0] != m : bt.shape()[bt.rank() - 2] != m) shape_error();
  ValueId rhs = vector ? reshape(t, b, {m, 1}) : b;
  // Batch dims broadcast against each other (jnp.vectorize).
  auto both = linalg::broadcast_batch(t, {a, rhs});
  const ValueId af = both[0];
  rhs = both[1];
  const Shape batch = linalg::batch_shape(t.type(af));
  auto f = lu(t, af);
  ValueId pb = linalg::permute_rows(t, rhs, f.permutation);
  ValueId y = triangular_solve(t, f.lu, pb, {.left_side = true, .lower = true, .unit_diagonal = true});
  ValueId x = triangular_solve(t, f.lu, y, {.left_side = true, .lower = false});
  if (vector) {
    Shape s = batch;
    s.push_back(m);
    x = reshape(t, x, s);
  }
  return x;
}

ValueId inv(Trace& t, ValueId a) {
  const auto at = t.type(a);
  linalg::require_square(at, "Argument to inv must have shape [..., n, n], got {}.");
  return solve(t, a, linalg::eye_like(t, a, at.shape().back()));
}

ValueId det(Trace& t, ValueId a) {
  const auto at = t.type(a);
  linalg::require_square(at, "Argument to _det() must be a square matrix, got {}");
  auto f = lu(t, a);
  ValueId diag = linalg::diagonal(t, f.lu);
  ValueId prod = reduce(t, "det", ReduceKind::Prod, diag, {static_cast<int64_t>(at.rank()) - 2}, false);
  return ew(t, EwOp::Mul, "mul", pivot_sign(t, f.pivots, at.dtype()), prod);
}

Slogdet slogdet(Trace& t, ValueId a) {
  const auto at = t.type(a);
  linalg::require_square(at, "Argument to slogdet() must have shape [..., n, n], got {}");
  auto f = lu(t, a);
  ValueId diag = linalg::diagonal(t, f.lu);
  const int64_t last = static_cast<int64_t>(at.rank()) - 2;
  ValueId signs = reduce(t, "slogdet", ReduceKind::Prod, unary(t, "sign", EwOp::Sign, diag), {last}, false);
  ValueId sign = ew(t, EwOp::Mul, "mul", pivot_sign(t, f.pivots, at.dtype()), signs);
  ValueId logabs = reduce(t, "slogdet", ReduceKind::Sum, unary(t, "log", EwOp::Log, unary(t, "abs", EwOp::Abs, diag)), {last}, false);
  return {sign, logabs};
}

ValueId pinv(Trace& t, ValueId a, std::optional<double> rtol) {
  const auto at = t.type(a);
  linalg::require_matrix(at, "pinv");
  const int64_t m = at.shape()[at.rank() - 2], n = at.shape()[at.rank() - 1];
  if (m == 0 || n == 0) {
    Shape s = linalg::batch_shape(at);
    s.push_back(n);
    s.push_back(m);
    return full(t, s, 0, {at.dtype(), false}, std::nullopt);
  }
  const double eps = at.dtype() == DType::F64 ? std::numeric_limits<double>::epsilon() : std::numeric_limits<float>::epsilon();
  const double tol = rtol ? *rtol : 10.0 * static_cast<double>(std::max(m, n)) * eps;
  auto d = svd(t, a, false, true);
  const auto st = t.type(d.s);
  const size_t r = st.rank();
  Shape start(r, 0), limit = st.shape(), strides(r, 1);
  limit[r - 1] = 1;
  ValueId largest = slice(t, d.s, start, limit, strides);  // s[..., 0:1]
  ValueId cutoff = ew(t, EwOp::Mul, "mul", constant_like(t, tol, d.s), largest);
  ValueId above = ew(t, EwOp::Gt, "gt", d.s, cutoff);
  ValueId kept = where(t, above, d.s, constant_like(t, std::numeric_limits<double>::infinity(), d.s));
  ValueId ut = linalg::mT(t, d.u);
  ValueId scaled = ew(t, EwOp::Div, "div", ut, expand_dims(t, kept, {static_cast<int64_t>(r)}));
  return linalg::matmul(t, linalg::mT(t, d.vt), scaled);
}

ValueId matrix_power(Trace& t, ValueId a, int64_t n) {
  const auto at = t.type(a);
  if (at.rank() < 2)
    throw types::ShardingError("TypeError", fmt::format("{}-dimensional array given. Array must be at least two-dimensional", at.rank()));
  if (at.shape()[at.rank() - 2] != at.shape()[at.rank() - 1])
    throw types::ShardingError("TypeError", "Last 2 dimensions of the array must be square");
  if (n == 0) {
    ValueId e = eye(t, at.shape().back(), at.shape().back(), 0, {at.dtype(), false}, std::nullopt);
    return broadcast_to(t, e, at.shape());
  }
  if (n < 0) {
    a = inv(t, convert(t, a, to_inexact(DTypeW{at.dtype(), at.weak_type()})));
    n = -n;
  }
  // Binary powering: z runs through a, a^2, a^4, ...; the result takes the set bits.
  std::optional<ValueId> z, result;
  while (n > 0) {
    z = z ? linalg::matmul(t, *z, *z) : a;
    const bool bit = n % 2 == 1;
    n /= 2;
    if (bit) result = result ? linalg::matmul(t, *result, *z) : *z;
  }
  return *result;
}

ValueId jnp_cholesky(Trace& t, ValueId a, bool upper, bool symmetrize_input) {
  ValueId l = cholesky(t, symmetrize_input ? symmetrize(t, a) : a);
  return upper ? linalg::mT(t, l) : l;
}

EighResult jnp_eigh(Trace& t, ValueId a, bool lower, bool symmetrize_input) {
  return eigh(t, symmetrize_input ? symmetrize(t, a) : a, lower);
}

namespace {
ValueId abs_of(Trace& t, ValueId x) { return unary(t, "abs", EwOp::Abs, x); }
ValueId sum_of_squares(Trace& t, ValueId x, std::vector<int64_t> axes, bool keepdims) {
  // |x|^2: x * conj(x), real, for complex x
  ValueId sq = types::is_complex(t.type(x).dtype()) ? real(t, ew(t, EwOp::Mul, "mul", x, conj(t, x))) : ew(t, EwOp::Mul, "mul", x, x);
  return unary(t, "sqrt", EwOp::Sqrt, reduce(t, "norm", ReduceKind::Sum, sq, std::move(axes), keepdims));
}
[[noreturn]] void norm_error(const std::string& msg) { throw types::ShardingError("ValueError", msg); }
std::string order_text(const NormOrder& ord) {
  if (!ord.name.empty()) return ord.name;
  if (std::isinf(*ord.value)) return *ord.value > 0 ? "inf" : "-inf";
  return fmt::format("{}", *ord.value);
}
}  // namespace

ValueId norm(Trace& t, ValueId x, const NormOrder& ord, std::optional<std::vector<int64_t>> axis, bool keepdims) {
  const auto xt = t.type(x);
  const int64_t ndim = static_cast<int64_t>(xt.rank());
  const bool none = !ord.value && ord.name.empty();
  if (!axis) {
    if (none) return sum_of_squares(t, x, {}, keepdims);
    axis.emplace();
    for (int64_t d = 0; d < ndim; ++d) axis->push_back(d);
  }
  for (auto& d : *axis) d = normalize_axis("norm", d, xt.rank());
  if (axis->size() == 1) {  // a vector norm
    const std::vector<int64_t> ax = *axis;
    if (!ord.name.empty()) norm_error(fmt::format("Invalid order '{}' for vector norm.", ord.name));
    const double p = none ? 2.0 : *ord.value;
    if (p == 2.0) return sum_of_squares(t, x, ax, keepdims);
    if (std::isinf(p)) return reduce(t, "norm", p > 0 ? ReduceKind::Max : ReduceKind::Min, abs_of(t, x), ax, keepdims);
    if (p == 0) {
      ValueId nonzero = convert(t, ew(t, EwOp::Ne, "ne", x, constant_like(t, 0, x)), {xt.dtype(), false});
      return reduce(t, "norm", ReduceKind::Sum, nonzero, ax, keepdims);
    }
    if (p == 1) return reduce(t, "norm", ReduceKind::Sum, abs_of(t, x), ax, keepdims);
    ValueId magnitude = abs_of(t, x);
    ValueId powered = ew(t, EwOp::Pow, "pow", magnitude, constant_like(t, p, x));
    ValueId total = reduce(t, "norm", ReduceKind::Sum, powered, ax, keepdims);
    return ew(t, EwOp::Pow, "pow", total, constant_like(t, 1.0 / p, x));
  }
  if (axis->size() != 2)
    norm_error(fmt::format("Improper number of axes for norm: axis={}. Pass one axis to compute a vector-norm, or two axes to "
                           "compute a matrix-norm.", types::py_int_tuple(*axis)));
  int64_t row = (*axis)[0], col = (*axis)[1];
  if (none || ord.name == "fro" || ord.name == "f") return sum_of_squares(t, x, {row, col}, keepdims);
  if (ord.name == "nuc" || (ord.value && std::abs(*ord.value) == 2)) {
    ValueId m = transpose(t, x, [&] {
      std::vector<int64_t> perm;
      for (int64_t d = 0; d < ndim; ++d)
        if (d != row && d != col) perm.push_back(d);
      perm.push_back(row);
      perm.push_back(col);
      return perm;
    }());
    ValueId s = svd(t, m, false, false).s;
    const int64_t last = static_cast<int64_t>(t.type(s).rank()) - 1;
    const ReduceKind kind = ord.name == "nuc" ? ReduceKind::Sum : *ord.value > 0 ? ReduceKind::Max : ReduceKind::Min;
    ValueId y = reduce(t, "norm", kind, s, {last}, false);
    if (keepdims) y = expand_dims(t, y, {std::min(row, col), std::max(row, col)});
    return y;
  }
  if (ord.value && (std::abs(*ord.value) == 1 || std::isinf(*ord.value))) {
    // ord 1: the largest column sum (sum over rows, then max over columns); inf: the largest row sum.
    const bool cols = std::abs(*ord.value) == 1;
    int64_t summed = cols ? row : col, then = cols ? col : row;
    if (!keepdims && then > summed) then -= 1;
    const ReduceKind kind = *ord.value > 0 ? ReduceKind::Max : ReduceKind::Min;
    return reduce(t, "norm", kind, reduce(t, "norm", ReduceKind::Sum, abs_of(t, x), {summed}, keepdims), {then}, keepdims);
  }
  norm_error(fmt::format("Invalid order '{}' for matrix norm.", order_text(ord)));
}

ValueId matrix_rank(Trace& t, ValueId a, std::optional<double> rtol) {
  const auto at = t.type(a);
  if (at.rank() < 2) {  // a vector or scalar: rank 1 unless all zero
    ValueId any = reduce(t, "matrix_rank", ReduceKind::Max, convert(t, ew(t, EwOp::Ne, "ne", a, constant_like(t, 0, a)), {DType::I32, false}), {}, false);
    return any;
  }
  const int64_t m = at.shape()[at.rank() - 2], n = at.shape()[at.rank() - 1];
  const double eps = at.dtype() == DType::F64 ? std::numeric_limits<double>::epsilon() : std::numeric_limits<float>::epsilon();
  const double tol = rtol ? *rtol : static_cast<double>(std::max(m, n)) * eps;
  ValueId s = svd(t, a, false, false).s;
  const int64_t last = static_cast<int64_t>(t.type(s).rank()) - 1;
  ValueId largest = reduce(t, "matrix_rank", ReduceKind::Max, s, {last}, true);
  ValueId above = ew(t, EwOp::Gt, "gt", s, ew(t, EwOp::Mul, "mul", largest, constant_like(t, tol, s)));
  return reduce(t, "matrix_rank", ReduceKind::Sum, convert(t, above, {DType::I32, false}), {last}, false);
}

}  // namespace shard::trace
