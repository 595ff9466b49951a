// The docstrings of shard's JAX API, written for shard: what help(jnp.sum), jnp.sum.__doc__
// and __module__ show. One table per module family (docstrings_jax.cpp: jax, jax.sharding,
// jax.profiler; docstrings_jnp.cpp; docstrings_lax.cpp; docstrings_random.cpp), keyed by the
// qualified name; install_api_docstrings() attaches them to the natives as each built-in
// module is created (interp/native_docs.hpp), so the modules' registration code is unchanged.
#pragma once
#include <span>

namespace shard::api {

struct ApiDoc {
  const char* name;       // qualified: "jax.numpy.sum"
  const char* signature;  // "sum(a, axis=None, ...)"
  const char* text;       // what it does, then how shard differs from JAX (if it does)
};

std::span<const ApiDoc> jax_docs();
std::span<const ApiDoc> jnp_docs();
std::span<const ApiDoc> lax_docs();
std::span<const ApiDoc> random_docs();

// Adds the hook that attaches the tables (and, to every other native of a built-in module,
// its module's name for __module__). Called once, before any interpreter imports.
void install_api_docstrings();

}  // namespace shard::api
