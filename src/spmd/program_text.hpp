// The per-device program as text: what `jax.jit(f).lower(...).compile().as_text()` returns
// and what `shard --emit=spmd` prints — the per-device IR, then the cost ledger as '#' lines.
#pragma once
#include <string>
#include <vector>

#include "ast/ast.hpp"
#include "spmd/partition.hpp"

namespace shard::spmd {

// "FILE:LINE" of a collective's source line ("<unknown>" without one).
std::string collective_source(const ast::Loc& loc);

// One line per collective: kind, axes, bytes per device, reason, FILE:LINE; a count first.
std::string ledger_text(const std::vector<CollectiveRecord>& ledger);

// ir::print of the per-device function, an empty line, then ledger_text.
std::string device_program_text(const Partitioned& parts);

// The per-device program's collectives as HLO instructions, one per line, as XLA prints them in
// a compiled module (`%c = f32[2]{0} all-reduce(f32[2]{0} %b), replica_groups={{0,4},...}`):
// what Compiled.as_text() adds so that checks written against JAX's HLO text
// ('all-reduce(' in text) hold. `mesh` gives the replica groups (device ids).
std::string hlo_collectives_text(const Partitioned& parts, const types::Mesh& mesh);

}  // namespace shard::spmd
