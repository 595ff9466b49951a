// jax.numpy.fft and jax.lax.fft (fft_module.cpp).
#pragma once

#include "interp/value.hpp"

namespace shard::api {

void register_jnp_fft_module();
// jax.lax.fft(x, fft_type, fft_lengths) into the lax module.
void add_lax_fft(interp::ModuleObj& m);

}  // namespace shard::api
