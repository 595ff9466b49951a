#include "spmd/program_text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ast/source.hpp"
#include "runtime/process_layout.hpp"

namespace shard::spmd {

std::string collective_source(const ast::Loc& loc) {
  if (loc.file == 0 || loc.line == 0) return "<unknown>";
  return fmt::format("{}:{}", ast::source(loc.file).name, loc.line);
}

std::string ledger_text(const std::vector<CollectiveRecord>& ledger) {
  std::string out = fmt::format("# collectives per device: {}\n", ledger.size());
  for (const auto& r : ledger) {
    // Multi-process runs also say how much of it crosses processes.
    const std::string between =
        runtime::process_layout().process_count > 1 ? fmt::format(" ({} between processes)", r.bytes_between_processes) : "";
    out += fmt::format("#   {} over {}: {} bytes{}; {} ({})\n", r.kind, fmt::join(r.axes, ","), r.bytes_per_device, between,
                       r.reason, collective_source(r.loc));
  }
  return out;
}

std::string device_program_text(const Partitioned& parts) { return ir::print(parts.local) + "\n" + ledger_text(parts.ledger); }

namespace {

// f32[4,2]{1,0}: HLO's shape with its (row-major) layout.
std::string hlo_shape(const types::ArrayType& t) {
  std::vector<int64_t> layout;
  for (size_t d = t.rank(); d-- > 0;) layout.push_back(static_cast<int64_t>(d));
  return fmt::format("{}[{}]{{{}}}", types::dtype_short_name(t.dtype()), fmt::join(t.shape(), ","), fmt::join(layout, ","));
}

std::string groups_text(const std::vector<std::vector<int>>& groups) {
  std::vector<std::string> gs;
  for (const auto& g : groups) gs.push_back(fmt::format("{{{}}}", fmt::join(g, ",")));
  return fmt::format("{{{}}}", fmt::join(gs, ","));
}

void collect_hlo(const ir::Function& f, const types::Mesh& mesh, std::string& out, int& channel) {
  for (const auto& op : f.ops) {
    for (const auto& r : op.regions) collect_hlo(*r, mesh, out, channel);
    const char* kind = ir::collective_kind_name(op.kind);
    if (!kind || op.operands.empty() || op.results.empty()) continue;
    const auto groups = mesh.collective_groups(ir::collective_axes(op));
    std::string attrs;
    if (const auto* p = std::get_if<ir::attr::CollectivePermute>(&op.attrs)) {
      std::vector<std::string> pairs;  // the permutation in every group, in device ids
      for (const auto& g : groups)
        for (auto [src, dst] : p->perm) pairs.push_back(fmt::format("{{{},{}}}", g.at(src), g.at(dst)));
      attrs = fmt::format("source_target_pairs={{{}}}", fmt::join(pairs, ","));
    } else {
      attrs = fmt::format("replica_groups={}, use_global_device_ids=true", groups_text(groups));
      if (std::holds_alternative<ir::attr::AllReduce>(op.attrs) || std::holds_alternative<ir::attr::ReduceScatter>(op.attrs))
        attrs += ", to_apply=%region";
    }
    out += fmt::format("  %v{} = {} {}({} %v{}), channel_id={}, {}\n", op.results[0], hlo_shape(f.type(op.results[0])), kind,
                       hlo_shape(f.type(op.operands[0])), op.operands[0], ++channel, attrs);
  }
}

}  // namespace

std::string hlo_collectives_text(const Partitioned& parts, const types::Mesh& mesh) {
  std::string body;
  int channel = 0;
  collect_hlo(parts.local, mesh, body, channel);
  if (body.empty()) return "";
  return "\nHLO collectives (per device):\n" + body;
}

}  // namespace shard::spmd
