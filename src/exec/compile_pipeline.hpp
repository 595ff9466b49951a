// The compile pipeline: a traced (global) IR function becomes a CompiledProgram for one mesh
// and one set of input layouts. compile_program lists the stages in order, in one place:
//
//   verify-traced   the traced IR is well formed (if not, the tracer has a bug)
//   partition       spmd::partition: per-device IR with explicit collectives, the ledger
//   device-passes   spmd::run_device_passes (spmd/pipeline.cpp lists them: fusion)
//   verify-device   the per-device IR is well formed (if not, a pass has a bug)
//   lower           the Executable's steps, with the LLVM kernels they call planned
//   jit             LLVM compiles the planned kernels the kernel cache does not hold yet
//
// Each stage is timed (--time-passes, exec/stage_timing.hpp); jitted programs print the
// text of the stages the options ask for (--emit, --dump-ir, --dump-llvm; stage_output.hpp).
// exec::compile_global (run_global.hpp) keeps the program cache in front of this.
#pragma once
#include <memory>
#include <vector>

#include "exec/array.hpp"
#include "ir/ir.hpp"
#include "spmd/partition.hpp"

namespace shard::exec {

class Executable;

// A global function partitioned and compiled for one mesh and one set of input layouts.
struct CompiledProgram {
  types::Mesh mesh;
  std::vector<types::PartitionSpec> in_layouts;
  std::vector<ArrayType> out_types;  // the global function's result types
  spmd::Partitioned parts;           // per-device IR, output layouts, collective ledger
  std::unique_ptr<Executable> exe;
  ~CompiledProgram();
};
using CompiledRef = std::shared_ptr<const CompiledProgram>;

// Where a program comes from: only jitted functions print their stages (an eager op or a
// reshard is a one-op program of its own; printing those would drown the output).
enum class ProgramOrigin { Jit, Eager };

// Runs every stage on `global`. Invalid IR (traced or per-device) is a bug in shard: it
// throws std::logic_error("internal error: ...").
std::shared_ptr<CompiledProgram> compile_program(const ir::Function& global, const types::Mesh& mesh,
                                                 const std::vector<types::PartitionSpec>& layouts, ProgramOrigin origin);

}  // namespace shard::exec
