// dtype introspection for jax.numpy and numpy (dtype_info.cpp): numpy's abstract scalar types
// (generic, number, integer, ..., floating, complexfloating, flexible, character), finfo,
// iinfo, issubdtype, promote_types, result_type, can_cast, iscomplexobj, isrealobj, isscalar
// and (jnp only, as numpy 1.24 lacks it) isdtype. `host` picks the semantics: numpy 1.24's
// (value-based result_type / can_cast for Python scalars and numpy scalars) or JAX's (the
// weak-type lattice of trace/promotion.hpp, 64-bit dtypes canonicalised with x64 off).
#pragma once
#include "interp/interp.hpp"

namespace shard::api {

void add_dtype_info(interp::Interp& I, interp::ModuleObj& m, bool host);
// jax.dtypes: bfloat16, finfo, iinfo, issubdtype, result_type (return_weak_type_flag=),
// canonicalize_dtype, itemsize_bits, scalar_type_of.
void register_jax_dtypes_module();

}  // namespace shard::api
