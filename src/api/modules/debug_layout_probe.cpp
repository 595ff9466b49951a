#include "api/modules/debug_layout_probe.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "api/objects/array_placement_specs.hpp"
#include "api/objects/array_value.hpp"
#include "exec/host_callback.hpp"
#include "ir/layout_probe.hpp"
#include "trace/ops.hpp"

namespace shard::api {

namespace {

std::vector<const trace::Trace*>& jit_traces() {
  static std::vector<const trace::Trace*> traces;
  return traces;
}

// The probe's callable: nothing happens when the program runs; `report` is found through
// std::function::target when the program is compiled.
struct LayoutProbeCallback {
  std::shared_ptr<const LayoutReport> report;
  void operator()(const std::vector<exec::HostValue>&) const {}
};

void collect_probes(const ir::Function& f, std::vector<const ir::Op*>& out) {
  for (const auto& op : f.ops) {
    if (op.kind == ir::OpKind::HostCallback && ir::is_layout_probe(op.attr<ir::attr::HostCallback>())) out.push_back(&op);
    for (const auto& region : op.regions) collect_probes(*region, out);
  }
}

}  // namespace

JitTraceScope::JitTraceScope(const trace::Trace* t) : trace_(t) { jit_traces().push_back(t); }
JitTraceScope::~JitTraceScope() {
  auto& traces = jit_traces();
  traces.erase(std::find(traces.begin(), traces.end(), trace_));
}

bool traced_for_jit(const trace::Trace& t) {
  const auto& traces = jit_traces();
  for (const trace::Trace* at = &t; at; at = at->parent().get())
    if (std::find(traces.begin(), traces.end(), at) != traces.end()) return true;
  return false;
}

void record_layout_probe(Interp& I, const Value& x, LayoutReport report) {
  static uint64_t next_key = 0;  // each probe its own program: its callback is per compile
  auto callable = std::make_shared<const exec::HostCallback>(
      LayoutProbeCallback{std::make_shared<const LayoutReport>(std::move(report))});
  std::vector<std::string> identity{std::string(ir::kLayoutProbe), fmt::format("probe {}", next_key++)};
  apply_multi(I, "inspect_array_sharding", {x}, [&](trace::Trace& t, const std::vector<ir::ValueId>& ids) {
    trace::host_callback(t, ids, identity, callable);
    return std::vector<ir::ValueId>{};
  });
}

void report_layout_probes(Interp& I, const exec::CompiledProgram& program) {
  std::vector<const ir::Op*> probes;
  collect_probes(program.parts.local, probes);
  if (probes.empty()) return;
  const auto& mesh = program.mesh;
  const bool single_device = mesh.empty();
  // JAX's inspect callback gets Mesh(devices, axis_names): every axis Auto.
  const types::Mesh auto_mesh(mesh.device_ids(), mesh.axis_sizes(), mesh.axis_names(),
                              std::vector<types::AxisType>(mesh.ndim(), types::AxisType::Auto));
  for (const ir::Op* op : probes) {
    const auto& attr = op->attr<ir::attr::HostCallback>();
    const auto callback = std::static_pointer_cast<const exec::HostCallback>(attr.callable);
    const auto* probe = callback ? callback->target<LayoutProbeCallback>() : nullptr;
    if (!probe) continue;
    const auto layout = without_trailing_none(ir::probed_layout(attr, mesh.abstract_mesh()));
    (*probe->report)(I, types::NamedSharding(auto_mesh, layout), single_device);
  }
}

}  // namespace shard::api
