// auto_axes / explicit_axes: run a function (or a `with` block) with some mesh axes switched
// to Auto (or Explicit); and jax.lax.with_sharding_constraint.
#pragma once
#include "interp/interp.hpp"
#include "types/array_type.hpp"

namespace shard::api {

// Binds auto_axes and explicit_axes into jax.sharding / jax.experimental.shard.
void install_axis_type_scopes(interp::ModuleObj& m);
// The layout a sharding constraint pins on a value of type `t`: the type's Explicit
// sharding, plus the target's axes that are Auto for the value on dims the type leaves
// unsharded.
types::PartitionSpec constrained_layout(const types::ArrayType& t, const types::NamedSharding& target);
// Binds jax.lax.with_sharding_constraint.
void install_with_sharding_constraint(interp::ModuleObj& lax);

}  // namespace shard::api
