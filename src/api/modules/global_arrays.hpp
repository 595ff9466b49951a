// jax.make_array_from_callback, make_array_from_single_device_arrays,
// make_array_from_process_local_data and device_get.
#pragma once
#include "interp/interp.hpp"

namespace shard::api {

void install_global_arrays(interp::ModuleObj& jax);

}  // namespace shard::api
