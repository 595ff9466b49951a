// jax.jit and jax.make_jaxpr: trace a Python function once per input signature (static
// values + leaf array types) into an IR function, compile it once per mesh and input layouts,
// and keep both, so a cached call only flattens, compares and runs. Python side effects
// therefore happen at trace time only. jitted.lower(...).compile() exposes the stages.
#pragma once
#include "interp/interp.hpp"

namespace shard::api {

// Adds `jit` and `make_jaxpr` to the jax module.
void install_jit(interp::Interp& I, interp::ModuleObj& jax_module);

}  // namespace shard::api
