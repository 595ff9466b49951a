// jax.scipy.linalg (scipy_linalg_module.cpp).
#pragma once

namespace shard::api {

void register_scipy_linalg_module();

}  // namespace shard::api
