// Registration of the built-in Python modules of the array stack. The CLI (and the
// embedding API) call register_api_modules() once before creating an interpreter.
#pragma once

namespace shard::api {

void register_api_modules();

// Each module family registers its modules (Interp::register_builtin_module).
void register_jax_modules();    // jax, jax.sharding, jax.experimental(.shard), jax.debug, jax.tree_util
void register_numpy_module();   // numpy
void register_jnp_module();     // jax.numpy, jax.lax (array ops)

// Array methods, properties and operator dunders on jax.Array / numpy.ndarray.
void install_array_methods();

}  // namespace shard::api
