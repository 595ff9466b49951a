// Runs a global (traced) IR function on arrays: partitions it for the inputs' mesh and
// layouts, compiles the per-device program once per (function, mesh, layouts) and runs it on
// the device threads. Eager ops and jit take this same road; jit keeps the CompiledProgram
// it got (place_inputs + compile_global + run_compiled) so a cached call skips the cache key.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "exec/array.hpp"
#include "exec/compile_pipeline.hpp"
#include "ir/ir.hpp"
#include "spmd/partition.hpp"

namespace shard::exec {

// The inputs of one call placed on their common mesh.
struct Placement {
  types::Mesh mesh;
  bool single_device = false;  // no committed input and no context mesh: outputs on device 0
  std::vector<ArrayRef> inputs;
  std::vector<types::PartitionSpec> layouts;  // normalized to each input's rank
};

// Two committed inputs on different device sets (JAX's DeviceAssignmentMismatchError): the
// positions of the first input and of the first one that disagrees with it. The API layer
// names them (argument names, shapes, device ids) as JAX's message does.
struct IncompatibleDevices : std::runtime_error {
  size_t first, second;
  IncompatibleDevices(size_t a, size_t b, const std::string& what) : std::runtime_error(what), first(a), second(b) {}
};
// JAX's "device ids [0, 1, 2, 3] on platform CPU" for an array's devices.
std::string device_ids_on_platform(const Array& a);
// JAX's message: "Received incompatible devices for jitted computation. Got argument x of f
// with shape float32[8] and device ids [...] on platform CPU and argument y of f ...";
// `names` name the inputs (args[i] where missing).
std::string incompatible_devices_message(const IncompatibleDevices& e, const std::vector<ArrayRef>& inputs,
                                         const std::vector<std::string>& names, const std::string& fun);

// All inputs must live on one mesh, except single-device arrays, which are first placed
// replicated on the common mesh (JAX moves uncommitted arrays the same way).
// `context_mesh`: where programs without committed inputs run (creation ops under
// use_mesh/set_mesh); none = device 0. Without `always_context`, only programs whose types
// mention a mesh run there (others run on device 0).
Placement place_inputs(const ir::Function& global, const std::vector<ArrayRef>& inputs,
                       const std::optional<types::Mesh>& context_mesh, bool always_context = false);

// Partitions and compiles `global` (compile_program, through the process-wide cache keyed by the
// function's structure, mesh and layouts). `cache_hit`, when given, tells whether it was
// already compiled. jax.jit calls this directly (hence the default origin); eager ops and
// reshards come through run_global / reshard_array, which say they are eager.
CompiledRef compile_global(const ir::Function& global, const types::Mesh& mesh,
                           const std::vector<types::PartitionSpec>& layouts, bool* cache_hit = nullptr,
                           ProgramOrigin origin = ProgramOrigin::Jit);

// The process-wide program cache's entries and its bound (least recently used past it).
struct ProgramCacheSize {
  size_t programs;
  size_t limit;
};
ProgramCacheSize program_cache_size();

// Runs a compiled program on placed inputs (which must have its mesh and layouts).
std::vector<ArrayRef> run_compiled(const CompiledProgram& c, const Placement& p);

struct GlobalRun {
  std::vector<ArrayRef> outputs;
  const std::vector<spmd::CollectiveRecord>* ledger = nullptr;  // of the compiled program
  bool cache_hit = false;
};

// place_inputs + compile_global + run_compiled.
GlobalRun run_global(const ir::Function& global, const std::vector<ArrayRef>& inputs,
                     const std::optional<types::Mesh>& context_mesh = std::nullopt);

// Places `a` on `mesh` with `spec` (resharding between devices through collectives).
ArrayRef reshard_array(const ArrayRef& a, const types::Mesh& mesh, const types::PartitionSpec& spec,
                       const ArrayType& new_type, bool single_device = false);
// An unreduced array (its devices hold partial sums over the unreduced axes) as the reduced
// array of their sum: what the host sees of it (printing, numpy, device_get).
ArrayRef summed_partials(const Array& a);

}  // namespace shard::exec
