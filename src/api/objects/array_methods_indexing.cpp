// Basic indexing (ints, slices with steps, None, Ellipsis, tuples of them; integer lists
// and concrete integer arrays on one axis), numpy's in-place __setitem__ for host arrays, and
// JAX's functional updates `x.at[idx].set/add/multiply/min/max/get`.
//
// A read is rev (negative steps) -> slice -> drop integer-indexed dims -> insert new axes.
// An update spreads the update over the operand's shape — the inverse steps, with strided
// dims spread by pad-and-reshape — and a mask built the same way selects where it lands:
// result = where(mask, combine(x, spread(update)), x).
#include <fmt/format.h>

#include <algorithm>

#include "api/op_args.hpp"
#include "interp/builtins/support.hpp"
#include "ir/ir.hpp"

namespace shard::api {

using ir::EwOp;
using interp::ObjKind;
namespace bi = interp::bi;

namespace {

struct DimSel {
  int64_t start = 0, step = 1, length = 0;  // selected indices start + i*step, i < length
  bool integer = false;                     // an int index: the dim is removed
};

struct ParsedIndex {
  std::vector<DimSel> dims;          // one per operand dim
  std::vector<int64_t> new_axes;     // positions of None in the result
  Shape result_shape;
  // One integer-array index (gather along one axis), if any.
  std::optional<size_t> array_dim;   // operand dim it indexes
  std::vector<int64_t> array_indices;
  Shape array_shape;                 // shape of the index array
  bool out_of_bounds = false;        // an int index was out of range (updates drop it)
  // Traced scalar indices: (operand dim, value). Their DimSel reads index 0 of the size-1
  // dynamic_slice taken first.
  std::vector<std::pair<size_t, Value>> dynamic;
};

// Start indices (one per dim of `xt`) for the traced indices `idx` (one per p.dynamic
// entry); negative indices count from the end as in JAX; other dims start at 0.
std::vector<ValueId> dynamic_starts(Trace& t, const types::ArrayType& xt, const ParsedIndex& p, const std::vector<ValueId>& idx) {
  std::vector<ValueId> starts(xt.rank(), -1);
  for (size_t k = 0; k < p.dynamic.size(); ++k) {
    const size_t d = p.dynamic[k].first;
    ValueId i = trace::convert(t, idx[k], {DType::I32, false});
    ValueId n = trace::scalar_constant(t, static_cast<double>(xt.shape()[d]), {DType::I32, false});
    ValueId zero = trace::scalar_constant(t, 0, {DType::I32, false});
    ValueId negative = trace::binary(t, "lt", EwOp::Lt, i, zero);
    ValueId wrapped = trace::binary(t, "add", EwOp::Add, i, n);
    starts[d] = trace::where(t, negative, wrapped, i);
  }
  for (auto& s0 : starts)
    if (s0 < 0) s0 = trace::scalar_constant(t, 0, {DType::I32, false});
  return starts;
}

// The dynamic_slice of `x` at the traced indices, size 1 on those dims.
ValueId dynamic_take(Trace& t, ValueId x, const ParsedIndex& p, const std::vector<ValueId>& idx) {
  const auto xt = t.type(x);
  Shape sizes = xt.shape();
  for (auto& [d, v] : p.dynamic) sizes[d] = 1;
  return trace::dynamic_slice(t, x, dynamic_starts(t, xt, p, idx), sizes);
}

bool is_index_array(const Value& v) {
  if (v->kind == ObjKind::List) return true;
  if (auto* a = as_array(v)) return a->array->type.rank() > 0 || a->array->type.dtype() == DType::Bool;
  return false;
}

[[noreturn]] void bad_indexer(Interp& I, const Value& v, size_t pos, bool host) {
  if (host)
    I.raise("IndexError", "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or "
                          "boolean arrays are valid indices");
  std::string ty = v->kind == ObjKind::Float ? "float32" : I.type_name(v);
  I.raise("TypeError", fmt::format("Indexer must have integer or boolean type, got indexer with type {} at position {}, "
                                   "indexer value {}",
                                   ty, pos, I.repr(v)));
}

ParsedIndex parse_index(Interp& I, const Shape& shape, const Value& index, bool host, bool drop_out_of_bounds = false) {
  std::vector<Value> items;
  if (index->kind == ObjKind::Tuple) items = static_cast<interp::TupleObj&>(*index).items;
  else items.push_back(index);
  size_t regular = 0, ellipses = 0;
  for (auto& it : items) {
    if (it->kind == ObjKind::Ellipsis) ++ellipses;
    else if (it->kind != ObjKind::None) ++regular;
  }
  if (ellipses > 1) I.raise("IndexError", "an index can only have a single ellipsis ('...')");
  const size_t rank = shape.size();
  if (regular > rank) {
    if (host)
      I.raise("IndexError", fmt::format("too many indices for array: array is {}-dimensional, but {} were indexed", rank, regular));
    I.raise("IndexError", fmt::format("Too many indices: {}-dimensional array indexed with {} regular ind{}.", rank, regular,
                                      regular == 1 ? "ex" : "ices"));
  }
  ParsedIndex p;
  size_t dim = 0;
  auto take_dim = [&](DimSel s) {
    p.dims.push_back(s);
    if (!s.integer) p.result_shape.push_back(s.length);
    ++dim;
  };
  auto full_dim = [&]() {
    DimSel s;
    s.length = shape[dim];
    take_dim(s);
  };
  for (size_t k = 0; k < items.size(); ++k) {
    const Value& it = items[k];
    if (it->kind == ObjKind::Ellipsis) {
      size_t fill = rank - regular;
      for (size_t j = 0; j < fill; ++j) full_dim();
    } else if (it->kind == ObjKind::None) {
      p.new_axes.push_back(static_cast<int64_t>(p.result_shape.size()));
      p.result_shape.push_back(1);
    } else if (it->kind == ObjKind::Slice) {
      auto sl = bi::slice_indices(I, static_cast<interp::SliceObj&>(*it), shape[dim]);
      DimSel s;
      s.start = sl.start;
      s.step = sl.step;
      s.length = std::max<int64_t>(sl.length, 0);
      take_dim(s);
    } else if (is_index_array(it)) {
      if (p.array_dim) I.raise("NotImplementedError", "indexing with more than one integer array is not supported yet");
      Value arr = it;
      if (it->kind == ObjKind::List) arr = to_array(I, it, std::nullopt, true);
      auto* a = as_array(arr);
      if (!a) bad_indexer(I, it, k, host);
      DType dt = a->array->type.dtype();
      if (dt == DType::Bool) I.raise("NotImplementedError", "boolean mask indexing is not supported yet");
      if (!types::is_int(dt)) bad_indexer(I, it, k, host);
      p.array_dim = dim;
      p.array_shape = a->array->type.shape();
      const int64_t n = shape[dim];
      for (auto& v : array_elements(*a->array)) {
        int64_t i = *bi::int_of(v);
        if (i < -n || i >= n) {
          if (host) I.raise("IndexError", fmt::format("index {} is out of bounds for axis {} with size {}", i, dim, n));
          i = std::clamp<int64_t>(i < 0 ? i + n : i, 0, n - 1);  // JAX clamps gathers
        }
        p.array_indices.push_back(i < 0 ? i + n : i);
      }
      DimSel s;
      s.length = n;
      p.dims.push_back(s);
      for (auto d : p.array_shape) p.result_shape.push_back(d);  // placeholder: gathered dims
      p.result_shape.push_back(-1);                             // marks where the axis is replaced
      ++dim;
    } else {
      std::optional<int64_t> i;
      if (it->kind == ObjKind::Int || it->kind == ObjKind::Bool) i = bi::int_of(it);
      else if (auto* a = as_array(it); a && a->array->type.rank() == 0 && types::is_int(a->array->type.dtype()))
        i = *bi::int_of(array_elements(*a->array).at(0));
      else if (auto* tr = as_tracer(it)) {
        // A traced scalar index (jit, loop bodies): a dynamic_slice of size 1 on this dim.
        const auto& tt = tr->type();
        if (tt.rank() != 0 || !types::is_int(tt.dtype())) bad_indexer(I, it, k, host);
        p.dynamic.push_back({dim, it});
        DimSel s;
        s.start = 0;
        s.length = 1;
        s.integer = true;
        take_dim(s);
        continue;
      }
      if (!i) bad_indexer(I, it, k, host);
      const int64_t n = shape[dim];
      if (*i < -n || *i >= n) {
        // JAX's scatters drop out-of-bounds updates; numpy and reads raise.
        if (!drop_out_of_bounds)
          I.raise("IndexError", fmt::format("index {} is out of bounds for axis {} with size {}", *i, dim, n));
        p.out_of_bounds = true;
        i = 0;
      }
      DimSel s;
      s.start = *i < 0 ? *i + n : *i;
      s.length = 1;
      s.integer = true;
      take_dim(s);
    }
  }
  while (dim < rank) full_dim();
  // Integer-array index: its dims replace the indexed axis (marked by -1 after them).
  if (p.array_dim) {
    auto mark = std::find(p.result_shape.begin(), p.result_shape.end(), -1);
    p.result_shape.erase(mark);
  }
  return p;
}

// x[idx] on traced values.
ValueId build_read(Trace& t, ValueId x, const ParsedIndex& p) {
  const auto xt = t.type(x);
  std::vector<int64_t> rev_dims;
  for (size_t d = 0; d < p.dims.size(); ++d)
    if (p.dims[d].step < 0 && p.dims[d].length > 0) rev_dims.push_back(static_cast<int64_t>(d));
  ValueId v = x;
  if (!rev_dims.empty()) v = trace::rev(t, v, rev_dims);
  Shape start(xt.rank()), limit(xt.rank()), strides(xt.rank());
  bool strided = false;
  std::vector<int64_t> int_dims, int_starts;
  for (size_t d = 0; d < p.dims.size(); ++d) {
    const auto& s = p.dims[d];
    if (s.integer) {
      // Integer indices are taken after the slice (their dims' sharding is dropped).
      int_dims.push_back(static_cast<int64_t>(d));
      int_starts.push_back(s.start);
      start[d] = 0;
      limit[d] = xt.shape()[d];
      strides[d] = 1;
      continue;
    }
    int64_t st = s.start, step = s.step;
    if (step < 0) {
      st = xt.shape()[d] - 1 - s.start;
      step = -step;
    }
    if (s.length == 0) st = 0;
    start[d] = st;
    limit[d] = s.length == 0 ? 0 : st + (s.length - 1) * step + 1;
    strides[d] = step;
    strided |= step != 1;
  }
  v = trace::slice(t, v, start, limit, strided ? strides : Shape{});
  if (!int_dims.empty()) v = trace::index_dims(t, v, int_dims, int_starts);
  if (p.array_dim) {
    // Gather along one axis: concatenate the selected size-1 slices, then reshape the axis
    // into the index array's shape.
    size_t ad = *p.array_dim;
    for (auto d : int_dims)
      if (static_cast<size_t>(d) < *p.array_dim) --ad;
    const auto vt = t.type(v);
    std::vector<ValueId> pieces;
    for (auto i : p.array_indices) {
      Shape s0(vt.rank(), 0), l0 = vt.shape();
      s0[ad] = i;
      l0[ad] = i + 1;
      pieces.push_back(trace::slice(t, v, s0, l0, {}));
    }
    Shape out = vt.shape();
    if (pieces.empty()) {
      out[ad] = 0;
      Shape s0(vt.rank(), 0);
      v = trace::slice(t, v, s0, out, {});
    } else {
      v = pieces.size() == 1 ? pieces[0] : trace::concatenate(t, pieces, static_cast<int64_t>(ad));
    }
    Shape final_shape;
    for (size_t d = 0; d < vt.rank(); ++d) {
      if (d == ad) final_shape.insert(final_shape.end(), p.array_shape.begin(), p.array_shape.end());
      else final_shape.push_back(vt.shape()[d]);
    }
    if (t.type(v).shape() != final_shape) v = trace::reshape(t, v, final_shape);
  }
  if (!p.new_axes.empty()) v = trace::expand_dims(t, v, p.new_axes);
  return v;
}

// The inverse of build_read for basic indices: `u` (shaped like x[idx]) placed over x's
// shape, `fill` elsewhere.
ValueId spread(Trace& t, ValueId u, const ParsedIndex& p, const Shape& xshape, double fill) {
  const DTypeW dt = dtw(t, u);
  ValueId fillv = trace::scalar_constant(t, fill, {dt.dtype, false});
  // Drop new axes, re-insert integer-indexed dims as size 1.
  Shape sel;
  for (auto& s : p.dims) sel.push_back(s.integer ? 1 : s.length);
  u = trace::reshape(t, u, sel);
  std::vector<int64_t> rev_dims;
  for (size_t d = 0; d < p.dims.size(); ++d)
    if (p.dims[d].step < 0 && p.dims[d].length > 1) rev_dims.push_back(static_cast<int64_t>(d));
  if (!rev_dims.empty()) u = trace::rev(t, u, rev_dims);
  // Strided dims: (n) -> (n, 1) -> pad to (n, step) -> (n*step) -> first (n-1)*step+1.
  for (size_t d = 0; d < p.dims.size(); ++d) {
    const int64_t step = std::abs(p.dims[d].step), n = p.dims[d].length;
    if (step == 1 || n <= 1) continue;
    Shape cur = t.type(u).shape();
    Shape split = cur;
    split.insert(split.begin() + static_cast<int64_t>(d) + 1, 1);
    ValueId v = trace::reshape(t, u, split);
    Shape low(split.size(), 0), high(split.size(), 0);
    high[d + 1] = step - 1;
    v = trace::pad(t, v, fillv, low, high);
    Shape merged = cur;
    merged[d] = n * step;
    v = trace::reshape(t, v, merged);
    Shape s0(merged.size(), 0), l0 = merged;
    l0[d] = (n - 1) * step + 1;
    u = trace::slice(t, v, s0, l0, {});
  }
  Shape low(xshape.size()), high(xshape.size());
  const Shape cur = t.type(u).shape();
  for (size_t d = 0; d < p.dims.size(); ++d) {
    const auto& s = p.dims[d];
    int64_t lowest = s.step < 0 ? s.start + (s.length - 1) * s.step : s.start;
    low[d] = lowest;
    high[d] = xshape[d] - lowest - cur[d];
  }
  return trace::pad(t, u, fillv, low, high);
}

enum class UpdateKind { Set, Add, Mul, Min, Max, Div, Pow };

// One basic-index update of traced `xv` by `u` (already shaped like x[idx]).
ValueId update_basic(Trace& t, ValueId xv, ValueId u, const ParsedIndex& p, UpdateKind kind, const std::string& name) {
  const Shape xshape = t.type(xv).shape();
  ValueId spread_u = spread(t, u, p, xshape, 0);
  ValueId ones = trace::full(t, p.result_shape, 1, {DType::Bool, false}, std::nullopt);
  ValueId mask = spread(t, ones, p, xshape, 0);
  if (t.type(xv).is_sharded()) {
    sharding::OutSharding s = t.type(xv).sharding();
    spread_u = trace::reshard(t, spread_u, s);
    mask = trace::reshard(t, mask, s);
  }
  ValueId combined = spread_u;
  switch (kind) {
    case UpdateKind::Set: break;
    case UpdateKind::Add: combined = trace::binary(t, name, EwOp::Add, xv, spread_u); break;
    case UpdateKind::Mul: combined = trace::binary(t, name, EwOp::Mul, xv, spread_u); break;
    case UpdateKind::Min: combined = trace::binary(t, name, EwOp::Min, xv, spread_u); break;
    case UpdateKind::Max: combined = trace::binary(t, name, EwOp::Max, xv, spread_u); break;
    case UpdateKind::Div: combined = trace::binary(t, name, EwOp::Div, xv, spread_u); break;
    case UpdateKind::Pow: combined = trace::binary(t, name, EwOp::Pow, xv, spread_u); break;
  }
  const DTypeW xd = dtw(t, xv);
  combined = trace::convert(t, combined, {xd.dtype, false});
  return trace::convert(t, trace::where(t, mask, combined, xv), xd);
}

// x.at[i, :].op(u) with traced scalar indices (the other indices whole dims): read the
// block with dynamic_slice, combine, write it back with dynamic_update_slice.
Value dynamic_update(Interp& I, const Value& x, const Value& update, const ParsedIndex& p, UpdateKind kind, const std::string& name) {
  bool simple = !p.array_dim && p.new_axes.empty();
  const auto xt = type_of(x);
  for (size_t d = 0; d < p.dims.size(); ++d) {
    bool dyn = false;
    for (auto& e : p.dynamic) dyn |= e.first == d;
    if (!dyn && (p.dims[d].integer || p.dims[d].start != 0 || p.dims[d].step != 1 || p.dims[d].length != xt.shape()[d])) simple = false;
  }
  if (!simple)
    I.raise("NotImplementedError", fmt::format("{} with a traced index mixed with other static indices is not supported yet; use "
                                               "jax.lax.dynamic_update_slice", name));
  std::vector<Value> operands = {x, update};
  for (auto& [d, v] : p.dynamic) operands.push_back(v);
  return apply(I, name, operands, [&](Trace& t, const std::vector<ValueId>& ids) {
    ValueId xv = ids[0];
    const DTypeW xd = dtw(t, xv);
    std::vector<ValueId> idx(ids.begin() + 2, ids.end());
    ValueId block = dynamic_take(t, xv, p, idx);
    ValueId u = trace::broadcast_to(t, trace::convert(t, ids[1], {xd.dtype, false}), p.result_shape);
    u = trace::reshape(t, u, t.type(block).shape());
    ValueId combined = u;
    switch (kind) {
      case UpdateKind::Set: break;
      case UpdateKind::Add: combined = trace::binary(t, name, EwOp::Add, block, u); break;
      case UpdateKind::Mul: combined = trace::binary(t, name, EwOp::Mul, block, u); break;
      case UpdateKind::Min: combined = trace::binary(t, name, EwOp::Min, block, u); break;
      case UpdateKind::Max: combined = trace::binary(t, name, EwOp::Max, block, u); break;
      case UpdateKind::Div: combined = trace::binary(t, name, EwOp::Div, block, u); break;
      case UpdateKind::Pow: combined = trace::binary(t, name, EwOp::Pow, block, u); break;
    }
    combined = trace::convert(t, combined, {xd.dtype, false});
    return std::vector<ValueId>{trace::dynamic_update_slice(t, xv, combined, dynamic_starts(t, t.type(xv), p, idx))};
  });
}

Value index_update(Interp& I, const Value& x, const Value& index, const Value& update_in, UpdateKind kind, const std::string& name) {
  auto* xa = as_array(x);
  const bool host = xa && xa->host;
  Value update = as_operand(I, update_in, host);
  if (!update && update_in && (update_in->kind == ObjKind::List || update_in->kind == ObjKind::Tuple))
    update = to_array(I, update_in, std::nullopt, false);
  if (!update) I.raise("TypeError", fmt::format("{}: update must be an array or scalar, got {}", name, I.type_name(update_in)));
  const auto xt = type_of(x);
  ParsedIndex p = guarded(I, [&] { return parse_index(I, xt.shape(), index, host, !host); });
  if (p.out_of_bounds) return x;
  if (p.array_dim && (p.array_shape.size() != 1 || !p.new_axes.empty()))
    I.raise("NotImplementedError", fmt::format("{} with a multi-dimensional integer-array index (or one mixed with None) is not "
                                               "supported yet", name));
  for (size_t d = 0; d < p.dims.size(); ++d)
    if (p.dims[d].length == 0 && (!p.array_dim || d != *p.array_dim)) return x;
  if (!p.dynamic.empty()) return dynamic_update(I, x, update, p, kind, name);
  return apply(I, name, {x, update}, [&](Trace& t, const std::vector<ValueId>& ids) {
    ValueId xv = ids[0];
    const DTypeW xd = dtw(t, xv);
    ValueId u = trace::convert(t, ids[1], {xd.dtype, false});
    u = trace::broadcast_to(t, u, p.result_shape);
    if (is_array_like(update) && type_of(update).rank() > 0) sharding::propagate_at_update(t.ctx(name), t.type(xv), t.type(u));
    if (!p.array_dim) return std::vector<ValueId>{update_basic(t, xv, u, p, kind, name)};
    // An integer list on one axis: one basic update per index, in order (repeated indices
    // accumulate for add/multiply; the last wins for set).
    int64_t pos = 0;  // the index array's dim in the result
    for (size_t d = 0; d < *p.array_dim; ++d)
      if (!p.dims[d].integer) ++pos;
    for (size_t k = 0; k < p.array_indices.size(); ++k) {
      ParsedIndex pk = p;
      pk.array_dim.reset();
      pk.dims[*p.array_dim].integer = true;
      pk.dims[*p.array_dim].start = p.array_indices[k];
      pk.dims[*p.array_dim].length = 1;
      pk.result_shape.erase(pk.result_shape.begin() + pos);
      ValueId uk = trace::index_dims(t, u, {pos}, {static_cast<int64_t>(k)});
      xv = update_basic(t, xv, uk, pk, kind, name);
    }
    return std::vector<ValueId>{xv};
  });
}

// x.at -> _IndexUpdateHelper; x.at[idx] -> _IndexUpdateRef.
struct AtHelper : interp::NativeObj {
  Value array;
  AtHelper(ClassP c, Value a) : NativeObj(std::move(c)), array(std::move(a)) {}
};
struct AtRef : interp::NativeObj {
  Value array, index;
  AtRef(ClassP c, Value a, Value i) : NativeObj(std::move(c)), array(std::move(a)), index(std::move(i)) {}
};

ClassP at_ref_class() {
  static ClassP c = [] {
    auto k = interp::make_class("_IndexUpdateRef", {interp::T().object}, "jax._src.numpy.array_methods");
    auto ref = [](Interp& I, CallArgs& a) -> AtRef& {
      auto* r = dynamic_cast<AtRef*>(a.args.at(0).get());
      if (!r) I.raise("TypeError", "expected an _IndexUpdateRef");
      return *r;
    };
    struct M {
      const char* name;
      UpdateKind kind;
    };
    for (M m : {M{"set", UpdateKind::Set}, M{"add", UpdateKind::Add}, M{"multiply", UpdateKind::Mul}, M{"mul", UpdateKind::Mul},
                M{"min", UpdateKind::Min}, M{"max", UpdateKind::Max}, M{"divide", UpdateKind::Div}, M{"power", UpdateKind::Pow}}) {
      bi::def(k, m.name, [ref, m](Interp& I, CallArgs& a) {
        auto& r = ref(I, a);
        interp::ArgParser p(I, a, m.name, {"$self", "values", "*", "indices_are_sorted=", "unique_indices=", "mode=", "fill_value="});
        return index_update(I, r.array, r.index, p.get("values"), m.kind, std::string("scatter-") + m.name);
      });
    }
    bi::def(k, "get", [ref](Interp& I, CallArgs& a) {
      auto& r = ref(I, a);
      return op_getitem(I, r.array, r.index);
    });
    bi::def(k, "__repr__", [ref](Interp& I, CallArgs& a) {
      auto& r = ref(I, a);
      return interp::make_str(fmt::format("_IndexUpdateRef({}, {})", I.repr(r.array), I.repr(r.index)));
    });
    return k;
  }();
  return c;
}

ClassP at_helper_class() {
  static ClassP c = [] {
    auto k = interp::make_class("_IndexUpdateHelper", {interp::T().object}, "jax._src.numpy.array_methods");
    bi::def(k, "__getitem__", [](Interp& I, CallArgs& a) -> Value {
      auto* h = dynamic_cast<AtHelper*>(a.args.at(0).get());
      if (!h) I.raise("TypeError", "expected an _IndexUpdateHelper");
      return std::make_shared<AtRef>(at_ref_class(), h->array, a.args.at(1));
    });
    bi::def(k, "__repr__", [](Interp& I, CallArgs& a) {
      auto* h = dynamic_cast<AtHelper*>(a.args.at(0).get());
      return interp::make_str(fmt::format("_IndexUpdateHelper({})", h ? I.repr(h->array) : "?"));
    });
    return k;
  }();
  return c;
}

}  // namespace

Value op_getitem(Interp& I, const Value& x, const Value& index) {
  auto* xa = as_array(x);
  const bool host = xa && xa->host;
  const auto xt = type_of(x);
  ParsedIndex p = parse_index(I, xt.shape(), index, host);
  std::vector<Value> operands = {x};
  for (auto& [d, v] : p.dynamic) operands.push_back(v);
  return apply(I, "getitem", operands, [&](Trace& t, const std::vector<ValueId>& ids) {
    ValueId v = ids[0];
    if (!p.dynamic.empty()) v = dynamic_take(t, v, p, std::vector<ValueId>(ids.begin() + 1, ids.end()));
    return std::vector<ValueId>{build_read(t, v, p)};
  });
}

void install_array_indexing(const ClassP& c) {
  bi::def(c, "__getitem__", [](Interp& I, CallArgs& a) {
    bi::method_nargs(I, a, "__getitem__", 1, 1);
    return op_getitem(I, a.args[0], a.args[1]);
  });
  bi::def(c, "__setitem__", [](Interp& I, CallArgs& a) -> Value {
    bi::method_nargs(I, a, "__setitem__", 2, 2);
    auto* xa = as_array(a.args[0]);
    if (!xa || !xa->host)
      I.raise("TypeError", fmt::format("'{}' object does not support item assignment. JAX arrays are immutable. Instead of "
                                       "``x[idx] = y``, use ``x = x.at[idx].set(y)`` or another .at[] method: "
                                       "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html",
                                       I.type_name(a.args[0])));
    Value r = index_update(I, a.args[0], a.args[1], a.args[2], UpdateKind::Set, "setitem");
    if (auto* ra = as_array(r)) xa->array = ra->array;  // numpy: in place
    return interp::none();
  });
  bi::def_property(c, "at", [](Interp&, CallArgs& a) -> Value { return std::make_shared<AtHelper>(at_helper_class(), a.args[0]); });
}

}  // namespace shard::api
