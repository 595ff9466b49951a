// shard_map called outside jit runs its body eagerly, as JAX's does: the body's Python runs
// once, its values are every device's blocks, and each array op on them runs at once as a
// one-op shard_map program over the whole mesh (JAX's ShardMapTrace.process_primitive). So
// `print(x)` in the body shows each device's concrete block ("On TFRT_CPU_0 at mesh
// coordinates (i,) = (0,):" ...), and Python sees values, not tracers.
//
// A value of the body is a tracer of the eager trace: its type is the local type (with its
// varying manual axes); its data is a stacked global array [devices, *local], row i the block
// of the device at mesh position i. Only shard_maps whose manual axes are the whole mesh run
// eagerly; the others are traced (as under jit).
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/objects/array_value.hpp"
#include "primitives/collectives/collectives.hpp"
#include "sharding/rules.hpp"

namespace shard::api {

// While a shard_map body runs or is traced: the trace recording, the context mesh with the
// manual axes Manual (collectives, axis_index, get_abstract_mesh), and the check_vma mode.
struct ShardMapBodyScope {
  trace::TraceScope trace;
  trace::CheckVmaScope vma;
  ShardMapBodyScope(std::shared_ptr<trace::Trace> t, const types::AbstractMesh& inner, bool check_vma)
      : trace(std::move(t)), vma(check_vma) {
    trace::MeshContext::get().push_abstract(inner);
  }
  ~ShardMapBodyScope() { trace::MeshContext::get().pop_abstract(); }
  ShardMapBodyScope(const ShardMapBodyScope&) = delete;
  ShardMapBodyScope& operator=(const ShardMapBodyScope&) = delete;
};

class EagerShardMap {
 public:
  EagerShardMap(types::Mesh mesh, sharding::ShardMapSpec sm);
  ~EagerShardMap();  // its values stop being eager (an escaped one is then a stale tracer)
  EagerShardMap(const EagerShardMap&) = delete;
  EagerShardMap& operator=(const EagerShardMap&) = delete;

  // The arguments' blocks (each global leaf split by its in_spec) as values of the body.
  std::vector<Value> enter(Interp& I, const std::vector<Value>& leaves, const std::vector<types::PartitionSpec>& in_specs,
                           const std::vector<sharding::SpecSite>& sites);
  // The body's results assembled by their out_specs into global arrays (JAX's checks of
  // out_specs against the values' varying axes apply).
  std::vector<Value> leave(Interp& I, const std::vector<Value>& results, const std::vector<types::PartitionSpec>& out_specs,
                           const std::vector<sharding::SpecSite>& sites);
  // Runs one op (`body`, as apply_multi takes it) on every device's blocks of `operands`.
  std::vector<Value> apply(Interp& I, const std::string& name, const std::vector<Value>& operands, const OpBody& body);
  // What print() shows of a body value: every device's block, headed by device and mesh
  // coordinates, as JAX's ShardMapTracer.__str__.
  std::string block_text(ir::ValueId v) const;

  const std::shared_ptr<trace::Trace>& trace() const { return trace_; }
  static EagerShardMap* of(const trace::Trace& t);  // null unless t is a live eager body
  // While an op runs, a function it traces (a loop body, a jit) may close over body values it
  // was not given: `operands` with those values as values of the op's program, or nothing
  // when no operand needs it.
  static std::optional<std::vector<Value>> import_closed_over(Interp& I, const std::vector<Value>& operands);

 private:
  // The one-op program being built: the outer trace on the mesh, the shard_map body, and the
  // stacked inputs given to it so far.
  struct Program {
    std::shared_ptr<trace::Trace> outer, body;
    std::vector<ir::ValueId> outer_params;
    std::vector<exec::ArrayRef> inputs;
    std::vector<types::PartitionSpec> in_specs;
    std::unordered_map<ir::ValueId, ir::ValueId> imported;  // body value -> its local value in `body`
  };
  ir::ValueId import(Interp& I, Program& p, ir::ValueId v);
  Program begin(Interp& I, const std::string& name) const;
  // The body's `results` as the program's outputs (`out_specs`, `out_types`): run on the mesh.
  std::vector<exec::ArrayRef> finish(Interp& I, Program& p, const std::vector<ir::ValueId>& results,
                                     const std::vector<types::PartitionSpec>& out_specs,
                                     const std::vector<types::ArrayType>& out_types);
  std::vector<Value> run(Interp& I, const std::string& name, const std::vector<Value>& operands, const OpBody& body,
                         const std::vector<types::PartitionSpec>* out_specs, const std::vector<sharding::SpecSite>* sites);
  Value adopt(exec::ArrayRef stacked, const types::ArrayType& local);
  types::PartitionSpec stacked_spec(size_t rank) const;

  types::Mesh mesh_;
  sharding::ShardMapSpec sm_;
  types::AbstractMesh inner_;
  std::shared_ptr<trace::Trace> trace_;
  std::unordered_map<ir::ValueId, exec::ArrayRef> stacked_;
  std::vector<Program*> programs_;  // being built, innermost last
};

// Whether shard_map on `sm` runs eagerly when called outside a trace.
bool runs_eagerly(const sharding::ShardMapSpec& sm);

}  // namespace shard::api
