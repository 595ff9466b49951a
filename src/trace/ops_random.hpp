// jax.random as IR: JAX's threefry2x32 PRNG in its partitionable form (JAX's default since
// 0.5, `jax_threefry_partitionable=True`), built from lax-level ops so it traces eagerly and
// under jit alike and shards like any elementwise program: every output element hashes its
// own row-major index, so values never depend on the output's sharding.
//
// Key data is uint32[..., 2] and random bits are uint32, as in JAX (`kKeyDType`).
#pragma once
#include <functional>
#include <string>
#include <utility>

#include "trace/ops.hpp"

namespace shard::trace {

// ---- lax bit-level elementwise ops (implemented in ops_elementwise.cpp) -----------------------

// lax.shift_left / shift_right_logical / shift_right_arithmetic (op: EwOp::Shift*): integer
// operands; the count takes x's dtype and is broadcast.
ValueId shift(Trace& t, const std::string& name, EwOp op, ValueId x, ValueId n);
// lax.bitcast_convert_type between types of one width.
ValueId bitcast_convert(Trace& t, ValueId x, DType to);
// lax.erf_inv (XLA's f32 approximation).
ValueId erf_inv(Trace& t, ValueId x);

namespace random {

inline constexpr DType kKeyDType = DType::U32;  // JAX's key data and random bits

// The threefry2x32 block cipher (20 rounds) on counter pairs (x1, x2) under key (k1, k2);
// scalar keys broadcast to the counters' shape.
std::pair<ValueId, ValueId> threefry2x32(Trace& t, ValueId k1, ValueId k2, ValueId x1, ValueId x2);

// Key data (2,) from an integer seed: [0, seed mod 2**32] (the seed is 32-bit with x64 off).
ValueId seed(Trace& t, ValueId seed_value);
// Keys of `shape` (data shape + (2,)) split from one key.
ValueId split(Trace& t, ValueId key, const Shape& shape);
// A new key from a key and 32 bits of data.
ValueId fold_in(Trace& t, ValueId key, ValueId data);
// uint32 random bits of `shape`.
ValueId bits(Trace& t, ValueId key, const Shape& shape, const OptOutSharding& out_sharding = std::nullopt);
// 64 random bits of `shape` (JAX's uint64 bits, held in int64: shard has no uint64).
ValueId bits64(Trace& t, ValueId key, const Shape& shape, const OptOutSharding& out_sharding = std::nullopt);

// Samplers (JAX's algorithms, bit for bit where XLA's float math allows).
ValueId uniform(Trace& t, ValueId key, const Shape& shape, DType dtype, ValueId minval, ValueId maxval,
                const OptOutSharding& out_sharding = std::nullopt);
ValueId normal(Trace& t, ValueId key, const Shape& shape, DType dtype, const OptOutSharding& out_sharding = std::nullopt);
// Normal samples truncated to (lower, upper): sqrt(2) * erf_inv of a uniform between
// erf(lower / sqrt(2)) and erf(upper / sqrt(2)), clamped inside the open interval (JAX's).
ValueId truncated_normal(Trace& t, ValueId key, ValueId lower, ValueId upper, const Shape& shape, DType dtype,
                         const OptOutSharding& out_sharding = std::nullopt);
ValueId randint(Trace& t, ValueId key, const Shape& shape, ValueId minval, ValueId maxval, DType dtype,
                const OptOutSharding& out_sharding = std::nullopt);
ValueId bernoulli(Trace& t, ValueId key, ValueId p, const Shape& shape, const OptOutSharding& out_sharding = std::nullopt);
// Transforms of uniform, normal and bernoulli draws (random_distributions.cpp), JAX's
// formulas: float32 or float64 samples of `shape`; parameters are broadcast operands.
ValueId exponential(Trace& t, ValueId key, const Shape& shape, DType dtype, const OptOutSharding& out_sharding = std::nullopt);
// mode: JAX's "low" (one uniform per sample) or "high" (two, unbiased down to about 1e-14).
enum class GumbelMode { Low, High };
ValueId gumbel(Trace& t, ValueId key, const Shape& shape, DType dtype, GumbelMode mode, const OptOutSharding& out_sharding = std::nullopt);
ValueId laplace(Trace& t, ValueId key, const Shape& shape, DType dtype, const OptOutSharding& out_sharding = std::nullopt);
ValueId logistic(Trace& t, ValueId key, const Shape& shape, DType dtype, const OptOutSharding& out_sharding = std::nullopt);
ValueId cauchy(Trace& t, ValueId key, const Shape& shape, DType dtype, const OptOutSharding& out_sharding = std::nullopt);
ValueId rademacher(Trace& t, ValueId key, const Shape& shape, DType dtype, const OptOutSharding& out_sharding = std::nullopt);
ValueId lognormal(Trace& t, ValueId key, ValueId sigma, const Shape& shape, DType dtype, const OptOutSharding& out_sharding = std::nullopt);
ValueId pareto(Trace& t, ValueId key, ValueId b, const Shape& shape, DType dtype, const OptOutSharding& out_sharding = std::nullopt);
ValueId weibull_min(Trace& t, ValueId key, ValueId scale, ValueId concentration, const Shape& shape, DType dtype,
                    const OptOutSharding& out_sharding = std::nullopt);
ValueId rayleigh(Trace& t, ValueId key, ValueId scale, const Shape& shape, DType dtype, const OptOutSharding& out_sharding = std::nullopt);
// The norm of three standard normals (JAX's maxwell).
ValueId maxwell(Trace& t, ValueId key, const Shape& shape, DType dtype, const OptOutSharding& out_sharding = std::nullopt);
// Indices drawn from softmax(logits) along `axis` (JAX's categorical): int32 of `shape`, by
// default logits.shape without `axis`; with replacement by the Gumbel-max trick, without by
// the Gumbel top-k trick.
ValueId categorical(Trace& t, ValueId key, ValueId logits, int64_t axis, const std::optional<Shape>& shape, bool replace, GumbelMode mode);

// ---- the gamma family (random_gamma.cpp) and the counting samplers (random_discrete.cpp) ----
// Regions traced at the tracer level: `body` gets the region's trace and its params; outer
// values are reached with r.lift(parent, v).
using RegionBody = std::function<std::vector<ValueId>(Trace&, const std::vector<ValueId>&)>;
using LoopCond = std::function<ValueId(Trace&, const std::vector<ValueId>&)>;
Region trace_body(Trace& parent, const std::string& name, const std::vector<types::ArrayType>& params, const RegionBody& body);
// x without its weak type (a retype: the same data).
ValueId strong(Trace& t, ValueId x);
// lax.while_loop over `init` (the body keeps every carry's type).
std::vector<ValueId> loop(Trace& t, const std::vector<ValueId>& init, const LoopCond& cond, const RegionBody& body);

// Gamma(a) samples of `shape` (a broadcast to it, converted to `dtype`), or their logs:
// JAX's Marsaglia-Tsang _gamma_one vmapped over one key per element, differentiable in a
// (random_gamma_p's JVP through random_gamma_grad).
// With out_sharding (over Explicit axes dividing the element count), each device runs the
// loops of its share of the elements.
ValueId gamma(Trace& t, ValueId key, ValueId a, const Shape& shape, DType dtype, bool log_space,
              const OptOutSharding& out = std::nullopt);
// lax.random_gamma_grad(a, x): d sample / d a of a Gamma(a) sample x (same shapes).
ValueId random_gamma_grad(Trace& t, ValueId a, ValueId x);
// method='approximate': JAX's loop-free _gamma_approx (a chi-square quantile series at a + 4,
// boosted down by Stuart's identity), differentiable through its formula.
ValueId gamma_approx(Trace& t, ValueId key, ValueId a, const Shape& shape, DType dtype, bool log_space);
ValueId beta(Trace& t, ValueId key, ValueId a, ValueId b, const Shape& shape, DType dtype, bool approximate = false);
// Samples of shape + alpha.shape[-1:] (shape already checked against alpha's batch).
ValueId dirichlet(Trace& t, ValueId key, ValueId alpha, const Shape& shape, DType dtype);
ValueId chisquare(Trace& t, ValueId key, ValueId df, const Shape& shape, DType dtype, bool approximate = false);
ValueId f(Trace& t, ValueId key, ValueId dfnum, ValueId dfden, const Shape& shape, DType dtype);
ValueId student_t(Trace& t, ValueId key, ValueId df, const Shape& shape, DType dtype);
// 1/p (and p): a Python number's reciprocal is taken in double, as JAX takes it in Python.
ValueId generalized_normal(Trace& t, ValueId key, ValueId inv_p, const Shape& shape, DType dtype);
// int_p: p was a Python int, so |g| ** p is lax.integer_pow (as jnp's ** makes it).
ValueId ball(Trace& t, ValueId key, int64_t d, ValueId p, ValueId inv_p, std::optional<int64_t> int_p, const Shape& shape,
             DType dtype);
// int (or any) dtype counts; lam is made float32 as JAX's exact method makes it.
// With out_sharding, the loops run on each device's part (the values do not change).
ValueId poisson(Trace& t, ValueId key, ValueId lam, const Shape& shape, DType dtype, const OptOutSharding& out = std::nullopt);
// method='approximate': JAX's loop-free _poisson_approx, a normal draw through the truncated
// cdf (lam < 7) or the Peizer-Pratt approximation; lam of rank <= len(shape).
ValueId poisson_approx(Trace& t, ValueId key, ValueId lam, const Shape& shape, DType dtype);
// Float counts (NaN for invalid n or p, inf for infinite n), as JAX's.
ValueId binomial(Trace& t, ValueId key, ValueId n, ValueId p, const Shape& shape, DType dtype);
// Counts of shape (`shape` = batch + (categories,)) from n trials over probabilities p.
ValueId multinomial(Trace& t, ValueId key, ValueId n, ValueId p, const Shape& shape, DType dtype);
ValueId geometric(Trace& t, ValueId key, ValueId p, const Shape& shape, DType dtype, const OptOutSharding& out = std::nullopt);
ValueId triangular(Trace& t, ValueId key, ValueId left, ValueId mode, ValueId right, const Shape& shape, DType dtype,
                   const OptOutSharding& out = std::nullopt);
ValueId wald(Trace& t, ValueId key, ValueId mean, const Shape& shape, DType dtype, const OptOutSharding& out = std::nullopt);
ValueId double_sided_maxwell(Trace& t, ValueId key, ValueId loc, ValueId scale, const Shape& shape, DType dtype);
ValueId orthogonal(Trace& t, ValueId key, int64_t n, int64_t m, const Shape& shape, DType dtype);
// method: "cholesky", "svd" or "eigh" (checked by the caller).
ValueId multivariate_normal(Trace& t, ValueId key, ValueId mean, ValueId cov, const std::optional<Shape>& shape, DType dtype,
                            const std::string& method);

// A random permutation of 0..n-1 (int32), JAX's shuffle by sorting on random 32-bit keys.
ValueId permutation_indices(Trace& t, ValueId key, int64_t n);
// x[idx] along `axis` for an int32 vector idx of in-range indices (exact for every dtype).
ValueId take(Trace& t, ValueId x, ValueId idx, int64_t axis);

}  // namespace random
}  // namespace shard::trace
