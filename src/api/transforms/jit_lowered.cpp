// JAX's ahead-of-time stages: jitted.lower(*args) -> Lowered (the traced global IR for those
// arguments, placed on their mesh and layouts) and Lowered.compile() -> Compiled (the
// per-device program with explicit collectives and its cost ledger), callable with the
// dynamic arguments. Both share the jitted function's caches, so lowering then calling traces
// and compiles once.
#include <fmt/format.h>

#include "api/objects/array_value.hpp"
#include "api/objects/sharding_objects.hpp"
#include "api/transforms/jit_internal.hpp"
#include "interp/builtins/support.hpp"
#include "spmd/program_text.hpp"

namespace shard::api::jit_detail {

using interp::ObjKind;
namespace bi = interp::bi;

namespace {

// What Lowered and Compiled share: the jitted function (kept alive), the traced entry, the
// placement the lowering saw, and each dynamic leaf's name for error messages.
struct Stage {
  Value jitted;
  JitObj* jit = nullptr;
  CacheEntryRef entry;
  types::Mesh mesh;
  std::vector<types::PartitionSpec> layouts;
  bool single_device = false;
  std::vector<std::string> arg_names;
};

struct LoweredObj : interp::NativeObj {
  Stage stage;
  LoweredObj(ClassP c, Stage s) : NativeObj(std::move(c)), stage(std::move(s)) {}
};

struct CompiledObj : interp::NativeObj {
  Stage stage;
  exec::CompiledRef program;
  CompiledObj(ClassP c, Stage s, exec::CompiledRef p) : NativeObj(std::move(c)), stage(std::move(s)), program(std::move(p)) {}
};

void append(std::vector<std::string>& to, std::vector<std::string> more) {
  for (auto& s : more) to.push_back(std::move(s));
}

ClassP lowered_class();
ClassP compiled_class();

Value compile_lowered(Interp& I, const Stage& s) {
  exec::Placement p{s.mesh, s.single_device, {}, s.layouts};
  auto prog = program_for(I, *s.jit, *s.entry, p);
  return std::make_shared<CompiledObj>(compiled_class(), s, std::move(prog));
}

// Compiled.__call__: the dynamic arguments only (static ones are baked in), checked against
// the compiled types and shardings with JAX's errors.
Value call_compiled(Interp& I, CompiledObj& c, CallArgs& a) {
  const Stage& s = c.stage;
  CallParts parts;
  parts.pos_static.assign(a.args.size(), false);
  parts.kw_static.assign(a.kwargs.size(), false);
  auto kw = interp::make_dict();
  for (auto& [k, v] : a.kwargs) kw->set(I, interp::make_str(k), v);
  parts.dynamic = interp::make_tuple({interp::make_tuple(a.args), kw});
  std::vector<Value> leaf_values;
  TreeDef in = tree_flatten(I, parts.dynamic, leaf_values);
  if (tree_signature(I, in) != tree_signature(I, s.entry->in))
    I.raise("TypeError", "Function compiled with input pytree does not match the input pytree it was called with");
  auto leaves = leaf_arrays(I, s.jit->fun, a, parts, leaf_values);
  std::vector<std::string> errors;
  for (size_t i = 0; i < leaves.size(); ++i) {
    const auto& want = s.entry->types[i];
    const auto& got = leaves[i]->type;
    // JAX's typematch: dtype, shape and the sharding in the type; not weak types, nor the
    // mesh of a type without Explicit axes.
    if (want.dtype() != got.dtype() || want.shape() != got.shape() || !(want.spec() == got.spec()))
      errors.push_back(fmt::format("Argument '{}' compiled with {} and called with {}", s.arg_names.at(i), want.str_short(), got.str_short()));
  }
  if (!errors.empty()) {
    const size_t total = errors.size();
    errors.resize(std::min<size_t>(total, 5));
    I.raise("TypeError", fmt::format("Argument types differ from the types for which this computation was compiled. {} mismatches are:\n{}",
                                     total >= 5 ? fmt::format("The first 5 of {}", total) : std::string("The"),
                                     fmt::join(errors, "\n")));
  }
  auto placed = place_call_inputs(I, *s.entry, leaves);
  // Committed arguments must already have the compiled sharding; the others move to it.
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (placed.mesh == s.mesh && placed.layouts[i] == s.layouts[i]) continue;
    const auto& arr = leaves[i];
    if (!arr->single_device) {
      auto want = named_sharding_value(types::NamedSharding(s.mesh, s.layouts[i]));
      errors.push_back(fmt::format("Got input sharding(s) that compiled object was called with: {} and sharding(s) the computation was "
                                   "compiled with: {} for arg {} with shape: {}",
                                   I.repr(array_sharding_value(*arr)), I.repr(want), s.arg_names.at(i), arr->type.str_short()));
      continue;
    }
    auto t = types::ArrayType::from_sharding(arr->type.dtype(), arr->type.shape(), types::NamedSharding(s.mesh, s.layouts[i]), {},
                                             arr->type.weak_type());
    placed.inputs[i] = guarded(I, [&] { return exec::reshard_array(arr, s.mesh, s.layouts[i], t, s.single_device); });
    placed.layouts[i] = s.layouts[i];
  }
  if (!errors.empty()) {
    const size_t total = errors.size();
    errors.resize(std::min<size_t>(total, 5));
    I.raise("ValueError", fmt::format("Compiled object called with input sharding(s) does not match the sharding(s) the computation was "
                                      "compiled with. Here are {}:\n{}",
                                      total < 5 ? fmt::format("the {} mismatches", total) : fmt::format("5 mismatches out of {}", total),
                                      fmt::join(errors, "\n")));
  }
  placed.mesh = s.mesh;
  placed.single_device = s.single_device;
  return run_program(I, *s.jit, *s.entry, *c.program, placed, leaves);
}

ClassP lowered_class() {
  static ClassP c = [] {
    auto k = interp::make_class("Lowered", {interp::T().object}, "jax._src.stages");
    auto self = [](Interp& I, CallArgs& a, const char* m) -> Stage& { return bi::native_self<LoweredObj>(I, a, lowered_class(), "Lowered", m).stage; };
    bi::def(k, "as_text", [self](Interp& I, CallArgs& a) -> Value {
      interp::ArgParser p(I, a, "as_text", {"$self", "dialect=", "*", "debug_info="});
      return interp::make_str(ir::print(self(I, a, "as_text").entry->fn));
    });
    bi::def(k, "compile", [self](Interp& I, CallArgs& a) -> Value {
      interp::ArgParser p(I, a, "compile", {"$self", "compiler_options="});
      return compile_lowered(I, self(I, a, "compile"));
    });
    bi::def(k, "cost_analysis", [self](Interp& I, CallArgs& a) -> Value {
      return cost_analysis(I, self(I, a, "cost_analysis").entry->fn, nullptr);
    });
    return k;
  }();
  return c;
}

ClassP compiled_class() {
  static ClassP c = [] {
    auto k = interp::make_class("Compiled", {interp::T().object}, "jax._src.stages");
    auto self = [](Interp& I, CallArgs& a, const char* m) -> CompiledObj& { return bi::native_self<CompiledObj>(I, a, compiled_class(), "Compiled", m); };
    bi::def(k, "as_text", [self](Interp& I, CallArgs& a) -> Value {
      const CompiledObj& c = self(I, a, "as_text");
      return interp::make_str(spmd::device_program_text(c.program->parts) + spmd::hlo_collectives_text(c.program->parts, c.program->mesh));
    });
    bi::def(k, "cost_analysis", [self](Interp& I, CallArgs& a) -> Value {
      const CompiledObj& c = self(I, a, "cost_analysis");
      return cost_analysis(I, c.stage.entry->fn, c.program.get());
    });
    bi::def(k, "__call__", [self](Interp& I, CallArgs& a) -> Value {
      CompiledObj& c = self(I, a, "__call__");
      CallArgs rest = bi::args_without_self(a);
      return call_compiled(I, c, rest);
    });
    bi::def_property(k, "output_shardings", [self](Interp& I, CallArgs& a) -> Value {
      const CompiledObj& c = self(I, a, "output_shardings");
      std::vector<Value> shardings;
      for (auto& layout : c.program->parts.out_layouts)
        shardings.push_back(c.stage.single_device ? single_device_sharding_value(c.stage.mesh.device_ids().at(0))
                                                  : named_sharding_value(types::NamedSharding(c.stage.mesh, layout)));
      size_t pos = 0;
      return tree_unflatten(I, c.stage.entry->out, shardings, pos);
    });
    return k;
  }();
  return c;
}

}  // namespace

// JAX's fallback name for an unnamed positional is args[i].
std::vector<std::string> dynamic_leaf_names(Interp& I, const JitObj& j, const CallArgs& a, const TreeDef& in) {
  CallParts parts = split_call(I, j.fun, j.opts, a);
  std::vector<std::string> params;
  if (j.fun->kind == ObjKind::Function)
    if (auto* ps = static_cast<interp::FunctionObj&>(*j.fun).params)
      for (auto& p : ps->positional) params.push_back(p.name);
  std::vector<std::string> names;
  const auto& pos = in.children.at(0).children;
  size_t d = 0;
  for (size_t i = 0; i < parts.pos_static.size() && d < pos.size(); ++i)
    if (!parts.pos_static[i]) append(names, leaf_path_strings(I, pos[d++], i < params.size() ? params[i] : fmt::format("args[{}]", i)));
  const TreeDef& kw = in.children.at(1);
  for (size_t i = 0; i < kw.children.size(); ++i) append(names, leaf_path_strings(I, kw.children[i], bi::str_arg(I, kw.keys[i], "keyword")));
  return names;
}


Value lower_jitted(Interp& I, const Value& self, JitObj& j, CallArgs& a) {
  PreparedCall call = prepare_call(I, j, a);
  if (!call.entry) I.raise("TypeError", "lower() cannot be called on tracers: call the jitted function instead");
  auto placed = place_call_inputs(I, *call.entry, call.leaves);
  Stage s{self, &j, call.entry, placed.mesh, placed.layouts, placed.single_device, dynamic_leaf_names(I, j, a, call.entry->in)};
  return std::make_shared<LoweredObj>(lowered_class(), std::move(s));
}

}  // namespace shard::api::jit_detail
