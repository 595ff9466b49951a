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

namespace {
// A collective over a vmap axis that is not this one (an outer vmap's): it acts lane by lane.
bool names_other_vmap_axis(const BatchArgs& a) {
  for (auto& n : ir::collective_axes(a.op))
    if (!a.t.mesh().has_axis(n)) return true;
  return false;
}
}  // namespace

// psum / pmax / pmin over the vmap axis: a reduction over the batch dim (the same for every
// lane); of an unbatched value, psum is size times it.
std::vector<Batched> batch_AllReduce(BatchArgs& a) {
  const auto& r = a.op.attr<ir::attr::AllReduce>();
  Trace& t = a.t;
  if (names_batch_axis(a)) {
    if (r.axes.size() != 1) unsupported("a collective over a vmap axis and other axes together is not supported yet");
    const Batched& x = a.x[0];
    if (x.batched) return {{trace::reduce(t, ir::reduce_kind_name(r.kind), r.kind, x.value, {0}, false), false}};
    if (r.kind != ir::ReduceKind::Sum) return {{x.value, false}};
    return {{trace::binary(t, "mul", ir::EwOp::Mul, x.value, trace::scalar_constant(t, static_cast<double>(a.size), {t.type(x.value).dtype(), true})), false}};
  }
  if (names_other_vmap_axis(a)) return {batched(t.emit(ir::OpKind::AllReduce, {a.x[0].value}, t.type(a.x[0].value), r))};
  return {batched(trace::all_reduce(t, ir::all_reduce_name(r.kind), r.kind, a.x[0].value, r.axes))};
}

// all_gather over the vmap axis: the lanes stacked (or concatenated, tiled) at the gather
// dim, the same for every lane.
std::vector<Batched> batch_AllGather(BatchArgs& a) {
  const auto& g = a.op.attr<ir::attr::AllGather>();
  Trace& t = a.t;
  if (names_batch_axis(a)) {
    if (g.axes.size() != 1) unsupported("a collective over a vmap axis and other axes together is not supported yet");
    ValueId moved = trace::move_dim(t, a.full(0), 0, g.all_gather_dimension);  // the batch at the gather dim
    if (!g.tiled) return {{moved, false}};
    types::Shape shape = a.result_type().shape();
    return {{trace::reshape(t, moved, shape), false}};
  }
  if (names_other_vmap_axis(a)) unsupported("all_gather over an outer vmap's axis inside an inner vmap is not supported yet");
  return {batched(trace::all_gather(t, a.x[0].value, g.axes, g.all_gather_dimension + 1, g.tiled))};
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

// axis_index of the vmap axis: each lane's position.
std::vector<Batched> batch_AxisIndex(BatchArgs& a) {
  if (!names_batch_axis(a)) throw std::logic_error("internal error: a batched axis_index");
  return {batched(trace::iota(a.t, types::DType::I32, {a.size}, 0, std::nullopt))};
}

}  // namespace shard::batching
