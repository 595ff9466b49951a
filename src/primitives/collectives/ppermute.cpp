// ppermute (IR collective_permute): device `src` of the named axes sends its block to `dst`
// for each (src, dst) pair; devices no pair sends to get zeros. Transposes to the inverse
// permutation.
#include <fmt/format.h>

#include <set>

#include "primitives/collectives/common.hpp"

namespace shard {

types::ArrayType sharding::propagate_ppermute(const RuleContext& ctx, const ArrayType& x, const AxisNames& axes,
                                       const std::vector<std::pair<int64_t, int64_t>>& perm) {
  int64_t n = primitives::collectives::bound_axes_size(ctx, axes);
  reject_unreduced(ctx, {x});
  std::set<int64_t> srcs, dsts;
  std::string perm_repr = "(";
  for (size_t i = 0; i < perm.size(); ++i) perm_repr += fmt::format("{}({}, {})", i ? ", " : "", perm[i].first, perm[i].second);
  perm_repr += perm.size() == 1 ? ",)" : ")";
  for (auto [s, d] : perm) {
    if (s < 0 || s >= n || d < 0 || d >= n)
      types::throw_value_error(fmt::format("`{}` perm indices must be in the range [0, {}) of the axis size, got perm={}", ctx.op, n, perm_repr));
    srcs.insert(s);
    dsts.insert(d);
  }
  if (srcs.size() != perm.size() || dsts.size() != perm.size())
    types::throw_value_error(fmt::format("`{}` sources and destinations must be unique, got {}.", ctx.op, perm_repr));
  return primitives::collectives::result(ctx, x, x.shape(), spec_entries(x), primitives::collectives::vma_union(ctx, x, axes));
}

ir::ValueId trace::ppermute(Trace& t, ValueId x, const types::AxisNames& axes, const std::vector<std::pair<int64_t, int64_t>>& perm) {
  primitives::collectives::reject_vmap_axes(axes, "ppermute");
  auto rt = sharding::propagate_ppermute(primitives::collectives::rule_ctx(t, "ppermute"), t.type(x), axes, perm);
  ir::attr::CollectivePermute a;
  a.axes = axes;
  a.perm = perm;
  return t.emit(ir::OpKind::CollectivePermute, {x}, rt, a);
}

autodiff::JvpOut autodiff::jvp_CollectivePermute(JvpArgs& a) { return jvp_linear_unary(a); }

std::vector<autodiff::Tangent> autodiff::transpose_CollectivePermute(TransposeArgs& a) {
  const auto& p = a.op.attr<ir::attr::CollectivePermute>();
  std::vector<std::pair<int64_t, int64_t>> inverse;
  for (auto [src, dst] : p.perm) inverse.emplace_back(dst, src);
  return {trace::ppermute(a.t, a.ct_value(), p.axes, inverse)};
}

std::vector<batching::Batched> batching::batch_CollectivePermute(BatchArgs& a) {
  const auto& p = a.op.attr<ir::attr::CollectivePermute>();
  return {batched(trace::ppermute(a.t, a.x[0].value, p.axes, p.perm))};
}

}  // namespace shard
