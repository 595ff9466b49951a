// jax.lax control flow: scan, fori_loop, while_loop, cond, switch. Each body is traced once
// (as a region of the enclosing trace, or of a one-op program when called eagerly) on
// abstract values of its carry, and the carry's type is checked against what the body
// returns (shape, dtype, sharding, varying manual axes) with JAX's message.
#pragma once
#include "interp/interp.hpp"

namespace shard::api {

void install_lax_control(interp::Interp& I, interp::ModuleObj& lax);

}  // namespace shard::api
