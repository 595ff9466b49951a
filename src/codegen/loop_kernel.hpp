// A compiled control-flow op: one LLVM function that runs a while / scan / cond and its
// nested bodies as native loops and branches, with the bodies' fused elementwise loops,
// reductions and dynamic slices inlined into it. Host code then makes one call per run of
// the op instead of dispatching each body kernel per iteration (exec/lower_control decides
// which ops qualify: no collectives, host callbacks or runtime-only kernels inside).
//
// Like ElementwiseKernel, this is a description free of IR and LLVM types: pointer
// variables (`LoopVar`) naming buffers, and statements over them. The exec layer builds it
// from the IR; compile_loop_kernel turns it into code. Every shape is static, so the whole
// storage plan (stack for small buffers, one scratch arena for the rest: loop_storage.hpp)
// is known here.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/elementwise_kernel.hpp"
#include "codegen/reduce_kernel.hpp"

namespace shard::codegen {

// Where a pointer variable of the kernel points.
struct LoopVar {
  enum class Kind : uint8_t {
    Input,    // the kernel's input pointer `index`
    Output,   // the kernel's output pointer `index`
    Local,    // `bytes` of storage owned by the kernel
    Literal,  // the constant bytes `literal`, baked into the module
    Alias,    // the same pointer as var `base` (reshape: same bytes, another shape)
    Bound,    // set by the enclosing control statement (a carry's buffer, a scanned slice)
  };
  Kind kind = Kind::Local;
  int index = -1;
  int64_t bytes = 0;
  std::string literal;
  int base = -1;
};

// A value threaded through the iterations of a While or Scan. The body reads `cur` and
// leaves the next value in `spare`. Small carries copy spare back into cur (both stay in
// registers); large ones swap the two pointers (no per-iteration copy). An `in_place` carry
// has one buffer: cur and spare are both `a` (the body's only use of the carry is a
// dynamic_update_slice producing the next value, which then writes just its block). On entry
// `init` is copied into buffer `a`; after the loop `cur` points at the final value.
struct LoopCarry {
  int cur = -1, spare = -1;  // Bound vars
  int a = -1, b = -1;        // the two buffers (b unused when in_place): Local vars, or a
                             // the var the loop's result must end in
  int init = -1;
  int64_t bytes = 0;
  bool in_place = false;
};

// A scanned operand or stacked result: Bound var `view` points at slice `i` of `base`.
struct LoopSlice {
  int view = -1, base = -1;
  int64_t bytes = 0;  // per slice
};

// The one calling convention of host kernels called from a loop kernel.
using LoopCallee = void (*)(const int64_t* params, const void* const* in, void* const* out);

struct LoopStmt {
  enum class Kind : uint8_t {
    Elementwise,         // `ew` reading vars `in`, writing vars `out`
    Reduce,              // `reduce` from in[0] to out[0]
    Copy,                // `bytes` from in[0] to out[0]
    DynamicSlice,        // out[0] = in[0][starts : starts + sizes]; starts: vars in[1..]
    DynamicUpdateSlice,  // out[0] = in[0] with in[1] written at starts; starts: vars in[2..]
                         // (out[0] and in[0] may be the same buffer: then only the block moves)
    While,               // blocks[0]: cond (writes the bool var `cond`), blocks[1]: body
    Scan,                // blocks[0]: body, run `length` times (backwards when `reverse`)
    Cond,                // blocks[branch]: the branch chosen by the int32 var `cond` (clamped)
    Call,                // callee(params, in pointers, out pointers): a kernel written in C++
  };
  Kind kind = Kind::Copy;
  std::vector<int> in, out;
  ElementwiseKernel ew;
  ReduceKernel reduce{types::DType::F32, ReduceKind::Sum, {}, {}};
  int64_t bytes = 0;
  // Dynamic slices: the operand's shape, the block's sizes, one element's bytes, and each
  // start index's dtype (I32 or I64).
  std::vector<int64_t> shape, sizes;
  int64_t elem_bytes = 0;
  std::vector<types::DType> index_dtypes;
  // Control flow.
  std::vector<std::vector<LoopStmt>> blocks;
  int cond = -1;
  std::vector<LoopCarry> carries;
  std::vector<LoopSlice> xs, ys;
  int64_t length = 0;
  bool reverse = false;
  // Call: a function of the host process (exec/lower_control_kernel's runtime kernels),
  // named for the signature and the printed IR, and its constant parameters.
  LoopCallee callee = nullptr;
  std::string callee_name;
  std::vector<int64_t> params;
};

struct LoopKernel {
  std::vector<LoopVar> vars;
  std::vector<LoopStmt> body;
  int num_inputs = 0, num_outputs = 0;

  int add_var(LoopVar v) {
    vars.push_back(std::move(v));
    return static_cast<int>(vars.size()) - 1;
  }
  // Bytes of the scratch arena the caller passes (Local vars too large for the stack).
  int64_t scratch_bytes() const;
  // A canonical text of everything above: the kernel cache key.
  std::string signature() const;
};

// fn(inputs, outputs, scratch): one pointer per input / output buffer, and scratch_bytes()
// of 64-byte aligned storage (may be null when that is 0).
using LoopFn = void (*)(const void* const* inputs, void* const* outputs, void* scratch);

LoopFn compile_loop_kernel(jit::KernelJit& jit, const LoopKernel& k, std::string* optimised_ir = nullptr);

}  // namespace shard::codegen
