// jax.scipy.linalg (scipy_linalg_module.cpp).
#pragma once
#include "api/op_args.hpp"

namespace shard::api {

void register_scipy_linalg_module();
// lax.betainc (defined with jax.scipy.special's functions, scipy_special_module.cpp).
void add_lax_betainc(ModuleObj& m);

}  // namespace shard::api
