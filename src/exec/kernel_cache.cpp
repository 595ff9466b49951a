#include "exec/kernel_cache.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace shard::exec {

namespace {

// Entries are never removed: KernelRefs inside cached executables point at them.
std::mutex g_mu;
std::unordered_map<std::string, std::unique_ptr<CachedKernel>>& cache() {
  static std::unordered_map<std::string, std::unique_ptr<CachedKernel>> c;
  return c;
}

}  // namespace

const CachedKernel* KernelPlan::plan(std::string signature, std::function<void*(jit::KernelJit&, std::string*)> generate) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto& slot = cache()[signature];
  if (!slot) slot = std::make_unique<CachedKernel>(CachedKernel{std::move(signature), std::move(generate), nullptr, {}});
  CachedKernel* k = slot.get();
  if (std::find(kernels_.begin(), kernels_.end(), k) == kernels_.end()) kernels_.push_back(k);
  compiled_ = false;
  return k;
}

EwKernelRef KernelPlan::elementwise(const codegen::ElementwiseKernel& k) {
  return EwKernelRef(plan("ew " + k.signature(), [k](jit::KernelJit& jit, std::string* text) {
    return reinterpret_cast<void*>(codegen::compile_elementwise(jit, k, text));
  }));
}

ReduceKernelRef KernelPlan::reduce(const codegen::ReduceKernel& k) {
  return ReduceKernelRef(plan("reduce " + k.signature(), [k](jit::KernelJit& jit, std::string* text) {
    return reinterpret_cast<void*>(codegen::compile_reduce(jit, k, text));
  }));
}

LoopKernelRef KernelPlan::loop(const codegen::LoopKernel& k) {
  return LoopKernelRef(plan("loop " + k.signature(), [k](jit::KernelJit& jit, std::string* text) {
    return reinterpret_cast<void*>(codegen::compile_loop_kernel(jit, k, text));
  }));
}

void KernelPlan::compile(jit::KernelJit& jit, bool keep_text) {
  std::lock_guard<std::mutex> lock(g_mu);
  for (CachedKernel* k : kernels_)
    if (!k->entry) k->entry = k->generate(jit, keep_text ? &k->optimised_ir : nullptr);
  compiled_ = true;
}

}  // namespace shard::exec
