// jax.checkpoint / jax.remat (policy=, static_argnums=) and jax.checkpoint_policies. Under a
// trace the function becomes a `checkpoint` op: forward it runs its body; in reverse mode the
// values its policy does not save are recomputed in the backward pass instead of kept
// (autodiff/partial_eval_control.cpp). Called on concrete arrays, the function just runs.
#include "api/transforms/checkpoint.hpp"

#include <fmt/format.h>

#include "api/objects/array_value.hpp"
#include "api/transforms/region_trace.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using interp::CallArgs;
using interp::Interp;
using interp::ObjKind;
using interp::Value;
using ir::ValueId;
namespace bi = interp::bi;

namespace {

const std::vector<std::string>& policy_names() {
  static const std::vector<std::string> names = {"nothing_saveable", "everything_saveable", "dots_saveable", "checkpoint_dots",
                                                 "dots_with_no_batch_dims_saveable"};
  return names;
}

// A policy is a builtin named after itself; any other callable is not supported.
std::string policy_of(Interp& I, const Value& v) {
  if (!v || v->kind == ObjKind::None) return "nothing_saveable";
  if (auto n = I.try_getattr(v, "__name__"); n && (*n)->kind == ObjKind::Str) {
    const std::string& name = static_cast<interp::StrObj&>(**n).v;
    for (auto& p : policy_names())
      if (p == name) return p;
  }
  I.raise("NotImplementedError", fmt::format("jax.checkpoint policy {} is not supported; use one of jax.checkpoint_policies."
                                             "nothing_saveable, everything_saveable, dots_saveable, dots_with_no_batch_dims_saveable",
                                             I.repr(v)));
}

Value call_checkpointed(Interp& I, const Value& fun, const std::string& policy, const std::vector<int64_t>& static_argnums, CallArgs& a) {
  if (!a.kwargs.empty()) I.raise("TypeError", "jax.checkpoint functions take positional arguments only in shard");
  auto is_static = [&](size_t i) { return std::find(static_argnums.begin(), static_argnums.end(), static_cast<int64_t>(i)) != static_argnums.end(); };
  std::vector<Value> dyn;
  for (size_t i = 0; i < a.args.size(); ++i)
    if (!is_static(i)) dyn.push_back(a.args[i]);
  std::vector<Value> leaves;
  TreeDef def = tree_flatten(I, interp::make_tuple(dyn), leaves);
  bool traced = trace::current_trace() != nullptr;
  for (auto& l : leaves) traced |= as_tracer(l) != nullptr;
  if (!traced) return I.call(fun, a);
  TreeDef out_def;
  auto results = apply_multi(I, "checkpoint", leaves, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
    std::vector<types::ArrayType> types;
    for (auto id : ids) types.push_back(t.type(id));
    Region r = trace_region(I, t, "checkpoint", types, [&](const std::vector<Value>& tracers) {
      size_t pos = 0;
      auto d = I.to_vector(tree_unflatten(I, def, tracers, pos));
      std::vector<Value> args;
      size_t k = 0;
      for (size_t i = 0; i < a.args.size(); ++i) args.push_back(is_static(i) ? a.args[i] : d[k++]);
      return I.call(fun, args);
    });
    out_def = r.out;
    std::vector<ValueId> operands = r.captured;
    operands.insert(operands.end(), ids.begin(), ids.end());
    return t.emit_multi(ir::OpKind::Checkpoint, operands, r.result_types, ir::attr::Checkpoint{policy}, {r.fn});
  });
  size_t pos = 0;
  return tree_unflatten(I, out_def, results, pos);
}

std::vector<int64_t> ints_of(Interp& I, const Value& v) {
  std::vector<int64_t> out;
  if (!v || v->kind == ObjKind::None) return out;
  if (auto i = bi::int_of(v)) return {*i};
  for (auto& x : I.to_vector(v))
    if (auto i = bi::int_of(x)) out.push_back(*i);
  return out;
}

Value jax_checkpoint(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "checkpoint", {"fun=", "*", "prevent_cse=", "policy=", "static_argnums="});
  const std::string policy = policy_of(I, p.get("policy"));
  const auto static_argnums = ints_of(I, p.get("static_argnums"));
  auto wrap = [policy, static_argnums](const Value& fun) {
    return interp::make_builtin("checkpoint", [fun, policy, static_argnums](Interp& I2, CallArgs& b) {
      return call_checkpointed(I2, fun, policy, static_argnums, b);
    });
  };
  Value fun = p.get("fun");
  if (fun && fun->kind != ObjKind::None) return wrap(fun);
  // @jax.checkpoint(policy=...): a decorator
  return interp::make_builtin("checkpoint", [wrap](Interp& I2, CallArgs& b) {
    if (b.args.size() != 1) I2.raise("TypeError", "jax.checkpoint(...) as a decorator takes the function");
    return wrap(b.args[0]);
  });
}

}  // namespace

void install_checkpoint(interp::ModuleObj& jax) {
  Value cp = interp::make_builtin("checkpoint", jax_checkpoint);
  jax.dict.set("checkpoint", cp);
  jax.dict.set("remat", cp);
}

// jax.checkpoint_policies: the policies as named functions (never called: their names are read).
void register_checkpoint_policies() {
  Interp::register_builtin_module("jax.checkpoint_policies", [](Interp&, interp::ModuleObj& m) {
    for (auto& name : policy_names())
      m.dict.set(name, interp::make_builtin(name, [name](Interp& I2, CallArgs&) -> Value {
        I2.raise("TypeError", fmt::format("jax.checkpoint_policies.{} is a policy for jax.checkpoint(policy=...)", name));
      }));
  });
}

}  // namespace shard::api
