// jax.checkpoint / jax.remat and jax.checkpoint_policies.
#pragma once
#include "interp/interp.hpp"

namespace shard::api {

void install_checkpoint(interp::ModuleObj& jax);
void register_checkpoint_policies();  // jax.checkpoint_policies

}  // namespace shard::api
