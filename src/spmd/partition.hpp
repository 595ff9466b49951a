// The SPMD partitioner: a global IR function (types carry Explicit shardings) plus the
// concrete layouts of its inputs becomes one per-device function (local shapes) with explicit
// collectives, and the concrete layouts of its outputs. A layout is a PartitionSpec over ALL
// mesh axes (Explicit and Auto); its Explicit part always equals the value's type.
//
// Rewrites are local (tinygrad's multi.py habit): an op whose operands are laid out the way
// it needs runs per shard unchanged; a reduction over a sharded dim becomes a local reduction
// plus an all-reduce; any other mismatch becomes a reshard (all-gather what must be whole,
// then slice locally what must be split — slicing needs no communication).
#pragma once
#include <string>
#include <vector>

#include "ast/ast.hpp"
#include "ir/ir.hpp"
#include "types/mesh.hpp"

namespace shard::spmd {

// One collective the partitioner inserted: the cost ledger, known before anything runs.
struct CollectiveRecord {
  std::string kind;                // the collective's ledger name (ir::collective_kind_name)
  std::vector<std::string> axes;   // mesh axes it runs over
  int64_t bytes_per_device = 0;    // bytes each device receives
  // Of those, the bytes that come from devices of other processes (multi-process runs: over
  // MPI instead of shared memory); the largest share over the collective's groups.
  int64_t bytes_between_processes = 0;
  std::string reason;              // e.g. "reduce_sum over a dim sharded on 'dp'"
  ast::Loc loc;                    // the user's line that caused it
};

struct Partitioned {
  ir::Function local;                           // per-device program
  std::vector<types::PartitionSpec> out_layouts;
  std::vector<CollectiveRecord> ledger;
};

Partitioned partition(const ir::Function& global, const types::Mesh& mesh,
                      const std::vector<types::PartitionSpec>& in_layouts);

// The local shape of `global` under `layout` on `mesh` (each dim divided by its axes' sizes).
types::Shape local_shape(const types::Shape& global, const types::PartitionSpec& layout, const types::AbstractMesh& mesh);

}  // namespace shard::spmd
