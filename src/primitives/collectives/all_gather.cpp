// all_gather: every device's block of the named axes, stacked at `axis` (or concatenated
// along it, tiled). Transposes to psum_scatter.
#include "primitives/collectives/common.hpp"

namespace shard {

using primitives::collectives::rule_ctx;
using primitives::collectives::vmap_axes_size;

types::ArrayType sharding::propagate_all_gather(const RuleContext& ctx, const ArrayType& x, const AxisNames& axes, int64_t axis, bool tiled) {
  int64_t n = primitives::collectives::bound_axes_size(ctx, axes);
  reject_unreduced(ctx, {x});
  Shape shape = x.shape();
  auto spec = spec_entries(x);
  if (tiled) {
    size_t d = normalize_axis(ctx, axis, x.rank(), "axis");
    shape[d] *= n;
  } else {
    size_t d = normalize_axis(ctx, axis, x.rank() + 1, "axis");
    shape.insert(shape.begin() + static_cast<long>(d), n);
    spec.insert(spec.begin() + static_cast<long>(d), Entry{});
  }
  return primitives::collectives::result(ctx, x, shape, spec, primitives::collectives::vma_union(ctx, x, axes));
}

ir::ValueId trace::all_gather(Trace& t, ValueId x, const types::AxisNames& axes, int64_t axis, bool tiled) {
  auto ctx = rule_ctx(t, "all_gather");
  const auto& xt = t.type(x);
  auto gather_dim = [&] { return static_cast<int64_t>(sharding::normalize_axis(ctx, axis, tiled ? xt.rank() : xt.rank() + 1, "axis")); };
  ir::attr::AllGather a;
  a.axes = axes;
  a.tiled = tiled;
  if (auto n = vmap_axes_size(axes, "all_gather")) {  // over a vmap axis: resolved by batching
    a.all_gather_dimension = gather_dim();
    const auto d = static_cast<size_t>(a.all_gather_dimension);
    types::Shape shape = xt.shape();
    auto e = xt.spec().normalized(xt.rank()).entries();
    if (tiled) {
      shape[d] *= *n;
    } else {
      shape.insert(shape.begin() + static_cast<long>(d), *n);
      e.insert(e.begin() + static_cast<long>(d), types::PartitionSpec::Entry{});
    }
    return t.emit(ir::OpKind::AllGather, {x}, xt.with_shape(shape, types::PartitionSpec(e)), a);
  }
  auto rt = sharding::propagate_all_gather(ctx, xt, axes, axis, tiled);
  a.all_gather_dimension = gather_dim();
  return t.emit(ir::OpKind::AllGather, {x}, rt, a);
}

autodiff::JvpOut autodiff::jvp_AllGather(JvpArgs& a) { return jvp_linear_unary(a); }

std::vector<autodiff::Tangent> autodiff::transpose_AllGather(TransposeArgs& a) {
  const auto& g = a.op.attr<ir::attr::AllGather>();
  return {fit_type(a.t, trace::psum_scatter(a.t, a.ct_value(), g.axes, g.all_gather_dimension, g.tiled), a.operand_type(0))};
}

// Over the vmap axis: the lanes stacked (or concatenated, tiled) at the gather dim, the same
// for every lane.
std::vector<batching::Batched> batching::batch_AllGather(BatchArgs& a) {
  const auto& g = a.op.attr<ir::attr::AllGather>();
  Trace& t = a.t;
  if (names_batch_axis(a)) {
    if (g.axes.size() != 1) unsupported("a collective over a vmap axis and other axes together is not supported yet");
    ValueId moved = trace::move_dim(t, a.full(0), 0, g.all_gather_dimension);  // the batch at the gather dim
    if (!g.tiled) return {{moved, false}};
    return {{trace::reshape(t, moved, a.result_type().shape()), false}};
  }
  if (primitives::collectives::names_other_vmap_axis(a)) unsupported("all_gather over an outer vmap's axis inside an inner vmap is not supported yet");
  return {batched(trace::all_gather(t, a.x[0].value, g.axes, g.all_gather_dimension + 1, g.tiled))};
}

// Each device receives the blocks of the others.
primitives::BlockEffect primitives::on_block(const ir::attr::AllGather& a, const types::Shape& block, int64_t n) {
  types::Shape shape = block;
  shape[static_cast<size_t>(a.all_gather_dimension)] *= n;
  return {shape, types::shape_product(shape) - types::shape_product(block)};
}

}  // namespace shard
