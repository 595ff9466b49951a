#include "api/modules/lax_collectives.hpp"

#include <fmt/format.h>

#include <functional>

#include "api/objects/array_value.hpp"
#include "api/op_args.hpp"
#include "api/pytree/pytree.hpp"
#include "interp/builtins/support.hpp"
#include "trace/trace.hpp"

namespace shard::api {

using ir::ReduceKind;
using interp::ArgParser;
using interp::ObjKind;
using ir::ValueId;
using trace::Trace;
using types::AxisNames;
namespace bi = interp::bi;

namespace {

// axis_name: one name or a tuple/list of names.
AxisNames axis_names_of(Interp& I, const Value& v, const char* fname) {
  if (!v || v->kind == ObjKind::None) I.raise("TypeError", fmt::format("{}() missing required argument: 'axis_name'", fname));
  AxisNames out;
  if (auto* s = bi::str_of(v)) return {s->v};
  if (v->kind != ObjKind::Tuple && v->kind != ObjKind::List)
    I.raise("TypeError", fmt::format("{}: axis_name must be a string or a tuple of strings, got {}", fname, I.repr(v)));
  for (auto& x : I.to_vector(v)) {
    auto* s = bi::str_of(x);
    if (!s) I.raise("TypeError", fmt::format("{}: axis_name must be a string or a tuple of strings, got {}", fname, I.repr(v)));
    out.push_back(s->v);
  }
  return out;
}

bool flag_arg(Interp& I, const Value& v) { return !is_none(v) && I.truthy(v); }

int64_t int_or(Interp& I, const Value& v, int64_t dflt, const char* what) { return is_none(v) ? dflt : int_arg(I, v, what); }

// Applies a one-operand collective to every leaf of the pytree `x`.
Value map_leaves(Interp& I, const char* name, const Value& x,
                 const std::function<ValueId(Trace&, ValueId)>& op) {
  std::vector<Value> leaves;
  TreeDef def = tree_flatten(I, x, leaves);
  std::vector<Value> outs;
  for (auto& leaf : leaves)
    outs.push_back(apply(I, name, {leaf}, [&](Trace& t, const std::vector<ValueId>& v) { return std::vector<ValueId>{op(t, v[0])}; }));
  size_t pos = 0;
  return tree_unflatten(I, def, outs, pos);
}

void reject_groups(Interp& I, const Value& groups, const char* fname) {
  if (!is_none(groups)) I.raise("NotImplementedError", fmt::format("{}: axis_index_groups is not supported", fname));
}

int64_t bound_axes_size(Interp& I, const AxisNames& axes);

// JAX's psum of Python numbers: no value varies, so the sum over the axes is the number
// times their size, a concrete value (psum(1, 'x') is the axis size), not a collective.
std::optional<Value> psum_of_numbers(Interp& I, const Value& x, const AxisNames& axes) {
  std::vector<Value> leaves;
  TreeDef def = tree_flatten(I, x, leaves);
  for (auto& leaf : leaves)
    if (leaf->kind != ObjKind::Int && leaf->kind != ObjKind::Float && leaf->kind != ObjKind::Bool) return std::nullopt;
  const int64_t n = bound_axes_size(I, axes);
  std::vector<Value> outs;
  for (auto& leaf : leaves) {
    if (leaf->kind == ObjKind::Float) outs.push_back(interp::make_float(static_cast<interp::FloatObj&>(*leaf).v * static_cast<double>(n)));
    else outs.push_back(interp::make_int((leaf->kind == ObjKind::Bool ? (I.truthy(leaf) ? 1 : 0) : static_cast<interp::IntObj&>(*leaf).v) * n));
  }
  size_t pos = 0;
  return tree_unflatten(I, def, outs, pos);
}

// psum / pmax / pmin / pmean over the leaves of x: `op` builds one leaf's IR.
using ReduceLeaf = std::function<ValueId(Trace&, ValueId, const AxisNames&)>;
NativeFn reduction(const char* fname, ReduceLeaf op) {
  return [fname, op](Interp& I, CallArgs& a) -> Value {
    ArgParser p(I, a, fname, {"x", "axis_name", "*", "axis_index_groups="});
    reject_groups(I, p.get("axis_index_groups"), fname);
    AxisNames axes = axis_names_of(I, p.get("axis_name"), fname);
    if (std::string_view(fname) == "psum")
      if (auto concrete = psum_of_numbers(I, p.get("x"), axes)) return *concrete;
    return map_leaves(I, fname, p.get("x"), [&](Trace& t, ValueId x) { return op(t, x, axes); });
  };
}

ReduceLeaf all_reduce_leaf(const char* name, ReduceKind kind) {
  return [name, kind](Trace& t, ValueId x, const AxisNames& axes) { return trace::all_reduce(t, name, kind, x, axes); };
}

Value lax_all_gather(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "all_gather", {"x", "axis_name", "*", "axis_index_groups=", "axis=", "tiled="});
  reject_groups(I, p.get("axis_index_groups"), "all_gather");
  AxisNames axes = axis_names_of(I, p.get("axis_name"), "all_gather");
  int64_t axis = int_or(I, p.get("axis"), 0, "axis");
  bool tiled = flag_arg(I, p.get("tiled"));
  return map_leaves(I, "all_gather", p.get("x"), [&](Trace& t, ValueId x) { return trace::all_gather(t, x, axes, axis, tiled); });
}

Value lax_psum_scatter(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "psum_scatter", {"x", "axis_name", "*", "scatter_dimension=", "axis_index_groups=", "tiled="});
  reject_groups(I, p.get("axis_index_groups"), "psum_scatter");
  AxisNames axes = axis_names_of(I, p.get("axis_name"), "psum_scatter");
  int64_t dim = int_or(I, p.get("scatter_dimension"), 0, "scatter_dimension");
  bool tiled = flag_arg(I, p.get("tiled"));
  return map_leaves(I, "psum_scatter", p.get("x"), [&](Trace& t, ValueId x) { return trace::psum_scatter(t, x, axes, dim, tiled); });
}

Value lax_ppermute(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "ppermute", {"x", "axis_name", "perm"});
  AxisNames axes = axis_names_of(I, p.get("axis_name"), "ppermute");
  std::vector<std::pair<int64_t, int64_t>> perm;
  for (auto& pair : I.to_vector(p.get("perm"))) {
    auto st = I.to_vector(pair);
    if (st.size() != 2) I.raise("ValueError", fmt::format("ppermute perm entries must be (source, destination) pairs, got {}", I.repr(pair)));
    perm.emplace_back(int_arg(I, st[0], "perm"), int_arg(I, st[1], "perm"));
  }
  return map_leaves(I, "ppermute", p.get("x"), [&](Trace& t, ValueId x) { return trace::ppermute(t, x, axes, perm); });
}

Value lax_all_to_all(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "all_to_all", {"x", "axis_name", "split_axis", "concat_axis", "*", "axis_index_groups=", "tiled="});
  reject_groups(I, p.get("axis_index_groups"), "all_to_all");
  AxisNames axes = axis_names_of(I, p.get("axis_name"), "all_to_all");
  int64_t split = int_arg(I, p.get("split_axis"), "split_axis"), concat = int_arg(I, p.get("concat_axis"), "concat_axis");
  bool tiled = flag_arg(I, p.get("tiled"));
  return map_leaves(I, "all_to_all", p.get("x"), [&](Trace& t, ValueId x) { return trace::all_to_all(t, x, axes, split, concat, tiled); });
}

Value lax_axis_index(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "axis_index", {"axis_name"});
  AxisNames axes = axis_names_of(I, p.get("axis_name"), "axis_index");
  return apply(I, "axis_index", {}, [&](Trace& t, const std::vector<ValueId>&) { return std::vector<ValueId>{trace::axis_index(t, axes)}; });
}

// The size of bound manual axes, as a Python int (axes not bound: JAX's NameError).
Value lax_axis_size(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "axis_size", {"axis_name"});
  return interp::make_int(bound_axes_size(I, axis_names_of(I, p.get("axis_name"), "axis_size")));
}

int64_t bound_axes_size(Interp& I, const AxisNames& axes) {
  types::AbstractMesh mesh = trace::MeshContext::get().abstract();
  AxisNames bound = mesh.manual_axes();
  for (auto& n : axes)
    if (std::find(bound.begin(), bound.end(), n) == bound.end()) {
      std::vector<std::string> q;
      for (auto& b : bound) q.push_back("'" + b + "'");
      I.raise("NameError", fmt::format("unbound axis name: {}. The following axis names (e.g. defined by shard_map) are available to "
                                       "collective operations: [{}]", n, fmt::join(q, ", ")));
    }
  return mesh.axes_size(axes);
}

Value lax_pvary(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "pvary", {"x", "axis_name"});
  AxisNames axes = axis_names_of(I, p.get("axis_name"), "pvary");
  return map_leaves(I, "pvary", p.get("x"), [&](Trace& t, ValueId x) { return trace::pvary(t, x, axes); });
}

Value lax_pcast(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "pcast", {"x", "axis_name", "*", "to"});
  AxisNames axes = axis_names_of(I, p.get("axis_name"), "pcast");
  auto* to = bi::str_of(p.get("to"));
  if (!to || to->v != "varying")
    I.raise("ValueError", fmt::format("pcast: only to='varying' is supported, got to={}", is_none(p.get("to")) ? "None" : I.repr(p.get("to"))));
  return map_leaves(I, "pcast", p.get("x"), [&](Trace& t, ValueId x) { return trace::pvary(t, x, axes, "pcast"); });
}

}  // namespace

void install_lax_collectives(Interp&, interp::ModuleObj& lax) {
  auto add = [&](const char* name, NativeFn fn) { lax.dict.set(name, interp::make_builtin(name, std::move(fn))); };
  add("psum", reduction("psum", all_reduce_leaf("psum", ReduceKind::Sum)));
  add("pmax", reduction("pmax", all_reduce_leaf("pmax", ReduceKind::Max)));
  add("pmin", reduction("pmin", all_reduce_leaf("pmin", ReduceKind::Min)));
  add("pmean", reduction("pmean", [](Trace& t, ValueId x, const AxisNames& axes) { return trace::pmean(t, x, axes); }));
  add("all_gather", lax_all_gather);
  add("psum_scatter", lax_psum_scatter);
  add("ppermute", lax_ppermute);
  add("all_to_all", lax_all_to_all);
  add("axis_index", lax_axis_index);
  add("axis_size", lax_axis_size);
  add("pvary", lax_pvary);
  add("pcast", lax_pcast);
}

}  // namespace shard::api
