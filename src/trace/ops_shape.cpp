// Shape ops and contractions.
#include <fmt/format.h>

#include <algorithm>

#include "trace/ops.hpp"

namespace shard::trace {

using ir::OpKind;

ValueId reshape(Trace& t, ValueId x, Shape new_sizes, const OptOutSharding& out_sharding) {
  const auto xt = t.type(x);
  // One -1 is inferred, as numpy.
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < new_sizes.size(); ++i) {
    if (new_sizes[i] == -1) {
      if (infer >= 0) throw types::ShardingError("ValueError", "can only specify one unknown dimension");
      infer = static_cast<int64_t>(i);
    } else if (__builtin_mul_overflow(known, new_sizes[i], &known)) {
      known = 0;  // more than 64 bits: nothing to infer, and shape_product below says so
    }
  }
  if (infer >= 0 && known != 0 && xt.num_elements() % known == 0) new_sizes[infer] = xt.num_elements() / known;
  if (types::shape_product(new_sizes) != xt.num_elements() || (infer >= 0 && new_sizes[infer] < 0))
    throw types::ShardingError("TypeError", fmt::format("cannot reshape array of shape {} (size {}) into shape {}",
                                                        types::py_int_tuple(xt.shape()), xt.num_elements(),
                                                        types::py_int_tuple(new_sizes)));
  auto rt = sharding::propagate_reshape(t.ctx("reshape"), xt, new_sizes, out_sharding);
  if (rt == xt) return x;
  return t.emit(OpKind::Reshape, {x}, rt);
}

ValueId transpose(Trace& t, ValueId x, std::vector<int64_t> perm) {
  const auto xt = t.type(x);
  if (perm.empty())
    for (size_t d = xt.rank(); d-- > 0;) perm.push_back(static_cast<int64_t>(d));
  if (perm.size() != xt.rank())
    throw types::ShardingError("ValueError", "axes don't match array");
  for (auto& p : perm) p = normalize_axis("transpose", p, xt.rank());
  auto rt = sharding::propagate_transpose(t.ctx("transpose"), xt, perm);
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == static_cast<int64_t>(i);
  if (identity) return x;
  ir::attr::Transpose a;
  a.permutation = perm;
  return t.emit(OpKind::Transpose, {x}, rt, a);
}

ValueId move_dim(Trace& t, ValueId x, int64_t from, int64_t to) {
  const auto rank = static_cast<int64_t>(t.type(x).rank());
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i)
    if (i != from) perm.push_back(i);
  perm.insert(perm.begin() + to, from);
  return transpose(t, x, perm);  // the identity needs no op
}

ValueId expand_dims(Trace& t, ValueId x, std::vector<int64_t> axes) {
  const auto xt = t.type(x);
  const size_t out_rank = xt.rank() + axes.size();
  for (auto& a : axes) a = normalize_axis("expand_dims", a, out_rank);
  std::sort(axes.begin(), axes.end());
  auto rt = sharding::propagate_expand_dims(t.ctx("expand_dims"), xt, axes);
  return t.emit(OpKind::Reshape, {x}, rt);
}

ValueId squeeze(Trace& t, ValueId x, std::optional<std::vector<int64_t>> axes) {
  const auto xt = t.type(x);
  ArrayType rt;
  if (!axes) {
    rt = sharding::propagate_squeeze_all(t.ctx("squeeze"), xt);
  } else {
    for (auto& a : *axes) {
      a = normalize_axis("squeeze", a, xt.rank());
      if (xt.shape()[a] != 1)
        throw types::ShardingError("ValueError", "cannot select an axis to squeeze out which has size not equal to one");
    }
    rt = sharding::propagate_squeeze(t.ctx("squeeze"), xt, *axes);
  }
  if (rt.shape() == xt.shape()) return x;
  return t.emit(OpKind::Reshape, {x}, rt);
}

ValueId concatenate(Trace& t, const std::vector<ValueId>& xs, int64_t axis) {
  if (xs.empty()) throw types::ShardingError("ValueError", "Need at least one array to concatenate.");
  std::vector<ArrayType> ts;
  DTypeW p{t.type(xs[0]).dtype(), t.type(xs[0]).weak_type()};
  for (auto x : xs) {
    ts.push_back(t.type(x));
    p = promote(p, {t.type(x).dtype(), t.type(x).weak_type()});
  }
  if (ts[0].rank() == 0) throw types::ShardingError("ValueError", "Zero-dimensional arrays cannot be concatenated.");
  axis = normalize_axis("concatenate", axis, ts[0].rank());
  std::vector<ValueId> conv;
  std::vector<ArrayType> cts;
  for (auto x : xs) {
    conv.push_back(convert(t, x, p));
    cts.push_back(t.type(conv.back()));
  }
  auto rt = sharding::propagate_concatenate(t.ctx("concatenate"), cts, axis);
  if (conv.size() == 1) return conv[0];
  ir::attr::Concatenate a;
  a.dimension = axis;
  return t.emit(OpKind::Concatenate, conv, rt, a);
}

ValueId stack(Trace& t, const std::vector<ValueId>& xs, int64_t axis) {
  if (xs.empty()) throw types::ShardingError("ValueError", "Need at least one array to stack.");
  const size_t out_rank = t.type(xs[0]).rank() + 1;
  axis = normalize_axis("stack", axis, out_rank);
  std::vector<ValueId> expanded;
  for (auto x : xs) {
    if (t.type(x).shape() != t.type(xs[0]).shape())
      throw types::ShardingError("ValueError", "All input arrays must have the same shape.");
    expanded.push_back(expand_dims(t, x, {axis}));
  }
  return concatenate(t, expanded, axis);
}

ValueId slice(Trace& t, ValueId x, const Shape& start, const Shape& limit, const Shape& strides) {
  const auto xt = t.type(x);
  auto rt = sharding::propagate_slice(t.ctx("slice"), xt, start, limit, strides);
  if (rt.shape() == xt.shape()) return x;
  ir::attr::Slice a;
  a.start_indices = start;
  a.limit_indices = limit;
  a.strides = strides;
  return t.emit(OpKind::Slice, {x}, rt, a);
}

// x[i, j] at integer indices: a slice whose indexed dims lose their sharding (the
// partitioner gathers them), then a reshape that removes them.
ValueId index_dims(Trace& t, ValueId x, const std::vector<int64_t>& dims, const std::vector<int64_t>& indices) {
  const auto xt = t.type(x);
  Shape start(xt.rank(), 0), limit = xt.shape(), sizes = xt.shape();
  auto entries = xt.spec().entries();
  entries.resize(xt.rank());
  for (size_t i = 0; i < dims.size(); ++i) {
    start[dims[i]] = indices[i];
    limit[dims[i]] = indices[i] + 1;
    sizes[dims[i]] = 1;
    entries[dims[i]] = {};
  }
  auto st = xt.with_shape(sizes, types::PartitionSpec(entries));
  ir::attr::Slice a;
  a.start_indices = start;
  a.limit_indices = limit;
  ValueId s = t.emit(OpKind::Slice, {x}, st, a);
  auto rt = sharding::propagate_index(t.ctx("getitem"), xt, dims);
  return t.emit(OpKind::Reshape, {s}, rt);
}

ValueId rev(Trace& t, ValueId x, std::vector<int64_t> dims) {
  const auto xt = t.type(x);
  for (auto& d : dims) d = normalize_axis("flip", d, xt.rank());
  auto rt = sharding::propagate_rev(t.ctx("rev"), xt, dims);
  ir::attr::Rev a;
  a.dimensions = dims;
  return t.emit(OpKind::Rev, {x}, rt, a);
}

ValueId dot_general(Trace& t, ValueId lhs, ValueId rhs, const sharding::DotDims& dims, const OptOutSharding& out_sharding,
                    const std::string& name) {
  const auto& lt = t.type(lhs);
  const auto& rt = t.type(rhs);
  DTypeW p = promote({lt.dtype(), lt.weak_type()}, {rt.dtype(), rt.weak_type()});
  for (size_t i = 0; i < dims.lhs_contracting.size(); ++i)
    if (lt.shape()[dims.lhs_contracting[i]] != rt.shape()[dims.rhs_contracting[i]])
      throw types::ShardingError("TypeError", fmt::format("{} requires contracting dimensions to have the same shape, got {} and {}.",
                                                          name, types::py_int_tuple({lt.shape()[dims.lhs_contracting[i]]}),
                                                          types::py_int_tuple({rt.shape()[dims.rhs_contracting[i]]})));
  ValueId l = convert(t, lhs, p), r = convert(t, rhs, p);
  auto ot = sharding::propagate_dot_general(t.ctx(name), t.type(l), t.type(r), dims, p.dtype, out_sharding).with_weak_type(p.weak);
  ir::attr::DotGeneral a;
  a.lhs_contracting = dims.lhs_contracting;
  a.rhs_contracting = dims.rhs_contracting;
  a.lhs_batch = dims.lhs_batch;
  a.rhs_batch = dims.rhs_batch;
  return t.emit(OpKind::DotGeneral, {l, r}, ot, a);
}

ValueId matmul(Trace& t, ValueId lhs, ValueId rhs, const OptOutSharding& out_sharding, const std::string& name) {
  const auto lt = t.type(lhs);
  const auto rt = t.type(rhs);
  if (lt.rank() == 0 || rt.rank() == 0)
    throw types::ShardingError("TypeError", fmt::format("{}: inputs must be at least 1-dimensional, got shapes {} and {}", name,
                                                        types::py_int_tuple(lt.shape()), types::py_int_tuple(rt.shape())));
  const int64_t lr = static_cast<int64_t>(lt.rank()), rr = static_cast<int64_t>(rt.rank());
  const int64_t lk = lr - 1, rk = rr == 1 ? 0 : rr - 2;
  if (lt.shape()[lk] != rt.shape()[rk])
    throw types::ShardingError("TypeError", fmt::format("{}: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
                                                        "signature (n?,k),(k,m?)->(n?,m?) (size {} is different from {})",
                                                        name, rt.shape()[rk], lt.shape()[lk]));
  sharding::DotDims d;
  d.lhs_contracting = {lk};
  d.rhs_contracting = {rk};
  // Batch dims: leading dims present on both sides with equal sizes (no batch broadcasting).
  const int64_t lb = std::max<int64_t>(lr - 2, 0), rb = std::max<int64_t>(rr - 2, 0);
  if (lb > 0 && rb > 0) {
    if (lb != rb) throw types::ShardingError("TypeError", fmt::format("{}: batch broadcasting is not supported yet", name));
    for (int64_t i = 0; i < lb; ++i) {
      if (lt.shape()[i] != rt.shape()[i])
        throw types::ShardingError("TypeError", fmt::format("{}: batch dims differ: {} and {}", name,
                                                            types::py_int_tuple(lt.shape()), types::py_int_tuple(rt.shape())));
      d.lhs_batch.push_back(i);
      d.rhs_batch.push_back(i);
    }
  } else if (rb > 0) {
    throw types::ShardingError("TypeError", fmt::format("{}: batched rhs with a 1-D/2-D lhs is not supported yet", name));
  }
  return dot_general(t, lhs, rhs, d, out_sharding, name);
}

ValueId pad(Trace& t, ValueId x, ValueId value, const Shape& low, const Shape& high, bool keep_if_empty) {
  std::vector<sharding::PadDim> cfg;
  bool any = false;
  for (size_t d = 0; d < low.size(); ++d) {
    cfg.push_back({low[d], high[d], 0});
    any |= low[d] != 0 || high[d] != 0;
  }
  if (!any && !keep_if_empty) return x;
  auto rt = sharding::propagate_pad(t.ctx("pad"), t.type(x), cfg);
  ir::attr::Pad a;
  a.low = low;
  a.high = high;
  return t.emit(OpKind::Pad, {x, convert(t, value, {t.type(x).dtype(), false})}, rt, a);
}

ValueId dynamic_slice(Trace& t, ValueId x, const std::vector<ValueId>& starts, const Shape& sizes) {
  auto rt = sharding::propagate_dynamic_slice(t.ctx("dynamic_slice"), t.type(x), sizes);
  std::vector<ValueId> operands = {x};
  operands.insert(operands.end(), starts.begin(), starts.end());
  ir::attr::DynamicSlice a;
  a.slice_sizes = sizes;
  return t.emit(OpKind::DynamicSlice, operands, rt, a);
}

ValueId dynamic_update_slice(Trace& t, ValueId x, ValueId update, const std::vector<ValueId>& starts) {
  auto rt = sharding::propagate_dynamic_update_slice(t.ctx("dynamic_update_slice"), t.type(x), t.type(update));
  std::vector<ValueId> operands = {x, update};
  operands.insert(operands.end(), starts.begin(), starts.end());
  return t.emit(OpKind::DynamicUpdateSlice, operands, rt);
}

ValueId reshard(Trace& t, ValueId x, const OptOutSharding& spec) {
  auto rt = sharding::propagate_reshard(t.ctx("reshard"), t.type(x), spec);
  return t.emit(OpKind::Reshard, {x}, rt);
}

}  // namespace shard::trace
