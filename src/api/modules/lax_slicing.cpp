// jax.lax slicing: slice and slice_in_dim (static bounds), dynamic_slice and
// dynamic_update_slice (start indices may be traced values).
#include <fmt/format.h>

#include "api/modules/lax_module.hpp"
#include "interp/builtins/support.hpp"
#include "ir/ir.hpp"

namespace shard::api::lax {

using ir::EwOp;
using interp::ArgParser;

namespace {

// A start index as int32, negative ones counted from the end of the dim (as lax does before
// clamping: i < 0 ? i + size : i).
ValueId wrapped_start(Trace& t, ValueId index, int64_t size) {
  ValueId i = trace::convert(t, index, {DType::I32, false});
  ValueId zero = trace::scalar_constant(t, 0, {DType::I32, false});
  ValueId negative = trace::binary(t, "lt", EwOp::Lt, i, zero);
  ValueId from_end = trace::binary(t, "add", EwOp::Add, i, trace::scalar_constant(t, static_cast<double>(size), {DType::I32, false}));
  return trace::where(t, negative, from_end, i);
}

// Start indices of dynamic_slice / dynamic_update_slice: Python ints or scalar arrays.
std::vector<Value> index_operands(Interp& I, const Value& v) {
  std::vector<Value> out;
  if (is_array_like(v) && type_of(v).rank() == 1) {
    for (int64_t i = 0; i < type_of(v).shape()[0]; ++i) out.push_back(op_getitem(I, v, interp::make_int(i)));
    return out;
  }
  for (auto& x : I.to_vector(v)) {
    if (!is_array_like(x) && !interp::bi::int_of(x))
      I.raise("TypeError", fmt::format("index arguments to dynamic_slice must be integers, got {}", I.repr(x)));
    out.push_back(x);
  }
  return out;
}

}  // namespace

void add_slicing(ModuleObj& m) {
  def_lax(m, "slice", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "slice", {"operand", "start_indices", "limit_indices", "strides="});
    auto start = int_list(I, p.get("start_indices"), "start_indices");
    auto limit = int_list(I, p.get("limit_indices"), "limit_indices");
    auto strides = int_list(I, p.get("strides"), "strides");
    return apply(I, "slice", {lax_operand(I, p.get("operand"), "slice", 0)}, [&](Trace& t, const std::vector<ValueId>& ids) {
      const auto& xt = t.type(ids[0]);
      if (start.size() != xt.rank() || limit.size() != xt.rank() || (!strides.empty() && strides.size() != xt.rank()))
        throw types::ShardingError("TypeError", fmt::format("slice start_indices must have length equal to the number of dimensions "
                                                            "of the operand, got indices {} for operand shape {}.",
                                                            types::py_int_tuple(start), types::py_int_tuple(xt.shape())));
      for (size_t d = 0; d < xt.rank(); ++d)
        if (start[d] < 0 || limit[d] > xt.shape()[d] || start[d] > limit[d] || (!strides.empty() && strides[d] < 1))
          throw types::ShardingError("TypeError", fmt::format("slice indices out of range: start_indices {}, limit_indices {} for "
                                                              "operand shape {}.",
                                                              types::py_int_tuple(start), types::py_int_tuple(limit),
                                                              types::py_int_tuple(xt.shape())));
      return std::vector<ValueId>{trace::slice(t, ids[0], start, limit, strides)};
    });
  });
  def_lax(m, "slice_in_dim", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "slice_in_dim", {"operand", "start_index", "limit_index", "stride=", "axis="});
    Value x = lax_operand(I, p.get("operand"), "slice_in_dim", 0);
    int64_t axis = p.has("axis") ? int_arg(I, p.get("axis"), "axis") : 0;
    int64_t stride = p.has("stride") ? int_arg(I, p.get("stride"), "stride") : 1;
    return apply(I, "slice", {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
      const auto& xt = t.type(ids[0]);
      int64_t ax = trace::normalize_axis("slice_in_dim", axis, xt.rank());
      const int64_t n = xt.shape()[ax];
      auto norm = [n](const Value& v, int64_t dflt) {
        if (is_none(v)) return dflt;
        int64_t i = *interp::bi::int_of(v);
        return i < 0 ? i + n : i;
      };
      Shape start(xt.rank(), 0), limit = xt.shape(), strides(xt.rank(), 1);
      start[ax] = norm(p.get("start_index"), 0);
      limit[ax] = norm(p.get("limit_index"), n);
      strides[ax] = stride;
      return std::vector<ValueId>{trace::slice(t, ids[0], start, limit, strides)};
    });
  });
  def_lax(m, "dynamic_slice", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "dynamic_slice", {"operand", "start_indices", "slice_sizes"});
    Value x = lax_operand(I, p.get("operand"), "dynamic_slice", 0);
    auto starts = index_operands(I, p.get("start_indices"));
    Shape sizes = shape_arg(I, p.get("slice_sizes"), "dynamic_slice");
    std::vector<Value> ops = {x};
    ops.insert(ops.end(), starts.begin(), starts.end());
    return apply(I, "dynamic_slice", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
      const auto& xt = t.type(ids[0]);
      if (starts.size() != xt.rank() || sizes.size() != xt.rank())
        throw types::ShardingError("TypeError", fmt::format("dynamic_slice: the start indices and slice sizes must each have one entry "
                                                            "per operand dimension ({}), got {} and {}.",
                                                            xt.rank(), starts.size(), sizes.size()));
      for (size_t d = 0; d < xt.rank(); ++d)
        if (sizes[d] < 0 || sizes[d] > xt.shape()[d])
          throw types::ShardingError("TypeError", fmt::format("slice slice_sizes must be less than or equal to operand shape, got "
                                                              "slice_sizes {} for operand shape {}.",
                                                              types::py_int_tuple(sizes), types::py_int_tuple(xt.shape())));
      std::vector<ValueId> starts;
      for (size_t i = 1; i < ids.size(); ++i) starts.push_back(wrapped_start(t, ids[i], xt.shape()[i - 1]));
      return std::vector<ValueId>{trace::dynamic_slice(t, ids[0], starts, sizes)};
    });
  });
  def_lax(m, "dynamic_update_slice", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "dynamic_update_slice", {"operand", "update", "start_indices"});
    Value x = lax_operand(I, p.get("operand"), "dynamic_update_slice", 0);
    Value u = lax_operand(I, p.get("update"), "dynamic_update_slice", 1);
    auto starts = index_operands(I, p.get("start_indices"));
    std::vector<Value> ops = {x, u};
    ops.insert(ops.end(), starts.begin(), starts.end());
    return apply(I, "dynamic_update_slice", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
      const auto& xt = t.type(ids[0]);
      const auto& ut = t.type(ids[1]);
      if (ut.rank() != xt.rank() || starts.size() != xt.rank())
        throw types::ShardingError("TypeError", fmt::format("dynamic_update_slice update must have the same rank as operand and one "
                                                            "start index per dimension, got update shape {} for operand shape {}.",
                                                            types::py_int_tuple(ut.shape()), types::py_int_tuple(xt.shape())));
      if (ut.dtype() != xt.dtype())
        throw types::ShardingError("TypeError", fmt::format("lax.dynamic_update_slice requires arguments to have the same dtypes, got "
                                                            "{}, {}.", types::dtype_name(xt.dtype()), types::dtype_name(ut.dtype())));
      for (size_t d = 0; d < xt.rank(); ++d)
        if (ut.shape()[d] > xt.shape()[d])
          throw types::ShardingError("TypeError", fmt::format("dynamic_update_slice update shape must be smaller than operand shape, "
                                                              "got update shape {} for operand shape {}.",
                                                              types::py_int_tuple(ut.shape()), types::py_int_tuple(xt.shape())));
      std::vector<ValueId> starts;
      for (size_t i = 2; i < ids.size(); ++i) starts.push_back(wrapped_start(t, ids[i], xt.shape()[i - 2]));
      return std::vector<ValueId>{trace::dynamic_update_slice(t, ids[0], ids[1], starts)};
    });
  });
  // The *_in_dim forms: one axis's start (and size); the other dims whole, from 0.
  const Value dynamic_slice = *m.dict.find("dynamic_slice");
  const Value dynamic_update_slice = *m.dict.find("dynamic_update_slice");
  auto starts_at = [](size_t rank, size_t axis, const Value& start) {
    std::vector<Value> starts(rank, interp::make_int(0));
    starts[axis] = start;
    return interp::make_list(std::move(starts));
  };
  def_lax(m, "dynamic_slice_in_dim", [dynamic_slice, starts_at](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "dynamic_slice_in_dim", {"operand", "start_index", "slice_size", "axis="});
    Value x = lax_operand(I, p.get("operand"), "dynamic_slice_in_dim", 0);
    const auto xt = type_of(x);
    const auto ax = static_cast<size_t>(guarded(I, [&] { return trace::normalize_axis("dynamic_slice_in_dim", p.has("axis") ? int_arg(I, p.get("axis"), "axis") : 0, xt.rank()); }));
    Shape sizes = xt.shape();
    sizes[ax] = int_arg(I, p.get("slice_size"), "slice_size");
    return I.call(dynamic_slice, {x, starts_at(xt.rank(), ax, p.get("start_index")), interp::bi::int_tuple(sizes)});
  });
  def_lax(m, "dynamic_index_in_dim", [dynamic_slice, starts_at](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "dynamic_index_in_dim", {"operand", "index", "axis=", "keepdims="});
    Value x = lax_operand(I, p.get("operand"), "dynamic_index_in_dim", 0);
    const auto xt = type_of(x);
    const auto ax = static_cast<size_t>(guarded(I, [&] { return trace::normalize_axis("dynamic_index_in_dim", p.has("axis") ? int_arg(I, p.get("axis"), "axis") : 0, xt.rank()); }));
    Shape sizes = xt.shape();
    sizes[ax] = 1;
    Value r = I.call(dynamic_slice, {x, starts_at(xt.rank(), ax, p.get("index")), interp::bi::int_tuple(sizes)});
    if (!p.has("keepdims") || I.truthy(p.get("keepdims"))) return r;
    return apply(I, "squeeze", {r}, [&](Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{trace::squeeze(t, ids[0], std::vector<int64_t>{static_cast<int64_t>(ax)})};
    });
  });
  def_lax(m, "dynamic_update_slice_in_dim", [dynamic_update_slice, starts_at](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "dynamic_update_slice_in_dim", {"operand", "update", "start_index", "axis"});
    Value x = lax_operand(I, p.get("operand"), "dynamic_update_slice_in_dim", 0);
    const auto xt = type_of(x);
    const auto ax = static_cast<size_t>(guarded(I, [&] { return trace::normalize_axis("dynamic_update_slice_in_dim", int_arg(I, p.get("axis"), "axis"), xt.rank()); }));
    return I.call(dynamic_update_slice, {x, p.get("update"), starts_at(xt.rank(), ax, p.get("start_index"))});
  });
  // top_k(operand, k): the k largest entries along the last axis, largest first, and their
  // indices (ties: the lower index first).
  def_lax(m, "top_k", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "top_k", {"operand", "k"});
    Value x = lax_operand(I, p.get("operand"), "top_k", 0);
    const int64_t k = int_arg(I, p.get("k"), "k");
    auto outs = apply_multi(I, "top_k", {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
      auto r = trace::top_k(t, ids[0], k);
      return std::vector<ValueId>{r.values, r.indices};
    });
    return interp::make_list(std::move(outs));
  });
}

}  // namespace shard::api::lax
