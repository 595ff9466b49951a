// The generators of row kernels (ElementwiseKernel::rows): reductions over each row (or down
// each column) fused with the elementwise work before and after them. Only codegen .cpp files include this header.
#pragma once
#include <string>

#include "codegen/elementwise_kernel.hpp"
#include "jit/kernel_jit.hpp"

namespace shard::codegen {

// Each defines `void name(const void* const* inputs, void* const* outputs)` in the module:
// reductions along dim 1 (row_reduce_kernel.cpp), or down dim 0 when k.columns
// (column_reduce_kernel.cpp).
void emit_row_kernel(jit::ModuleHandle& mh, const ElementwiseKernel& k, const std::string& name);
void emit_column_kernel(jit::ModuleHandle& mh, const ElementwiseKernel& k, const std::string& name);

}  // namespace shard::codegen
