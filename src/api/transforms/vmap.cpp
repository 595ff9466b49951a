// jax.vmap(f, in_axes=0, out_axes=0, axis_name=None, axis_size=None, spmd_axis_name=None): f is
// traced once on one example's types and batched by src/batching/ (each primitive's batching
// rule), so the program holds the batched primitives, not a loop. Mapped axes are moved to the
// front first and the batch dim moved to out_axes after; a sharded batch dim keeps its
// sharding, and spmd_axis_name shards it over mesh axes.
#include "api/transforms/vmap.hpp"

#include <fmt/format.h>

#include "api/objects/array_value.hpp"
#include "api/pytree/pytree.hpp"
#include "api/transforms/region_trace.hpp"
#include "batching/batching.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using interp::CallArgs;
using interp::Interp;
using interp::ObjKind;
using interp::Value;
using ir::ValueId;
namespace bi = interp::bi;

namespace {

std::optional<int64_t> axis_of(Interp& I, const Value& v, const char* what) {
  if (!v || v->kind == ObjKind::None) return std::nullopt;
  auto i = bi::int_of(v);
  if (!i) I.raise("ValueError", fmt::format("vmap {} must be an int, None, or a tuple of entries corresponding to the positional "
                                            "arguments passed to the function, got {}.", what, I.repr(v)));
  return *i;
}

bool is_container(const Value& v) {
  return v && (v->kind == ObjKind::Tuple || v->kind == ObjKind::List || v->kind == ObjKind::Dict);
}

// One axis per leaf of `value`, from `spec`, a tree prefix of it (an int or None covers a
// whole subtree).
void axes_for(Interp& I, const Value& spec, const Value& value, const char* what, std::vector<std::optional<int64_t>>& out) {
  if (!is_container(spec)) {
    std::vector<Value> leaves;
    tree_flatten(I, value, leaves);
    out.insert(out.end(), leaves.size(), axis_of(I, spec, what));
    return;
  }
  if (!is_container(value) || spec->kind != value->kind)
    I.raise("ValueError", fmt::format("vmap {} specification must be a tree prefix of the corresponding value, got specification {} "
                                      "for value tree {}.", what, I.repr(spec), I.repr(value)));
  if (spec->kind == ObjKind::Dict) {
    std::vector<Value> leaves;
    TreeDef d = tree_flatten(I, value, leaves);  // sorted keys, as the leaves come
    for (auto& k : d.keys) axes_for(I, I.getitem(spec, k), I.getitem(value, k), what, out);
    return;
  }
  auto s = I.to_vector(spec), v = I.to_vector(value);
  if (s.size() != v.size())
    I.raise("ValueError", fmt::format("vmap {} specification must be a tree prefix of the corresponding value, got specification {} "
                                      "for value tree {}.", what, I.repr(spec), I.repr(value)));
  for (size_t i = 0; i < s.size(); ++i) axes_for(I, s[i], v[i], what, out);
}

bool is_traced_leaf(const Value& v) { return is_array_like(v) || python_scalar_type(v, false).has_value(); }

struct VmapSpec {
  Value fun, in_axes, out_axes;
  std::string axis_name;
  std::optional<int64_t> axis_size;
  types::AxisNames spmd_axes;
};

Value call_vmapped(Interp& I, const VmapSpec& vs, CallArgs& a) {
  if (!a.kwargs.empty()) I.raise("ValueError", "kwargs not supported for vmapped functions yet: pass them positionally");
  const Value args_tuple = interp::make_tuple(a.args);
  std::vector<Value> leaves;
  TreeDef def = tree_flatten(I, args_tuple, leaves);
  std::vector<std::optional<int64_t>> axes;
  Value in_spec = vs.in_axes;
  if (in_spec && in_spec->kind == ObjKind::List) in_spec = interp::make_tuple(I.to_vector(in_spec));
  if (is_container(in_spec) && in_spec->kind == ObjKind::Tuple) {
    if (I.to_vector(in_spec).size() != a.args.size())
      I.raise("ValueError", fmt::format("vmap in_axes specification must be a tree prefix of the corresponding value, got specification "
                                        "{} for value tree {}.", I.repr(vs.in_axes), pytreedef_str(I, def)));
    axes_for(I, in_spec, args_tuple, "in_axes", axes);
  } else {
    axes_for(I, in_spec, args_tuple, "in_axes", axes);
  }
  // The mapped size, consistent over the mapped leaves.
  std::optional<int64_t> size;
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (!axes[i]) continue;
    auto shape = is_array_like(leaves[i]) ? type_of(leaves[i]).shape() : types::Shape{};
    const int64_t ax = *axes[i] < 0 ? *axes[i] + static_cast<int64_t>(shape.size()) : *axes[i];
    if (ax < 0 || ax >= static_cast<int64_t>(shape.size()))
      I.raise("ValueError", fmt::format("vmap was requested to map its argument along axis {}, which implies that its rank should be at "
                                        "least {}, but is only {} (its shape is {})",
                                        *axes[i], *axes[i] < 0 ? -*axes[i] : *axes[i] + 1, shape.size(), types::py_int_tuple(shape)));
    if (size && *size != shape[static_cast<size_t>(ax)])
      I.raise("ValueError", fmt::format("vmap got inconsistent sizes for array axes to be mapped: the mapped axes have sizes {} and {}",
                                        *size, shape[static_cast<size_t>(ax)]));
    size = shape[static_cast<size_t>(ax)];
    axes[i] = ax;
  }
  if (!size) size = vs.axis_size;
  if (!size) I.raise("ValueError", "vmap must have at least one non-None value in in_axes");
  if (vs.axis_size && *vs.axis_size != *size)
    I.raise("ValueError", fmt::format("vmap got inconsistent sizes for array axes to be mapped: axis_size={} but the mapped axes have "
                                      "size {}", *vs.axis_size, *size));
  // Traced leaves (arrays, numbers) become operands; anything else is passed as it is.
  std::vector<Value> operands;
  std::vector<size_t> traced;
  for (size_t i = 0; i < leaves.size(); ++i)
    if (is_traced_leaf(leaves[i])) {
      operands.push_back(leaves[i]);
      traced.push_back(i);
    } else if (axes[i]) {
      I.raise("ValueError", fmt::format("vmap was requested to map its argument along axis {}, which implies that its rank should be at "
                                        "least {}, but is only 0 (its shape is ())", *axes[i], *axes[i] + 1));
    }
  TreeDef out_def;
  const int64_t n = *size;
  std::vector<Value> results = apply_multi(I, "vmap", operands, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
    std::vector<batching::Batched> ins;
    std::vector<types::ArrayType> types;
    for (size_t k = 0; k < ids.size(); ++k) {
      const auto& ax = axes[traced[k]];
      ValueId v = ids[k];
      if (ax) {
        v = trace::move_dim(t, v, *ax, 0);
        if (!vs.spmd_axes.empty() && !t.mesh().explicit_axes().empty()) {
          auto e = t.type(v).spec().normalized(t.type(v).rank()).entries();
          e[0] = vs.spmd_axes;
          v = trace::reshard(t, v, sharding::OutSharding{types::PartitionSpec(e)});
        }
        types.push_back(types::unstacked_type(t.type(v)));
      } else {
        types.push_back(t.type(v));
      }
      ins.push_back({v, ax.has_value()});
    }
    std::optional<trace::VmapAxisScope> axis_scope;  // collectives over axis_name, for the batching rules
    if (!vs.axis_name.empty()) axis_scope.emplace(vs.axis_name, n);
    Region r = trace_region(I, t, "vmap", types, [&](const std::vector<Value>& tracers) {
      std::vector<Value> all = leaves;
      for (size_t k = 0; k < traced.size(); ++k) all[traced[k]] = tracers[k];
      size_t pos = 0;
      return I.call(vs.fun, I.to_vector(tree_unflatten(I, def, all, pos)));
    });
    out_def = r.out;
    axis_scope.reset();
    std::vector<batching::Batched> args;
    for (auto c : r.captured) args.push_back({c, false});
    args.insert(args.end(), ins.begin(), ins.end());
    auto res = batching::batch(t, *r.fn, args, n, vs.axis_name);
    // out_axes: an int or None for all outputs, or a tree prefix of them.
    std::vector<std::optional<int64_t>> out_axes;
    if (is_container(vs.out_axes)) {
      // The outputs' structure, with None leaves, to match the prefix against.
      std::vector<Value> placeholders(res.size(), interp::none());
      size_t pos = 0;
      Value shape_tree = tree_unflatten(I, r.out, placeholders, pos);
      axes_for(I, vs.out_axes, shape_tree, "out_axes", out_axes);
    } else {
      out_axes.assign(res.size(), axis_of(I, vs.out_axes, "out_axes"));
    }
    std::vector<ValueId> out;
    for (size_t i = 0; i < res.size(); ++i) {
      if (!out_axes[i]) {
        if (res[i].batched)
          I.raise("ValueError", "vmap has mapped output but out_axes is None");
        out.push_back(res[i].value);
        continue;
      }
      ValueId v = batching::materialize(t, res[i], n);
      const auto rank = static_cast<int64_t>(t.type(v).rank());
      int64_t to = *out_axes[i] < 0 ? *out_axes[i] + rank : *out_axes[i];
      if (to < 0 || to >= rank)
        I.raise("ValueError", fmt::format("vmap out_axes specification {} is out of bounds for an output of rank {}", *out_axes[i], rank - 1));
      out.push_back(trace::move_dim(t, v, 0, to));
    }
    return out;
  });
  size_t pos = 0;
  return tree_unflatten(I, out_def, results, pos);
}

types::AxisNames names_of(Interp& I, const Value& v) {
  types::AxisNames out;
  if (!v || v->kind == ObjKind::None) return out;
  if (v->kind == ObjKind::Str) return {static_cast<interp::StrObj&>(*v).v};
  for (auto& x : I.to_vector(v)) out.push_back(bi::str_arg(I, x, "spmd_axis_name"));
  return out;
}

Value jax_vmap(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "vmap", {"fun", "in_axes=", "out_axes=", "axis_name=", "axis_size=", "spmd_axis_name="});
  VmapSpec vs;
  vs.fun = p.get("fun");
  vs.in_axes = p.get("in_axes") ? p.get("in_axes") : interp::make_int(0);
  vs.out_axes = p.get("out_axes") ? p.get("out_axes") : interp::make_int(0);
  if (Value name = p.get("axis_name"); name && name->kind != ObjKind::None) vs.axis_name = bi::str_arg(I, name, "axis_name");
  if (Value s = p.get("axis_size"); s && s->kind != ObjKind::None) vs.axis_size = bi::int_of(s);
  vs.spmd_axes = names_of(I, p.get("spmd_axis_name"));
  return interp::make_builtin("vmap_f", [vs](Interp& I2, CallArgs& b) { return call_vmapped(I2, vs, b); });
}

}  // namespace

void install_vmap(interp::ModuleObj& jax) { jax.dict.set("vmap", interp::make_builtin("vmap", jax_vmap)); }

}  // namespace shard::api
