// Typed PRNG key arrays (jax.random.key): what code outside jax.random needs to see through
// them, e.g. jit flattening a key argument to its uint32[..., 2] key data and back.
#pragma once
#include "interp/value.hpp"

namespace shard::api {

bool is_key_array(const interp::Value& v);
// The key data (an array or tracer whose last dim is 2) of a typed key array.
interp::Value key_array_data(const interp::Value& v);
// A typed key array over key data.
interp::Value make_key_array(interp::Value data);

}  // namespace shard::api
