// jax.numpy.fft (fft_module.cpp).
#pragma once

namespace shard::api {

void register_jnp_fft_module();

}  // namespace shard::api
