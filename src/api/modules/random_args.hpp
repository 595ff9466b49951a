// What jax.random's binding files share (random_module.cpp, random_distributions.cpp):
// reading key arguments, shapes and sampler dtypes as JAX checks them.
#pragma once
#include <string>
#include <vector>

#include "api/op_args.hpp"
#include "api/out_mesh_scope.hpp"

namespace shard::api::random_args {

// The key data behind a key argument (typed or raw), checked as JAX's random_wrap does.
struct KeyArg {
  Value data;
  bool typed;
};
KeyArg key_arg(Interp& I, const Value& v, const std::string& name, bool allow_batched = false);
// jax.random takes shapes as sequences (core.canonicalize_shape); None is ().
Shape random_shape(Interp& I, const Value& v, const std::string& fname);
// A sampler's float dtype: float (the default) and float64 canonicalise to float32, or
// stay float64 with x64 on.
DType float_dtype(Interp& I, const Value& v, const std::string& fname);

inline std::vector<ValueId> one(ValueId v) { return {v}; }

}  // namespace shard::api::random_args

namespace shard::api {
// The samplers of random_distributions.cpp, bound into the jax.random module.
void fill_random_distributions(ModuleObj& m);
// The gamma family, the counting samplers and the other transforms (random_samplers.cpp).
void fill_random_samplers(ModuleObj& m);
// jax.lax.random_gamma_grad, bound into jax.lax (lax_module.cpp).
void add_lax_random_gamma_grad(ModuleObj& m);
}  // namespace shard::api
