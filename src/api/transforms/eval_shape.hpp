// jax.eval_shape and jax.ShapeDtypeStruct.
#pragma once
#include "interp/interp.hpp"

namespace shard::api {

void install_eval_shape(interp::ModuleObj& jax);

}  // namespace shard::api
