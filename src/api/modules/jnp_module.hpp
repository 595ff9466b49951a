// Shared by the files of the jax.numpy module: the op families register_jnp_module adds, one
// function per family (jnp_module_*.cpp), and how each function is bound.
#pragma once
#include <string>

#include "api/op_args.hpp"

namespace shard::api {

// A jax.numpy function: numpy (host) array arguments are moved to the device first.
void def_jnp(ModuleObj& m, const std::string& name, NativeFn fn);

// JAX's check_arraylike: every argument an array or a Python scalar, else its TypeError
// naming the first offender's type and position (jnp_module.cpp).
void check_arraylike(Interp& I, const std::string& fname, const std::vector<Value>& args);

// jax.errors.ConcretizationTypeError with the given message (op_args.cpp).
[[noreturn]] void raise_concretization_error(Interp& I, const std::string& message);

// x rolled by `shift` along `axis` (jnp.roll on one axis; jnp_module_indexing.cpp).
ValueId roll_axis(Trace& t, ValueId x, int64_t shift, int64_t axis);

// jnp.repeat with an array of repeats (jnp_module_indexing.cpp).
Value jnp_repeat_counts(Interp& I, const Value& x, const Value& repeats, std::optional<int64_t> axis, const Value& total_repeat_length);

void add_jnp_creation(Interp& I, ModuleObj& m);     // jnp_module_creation.cpp
void add_jnp_elementwise(Interp& I, ModuleObj& m);  // jnp_module_elementwise.cpp
void add_jnp_reductions(Interp& I, ModuleObj& m);   // jnp_module_reductions.cpp
void add_jnp_shape(Interp& I, ModuleObj& m);        // jnp_module_shape.cpp
void add_jnp_linalg(Interp& I, ModuleObj& m);       // jnp_module_linalg.cpp
void add_jnp_indexing(Interp& I, ModuleObj& m);    // jnp_module_indexing.cpp
void add_jnp_nan_stats(Interp& I, ModuleObj& m);   // jnp_module_nan_stats.cpp
void add_jnp_histogram(Interp& I, ModuleObj& m);   // jnp_module_histogram.cpp
void add_jnp_reorder(Interp& I, ModuleObj& m);     // jnp_module_reorder.cpp
void add_jnp_products(Interp& I, ModuleObj& m);    // jnp_module_products.cpp
void add_jnp_log_spaces(Interp& I, ModuleObj& m);  // jnp_module_log_spaces.cpp
void register_jnp_linalg_module();                  // jax.numpy.linalg (jnp_module_linalg.cpp)

}  // namespace shard::api
