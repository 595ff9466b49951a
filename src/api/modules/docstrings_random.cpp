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
    {"jax.random.gamma", "gamma(key, a, shape=None, dtype=float, *, method='exact', out_sharding=None)",
     R"(Gamma(a) samples (unit scale): JAX's Marsaglia-Tsang rejection sampler on one key per
element, so the values are JAX's. Differentiable in `a` (implicit reparameterisation).
method='approximate' is JAX's loop-free sampler.)"},
    {"jax.random.loggamma", "loggamma(key, a, shape=None, dtype=float, *, method='exact', out_sharding=None)",
     R"(The logs of gamma(key, a) samples, computed in log space (exact for very small `a`).)"},
    {"jax.random.beta", "beta(key, a, b, shape=None, dtype=float, *, method='exact', out_sharding=None)",
     R"(Beta(a, b) samples, from two log-gamma draws.)"},
    {"jax.random.dirichlet", "dirichlet(key, alpha, shape=None, dtype=float, *, out_sharding=None)",
     R"(Dirichlet(alpha) samples of shape `shape + alpha.shape[-1:]` (a softmax of log-gamma draws).)"},
    {"jax.random.chisquare", "chisquare(key, df, shape=None, dtype=float, *, method='exact', out_sharding=None)",
     R"(Chi-square samples with `df` degrees of freedom (2 * Gamma(df / 2)).)"},
    {"jax.random.f", "f(key, dfnum, dfden, shape=None, dtype=float, *, out_sharding=None)",
     R"(F-distribution samples: the ratio of two scaled chi-square draws.)"},
    {"jax.random.t", "t(key, df, shape=None, dtype=float, *, out_sharding=None)",
     R"(Student's t samples with `df` degrees of freedom.)"},
    {"jax.random.poisson", "poisson(key, lam, shape=None, dtype=int, *, method='exact', out_sharding=None)",
     R"(Poisson(lam) counts: Knuth's algorithm below lam 10, Hormann's transformed rejection
above (JAX's). method='approximate' is JAX's loop-free sampler.)"},
    {"jax.random.binomial", "binomial(key, n, p, shape=None, dtype=float)",
     R"(Binomial(n, p) counts as floats: inversion for n p <= 10, BTRS above (JAX's).)"},
    {"jax.random.multinomial", "multinomial(key, n, p, *, shape=None, dtype=None, unroll=1)",
     R"(Multinomial counts of `n` trials over the last axis of `p`, one binomial per category.)"},
    {"jax.random.geometric", "geometric(key, p, shape=None, dtype=int, *, out_sharding=None)",
     R"(The number of trials up to the first success (>= 1).)"},
    {"jax.random.triangular", "triangular(key, left, mode, right, shape=None, dtype=float, *, out_sharding=None)",
     R"(Triangular-distribution samples on [left, right] peaking at `mode`.)"},
    {"jax.random.wald", "wald(key, mean, shape=None, dtype=float, *, out_sharding=None)",
     R"(Wald (inverse Gaussian) samples with the given mean and unit shape.)"},
    {"jax.random.generalized_normal", "generalized_normal(key, p, shape=(), dtype=float, *, out_sharding=None)",
     R"(Samples with density proportional to exp(-|x|**p).)"},
    {"jax.random.ball", "ball(key, d, p=2, shape=(), dtype=float, *, out_sharding=None)",
     R"(Points uniform in the d-dimensional unit p-norm ball (shape `shape + (d,)`).)"},
    {"jax.random.double_sided_maxwell", "double_sided_maxwell(key, loc, scale, shape=(), dtype=float)",
     R"(Maxwell samples with a random sign, scaled by `scale` and shifted by `loc`.)"},
    {"jax.random.orthogonal", "orthogonal(key, n, shape=(), dtype=float, m=None, *, out_sharding=None)",
     R"(Haar-random orthogonal matrices (n x m, semi-orthogonal when n != m), from the QR of a
normal matrix.)"},
    {"jax.random.multivariate_normal",
     "multivariate_normal(key, mean, cov, shape=None, dtype=None, method='cholesky', *, out_sharding=None)",
     R"(Samples of N(mean, cov): mean + factor @ z, factor from 'cholesky', 'svd' or 'eigh'.)"},
    {"jax.random.clone", "clone(key)",
     R"(The key itself (JAX's copy for key-reuse checking, which shard does not do).)"},
    {"jax.random.key_dtype", "key_dtype(impl_spec=None)",
     R"(The dtype of typed keys, key<fry>.)"},
};

}  // namespace

std::span<const ApiDoc> random_docs() { return kRandomDocs; }

}  // namespace shard::api
