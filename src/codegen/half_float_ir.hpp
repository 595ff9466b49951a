// float16 / bfloat16 in kernels: values live in float32 registers and are rounded back to the
// 16-bit format after every op, as XLA's CPU backend computes them. The conversions are
// integer and select code (the steps of types/half_float.hpp), not LLVM's half / bfloat
// casts: without hardware support those become libcalls (__truncsfbf2, __truncdfhf2, ...)
// the JIT cannot resolve, and a libcall would also stop the loop vectoriser. float32 <->
// float16 uses the F16C instructions when the host has them (the same rounding).
#pragma once
#include "jit/llvm_headers.hpp"
#include "types/dtype.hpp"

namespace shard::codegen {

inline bool is_half_float(types::DType t) { return t == types::DType::F16 || t == types::DType::BF16; }

// The i16 pattern of float / double `x` (scalar or vector) rounded to `to` (F16 or BF16),
// ties to even. `hardware` = false keeps the integer steps even where F16C exists (tests).
llvm::Value* emit_round_to_half(llvm::IRBuilder<>& b, llvm::Value* x, types::DType to, bool hardware = true);

// The float32 value of i16 pattern `h` of format `from` (exact).
llvm::Value* emit_half_to_float(llvm::IRBuilder<>& b, llvm::Value* h, types::DType from, bool hardware = true);

}  // namespace shard::codegen
