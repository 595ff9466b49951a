// The generators of the one-axis reduction forms (reduce_kernel.hpp's ReduceForm), called by
// compile_reduce. Only codegen .cpp files include this header.
#pragma once
#include <cstdint>
#include <string>

#include "codegen/reduce_kernel.hpp"
#include "jit/kernel_jit.hpp"

namespace shard::codegen {

// A one-axis kernel's input as [outer, len, inner]: len the reduced axis, inner the
// contiguous extent after it.
struct AxisSplit {
  int64_t outer = 1, len = 1, inner = 1;
};
AxisSplit split_at_axis(const ReduceKernel& k);

// Each defines `void name(const void* in, void* out)` in the module.
void emit_arg_reduce(jit::ModuleHandle& mh, const ReduceKernel& k, const std::string& name);
void emit_cumulative(jit::ModuleHandle& mh, const ReduceKernel& k, const std::string& name);

}  // namespace shard::codegen
