#pragma once
#include "interp/interp.hpp"

namespace shard::api {

// jax.debug.print(fmt, *args, ordered=False, **kwargs)
interp::Value jax_debug_print(interp::Interp& I, interp::CallArgs& a);

}  // namespace shard::api
