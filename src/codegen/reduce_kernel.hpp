// Reduction kernels: reduce a local array over a set of dimensions with sum/max/min/prod/
// and/or, generated as LLVM loops. Layout decides the loop shape: a contiguous run of
// reduced trailing dims is reduced in a register (vectorised as a horizontal reduction,
// float32 sums accumulated in float64 for accuracy), other reduced dims accumulate into the
// output, vectorised across the kept dims.
//
// The same kernel description covers the two other reductions along one axis: arg-reductions
// (argmax / argmin: int32 indices, numpy's first-NaN and first-tie rules) and cumulative
// scans (cumsum, cumprod, cummax, cummin, in either direction); arg_reduce_kernel.cpp and
// cumulative_kernel.cpp generate them. Both walk memory in order whatever the axis: over the
// last axis row by row, over another axis a block of contiguous columns at a time.
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

enum class ReduceForm : uint8_t {
  Reduce,      // out has the kept dims
  ArgReduce,   // one reduced dim; out: int32 index of the max (Max) or min (Min) along it
  Cumulative,  // one reduced dim; out has the input's shape: the running combination
};

struct ReduceKernel {
  types::DType dtype;              // input dtype (and output dtype, except ArgReduce's int32)
  ReduceKind kind;
  std::vector<int64_t> shape;      // input shape (contiguous)
  std::vector<bool> reduced;       // per input dim
  ReduceForm form = ReduceForm::Reduce;
  bool reverse = false;            // Cumulative: from the end of the axis
  std::string signature() const;
};

using ReduceFn = void (*)(const void* in, void* out);

// Whether compile_reduce generates this kernel (the arg-reduction of an empty axis is a
// run-time error, and float16 / bfloat16 are storage only: the host kernels handle those).
bool jit_supports(const ReduceKernel& k);

ReduceFn compile_reduce(jit::KernelJit& jit, const ReduceKernel& k, std::string* optimised_ir = nullptr);

// Emits the kernel into `mh` as an internal function `name`(noalias in, noalias out), for
// generated code that calls and inlines it (codegen/loop_kernel: loop bodies).
llvm::Function* emit_reduce_function(jit::ModuleHandle& mh, const ReduceKernel& k, const std::string& name);

// The identity of a reduction (0, 1, -inf/lowest, +inf/highest, true, false) as a double.
double reduce_identity(ReduceKind kind, types::DType dtype);

}  // namespace shard::codegen
