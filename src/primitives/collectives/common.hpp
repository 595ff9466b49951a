// What the collectives' definitions share: their rule context, the checks on the named axes,
// and the vmap axes a collective may name instead of mesh axes.
#pragma once
#include <optional>
#include <string>

#include "autodiff/rules.hpp"
#include "batching/rules.hpp"
#include "primitives/collectives/collectives.hpp"
#include "trace/ops.hpp"

namespace shard::primitives::collectives {

using sharding::RuleContext;
using types::ArrayType;
using types::AxisNames;
using types::Shape;
using Entry = types::PartitionSpec::Entry;

// The context of a collective's sharding rule: the trace's mesh, VMA tracked unless a
// shard_map with check_vma=False is being traced.
RuleContext rule_ctx(const trace::Trace& t, const std::string& op);

// The size of the vmap axes `axes` names (all of them vmap axes), or nullopt (none is).
std::optional<int64_t> vmap_axes_size(const AxisNames& axes, const std::string& op);
// NotImplementedError when `axes` names a vmap axis (collectives without a batching rule over it).
void reject_vmap_axes(const AxisNames& axes, const std::string& op);
// The collective names a vmap axis that is not this one (an outer vmap's): it acts lane by lane.
bool names_other_vmap_axis(const batching::BatchArgs& a);

bool contains(const AxisNames& v, const std::string& a);
// The named axes must be manual axes of an enclosing shard_map (Manual in the context mesh)
// and distinct; returns their total size.
int64_t bound_axes_size(const RuleContext& ctx, const AxisNames& axes);
// x's varying axes plus `axes` (none when VMA is not tracked).
AxisNames vma_union(const RuleContext& ctx, const ArrayType& x, const AxisNames& axes);
// The result type: x's dtype and mesh with the given shape, spec and varying axes.
ArrayType result(const RuleContext& ctx, const ArrayType& x, Shape shape, std::vector<Entry> spec, AxisNames vma);

}  // namespace shard::primitives::collectives
