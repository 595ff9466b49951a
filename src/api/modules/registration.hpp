// Registration of the built-in Python modules of the array stack. The CLI (and the
// embedding API) call register_api_modules() once before creating an interpreter.
#pragma once

namespace shard::api {

void register_api_modules();

// Each module family registers its modules (Interp::register_builtin_module).
void register_jax_modules();       // jax, jax.sharding, jax.experimental(.shard, .shard_map), jax.debug
void register_numpy_module();      // numpy, numpy.random
void register_jnp_module();        // jax.numpy, jax.numpy.linalg
void register_lax_module();        // jax.lax
void register_random_module();     // jax.random
void register_tree_util_module();
void register_mesh_utils_module();   // jax.experimental.mesh_utils
void register_distributed_modules(); // jax.distributed, jax.experimental.multihost_utils
void register_scipy_module();      // jax.scipy, jax.scipy.special
void register_nn_module();         // jax.nn
void register_profiler_module();   // jax.profiler

// Array methods, properties and operator dunders on jax.Array / numpy.ndarray.
void install_array_methods();

}  // namespace shard::api
