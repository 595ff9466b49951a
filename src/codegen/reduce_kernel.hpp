// Reduction kernels: reduce a local array over a set of dimensions with sum/max/min/prod/
// and/or, generated as LLVM loops. Layout decides the loop shape: a contiguous run of
// reduced trailing dims is reduced in a register (vectorised as a horizontal reduction,
// float32 sums accumulated in float64 for accuracy), other reduced dims accumulate into the
// output, vectorised across the kept dims.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/reduce_kind.hpp"
#include "types/dtype.hpp"

namespace llvm { class Function; }
namespace shard::jit { class KernelJit; class ModuleHandle; }

namespace shard::codegen {

using ir::ReduceKind;  // the monoids: ir/reduce_kind.hpp
using ir::reduce_kind_name;

struct ReduceKernel {
  types::DType dtype;              // input and output dtype
  ReduceKind kind;
  std::vector<int64_t> shape;      // input shape (contiguous)
  std::vector<bool> reduced;       // per input dim
  std::string signature() const;
};

using ReduceFn = void (*)(const void* in, void* out);

ReduceFn compile_reduce(jit::KernelJit& jit, const ReduceKernel& k, std::string* optimised_ir = nullptr);

// Emits the kernel into `mh` as an internal function `name`(noalias in, noalias out), for
// generated code that calls and inlines it (codegen/loop_kernel: loop bodies).
llvm::Function* emit_reduce_function(jit::ModuleHandle& mh, const ReduceKernel& k, const std::string& name);

// The identity of a reduction (0, 1, -inf/lowest, +inf/highest, true, false) as a double.
double reduce_identity(ReduceKind kind, types::DType dtype);

}  // namespace shard::codegen
