// Ops that carry regions or stand for the host: while, scan, cond, shard_map, host
// callbacks, and the type-only ops (sharding constraints, mesh casts). The api layer traces
// the bodies (api/region_trace); the ops and their attribute encodings are recorded here.
#include "trace/ops.hpp"

namespace shard::trace {

using ir::OpKind;

namespace {
std::vector<ValueId> concat(std::initializer_list<const std::vector<ValueId>*> parts) {
  std::vector<ValueId> out;
  for (auto* p : parts) out.insert(out.end(), p->begin(), p->end());
  return out;
}
}  // namespace

std::vector<ValueId> while_loop(Trace& t, const Region& cond, const Region& body, const std::vector<ValueId>& carry,
                                const std::vector<ArrayType>& result_types) {
  ir::attr::While a{static_cast<int64_t>(cond.consts.size()), static_cast<int64_t>(body.consts.size())};
  return t.emit_multi(OpKind::While, concat({&cond.consts, &body.consts, &carry}), result_types, a, {cond.fn, body.fn});
}

std::vector<ValueId> scan(Trace& t, const Region& body, const std::vector<ValueId>& carry, const std::vector<ValueId>& xs,
                          const std::vector<ArrayType>& result_types, int64_t length, bool reverse) {
  ir::attr::Scan a{static_cast<int64_t>(body.consts.size()), static_cast<int64_t>(carry.size()), length, reverse};
  return t.emit_multi(OpKind::Scan, concat({&body.consts, &carry, &xs}), result_types, a, {body.fn});
}

std::vector<ValueId> cond(Trace& t, ValueId index, const std::vector<ValueId>& operands,
                          const std::vector<std::shared_ptr<const ir::Function>>& branches, const std::vector<ArrayType>& result_types) {
  std::vector<ValueId> all{index};
  all.insert(all.end(), operands.begin(), operands.end());
  return t.emit_multi(OpKind::Cond, all, result_types, {}, branches);
}

std::vector<ValueId> shard_map(Trace& t, const Region& body, const std::vector<ValueId>& operands,
                               const std::vector<ArrayType>& result_types, const ShardMapSpecs& s) {
  ir::attr::ShardMap a;
  a.manual_axes = s.manual_axes;
  a.check_vma = s.check_vma;
  a.in_specs = s.in_specs;
  a.out_specs = s.out_specs;
  for (int id : s.mesh.device_ids()) a.device_ids.push_back(id);
  a.mesh_shape = s.mesh.abstract_mesh().axis_sizes();
  a.mesh = s.abstract_mesh.empty() ? s.mesh.abstract_mesh() : s.abstract_mesh;
  return t.emit_multi(OpKind::ShardMap, concat({&operands, &body.consts}), result_types, a, {body.fn});
}

void host_callback(Trace& t, const std::vector<ValueId>& operands, std::vector<std::string> identity,
                   std::shared_ptr<const void> callable) {
  ir::attr::HostCallback a;
  a.identity = std::move(identity);
  a.callable = std::move(callable);
  for (auto v : operands) a.varying |= !t.type(v).vma().empty();  // varying: every device prints its value
  t.emit_multi(OpKind::HostCallback, operands, {}, a, {});
}

ValueId sharding_constraint(Trace& t, ValueId x, const ArrayType& result, const types::PartitionSpec& layout) {
  ir::attr::ShardingConstraint a;
  a.sharding = layout;
  return t.emit(OpKind::ShardingConstraint, {x}, result, a);
}

ValueId retype(Trace& t, ValueId x, const ArrayType& to) {
  ir::attr::Elementwise a;
  a.op = EwOp::Convert;
  return t.emit(OpKind::Elementwise, {x}, to, a);
}

}  // namespace shard::trace
