// jax.config: update(name, value) and attribute reads of the options shard knows
// (jax_enable_x64 switches 64-bit mode, types/x64_mode.hpp). Options that would change
// results shard cannot produce (NaN checks, disabling jit) raise
// NotImplementedError rather than being ignored; unknown names are JAX's AttributeError.
#pragma once
#include "interp/interp.hpp"

namespace shard::api {

interp::Value jax_config();

}  // namespace shard::api
