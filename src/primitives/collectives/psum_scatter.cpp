// psum_scatter (IR reduce_scatter): psum over the named axes, each device keeping its block
// of `scatter_dimension` (tiled) or its index of it. Transposes to all_gather.
#include <fmt/format.h>

#include "primitives/collectives/common.hpp"

namespace shard {

types::ArrayType sharding::propagate_psum_scatter(const RuleContext& ctx, const ArrayType& x, const AxisNames& axes, int64_t scatter_dimension,
                                           bool tiled) {
  int64_t n = primitives::collectives::bound_axes_size(ctx, axes);
  reject_unreduced(ctx, {x});
  size_t d = normalize_axis(ctx, scatter_dimension, x.rank(), "scatter_dimension");
  Shape shape = x.shape();
  auto spec = spec_entries(x);
  if (tiled) {
    if (shape[d] % n != 0)
      types::throw_value_error(fmt::format(
          "`{}`: tiled reduce_scatter operand scatter dimension size {} must be divisible by "
          "shard_count {}",
          ctx.op, shape[d], n));
    shape[d] /= n;
  } else {
    if (shape[d] != n)
      types::throw_value_error(fmt::format(
          "`{}`: reduce_scatter operand scatter dimension size {} must match shard count {} "
          "(use tiled=True to scatter a dimension that is a multiple of it)",
          ctx.op, shape[d], n));
    shape.erase(shape.begin() + static_cast<long>(d));
    spec.erase(spec.begin() + static_cast<long>(d));
  }
  return primitives::collectives::result(ctx, x, shape, spec, primitives::collectives::vma_union(ctx, x, axes));
}

ir::ValueId trace::psum_scatter(Trace& t, ValueId x, const types::AxisNames& axes, int64_t scatter_dimension, bool tiled) {
  primitives::collectives::reject_vmap_axes(axes, "psum_scatter");
  auto ctx = primitives::collectives::rule_ctx(t, "psum_scatter");
  const auto& xt = t.type(x);
  auto rt = sharding::propagate_psum_scatter(ctx, xt, axes, scatter_dimension, tiled);
  ir::attr::ReduceScatter a;
  a.kind = ir::ReduceKind::Sum;
  a.axes = axes;
  a.scatter_dimension = static_cast<int64_t>(sharding::normalize_axis(ctx, scatter_dimension, xt.rank(), "scatter_dimension"));
  a.tiled = tiled;
  return t.emit(ir::OpKind::ReduceScatter, {x}, rt, a);
}

autodiff::JvpOut autodiff::jvp_ReduceScatter(JvpArgs& a) { return jvp_linear_unary(a); }

std::vector<autodiff::Tangent> autodiff::transpose_ReduceScatter(TransposeArgs& a) {
  const auto& s = a.op.attr<ir::attr::ReduceScatter>();
  return {fit_type(a.t, trace::all_gather(a.t, a.ct_value(), s.axes, s.scatter_dimension, s.tiled), a.operand_type(0))};
}

std::vector<batching::Batched> batching::batch_ReduceScatter(BatchArgs& a) {
  const auto& s = a.op.attr<ir::attr::ReduceScatter>();
  return {batched(trace::psum_scatter(a.t, a.x[0].value, s.axes, s.scatter_dimension + 1, s.tiled))};
}

// Each device receives the partial blocks of the others for its own block.
primitives::BlockEffect primitives::on_block(const ir::attr::ReduceScatter& a, const types::Shape& block, int64_t n) {
  types::Shape shape = block;
  shape[static_cast<size_t>(a.scatter_dimension)] /= n;
  return {shape, types::shape_product(shape) * (n - 1)};
}

}  // namespace shard
