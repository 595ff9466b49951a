// Shared by the files of the jax.lax module: the op families register_lax_module adds, one
// function per family, and the argument helpers they share. lax differs from jax.numpy in
// taking operands as they are: one dtype for all (no promotion), numpy arrays included.
#pragma once
#include <string>
#include <vector>

#include "api/op_args.hpp"

namespace shard::api::lax {

// Binds a lax function into the module. Any lax function may be the first use of the
// devices, so the binding starts the device runtime before calling `fn`.
void def_lax(ModuleObj& m, const std::string& name, NativeFn fn);
// The operand at position `pos` of lax function `name`: arrays, tracers, numpy arrays and
// Python scalars pass; anything else raises lax's TypeError.
Value lax_operand(Interp& I, const Value& v, const std::string& name, size_t pos);
// A sequence of ints (None -> empty); `what` names the parameter in the TypeError.
std::vector<int64_t> int_list(Interp& I, const Value& v, const char* what);

// The op families, in the order register_lax_module adds them.
void add_elementwise(ModuleObj& m);   // lax_elementwise.cpp: the table's primitives, div, integer_pow, select, clamp, stop_gradient
void add_conversions(ModuleObj& m);   // lax_elementwise.cpp: convert_element_type, bitcast_convert_type
void add_contractions(ModuleObj& m);  // lax_contractions.cpp: dot_general
void add_creation(ModuleObj& m);      // lax_creation.cpp: broadcasted_iota, iota, full
void add_shape(ModuleObj& m);         // lax_shape.cpp: reshape, transpose, broadcast_in_dim, expand_dims, concatenate, pad, ...
void add_slicing(ModuleObj& m);       // lax_slicing.cpp: slice, slice_in_dim, dynamic_slice, dynamic_update_slice
void add_reductions(ModuleObj& m);    // lax_reductions.cpp: reduce_*, argmax/argmin, cumsum..., sort

}  // namespace shard::api::lax
