// jax.grad, jax.value_and_grad, jax.vjp, jax.jvp, jax.linearize over src/autodiff/.
#pragma once
#include "interp/interp.hpp"

namespace shard::api {

void install_grad(interp::ModuleObj& jax);

}  // namespace shard::api
