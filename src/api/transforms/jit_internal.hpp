// Shared between the files of jax.jit: the jitted-function object and its caches (jit.cpp),
// tracing (jit_trace.cpp), the AOT stages Lowered/Compiled (jit_lowered.cpp) and the
// statistics and cost analysis (jit_stats.cpp).
//
// Two caches: a jitted function keeps its traced IR per abstract signature (static values,
// input tree, leaf types); each traced entry keeps the compiled programs it ran, per mesh and
// input layouts (layouts on Auto axes are not in the types). A cached call therefore only
// flattens its arguments, compares, and runs: no printing, partitioning or LLVM.
#pragma once
#include <functional>
#include <optional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "api/transforms/jit_args.hpp"
#include "api/pytree/pytree.hpp"
#include "exec/run_global.hpp"
#include "interp/interp.hpp"
#include "ir/ir.hpp"
#include "trace/trace.hpp"

namespace shard::api::jit_detail {

using interp::CallArgs;
using interp::ClassP;
using interp::Interp;
using interp::Value;

// The shardings jit's in_shardings / out_shardings give, per leaf, as the user wrote them:
// outputs report them in x.sharding (array_placement_specs.hpp).
struct WrittenShardings {
  std::vector<std::optional<types::NamedSharding>> in;  // concrete only
  std::vector<std::optional<types::PartitionSpec>> out;
};

struct ExecEntry {
  types::Mesh mesh;
  std::vector<types::PartitionSpec> layouts;
  exec::CompiledRef program;
};

struct CacheEntry {
  std::vector<Value> statics;  // static argument values, in call order of their slots
  TreeDef in;                  // structure of the dynamic arguments
  std::vector<types::ArrayType> types;
  // The mesh context it was traced under (use_mesh / set_mesh / axis-type scopes): part of
  // the key, as in JAX, since creation ops and PartitionSpec arguments read it.
  types::AbstractMesh context_abstract;
  std::optional<types::Mesh> context_concrete;
  ir::Function fn;
  TreeDef out;
  std::optional<types::Mesh> placement_mesh;  // Traced::placement_mesh
  std::vector<ExecEntry> execs;
  WrittenShardings written;                     // Traced::written
};
using CacheEntryRef = std::shared_ptr<CacheEntry>;

// Per jitted function, for --stats.
struct JitStats {
  std::string name;
  int64_t calls = 0, traces = 0, compiles = 0;
  int64_t trace_ns = 0, compile_ns = 0, run_ns = 0;  // wall time summed over the run
  std::map<std::string, std::pair<int64_t, int64_t>> collectives;  // kind -> (count, bytes per device)
};

struct JitObj : interp::NativeObj {
  Value fun;
  JitOptions opts;
  std::vector<CacheEntryRef> cache;
  std::shared_ptr<JitStats> stats;
  JitObj(ClassP c, Value f, JitOptions o) : NativeObj(std::move(c), gc_tracked), fun(std::move(f)), opts(std::move(o)) {}
  // The function and its cache's static arguments and tree keys: a module-level @jax.jit
  // function and the module it lives in reference each other.
  void gc_traverse(interp::GcVisitor& visit) const override;
  void gc_clear() override;
};

// ---- jit_trace.cpp --------------------------------------------------------------------------

struct Traced {
  ir::Function fn;
  TreeDef out;
  // Where calls without committed arguments or a context mesh run: the mesh jit's
  // in_shardings / out_shardings name (JAX places uncommitted arguments by them), else one a
  // sharding constraint inside the function names (trace::Trace::noted_mesh).
  std::optional<types::Mesh> placement_mesh;
  WrittenShardings written;
};
// What tracing needs of an argument leaf: its abstract value, and the mesh it is committed to.
struct AbstractLeaf {
  types::ArrayType type;
  std::optional<types::Mesh> mesh;
};
std::vector<AbstractLeaf> abstract_leaves(const std::vector<exec::ArrayRef>& arrays);
// The dynamic leaves as abstract values: arrays and Python scalars (as leaf_arrays reads
// them) and ShapeDtypeStructs.
std::vector<AbstractLeaf> abstract_leaves(Interp& I, const Value& fun, const CallArgs& a, const CallParts& parts,
                                          const std::vector<Value>& values);
// Traces f on abstract values of `leaves` (the dynamic arguments' leaves, structure `in`).
// With `parent`, the trace is a region of it (values of the parent used inside are captured).
Traced trace_function(Interp& I, const Value& f, const JitOptions& opts, const CallArgs& a, const CallParts& parts,
                      const TreeDef& in, const std::vector<AbstractLeaf>& leaves, std::shared_ptr<trace::Trace> parent = nullptr);
std::string fun_name(Interp& I, const Value& f);

// ---- jit.cpp ----------------------------------------------------------------------------------

// A call's dynamic leaves as device arrays and its traced entry (traced on a miss). `entry` is
// null when a leaf is a tracer: under an outer trace a nested jit inlines.
struct PreparedCall {
  CacheEntryRef entry;
  std::vector<exec::ArrayRef> leaves;
};
PreparedCall prepare_call(Interp& I, JitObj& j, CallArgs& a);
// The compiled program of `e` for inputs placed as `p` (compiled on a miss, counted in stats).
exec::CompiledRef program_for(Interp& I, JitObj& j, CacheEntry& e, const exec::Placement& p);
// Runs `prog` on `p` and rebuilds the output pytree (counts the call and its collectives).
// `leaves` are the call's arguments as passed (before placement): the first committed one's
// sharding is what JAX's outputs fall back to (array_placement_specs.hpp).
Value run_program(Interp& I, JitObj& j, const CacheEntry& e, const exec::CompiledProgram& prog, const exec::Placement& p,
                  const std::vector<exec::ArrayRef>& leaves);
// The mesh given to calls without committed inputs.
std::optional<types::Mesh> context_mesh();
// The inputs of a call placed: on the context mesh, else on the entry's placement mesh.
// Inputs on different device sets are JAX's "Received incompatible devices" ValueError,
// naming the arguments by `names()` (their leaf names) and the function by `fun_name()`
// (both asked only then: a call's dispatch computes no names).
exec::Placement place_call_inputs(Interp& I, const CacheEntry& entry, const std::vector<exec::ArrayRef>& leaves,
                                  const std::function<std::vector<std::string>()>& names = {},
                                  const std::function<std::string()>& fun_name = {});
// Names of the dynamic leaves of a call: parameter names of the non-static positionals, then
// the keyword names.
std::vector<std::string> dynamic_leaf_names(Interp& I, const JitObj& j, const CallArgs& a, const TreeDef& in);

// ---- jit_lowered.cpp -------------------------------------------------------------------------

// jitted.lower(*args, **kwargs) -> Lowered.
Value lower_jitted(Interp& I, const Value& self, JitObj& j, CallArgs& a);

// ---- jit_stats.cpp ---------------------------------------------------------------------------

// A new statistics record (kept for --stats until exit).
std::shared_ptr<JitStats> register_stats(std::string name);
void count_collectives(JitStats& s, const std::vector<spmd::CollectiveRecord>& ledger);
// cost_analysis(): flops of the global IR; bytes accessed and collectives of the per-device
// program when `prog` is given (else of the global IR).
Value cost_analysis(Interp& I, const ir::Function& global, const exec::CompiledProgram* prog);

}  // namespace shard::api::jit_detail
