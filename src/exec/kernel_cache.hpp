// The process-wide caches of compiled LLVM kernels, keyed by kernel signature: executables
// that need the same loop (same shapes, strides and ops) share one compiled function.
#pragma once
#include "codegen/elementwise_kernel.hpp"
#include "codegen/reduce_kernel.hpp"

namespace shard::jit { class KernelJit; }

namespace shard::exec {

codegen::EwFn cached_elementwise(jit::KernelJit& jit, const codegen::ElementwiseKernel& k);
codegen::ReduceFn cached_reduce(jit::KernelJit& jit, const codegen::ReduceKernel& k);

}  // namespace shard::exec
