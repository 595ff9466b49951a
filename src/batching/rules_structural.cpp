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
// Start indices with 0 for the batch dim; batched indices are read by gather_dim first.
std::vector<ValueId> starts_after(BatchArgs& a, size_t from) {
  std::vector<ValueId> starts{trace::scalar_constant(a.t, 0, {types::DType::I32, false})};
  for (size_t i = from; i < a.x.size(); ++i) {
    if (a.x[i].batched)
      unsupported("vmap of a dynamic_update_slice with batched indices is not supported yet (it needs a scatter)");
    starts.push_back(a.x[i].value);
  }
  return starts;
}

ValueId i32(Trace& t, int64_t v) { return trace::scalar_constant(t, static_cast<double>(v), {types::DType::I32, false}); }

// x[b, ..., s[b] + j, ...] for j < k along dim d (1 + the operand dim) of a batched x, each lane
// with its own start s ([B] int32, clamped as dynamic_slice clamps): a one-hot selection summed
// over the dim -- a gather by select, exact for every dtype.
ValueId gather_dim(Trace& t, ValueId x, int64_t d, ValueId s, int64_t k) {
  const ArrayType xt = t.type(x);
  const auto rank = static_cast<int64_t>(xt.rank());
  const int64_t n = xt.shape()[static_cast<size_t>(d)], size = xt.shape()[0];
  const ValueId s32 = trace::convert(t, s, {types::DType::I32, false});
  const ValueId lo = i32(t, 0), hi = i32(t, n - k);
  s = trace::clip(t, s32, lo, hi);
  // mask[b, j, m] = (m == s[b] + j)
  ValueId sb = trace::broadcast_in_dim(t, s, {size, k, n}, {0});
  ValueId j = trace::iota(t, types::DType::I32, {size, k, n}, 1, std::nullopt);
  ValueId m = trace::iota(t, types::DType::I32, {size, k, n}, 2, std::nullopt);
  ValueId mask = trace::binary(t, "eq", ir::EwOp::Eq, m, trace::binary(t, "add", ir::EwOp::Add, sb, j));
  // x as [..., k (new, before d), n, ...]; the mask on dims (0, d, d + 1)
  types::Shape wide = xt.shape();
  wide.insert(wide.begin() + d, k);
  std::vector<int64_t> xdims;
  for (int64_t i = 0; i < rank; ++i) xdims.push_back(i < d ? i : i + 1);
  ValueId xw = trace::broadcast_in_dim(t, x, wide, xdims);
  ValueId mw = trace::broadcast_in_dim(t, mask, wide, {0, d, d + 1});
  ValueId zero = trace::scalar_constant(t, 0, {xt.dtype(), false});
  ValueId picked = trace::where(t, mw, xw, zero);
  const ir::ReduceKind kind = xt.dtype() == types::DType::Bool ? ir::ReduceKind::Or : ir::ReduceKind::Sum;
  return trace::convert(t, trace::reduce(t, "gather", kind, picked, {d + 1}, false), {xt.dtype(), xt.weak_type()});
}
}  // namespace

std::vector<Batched> batch_DynamicSlice(BatchArgs& a) {
  Trace& t = a.t;
  const auto& sizes = a.op.attr<ir::attr::DynamicSlice>().slice_sizes;
  ValueId x = a.full(0);
  std::vector<ValueId> starts{i32(t, 0)};
  for (size_t i = 1; i < a.x.size(); ++i) {
    const auto d = static_cast<int64_t>(i);  // operand dim i - 1 is dim i of the batched x
    if (a.x[i].batched) {
      x = gather_dim(t, x, d, a.x[i].value, sizes[i - 1]);
      starts.push_back(i32(t, 0));
    } else {
      starts.push_back(a.x[i].value);
    }
  }
  return {batched(trace::dynamic_slice(t, x, starts, with_batch(a.size, sizes)))};
}

// dynamic_update_slice with batched starts: the update spread over each dim to its lane's
// window (a one-hot selection), then selected in where the window is (a scatter by select).
std::vector<Batched> batch_DynamicUpdateSlice(BatchArgs& a) {
  Trace& t = a.t;
  bool any_batched_start = false;
  for (size_t i = 2; i < a.x.size(); ++i) any_batched_start |= a.x[i].batched;
  if (!any_batched_start) {
    const ValueId x = a.full(0), u = a.full(1);
    return {batched(trace::dynamic_update_slice(t, x, u, starts_after(a, 2)))};
  }
  ValueId x = a.full(0), u = a.full(1);
  const ArrayType xt = t.type(x);
  const int64_t size = xt.shape()[0];
  std::optional<ValueId> inside;  // where the window is, per lane
  for (size_t i = 2; i < a.x.size(); ++i) {
    const auto d = static_cast<int64_t>(i - 1);  // dim d of the batched arrays
    const int64_t n = xt.shape()[static_cast<size_t>(d)], k = t.type(u).shape()[static_cast<size_t>(d)];
    ValueId s = a.x[i].batched ? a.x[i].value : trace::broadcast_in_dim(t, a.x[i].value, {size}, {});
    const ValueId s32 = trace::convert(t, s, {types::DType::I32, false});
    const ValueId lo = i32(t, 0), hi = i32(t, n - k);
    s = trace::clip(t, s32, lo, hi);
    if (k != n) {  // spread u along d: [.., k, ..] -> [.., n, ..]
      const ArrayType ut = t.type(u);
      ValueId sb = trace::broadcast_in_dim(t, s, {size, k, n}, {0});
      ValueId j = trace::iota(t, types::DType::I32, {size, k, n}, 1, std::nullopt);
      ValueId m = trace::iota(t, types::DType::I32, {size, k, n}, 2, std::nullopt);
      ValueId mask = trace::binary(t, "eq", ir::EwOp::Eq, m, trace::binary(t, "add", ir::EwOp::Add, sb, j));
      types::Shape wide = ut.shape();
      wide.insert(wide.begin() + d + 1, n);
      std::vector<int64_t> udims;
      for (int64_t q = 0; q < static_cast<int64_t>(ut.rank()); ++q) udims.push_back(q <= d ? q : q + 1);
      ValueId uw = trace::broadcast_in_dim(t, u, wide, udims);
      ValueId mw = trace::broadcast_in_dim(t, mask, wide, {0, d, d + 1});
      ValueId zero = trace::scalar_constant(t, 0, {ut.dtype(), false});
      ValueId picked = trace::where(t, mw, uw, zero);
      const ir::ReduceKind kind = ut.dtype() == types::DType::Bool ? ir::ReduceKind::Or : ir::ReduceKind::Sum;
      u = trace::convert(t, trace::reduce(t, "scatter", kind, picked, {d}, false), {ut.dtype(), ut.weak_type()});
    }
    // s <= m < s + k, per lane, over this dim
    ValueId m = trace::iota(t, types::DType::I32, {size, n}, 1, std::nullopt);
    ValueId sb = trace::broadcast_in_dim(t, s, {size, n}, {0});
    ValueId at_or_after = trace::binary(t, "ge", ir::EwOp::Ge, m, sb);
    ValueId end = trace::binary(t, "add", ir::EwOp::Add, sb, i32(t, k));
    ValueId before_end = trace::binary(t, "lt", ir::EwOp::Lt, m, end);
    ValueId in_d = trace::binary(t, "and", ir::EwOp::And, at_or_after, before_end);
    ValueId in_full = trace::broadcast_in_dim(t, in_d, xt.shape(), {0, d});
    inside = inside ? trace::binary(t, "and", ir::EwOp::And, *inside, in_full) : in_full;
  }
  return {batched(trace::where(t, *inside, u, x))};
}

}  // namespace shard::batching
