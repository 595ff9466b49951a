// Emits per-device IR for the partitioner: local ops, small scalar helpers and the reshard
// planner (all-gather what must be whole, then slice locally by axis index). Each collective
// it inserts is written to the ledger with the user's location.
#pragma once
#include <string>
#include <vector>

#include "ir/ir.hpp"
#include "spmd/partition.hpp"

namespace shard::spmd {

using types::PartitionSpec;
using Entry = PartitionSpec::Entry;

class LocalBuilder {
 public:
  LocalBuilder(const types::Mesh& mesh, std::vector<CollectiveRecord>& ledger) : mesh_(mesh), am_(mesh.abstract_mesh()), ledger_(ledger) {}

  ir::Function& fn() { return fn_; }
  const types::AbstractMesh& mesh() const { return am_; }
  void set_loc(ast::Loc loc) { loc_ = loc; }

  ir::ValueId param(types::DType dt, const types::Shape& local);
  ir::ValueId emit(ir::OpKind kind, std::vector<ir::ValueId> operands, types::DType dt, const types::Shape& local,
                   ir::Attrs attrs = {});
  std::vector<ir::ValueId> emit_multi(ir::OpKind kind, std::vector<ir::ValueId> operands,
                                      const std::vector<std::pair<types::DType, types::Shape>>& results, ir::Attrs attrs,
                                      std::vector<std::shared_ptr<const ir::Function>> regions);
  ir::ValueId scalar_i32(int64_t v);
  const types::Shape& shape(ir::ValueId v) const { return fn_.type(v).shape(); }

  int64_t axes_size(const Entry& axes) const { return axes.empty() ? 1 : am_.axes_size(axes); }
  types::Shape local_shape(const types::Shape& global, const PartitionSpec& layout) const;

  // Moves a local value from layout `from` to layout `to` (both normalised to the rank).
  ir::ValueId reshard(ir::ValueId v, types::DType dt, const types::Shape& global, const PartitionSpec& from,
                      const PartitionSpec& to, const std::string& why);
  // Inserts a collective (its tiled form) on this device's block and records it in the
  // ledger; its block shape and bytes come from its definition in primitives/collectives/.
  ir::ValueId collective(ir::Attrs attrs, ir::ValueId v, types::DType dt, const std::string& why);

  // Writes one collective to the ledger (also the user's own, from shard_map bodies).
  void record(const std::string& kind, const Entry& axes, int64_t bytes, const std::string& why);

 private:
  // reshard's first step: partial sums over unreduced axes `to` does not keep are added up
  // (all-reduce, or reduce-scatter onto a dim `to` shards on them); axes `to` adds become
  // partial sums. `from` is updated to what the result holds.
  ir::ValueId reconcile_unreduced(ir::ValueId v, types::DType dt, const types::Shape& global, PartitionSpec& from,
                                  const PartitionSpec& to, const std::string& why);

  const types::Mesh& mesh_;
  types::AbstractMesh am_;
  std::vector<CollectiveRecord>& ledger_;
  ir::Function fn_;
  ast::Loc loc_;
};

// Helpers on layouts.
PartitionSpec normalized(const PartitionSpec& s, size_t rank);
PartitionSpec with_entry(const PartitionSpec& s, size_t d, Entry e);
std::string entry_text(const Entry& e);  // 'dp' or ('dp', 'mp')

}  // namespace shard::spmd
