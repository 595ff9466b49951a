// dtype objects as JAX and numpy users see them: jnp.float32 / np.float32 are scalar-type
// callables (`jnp.float32(1.5)` makes a 0-d array), `x.dtype` prints `float32` and compares
// equal to jnp.float32, np.float32, np.dtype('float32') and the string 'float32'.
#pragma once
#include <optional>

#include "interp/interp.hpp"
#include "types/dtype.hpp"

namespace shard::api {

struct DTypeObj : interp::NativeObj {
  types::DType dtype;
  bool scalar_type;  // jnp.float32 (a type) vs x.dtype (a dtype instance)
  DTypeObj(interp::ClassP c, types::DType d, bool s) : NativeObj(std::move(c)), dtype(d), scalar_type(s) {}
};

// x.dtype objects: repr dtype('float32'), str float32.
interp::Value dtype_value(types::DType d);
// jnp.float32-style scalar types (callable; `host` makes numpy scalars/arrays).
interp::Value scalar_type_value(types::DType d, bool host);
// Accepts a dtype object, scalar type, builtin float/int/bool, or a dtype name string.
std::optional<types::DType> dtype_from_value(interp::Interp& I, const interp::Value& v);
// Same, raising TypeError for anything else ("Cannot interpret 'x' as a data type").
types::DType require_dtype(interp::Interp& I, const interp::Value& v);

}  // namespace shard::api
