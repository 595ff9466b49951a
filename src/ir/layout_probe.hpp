// Layout probes: host callbacks that ask for the layout the partitioner gives their one
// operand, not for its values (jax.debug.inspect_array_sharding and visualize_array_sharding
// inside jit, where Auto axes are laid out only when the program is partitioned). The
// partitioner drops the operand (no data moves for it) and writes its layout into the
// callback's identity; whoever compiled the program reads it there, as JAX calls the inspect
// callback when XLA partitions. The probe does nothing when the program runs.
#pragma once
#include <string>
#include <string_view>

#include "ir/attrs.hpp"
#include "types/mesh.hpp"
#include "types/partition_spec.hpp"

namespace shard::ir {

// identity = {kLayoutProbe, key} as traced; the partitioner appends one entry per operand
// dim: the indices of its mesh axes, space-separated ("" for an unsharded dim).
inline constexpr std::string_view kLayoutProbe = "layout_probe";

inline bool is_layout_probe(const attr::HostCallback& a) { return a.identity.size() >= 2 && a.identity[0] == kLayoutProbe; }

inline attr::HostCallback layout_probe(std::string key) {
  attr::HostCallback a;
  a.identity = {std::string(kLayoutProbe), std::move(key)};
  return a;
}

// The partitioner's rewrite: the probe with `layout` (over `mesh`'s axes) in its identity.
inline attr::HostCallback with_probed_layout(attr::HostCallback probe, const types::PartitionSpec& layout,
                                             const types::AbstractMesh& mesh) {
  probe.identity.resize(2);
  for (const auto& entry : layout.entries()) {
    std::string axes;
    for (const auto& axis : entry) {
      for (size_t i = 0; i < mesh.axis_names().size(); ++i)
        if (mesh.axis_names()[i] == axis) axes += (axes.empty() ? "" : " ") + std::to_string(i);
    }
    probe.identity.push_back(std::move(axes));
  }
  probe.varying = false;  // nothing to send: one call, not one per device
  return probe;
}

// The layout a partitioned probe carries, over `mesh`'s axes (one entry per operand dim).
inline types::PartitionSpec probed_layout(const attr::HostCallback& probe, const types::AbstractMesh& mesh) {
  std::vector<types::PartitionSpec::Entry> entries;
  for (size_t d = 0; d + 2 < probe.identity.size(); ++d) {
    types::PartitionSpec::Entry entry;
    const std::string& axes = probe.identity[2 + d];
    size_t start = 0;
    while (start < axes.size()) {
      size_t end = axes.find(' ', start);
      if (end == std::string::npos) end = axes.size();
      entry.push_back(mesh.axis_names().at(std::stoul(axes.substr(start, end - start))));
      start = end + 1;
    }
    entries.push_back(std::move(entry));
  }
  return types::PartitionSpec(std::move(entries));
}

}  // namespace shard::ir
