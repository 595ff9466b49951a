// Executable: a per-device IR function lowered to a list of steps (compiled LLVM kernels,
// GEMM calls, collectives, small C++ kernels) that every device of a mesh runs on its own
// thread with its own local buffers. One Executable serves all devices (SPMD): a step may
// ask for the device's position (axis_index, collective group) through StepContext.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "exec/kernel_cache.hpp"
#include "ir/ir.hpp"
#include "runtime/collectives.hpp"
#include "runtime/device_buffer.hpp"
#include "types/mesh.hpp"

namespace shard::jit { class KernelJit; }

namespace shard::exec {

using runtime::BufferRef;

struct HostCallbackQueue;

struct StepContext {
  int device;
  int64_t position;  // in the mesh, row-major
  const types::Mesh& mesh;
  HostCallbackQueue* callbacks = nullptr;  // where host callbacks of this run queue up
};

// A step reads input slots and writes freshly allocated output slots (or aliases an input).
struct Step {
  std::string name;                 // for --trace and errors: the IR op's display name
  std::vector<int> in, out;         // slot ids
  std::vector<size_t> out_bytes;    // bytes of each output buffer
  int alias_of = -1;                // >= 0: out[0] is the same buffer as in[alias_of]
  size_t alias_offset = 0;          // with alias_of: out[0] is in's bytes from this offset (a view)
  bool repeats = false;             // a compiled loop: its work is not bounded by its bytes
  std::function<void(const StepContext&, const std::vector<const void*>& in, const std::vector<void*>& out)> run;
  // Control flow (while, scan, cond): runs nested step lists over the device's slot table
  // itself; `in`/`out` then only document the slots it reads and writes.
  std::function<void(const StepContext&, std::vector<BufferRef>& slots)> run_region;
};

// Runs `steps` in order on one device over its slot table.
void run_steps(const StepContext& ctx, const std::vector<Step>& steps, std::vector<BufferRef>& slots);

class Executable {
 public:
  // Lowers `local` (per-device types, already verified) to steps; the kernels they call are
  // planned, not compiled: compile_kernels must run before `run`. `mesh` is the mesh it runs
  // on (a one-device mesh for unsharded arrays).
  Executable(const ir::Function& local, types::Mesh mesh);
  ~Executable();

  // The JIT stage: LLVM compiles the planned kernels the kernel cache does not hold compiled.
  // `keep_text`: keep their optimised LLVM IR (--emit=llvm, --dump-llvm).
  void compile_kernels(jit::KernelJit& jit, bool keep_text = false);
  const KernelPlan& kernels() const { return kernels_; }

  // inputs[param][position] -> outputs[result][position]. Runs on the device threads of the
  // mesh and waits; a device's error is rethrown here.
  std::vector<std::vector<BufferRef>> run(const std::vector<std::vector<BufferRef>>& inputs) const;

  const std::vector<Step>& steps() const { return steps_; }
  const types::Mesh& mesh() const { return mesh_; }
  std::string describe() const;  // one line per step (tests, --dump)

  // Used by the lowering.
  int new_slot() { return num_slots_++; }
  // The collective groups over `axes` of this mesh, indexed by device id (shared by every
  // step that communicates over the same axes, so rendezvous rounds stay in program order).
  using GroupTable = std::vector<std::shared_ptr<runtime::CollectiveGroup>>;
  std::shared_ptr<const GroupTable> groups_over(const std::vector<std::string>& axes);
  void add_step(Step s) { steps_.push_back(std::move(s)); }
  std::vector<Step>& mutable_steps() { return steps_; }
  KernelPlan& mutable_kernels() { return kernels_; }

 private:
  types::Mesh mesh_;
  std::vector<Step> steps_;
  KernelPlan kernels_;
  std::vector<int> param_slots_, result_slots_;
  int num_slots_ = 0;
  // Small programs without collectives run on the calling thread, device after device:
  // waking 8 device threads costs more than their kernels.
  bool run_inline_ = false;
  std::vector<std::pair<std::vector<std::string>, std::shared_ptr<GroupTable>>> groups_;
};

// Lowers every op of `fn` into steps of `exe` (planning their kernels in exe's KernelPlan);
// fills the slots of params and results.
void lower_function(Executable& exe, const ir::Function& fn, std::vector<int>& param_slots, std::vector<int>& result_slots);

// The process-wide kernel JIT (created on first use; compile on the host thread only).
jit::KernelJit& kernel_jit();

}  // namespace shard::exec
