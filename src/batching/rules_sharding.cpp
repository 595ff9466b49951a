// Batching of the sharding ops and of the collectives written in shard_map bodies: the batch
// dim is one more dim (unsharded by these ops), the collectives work on the rest.
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

std::vector<Batched> batch_AllReduce(BatchArgs& a) {
  const auto& r = a.op.attr<ir::attr::AllReduce>();
  return {batched(trace::all_reduce(a.t, ir::all_reduce_name(r.kind), r.kind, a.x[0].value, r.axes))};
}

std::vector<Batched> batch_AllGather(BatchArgs& a) {
  const auto& g = a.op.attr<ir::attr::AllGather>();
  return {batched(trace::all_gather(a.t, a.x[0].value, g.axes, g.all_gather_dimension + 1, g.tiled))};
}

std::vector<Batched> batch_ReduceScatter(BatchArgs& a) {
  const auto& s = a.op.attr<ir::attr::ReduceScatter>();
  return {batched(trace::psum_scatter(a.t, a.x[0].value, s.axes, s.scatter_dimension + 1, s.tiled))};
}

std::vector<Batched> batch_AllToAll(BatchArgs& a) {
  const auto& s = a.op.attr<ir::attr::AllToAll>();
  return {batched(trace::all_to_all(a.t, a.x[0].value, s.axes, s.split_axis + 1, s.concat_axis + 1, s.tiled))};
}

std::vector<Batched> batch_CollectivePermute(BatchArgs& a) {
  const auto& p = a.op.attr<ir::attr::CollectivePermute>();
  return {batched(trace::ppermute(a.t, a.x[0].value, p.axes, p.perm))};
}

std::vector<Batched> batch_AxisIndex(BatchArgs&) { throw std::logic_error("internal error: a batched axis_index"); }

}  // namespace shard::batching
