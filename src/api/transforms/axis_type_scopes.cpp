// auto_axes / explicit_axes (jax.sharding and jax.experimental.shard): run a function with
// some mesh axes switched to Auto (or Explicit), SHARDING_RULES.md §6.
//
// Forms: a decorator (`@auto_axes`, `@partial(auto_axes, axes='dp')`), a direct call
// (`auto_axes(f, out_sharding=P(...))(x)`), with the sharding at the call site as the seeds
// write it (`g(x, out_shardings=P('dp','mp'))`), and a context manager
// (`with auto_axes(axes='dp'):`) that switches the context mesh's axis types for the block.
//
// Crossing the scope is a mesh cast: arguments take the inner mesh's types (auto_axes drops
// the now-Auto axes from them; explicit_axes reshards them to in_sharding), results take the
// outer mesh's (auto_axes reshards them to out_sharding; explicit_axes drops the outer-Auto
// axes). Eagerly the casts that keep the layout are free (only the array's handle changes);
// under jit they are ops of the trace, and f's own ops are traced in a child trace over the
// inner mesh (so their sharding rules see the switched axis types) and then inlined.
#include "api/transforms/axis_type_scopes.hpp"

#include <fmt/format.h>

#include "api/objects/array_placement_specs.hpp"
#include "api/objects/array_value.hpp"
#include "api/objects/sharding_objects.hpp"
#include "api/pytree/pytree.hpp"
#include "exec/run_global.hpp"
#include "interp/builtins/support.hpp"
#include "trace/trace.hpp"

namespace shard::api {

namespace bi = interp::bi;
using interp::ObjKind;
using types::AbstractMesh;
using types::AxisType;

namespace {

enum class ScopeKind { Auto, Explicit };

const char* api_name(ScopeKind k) { return k == ScopeKind::Auto ? "auto_axes" : "explicit_axes"; }

// What a scope was declared with: its axes (none = all) and the sharding keyword given at
// declaration (out_sharding for auto_axes, in_sharding for explicit_axes), if any.
struct ScopeDecl {
  ScopeKind kind;
  std::optional<types::AxisNames> axes;
  Value sharding;  // null when not given
};

bool given(const Value& v) { return v && v->kind != ObjKind::None; }

// The sharding keyword under either spelling (out_sharding / out_shardings).
Value keyword_sharding(Interp& I, const interp::ArgParser& p, const char* singular, const char* plural) {
  Value a = p.has(singular) ? p.get(singular) : Value();
  Value b = p.has(plural) ? p.get(plural) : Value();
  if (given(a) && given(b))
    I.raise("TypeError", fmt::format("pass only one of `{}` and `{}` (they are the same argument)", singular, plural));
  return given(a) ? a : b;
}

// One sharding per result leaf: a single PartitionSpec / NamedSharding applies to every leaf,
// a list or tuple of them must match the leaves.
std::vector<sharding::OptOutSharding> shardings_for(Interp& I, const Value& s, size_t nleaves, const char* what) {
  if (!given(s)) return std::vector<sharding::OptOutSharding>(nleaves);
  if (spec_of(s) || as_sharding(s)) return std::vector<sharding::OptOutSharding>(nleaves, out_sharding_arg(I, s, what));
  std::vector<Value> leaves;
  tree_flatten(I, s, leaves);
  if (leaves.size() != nleaves)
    I.raise("ValueError", fmt::format("{}: the sharding tree has {} leaves but the values have {}", what, leaves.size(), nleaves));
  std::vector<sharding::OptOutSharding> out;
  for (auto& l : leaves) out.push_back(out_sharding_arg(I, l, what));
  return out;
}

// The first NamedSharding among the shardings (its mesh stands in for an empty context mesh).
sharding::OptOutSharding first_named(const std::vector<sharding::OptOutSharding>& ss) {
  for (auto& s : ss)
    if (s && std::holds_alternative<types::NamedSharding>(*s)) return s;
  return ss.empty() ? std::nullopt : ss[0];
}

// The concrete mesh the scope runs on: the context's, a NamedSharding's, or an argument's.
std::optional<types::Mesh> concrete_mesh(const std::vector<sharding::OptOutSharding>& ss, const std::vector<Value>& leaves) {
  if (auto c = trace::MeshContext::get().concrete()) return c;
  for (auto& s : ss)
    if (s)
      if (const auto* ns = std::get_if<types::NamedSharding>(&*s); ns && ns->is_concrete()) return ns->mesh();
  for (auto& l : leaves)
    if (auto* a = as_array(l); a && !a->host && !a->array->single_device) return a->array->sharding.mesh();
  return std::nullopt;
}

// An eager array with a new type and the same blocks, its mesh's axis types as `mesh`'s.
exec::ArrayRef recast(const exec::ArrayRef& a, const types::ArrayType& t, const AbstractMesh& mesh) {
  auto out = std::make_shared<exec::Array>(*a);
  out->type = t;
  if (!a->single_device) out->sharding = types::NamedSharding(a->sharding.mesh().with_axis_types(mesh.axis_types()), a->sharding.spec());
  return out;
}

// Mesh cast keeping the layout: under jit an identity op whose result has the new type (the
// partitioner keeps the operand's layout on axes the new type leaves free); eagerly a new
// handle. `to` must keep the layout's Explicit part.
Value cast_keeping_layout(Interp& I, const Value& x, const types::ArrayType& to, const AbstractMesh& mesh) {
  if (auto* a = as_array(x)) return wrap(recast(a->array, to, mesh), a->host);
  if (auto* t = as_tracer(x)) {
    if (t->type() == to) return x;
    return apply(I, "mesh_cast", {x}, [&](trace::Trace& tc, const std::vector<ir::ValueId>& ids) {
      return std::vector<ir::ValueId>{trace::retype(tc, ids[0], to)};
    });
  }
  return x;
}

// Mesh cast to a stated sharding (`spec` is the full layout): a sharding constraint op.
Value cast_to_sharding(Interp& I, const Value& x, const types::ArrayType& to, const types::PartitionSpec& spec,
                       const std::optional<types::Mesh>& mesh) {
  if (auto* a = as_array(x)) {
    if (!mesh) return wrap(recast(a->array, to, to.mesh()), a->host);
    auto m = mesh->with_axis_types(to.mesh().empty() ? mesh->axis_types() : to.mesh().axis_types());
    auto arr = a->array;
    if (!arr->single_device && arr->sharding.mesh() != m) arr = recast(arr, arr->type, m.abstract_mesh());
    return guarded(I, [&] { return wrap(exec::reshard_array(arr, m, spec.normalized(to.rank()), to, false)); });
  }
  return apply(I, "sharding_constraint", {x}, [&](trace::Trace& tc, const std::vector<ir::ValueId>& ids) {
    return std::vector<ir::ValueId>{trace::sharding_constraint(tc, ids[0], to, spec.normalized(to.rank()))};
  });
}

// Pushes the switched mesh for the scope's body (abstract for types and get_abstract_mesh,
// concrete for eager programs) and pops it on the way out.
class MeshSwitch {
 public:
  MeshSwitch(const AbstractMesh& inner, const std::optional<types::Mesh>& concrete) {
    auto& ctx = trace::MeshContext::get();
    if (concrete && concrete->axis_names() == inner.axis_names()) {
      ctx.push(concrete->with_axis_types(inner.axis_types()));
      pushed_concrete_ = true;
    }
    ctx.push_abstract(inner);
  }
  ~MeshSwitch() {
    auto& ctx = trace::MeshContext::get();
    ctx.pop_abstract();
    if (pushed_concrete_) ctx.pop();
  }
  MeshSwitch(const MeshSwitch&) = delete;
  MeshSwitch& operator=(const MeshSwitch&) = delete;

 private:
  bool pushed_concrete_ = false;
};

// Calls f inside the scope. Under jit, f's ops are recorded in a child trace over the inner
// mesh and then inlined into the enclosing trace; values f returns are mapped back.
Value call_in_scope(Interp& I, const Value& f, CallArgs& args, const AbstractMesh& inner,
                    const std::optional<types::Mesh>& concrete) {
  MeshSwitch sw(inner, concrete);
  auto parent = trace::current_trace();
  if (!parent) return I.call(f, args);
  auto child = std::make_shared<trace::Trace>("scope", inner, parent);
  Value out;
  {
    trace::TraceScope scope(child);
    out = I.call(f, args);
  }
  const auto map = parent->inline_child(*child);
  std::vector<Value> leaves;
  TreeDef def = tree_flatten(I, out, leaves);
  for (auto& l : leaves)
    if (auto* t = as_tracer(l); t && t->trace == child) l = wrap_tracer(parent, map.at(static_cast<size_t>(t->id)));
  size_t pos = 0;
  return tree_unflatten(I, def, leaves, pos);
}

// Runs a scope: `decl` as declared, `a` the call (its out_sharding(s) / in_sharding(s)
// keywords override the declaration's).
Value run_scope(Interp& I, const Value& f, const ScopeDecl& decl, CallArgs& a) {
  const bool is_auto = decl.kind == ScopeKind::Auto;
  const char* singular = is_auto ? "out_sharding" : "in_sharding";
  const char* plural = is_auto ? "out_shardings" : "in_shardings";
  Value site;
  CallArgs call;
  call.args = a.args;
  call.loc = a.loc;
  for (auto& [k, v] : a.kwargs) {
    if (k == singular || k == plural) {
      if (given(site)) I.raise("TypeError", fmt::format("pass only one of `{}` and `{}` (they are the same argument)", singular, plural));
      site = v;
    } else {
      call.kwargs.emplace_back(k, v);
    }
  }
  Value sharding_value = given(site) ? site : decl.sharding;
  if (!given(sharding_value))
    I.raise("TypeError", fmt::format("Missing required keyword argument: '{}'. {} needs to know how {}: call it with {}=P(...) "
                                     "(or {}=...).",
                                     plural, api_name(decl.kind),
                                     is_auto ? "to shard the result outside" : "the arguments are sharded inside", singular, plural));
  // Arguments: array leaves cross into the scope.
  Value arg_tree = interp::make_tuple(call.args);
  std::vector<Value> arg_leaves;
  TreeDef arg_def = tree_flatten(I, arg_tree, arg_leaves);
  std::vector<size_t> array_leaves;
  for (size_t i = 0; i < arg_leaves.size(); ++i)
    if (as_tracer(arg_leaves[i]) || (as_array(arg_leaves[i]) && !as_array(arg_leaves[i])->host)) array_leaves.push_back(i);

  const AbstractMesh context = trace::MeshContext::get().abstract();
  // auto_axes: the out shardings (their mesh may stand in for an empty context mesh);
  // explicit_axes: one in_sharding per array argument.
  std::vector<sharding::OptOutSharding> declared;
  if (is_auto) {
    std::vector<Value> ls;
    if (spec_of(sharding_value) || as_sharding(sharding_value)) ls.push_back(sharding_value);
    else tree_flatten(I, sharding_value, ls);
    for (auto& l : ls) declared.push_back(out_sharding_arg(I, l, "auto_axes's out_sharding"));
  } else {
    declared = shardings_for(I, sharding_value, array_leaves.size(), "explicit_axes's in_sharding");
  }
  const auto& in_shardings = declared;
  sharding::AxesScope scope;
  scope = guarded(I, [&] {
    return is_auto ? sharding::enter_auto_axes(context, decl.axes, first_named(declared))
                   : sharding::enter_explicit_axes(context, decl.axes, first_named(declared));
  });
  std::vector<Value> leaves_only;
  for (auto i : array_leaves) leaves_only.push_back(arg_leaves[i]);
  auto concrete = concrete_mesh(declared, leaves_only);
  if (scope.noop) return I.call(f, call);

  for (size_t k = 0; k < array_leaves.size(); ++k) {
    Value& x = arg_leaves[array_leaves[k]];
    const auto t = type_of(x);
    if (t.mesh().empty() && is_auto) continue;  // unsharded, no mesh: nothing to switch
    if (is_auto) {
      x = cast_keeping_layout(I, x, guarded(I, [&] { return sharding::auto_axes_argument(scope, t); }), scope.inner);
    } else {
      auto to = guarded(I, [&] { return sharding::explicit_axes_argument(scope, t, in_shardings[k]); });
      MeshSwitch sw(scope.inner, concrete);  // the reshard runs on the inner mesh
      x = cast_to_sharding(I, x, to, to.spec(), concrete);
    }
  }
  size_t pos = 0;
  call.args = I.to_vector(tree_unflatten(I, arg_def, arg_leaves, pos));
  Value out = call_in_scope(I, f, call, scope.inner, concrete);

  // Results leave the scope.
  std::vector<Value> out_leaves;
  TreeDef out_def = tree_flatten(I, out, out_leaves);
  std::vector<sharding::OptOutSharding> outs;
  if (is_auto) outs = shardings_for(I, sharding_value, out_leaves.size(), "auto_axes's out_sharding");
  for (size_t i = 0; i < out_leaves.size(); ++i) {
    Value& y = out_leaves[i];
    if (!is_array_like(y) || (as_array(y) && as_array(y)->host)) continue;
    const auto t = type_of(y);
    if (is_auto) {
      auto to = guarded(I, [&] { return sharding::auto_axes_result(scope, t, outs[i]); });
      types::PartitionSpec spec = to.spec();
      if (outs[i]) {
        if (const auto* ns = std::get_if<types::NamedSharding>(&*outs[i])) spec = ns->spec();
        else if (const auto* ps = std::get_if<types::PartitionSpec>(&*outs[i])) spec = *ps;
      }
      // The eager value first returns to the outer mesh's axis types (same blocks).
      if (auto* arr = as_array(y)) y = wrap(recast(arr->array, t.mesh().empty() ? t : t.with_mesh(scope.outer, t.spec()), scope.outer));
      y = cast_to_sharding(I, y, to, spec, concrete);
    } else {
      auto to = guarded(I, [&] { return sharding::explicit_axes_result(scope, t); });
      y = cast_keeping_layout(I, y, to, scope.outer);
    }
  }
  pos = 0;
  return tree_unflatten(I, out_def, out_leaves, pos);
}

std::string function_name(Interp& I, const Value& f) {
  try {
    Value n = I.getattr(f, "__name__");
    if (n->kind == ObjKind::Str) return static_cast<interp::StrObj&>(*n).v;
  } catch (const interp::PyError&) {
  }
  return "function";
}

Value decorated(Interp& I, const Value& f, ScopeDecl decl) {
  return interp::make_builtin(function_name(I, f), [f, decl](Interp& I2, CallArgs& a) { return run_scope(I2, f, decl, a); });
}

// `auto_axes(axes=...)` without a function: a decorator and a context manager at once.
struct ScopeObj : interp::NativeObj {
  ScopeDecl decl;
  std::vector<std::unique_ptr<MeshSwitch>> active;
  ScopeObj(ClassP c, ScopeDecl d) : NativeObj(std::move(c)), decl(std::move(d)) {}
};

ClassP scope_class() {
  static ClassP c = [] {
    auto k = interp::make_class("_AxisTypeScope", {interp::T().object}, "jax._src.sharding_impls");
    auto self = [](Interp& I, CallArgs& a) -> ScopeObj& {
      auto* o = a.args.empty() ? nullptr : dynamic_cast<ScopeObj*>(a.args[0].get());
      if (!o) I.raise("TypeError", "descriptor requires an axis-type scope object");
      return *o;
    };
    bi::def(k, "__call__", [self](Interp& I, CallArgs& a) -> Value {
      ScopeObj& o = self(I, a);
      if (a.args.size() != 2 || !a.kwargs.empty())
        I.raise("TypeError", fmt::format("{}(...) used as a decorator takes the function to wrap", api_name(o.decl.kind)));
      return decorated(I, a.args[1], o.decl);
    });
    // As a context manager the block runs with the switched axis types (no casts: arrays
    // from outside keep their types, so ops mixing them with the inner mesh are errors).
    bi::def(k, "__enter__", [self](Interp& I, CallArgs& a) -> Value {
      ScopeObj& o = self(I, a);
      auto scope = guarded(I, [&] {
        auto ctx = trace::MeshContext::get().abstract();
        return o.decl.kind == ScopeKind::Auto ? sharding::enter_auto_axes(ctx, o.decl.axes)
                                              : sharding::enter_explicit_axes(ctx, o.decl.axes);
      });
      o.active.push_back(std::make_unique<MeshSwitch>(scope.inner, trace::MeshContext::get().concrete()));
      return abstract_mesh_value(scope.inner);
    });
    bi::def(k, "__exit__", [self](Interp& I, CallArgs& a) -> Value {
      ScopeObj& o = self(I, a);
      if (!o.active.empty()) o.active.pop_back();
      return interp::make_bool(false);
    });
    return k;
  }();
  return c;
}

Value make_scope_api(ScopeKind kind) {
  const char* name = api_name(kind);
  return interp::make_builtin(name, [kind, name](Interp& I, CallArgs& a) -> Value {
    const bool is_auto = kind == ScopeKind::Auto;
    std::vector<std::string> sig = {"fun=", "*", "axes="};
    if (is_auto) sig.insert(sig.end(), {"out_sharding=", "out_shardings="});
    else sig.insert(sig.end(), {"in_sharding=", "in_shardings="});
    interp::ArgParser p(I, a, name, sig);
    ScopeDecl decl{kind, std::nullopt, Value()};
    if (given(p.get("axes"))) decl.axes = axis_names_arg(I, p.get("axes"), "axes");
    decl.sharding = is_auto ? keyword_sharding(I, p, "out_sharding", "out_shardings") : keyword_sharding(I, p, "in_sharding", "in_shardings");
    Value fun = p.get("fun");
    if (given(fun)) return decorated(I, fun, decl);
    return std::make_shared<ScopeObj>(scope_class(), decl);
  });
}

// ---- with_sharding_constraint -------------------------------------------------------------

}  // namespace

// The value's mesh is its type's, or the constraint's own when the type has none.
types::PartitionSpec constrained_layout(const types::ArrayType& t, const types::NamedSharding& target) {
  const AbstractMesh& value_mesh = t.mesh().empty() ? target.abstract_mesh() : t.mesh();
  auto have = t.spec().normalized(t.rank()).entries();
  auto want = target.spec().normalized(t.rank()).entries();
  std::vector<types::PartitionSpec::Entry> out;
  for (size_t d = 0; d < t.rank(); ++d) {
    if (!have[d].empty()) {
      out.push_back(have[d]);
      continue;
    }
    types::PartitionSpec::Entry e;
    for (auto& a : want[d])
      if (value_mesh.has_axis(a) && value_mesh.axis_type(a) == AxisType::Auto) e.push_back(a);
    out.push_back(e);
  }
  return types::PartitionSpec(out);
}

namespace {

Value constrain_leaf(Interp& I, const Value& x, const sharding::OutSharding& s) {
  const auto t = type_of(x);
  auto& ctx = trace::MeshContext::get();
  auto active = trace::current_trace();
  if (auto* tr = as_tracer(x)) active = trace::innermost(active, tr->trace);
  const AbstractMesh context = active ? active->mesh() : ctx.abstract();
  auto target = guarded(I, [&] {
    sharding::check_with_sharding_constraint(sharding::RuleContext{context, "with_sharding_constraint"}, t, s);
    return sharding::resolve_out_sharding(sharding::RuleContext{context, "with_sharding_constraint"}, s,
                                          "with_sharding_constraint", /*allow_non_explicit=*/true);
  });
  // A concrete NamedSharding names its devices, which an eager constraint moves the value to
  // (the rules resolve it against the abstract mesh only).
  const auto* given = std::get_if<types::NamedSharding>(&s);
  if (given && !given->is_concrete()) given = nullptr;
  if (given && target.abstract_mesh().empty()) target = *given;
  if (target.abstract_mesh().empty()) return x;
  const auto layout = constrained_layout(t, target);
  guarded(I, [&] { types::NamedSharding(target.abstract_mesh(), layout).check_divisible(t.shape()); });
  if (as_tracer(x) || active) {
    return apply(I, "with_sharding_constraint", {x}, [&](trace::Trace& tc, const std::vector<ir::ValueId>& ids) {
      if (const auto* given = std::get_if<types::NamedSharding>(&s); given && given->is_concrete()) tc.note_mesh(given->mesh());
      return std::vector<ir::ValueId>{trace::sharding_constraint(tc, ids[0], tc.type(ids[0]), layout)};
    });
  }
  auto* a = as_array(x);
  if (!a || a->host) return x;
  // Eager: the array moves to the pinned layout now (on its mesh, or the constraint's).
  std::optional<types::Mesh> mesh;
  if (!a->array->single_device) mesh = a->array->sharding.mesh();
  else if (target.is_concrete()) mesh = target.mesh();
  else if (given) mesh = given->mesh();
  else if (auto c = ctx.concrete(); c && c->abstract_mesh().axis_names() == target.abstract_mesh().axis_names()) mesh = *c;
  if (!mesh) return x;
  if (!a->array->single_device && a->array->sharding.spec().normalized(t.rank()) == layout) return x;
  // A moved value reports the constraint as written (JAX runs jit(out_shardings=s) of the identity).
  const auto& written = given ? given->spec() : std::holds_alternative<types::PartitionSpec>(s) ? std::get<types::PartitionSpec>(s) : target.spec();
  return guarded(I, [&] {
    // An uncommitted input's type names no mesh: the result's does (a committed array).
    const auto nt = t.mesh().empty() ? types::ArrayType::from_sharding(t.dtype(), t.shape(), types::NamedSharding(*mesh, layout), {}, t.weak_type()) : t;
    return wrap(with_reported_spec(exec::reshard_array(a->array, *mesh, layout, nt, false), written));
  });
}

Value with_sharding_constraint(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "with_sharding_constraint", {"x", "shardings"});
  std::vector<Value> leaves;
  TreeDef def = tree_flatten(I, p.get("x"), leaves);
  // A tree prefix of x; a None entry leaves its subtree unconstrained.
  auto ss = broadcast_prefix(I, p.get("shardings"), def, is_sharding_leaf, "with_sharding_constraint's shardings", "the values");
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (!is_array_like(leaves[i]) || ss[i]->kind == ObjKind::None) continue;
    leaves[i] = constrain_leaf(I, leaves[i], *out_sharding_arg(I, ss[i], "with_sharding_constraint"));
  }
  size_t pos = 0;
  return tree_unflatten(I, def, leaves, pos);
}

}  // namespace

void install_axis_type_scopes(interp::ModuleObj& m) {
  m.dict.set("auto_axes", make_scope_api(ScopeKind::Auto));
  m.dict.set("explicit_axes", make_scope_api(ScopeKind::Explicit));
}

void install_with_sharding_constraint(interp::ModuleObj& lax) {
  lax.dict.set("with_sharding_constraint", interp::make_builtin("with_sharding_constraint", with_sharding_constraint));
}

}  // namespace shard::api
