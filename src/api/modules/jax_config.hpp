// jax.config: update(name, value) and attribute reads of the options shard knows. Options
// that would change results shard cannot produce (x64, NaN checks, disabling jit) raise
// NotImplementedError rather than being ignored; unknown names are JAX's AttributeError.
#pragma once
#include "interp/interp.hpp"

namespace shard::api {

interp::Value jax_config();

}  // namespace shard::api
