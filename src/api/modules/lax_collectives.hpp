// jax.lax collectives for shard_map bodies (the reductions, gathers, scatters, permutes and
// axis queries, pvary / pcast). Each maps over a pytree of operands
// and records one IR collective per leaf (defined in primitives/collectives/).
#pragma once
#include "interp/interp.hpp"

namespace shard::api {

void install_lax_collectives(interp::Interp& I, interp::ModuleObj& lax);

}  // namespace shard::api
