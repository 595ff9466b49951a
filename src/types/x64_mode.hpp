// JAX's 64-bit mode (jax_enable_x64). Off by default, as in JAX: device arrays are 32-bit
// (Python floats become float32, ints int32, and 64-bit dtypes are canonicalised down). On,
// float64 and int64 are device dtypes, Python scalars are weak float64 / int64, and the
// default float and int dtypes are 64-bit. Host (numpy) arrays are 64-bit either way.
// Set by jax.config.update('jax_enable_x64', True) or the JAX_ENABLE_X64 environment
// variable (read on first use, as JAX reads it at import).
#pragma once
#include <optional>
#include <string_view>

#include "types/dtype.hpp"

namespace shard::types {

bool x64_enabled();
void set_x64_enabled(bool on);
// JAX's truthy spellings of a boolean environment flag: 1/true/yes/on and 0/false/no/off.
std::optional<bool> parse_bool_flag(std::string_view s);

// The dtypes JAX's `float`, `int` and `uint` canonicalise to on device: float32 / int32 /
// uint32, or float64 / int64 (uint32: shard has no uint64) with x64 on.
inline DType default_float_dtype() { return x64_enabled() ? DType::F64 : DType::F32; }
inline DType default_int_dtype() { return x64_enabled() ? DType::I64 : DType::I32; }

}  // namespace shard::types
