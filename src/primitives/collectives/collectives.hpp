// The shard_map collectives (SHARDING_RULES.md §7). Each is defined in one file of this
// folder, which holds everything shard knows about it:
//   - its sharding rule (sharding::propagate_X): result shape, shape errors, varying axes;
//   - its trace entry point (trace::X), what jax.lax's binding and the rules call;
//   - its JVP and transpose rules (autodiff::jvp_K, transpose_K), batching rule
//     (batching::batch_K);
//   - for the collectives the partitioner inserts itself, its effect on a device's block.
// Elsewhere a collective is named only by its IR row (ir/ir.hpp), attributes (ir/attrs.hpp),
// lowering onto the runtime (exec/lower_collectives.cpp) and Python binding
// (api/modules/lax_collectives.cpp).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/ir.hpp"
#include "sharding/common.hpp"
#include "trace/trace.hpp"

namespace shard::trace {

// While a shard_map body with check_vma=False is traced, collectives track no VMA.
class CheckVmaScope {
 public:
  explicit CheckVmaScope(bool check_vma);
  ~CheckVmaScope();
  CheckVmaScope(const CheckVmaScope&) = delete;
  CheckVmaScope& operator=(const CheckVmaScope&) = delete;
};
bool vma_checked();
// While a jax.vmap body with axis_name is traced, collectives over that name (psum, pmean,
// pmax, pmin, all_gather, axis_index) are recorded for the batching transform to resolve.
class VmapAxisScope {
 public:
  VmapAxisScope(std::string name, int64_t size);
  ~VmapAxisScope();
  VmapAxisScope(const VmapAxisScope&) = delete;
  VmapAxisScope& operator=(const VmapAxisScope&) = delete;
};

// `axes` as the user named them (their order is the order of a tuple's row-major index).
ValueId all_reduce(Trace& t, const std::string& name, ir::ReduceKind kind, ValueId x, const types::AxisNames& axes);  // psum pmax pmin
ValueId pmean(Trace& t, ValueId x, const types::AxisNames& axes);
ValueId all_gather(Trace& t, ValueId x, const types::AxisNames& axes, int64_t axis, bool tiled);
ValueId psum_scatter(Trace& t, ValueId x, const types::AxisNames& axes, int64_t scatter_dimension, bool tiled);
ValueId ppermute(Trace& t, ValueId x, const types::AxisNames& axes, const std::vector<std::pair<int64_t, int64_t>>& perm);
ValueId all_to_all(Trace& t, ValueId x, const types::AxisNames& axes, int64_t split_axis, int64_t concat_axis, bool tiled);
ValueId axis_index(Trace& t, const types::AxisNames& axes);
// pvary / pcast(to='varying'): the same data, varying over `axes` (no op when already so).
ValueId pvary(Trace& t, ValueId x, const types::AxisNames& axes, const std::string& name = "pvary");

}  // namespace shard::trace

namespace shard::sharding {

// ctx.mesh is the mesh inside shard_map (manual axes bound). Every collective but axis_index
// first pvarys its input over named axes not yet varying.
ArrayType propagate_psum(const RuleContext& ctx, const ArrayType& x, const AxisNames& axes);
ArrayType propagate_all_gather(const RuleContext& ctx, const ArrayType& x, const AxisNames& axes,
                               int64_t axis = 0, bool tiled = false);
ArrayType propagate_psum_scatter(const RuleContext& ctx, const ArrayType& x, const AxisNames& axes,
                                 int64_t scatter_dimension = 0, bool tiled = false);
ArrayType propagate_ppermute(const RuleContext& ctx, const ArrayType& x, const AxisNames& axes,
                             const std::vector<std::pair<int64_t, int64_t>>& perm);
ArrayType propagate_all_to_all(const RuleContext& ctx, const ArrayType& x, const AxisNames& axes,
                               int64_t split_axis, int64_t concat_axis, bool tiled = false);
ArrayType propagate_axis_index(const RuleContext& ctx, const AxisNames& axes);
ArrayType propagate_pvary(const RuleContext& ctx, const ArrayType& x, const AxisNames& axes);

}  // namespace shard::sharding

namespace shard::primitives {

// A collective the partitioner inserts (its tiled form) on one device's block over n
// devices: the block's new shape, and the elements each device receives (the ledger's
// bytes, once multiplied by the element size).
struct BlockEffect {
  types::Shape shape;
  int64_t elements_moved = 0;
};
BlockEffect on_block(const ir::attr::AllReduce& a, const types::Shape& block, int64_t n);
BlockEffect on_block(const ir::attr::AllGather& a, const types::Shape& block, int64_t n);
BlockEffect on_block(const ir::attr::ReduceScatter& a, const types::Shape& block, int64_t n);
BlockEffect on_block(const ir::attr::AllToAll& a, const types::Shape& block, int64_t n);
// The same for any collective's attributes (throws for other ops).
BlockEffect on_block(const ir::Attrs& attrs, const types::Shape& block, int64_t n);

}  // namespace shard::primitives
