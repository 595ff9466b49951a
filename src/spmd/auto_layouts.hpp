// Layouts on Auto mesh axes: a small GSPMD-style propagation that gives every value of a
// global function a preferred sharding over the Auto axes (the ones types never show), so
// that the partitioner's choices avoid communication where none is needed.
//
// Sources are the parameters' concrete layouts and sharding constraints (pinned); a forward
// pass carries them through each op to its results (merging what several operands offer,
// e.g. `a[8@dp,4] * b[8,4@mp]` prefers (dp, mp): both operands are then sliced locally
// instead of one being gathered), a backward pass lets values without a preference adopt
// their users' (a constraint pulls its producer, a replicated loop carry takes the layout
// its body gives it), and a second forward pass spreads what the backward pass found.
// Explicit axes are left alone: they come from the types.
#pragma once
#include <optional>
#include <vector>

#include "ir/ir.hpp"
#include "types/mesh.hpp"
#include "types/partition_spec.hpp"

namespace shard::spmd {

// One entry per value of `f`: its preferred layout on Auto axes (dims with no preference,
// and Explicit axes, are None), or nullopt when nothing is known. `in_layouts` are the
// parameters' layouts (all axes); `mesh` gives the axis types of values whose type has no mesh.
std::vector<std::optional<types::PartitionSpec>> plan_auto_layouts(const ir::Function& f, const types::AbstractMesh& mesh,
                                                                   const std::vector<types::PartitionSpec>& in_layouts);

}  // namespace shard::spmd
