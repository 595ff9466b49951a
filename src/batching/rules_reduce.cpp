// Batching of reductions, arg-reductions, cumulative ops, sort and dot_general.
#include <fmt/format.h>

#include <numeric>

#include "batching/rules.hpp"

namespace shard::batching {

using ir::OpKind;

std::vector<Batched> batch_Reduce(BatchArgs& a) {
  const auto& r = a.op.attr<ir::attr::Reduce>();
  // A reduction over no axes (of a scalar) reduces nothing: trace::reduce would read the empty
  // list as "all axes" and reduce the batch dim away.
  if (r.axes.empty()) {
    const ArrayType rt = a.result_type();
    return {batched(trace::convert(a.t, a.x[0].value, {rt.dtype(), rt.weak_type()}))};
  }
  return {batched(trace::reduce(a.t, fmt::format("reduce_{}", ir::reduce_kind_name(r.kind)), r.kind, a.x[0].value, shifted(r.axes), false))};
}

std::vector<Batched> batch_ArgReduce(BatchArgs& a) {
  const auto& r = a.op.attr<ir::attr::ArgReduce>();
  return {batched(trace::argminmax(a.t, fmt::format("arg{}", ir::reduce_kind_name(r.kind)), r.kind, a.x[0].value, r.axis + 1, false))};
}

std::vector<Batched> batch_Cumulative(BatchArgs& a) {
  ir::attr::Cumulative c = a.op.attr<ir::attr::Cumulative>();
  c.axis += 1;
  const ArrayType rt = a.result_type();
  const ArrayType to = a.t.type(a.x[0].value).with_dtype(rt.dtype()).with_weak_type(rt.weak_type());
  return {batched(a.t.emit(OpKind::Cumulative, {a.x[0].value}, to, c))};
}

std::vector<Batched> batch_Sort(BatchArgs& a) {
  const auto& s = a.op.attr<ir::attr::Sort>();
  std::vector<ValueId> xs;
  for (size_t i = 0; i < a.x.size(); ++i) xs.push_back(a.full(i));
  if (xs.size() == 1) return {batched(trace::sort(a.t, xs[0], s.dimension + 1))};
  return all_batched(trace::sort_multi(a.t, xs, s.dimension + 1, s.num_keys));
}

// dot_general: a batch on both sides is one more batch dim (in front); on one side, its dim
// is a free dim of that side, moved to the front of the result after.
std::vector<Batched> batch_DotGeneral(BatchArgs& a) {
  Trace& t = a.t;
  const auto& d = a.op.attr<ir::attr::DotGeneral>();
  const ArrayType rt = a.result_type();
  const bool lb = a.x[0].batched, rb = a.x[1].batched;
  sharding::DotDims dims{d.lhs_contracting, d.rhs_contracting, d.lhs_batch, d.rhs_batch};
  if (lb) {
    dims.lhs_contracting = shifted(dims.lhs_contracting);
    dims.lhs_batch = shifted(dims.lhs_batch);
  }
  if (rb) {
    dims.rhs_contracting = shifted(dims.rhs_contracting);
    dims.rhs_batch = shifted(dims.rhs_batch);
  }
  if (lb && rb) {
    dims.lhs_batch.insert(dims.lhs_batch.begin(), 0);
    dims.rhs_batch.insert(dims.rhs_batch.begin(), 0);
    // The original result's sharding (an out_sharding the user gave) carries over.
    sharding::OptOutSharding out;
    if (!t.mesh().explicit_axes().empty()) out = sharding::OutSharding{batch_spec(batch_entry(t, a.x[0].value), rt)};
    return {batched(trace::dot_general(t, a.x[0].value, a.x[1].value, dims, out))};
  }
  // Where the batch dim lands: after the batch dims, then (lhs) first free dim or (rhs) after
  // the lhs free dims. The original result's sharding carries over there.
  const auto nb = static_cast<int64_t>(d.lhs_batch.size());
  const auto lhs_free = static_cast<int64_t>(a.operand_type(0).rank() - d.lhs_contracting.size() - d.lhs_batch.size());
  const int64_t at = lb ? nb : nb + lhs_free;
  sharding::OptOutSharding out;
  if (!t.mesh().explicit_axes().empty()) {
    auto e = rt.spec().normalized(rt.rank()).entries();
    e.insert(e.begin() + at, batch_entry(t, a.x[lb ? 0 : 1].value));
    out = sharding::OutSharding{types::PartitionSpec(e)};
  }
  ValueId prod = trace::dot_general(t, a.x[0].value, a.x[1].value, dims, out);
  return {batched(trace::move_dim(t, prod, at, 0))};
}

}  // namespace shard::batching
