#include "spmd/program_text.hpp"

#include <fmt/format.h>

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

}  // namespace shard::spmd
