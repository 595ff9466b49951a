// dtype objects as JAX and numpy users see them: jnp.float32 / np.float32 are scalar-type
// callables (`jnp.float32(1.5)` makes a 0-d array), `x.dtype` prints `float32` and compares
// equal to jnp.float32, np.float32, np.dtype('float32'), 'float32' and 'f4'.
//
// numpy's abstract scalar types (np.generic > np.number > np.integer > np.signedinteger, ...)
// are classes, and numpy's scalar types subclass them as in numpy: issubclass(np.float32,
// np.floating). bfloat16's host type is ml_dtypes.bfloat16, a subclass of np.generic only (as
// ml_dtypes defines it). jnp.float32 & co. subclass `object` only, as JAX's _ScalarMeta
// classes do. numpy scalars are 0-d host arrays in shard, so isinstance(v, np.floating) and
// isinstance(v, np.float32) hold for any 0-d numpy array of such a dtype.
#pragma once
#include <optional>
#include <string_view>

#include "interp/interp.hpp"
#include "types/dtype.hpp"

namespace shard::api {

struct DTypeObj : interp::NativeObj {
  types::DType dtype;
  bool scalar_type;  // jnp.float32 (a type) vs x.dtype (a dtype instance)
  DTypeObj(interp::ClassP c, types::DType d, bool s) : NativeObj(std::move(c)), dtype(d), scalar_type(s) {}
};

// numpy.dtype, the class of x.dtype objects (jnp.dtype is it too, as in JAX):
// np.dtype('f4'), np.dtype(jnp.float32), isinstance(x.dtype, np.dtype).
interp::ClassP dtype_type();
// x.dtype objects: repr dtype('float32') (dtype(bfloat16) as ml_dtypes prints it), str float32.
interp::Value dtype_value(types::DType d);
// jnp.float32-style scalar types (callable; `host` makes numpy scalars/arrays).
interp::Value scalar_type_value(types::DType d, bool host);
// Accepts a dtype object, scalar type, builtin float/int/bool/complex, or a dtype string
// (names, numpy's type codes 'f4' / 'c8' / 'd' / '<i8', aliases 'float', 'double', 'intc').
std::optional<types::DType> dtype_from_value(interp::Interp& I, const interp::Value& v);
// Same, raising TypeError for anything else ("Cannot interpret 'x' as a data type").
types::DType require_dtype(interp::Interp& I, const interp::Value& v);
// numpy.dtype(s) for a string: names, aliases and type codes; nullopt if not understood.
std::optional<types::DType> dtype_from_string(std::string_view s);

// numpy's abstract scalar types by name: generic, number, integer, signedinteger,
// unsignedinteger, inexact, floating, complexfloating, flexible, character (nullptr otherwise).
interp::ClassP numpy_abstract_type(std::string_view name);
// numpy's (or ml_dtypes') scalar type of a dtype: x.dtype.type.
interp::ClassP host_scalar_type(types::DType d);
// Whether `c` is one of numpy's scalar types or abstract scalar types (a subclass of np.generic).
bool is_numpy_scalar_class(const interp::ClassObj& c);
// numpy's dtype.char: 'f', 'd', 'F', '?', 'E' for bfloat16.
char dtype_char(types::DType d);

}  // namespace shard::api
