// Creation ops: iota-based arange/linspace/eye, full.
#include <fmt/format.h>

#include <cmath>

#include "trace/ops.hpp"

namespace shard::trace {

using ir::OpKind;

ValueId iota(Trace& t, DType dtype, const Shape& shape, int64_t dimension, const OptOutSharding& out_sharding) {
  auto rt = sharding::propagate_creation(t.ctx("iota"), dtype, shape, out_sharding);
  ir::attr::Iota a;
  a.dimension = dimension;
  return t.emit(OpKind::Iota, {}, rt, a);
}

ValueId full_like(Trace& t, const std::string& name, ValueId like, double value, DTypeW dtype, const std::optional<Shape>& shape,
                  const OptOutSharding& out_sharding) {
  auto rt = sharding::propagate_full_like(t.ctx(name), t.type(like), dtype.dtype, shape, out_sharding).with_weak_type(dtype.weak);
  ValueId c = scalar_constant(t, value, dtype);
  if (rt.rank() == 0) return c;
  return t.emit(ir::OpKind::BroadcastInDim, {c}, rt, {});  // a scalar: no operand dims to map
}

ValueId full(Trace& t, const Shape& shape, double value, DTypeW dtype, const OptOutSharding& out_sharding) {
  for (auto s : shape)
    if (s < 0) throw types::ShardingError("ValueError", fmt::format("negative dimensions are not allowed"));
  ValueId c = scalar_constant(t, value, dtype);
  if (shape.empty() && !out_sharding) return c;
  auto rt = sharding::propagate_creation(t.ctx("broadcast_in_dim"), dtype.dtype, shape, out_sharding, dtype.weak);
  ir::attr::BroadcastInDim a;
  return t.emit(OpKind::BroadcastInDim, {c}, rt, a);
}

ValueId arange(Trace& t, double start, double stop, double step, DTypeW dtype, const OptOutSharding& out_sharding) {
  if (step == 0) throw types::ShardingError("ValueError", "Maximum allowed size exceeded");
  int64_t n = static_cast<int64_t>(std::ceil((stop - start) / step));
  if (n < 0) n = 0;
  ValueId i = iota(t, dtype.dtype, {n}, 0, out_sharding);
  if (start == 0 && step == 1) return i;
  ValueId scaled = step == 1 ? i : binary(t, "arange", EwOp::Mul, i, scalar_constant(t, step, {dtype.dtype, true}));
  return start == 0 ? scaled : binary(t, "arange", EwOp::Add, scaled, scalar_constant(t, start, {dtype.dtype, true}));
}

ValueId linspace(Trace& t, double start, double stop, int64_t num, bool endpoint, DTypeW dtype, const OptOutSharding& out_sharding) {
  if (num < 0) throw types::ShardingError("ValueError", fmt::format("Number of samples, {}, must be non-negative.", num));
  const double div = endpoint ? static_cast<double>(num - 1) : static_cast<double>(num);
  const double step = div > 0 ? (stop - start) / div : 0.0;
  ValueId i = iota(t, dtype.dtype, {num}, 0, out_sharding);
  ValueId offsets = binary(t, "linspace", EwOp::Mul, i, scalar_constant(t, step, {dtype.dtype, true}));
  ValueId r = binary(t, "linspace", EwOp::Add, offsets, scalar_constant(t, start, {dtype.dtype, true}));
  if (endpoint && num > 1) {
    // numpy sets the last sample to `stop` exactly.
    ValueId last = binary(t, "linspace", EwOp::Eq, i, scalar_constant(t, static_cast<double>(num - 1), {dtype.dtype, true}));
    r = where(t, last, scalar_constant(t, stop, {dtype.dtype, true}), r);
  }
  return r;
}

ValueId eye(Trace& t, int64_t n, int64_t m, int64_t k, DTypeW dtype, const OptOutSharding& out_sharding) {
  ValueId rows = iota(t, DType::I32, {n, m}, 0, out_sharding);
  ValueId cols = iota(t, DType::I32, {n, m}, 1, out_sharding);
  ValueId diag = binary(t, "eye", EwOp::Eq, binary(t, "eye", EwOp::Add, rows, scalar_constant(t, static_cast<double>(k), {DType::I32, true})), cols);
  return convert(t, diag, dtype);
}

}  // namespace shard::trace
