// The process-wide cache of LLVM kernels, keyed by kernel signature: executables that need
// the same loop (same shapes, strides and ops) share one compiled function.
//
// Planning and compiling are two stages of the compile pipeline (exec/compile_pipeline.hpp):
// lowering asks a KernelPlan for each kernel it needs and gets a KernelRef at once; the JIT
// stage (KernelPlan::compile) then compiles, with LLVM, the planned kernels the cache did not
// hold compiled yet. Steps call kernels through their KernelRef, which reads the entry point
// the JIT stage filled in.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "codegen/elementwise_kernel.hpp"
#include "codegen/loop_kernel.hpp"
#include "codegen/reduce_kernel.hpp"

namespace shard::jit { class KernelJit; }

namespace shard::exec {

// One kernel of the cache. Entries live as long as the process: KernelRefs point at them.
struct CachedKernel {
  std::string signature;  // the cache key (the codegen kernel's signature and its kind)
  std::function<void*(jit::KernelJit&, std::string* optimised_ir)> generate;  // codegen + LLVM
  void* entry = nullptr;     // the compiled function: null until a JIT stage compiled it
  std::string optimised_ir;  // kept when asked for (--emit=llvm, --dump-llvm)
};

// A planned kernel as steps call it: a typed view of the entry point of a CachedKernel.
template <class Fn>
class KernelRef {
 public:
  KernelRef() = default;
  KernelRef(std::nullptr_t) {}  // "no kernel" (e.g. a layout copy that is not needed)
  explicit KernelRef(const CachedKernel* k) : kernel_(k) {}
  // Not checked by UBSan's -fsanitize=function: that check reads a type signature just
  // before the callee, and a JIT-compiled kernel has none (it may start on a fresh page, so
  // the read itself faults).
  template <class... Args>
#if defined(__clang__)
  __attribute__((no_sanitize("function")))
#endif
  void operator()(Args... args) const {
    reinterpret_cast<Fn>(kernel_->entry)(args...);
  }
  explicit operator bool() const { return kernel_ != nullptr; }

 private:
  const CachedKernel* kernel_ = nullptr;
};
using EwKernelRef = KernelRef<codegen::EwFn>;
using ReduceKernelRef = KernelRef<codegen::ReduceFn>;
using LoopKernelRef = KernelRef<codegen::LoopFn>;

// The kernels one executable calls, each once, in the order lowering first asked for them.
class KernelPlan {
 public:
  EwKernelRef elementwise(const codegen::ElementwiseKernel& k);
  ReduceKernelRef reduce(const codegen::ReduceKernel& k);
  LoopKernelRef loop(const codegen::LoopKernel& k);  // exec/lower_control_kernel

  // The JIT stage: compiles the planned kernels that are not compiled yet (an earlier
  // program may have compiled some). `keep_text`: keep each one's optimised LLVM IR.
  void compile(jit::KernelJit& jit, bool keep_text);
  bool compiled() const { return compiled_; }

  std::vector<const CachedKernel*> kernels() const { return {kernels_.begin(), kernels_.end()}; }

 private:
  const CachedKernel* plan(std::string signature, std::function<void*(jit::KernelJit&, std::string*)> generate);
  std::vector<CachedKernel*> kernels_;
  bool compiled_ = false;
};

}  // namespace shard::exec
