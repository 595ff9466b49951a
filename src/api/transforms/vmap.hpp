// jax.vmap: maps a function over an axis of its arguments (as the body of a lax.scan).
#pragma once
#include "interp/interp.hpp"

namespace shard::api {

// Adds `vmap` to the jax module.
void install_vmap(interp::ModuleObj& jax);

}  // namespace shard::api
