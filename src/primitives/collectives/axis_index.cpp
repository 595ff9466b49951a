// axis_index: the device's position along the named axes (row-major over several), an int32
// scalar varying over them. No tangent; under vmap over the axis, each lane's position.
#include "primitives/collectives/common.hpp"

namespace shard {

types::ArrayType sharding::propagate_axis_index(const RuleContext& ctx, const AxisNames& axes) {
  primitives::collectives::bound_axes_size(ctx, axes);
  AxisNames vma = ctx.check_vma ? axes : AxisNames{};
  return ArrayType(DType::I32, {}, ctx.mesh, PartitionSpec(), vma);
}

ir::ValueId trace::axis_index(Trace& t, const types::AxisNames& axes) {
  ir::attr::AxisIndex a;
  a.axes = axes;
  if (primitives::collectives::vmap_axes_size(axes, "axis_index"))
    return t.emit(ir::OpKind::AxisIndex, {}, sharding::propagate_creation(t.ctx("axis_index"), types::DType::I32, {}, std::nullopt), a);
  return t.emit(ir::OpKind::AxisIndex, {}, sharding::propagate_axis_index(primitives::collectives::rule_ctx(t, "axis_index"), axes), a);
}

autodiff::JvpOut autodiff::jvp_AxisIndex(JvpArgs& a) { return emit_primal(a); }

std::vector<batching::Batched> batching::batch_AxisIndex(BatchArgs& a) {
  if (!names_batch_axis(a)) throw std::logic_error("internal error: a batched axis_index");
  return {batched(trace::iota(a.t, types::DType::I32, {a.size}, 0, std::nullopt))};
}

}  // namespace shard
