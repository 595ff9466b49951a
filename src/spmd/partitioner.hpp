// The partitioner's working state (internal to src/spmd): one Partitioner per function, or
// per region of a control-flow / shard_map op (they recurse). partition.cpp holds the rewrites
// of array ops, partition_control.cpp those of control flow, shard_map and user collectives.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "spmd/local_builder.hpp"
#include "spmd/partition.hpp"

namespace shard::spmd {

// Drops ops none of whose results is used (all devices drop the same ones, so collectives
// stay matched). Host callbacks and control flow (which may hold callbacks) always stay.
void remove_dead_ops(ir::Function& f);

class Partitioner {
 public:
  Partitioner(const ir::Function& g, const types::Mesh& mesh, std::vector<CollectiveRecord>& ledger)
      : g_(g), mesh_(mesh), ledger_(ledger), am_(mesh.abstract_mesh()), b_(mesh, ledger) {}

  // `want`: layouts the results must leave in (a loop body's carries); empty = as computed.
  Partitioned run(const std::vector<PartitionSpec>& in_layouts, const std::vector<PartitionSpec>& want = {});

 private:
  struct Local {
    ir::ValueId id = -1;
    PartitionSpec layout;
  };

  const ir::ArrayType& gtype(ir::ValueId v) const { return g_.type(v); }
  std::string why(const ir::Op& op) const { return ir::op_display_name(op); }

  // The value of global `v` in layout `to` (resharding when it differs). A replicated
  // broadcast wanted sharded is broadcast again at the local shape instead of sliced (the
  // first copy, if nothing else uses it, is then dead code).
  ir::ValueId in_layout(const ir::Op& op, ir::ValueId v, const PartitionSpec& to);
  // The layout a broadcast_in_dim's operand needs for its result to be laid out as
  // `result_layout`: whole dims take their result dim's entry (ir/dim_map.hpp), the others none.
  PartitionSpec broadcast_operand_layout(const ir::Op& broadcast, const PartitionSpec& result_layout) const;

  bool is_explicit(const std::string& axis) const { return am_.axis_type(axis) == types::AxisType::Explicit; }

  // Explicit axes come from the type; Auto axes a result keeps from `hint` where the type
  // leaves the dim unsharded and the axes are free (what the op computed, or what its first
  // sharded operand has); dims still unsharded take the Auto-layout plan's preference
  // (spmd/auto_layouts.cpp), which merges all operands and looks at users too. Filling a dim
  // only ever slices locally, so the plan never adds communication.
  PartitionSpec result_layout(const ir::ArrayType& t, const PartitionSpec* hint) const;

  void define(ir::ValueId global, ir::ValueId local, PartitionSpec layout) { map_[global] = {local, std::move(layout)}; }

  // Defines the result of `op` as `local` in `layout`, resharded to what the type demands
  // -- unless every user reshards it to `layout` anyway (the transpose of a gather, such as
  // an FSDP weight gradient): then it stays, and its reshards move nothing.
  void define_conformed(const ir::Op& op, ir::ValueId local, const PartitionSpec& layout) {
    const auto& t = gtype(op.results[0]);
    PartitionSpec want = result_layout(t, &layout);
    const PartitionSpec have = normalized(layout, t.rank());
    if (!(have == want)) {
      if (auto resharded = common_reshard_layout(op.results[0]); resharded && *resharded == have) {
        define(op.results[0], local, have);
        return;
      }
      local = b_.reshard(local, t.dtype(), t.shape(), layout, want, why(op));
    }
    define(op.results[0], local, want);
  }

  void partition_op(const ir::Op& op);

  // slice / pad / rev: the touched dims must be whole on every device; other dims keep
  // their layout and the op runs locally on them.
  void partition_gathering_dims(const ir::Op& op);

  void partition_reshape(const ir::Op& op);

  // dot_general: batch dims share the lhs layout; a contracting pair sharded alike on both
  // sides is contracted locally and all-reduced; any other sharded contracting dim is gathered;
  // a free-dim axis used on both sides is gathered on the rhs.
  void partition_dot(const ir::Op& op);

  // Linear algebra (cholesky, lu, triangular_solve, eigh, svd, qr): the matrix dims (the
  // last two) of every operand whole, the batch dims as the first operand has them; the
  // results' batch dims keep that layout and the op runs on each device's batch.
  void partition_linalg(const ir::Op& op);

  // Control flow: carries (and cond results) take the layout their type names, so every
  // iteration and every branch agree; loop-invariant operands keep theirs; the bodies are
  // partitioned recursively with those layouts and their collectives join the ledger.
  void partition_control(const ir::Op& op);

  // A collective written in a shard_map body (types already per device): passed through, on
  // values laid out as their types say, and written to the ledger.
  void partition_collective(const ir::Op& op);

  // shard_map: operands are resharded to their in_specs (captured values whole); the body,
  // typed per device already, is partitioned on its own (every value as its type says) and
  // inlined with its collectives; results are laid out by out_specs: blocks tile the named
  // axes and are one copy along the others, so no data moves.
  void partition_shard_map(const ir::Op& op);

  // The layout all users of `v` reshard it to, when every user is a reshard or sharding
  // constraint to one layout (and `v` is not a result of the function).
  std::optional<PartitionSpec> common_reshard_layout(ir::ValueId v) const;

  const ir::Function& g_;
  std::vector<const ir::Op*> def_;  // the op defining each global value (null for params)
  std::vector<std::vector<const ir::Op*>> users_;  // the ops reading each global value (null: a result)
  std::vector<std::pair<std::pair<ir::ValueId, PartitionSpec>, ir::ValueId>> rebroadcast_;
  const types::Mesh& mesh_;
  std::vector<CollectiveRecord>& ledger_;
  types::AbstractMesh am_;
  LocalBuilder b_;
  std::vector<Local> map_;
  // Preferred Auto-axis layouts of the global values, planned on first use (auto_layouts.cpp).
  mutable std::optional<std::vector<std::optional<PartitionSpec>>> plan_;
};

}  // namespace shard::spmd
