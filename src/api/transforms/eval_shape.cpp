// jax.eval_shape(fun, *args, **kwargs): fun traced (as jit traces it) on abstract values of
// its arguments, which may be arrays, Python scalars or ShapeDtypeStructs; the result's
// leaves come back as ShapeDtypeStructs. Nothing is compiled or run.
#include "api/transforms/eval_shape.hpp"

#include "api/objects/shape_dtype_struct.hpp"
#include "api/transforms/jit_internal.hpp"
#include "interp/builtins/support.hpp"
#include "trace/trace.hpp"

namespace shard::api {

using interp::CallArgs;
using interp::Interp;
using interp::Value;
namespace bi = interp::bi;

namespace {

// The sharding a result type shows: its Explicit spec on the concrete mesh the call ran on
// (the arguments' or the context's), or on the abstract mesh when none is known.
std::optional<types::NamedSharding> result_sharding(const types::ArrayType& t, const std::optional<types::Mesh>& mesh) {
  if (!t.is_sharded()) return std::nullopt;
  if (mesh && mesh->abstract_mesh() == t.mesh()) return types::NamedSharding(*mesh, t.spec());
  return t.sharding();
}

Value eval_shape(Interp& I, CallArgs& a) {
  if (a.args.empty()) I.raise("TypeError", "eval_shape() missing 1 required positional argument: 'fun'");
  Value fun = a.args[0];
  CallArgs call = bi::args_after(a, 1);
  JitOptions opts;
  CallParts parts = split_call(I, fun, opts, call);
  std::vector<Value> leaf_values;
  TreeDef in = tree_flatten(I, parts.dynamic, leaf_values);
  auto leaves = jit_detail::abstract_leaves(I, fun, call, parts, leaf_values);
  std::optional<types::Mesh> mesh = trace::MeshContext::get().concrete();
  for (auto& l : leaves)
    if (l.mesh) mesh = l.mesh;
  // Inside a trace (eval_shape under jit), the function may close over that trace's tracers.
  jit_detail::Traced tr = jit_detail::trace_function(I, fun, opts, call, parts, in, leaves, trace::current_trace());
  if (!mesh) mesh = tr.placement_mesh;
  std::vector<Value> outs;
  for (auto r : tr.fn.results) {
    const auto& t = tr.fn.type(r);
    outs.push_back(shape_dtype_struct_value(t.shape(), t.dtype(), result_sharding(t, mesh), t.weak_type()));
  }
  size_t pos = 0;
  return tree_unflatten(I, tr.out, outs, pos);
}

}  // namespace

void install_eval_shape(interp::ModuleObj& jax) {
  jax.dict.set("eval_shape", interp::make_builtin("eval_shape", eval_shape));
  jax.dict.set("ShapeDtypeStruct", shape_dtype_struct_class());
}

}  // namespace shard::api
