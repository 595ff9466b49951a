// jax.shard_map (call, decorator and functools.partial forms) and the legacy
// jax.experimental.shard_map.shard_map (check_rep). The body is traced once, on local types,
// inside a context whose manual axes are Manual, and recorded as one ShardMap op whose region
// the partitioner inlines into the per-device program.
#pragma once
#include "interp/interp.hpp"

namespace shard::api {

// Adds `shard_map` to the jax module.
void install_shard_map(interp::Interp& I, interp::ModuleObj& jax);
// Fills the module jax.experimental.shard_map.
void fill_experimental_shard_map(interp::Interp& I, interp::ModuleObj& m);

}  // namespace shard::api
