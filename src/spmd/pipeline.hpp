// The passes over a per-device program, in order, in one place. The compile pipeline
// (exec/compile_pipeline.hpp) runs them after spmd::partition, then verifies the result,
// before the program is lowered to an Executable (so Compiled.as_text() and --emit=spmd show
// what runs).
#pragma once
#include "ir/ir.hpp"

namespace shard::spmd {

// Rewrites `local` (a per-device program) in place.
void run_device_passes(ir::Function& local);

}  // namespace shard::spmd
