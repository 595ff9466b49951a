// Rules of the ops that create, move and select data: tangents go through the same op (they
// are linear), and each transposes to the op that puts data back where it came from.
#include <numeric>

#include "autodiff/rules.hpp"

namespace shard::autodiff {

using ir::OpKind;

// Sources: no operands, so never a tangent.
JvpOut jvp_Constant(JvpArgs& a) { return emit_primal(a); }
JvpOut jvp_Iota(JvpArgs& a) { return emit_primal(a); }

JvpOut jvp_BroadcastInDim(JvpArgs& a) { return jvp_linear_unary(a); }
JvpOut jvp_Reshape(JvpArgs& a) { return jvp_linear_unary(a); }
JvpOut jvp_Transpose(JvpArgs& a) { return jvp_linear_unary(a); }
JvpOut jvp_Slice(JvpArgs& a) { return jvp_linear_unary(a); }
JvpOut jvp_Rev(JvpArgs& a) { return jvp_linear_unary(a); }

JvpOut jvp_Concatenate(JvpArgs& a) {
  JvpOut out = emit_primal(a);
  std::vector<ValueId> ts;
  for (size_t i = 0; i < a.x.size(); ++i) ts.push_back(instantiate(a.t, a.dx[i], a.operand_type(i)));
  out.dy[0] = emit_like1(a.t, a.fn, a.op, ts);
  return out;
}

JvpOut jvp_Pad(JvpArgs& a) {  // operands: the array, the padding value
  JvpOut out = emit_primal(a);
  out.dy[0] = emit_like1(a.t, a.fn, a.op, {instantiate(a.t, a.dx[0], a.operand_type(0)), instantiate(a.t, a.dx[1], a.operand_type(1))});
  return out;
}

JvpOut jvp_DynamicSlice(JvpArgs& a) {  // operands: the array, then the start indices
  JvpOut out = emit_primal(a);
  if (!a.dx[0]) return out;
  std::vector<ValueId> ops = a.x;
  ops[0] = *a.dx[0];
  out.dy[0] = emit_like1(a.t, a.fn, a.op, ops);
  return out;
}

JvpOut jvp_DynamicUpdateSlice(JvpArgs& a) {  // operands: the array, the update, the starts
  JvpOut out = emit_primal(a);
  if (!a.dx[0] && !a.dx[1]) return out;
  std::vector<ValueId> ops = a.x;
  ops[0] = instantiate(a.t, a.dx[0], a.operand_type(0));
  ops[1] = instantiate(a.t, a.dx[1], a.operand_type(1));
  out.dy[0] = emit_like1(a.t, a.fn, a.op, ops);
  return out;
}

// Broadcasting copies: the cotangent sums over the copies.
std::vector<Tangent> transpose_BroadcastInDim(TransposeArgs& a) {
  const ArrayType in = a.operand_type(0), res = a.result_type();
  const auto& dims = a.op.attr<ir::attr::BroadcastInDim>().broadcast_dimensions;
  std::vector<int64_t> sum_axes;
  for (size_t d = 0; d < res.rank(); ++d) {
    auto it = std::find(dims.begin(), dims.end(), static_cast<int64_t>(d));
    if (it == dims.end()) sum_axes.push_back(static_cast<int64_t>(d));
    else if (in.shape()[static_cast<size_t>(it - dims.begin())] == 1 && res.shape()[d] != 1) sum_axes.push_back(static_cast<int64_t>(d));
  }
  ValueId ct = a.ct_value();
  if (!sum_axes.empty()) ct = trace::reduce(a.t, "reduce_sum", ir::ReduceKind::Sum, ct, sum_axes, false);
  if (a.t.type(ct).shape() != in.shape()) ct = trace::reshape(a.t, ct, in.shape(), pinned_sharding(a.t, in));
  return {ct};
}

std::vector<Tangent> transpose_Reshape(TransposeArgs& a) {
  const ArrayType in = a.operand_type(0), res = a.result_type();
  ValueId ct = a.ct_value();
  // pvary is a same-shape reshape that adds varying axes: its transpose sums over them.
  types::AxisNames added;
  for (auto& ax : res.vma())
    if (std::find(in.vma().begin(), in.vma().end(), ax) == in.vma().end()) added.push_back(ax);
  if (!added.empty()) ct = trace::all_reduce(a.t, "psum", ir::ReduceKind::Sum, ct, added);
  if (a.t.type(ct).shape() != in.shape()) ct = trace::reshape(a.t, ct, in.shape(), pinned_sharding(a.t, in));
  return {ct};
}

std::vector<Tangent> transpose_Transpose(TransposeArgs& a) {
  const auto& perm = a.op.attr<ir::attr::Transpose>().permutation;
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return {trace::transpose(a.t, a.ct_value(), inverse)};
}

std::vector<Tangent> transpose_Rev(TransposeArgs& a) {
  return {trace::rev(a.t, a.ct_value(), a.op.attr<ir::attr::Rev>().dimensions)};
}

// A slice's cotangent is zero outside the slice: the cotangent padded back to the operand's
// shape, strided dims first spread out with zeros between the elements. An element may sit
// first or last in its group of `stride`; whichever fits inside the operand avoids a
// trailing cut (which a sharded dim may not allow).
std::vector<Tangent> transpose_Slice(TransposeArgs& a) {
  Trace& t = a.t;
  const ArrayType in = a.operand_type(0);
  const auto& s = a.op.attr<ir::attr::Slice>();
  ValueId ct = a.ct_value();
  const size_t rank = in.rank();
  types::Shape low(rank), high(rank);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t stride = s.strides.empty() ? 1 : s.strides[d];
    const int64_t n = t.type(ct).shape()[d];
    const int64_t start = s.start_indices[d], size = in.shape()[d];
    low[d] = start;
    high[d] = size - start - n;
    if (stride <= 1 || n == 0) continue;
    // [.., n, ..] -> [.., n, 1, ..] -> [.., n, stride, ..] -> [.., n*stride, ..]
    const bool last = start >= stride - 1 && size - (start - stride + 1) - n * stride >= 0;
    types::Shape sh = t.type(ct).shape();
    types::Shape expanded = sh;
    expanded.insert(expanded.begin() + static_cast<long>(d) + 1, 1);
    ValueId e = trace::reshape(t, ct, expanded);
    types::Shape lo(expanded.size(), 0), hi(expanded.size(), 0);
    (last ? lo : hi)[d + 1] = stride - 1;
    e = trace::pad(t, e, scalar_like(t, 0, e), lo, hi);
    sh[d] = n * stride;
    ct = trace::reshape(t, e, sh);
    low[d] = last ? start - (stride - 1) : start;
    high[d] = size - low[d] - n * stride;
  }
  // Neither placement fits: cut the trailing zeros off.
  bool cut = false;
  types::Shape limit = t.type(ct).shape();
  for (size_t d = 0; d < rank; ++d)
    if (high[d] < 0) {
      limit[d] += high[d];
      high[d] = 0;
      cut = true;
    }
  if (cut) ct = trace::slice(t, ct, types::Shape(rank, 0), limit, {});
  ct = trace::pad(t, ct, scalar_like(t, 0, ct), low, high);
  return {ct};
}

std::vector<Tangent> transpose_Concatenate(TransposeArgs& a) {
  const int64_t dim = a.op.attr<ir::attr::Concatenate>().dimension;
  ValueId ct = a.ct_value();
  std::vector<Tangent> out(a.op.operands.size());
  int64_t offset = 0;
  for (size_t i = 0; i < a.op.operands.size(); ++i) {
    const ArrayType in = a.operand_type(i);
    const int64_t n = in.shape()[static_cast<size_t>(dim)];
    if (a.linear[i]) {
      types::Shape start(in.rank(), 0), limit = a.result_type().shape();
      start[static_cast<size_t>(dim)] = offset;
      limit[static_cast<size_t>(dim)] = offset + n;
      out[i] = trace::slice(a.t, ct, start, limit, {});
    }
    offset += n;
  }
  return out;
}

std::vector<Tangent> transpose_Pad(TransposeArgs& a) {
  Trace& t = a.t;
  const ArrayType in = a.operand_type(0);
  const auto& p = a.op.attr<ir::attr::Pad>();
  ValueId ct = a.ct_value();
  std::vector<Tangent> out(2);
  types::Shape start(in.rank()), limit(in.rank());
  for (size_t d = 0; d < in.rank(); ++d) {
    start[d] = p.low[d];
    limit[d] = p.low[d] + in.shape()[d];
  }
  ValueId inner = trace::slice(t, ct, start, limit, {});
  if (a.linear[0]) out[0] = inner;
  if (a.linear[1]) {
    auto total = [&](ValueId v) { return trace::reduce(t, "reduce_sum", ir::ReduceKind::Sum, v, {}, false); };
    ValueId whole = total(ct);
    out[1] = sub(t, whole, total(inner));
  }
  return out;
}

std::vector<Tangent> transpose_DynamicSlice(TransposeArgs& a) {
  std::vector<ValueId> starts(a.x.begin() + 1, a.x.end());
  std::vector<Tangent> out(a.op.operands.size());
  ValueId zero = zeros(a.t, a.operand_type(0));
  out[0] = trace::dynamic_update_slice(a.t, zero, a.ct_value(), starts);
  return out;
}

std::vector<Tangent> transpose_DynamicUpdateSlice(TransposeArgs& a) {
  std::vector<ValueId> starts(a.x.begin() + 2, a.x.end());
  const ArrayType upd = a.operand_type(1);
  ValueId ct = a.ct_value();
  std::vector<Tangent> out(a.op.operands.size());
  if (a.linear[0]) out[0] = trace::dynamic_update_slice(a.t, ct, zeros(a.t, upd), starts);
  if (a.linear[1]) out[1] = trace::dynamic_slice(a.t, ct, starts, upd.shape());
  return out;
}

}  // namespace shard::autodiff
