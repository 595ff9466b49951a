#include "exec/kernel_cache.hpp"

#include <mutex>
#include <string>
#include <unordered_map>

namespace shard::exec {

codegen::EwFn cached_elementwise(jit::KernelJit& jit, const codegen::ElementwiseKernel& k) {
  static std::mutex mu;
  static std::unordered_map<std::string, codegen::EwFn> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto sig = k.signature();
  auto it = cache.find(sig);
  if (it != cache.end()) return it->second;
  auto fn = codegen::compile_elementwise(jit, k);
  cache.emplace(std::move(sig), fn);
  return fn;
}

codegen::ReduceFn cached_reduce(jit::KernelJit& jit, const codegen::ReduceKernel& k) {
  static std::mutex mu;
  static std::unordered_map<std::string, codegen::ReduceFn> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto sig = k.signature();
  auto it = cache.find(sig);
  if (it != cache.end()) return it->second;
  auto fn = codegen::compile_reduce(jit, k);
  cache.emplace(std::move(sig), fn);
  return fn;
}

}  // namespace shard::exec
