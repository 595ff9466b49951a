// jit's tracing (see jit_internal.hpp): a Python function called on tracers for the dynamic
// leaves, with in_shardings/out_shardings applied (reshards on Explicit axes, sharding
// constraints on Auto axes) and non-tracer outputs
// (constants, Python scalars) captured as IR constants.
#include <fmt/format.h>

#include <memory>
#include <optional>

#include "api/modules/debug_layout_probe.hpp"
#include "api/objects/array_value.hpp"
#include "api/objects/shape_dtype_struct.hpp"
#include "api/objects/sharding_objects.hpp"
#include "api/transforms/axis_type_scopes.hpp"
#include "api/transforms/jit_internal.hpp"
#include "interp/complex_value.hpp"
#include "interp/builtins/support.hpp"
#include "trace/ops.hpp"
#include "trace/trace.hpp"

namespace shard::api::jit_detail {

using interp::ObjKind;
namespace bi = interp::bi;

namespace {

// Shows the arguments' mesh as the context mesh while tracing (when none is set), so
// PartitionSpec out_sharding= and creation ops inside the function see it.
class TraceMeshScope {
 public:
  explicit TraceMeshScope(const std::optional<types::Mesh>& mesh) {
    auto& ctx = trace::MeshContext::get();
    if (mesh && ctx.abstract().empty() && !ctx.concrete()) {
      ctx.push(*mesh);
      pushed_ = true;
    }
  }
  ~TraceMeshScope() {
    if (pushed_) trace::MeshContext::get().pop();
  }
  TraceMeshScope(const TraceMeshScope&) = delete;
  TraceMeshScope& operator=(const TraceMeshScope&) = delete;

 private:
  bool pushed_ = false;
};

// One sharding per leaf of `def` (null: unspecified) from jit's in_shardings or out_shardings,
// a tree prefix of the positional arguments' tuple or of the result (a list reads as a tuple).
std::vector<Value> shardings_per_leaf(Interp& I, const Value& shardings, const TreeDef& def, const char* what, const char* whose) {
  if (!shardings || shardings->kind == ObjKind::None) return std::vector<Value>(tree_num_leaves(def));
  Value prefix = shardings;
  if (prefix->kind == ObjKind::List && prefix->cls.get() == interp::T().list.get()) prefix = interp::make_tuple(I.to_vector(prefix));
  auto out = broadcast_prefix(I, prefix, def, is_sharding_leaf, what, whose);
  for (auto& v : out)
    if (v->kind == ObjKind::None) v = nullptr;
  return out;
}

// Lays value `id` out by a jit sharding: a reshard of its type on Explicit axes, and on Auto
// axes (which types do not show) a sharding constraint the partitioner lays it out by.
ir::ValueId apply_sharding(Interp& I, trace::Trace& t, ir::ValueId id, const Value& sharding, const char* what) {
  if (!sharding) return id;
  auto target = out_sharding_arg(I, sharding, what);
  return guarded(I, [&] {
    if (!target) return id;
    const auto named = sharding::resolve_out_sharding(sharding::RuleContext{t.mesh(), what}, *target, what, /*allow_non_explicit=*/true);
    // JAX's pjit_check_aval_sharding: every sharded dim must divide evenly.
    const types::Shape shape = t.type(id).shape();
    const auto parts = named.dim_partitions(shape.size());
    for (size_t d = 0; d < shape.size(); ++d)
      if (shape[d] % parts[d] != 0) {
        std::string given = I.repr(sharding);  // the user's NamedSharding shows its concrete mesh, as JAX's message does
        if (given.rfind("NamedSharding(", 0) != 0) given = named.repr();
        throw types::ShardingError(
            "ValueError", fmt::format("One of pjit {} was given the sharding of {}, which implies that the global size of its dimension {} "
                                      "should be divisible by {}, but it is equal to {} (full shape: {})",
                                      std::string_view(what) == "jit's out_shardings" ? "outputs" : "arguments", given, d, parts[d],
                                      shape[d], types::py_int_tuple(shape)));
      }
    const auto& mesh = t.mesh().empty() ? named.abstract_mesh() : t.mesh();
    const auto want = named.spec().normalized(t.type(id).rank()).entries();
    std::vector<types::PartitionSpec::Entry> explicit_part;
    bool names_auto = false, names_explicit = false;
    for (auto& e : want) {
      types::PartitionSpec::Entry kept;
      for (auto& a : e) {
        const bool is_auto = mesh.has_axis(a) && mesh.axis_type(a) == types::AxisType::Auto;
        names_auto |= is_auto;
        if (!is_auto) kept.push_back(a);
      }
      names_explicit |= !kept.empty();
      explicit_part.push_back(kept);
    }
    if (!names_auto) return trace::reshard(t, id, target);
    if (names_explicit || t.type(id).is_sharded()) id = trace::reshard(t, id, types::NamedSharding(named.abstract_mesh(), types::PartitionSpec(explicit_part)));
    return trace::sharding_constraint(t, id, t.type(id), constrained_layout(t.type(id), named));
  });
}

ir::ValueId constant_leaf(Interp& I, trace::Trace& t, const Value& v) {
  return guarded(I, [&]() -> ir::ValueId {
    if (auto* a = as_array(v)) {
      exec::ArrayRef arr = a->host ? to_device(a->array, std::nullopt, std::nullopt) : a->array;
      auto bytes = exec::constant_bytes(*arr);
      // A concrete array made inside the function (an eager creation op) keeps its sharding
      // in the type when it lives on the trace's mesh.
      sharding::OptOutSharding sh;
      if (arr->type.is_sharded() && arr->type.mesh() == t.mesh()) sh = arr->type.spec();
      return trace::constant(t, arr->type.dtype(), arr->type.shape(), bytes.data(), arr->type.weak_type(), sh);
    }
    if (auto st = python_scalar_type(v, false)) {
      if (interp::is_complex(v)) {
        const auto z = interp::complex_of(v);
        return trace::complex_constant(t, z.real(), z.imag(), *st);
      }
      double x = v->kind == ObjKind::Float ? static_cast<interp::FloatObj&>(*v).v
               : v->kind == ObjKind::Int  ? static_cast<double>(static_cast<interp::IntObj&>(*v).v)
                                          : (static_cast<interp::BoolObj&>(*v).v ? 1.0 : 0.0);
      return trace::scalar_constant(t, x, *st);
    }
    I.raise("TypeError", fmt::format("Value {} with type <class '{}'> is not a valid JAX type", I.repr(v), bi::class_qualname(*v->cls)));
  });
}

// A jit sharding leaf as written: a NamedSharding, or a PartitionSpec on the context mesh.
std::optional<types::NamedSharding> written_sharding(Interp& I, const Value& sharding, const char* what) {
  if (!sharding) return std::nullopt;
  auto target = out_sharding_arg(I, sharding, what);
  if (!target) return std::nullopt;
  if (auto* named = std::get_if<types::NamedSharding>(&*target)) return named->is_concrete() ? std::optional(*named) : std::nullopt;
  auto mesh = trace::MeshContext::get().concrete();
  if (!mesh) return std::nullopt;
  return guarded(I, [&] { return types::NamedSharding(*mesh, std::get<types::PartitionSpec>(*target)); });
}

// The mesh of the first NamedSharding in jit's in_shardings / out_shardings.
std::optional<types::Mesh> sharding_mesh(Interp& I, const JitOptions& opts) {
  for (const Value& tree : {opts.in_shardings, opts.out_shardings}) {
    if (!tree || tree->kind == ObjKind::None) continue;
    std::vector<Value> leaves;
    FlattenOptions fo;
    fo.is_leaf = interp::make_builtin("is_sharding_leaf", [](Interp&, interp::CallArgs& a) { return interp::make_bool(is_sharding_leaf(a.args.at(0))); });
    tree_flatten(I, tree, leaves, fo);
    for (auto& l : leaves)
      if (auto* s = as_sharding(l); s && s->named && s->named->is_concrete()) return s->named->mesh();
  }
  return std::nullopt;
}

}  // namespace

exec::Placement place_call_inputs(Interp& I, const CacheEntry& entry, const std::vector<exec::ArrayRef>& leaves,
                                  const std::function<std::vector<std::string>()>& names,
                                  const std::function<std::string()>& fun_name) {
  auto place = [&] {
    if (auto c = context_mesh()) return exec::place_inputs(entry.fn, leaves, c);
    const auto& named = entry.placement_mesh;
    return exec::place_inputs(entry.fn, leaves, named, /*always_context=*/named.has_value());
  };
  return guarded(I, [&] {
    try {
      return place();
    } catch (const exec::IncompatibleDevices& e) {
      throw types::ShardingError("ValueError", exec::incompatible_devices_message(e, leaves, names ? names() : std::vector<std::string>{},
                                                                                  fun_name ? fun_name() : entry.fn.name));
    }
  });
}

std::string fun_name(Interp& I, const Value& f) {
  if (f->kind == ObjKind::Function) return static_cast<interp::FunctionObj&>(*f).name;
  if (auto n = I.try_getattr(f, "__name__"); n && (*n)->kind == ObjKind::Str) return static_cast<interp::StrObj&>(**n).v;
  return "fn";
}

// Traces f on abstract values of `leaves` (the dynamic arguments' leaves, structure `in`).
std::vector<AbstractLeaf> abstract_leaves(const std::vector<exec::ArrayRef>& arrays) {
  std::vector<AbstractLeaf> out;
  for (auto& a : arrays) {
    std::optional<types::Mesh> mesh;
    if (!a->single_device && a->sharding.is_concrete()) mesh = a->sharding.mesh();
    out.push_back({a->type, std::move(mesh)});
  }
  return out;
}

std::vector<AbstractLeaf> abstract_leaves(Interp& I, const Value& fun, const CallArgs& a, const CallParts& parts,
                                          const std::vector<Value>& values) {
  std::vector<AbstractLeaf> out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (auto* tr = as_tracer(values[i])) {  // eval_shape of an outer trace's value
      out.push_back({tr->type(), std::nullopt});
      continue;
    }
    if (auto* s = as_shape_dtype_struct(values[i])) {
      std::optional<types::Mesh> mesh;
      if (s->sharding && s->sharding->is_concrete()) mesh = s->sharding->mesh();
      out.push_back({guarded(I, [&] { return s->type(); }), std::move(mesh)});
      continue;
    }
    std::vector<Value> one{values[i]};
    out.push_back(abstract_leaves(leaf_arrays(I, fun, a, parts, one)).at(0));
  }
  return out;
}

Traced trace_function(Interp& I, const Value& f, const JitOptions& opts, const CallArgs& a, const CallParts& parts,
                      const TreeDef& in, const std::vector<AbstractLeaf>& leaves, std::shared_ptr<trace::Trace> parent) {
  std::optional<types::Mesh> mesh;
  for (auto& l : leaves)
    if (l.mesh) {
      mesh = l.mesh;
      break;
    }
  auto& ctx = trace::MeshContext::get();
  const auto named = sharding_mesh(I, opts);
  if (!mesh && !ctx.concrete()) mesh = named;
  types::AbstractMesh abstract = mesh ? mesh->abstract_mesh() : ctx.abstract();
  if (!mesh && ctx.concrete()) mesh = ctx.concrete();
  TraceMeshScope scope(mesh);
  if (!ctx.abstract().empty()) abstract = ctx.abstract();  // use_mesh / axis-type scopes win
  // Under a parent (eval_shape inside a jit), the parent's tracers the function closes over
  // are captured rather than escaping.
  auto t = parent ? std::make_shared<trace::Trace>(fun_name(I, f), abstract, parent) : std::make_shared<trace::Trace>(fun_name(I, f), abstract);
  t->set_loc(I.current_loc());
  trace::TraceScope recording(t);  // ops without tracer operands (creation ops) record here too
  JitTraceScope compiled(t.get());  // layout probes inside are reported when it compiles

  // Parameters (resharded to in_shardings per top-level dynamic positional argument).
  std::vector<Value> tracers;
  const auto in_shardings = shardings_per_leaf(I, opts.in_shardings, in.children.at(0), "jit's in_shardings",
                                               "the positional arguments' tuple");  // the dynamic positionals; keywords come after
  WrittenShardings written;
  for (size_t leaf = 0; leaf < leaves.size(); ++leaf) {
    auto id = t->param(leaves[leaf].type);
    written.in.push_back(leaf < in_shardings.size() ? written_sharding(I, in_shardings[leaf], "jit's in_shardings") : std::nullopt);
    if (leaf < in_shardings.size()) id = apply_sharding(I, *t, id, in_shardings[leaf], "jit's in_shardings");
    tracers.push_back(wrap_tracer(t, id));
  }
  size_t pos = 0;
  Value dynamic = tree_unflatten(I, in, tracers, pos);
  CallArgs call = rebuild_call(I, a, parts, dynamic);
  Value result = I.call(f, call);

  std::vector<Value> out_leaves;
  TreeDef out = tree_flatten(I, result, out_leaves);
  std::vector<ir::ValueId> ids;
  t->set_loc(I.current_loc());
  for (auto& v : out_leaves) {
    auto* tr = as_tracer(v);
    if (tr && tr->trace != t)
      I.raise("UnexpectedTracerError",  // no such built-in class yet: raised as RuntimeError
              fmt::format("Encountered an unexpected tracer. A function transformed by JAX had a side effect, allowing for a reference to "
                          "an intermediate value with type {} wrapped in a DynamicJaxprTracer to escape the scope of the transformation.",
                          tr->type().str_short()));
    ids.push_back(tr ? tr->id : constant_leaf(I, *t, v));
  }
  const auto out_shardings = shardings_per_leaf(I, opts.out_shardings, out, "jit's out_shardings", "the function's result");
  for (size_t k = 0; k < ids.size(); ++k) {
    auto given = written_sharding(I, out_shardings[k], "jit's out_shardings");
    written.out.push_back(given ? std::optional(given->spec()) : std::nullopt);
    ids[k] = apply_sharding(I, *t, ids[k], out_shardings[k], "jit's out_shardings");
  }
  // Where calls without committed arguments run: the shardings' mesh, else one named inside.
  auto placement = named ? named : t->noted_mesh();
  return guarded(I, [&] { return Traced{t->finish(ids), std::move(out), std::move(placement), std::move(written)}; });
}

}  // namespace shard::api::jit_detail
