// Lowering of control flow (while, scan, cond). Bodies that only compute locally become one
// compiled kernel with native loops and branches (exec/lower_control_kernel). The others
// become steps that run nested step lists on the device thread: the loop itself is host
// code, each iteration's work the bodies' compiled kernels and collectives. All devices take
// the same trip count (the predicate is replicated by the partitioner), so collectives
// inside bodies stay in step.
#pragma once
#include <functional>
#include <vector>

#include "exec/kernel_cache.hpp"
#include "exec/program.hpp"
#include "ir/ir.hpp"

namespace shard::exec {

// Lowers a region into its own step list (sharing the executable's slot table); fills the
// slots of its params and results.
using LowerRegion = std::function<std::vector<Step>(const ir::Function& region, std::vector<int>& params, std::vector<int>& results)>;

// `in`/`out`: the slots of op's operands and results in the enclosing function `fn`; a
// compiled kernel is planned in `kernels`.
Step lower_control_flow(const ir::Op& op, const ir::Function& fn, const std::vector<int>& in, const std::vector<int>& out,
                        const LowerRegion& lower_region, KernelPlan& kernels);

}  // namespace shard::exec
