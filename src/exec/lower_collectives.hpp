// Lowering of the collective ops of per-device programs (psum / all_gather / psum_scatter /
// all_to_all / ppermute / axis_index) onto the runtime's rendezvous collectives. Steps of one
// executable that communicate over the same axes share one CollectiveGroup per device group.
#pragma once
#include "exec/program.hpp"
#include "ir/ir.hpp"

namespace shard::exec {

// `s` comes with its input/output slots and output sizes filled in.
Step lower_collective(const ir::Op& op, const ir::Function& fn, Step s, Executable& exe);

}  // namespace shard::exec
