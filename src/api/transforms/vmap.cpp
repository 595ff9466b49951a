// jax.vmap(f, in_axes=0, out_axes=0): maps f over an axis of its arguments. Mapped axes are
// moved to the front and f runs as the body of a lax.scan over them (one compiled loop,
// f traced once on one slice), then the stacked results are moved to out_axes. This gives
// vmap's values and types for pure functions; it is not a batching transform (each step runs
// f on one slice), and `axis_name` collectives are not supported.
#include "api/transforms/vmap.hpp"

#include <fmt/format.h>

#include "api/objects/array_value.hpp"
#include "api/transforms/jit_tree.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using interp::CallArgs;
using interp::Interp;
using interp::ObjKind;
using interp::Value;
namespace bi = interp::bi;

namespace {

Value module_fn(Interp& I, const char* module, const char* name) {
  return I.getattr(I.import_module(module, I.current_loc()), name);
}

// Applies fn to every leaf of tree (a tuple/list/dict/None structure).
Value map_tree(Interp& I, const Value& tree, const std::function<Value(const Value&)>& fn) {
  std::vector<Value> leaves;
  TreeDef def = tree_flatten(I, tree, leaves);
  for (auto& l : leaves) l = fn(l);
  size_t pos = 0;
  return tree_unflatten(I, def, leaves, pos);
}

std::optional<int64_t> axis_of(Interp& I, const Value& v) {
  if (!v || v->kind == ObjKind::None) return std::nullopt;
  auto i = bi::int_of(v);
  if (!i) I.raise("ValueError", fmt::format("vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional "
                                            "arguments passed to the function, got {}.", I.repr(v)));
  return *i;
}

Value call_vmapped(Interp& I, const Value& fun, const Value& in_axes, const Value& out_axes, CallArgs& a) {
  if (!a.kwargs.empty()) I.raise("ValueError", "kwargs not supported for vmapped functions yet: pass them positionally");
  const size_t n = a.args.size();
  std::vector<std::optional<int64_t>> axes(n);
  if (in_axes && (in_axes->kind == ObjKind::Tuple || in_axes->kind == ObjKind::List)) {
    auto items = I.to_vector(in_axes);
    if (items.size() != n)
      I.raise("ValueError", fmt::format("vmap in_axes specification must be a tree prefix of the corresponding value, got specification "
                                        "{} for value tree of {} arguments.", I.repr(in_axes), n));
    for (size_t i = 0; i < n; ++i) axes[i] = axis_of(I, items[i]);
  } else {
    for (auto& x : axes) x = axis_of(I, in_axes);
  }
  Value moveaxis = module_fn(I, "jax.numpy", "moveaxis");
  // Mapped arguments with their axis in front; all mapped leaves must agree on its size.
  std::optional<int64_t> size;
  std::vector<Value> mapped, fixed(a.args);
  for (size_t i = 0; i < n; ++i) {
    if (!axes[i]) continue;
    mapped.push_back(map_tree(I, a.args[i], [&](const Value& leaf) -> Value {
      auto shape = is_array_like(leaf) ? type_of(leaf).shape() : types::Shape{};
      int64_t ax = *axes[i] < 0 ? *axes[i] + static_cast<int64_t>(shape.size()) : *axes[i];
      if (ax < 0 || ax >= static_cast<int64_t>(shape.size()))
        I.raise("ValueError", fmt::format("vmap was requested to map its argument along axis {}, which implies that its rank should be at "
                                          "least {}, but is only {} (its shape is {})",
                                          *axes[i], *axes[i] < 0 ? -*axes[i] : *axes[i] + 1, shape.size(), types::py_int_tuple(shape)));
      if (size && *size != shape[ax])
        I.raise("ValueError", fmt::format("vmap got inconsistent sizes for array axes to be mapped: the mapped axes have sizes {} and {}",
                                          *size, shape[ax]));
      size = shape[ax];
      return I.call(moveaxis, std::vector<Value>{leaf, interp::make_int(ax), interp::make_int(0)});
    }));
  }
  if (!size) I.raise("ValueError", "vmap must have at least one non-None value in in_axes");
  // scan(body, None, xs): body gets one slice of every mapped argument.
  Value body = interp::make_builtin("vmap_body", [fun, axes, fixed](Interp& I2, CallArgs& b) -> Value {
    auto slices = I2.to_vector(b.args.at(1));
    std::vector<Value> args = fixed;
    size_t k = 0;
    for (size_t i = 0; i < args.size(); ++i)
      if (axes[i]) args[i] = slices.at(k++);
    return interp::make_tuple({interp::none(), I2.call(fun, args)});
  });
  Value scan = module_fn(I, "jax.lax", "scan");
  Value result = I.to_vector(I.call(scan, std::vector<Value>{body, interp::none(), interp::make_tuple(mapped)})).at(1);
  auto out = axis_of(I, out_axes);
  if (!out || *out == 0) return result;
  return map_tree(I, result, [&](const Value& leaf) {
    return I.call(moveaxis, std::vector<Value>{leaf, interp::make_int(0), interp::make_int(*out)});
  });
}

Value jax_vmap(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "vmap", {"fun", "in_axes=", "out_axes=", "axis_name=", "axis_size=", "spmd_axis_name="});
  Value fun = p.get("fun");
  if (Value name = p.get("axis_name"); name && name->kind != ObjKind::None)
    I.raise("NotImplementedError", "vmap with axis_name (collectives over the mapped axis) is not supported");
  Value in_axes = p.get("in_axes") ? p.get("in_axes") : interp::make_int(0);
  Value out_axes = p.get("out_axes") ? p.get("out_axes") : interp::make_int(0);
  return interp::make_builtin("vmap_f", [fun, in_axes, out_axes](Interp& I2, CallArgs& b) { return call_vmapped(I2, fun, in_axes, out_axes, b); });
}

}  // namespace

void install_vmap(interp::ModuleObj& jax) { jax.dict.set("vmap", interp::make_builtin("vmap", jax_vmap)); }

}  // namespace shard::api
