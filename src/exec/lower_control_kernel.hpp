// Compiled control flow: a while / scan / cond whose bodies only compute locally (fused
// elementwise loops, data movement, reductions, dynamic slices, nested control flow, and
// the C++ kernels of iota, dot_general, cumulative ops, argmax / argmin and sort, called
// from the generated code: exec/lower_control_calls) is lowered to one codegen::LoopKernel —
// a single LLVM function with native loops and branches — instead of host code running the
// bodies' steps per iteration.
//
// Bodies that communicate (collectives, axis_index) or call the host (callbacks) keep the
// step interpreter of exec/lower_control.cpp: their collectives must meet the other devices'
// through the runtime.
#pragma once
#include <memory>
#include <vector>

#include "codegen/loop_kernel.hpp"
#include "ir/ir.hpp"

namespace shard::exec {

// True when `op` (while, scan or cond) and everything nested in it can run as one kernel.
bool can_compile_control_flow(const ir::Op& op, const ir::Function& fn);

// The kernel of a control-flow op, and where each kernel input's pointer comes from.
struct ControlKernel {
  codegen::LoopKernel kernel;
  // Per kernel input: the op operand it reads (>= 0), or -1 for a large constant's literal.
  std::vector<int> operand;
  std::vector<std::shared_ptr<const ir::Literal>> literal;
};

// `op` must pass can_compile_control_flow. Kernel outputs are op's results, in order.
ControlKernel build_control_kernel(const ir::Op& op, const ir::Function& fn);

}  // namespace shard::exec
