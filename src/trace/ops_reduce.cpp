// Reductions, arg-reductions, scans and sort.
#include <fmt/format.h>

#include <algorithm>

#include "trace/ops.hpp"
#include "types/x64_mode.hpp"

namespace shard::trace {

using ir::OpKind;

namespace {
std::vector<int64_t> normalize_axes(const std::string& op, std::vector<int64_t> axes, size_t rank) {
  if (axes.empty())
    for (size_t d = 0; d < rank; ++d) axes.push_back(static_cast<int64_t>(d));
  for (auto& a : axes) a = normalize_axis(op, a, rank);
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    throw types::ShardingError("ValueError", "duplicate value in 'axis'");
  return axes;
}

// The dtype a sum/prod accumulates and returns (jnp's promote_integers=True): bool and
// signed ints narrower than the default int give the default int (int64 with x64 on),
// unsigned ints narrower than uint32 give uint32 (shard has no uint64).
DTypeW sum_dtype(const ArrayType& t) {
  const DType int_ = types::default_int_dtype();
  if (t.dtype() == DType::Bool) return {int_, false};
  if (types::is_signed_int(t.dtype()) && types::dtype_size(t.dtype()) < types::dtype_size(int_)) return {int_, false};
  if (t.dtype() == DType::U8 || t.dtype() == DType::U16) return {DType::U32, false};
  return {t.dtype(), t.weak_type()};
}
}  // namespace

ValueId reduce(Trace& t, const std::string& name, ReduceKind kind, ValueId x, std::vector<int64_t> axes, bool keepdims) {
  const auto xt = t.type(x);
  if (kind != ReduceKind::Sum) reject_complex(name, xt.dtype());
  axes = normalize_axes(name, std::move(axes), xt.rank());
  DTypeW dt{xt.dtype(), xt.weak_type()};
  if (kind == ReduceKind::Sum || kind == ReduceKind::Prod) dt = sum_dtype(xt);
  if (kind == ReduceKind::And || kind == ReduceKind::Or) dt = {DType::Bool, false};
  // As JAX: max / min have no identity, so a reduced axis may not be empty (kept empty axes
  // just give an empty result).
  if (kind == ReduceKind::Max || kind == ReduceKind::Min)
    for (auto d : axes)
      if (xt.shape()[static_cast<size_t>(d)] == 0)
        throw types::ShardingError("ValueError", fmt::format("zero-size array to reduction operation {} which has no identity", name));
  ValueId xc = convert(t, x, dt);
  auto flat = sharding::propagate_reduce(t.ctx(name), t.type(xc), axes, dt.dtype, false).with_weak_type(dt.weak);
  ir::attr::Reduce a;
  a.kind = kind;
  a.axes = axes;
  ValueId r = t.emit(OpKind::Reduce, {xc}, flat, a);
  if (!keepdims) return r;
  auto kept = sharding::propagate_reduce(t.ctx(name), t.type(xc), axes, dt.dtype, true).with_weak_type(dt.weak);
  return t.emit(OpKind::Reshape, {r}, kept);
}

ValueId mean(Trace& t, ValueId x, std::vector<int64_t> axes, bool keepdims) {
  const auto xt = t.type(x);
  auto norm = normalize_axes("mean", axes, xt.rank());
  int64_t count = 1;
  for (auto a : norm) count *= xt.shape()[a];
  DTypeW dt = to_inexact({xt.dtype(), xt.weak_type()});
  ValueId s = reduce(t, "mean", ReduceKind::Sum, convert(t, x, dt), norm, keepdims);
  return binary(t, "mean", EwOp::Div, s, scalar_constant(t, static_cast<double>(count), {dt.dtype, true}));
}

ValueId var(Trace& t, ValueId x, std::vector<int64_t> axes, bool keepdims, int64_t ddof, bool std_dev) {
  const auto xt = t.type(x);
  auto norm = normalize_axes(std_dev ? "std" : "var", axes, xt.rank());
  int64_t count = 1;
  for (auto a : norm) count *= xt.shape()[a];
  DTypeW dt = to_inexact({xt.dtype(), xt.weak_type()});
  ValueId xf = convert(t, x, dt);
  ValueId m = mean(t, xf, norm, true);
  ValueId c = binary(t, "var", EwOp::Sub, xf, m);
  // |x - mean|^2: real for complex x, as numpy's and JAX's var
  ValueId sq = types::is_complex(dt.dtype) ? real(t, binary(t, "var", EwOp::Mul, c, conj(t, c))) : binary(t, "var", EwOp::Mul, c, c);
  ValueId s = reduce(t, "var", ReduceKind::Sum, sq, norm, keepdims);
  const DType rd = types::is_complex(dt.dtype) ? types::complex_part_dtype(dt.dtype) : dt.dtype;
  ValueId v = binary(t, "var", EwOp::Div, s, scalar_constant(t, static_cast<double>(std::max<int64_t>(count - ddof, 0)), {rd, true}));
  return std_dev ? unary(t, "std", EwOp::Sqrt, v) : v;
}

ValueId argminmax(Trace& t, const std::string& name, ReduceKind kind, ValueId x, std::optional<int64_t> axis, bool keepdims) {
  auto xt = t.type(x);
  reject_complex(name, xt.dtype());
  // Only an empty reduced axis has no answer (JAX checks a.shape[axis] == 0): an empty other
  // dim gives an empty result.
  if (axis ? (xt.rank() > 0 && xt.shape()[static_cast<size_t>(normalize_axis(name, *axis, xt.rank()))] == 0) : xt.num_elements() == 0)
    throw types::ShardingError("ValueError", fmt::format("attempt to get {} of an empty sequence", name));
  // The kernels count in int32 (shard's arrays stay below 2**31 elements a dim); JAX's int_
  // result (int64 with x64 on) is a convert of that.
  const DType index_dtype = DType::I32;
  auto rt = sharding::propagate_argminmax(t.ctx(name), xt, axis, index_dtype, keepdims);
  ValueId src = x;
  int64_t ax = 0;
  if (!axis) {
    src = reshape(t, x, {xt.num_elements()});
  } else {
    ax = normalize_axis(name, *axis, xt.rank());
  }
  ir::attr::ArgReduce a;
  a.kind = kind;
  a.axis = ax;
  a.index_dtype = index_dtype;
  auto flat = sharding::propagate_argminmax(t.ctx(name), t.type(src), ax, index_dtype, false);
  ValueId r = t.emit(OpKind::ArgReduce, {src}, flat, a);
  if (flat.shape() != rt.shape()) r = t.emit(OpKind::Reshape, {r}, rt);
  return convert(t, r, {types::default_int_dtype(), false});
}

ValueId cumulative(Trace& t, const std::string& name, ReduceKind kind, ValueId x, std::optional<int64_t> axis) {
  auto xt = t.type(x);
  if (kind != ReduceKind::Sum) reject_complex(name, xt.dtype());
  ValueId src = x;
  int64_t ax = 0;
  if (!axis) src = reshape(t, x, {xt.num_elements()});
  else ax = normalize_axis(name, *axis, xt.rank());
  DTypeW dt{t.type(src).dtype(), t.type(src).weak_type()};
  if (kind == ReduceKind::Sum || kind == ReduceKind::Prod) dt = sum_dtype(t.type(src));
  src = convert(t, src, dt);
  auto rt = sharding::propagate_cumulative(t.ctx(name), t.type(src), ax);
  ir::attr::Cumulative a;
  a.kind = kind;
  a.axis = ax;
  return t.emit(OpKind::Cumulative, {src}, rt, a);
}

// A stable sort by (value, -index), reversed: the largest first, and among equals the lower
// index first.
TopK top_k(Trace& t, ValueId x, int64_t k) {
  const auto xt = t.type(x);
  reject_complex("top_k", xt.dtype());
  if (xt.rank() == 0) throw types::ShardingError("TypeError", "top_k operand must have >= 1 dimension, got ()");
  const int64_t last = static_cast<int64_t>(xt.rank()) - 1;
  const int64_t n = xt.shape()[static_cast<size_t>(last)];
  if (k < 0 || k > n)
    throw types::ShardingError("ValueError", fmt::format("k argument to top_k must be nonnegative and not larger than the last dimension "
                                                         "of the operand, got k={} for operand shape {}", k, types::py_int_tuple(xt.shape())));
  ValueId index = iota(t, DType::I32, xt.shape(), last, std::nullopt);
  ValueId neg_index = unary(t, "neg", EwOp::Neg, index);
  auto sorted = sort_multi(t, {x, neg_index, index}, last, 2);
  Shape start(xt.rank(), 0), limit = xt.shape();
  limit[static_cast<size_t>(last)] = k;
  auto first_k = [&](ValueId v) { return slice(t, rev(t, v, {last}), start, limit, {}); };
  ValueId values = first_k(sorted[0]);
  ValueId indices = first_k(sorted[2]);
  return {values, indices};
}

std::vector<ValueId> sort_multi(Trace& t, const std::vector<ValueId>& xs, int64_t axis, int64_t num_keys) {
  const auto xt = t.type(xs.at(0));
  int64_t ax = normalize_axis("sort", axis, xt.rank());
  if (num_keys < 1 || num_keys > static_cast<int64_t>(xs.size()))
    throw types::ShardingError("ValueError", fmt::format("num_keys={} must be between 1 and the number of operands ({})", num_keys, xs.size()));
  std::vector<ArrayType> types;
  for (auto x : xs) {
    if (t.type(x).shape() != xt.shape())
      throw types::ShardingError("TypeError", fmt::format("sort requires all operands to have the same shape, got {} and {}",
                                                          types::py_int_tuple(xt.shape()), types::py_int_tuple(t.type(x).shape())));
    types.push_back(sharding::propagate_sort(t.ctx("sort"), t.type(x), ax));
  }
  ir::attr::Sort a;
  a.dimension = ax;
  a.num_keys = num_keys;
  return t.emit_multi(OpKind::Sort, xs, types, a, {});
}

ValueId argsort(Trace& t, ValueId x, int64_t axis) {
  const auto xt = t.type(x);
  int64_t ax = normalize_axis("argsort", axis, xt.rank());
  ValueId idx = iota(t, DType::I32, xt.shape(), ax, xt.is_sharded() ? sharding::OptOutSharding(sharding::OutSharding{xt.spec()}) : std::nullopt);
  return sort_multi(t, {x, idx}, ax, 1).at(1);
}

ValueId sort(Trace& t, ValueId x, int64_t axis) {
  auto xt = t.type(x);
  int64_t ax = normalize_axis("sort", axis, xt.rank());
  auto rt = sharding::propagate_sort(t.ctx("sort"), xt, ax);
  ir::attr::Sort a;
  a.dimension = ax;
  return t.emit(OpKind::Sort, {x}, rt, a);
}

}  // namespace shard::trace
