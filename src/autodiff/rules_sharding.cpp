// Rules of the sharding ops and the shard_map collectives. Data movement is linear, so a
// tangent moves as its primal does; the transposes follow JAX's VMA rules: psum <-> pvary,
// all_gather <-> psum_scatter, ppermute <-> the inverse permutation, all_to_all <-> the
// all_to_all that swaps split and concat axes, and axis_index has no tangent.
#include <fmt/format.h>

#include "autodiff/rules.hpp"

namespace shard::autodiff {

using ir::ReduceKind;

JvpOut jvp_Reshard(JvpArgs& a) { return jvp_linear_unary(a); }
JvpOut jvp_ShardingConstraint(JvpArgs& a) { return jvp_linear_unary(a); }
JvpOut jvp_AllGather(JvpArgs& a) { return jvp_linear_unary(a); }
JvpOut jvp_ReduceScatter(JvpArgs& a) { return jvp_linear_unary(a); }
JvpOut jvp_AllToAll(JvpArgs& a) { return jvp_linear_unary(a); }
JvpOut jvp_CollectivePermute(JvpArgs& a) { return jvp_linear_unary(a); }
JvpOut jvp_AxisIndex(JvpArgs& a) { return emit_primal(a); }

JvpOut jvp_AllReduce(JvpArgs& a) {
  const auto& r = a.op.attr<ir::attr::AllReduce>();
  if (r.kind != ReduceKind::Sum)
    unsupported(fmt::format("differentiation of {} is not supported yet (psum is)", ir::all_reduce_name(r.kind)));
  return jvp_linear_unary(a);
}

std::vector<Tangent> transpose_Reshard(TransposeArgs& a) { return {fit_type(a.t, a.ct_value(), a.operand_type(0))}; }

std::vector<Tangent> transpose_ShardingConstraint(TransposeArgs& a) {
  const auto& c = a.op.attr<ir::attr::ShardingConstraint>();
  const ArrayType in = a.operand_type(0);
  ValueId ct = a.ct_value();
  if (c.sharding) return {trace::sharding_constraint(a.t, ct, in, *c.sharding)};
  return {fit_type(a.t, ct, in)};
}

// psum's operand varies over axes its result does not: the cotangent comes back varying
// (pvary). An operand that did not vary (or no VMA tracking, check_vma=False) was summed
// n times over, so its cotangent is the psum of the result's.
std::vector<Tangent> transpose_AllReduce(TransposeArgs& a) {
  const auto& r = a.op.attr<ir::attr::AllReduce>();
  const ArrayType in = a.operand_type(0), res = a.result_type();
  ValueId ct = a.ct_value();
  types::AxisNames dropped;
  for (auto& ax : in.vma())
    if (std::find(res.vma().begin(), res.vma().end(), ax) == res.vma().end()) dropped.push_back(ax);
  if (!dropped.empty()) return {trace::pvary(a.t, ct, dropped)};
  return {trace::all_reduce(a.t, "psum", ReduceKind::Sum, ct, r.axes)};
}

std::vector<Tangent> transpose_AllGather(TransposeArgs& a) {
  const auto& g = a.op.attr<ir::attr::AllGather>();
  return {fit_type(a.t, trace::psum_scatter(a.t, a.ct_value(), g.axes, g.all_gather_dimension, g.tiled), a.operand_type(0))};
}

std::vector<Tangent> transpose_ReduceScatter(TransposeArgs& a) {
  const auto& s = a.op.attr<ir::attr::ReduceScatter>();
  return {fit_type(a.t, trace::all_gather(a.t, a.ct_value(), s.axes, s.scatter_dimension, s.tiled), a.operand_type(0))};
}

std::vector<Tangent> transpose_AllToAll(TransposeArgs& a) {
  const auto& s = a.op.attr<ir::attr::AllToAll>();
  return {trace::all_to_all(a.t, a.ct_value(), s.axes, s.concat_axis, s.split_axis, s.tiled)};
}

std::vector<Tangent> transpose_CollectivePermute(TransposeArgs& a) {
  const auto& p = a.op.attr<ir::attr::CollectivePermute>();
  std::vector<std::pair<int64_t, int64_t>> inverse;
  for (auto [src, dst] : p.perm) inverse.emplace_back(dst, src);
  return {trace::ppermute(a.t, a.ct_value(), p.axes, inverse)};
}

}  // namespace shard::autodiff
