// The generator of row kernels (ElementwiseKernel::rows): reductions over each row fused with
// the elementwise work before and after them. Only codegen .cpp files include this header.
#pragma once
#include <string>

#include "codegen/elementwise_kernel.hpp"
#include "jit/kernel_jit.hpp"

namespace shard::codegen {

// Defines `void name(const void* const* inputs, void* const* outputs)` in the module.
void emit_row_kernel(jit::ModuleHandle& mh, const ElementwiseKernel& k, const std::string& name);

}  // namespace shard::codegen
