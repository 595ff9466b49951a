// jax.vmap: the batching transform (src/batching/) over a traced function.
#pragma once
#include "interp/interp.hpp"

namespace shard::api {

// Adds `vmap` to the jax module.
void install_vmap(interp::ModuleObj& jax);

}  // namespace shard::api
