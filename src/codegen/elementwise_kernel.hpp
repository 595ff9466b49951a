// A fused elementwise kernel as codegen sees it: a small SSA expression DAG evaluated at
// every index of one output shape, each input read through its own strides (0 on broadcast
// dims). The IR lowers a chain of elementwise ops (one op in eager mode, a fused region
// under jit) to this, and compile_elementwise turns it into one vectorised LLVM loop nest.
// Shapes are compile-time constants: kernels are cached per type signature anyway, and known
// trip counts let LLVM vectorise without runtime checks.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/elementwise_ops.hpp"
#include "types/dtype.hpp"

namespace llvm { class Function; }
namespace shard::jit { class KernelJit; class ModuleHandle; }

namespace shard::codegen {

using ir::EwOp;  // the primitives: ir/elementwise_ops.hpp
using ir::ew_op_name;

struct EwInput {
  types::DType dtype;
  std::vector<int64_t> strides;  // elements, one per output dim; 0 = broadcast along that dim,
                                 // negative = walking backwards (rev)
  int64_t offset = 0;            // elements from the buffer start to output index 0 (slices)
};

struct EwNode {
  EwOp op;
  types::DType dtype;       // result dtype (Convert: the target; comparisons: Bool)
  std::vector<int> args;    // indices of earlier nodes
  int input = -1;           // Input: index into inputs
  double const_value = 0;   // Const: the value (exact for ints up to 2^53); IntegerPow: the exponent
};

struct ElementwiseKernel {
  std::vector<int64_t> shape;     // the output shape (every output has it, contiguous)
  std::vector<EwInput> inputs;
  std::vector<EwNode> nodes;
  std::vector<int> outputs;       // node indices written to output buffers, in order
  // Where outputs are written: empty = contiguous in `shape`; otherwise strides (elements)
  // and an offset into a larger buffer (concatenate and pad write sub-blocks).
  std::vector<int64_t> out_strides;
  int64_t out_offset = 0;
  // A canonical text of everything above: the kernel cache key and the LLVM function name.
  std::string signature() const;
};

// The compiled form: fn(inputs, outputs) with one pointer per input/output buffer.
using EwFn = void (*)(const void* const* inputs, void* const* outputs);

// Generates, optimises and JIT-compiles the kernel; returns its entry point.
// Optimised IR goes to `optimised_ir` when asked (--emit=llvm, --dump-llvm).
EwFn compile_elementwise(jit::KernelJit& jit, const ElementwiseKernel& k, std::string* optimised_ir = nullptr);

// Emits the kernel's loop nest into `mh` as an internal function `name`(noalias input
// pointers..., noalias output pointers...), for generated code that calls and inlines it
// (codegen/loop_kernel: loop bodies).
llvm::Function* emit_elementwise_function(jit::ModuleHandle& mh, const ElementwiseKernel& k, const std::string& name);

}  // namespace shard::codegen
