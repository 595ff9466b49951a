// Docstrings of jax.random (see docstrings.hpp). Written for shard.
#include "api/modules/docstrings.hpp"

namespace shard::api {

namespace {

constexpr ApiDoc kRandomDocs[] = {
    {"jax.random.key", "key(seed, *, impl=None)",
     R"(A typed PRNG key (threefry2x32) from an integer seed. The same seed gives
the same numbers as JAX's.)"},
    {"jax.random.PRNGKey", "PRNGKey(seed, *, impl=None)",
     R"(A raw key: a uint32[2] array (the legacy form of key()).)"},
    {"jax.random.split", "split(key, num=2)",
     R"(`num` new independent keys derived from `key` (a key array of shape (num,)).)"},
    {"jax.random.fold_in", "fold_in(key, data)",
     R"(A new key derived from `key` and the integer `data`.)"},
    {"jax.random.uniform", "uniform(key, shape=(), dtype=float, minval=0.0, maxval=1.0, *, out_sharding=None)",
     R"(Samples uniform in [minval, maxval). `out_sharding` shards the result; the
values do not depend on the sharding.)"},
    {"jax.random.normal", "normal(key, shape=(), dtype=float, *, out_sharding=None)",
     R"(Standard normal samples.)"},
    {"jax.random.randint", "randint(key, shape, minval, maxval, dtype=int, *, out_sharding=None)",
     R"(Integers uniform in [minval, maxval).)"},
    {"jax.random.bernoulli", "bernoulli(key, p=0.5, shape=None, *, out_sharding=None)",
     R"(Booleans that are True with probability `p`.)"},
    {"jax.random.permutation", "permutation(key, x, axis=0, independent=False)",
     R"(A random permutation of range(x) (an int `x`) or of `x` along `axis`.)"},
    {"jax.random.choice", "choice(key, a, shape=(), replace=True, p=None, axis=0)",
     R"(Samples from `a` (or range(a)), with replacement or not, weighted by `p`.)"},
    {"jax.random.key_data", "key_data(keys)",
     R"(The uint32 data under typed keys (shape (..., 2) for threefry).)"},
    {"jax.random.truncated_normal", "truncated_normal(key, lower, upper, shape=None, dtype=float, *, out_sharding=None)",
     R"(Standard normal samples restricted to [lower, upper].)"},
    {"jax.random.bits", "bits(key, shape=(), dtype=None, *, out_sharding=None)",
     R"(Uniformly random unsigned integers (all bits random).)"},
    {"jax.random.wrap_key_data", "wrap_key_data(key_bits_array, *, impl=None)",
     R"(Typed keys from their uint32 data (the inverse of key_data).)"},
};

}  // namespace

std::span<const ApiDoc> random_docs() { return kRandomDocs; }

}  // namespace shard::api
