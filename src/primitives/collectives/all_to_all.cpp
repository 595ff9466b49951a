// all_to_all: each device splits `split_axis` into one piece per device of the named axes,
// sends piece i to device i, and concatenates what it receives along `concat_axis` (tiled),
// or stacks it there as a new dim of the axis size (untiled, where split_axis goes).
// Transposes to the all_to_all with split and concat axes swapped.
#include <fmt/format.h>

#include "primitives/collectives/common.hpp"

namespace shard {

types::ArrayType sharding::propagate_all_to_all(const RuleContext& ctx, const ArrayType& x, const AxisNames& axes, int64_t split_axis,
                                         int64_t concat_axis, bool tiled) {
  int64_t n = primitives::collectives::bound_axes_size(ctx, axes);
  reject_unreduced(ctx, {x});
  size_t s = normalize_axis(ctx, split_axis, x.rank(), "split_axis");
  size_t c = normalize_axis(ctx, concat_axis, x.rank(), "concat_axis");
  Shape shape = x.shape();
  auto spec = spec_entries(x);
  if (tiled) {
    if (shape[s] % n != 0)
      types::throw_value_error(fmt::format(
          "`{}`: The size of all_to_all split_axis ({}) has to be divisible by the size of the "
          "named axis {} ({})",
          ctx.op, shape[s], types::py_str_tuple(axes), n));
    shape[s] /= n;
    shape[c] *= n;
  } else {
    if (shape[s] != n)
      types::throw_value_error(fmt::format(
          "`{}`: all_to_all requires the size of the mapped axis axis_name to equal "
          "x.shape[split_axis], but they are {} and {} respectively.",
          ctx.op, n, shape[s]));
    if (s != c) {  // the split dim goes; a dim of the axis size appears at concat_axis
      shape.erase(shape.begin() + static_cast<long>(s));
      spec.erase(spec.begin() + static_cast<long>(s));
      shape.insert(shape.begin() + static_cast<long>(c), n);
      spec.insert(spec.begin() + static_cast<long>(c), Entry{});
    }
  }
  return primitives::collectives::result(ctx, x, shape, spec, primitives::collectives::vma_union(ctx, x, axes));
}

ir::ValueId trace::all_to_all(Trace& t, ValueId x, const types::AxisNames& axes, int64_t split_axis, int64_t concat_axis, bool tiled) {
  primitives::collectives::reject_vmap_axes(axes, "all_to_all");
  auto ctx = primitives::collectives::rule_ctx(t, "all_to_all");
  const auto& xt = t.type(x);
  auto rt = sharding::propagate_all_to_all(ctx, xt, axes, split_axis, concat_axis, tiled);
  ir::attr::AllToAll a;
  a.axes = axes;
  a.split_axis = static_cast<int64_t>(sharding::normalize_axis(ctx, split_axis, xt.rank(), "split_axis"));
  a.concat_axis = static_cast<int64_t>(sharding::normalize_axis(ctx, concat_axis, xt.rank(), "concat_axis"));
  a.tiled = tiled;
  return t.emit(ir::OpKind::AllToAll, {x}, rt, a);
}

autodiff::JvpOut autodiff::jvp_AllToAll(JvpArgs& a) { return jvp_linear_unary(a); }

std::vector<autodiff::Tangent> autodiff::transpose_AllToAll(TransposeArgs& a) {
  const auto& s = a.op.attr<ir::attr::AllToAll>();
  return {trace::all_to_all(a.t, a.ct_value(), s.axes, s.concat_axis, s.split_axis, s.tiled)};
}

std::vector<batching::Batched> batching::batch_AllToAll(BatchArgs& a) {
  const auto& s = a.op.attr<ir::attr::AllToAll>();
  return {batched(trace::all_to_all(a.t, a.x[0].value, s.axes, s.split_axis + 1, s.concat_axis + 1, s.tiled))};
}

// Each device keeps 1/n of its block and receives the rest from its peers.
primitives::BlockEffect primitives::on_block(const ir::attr::AllToAll& a, const types::Shape& block, int64_t n) {
  types::Shape shape = block;
  shape[static_cast<size_t>(a.split_axis)] /= n;
  shape[static_cast<size_t>(a.concat_axis)] *= n;
  return {shape, types::shape_product(shape) * (n - 1) / n};
}

}  // namespace shard
