#include "exec/program.hpp"
#include "exec/host_callback.hpp"
#include "exec/timeline.hpp"

#include <fmt/format.h>

#include <mutex>
#include <stdexcept>

#include "jit/kernel_jit.hpp"
#include "runtime/device_runtime.hpp"

namespace shard::exec {

jit::KernelJit& kernel_jit() {
  static std::unique_ptr<jit::KernelJit> jit;
  static std::once_flag once;
  std::call_once(once, [] { jit = std::make_unique<jit::KernelJit>(); });
  return *jit;
}

Executable::Executable(const ir::Function& local, types::Mesh mesh) : mesh_(std::move(mesh)) {
  lower_function(*this, local, param_slots_, result_slots_);
  // The bytes the program touches: what its steps write, and its inputs (a reduction's
  // output is small; it is what it reads that makes running the devices in parallel pay).
  size_t bytes = 0;
  for (auto p : local.params) bytes += static_cast<size_t>(local.type(p).num_elements()) * types::dtype_size(local.type(p).dtype());
  bool nested = false, repeats = false;
  for (const auto& st : steps_) {
    for (auto b : st.out_bytes) bytes += b;
    nested |= static_cast<bool>(st.run_region);
    repeats |= st.repeats;
  }
  // A compiled loop's work is not bounded by its bytes: on several devices they run it in
  // parallel; on one, the calling thread does as well without the wake-up.
  const size_t devices = mesh_.device_ids().size();
  run_inline_ = groups_.empty() && !nested && !(repeats && devices > 1) && bytes * devices <= (size_t{1} << 16);
}

Executable::~Executable() = default;

void Executable::compile_kernels(jit::KernelJit& jit, bool keep_text) { kernels_.compile(jit, keep_text); }

std::shared_ptr<const Executable::GroupTable> Executable::groups_over(const std::vector<std::string>& axes) {
  for (auto& [key, table] : groups_)
    if (key == axes) return table;
  auto table = std::make_shared<GroupTable>();
  for (auto& members : mesh_.collective_groups(axes)) {
    auto group = std::make_shared<runtime::CollectiveGroup>(members);
    for (int d : members) {
      if (static_cast<size_t>(d) >= table->size()) table->resize(d + 1);
      (*table)[d] = group;
    }
  }
  groups_.emplace_back(axes, table);
  return table;
}

std::string Executable::describe() const {
  std::string s;
  for (auto& st : steps_) s += fmt::format("{} {} -> {}\n", st.name, fmt::join(st.in, ","), fmt::join(st.out, ","));
  return s;
}

void run_steps(const StepContext& ctx, const std::vector<Step>& steps, std::vector<BufferRef>& slots) {
  const bool timed = timeline_enabled();
  std::vector<const void*> in_ptrs;
  std::vector<void*> out_ptrs;
  for (const Step& st : steps) {
    runtime::throw_if_cancelled();  // Ctrl-C stops a program between its steps
    if (st.run_region) {
      st.run_region(ctx, slots);
      continue;
    }
    in_ptrs.clear();
    out_ptrs.clear();
    for (int s : st.in) in_ptrs.push_back(slots[s]->data());
    if (st.alias_of >= 0) {
      const BufferRef& from = slots[st.in[st.alias_of]];
      slots[st.out[0]] = st.alias_offset == 0 && st.out_bytes[0] == from->bytes()
                             ? from
                             : runtime::DeviceBuffer::view(from, st.alias_offset, st.out_bytes[0]);
      continue;
    }
    for (size_t o = 0; o < st.out.size(); ++o) {
      slots[st.out[o]] = runtime::DeviceBuffer::allocate(ctx.device, st.out_bytes[o]);
      out_ptrs.push_back(slots[st.out[o]]->data());
    }
    if (timed) {
      const int64_t t0 = timeline_now();
      st.run(ctx, in_ptrs, out_ptrs);
      timeline_record(ctx.device, st.name, t0, timeline_now());
    } else {
      st.run(ctx, in_ptrs, out_ptrs);
    }
  }
}

std::vector<std::vector<BufferRef>> Executable::run(const std::vector<std::vector<BufferRef>>& inputs) const {
  if (!kernels_.compiled()) throw std::logic_error("internal error: an executable ran before its kernels were compiled");
  if (inputs.size() != param_slots_.size())
    throw std::logic_error(fmt::format("internal error: executable takes {} inputs, got {}", param_slots_.size(), inputs.size()));
  const auto& devices = mesh_.device_ids();
  const size_t npos = devices.size();
  // A Ctrl-C from before this run was already seen by the interpreter (which raises at its next
  // check); only one during the run stops the devices.
  runtime::clear_cancel();
  std::vector<std::vector<BufferRef>> outputs(result_slots_.size(), std::vector<BufferRef>(npos));
  HostCallbackQueue callbacks(npos);
  auto body = [&](int device) {
    const int64_t pos = mesh_.position_of_device(device);
    StepContext ctx{device, pos, mesh_, &callbacks};
    std::vector<BufferRef> slots(static_cast<size_t>(num_slots_));
    for (size_t p = 0; p < param_slots_.size(); ++p) slots[param_slots_[p]] = inputs[p].at(pos);
    run_steps(ctx, steps_, slots);
    for (size_t r = 0; r < result_slots_.size(); ++r) outputs[r][pos] = slots[result_slots_[r]];
  };
  if (run_inline_) {
    auto& rt = runtime::global_runtime();
    for (int d : devices)
      if (rt.is_local(d)) body(d);  // other processes run their own devices
  } else {
    runtime::global_runtime().launch(devices, body);
  }
  callbacks.run_all();
  return outputs;
}

}  // namespace shard::exec
