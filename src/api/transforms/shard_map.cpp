#include "api/transforms/shard_map.hpp"

#include <fmt/format.h>

#include "api/objects/array_value.hpp"
#include "api/objects/sharding_objects.hpp"
#include "api/op_args.hpp"
#include "api/pytree/pytree.hpp"
#include "api/transforms/region_trace.hpp"
#include "api/transforms/shard_map_eager.hpp"
#include "exec/run_global.hpp"
#include "interp/builtins/support.hpp"
#include "sharding/rules.hpp"
#include "trace/ops.hpp"

namespace shard::api {

using interp::ArgParser;
using interp::ObjKind;
using ir::ValueId;
using trace::Trace;
using types::PartitionSpec;
namespace bi = interp::bi;

namespace {

struct Config {
  Value f;
  Value mesh;  // Mesh / AbstractMesh / null (the context mesh at call time)
  Value in_specs, out_specs;
  std::optional<types::AxisNames> axis_names;
  bool check_vma = true;
  bool legacy = false;  // jax.experimental.shard_map.shard_map
};

std::string function_name(Interp& I, const Value& f) {
  try {
    Value name = I.getattr(f, "__name__");  // kept alive while read
    if (auto* s = bi::str_of(name)) return s->v;
  } catch (const interp::PyError&) {
  }
  return "<unnamed function>";
}

// The concrete mesh the call runs on: mesh= (an AbstractMesh must match the context's).
types::Mesh resolve_mesh(Interp& I, const Config& c) {
  auto context = trace::MeshContext::get().concrete();
  if (!is_none(c.mesh)) {
    if (auto m = mesh_of(c.mesh)) return *m;
    auto am = abstract_mesh_of(c.mesh);
    if (!am) I.raise("TypeError", fmt::format("shard_map requires mesh to be a jax.sharding.Mesh or AbstractMesh, got {}", I.repr(c.mesh)));
    if (context && context->abstract_mesh().axis_names() == am->axis_names() && context->abstract_mesh().axis_sizes() == am->axis_sizes())
      return *context;
    I.raise("ValueError", "shard_map was given an AbstractMesh but no matching concrete mesh is in context; enter one with "
                          "`jax.sharding.use_mesh(mesh)`.");
  }
  if (context && !context->empty()) return *context;
  I.raise("ValueError", "shard_map requires a mesh: pass mesh=... or enter one with `jax.sharding.use_mesh(mesh)` / "
                        "`jax.sharding.set_mesh(mesh)`.");
}

struct LeafSpec {
  PartitionSpec spec;
  std::string spec_path;
};

// JAX's tree-prefix matching of in_specs / out_specs against values: a PartitionSpec (or None)
// covers every leaf below it; tuples, lists and dicts must match the value's structure.
void match_specs(Interp& I, const Value& specs, const TreeDef& def, const std::string& spec_path, const char* what,
                 std::vector<LeafSpec>& out) {
  if (auto s = spec_of(specs)) {
    for (size_t i = 0; i < tree_num_leaves(def); ++i) out.push_back({*s, spec_path});
    return;
  }
  if (is_none(specs)) {
    for (size_t i = 0; i < tree_num_leaves(def); ++i) out.push_back({PartitionSpec(), spec_path});
    return;
  }
  const bool seq = specs->kind == ObjKind::Tuple || specs->kind == ObjKind::List;
  if (seq && (def.kind == TreeDef::Tuple || def.kind == TreeDef::List)) {
    auto items = I.to_vector(specs);
    if (items.size() == def.children.size()) {
      for (size_t i = 0; i < items.size(); ++i) match_specs(I, items[i], def.children[i], fmt::format("{}[{}]", spec_path, i), what, out);
      return;
    }
  }
  if (specs->kind == ObjKind::Dict && def.kind == TreeDef::Dict && static_cast<size_t>(I.len(specs)) == def.children.size()) {
    for (size_t i = 0; i < def.children.size(); ++i)
      match_specs(I, I.getitem(specs, def.keys[i]), def.children[i], fmt::format("{}[{}]", spec_path, I.repr(def.keys[i])), what, out);
    return;
  }
  if (!seq && specs->kind != ObjKind::Dict)
    I.raise("TypeError", fmt::format("shard_map {} must be a pytree of PartitionSpec (jax.sharding.PartitionSpec), got {} at {}{}",
                                     what, I.repr(specs), what, spec_path));
  I.raise("ValueError", fmt::format("shard_map {}{} of value {} is not a tree prefix of the corresponding value, whose structure is {}",
                                    what, spec_path, I.repr(specs), pytreedef_str(I, def)));
}

// An argument's in_spec when shard_map is given none: its type's sharding over the manual
// axes (an Explicit-sharded argument keeps its layout; anything else is replicated).
PartitionSpec inferred_in_spec(Interp& I, const Value& v, const sharding::ShardMapSpec& sm) {
  if (!is_array_like(v)) return PartitionSpec();
  const auto t = type_of(v);
  std::vector<PartitionSpec::Entry> entries;
  const PartitionSpec spec = t.spec().normalized(t.rank());  // named: entries() refers into it
  for (auto& e : spec.entries()) {
    PartitionSpec::Entry kept;
    for (auto& ax : e)
      if (std::find(sm.manual_axes.begin(), sm.manual_axes.end(), ax) != sm.manual_axes.end()) kept.push_back(ax);
    entries.push_back(kept);
  }
  (void)I;
  return PartitionSpec(entries);
}


// Traces the body on local types and emits the ShardMap op into `t`; returns its results.
std::vector<ValueId> emit_shard_map(Interp& I, Trace& t, const Config& c, const types::Mesh& mesh, const sharding::ShardMapSpec& sm,
                                    const TreeDef& args_def, const std::vector<LeafSpec>& in, const std::vector<ValueId>& ids,
                                    TreeDef& out_def) {
  auto paths = leaf_path_strings(I, args_def);
  auto inner = sharding::shard_map_inner_mesh(sm);
  auto body = std::make_shared<Trace>("shard_map", inner, t.shared_from_this());
  std::vector<Value> tracers;
  for (size_t i = 0; i < ids.size(); ++i) {
    sharding::SpecSite site{paths[i], in[i].spec_path, ""};
    if (args_def.kind == TreeDef::Tuple && !paths[i].empty()) {
      size_t close = paths[i].find(']');
      size_t arg = static_cast<size_t>(std::stoul(paths[i].substr(1, close - 1)));
      site.param_name = param_name(c.f, arg);
    }
    auto local = sharding::shard_map_input(sm, t.type(ids[i]), in[i].spec, site);
    tracers.push_back(wrap_tracer(body, body->param(local)));
  }
  std::vector<ValueId> results;
  std::vector<Value> out_leaves;
  {
    ShardMapBodyScope scope(body, inner, sm.check_vma);
    size_t pos = 0;
    Value args = tree_unflatten(I, args_def, tracers, pos);
    Value result = I.call(c.f, I.to_vector(args));
    out_def = tree_flatten(I, result, out_leaves);
    // Through an identity op: outer tracers are captured, constants materialise in the body.
    auto vals = out_leaves.empty() ? std::vector<Value>{}
                                   : apply_multi(I, "shard_map", out_leaves, [](Trace&, const std::vector<ValueId>& v) { return v; });
    for (auto& v : vals) results.push_back(as_tracer(v)->id);
  }
  std::vector<LeafSpec> out_specs;
  match_specs(I, c.out_specs, out_def, "", "out_specs", out_specs);
  auto out_paths = leaf_path_strings(I, out_def);
  std::vector<ArrayType> out_types;
  for (size_t i = 0; i < results.size(); ++i)
    out_types.push_back(sharding::shard_map_output(sm, body->type(results[i]), out_specs[i].spec,
                                                   sharding::SpecSite{out_paths[i], out_specs[i].spec_path, ""}));
  ir::Function fn = body->finish(results);  // params: the explicit ones, then the captured values
  trace::ShardMapSpecs specs{sm.manual_axes, sm.check_vma, {}, {}, mesh, sm.mesh};
  for (auto& s : in) specs.in_specs.push_back(s.spec);
  for (auto& s : out_specs) specs.out_specs.push_back(s.spec);
  return trace::shard_map(t, {std::make_shared<const ir::Function>(std::move(fn)), body->captured()}, ids, out_types, specs);
}

// An eager call's committed inputs on another mesh move to the shard_map's mesh first.
std::vector<Value> onto_mesh(const std::vector<Value>& leaves, const types::Mesh& mesh) {
  std::vector<Value> out;
  for (auto& v : leaves) {
    auto* a = as_array(v);
    if (!a || a->host || a->array->single_device || a->array->sharding.mesh() == mesh) {
      out.push_back(v);
      continue;
    }
    const auto& t = a->array->type;
    auto rep = PartitionSpec::replicated(t.rank());
    auto nt = ArrayType::from_sharding(t.dtype(), t.shape(), types::NamedSharding(mesh, rep), {}, t.weak_type());
    out.push_back(wrap(exec::reshard_array(a->array, mesh, rep, nt)));
  }
  return out;
}

// Outside jit the body runs eagerly (shard_map_eager.hpp): its Python sees every device's
// blocks, and each op on them runs at once.
Value call_eagerly(Interp& I, const Config& c, const types::Mesh& mesh, const sharding::ShardMapSpec& sm, const TreeDef& args_def,
                   const std::vector<LeafSpec>& in, const std::vector<Value>& leaves) {
  auto paths = leaf_path_strings(I, args_def);
  std::vector<PartitionSpec> in_specs;
  std::vector<sharding::SpecSite> in_sites;
  for (size_t i = 0; i < leaves.size(); ++i) {
    in_specs.push_back(in[i].spec);
    sharding::SpecSite site{paths[i], in[i].spec_path, ""};
    if (args_def.kind == TreeDef::Tuple && !paths[i].empty()) {
      size_t close = paths[i].find(']');
      site.param_name = param_name(c.f, static_cast<size_t>(std::stoul(paths[i].substr(1, close - 1))));
    }
    in_sites.push_back(site);
  }
  EagerShardMap body(mesh, sm);
  auto blocks = body.enter(I, leaves, in_specs, in_sites);
  std::vector<Value> out_leaves;
  TreeDef out_def;
  {
    // Ops without operands (zeros, axis_index) run per device too; the context mesh shows the
    // manual axes, as inside a traced body.
    ShardMapBodyScope scope(body.trace(), sharding::shard_map_inner_mesh(sm), sm.check_vma);
    size_t pos = 0;
    Value args = tree_unflatten(I, args_def, blocks, pos);
    Value result = I.call(c.f, I.to_vector(args));
    out_def = tree_flatten(I, result, out_leaves);
  }
  std::vector<LeafSpec> out_specs;
  match_specs(I, c.out_specs, out_def, "", "out_specs", out_specs);
  auto out_paths = leaf_path_strings(I, out_def);
  std::vector<PartitionSpec> specs;
  std::vector<sharding::SpecSite> sites;
  for (size_t i = 0; i < out_leaves.size(); ++i) {
    specs.push_back(out_specs[i].spec);
    sites.push_back(sharding::SpecSite{out_paths[i], out_specs[i].spec_path, ""});
  }
  auto outs = body.leave(I, out_leaves, specs, sites);
  size_t pos = 0;
  return tree_unflatten(I, out_def, outs, pos);
}

Value call_shard_map(Interp& I, const Config& c, CallArgs& a) {
  if (!a.kwargs.empty())
    I.raise("TypeError", fmt::format("shard_map applied to the function '{}' does not accept keyword arguments, got '{}'",
                                     function_name(I, c.f), a.kwargs[0].first));
  types::Mesh mesh = resolve_mesh(I, c);
  std::string name = function_name(I, c.f);
  auto sm = guarded(I, [&] { return sharding::make_shard_map_spec(name, mesh.abstract_mesh(), c.axis_names, c.check_vma, c.legacy); });
  std::vector<Value> leaves;
  TreeDef args_def = tree_flatten(I, interp::make_tuple(a.args), leaves);
  std::vector<LeafSpec> in;
  if (c.in_specs) {
    match_specs(I, c.in_specs, args_def, "", "in_specs", in);
  } else {
    for (auto& v : leaves) in.push_back({inferred_in_spec(I, v, sm), ""});
  }
  bool traced = trace::current_trace() != nullptr;
  for (auto& v : leaves) traced |= as_tracer(v) != nullptr;
  TreeDef out_def;
  std::vector<Value> outs;
  auto run = [&] {
    outs = apply_multi(I, "shard_map", leaves, [&](Trace& t, const std::vector<ValueId>& ids) {
      return emit_shard_map(I, t, c, mesh, sm, args_def, in, ids, out_def);
    });
  };
  if (!traced && runs_eagerly(sm)) return call_eagerly(I, c, mesh, sm, args_def, in, guarded(I, [&] { return onto_mesh(leaves, mesh); }));
  if (traced) {
    run();
  } else {  // traced once, then run as a one-op program on the shard_map's mesh
    leaves = guarded(I, [&] { return onto_mesh(leaves, mesh); });
    trace::MeshContext::get().push(mesh);
    try {
      run();
    } catch (...) {
      trace::MeshContext::get().pop();
      throw;
    }
    trace::MeshContext::get().pop();
  }
  size_t pos = 0;
  return tree_unflatten(I, out_def, outs, pos);
}

std::optional<types::AxisNames> axis_names_opt(Interp& I, const Value& v) {
  if (is_none(v)) return std::nullopt;
  types::AxisNames names;
  for (auto& x : I.to_vector(v)) {
    auto* s = bi::str_of(x);
    if (!s) I.raise("TypeError", fmt::format("shard_map axis_names must be mesh axis names, got {}", I.repr(x)));
    names.push_back(s->v);
  }
  if (names.empty()) return std::nullopt;  // JAX's default set(): all mesh axes
  return names;
}

Value wrapped(Interp& I, Config c) {
  if (!I.truthy(I.call(I.getattr(I.builtins(), "callable"), std::vector<Value>{c.f})))
    I.raise("TypeError", fmt::format("shard_map requires a callable for its first argument, but got {} of type {}.", I.repr(c.f),
                                     bi::class_qualname(*c.f->cls)));
  std::string name = function_name(I, c.f);
  return interp::make_builtin(name, [c](Interp& I2, CallArgs& a) { return call_shard_map(I2, c, a); });
}

// jax.shard_map(f=None, /, *, out_specs, in_specs=None, mesh=None, axis_names=set(), check_vma=True);
// without in_specs (current JAX), each argument's spec is its type's sharding on the manual axes.
Value jax_shard_map(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "shard_map", {"f=", "*", "out_specs", "in_specs=", "mesh=", "axis_names=", "check_vma="});
  Config c;
  c.mesh = p.get("mesh");
  c.in_specs = p.get("in_specs");
  c.out_specs = p.get("out_specs");
  c.axis_names = axis_names_opt(I, p.get("axis_names"));
  c.check_vma = is_none(p.get("check_vma")) || I.truthy(p.get("check_vma"));
  if (is_none(p.get("f")))  // decorator form: @jax.shard_map(mesh=..., ...)
    return interp::make_builtin("shard_map", [c](Interp& I2, CallArgs& a2) {
      ArgParser p2(I2, a2, "shard_map", {"f"});
      Config c2 = c;
      c2.f = p2.get("f");
      return wrapped(I2, c2);
    });
  c.f = p.get("f");
  return wrapped(I, c);
}

// jax.experimental.shard_map.shard_map(f, mesh, in_specs, out_specs, check_rep=True, auto=frozenset())
Value legacy_shard_map(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "shard_map", {"f", "mesh", "in_specs", "out_specs", "check_rep=", "auto="});
  Config c;
  c.f = p.get("f");
  c.mesh = p.get("mesh");
  c.in_specs = p.get("in_specs");
  c.out_specs = p.get("out_specs");
  c.check_vma = is_none(p.get("check_rep")) || I.truthy(p.get("check_rep"));
  c.legacy = true;
  if (!is_none(p.get("auto")) && I.len(p.get("auto")) > 0) {
    // auto= names the axes that stay automatic: the manual ones are the rest.
    auto m = resolve_mesh(I, c);
    std::vector<Value> autos = I.to_vector(p.get("auto"));
    types::AxisNames manual;
    for (auto& n : m.abstract_mesh().axis_names()) {
      bool is_auto = false;
      for (auto& x : autos)
        if (auto* s = bi::str_of(x); s && s->v == n) is_auto = true;
      if (!is_auto) manual.push_back(n);
    }
    c.axis_names = manual;
  }
  return wrapped(I, c);
}

}  // namespace

void install_shard_map(Interp&, interp::ModuleObj& jax) {
  jax.dict.set("shard_map", interp::make_builtin("shard_map", jax_shard_map));
}

void fill_experimental_shard_map(Interp&, interp::ModuleObj& m) {
  m.dict.set("shard_map", interp::make_builtin("shard_map", legacy_shard_map));
}

}  // namespace shard::api
