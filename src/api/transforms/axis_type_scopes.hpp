// auto_axes / explicit_axes: run a function (or a `with` block) with some mesh axes switched
// to Auto (or Explicit); and jax.lax.with_sharding_constraint.
#pragma once
#include "interp/interp.hpp"

namespace shard::api {

// Binds auto_axes and explicit_axes into jax.sharding / jax.experimental.shard.
void install_axis_type_scopes(interp::ModuleObj& m);
// Binds jax.lax.with_sharding_constraint.
void install_with_sharding_constraint(interp::ModuleObj& lax);

}  // namespace shard::api
