// The passes over a per-device program, in order, in one place: exec::compile_global runs
// them after spmd::partition and before the program is lowered to an Executable (so
// Compiled.as_text() and --dump-ir show their result).
#pragma once
#include "ir/ir.hpp"

namespace shard::spmd {

// Rewrites `local` (a per-device program) in place; checks the result with ir::verify.
void run_device_passes(ir::Function& local);

}  // namespace shard::spmd
