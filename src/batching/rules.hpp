// The batching rules of the primitives, one per IR op kind, grouped by op family like the
// sharding and autodiff rules:
//   rules_elementwise.cpp  the elementwise primitives
//   rules_structural.cpp   broadcast, reshape, transpose, slice, concatenate, pad, rev,
//                          dynamic_slice, dynamic_update_slice, constants and iota
//   rules_reduce.cpp       reductions, arg-reductions, cumulative ops, sort, dot_general
//   rules_sharding.cpp     reshard, sharding constraints
//   (the shard_map collectives are defined with their rules in primitives/collectives/)
//   rules_control.cpp      scan, while, cond, shard_map, checkpoint, custom derivatives,
//                          host callbacks
// rule_table.cpp binds them: every op kind must have one (a missing one does not link).
// Batched values always carry the batch as their leading dim.
#pragma once
#include <string>
#include <vector>

#include "batching/batching.hpp"
#include "trace/ops.hpp"

namespace shard::batching {

using trace::Trace;

struct BatchArgs {
  Trace& t;
  const ir::Op& op;
  const ir::Function& fn;
  std::vector<Batched> x;  // operands
  int64_t size;            // the batch size
  const std::string& axis_name;
  ArrayType operand_type(size_t i) const { return fn.type(op.operands.at(i)); }
  ArrayType result_type(size_t i = 0) const { return fn.type(op.results.at(i)); }
  bool any_batched() const;
  // The sharding of the batched operands' batch dim (empty: unsharded).
  types::PartitionSpec::Entry batch_axes() const;
  // Operand i with the batch dim (broadcast when it has none, sharded as the others' is).
  ValueId full(size_t i) const { return materialize(t, x.at(i), size, batch_axes()); }
  // Result i's type with the batch dim in front, sharded as the operands' batch dim: data
  // movement ops are emitted with it directly (the original op passed its sharding rule;
  // a leading dim the op does not touch changes nothing in it).
  ArrayType batched_result(size_t i = 0) const;
};
using BatchRule = std::vector<Batched> (*)(BatchArgs&);

#define X(e, n, a, r, l, lin) std::vector<Batched> batch_##e(BatchArgs&);
SHARD_IR_OPS(X)
#undef X

BatchRule batch_rule(ir::OpKind k);

// ---- helpers (rule_table.cpp) ----------------------------------------------------------------

using trace::emit_like;        // the op copied on other operands: for unbatched values
using trace::inline_function;  // a function's ops copied into a trace
std::vector<Batched> all_batched(const std::vector<ValueId>& vs);
Batched batched(ValueId v);
// Dims shifted past the batch dim.
std::vector<int64_t> shifted(const std::vector<int64_t>& dims);
// A shape with the batch in front.
types::Shape with_batch(int64_t size, const types::Shape& s);
// The type's spec with an entry for the batch dim in front.
types::PartitionSpec batch_spec(const types::PartitionSpec::Entry& batch, const ArrayType& t);
// The spec entry of v's batch dim (what sharding it keeps).
types::PartitionSpec::Entry batch_entry(const Trace& t, ValueId v);
[[noreturn]] void unsupported(const std::string& what);
// The op is a collective over this vmap's axis_name (then its rule runs even on unbatched
// operands: psum of a constant is a multiple, axis_index an iota).
bool names_batch_axis(const BatchArgs& a);

}  // namespace shard::batching
