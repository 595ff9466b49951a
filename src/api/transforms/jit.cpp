// jax.jit / jax.make_jaxpr (see jit.hpp and jit_internal.hpp). A call flattens its arguments
// to device arrays, finds (or traces) the IR for their abstract signature, finds (or
// compiles) the program for their mesh and layouts, and runs it.
#include "api/transforms/jit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "api/modules/debug_layout_probe.hpp"
#include "api/objects/array_placement_specs.hpp"
#include "api/objects/array_value.hpp"
#include "api/objects/shape_dtype_struct.hpp"
#include "api/transforms/jit_internal.hpp"
#include "exec/timeline.hpp"
#include "interp/builtins/support.hpp"
#include "ir/ir.hpp"
#include "trace/trace.hpp"

namespace shard::api {

using interp::ModuleObj;
using interp::ObjKind;
namespace bi = interp::bi;
using namespace jit_detail;

namespace jit_detail {

namespace {

bool same_statics(Interp& I, const std::vector<Value>& a, const std::vector<Value>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i]->cls != b[i]->cls || !I.eq(a[i], b[i])) return false;
  return true;
}

bool same_tree(Interp& I, const TreeDef& a, const TreeDef& b) {
  if (a.kind != b.kind || a.children.size() != b.children.size() || a.keys.size() != b.keys.size()) return false;
  for (size_t i = 0; i < a.keys.size(); ++i)
    if (a.keys[i]->cls != b.keys[i]->cls || !I.eq(a.keys[i], b.keys[i])) return false;
  for (size_t i = 0; i < a.children.size(); ++i)
    if (!same_tree(I, a.children[i], b.children[i])) return false;
  return true;
}

}  // namespace

std::optional<types::Mesh> context_mesh() { return trace::MeshContext::get().concrete(); }

PreparedCall prepare_call(Interp& I, JitObj& j, CallArgs& a) {
  CallParts parts = split_call(I, j.fun, j.opts, a);
  std::vector<Value> leaf_values;
  TreeDef in = tree_flatten(I, parts.dynamic, leaf_values);
  if (trace::current_trace()) return {};  // inside a trace (jit, loop body): inline
  for (auto& v : leaf_values)
    if (as_tracer(v)) return {};
  PreparedCall call;
  call.leaves = leaf_arrays(I, j.fun, a, parts, leaf_values);
  std::vector<types::ArrayType> types;
  types.reserve(call.leaves.size());
  for (auto& l : call.leaves) types.push_back(l->type);
  const auto& ctx = trace::MeshContext::get();
  types::AbstractMesh abstract = ctx.abstract();
  std::optional<types::Mesh> concrete = ctx.concrete();
  for (auto& e : j.cache)
    if (e->types == types && e->context_abstract == abstract && e->context_concrete == concrete && same_tree(I, e->in, in) &&
        same_statics(I, e->statics, parts.statics)) {
      call.entry = e;
      return call;
    }
  const int64_t t0 = exec::timeline_now();
  Traced tr = [&] {
    exec::HostSlice slice("trace " + j.stats->name);
    return trace_function(I, j.fun, j.opts, a, parts, in, abstract_leaves(call.leaves));
  }();
  j.stats->trace_ns += exec::timeline_now() - t0;
  ++j.stats->traces;
  call.entry = std::make_shared<CacheEntry>(CacheEntry{parts.statics, std::move(in), std::move(types), std::move(abstract),
                                                       std::move(concrete), std::move(tr.fn), std::move(tr.out), std::move(tr.placement_mesh), {},
                                                       std::move(tr.written)});
  j.cache.push_back(call.entry);
  return call;
}

exec::CompiledRef program_for(Interp& I, JitObj& j, CacheEntry& e, const exec::Placement& p) {
  for (auto& x : e.execs)
    if (x.layouts == p.layouts && x.mesh == p.mesh) return x.program;
  bool hit = false;
  const int64_t t0 = exec::timeline_now();
  auto prog = guarded(I, [&] {
    exec::HostSlice slice("compile " + j.stats->name);
    return exec::compile_global(e.fn, p.mesh, p.layouts, &hit);
  });
  if (!hit) {
    ++j.stats->compiles;
    j.stats->compile_ns += exec::timeline_now() - t0;
  }
  e.execs.push_back(ExecEntry{p.mesh, p.layouts, prog});
  report_layout_probes(I, *prog);  // once per compile, as JAX's inspect callbacks
  return prog;
}

namespace {

// The input JAX's outputs fall back to: the first leaf jit's in_shardings place, else the
// first committed argument (pxla's maybe_recover_user_shardings).
std::optional<WrittenSharding> first_written_input(const CacheEntry& e, const std::vector<exec::ArrayRef>& leaves) {
  for (size_t i = 0; i < leaves.size(); ++i) {
    const size_t rank = leaves[i]->type.rank();
    if (i < e.written.in.size() && e.written.in[i]) return WrittenSharding{*e.written.in[i], rank};
    if (auto committed = first_committed_sharding({leaves[i]})) return committed;
  }
  return std::nullopt;
}

}  // namespace

Value run_program(Interp& I, JitObj& j, const CacheEntry& e, const exec::CompiledProgram& prog, const exec::Placement& p,
                  const std::vector<exec::ArrayRef>& leaves) {
  const int64_t t0 = exec::timeline_now();
  auto outs = guarded(I, [&] { return exec::run_compiled(prog, p); });
  j.stats->run_ns += exec::timeline_now() - t0;
  ++j.stats->calls;
  count_collectives(*j.stats, prog.parts.ledger);
  report_output_specs(outs, first_written_input(e, leaves), e.written.out);
  std::vector<Value> values;
  values.reserve(outs.size());
  for (auto& r : outs) values.push_back(wrap(std::move(r)));
  size_t pos = 0;
  return tree_unflatten(I, e.out, values, pos);
}

namespace {
void visit_tree(const TreeDef& t, interp::GcVisitor& visit) {
  for (auto& k : t.keys) visit(k);
  visit(t.aux);
  for (auto& c : t.children) visit_tree(c, visit);
}
}  // namespace

void JitObj::gc_traverse(interp::GcVisitor& visit) const {
  visit(fun);
  for (auto& e : cache) {
    if (e.use_count() != 1) continue;  // shared with a Lowered: not all its holders are known
    for (auto& v : e->statics) visit(v);
    visit_tree(e->in, visit);
    visit_tree(e->out, visit);
  }
}

void JitObj::gc_clear() {
  fun.reset();
  cache.clear();
}

}  // namespace jit_detail

namespace {

// JAX names the function in errors by its __qualname__ (a lambda: <lambda>).
std::string qualname_of(Interp& I, const Value& f) {
  if (auto q = I.try_getattr(f, "__qualname__"); q && (*q)->kind == ObjKind::Str) return static_cast<interp::StrObj&>(**q).v;
  return fun_name(I, f);
}

Value call_jitted(Interp& I, JitObj& j, CallArgs& a) {
  PreparedCall call = prepare_call(I, j, a);
  if (!call.entry) return I.call(j.fun, a);  // under an outer trace, a nested jit inlines
  CacheEntry& e = *call.entry;
  auto placed = place_call_inputs(
      I, e, call.leaves, [&] { return dynamic_leaf_names(I, j, a, e.in); }, [&] { return qualname_of(I, j.fun); });
  auto prog = program_for(I, j, e, placed);
  return run_program(I, j, e, *prog, placed, call.leaves);
}

// ---- classes ----------------------------------------------------------------------------------

struct JaxprObj : interp::NativeObj {
  std::string text;
  JaxprObj(ClassP c, std::string t) : NativeObj(std::move(c)), text(std::move(t)) {}
};

ClassP jaxpr_class();

// jitted.trace(*args): the traced stage (jax.stages.Traced): its jaxpr, the result's
// ShapeDtypeStructs (out_info), and lower() for the same arguments.
struct TracedObj : interp::NativeObj {
  Value jitted;
  CallArgs args;
  Value jaxpr, out_info;
  TracedObj(ClassP c, Value j, CallArgs a, Value jx, Value out)
      : NativeObj(std::move(c)), jitted(std::move(j)), args(std::move(a)), jaxpr(std::move(jx)), out_info(std::move(out)) {}
};

ClassP traced_class() {
  static ClassP c = [] {
    auto k = interp::make_class("Traced", {interp::T().object}, "jax._src.stages");
    auto self = [k](Interp& I, CallArgs& a, const char* m) -> TracedObj& { return bi::native_self<TracedObj>(I, a, k, "Traced", m); };
    bi::def_property(k, "jaxpr", [self](Interp& I, CallArgs& a) -> Value { return self(I, a, "jaxpr").jaxpr; });
    bi::def_property(k, "out_info", [self](Interp& I, CallArgs& a) -> Value { return self(I, a, "out_info").out_info; });
    bi::def(k, "lower", [self](Interp& I, CallArgs& a) -> Value {
      auto& t = self(I, a, "lower");
      return I.call(I.getattr(t.jitted, "lower"), t.args);
    });
    return k;
  }();
  return c;
}

ClassP jit_class() {
  static ClassP c = [] {
    auto k = interp::make_class("PjitFunction", {interp::T().object}, "jaxlib.xla_extension");
    return k;
  }();
  return c;
}

JitObj& self_jit(Interp& I, CallArgs& a, const char* meth) { return bi::native_self<JitObj>(I, a, jit_class(), "PjitFunction", meth); }

void init_jit_class() {
  static bool done = false;
  if (done) return;
  done = true;
  auto c = jit_class();
  bi::def(c, "__call__", [](Interp& I, CallArgs& a) -> Value {
    JitObj& j = self_jit(I, a, "__call__");
    CallArgs rest = bi::args_without_self(a);
    return call_jitted(I, j, rest);
  });
  bi::def(c, "__repr__", [](Interp& I, CallArgs& a) -> Value {
    JitObj& j = self_jit(I, a, "__repr__");
    return interp::make_str("<PjitFunction of " + I.repr(j.fun) + ">");
  });
  bi::def(c, "_cache_size", [](Interp& I, CallArgs& a) -> Value {
    JitObj& j = self_jit(I, a, "_cache_size");
    return interp::make_int(static_cast<int64_t>(j.cache.size()));
  });
  bi::def(c, "lower", [](Interp& I, CallArgs& a) -> Value {
    JitObj& j = self_jit(I, a, "lower");
    CallArgs rest = bi::args_without_self(a);
    return lower_jitted(I, a.args.at(0), j, rest);
  });
  bi::def(c, "trace", [](Interp& I, CallArgs& a) -> Value {
    JitObj& j = self_jit(I, a, "trace");
    CallArgs rest = bi::args_without_self(a);
    PreparedCall call = prepare_call(I, j, rest);
    if (!call.entry) I.raise("TypeError", "trace() cannot be called on tracers: call the jitted function instead");
    const ir::Function& fn = call.entry->fn;
    std::vector<Value> outs;
    for (auto r : fn.results) {
      const auto& t = fn.type(r);
      outs.push_back(shape_dtype_struct_value(t.shape(), t.dtype(), std::nullopt, t.weak_type()));
    }
    size_t pos = 0;
    Value out_info = tree_unflatten(I, call.entry->out, outs, pos);
    return std::make_shared<TracedObj>(traced_class(), a.args.at(0), rest, std::make_shared<JaxprObj>(jaxpr_class(), ir::print(fn)), out_info);
  });
  bi::def(c, "clear_cache", [](Interp& I, CallArgs& a) -> Value {
    self_jit(I, a, "clear_cache").cache.clear();
    return interp::none();
  });
  bi::def_property(c, "__name__", [](Interp& I, CallArgs& a) -> Value { return interp::make_str(fun_name(I, self_jit(I, a, "__name__").fun)); });
  // functools.wraps' attributes come from the wrapped function (through __getattr__: a
  // __qualname__ in the class dict would mark a user class, whose natives do not bind).
  bi::def(c, "__getattr__", [](Interp& I, CallArgs& a) -> Value {
    JitObj& j = self_jit(I, a, "__getattr__");
    const std::string& name = bi::str_arg(I, a.args.at(1), "attribute name");
    if (name == "__qualname__" || name == "__doc__" || name == "__module__")
      if (auto v = I.try_getattr(j.fun, name)) return *v;
    I.raise("AttributeError", fmt::format("'PjitFunction' object has no attribute '{}'", name));
  });
  bi::def_property(c, "__wrapped__", [](Interp& I, CallArgs& a) -> Value { return self_jit(I, a, "__wrapped__").fun; });
}

ClassP jaxpr_class() {
  static ClassP c = [] {
    auto k = interp::make_class("ClosedJaxpr", {interp::T().object}, "jax._src.core");
    auto text = [](Interp& I, CallArgs& a) -> Value {
      return interp::make_str(bi::native_self<JaxprObj>(I, a, jaxpr_class(), "ClosedJaxpr", "__str__").text);
    };
    bi::def(k, "__str__", text);
    bi::def(k, "__repr__", text);
    return k;
  }();
  return c;
}

std::vector<int64_t> int_list(Interp& I, const Value& v, const char* what) {
  std::vector<int64_t> out;
  if (!v || v->kind == ObjKind::None) return out;
  if (auto i = bi::int_of(v)) return {*i};
  for (auto& x : I.to_vector(v)) {
    auto i = bi::int_of(x);
    if (!i) I.raise("TypeError", fmt::format("{} must be an int or a sequence of ints, got {}", what, I.repr(x)));
    out.push_back(*i);
  }
  return out;
}

std::vector<std::string> str_list(Interp& I, const Value& v, const char* what) {
  std::vector<std::string> out;
  if (!v || v->kind == ObjKind::None) return out;
  if (v->kind == ObjKind::Str) return {static_cast<interp::StrObj&>(*v).v};
  for (auto& x : I.to_vector(v)) out.push_back(bi::str_arg(I, x, what));
  return out;
}

namespace {
// static_argnums must name positional parameters the function has (JAX's _validate_argnums;
// functions taking *args accept any).
void validate_static_argnums(Interp& I, const Value& fun, const std::vector<int64_t>& argnums) {
  if (argnums.empty() || !fun || fun->kind != ObjKind::Function) return;
  const auto& f = static_cast<interp::FunctionObj&>(*fun);
  if (!f.params || f.params->vararg) return;
  const auto n = static_cast<int64_t>(f.params->positional.size());
  const int64_t lo = *std::min_element(argnums.begin(), argnums.end()), hi = *std::max_element(argnums.begin(), argnums.end());
  if (-lo > n || hi >= n) {
    std::vector<std::string> parts;
    for (auto k : argnums) parts.push_back(std::to_string(k));
    I.raise("ValueError", fmt::format("Jitted function has static_argnums=({}{}), but only accepts {} positional arguments.",
                                      fmt::join(parts, ", "), parts.size() == 1 ? "," : "", n));
  }
}
}  // namespace

Value make_jit(Interp& I, const Value& fun, JitOptions opts) {
  if (!fun || fun->kind == ObjKind::None) I.raise("TypeError", "jit() missing 1 required positional argument: 'fun'");
  validate_static_argnums(I, fun, opts.static_argnums);
  init_jit_class();
  auto j = std::make_shared<JitObj>(jit_class(), fun, std::move(opts));
  j->stats = register_stats(fun_name(I, fun));
  return j;
}

Value jax_jit(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "jit",
                      {"fun=", "in_shardings=", "out_shardings=", "static_argnums=", "static_argnames=", "donate_argnums=",
                       "donate_argnames=", "keep_unused=", "device=", "backend=", "inline=", "abstracted_axes=", "compiler_options="});
  JitOptions opts;
  opts.static_argnums = int_list(I, p.get("static_argnums"), "static_argnums");
  opts.static_argnames = str_list(I, p.get("static_argnames"), "static_argnames");
  opts.in_shardings = p.get("in_shardings");
  opts.out_shardings = p.get("out_shardings");
  Value fun = p.get("fun");
  if (!fun || fun->kind == ObjKind::None)  // jax.jit(static_argnums=...) as a decorator factory
    return interp::make_builtin("jit", [opts](Interp& I2, CallArgs& a2) -> Value {
      interp::ArgParser p2(I2, a2, "jit", {"fun"});
      return make_jit(I2, p2.get("fun"), opts);
    });
  if (!I.truthy(I.call(I.getattr(I.builtins(), "callable"), std::vector<Value>{fun}))) I.raise("TypeError", fmt::format("Expected a callable value, got {}", I.repr(fun)));
  return make_jit(I, fun, std::move(opts));
}

Value jax_make_jaxpr(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "make_jaxpr", {"fun", "static_argnums=", "axis_env=", "return_shape=", "abstracted_axes="});
  JitOptions opts;
  opts.static_argnums = int_list(I, p.get("static_argnums"), "static_argnums");
  Value fun = p.get("fun");
  return interp::make_builtin("make_jaxpr_f", [fun, opts](Interp& I2, CallArgs& a2) -> Value {
    CallParts parts = split_call(I2, fun, opts, a2);
    std::vector<Value> leaf_values;
    TreeDef in = tree_flatten(I2, parts.dynamic, leaf_values);
    Traced tr = trace_function(I2, fun, opts, a2, parts, in, abstract_leaves(I2, fun, a2, parts, leaf_values));
    return std::make_shared<JaxprObj>(jaxpr_class(), ir::print(tr.fn));
  });
}

}  // namespace

void install_jit(Interp&, ModuleObj& m) {
  init_jit_class();
  m.dict.set("jit", interp::make_builtin("jit", jax_jit));
  m.dict.set("make_jaxpr", interp::make_builtin("make_jaxpr", jax_make_jaxpr));
}

}  // namespace shard::api
