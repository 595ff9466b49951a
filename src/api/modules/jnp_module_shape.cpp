// jax.numpy shape ops: reshape transpose swapaxes moveaxis expand_dims squeeze ravel
// broadcast_to concatenate stack hstack vstack split tile repeat flip triu tril pad, plus
// astype and the shape/ndim/size queries. tile and repeat are broadcast + reshape as in
// JAX, with the result sharding decided by their own rules.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "api/modules/jnp_module.hpp"
#include "api/objects/dtype_value.hpp"
#include "interp/builtins/support.hpp"
#include "ir/ir.hpp"

namespace shard::api {

using ir::EwOp;
using interp::ArgParser;
using interp::ObjKind;

namespace {

Value arr_operand(Interp& I, const Value& v, const std::string& name) {
  if (is_array_like(v) || python_scalar_type(v, false)) return v;
  I.raise("TypeError", fmt::format("{} requires ndarray or scalar arguments, got {} at position 0.", name, I.type_name(v)));
}

// An operand whose shape the binding reads first: a Python number is the 0-d array it
// stands for (jnp.asarray), as JAX's functions convert it.
Value shaped_operand(Interp& I, const Value& v, const std::string& name) {
  Value x = arr_operand(I, v, name);
  return is_array_like(x) ? x : to_array(I, x, std::nullopt, false);
}

Value run(Interp& I, const std::string& name, const Value& x, const std::function<ValueId(Trace&, ValueId)>& body) {
  return apply(I, name, {arr_operand(I, x, name)}, [&](Trace& t, const std::vector<ValueId>& ids) {
    return std::vector<ValueId>{body(t, ids[0])};
  });
}

std::vector<Value> sequence_operands(Interp& I, const Value& seq, const std::string& name) {
  if (!seq || !(seq->kind == ObjKind::List || seq->kind == ObjKind::Tuple)) {
    if (is_array_like(seq)) {
      // An array is a sequence of its rows.
      std::vector<Value> rows;
      int64_t n = type_of(seq).rank() ? type_of(seq).shape()[0] : 0;
      for (int64_t i = 0; i < n; ++i) rows.push_back(op_getitem(I, seq, interp::make_int(i)));
      return rows;
    }
    I.raise("TypeError", fmt::format("{} requires a sequence of arrays, got {}", name, I.type_name(seq)));
  }
  std::vector<Value> out;
  for (auto& v : I.to_vector(seq)) {
    if (!is_array_like(v) && !python_scalar_type(v, false)) out.push_back(to_array(I, v, std::nullopt, false));
    else out.push_back(v);
  }
  return out;
}

// Sharding of a tile/repeat result as out_sharding for the final reshape (only when some
// Explicit axis is in play: otherwise the plain reshape rule applies).
sharding::OptOutSharding explicit_out(const types::ArrayType& rt) {
  if (!rt.is_sharded()) return std::nullopt;
  return sharding::OutSharding(rt.sharding());
}

ValueId tile_body(Trace& t, ValueId x, std::vector<int64_t> reps) {
  auto xt = t.type(x);
  const size_t rank = std::max(xt.rank(), reps.size());
  Shape s = xt.shape();
  s.insert(s.begin(), rank - xt.rank(), 1);
  reps.insert(reps.begin(), rank - reps.size(), 1);
  ValueId v = xt.rank() == rank ? x : trace::reshape(t, x, s);
  auto rt = sharding::propagate_tile(t.ctx("tile"), t.type(v), reps);
  Shape inter, bdims_shape, final_shape;
  std::vector<int64_t> with_ones;
  for (size_t d = 0; d < rank; ++d) {
    with_ones.push_back(1);
    with_ones.push_back(s[d]);
    inter.push_back(reps[d]);
    inter.push_back(s[d]);
    final_shape.push_back(reps[d] * s[d]);
  }
  v = trace::reshape(t, v, with_ones);
  v = trace::broadcast_to(t, v, inter);
  return trace::reshape(t, v, final_shape, explicit_out(rt));
}

ValueId repeat_body(Trace& t, ValueId x, int64_t repeats, std::optional<int64_t> axis) {
  if (repeats < 0) throw types::ShardingError("ValueError", fmt::format("repeats may not contain negative values, got {}", repeats));
  auto rt = sharding::propagate_repeat(t.ctx("repeat"), t.type(x), repeats, axis);
  ValueId v = x;
  if (!axis) {
    v = trace::reshape(t, v, {t.type(v).num_elements()});
    axis = 0;
  }
  auto vt = t.type(v);
  int64_t ax = trace::normalize_axis("repeat", *axis, vt.rank());
  Shape expanded = vt.shape();
  expanded.insert(expanded.begin() + ax + 1, 1);
  v = trace::reshape(t, v, expanded);
  Shape b = expanded;
  b[ax + 1] = repeats;
  v = trace::broadcast_to(t, v, b);
  Shape final_shape = vt.shape();
  final_shape[ax] *= repeats;
  return trace::reshape(t, v, final_shape, explicit_out(rt));
}

// (low, high) per dim from numpy's pad_width forms: n, (n,), (b, a), ((b0, a0), ...).
std::vector<std::pair<int64_t, int64_t>> pad_widths(Interp& I, const Value& v, size_t rank) {
  std::vector<std::pair<int64_t, int64_t>> out(rank);
  if (auto n = interp::bi::int_of(v)) {
    for (auto& p : out) p = {*n, *n};
    return out;
  }
  auto items = I.to_vector(v);
  bool nested = !items.empty() && (items[0]->kind == ObjKind::Tuple || items[0]->kind == ObjKind::List);
  if (!nested) {
    int64_t b = int_arg(I, items.at(0), "pad_width"), e = items.size() > 1 ? int_arg(I, items[1], "pad_width") : b;
    for (auto& p : out) p = {b, e};
    return out;
  }
  if (items.size() == 1) {
    auto pr = I.to_vector(items[0]);
    int64_t b = int_arg(I, pr.at(0), "pad_width"), e = pr.size() > 1 ? int_arg(I, pr[1], "pad_width") : b;
    for (auto& p : out) p = {b, e};
    return out;
  }
  if (items.size() != rank) I.raise("ValueError", fmt::format("jnp.pad: pad_width given for {} dims, array has {}", items.size(), rank));
  for (size_t d = 0; d < rank; ++d) {
    auto pr = I.to_vector(items[d]);
    int64_t b = int_arg(I, pr.at(0), "pad_width"), e = pr.size() > 1 ? int_arg(I, pr[1], "pad_width") : b;
    out[d] = {b, e};
  }
  for (auto& p : out)
    if (p.first < 0 || p.second < 0) I.raise("ValueError", "index can't contain negative values");
  return out;
}

// triu/tril: keep elements on one side of diagonal k.
Value tri_impl(Interp& I, CallArgs& a, const char* name, bool upper) {
  ArgParser p(I, a, name, {"m", "k="});
  int64_t k = p.has("k") ? int_arg(I, p.get("k"), "k") : 0;
  return run(I, name, p.get("m"), [&](Trace& t, ValueId x) {
    auto xt = t.type(x);
    if (xt.rank() < 2) throw types::ShardingError("ValueError", fmt::format("{}: input array must be at least 2-dimensional", name));
    const size_t r = xt.rank();
    Shape s = {xt.shape()[r - 2], xt.shape()[r - 1]};
    ValueId rows = trace::iota(t, DType::I32, s, 0, std::nullopt);
    ValueId cols = trace::iota(t, DType::I32, s, 1, std::nullopt);
    ValueId diff = trace::binary(t, name, EwOp::Sub, cols, rows);
    ValueId kk = trace::scalar_constant(t, static_cast<double>(k), {DType::I32, true});
    ValueId mask = trace::binary(t, name, upper ? EwOp::Ge : EwOp::Le, diff, kk);
    ValueId zero = trace::scalar_constant(t, 0, {xt.dtype(), true});
    return trace::where(t, mask, x, zero);
  });
}

}  // namespace

Value op_reshape(Interp& I, const Value& x, Shape shape, const sharding::OptOutSharding& out_sharding, const std::string& name) {
  return run(I, name, x, [&](Trace& t, ValueId v) { return trace::reshape(t, v, shape, out_sharding); });
}

Value op_transpose(Interp& I, const Value& x, std::vector<int64_t> perm) {
  return run(I, "transpose", x, [&](Trace& t, ValueId v) {
    if (!perm.empty()) {
      std::vector<int64_t> sorted = perm;
      for (auto& p : sorted) p = trace::normalize_axis("transpose", p, t.type(v).rank());
      std::sort(sorted.begin(), sorted.end());
      if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
        throw types::ShardingError("ValueError", "repeated axis in transpose");
    }
    return trace::transpose(t, v, perm);
  });
}

Value op_astype(Interp& I, const Value& x, DType d) {
  return run(I, "convert_element_type", x, [&](Trace& t, ValueId v) {
    ValueId r = trace::convert(t, v, {d, false});
    if (r == v && t.type(v).weak_type()) return trace::retype(t, v, t.type(v).with_weak_type(false));  // same data, strong type
    return r;
  });
}

Value jnp_squeeze(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "squeeze", {"a", "axis="});
  auto axes = axes_arg(I, p.get("axis"));
  return run(I, "squeeze", p.get("a"), [&](Trace& t, ValueId v) { return trace::squeeze(t, v, axes); });
}

Value jnp_ravel(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "ravel", {"a", "order="});
  return run(I, "reshape", p.get("a"), [&](Trace& t, ValueId v) { return trace::reshape(t, v, {t.type(v).num_elements()}); });
}

Value jnp_swapaxes(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "swapaxes", {"a", "axis1", "axis2"});
  int64_t a1 = int_arg(I, p.get("axis1"), "axis1"), a2 = int_arg(I, p.get("axis2"), "axis2");
  return run(I, "transpose", p.get("a"), [&](Trace& t, ValueId v) {
    auto r = t.type(v).rank();
    std::vector<int64_t> perm(r);
    std::iota(perm.begin(), perm.end(), 0);
    std::swap(perm[trace::normalize_axis("swapaxes", a1, r)], perm[trace::normalize_axis("swapaxes", a2, r)]);
    return trace::transpose(t, v, perm);
  });
}

void add_jnp_shape(Interp&, ModuleObj& m) {
  def_jnp(m, "reshape", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "reshape", {"a", "shape=", "order=", "*", "newshape=", "copy=", "out_sharding="});
    Value s = p.has("shape") ? p.get("shape") : p.get("newshape");
    if (is_none(s)) I.raise("TypeError", "reshape() missing required argument 'shape'");
    return op_reshape(I, arr_operand(I, p.get("a"), "reshape"), shape_arg(I, s, "reshape"), out_sharding_arg(I, p.get("out_sharding")));
  });
  def_jnp(m, "transpose", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "transpose", {"a", "axes="});
    auto axes = axes_arg(I, p.get("axes"));
    return op_transpose(I, arr_operand(I, p.get("a"), "transpose"), axes ? *axes : std::vector<int64_t>{});
  });
  def_jnp(m, "permute_dims", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "permute_dims", {"a", "axes"});
    return op_transpose(I, arr_operand(I, p.get("a"), "transpose"), required_axes_arg(I, p.get("axes")));
  });
  def_jnp(m, "matrix_transpose", [](Interp& I, CallArgs& a) {
    interp::bi::func_nargs(I, a, "matrix_transpose", 1, 1);
    return I.getattr(a.args[0], "mT");
  });
  def_jnp(m, "swapaxes", jnp_swapaxes);
  def_jnp(m, "moveaxis", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "moveaxis", {"a", "source", "destination"});
    auto src = required_axes_arg(I, p.get("source")), dst = required_axes_arg(I, p.get("destination"));
    if (src.size() != dst.size())
      I.raise("ValueError", "`source` and `destination` arguments must have the same number of elements");
    return run(I, "transpose", p.get("a"), [&](Trace& t, ValueId v) {
      const size_t r = t.type(v).rank();
      for (auto& s : src) s = trace::normalize_axis("moveaxis", s, r);
      for (auto& d : dst) d = trace::normalize_axis("moveaxis", d, r);
      std::vector<int64_t> order;
      for (size_t i = 0; i < r; ++i)
        if (std::find(src.begin(), src.end(), static_cast<int64_t>(i)) == src.end()) order.push_back(static_cast<int64_t>(i));
      std::vector<std::pair<int64_t, int64_t>> moves;
      for (size_t i = 0; i < src.size(); ++i) moves.push_back({dst[i], src[i]});
      std::sort(moves.begin(), moves.end());
      for (auto& [d, s] : moves) order.insert(order.begin() + d, s);
      return trace::transpose(t, v, order);
    });
  });
  def_jnp(m, "expand_dims", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "expand_dims", {"a", "axis"});
    auto axes = required_axes_arg(I, p.get("axis"));
    return run(I, "expand_dims", p.get("a"), [&](Trace& t, ValueId v) { return trace::expand_dims(t, v, axes); });
  });
  def_jnp(m, "squeeze", jnp_squeeze);
  def_jnp(m, "ravel", jnp_ravel);
  def_jnp(m, "broadcast_to", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "broadcast_to", {"array", "shape", "*", "out_sharding="});
    Shape s = shape_arg(I, p.get("shape"), "broadcast_to");
    auto out = out_sharding_arg(I, p.get("out_sharding"));
    return run(I, "broadcast_to", p.get("array"), [&](Trace& t, ValueId v) { return trace::broadcast_to(t, v, s, out); });
  });
  def_jnp(m, "concatenate", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "concatenate", {"arrays", "axis=", "dtype="});
    auto ops = sequence_operands(I, p.get("arrays"), "concatenate");
    const bool flatten = p.has("axis") && is_none(p.get("axis"));
    int64_t axis = p.has("axis") && !flatten ? int_arg(I, p.get("axis"), "axis") : 0;
    auto dt = dtype_arg(I, p.get("dtype"));
    return apply(I, "concatenate", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
      std::vector<ValueId> xs = ids;
      if (flatten)
        for (auto& x : xs) x = trace::reshape(t, x, {t.type(x).num_elements()});
      if (dt)
        for (auto& x : xs) x = trace::convert(t, x, {storage_dtype(*dt, false), false});
      return std::vector<ValueId>{trace::concatenate(t, xs, axis)};
    });
  });
  def_jnp(m, "stack", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "stack", {"arrays", "axis=", "out=", "dtype="});
    auto ops = sequence_operands(I, p.get("arrays"), "stack");
    int64_t axis = p.has("axis") ? int_arg(I, p.get("axis"), "axis") : 0;
    auto dt = dtype_arg(I, p.get("dtype"));
    return apply(I, "stack", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
      std::vector<ValueId> xs = ids;
      if (dt)
        for (auto& x : xs) x = trace::convert(t, x, {storage_dtype(*dt, false), false});
      return std::vector<ValueId>{trace::stack(t, xs, axis)};
    });
  });
  for (const char* nm : {"hstack", "vstack"}) {
    const bool vertical = std::string(nm) == "vstack";
    def_jnp(m, nm, [nm, vertical](Interp& I, CallArgs& a) {
      ArgParser p(I, a, nm, {"tup", "dtype="});
      auto ops = sequence_operands(I, p.get("tup"), nm);
      return apply(I, nm, ops, [&](Trace& t, const std::vector<ValueId>& ids) {
        std::vector<ValueId> xs = ids;
        int64_t axis = 0;
        for (auto& x : xs) {
          auto r = t.type(x).rank();
          if (vertical && r < 2) x = trace::reshape(t, x, {1, r == 0 ? 1 : t.type(x).shape()[0]});
          if (!vertical && r == 0) x = trace::reshape(t, x, {1});
        }
        if (!vertical && t.type(xs[0]).rank() > 1) axis = 1;
        return std::vector<ValueId>{trace::concatenate(t, xs, axis)};
      });
    });
  }
  def_jnp(m, "split", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "split", {"ary", "indices_or_sections", "axis="});
    Value x = shaped_operand(I, p.get("ary"), "split");
    int64_t axis = p.has("axis") ? int_arg(I, p.get("axis"), "axis") : 0;
    auto xt = type_of(x);
    int64_t ax = guarded(I, [&] { return trace::normalize_axis("split", axis, xt.rank()); });
    const int64_t n = xt.shape()[ax];
    std::vector<int64_t> bounds = {0};
    Value ios = p.get("indices_or_sections");
    if (auto k = interp::bi::int_of(ios)) {
      if (*k <= 0) I.raise("ValueError", "number sections must be larger than 0.");
      if (n % *k != 0) I.raise("ValueError", "array split does not result in an equal division");
      for (int64_t i = 1; i <= *k; ++i) bounds.push_back(n / *k * i);
    } else {
      for (auto& v : I.to_vector(ios)) bounds.push_back(std::clamp<int64_t>(int_arg(I, v, "indices"), 0, n));
      bounds.push_back(n);
    }
    auto outs = apply_multi(I, "split", {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
      std::vector<ValueId> rs;
      for (size_t i = 0; i + 1 < bounds.size(); ++i) {
        Shape s0(xt.rank(), 0), l0 = xt.shape();
        s0[ax] = bounds[i];
        l0[ax] = std::max(bounds[i], bounds[i + 1]);
        rs.push_back(trace::slice(t, ids[0], s0, l0, {}));
      }
      return rs;
    });
    return interp::make_list(std::move(outs));
  });
  def_jnp(m, "tile", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "tile", {"A", "reps"});
    std::vector<int64_t> reps;
    if (auto k = interp::bi::int_of(p.get("reps"))) reps = {*k};
    else
      for (auto& v : I.to_vector(p.get("reps"))) reps.push_back(int_arg(I, v, "reps"));
    return run(I, "tile", p.get("A"), [&](Trace& t, ValueId v) { return tile_body(t, v, reps); });
  });
  def_jnp(m, "repeat", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "repeat", {"a", "repeats", "axis=", "*", "total_repeat_length="});
    std::optional<int64_t> axis;
    if (!is_none(p.get("axis"))) axis = int_arg(I, p.get("axis"), "axis");
    Value rv = p.get("repeats");
    if ((is_array_like(rv) && (type_of(rv).rank() > 0 || as_tracer(rv))) || (rv && (rv->kind == ObjKind::List || rv->kind == ObjKind::Tuple)))
      return jnp_repeat_counts(I, shaped_operand(I, p.get("a"), "repeat"), rv, axis, p.get("total_repeat_length"));
    int64_t reps = int_arg(I, rv, "repeats");
    return run(I, "repeat", p.get("a"), [&](Trace& t, ValueId v) { return repeat_body(t, v, reps, axis); });
  });
  def_jnp(m, "flip", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "flip", {"m", "axis="});
    auto axes = axes_arg(I, p.get("axis"));
    return run(I, "rev", p.get("m"), [&](Trace& t, ValueId v) {
      std::vector<int64_t> dims;
      if (axes) dims = *axes;
      else
        for (size_t d = 0; d < t.type(v).rank(); ++d) dims.push_back(static_cast<int64_t>(d));
      return trace::rev(t, v, dims);
    });
  });
  def_jnp(m, "fliplr", [](Interp& I, CallArgs& a) {
    interp::bi::func_nargs(I, a, "fliplr", 1, 1);
    return run(I, "rev", a.args[0], [&](Trace& t, ValueId v) { return trace::rev(t, v, {1}); });
  });
  def_jnp(m, "flipud", [](Interp& I, CallArgs& a) {
    interp::bi::func_nargs(I, a, "flipud", 1, 1);
    return run(I, "rev", a.args[0], [&](Trace& t, ValueId v) { return trace::rev(t, v, {0}); });
  });
  def_jnp(m, "triu", [](Interp& I, CallArgs& a) { return tri_impl(I, a, "triu", true); });
  def_jnp(m, "tril", [](Interp& I, CallArgs& a) { return tri_impl(I, a, "tril", false); });
  def_jnp(m, "pad", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "pad", {"array", "pad_width", "mode=", "*", "constant_values="});
    if (p.has("mode") && I.str(p.get("mode")) != "constant")
      I.raise("NotImplementedError", fmt::format("jnp.pad: mode '{}' is not supported yet", I.str(p.get("mode"))));
    Value x = shaped_operand(I, p.get("array"), "pad");
    auto widths = pad_widths(I, p.get("pad_width"), type_of(x).rank());
    double cv = p.has("constant_values") ? float_arg(I, p.get("constant_values"), "constant_values") : 0;
    return run(I, "pad", x, [&](Trace& t, ValueId v) {
      Shape low, high;
      for (auto& [b, e] : widths) {
        low.push_back(b);
        high.push_back(e);
      }
      ValueId c = trace::scalar_constant(t, cv, {t.type(v).dtype(), false});
      return trace::pad(t, v, c, low, high);
    });
  });
  def_jnp(m, "atleast_1d", [](Interp& I, CallArgs& a) {
    interp::bi::func_nargs(I, a, "atleast_1d", 1, 1);
    return run(I, "reshape", a.args[0], [&](Trace& t, ValueId v) { return t.type(v).rank() ? v : trace::reshape(t, v, {1}); });
  });
  def_jnp(m, "atleast_2d", [](Interp& I, CallArgs& a) {
    interp::bi::func_nargs(I, a, "atleast_2d", 1, 1);
    return run(I, "reshape", a.args[0], [&](Trace& t, ValueId v) {
      auto r = t.type(v).rank();
      if (r >= 2) return v;
      return trace::reshape(t, v, {1, r ? t.type(v).shape()[0] : 1});
    });
  });
  def_jnp(m, "shape", [](Interp& I, CallArgs& a) {
    interp::bi::func_nargs(I, a, "shape", 1, 1);
    if (!is_array_like(a.args[0])) return I.getattr(to_array(I, a.args[0], std::nullopt, true), "shape");
    return I.getattr(a.args[0], "shape");
  });
  def_jnp(m, "ndim", [](Interp& I, CallArgs& a) {
    interp::bi::func_nargs(I, a, "ndim", 1, 1);
    if (!is_array_like(a.args[0])) return I.getattr(to_array(I, a.args[0], std::nullopt, true), "ndim");
    return I.getattr(a.args[0], "ndim");
  });
  def_jnp(m, "size", [](Interp& I, CallArgs& a) {
    interp::bi::func_nargs(I, a, "size", 1, 1);
    if (!is_array_like(a.args[0])) return I.getattr(to_array(I, a.args[0], std::nullopt, true), "size");
    return I.getattr(a.args[0], "size");
  });
  def_jnp(m, "astype", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "astype", {"x", "dtype", "*", "copy=", "device="});
    return op_astype(I, arr_operand(I, p.get("x"), "astype"), storage_dtype(require_dtype(I, p.get("dtype")), false));
  });
}

}  // namespace shard::api
