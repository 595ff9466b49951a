// Lowering of the communicating ops of per-device programs (ir::is_collective, and
// axis_index) onto the runtime's rendezvous collectives. Steps of one
// executable that communicate over the same axes share one CollectiveGroup per device group.
#pragma once
#include "exec/program.hpp"
#include "ir/ir.hpp"

namespace shard::exec {

// `s` comes with its input/output slots and output sizes filled in.
Step lower_collective(const ir::Op& op, const ir::Function& fn, Step s, Executable& exe);

}  // namespace shard::exec
