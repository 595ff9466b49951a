#include "api/modules/registration.hpp"

#include <mutex>

#include "api/modules/docstrings.hpp"
#include "api/modules/jax_public_names.hpp"
#include "api/transforms/checkpoint.hpp"

namespace shard::api {

void register_api_modules() {
  static std::once_flag once;
  std::call_once(once, [] {
    install_api_docstrings();  // first: its hook must see every module's creation
    install_array_methods();
    register_jax_modules();
    register_numpy_module();
    register_jnp_module();
    register_lax_module();
    register_random_module();
    register_tree_util_module();
    register_mesh_utils_module();
    register_distributed_modules();
    register_scipy_module();
    register_nn_module();
    register_profiler_module();
    register_checkpoint_policies();
    install_unsupported_name_hints();
  });
}

}  // namespace shard::api
