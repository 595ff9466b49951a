// jit's tracing (see jit_internal.hpp): a Python function called on tracers for the dynamic
// leaves, with in_shardings/out_shardings applied as reshards and non-tracer outputs
// (constants, Python scalars) captured as IR constants.
#include <fmt/format.h>

#include <memory>
#include <optional>

#include "api/objects/array_value.hpp"
#include "api/objects/sharding_objects.hpp"
#include "api/transforms/jit_internal.hpp"
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

// The shardings= argument for the i-th of n items: one value for all, or a tuple/list of them.
Value sharding_for(Interp& I, const Value& shardings, size_t i, size_t n, const char* what) {
  if (!shardings || shardings->kind == ObjKind::None) return nullptr;
  if (shardings->kind == ObjKind::Tuple || shardings->kind == ObjKind::List) {
    auto items = I.to_vector(shardings);
    if (items.size() != n)
      I.raise("ValueError", fmt::format("{} should be a pytree prefix of the arguments: got {} shardings for {} values", what, items.size(), n));
    return items[i];
  }
  return shardings;
}

ir::ValueId apply_sharding(Interp& I, trace::Trace& t, ir::ValueId id, const Value& sharding, const char* what) {
  if (!sharding || sharding->kind == ObjKind::None) return id;
  auto target = out_sharding_arg(I, sharding, what);
  return guarded(I, [&] { return trace::reshard(t, id, target); });
}

ir::ValueId constant_leaf(Interp& I, trace::Trace& t, const Value& v) {
  return guarded(I, [&]() -> ir::ValueId {
    if (auto* a = as_array(v)) {
      exec::ArrayRef arr = a->host ? to_device(a->array, std::nullopt, std::nullopt) : a->array;
      auto bytes = exec::array_to_host(*arr);
      // A concrete array made inside the function (an eager creation op) keeps its sharding
      // in the type when it lives on the trace's mesh.
      sharding::OptOutSharding sh;
      if (arr->type.is_sharded() && arr->type.mesh() == t.mesh()) sh = arr->type.spec();
      return trace::constant(t, arr->type.dtype(), arr->type.shape(), bytes.data(), arr->type.weak_type(), sh);
    }
    if (auto st = python_scalar_type(v, false)) {
      double x = v->kind == ObjKind::Float ? static_cast<interp::FloatObj&>(*v).v
               : v->kind == ObjKind::Int  ? static_cast<double>(static_cast<interp::IntObj&>(*v).v)
                                          : (static_cast<interp::BoolObj&>(*v).v ? 1.0 : 0.0);
      return trace::scalar_constant(t, x, *st);
    }
    I.raise("TypeError", fmt::format("Value {} with type <class '{}'> is not a valid JAX type", I.repr(v), bi::class_qualname(*v->cls)));
  });
}

size_t leaf_count(const TreeDef& d) {
  if (d.kind == TreeDef::Leaf) return 1;
  size_t n = 0;
  for (auto& c : d.children) n += leaf_count(c);
  return n;
}

}  // namespace

std::string fun_name(Interp& I, const Value& f) {
  if (f->kind == ObjKind::Function) return static_cast<interp::FunctionObj&>(*f).name;
  if (auto n = I.try_getattr(f, "__name__"); n && (*n)->kind == ObjKind::Str) return static_cast<interp::StrObj&>(**n).v;
  return "fn";
}

// Traces f on abstract values of `leaves` (the dynamic arguments' leaves, structure `in`).
Traced trace_function(Interp& I, const Value& f, const JitOptions& opts, const CallArgs& a, const CallParts& parts,
                      const TreeDef& in, const std::vector<exec::ArrayRef>& leaves) {
  std::optional<types::Mesh> mesh;
  for (auto& l : leaves)
    if (!l->single_device && l->sharding.is_concrete()) {
      mesh = l->sharding.mesh();
      break;
    }
  auto& ctx = trace::MeshContext::get();
  types::AbstractMesh abstract = mesh ? mesh->abstract_mesh() : ctx.abstract();
  if (!mesh && ctx.concrete()) mesh = ctx.concrete();
  TraceMeshScope scope(mesh);
  if (!ctx.abstract().empty()) abstract = ctx.abstract();  // use_mesh / axis-type scopes win
  auto t = std::make_shared<trace::Trace>(fun_name(I, f), abstract);
  t->set_loc(I.current_loc());
  trace::TraceScope recording(t);  // ops without tracer operands (creation ops) record here too

  // Parameters (resharded to in_shardings per top-level dynamic positional argument).
  std::vector<Value> tracers;
  const auto& pos_tree = in.children.at(0);  // tuple of dynamic positionals
  size_t leaf = 0;
  for (size_t i = 0; i < pos_tree.children.size() + 1; ++i) {
    const TreeDef& sub = i < pos_tree.children.size() ? pos_tree.children[i] : in.children.at(1);
    const size_t count = leaf_count(sub);
    Value sh = i < pos_tree.children.size() ? sharding_for(I, opts.in_shardings, i, pos_tree.children.size(), "in_shardings") : nullptr;
    for (size_t k = 0; k < count; ++k, ++leaf) {
      auto id = t->param(leaves.at(leaf)->type);
      id = apply_sharding(I, *t, id, sh, "jit's in_shardings");
      tracers.push_back(wrap_tracer(t, id));
    }
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
  // out_shardings: one for all outputs, or one per element of a returned tuple/list.
  if (opts.out_shardings && opts.out_shardings->kind != ObjKind::None) {
    const bool per_item = (opts.out_shardings->kind == ObjKind::Tuple || opts.out_shardings->kind == ObjKind::List) &&
                          (out.kind == TreeDef::Tuple || out.kind == TreeDef::List);
    if (!per_item) {
      for (auto& id : ids) id = apply_sharding(I, *t, id, opts.out_shardings, "jit's out_shardings");
    } else {
      size_t k = 0;
      for (size_t i = 0; i < out.children.size(); ++i) {
        Value sh = sharding_for(I, opts.out_shardings, i, out.children.size(), "out_shardings");
        const size_t count = leaf_count(out.children[i]);
        for (size_t c = 0; c < count; ++c, ++k) ids[k] = apply_sharding(I, *t, ids[k], sh, "jit's out_shardings");
      }
    }
  }
  return guarded(I, [&] { return Traced{t->finish(ids), std::move(out)}; });
}

}  // namespace shard::api::jit_detail
