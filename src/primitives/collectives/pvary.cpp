// pvary / pcast(to='varying'): the same data, typed as varying over more manual axes. No
// data moves, so it is recorded as a same-shape reshape carrying the new type (psum's
// transpose emits it; its own tangent and batching are the reshape's).
#include "primitives/collectives/common.hpp"

namespace shard {

types::ArrayType sharding::propagate_pvary(const RuleContext& ctx, const ArrayType& x, const AxisNames& axes) {
  primitives::collectives::bound_axes_size(ctx, axes);
  return primitives::collectives::result(ctx, x, x.shape(), spec_entries(x), primitives::collectives::vma_union(ctx, x, axes));
}

ir::ValueId trace::pvary(Trace& t, ValueId x, const types::AxisNames& axes, const std::string& name) {
  auto rt = sharding::propagate_pvary(primitives::collectives::rule_ctx(t, name), t.type(x), axes);
  if (rt == t.type(x)) return x;
  return t.emit(ir::OpKind::Reshape, {x}, rt);
}

}  // namespace shard
