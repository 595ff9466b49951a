// Prints the text of compile pipeline stages (--emit=jaxpr|spmd|llvm to stdout, --dump-ir and
// --dump-llvm to stderr) for one program being compiled: a header line
// "--- <stage> of <function name>", then the stage's text.
#pragma once
#include <functional>
#include <string>

#include "exec/kernel_cache.hpp"
#include "exec/options.hpp"

namespace shard::exec {

class StageOutput {
 public:
  // `program_name` empty: the program prints nothing (eager one-op programs would drown the
  // output of the jitted functions one wants to look at).
  explicit StageOutput(std::string program_name);

  // Prints `text()` where the options ask for `stage` (text() is only called then).
  void print(EmitStage stage, const std::function<std::string()>& text) const;

 private:
  std::string name_;
};

// The `llvm` stage of a program: each kernel's optimised LLVM IR module, in plan order.
std::string kernels_text(const KernelPlan& plan);

}  // namespace shard::exec
