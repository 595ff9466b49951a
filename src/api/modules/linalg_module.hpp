// jax.numpy.linalg's decompositions and solvers, and the jax.lax.linalg module
// (linalg_module.cpp).
#pragma once
#include "api/op_args.hpp"

namespace shard::api {

// inv solve det slogdet cholesky eigh eigvalsh qr svd svdvals pinv matrix_power matrix_rank
void add_jnp_linalg_decompositions(Interp& I, ModuleObj& m);
void register_lax_linalg_module();
// lax.linalg.lu_pivots_to_permutation(pivots, permutation_size), with JAX's checks.
Value lu_pivots_to_permutation(Interp& I, const Value& pivots, int64_t permutation_size);

}  // namespace shard::api
