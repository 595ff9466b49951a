// Rules of the sharding ops: a reshard or sharding constraint moves data, so a tangent moves
// as its primal does and a cotangent goes back to the operand's layout. (The shard_map
// collectives keep their rules with their definitions, in primitives/collectives/.)
#include "autodiff/rules.hpp"

namespace shard::autodiff {

JvpOut jvp_Reshard(JvpArgs& a) { return jvp_linear_unary(a); }
JvpOut jvp_ShardingConstraint(JvpArgs& a) { return jvp_linear_unary(a); }

std::vector<Tangent> transpose_Reshard(TransposeArgs& a) { return {fit_type(a.t, a.ct_value(), a.operand_type(0))}; }

std::vector<Tangent> transpose_ShardingConstraint(TransposeArgs& a) {
  const auto& c = a.op.attr<ir::attr::ShardingConstraint>();
  const ArrayType in = a.operand_type(0);
  ValueId ct = a.ct_value();
  if (c.sharding) return {trace::sharding_constraint(a.t, ct, in, *c.sharding)};
  return {fit_type(a.t, ct, in)};
}

}  // namespace shard::autodiff
