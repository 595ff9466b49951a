// Batching of the sharding ops: the batch dim is one more dim, keeping its sharding. (The
// shard_map collectives keep their rules with their definitions, in primitives/collectives/.)
#include "batching/rules.hpp"

namespace shard::batching {

std::vector<Batched> batch_Reshard(BatchArgs& a) {
  const ValueId x = a.x[0].value;
  return {batched(trace::reshard(a.t, x, sharding::OutSharding{batch_spec(batch_entry(a.t, x), a.result_type())}))};
}

std::vector<Batched> batch_ShardingConstraint(BatchArgs& a) {
  const ValueId x = a.x[0].value;
  const ArrayType rt = a.result_type();
  const auto entry = batch_entry(a.t, x);
  const ArrayType to = rt.with_shape(with_batch(a.size, rt.shape()), batch_spec(entry, rt));
  const auto& c = a.op.attr<ir::attr::ShardingConstraint>();
  types::PartitionSpec layout = batch_spec({}, rt);
  if (c.sharding) {
    auto e = c.sharding->normalized(rt.rank()).entries();
    e.insert(e.begin(), types::PartitionSpec::Entry{});
    layout = types::PartitionSpec(e);
  }
  return {batched(trace::sharding_constraint(a.t, x, to, layout))};
}

}  // namespace shard::batching
