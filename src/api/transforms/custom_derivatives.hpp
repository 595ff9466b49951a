// jax.custom_jvp / jax.custom_vjp (decorators with defjvp / defvjp, nondiff_argnums).
#pragma once
#include "interp/interp.hpp"

namespace shard::api {

void install_custom_derivatives(interp::ModuleObj& jax);

}  // namespace shard::api
