// Scalar semantics of every elementwise op, emitted as LLVM IR for one element. The loop
// vectoriser widens them. Integer and float rules follow numpy (bit-exact where the spec
// asks): floor division and remainder take the divisor's sign, integer division by zero
// gives 0, max/min propagate NaN. Only codegen .cpp files include this header.
#pragma once
#include <vector>

#include "codegen/elementwise_kernel.hpp"
#include "jit/llvm_headers.hpp"

namespace shard::codegen {

class ScalarOps {
 public:
  ScalarOps(llvm::IRBuilder<>& b, llvm::Module& m) : b_(b), m_(m) {}
  // Register values: bool is i1, everything else its storage type.
  llvm::Value* from_storage(llvm::Value* v, types::DType t);
  llvm::Value* to_storage(llvm::Value* v, types::DType t);
  // float16 / bfloat16: `v` (a float32 register) rounded to the dtype; others unchanged.
  llvm::Value* round_to(llvm::Value* v, types::DType t);
  // The register type of a dtype's values: i1 for bool, float32 for float16 / bfloat16.
  llvm::Type* register_type(types::DType t) { return reg_type(t); }
  llvm::Value* emit(const EwNode& node, const std::vector<llvm::Value*>& args,
                    const std::vector<types::DType>& arg_types);

 private:
  llvm::Value* emit_in_register(const EwNode& node, const std::vector<llvm::Value*>& args,
                                const std::vector<types::DType>& arg_types);
  llvm::Value* convert(llvm::Value* v, types::DType from, types::DType to);
  llvm::Value* constant(types::DType t, double v);
  llvm::Value* unary(EwOp op, llvm::Value* x, types::DType t);
  llvm::Value* binary(EwOp op, llvm::Value* x, llvm::Value* y, types::DType t);
  llvm::Value* compare(EwOp op, llvm::Value* x, llvm::Value* y, types::DType t);
  llvm::Value* int_divmod(EwOp op, llvm::Value* x, llvm::Value* y, bool is_unsigned);
  llvm::Value* float_floordiv_mod(EwOp op, llvm::Value* x, llvm::Value* y);
  llvm::Value* logaddexp(llvm::Value* x, llvm::Value* y);
  llvm::Value* half_nextafter(llvm::Value* x, llvm::Value* y, types::DType t);
  llvm::Value* integer_pow(llvm::Value* x, types::DType t, int64_t n);
  llvm::Value* libm(const char* f32_name, const char* f64_name, std::vector<llvm::Value*> args);
  llvm::Value* intrinsic(llvm::Intrinsic::ID id, std::vector<llvm::Value*> args);
  llvm::Type* reg_type(types::DType t);

  llvm::IRBuilder<>& b_;
  llvm::Module& m_;
};

// Defines the runtime helpers generated code may call (integer power) in `jit`; idempotent.
void register_scalar_runtime(jit::KernelJit& jit);

}  // namespace shard::codegen
