// KernelJit: compiles LLVM modules for the host CPU with ORC LLJIT and the new pass manager,
// and hands back plain function pointers that device threads call. Compilation happens on
// the host (interpreter) thread; the returned code is immutable and safe to run anywhere.
// LLVM types never appear here: codegen builds a module through ModuleHandle (opaque).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class Module;
class LLVMContext;
}  // namespace llvm

namespace shard::jit {

struct JitOptions {
  int opt_level = 2;          // 0..3
  bool vector_math = true;    // let the loop vectoriser call glibc's libmvec for sin/exp/...
};

// A module under construction: codegen fills `module()` then passes it to KernelJit::add.
class ModuleHandle {
 public:
  explicit ModuleHandle(const std::string& name);
  ~ModuleHandle();
  ModuleHandle(ModuleHandle&&) noexcept;
  llvm::Module& module();
  llvm::LLVMContext& context();
  struct Parts;
  std::unique_ptr<Parts> parts;
};

class KernelJit {
 public:
  explicit KernelJit(JitOptions opts = {});
  ~KernelJit();
  // Verifies, optimises and adds the module; returns the optimised IR text if asked.
  // Throws std::runtime_error with LLVM's message on failure.
  void add(ModuleHandle&& m, std::string* optimised_ir = nullptr);
  // Address of a function added earlier (throws if absent).
  void* lookup(const std::string& name);
  template <class Fn> Fn* lookup_fn(const std::string& name) { return reinterpret_cast<Fn*>(lookup(name)); }
  // The host CPU name LLVM targets (e.g. "znver4"), for --version and benchmarks.
  std::string host_cpu() const;
  // Registers a runtime function the generated code may call (the runtime ABI list).
  void define_symbol(const std::string& name, void* address);
  // Tells the loop vectoriser that glibc's libmvec has vector forms of the libm function
  // `name` (float `namef` too) taking `arity` arguments, beyond those LLVM's own list knows.
  void add_vector_math(const std::string& name, int arity);
  const JitOptions& options() const { return opts_; }

 private:
  struct Impl;
  JitOptions opts_;
  std::vector<std::pair<std::string, int>> vector_math_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace shard::jit
