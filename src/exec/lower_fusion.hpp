// Lowering of a `fusion` op (spmd/fusion) to one LLVM element loop: the region's elementwise
// ops become nodes of one codegen::ElementwiseKernel evaluated at every index of the result,
// and its broadcasts / transposes / slices / revs / reshapes become the strides and offsets
// with which the kernel reads the region's inputs (and constants) — nothing in between is
// written to memory.
//
// Constants are read from their literal bytes (a scalar is a stride-0 input), not baked into
// the kernel as EwOp::Const nodes: the kernel signature then does not depend on the value,
// so `x * 2` and `x * 3` (eager ops, retraced jit functions) share one compiled loop, and
// LLVM hoists the loop-invariant load anyway.
#pragma once
#include "codegen/elementwise_kernel.hpp"
#include "exec/program.hpp"
#include "ir/ir.hpp"

namespace shard::exec {

// The kernel of a fusion region, and where each kernel input's pointer comes from.
struct FusedKernel {
  codegen::ElementwiseKernel kernel;
  // Per kernel input: the fusion operand it reads (>= 0), or -1 for a constant's literal.
  std::vector<int> operand;
  std::vector<std::shared_ptr<const ir::Literal>> literal;
};

FusedKernel build_fused_kernel(const ir::Function& region);

// `s` comes with its input/output slots and output sizes filled in.
// The kernel is planned in `kernels`, compiled later by the JIT stage.
Step lower_fusion(const ir::Op& op, Step s, KernelPlan& kernels);

}  // namespace shard::exec
