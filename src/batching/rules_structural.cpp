// Batching of the ops that create, move and select data: each is the same op with its dims
// shifted past the leading batch dim.
#include "batching/rules.hpp"

namespace shard::batching {

using ir::OpKind;

// Sources have no operands, so they are never batched (the driver copies them).
std::vector<Batched> batch_Constant(BatchArgs&) { throw std::logic_error("internal error: a batched constant"); }
std::vector<Batched> batch_Iota(BatchArgs&) { throw std::logic_error("internal error: a batched iota"); }

std::vector<Batched> batch_BroadcastInDim(BatchArgs& a) {
  ir::attr::BroadcastInDim b = a.op.attr<ir::attr::BroadcastInDim>();
  b.broadcast_dimensions = shifted(b.broadcast_dimensions);
  b.broadcast_dimensions.insert(b.broadcast_dimensions.begin(), 0);
  return {batched(a.t.emit(OpKind::BroadcastInDim, {a.x[0].value}, a.batched_result(), b))};
}

// reshape (and pvary, a same-shape reshape of the type): the batch dim stays in front.
std::vector<Batched> batch_Reshape(BatchArgs& a) {
  return {batched(a.t.emit(OpKind::Reshape, {a.x[0].value}, a.batched_result()))};
}

std::vector<Batched> batch_Transpose(BatchArgs& a) {
  ir::attr::Transpose p = a.op.attr<ir::attr::Transpose>();
  p.permutation = shifted(p.permutation);
  p.permutation.insert(p.permutation.begin(), 0);
  return {batched(a.t.emit(OpKind::Transpose, {a.x[0].value}, a.batched_result(), p))};
}

std::vector<Batched> batch_Slice(BatchArgs& a) {
  ir::attr::Slice s = a.op.attr<ir::attr::Slice>();
  s.start_indices.insert(s.start_indices.begin(), 0);
  s.limit_indices.insert(s.limit_indices.begin(), a.size);
  if (!s.strides.empty()) s.strides.insert(s.strides.begin(), 1);
  return {batched(a.t.emit(OpKind::Slice, {a.x[0].value}, a.batched_result(), s))};
}

std::vector<Batched> batch_Concatenate(BatchArgs& a) {
  std::vector<ValueId> xs;
  for (size_t i = 0; i < a.x.size(); ++i) xs.push_back(a.full(i));
  return {batched(trace::concatenate(a.t, xs, a.op.attr<ir::attr::Concatenate>().dimension + 1))};
}

std::vector<Batched> batch_Pad(BatchArgs& a) {
  if (a.x[1].batched) unsupported("vmap of lax.pad with a batched padding value is not supported yet");
  ir::attr::Pad p = a.op.attr<ir::attr::Pad>();
  p.low.insert(p.low.begin(), 0);
  p.high.insert(p.high.begin(), 0);
  return {batched(a.t.emit(OpKind::Pad, {a.x[0].value, a.x[1].value}, a.batched_result(), p))};
}

std::vector<Batched> batch_Rev(BatchArgs& a) {
  ir::attr::Rev r = a.op.attr<ir::attr::Rev>();
  r.dimensions = shifted(r.dimensions);
  return {batched(a.t.emit(OpKind::Rev, {a.x[0].value}, a.batched_result(), r))};
}

namespace {
// Start indices with 0 for the batch dim; batched indices would need a gather.
std::vector<ValueId> starts_after(BatchArgs& a, size_t from) {
  std::vector<ValueId> starts{trace::scalar_constant(a.t, 0, {types::DType::I32, false})};
  for (size_t i = from; i < a.x.size(); ++i) {
    if (a.x[i].batched)
      unsupported("vmap of a dynamic slice or index with batched indices is not supported yet (it needs a gather)");
    starts.push_back(a.x[i].value);
  }
  return starts;
}
}  // namespace

std::vector<Batched> batch_DynamicSlice(BatchArgs& a) {
  auto starts = starts_after(a, 1);
  return {batched(trace::dynamic_slice(a.t, a.full(0), starts, with_batch(a.size, a.op.attr<ir::attr::DynamicSlice>().slice_sizes)))};
}

std::vector<Batched> batch_DynamicUpdateSlice(BatchArgs& a) {
  auto starts = starts_after(a, 2);
  return {batched(trace::dynamic_update_slice(a.t, a.full(0), a.full(1), starts))};
}

}  // namespace shard::batching
