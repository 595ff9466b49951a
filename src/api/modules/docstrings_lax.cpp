// Docstrings of jax.lax (see docstrings.hpp). Written for shard.
#include "api/modules/docstrings.hpp"

namespace shard::api {

namespace {

// Said by the collectives: where they may be called.
#define SHARD_COLLECTIVE_NOTE \
  "\n\nOnly inside shard_map (or a vmap with axis_name), where `axis_name` names a\n" \
  "mapped mesh axis; elsewhere it raises NameError naming the unbound axis."

constexpr ApiDoc kLaxDocs[] = {
    // ---- collectives ----
    {"jax.lax.psum", "psum(x, axis_name, *, axis_index_groups=None)",
     R"(The sum of `x` over the devices along mesh axis (or axes) `axis_name`: every
device gets the total (an all-reduce).)" SHARD_COLLECTIVE_NOTE
     "\n\nDifferences from JAX: axis_index_groups is not supported."},
    {"jax.lax.pmean", "pmean(x, axis_name, *, axis_index_groups=None)",
     R"(The mean of `x` over the devices along `axis_name` (psum / axis size).)" SHARD_COLLECTIVE_NOTE},
    {"jax.lax.pmax", "pmax(x, axis_name, *, axis_index_groups=None)",
     R"(The elementwise maximum of `x` over the devices along `axis_name`.)" SHARD_COLLECTIVE_NOTE},
    {"jax.lax.pmin", "pmin(x, axis_name, *, axis_index_groups=None)",
     R"(The elementwise minimum of `x` over the devices along `axis_name`.)" SHARD_COLLECTIVE_NOTE},
    {"jax.lax.all_gather", "all_gather(x, axis_name, *, axis_index_groups=None, axis=0, tiled=False)",
     R"(Every device's `x` along `axis_name`, stacked on a new dimension `axis`
(concatenated along it when `tiled`).)" SHARD_COLLECTIVE_NOTE},
    {"jax.lax.psum_scatter", "psum_scatter(x, axis_name, *, scatter_dimension=0, axis_index_groups=None, tiled=False)",
     R"(A reduce-scatter: the psum of `x` over `axis_name`, each device keeping its
slice of dimension `scatter_dimension`.)" SHARD_COLLECTIVE_NOTE},
    {"jax.lax.ppermute", "ppermute(x, axis_name, perm)",
     R"(Send `x` between devices along `axis_name`: `perm` is a list of (source,
destination) index pairs; a device no pair sends to gets zeros.)" SHARD_COLLECTIVE_NOTE},
    {"jax.lax.all_to_all", "all_to_all(x, axis_name, split_axis, concat_axis, *, axis_index_groups=None, tiled=False)",
     R"(Split `x` along `split_axis` into one chunk per device of `axis_name`, send
chunk i to device i and concatenate what arrives along `concat_axis`.)" SHARD_COLLECTIVE_NOTE},
    {"jax.lax.axis_index", "axis_index(axis_name)",
     R"(This device's index along mesh axis `axis_name` (an int32 scalar).)" SHARD_COLLECTIVE_NOTE},
    {"jax.lax.axis_size", "axis_size(axis_name)",
     R"(The number of devices along mesh axis `axis_name`.)"},
    {"jax.lax.with_sharding_constraint", "with_sharding_constraint(x, shardings)",
     R"(Ask the partitioner to lay `x` out with `shardings` at this point of the
program (a NamedSharding, or a PartitionSpec under a context mesh).)"},
    // ---- control flow ----
    {"jax.lax.scan", "scan(f, init, xs=None, length=None, reverse=False, unroll=1)",
     R"(Loop `f(carry, x) -> (carry, y)` over the leading dimension of `xs`, returning
(final carry, stacked ys). The body is traced once; `unroll` is accepted.)"},
    {"jax.lax.fori_loop", "fori_loop(lower, upper, body_fun, init_val, *, unroll=None)",
     R"(`val = body_fun(i, val)` for i in [lower, upper), starting from `init_val`.)"},
    {"jax.lax.while_loop", "while_loop(cond_fun, body_fun, init_val)",
     R"(`val = body_fun(val)` while `cond_fun(val)`; the carry's type must not change.
Not reverse-differentiable (as in JAX).)"},
    {"jax.lax.cond", "cond(pred, true_fun, false_fun, *operands)",
     R"(`true_fun(*operands)` if `pred` else `false_fun(*operands)`; both branches are
traced and must return the same types.)"},
    {"jax.lax.switch", "switch(index, branches, *operands)",
     R"(`branches[index](*operands)`, the index clamped into range.)"},
    {"jax.lax.map", "map(f, xs, *, batch_size=None)",
     R"(f applied to each slice of `xs` along its leading dimension (a scan without
carry), the results stacked.)"},
    // ---- other ----
    {"jax.lax.dot_general", "dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None, *, out_sharding=None)",
     R"(The general contraction: dimension_numbers = ((lhs_contracting,
rhs_contracting), (lhs_batch, rhs_batch)). Result dims: batch, then lhs free,
then rhs free.)"},
    {"jax.lax.stop_gradient", "stop_gradient(x)",
     R"(`x` itself, but differentiation treats it as a constant.)"},
    {"jax.lax.top_k", "top_k(operand, k)",
     R"((values, indices) of the `k` largest entries along the last dimension.)"},
    {"jax.lax.pvary", "pvary(x, axis_name)",
     R"(Mark `x`, the same on every device of `axis_name`, as varying over it (its
type's vma gains the axes); moves no data. Inside shard_map.)"},
    {"jax.lax.pcast", "pcast(x, axis_name, *, to)",
     R"(Change how `x` varies over `axis_name` (to='varying' as pvary); moves no data.)"},
    // ---- shape and slicing ----
    {"jax.lax.broadcast_in_dim", "broadcast_in_dim(operand, shape, broadcast_dimensions, *, out_sharding=None)",
     R"(`operand` broadcast to `shape`, its dimension i becoming dimension
broadcast_dimensions[i] of the result.)"},
    {"jax.lax.convert_element_type", "convert_element_type(operand, new_dtype)",
     R"(`operand` converted to `new_dtype` (floats to integers round toward zero).)"},
    {"jax.lax.concatenate", "concatenate(operands, dimension)",
     R"(The operands joined along `dimension` (their other dimensions must match).)"},
    {"jax.lax.slice", "slice(operand, start_indices, limit_indices, strides=None)",
     R"(The static slice operand[start:limit:stride] in every dimension.)"},
    {"jax.lax.dynamic_slice", "dynamic_slice(operand, start_indices, slice_sizes)",
     R"(A slice of static `slice_sizes` starting at (possibly traced) `start_indices`,
which are clamped so the slice stays in bounds.)"},
    {"jax.lax.dynamic_update_slice", "dynamic_update_slice(operand, update, start_indices)",
     R"(`operand` with `update` written at (possibly traced, clamped) `start_indices`.)"},
    {"jax.lax.iota", "iota(dtype, size, *, sharding=None)", R"(0, 1, ..., size - 1 as a 1-D array of `dtype`.)"},
    {"jax.lax.select", "select(pred, on_true, on_false)",
     R"(Elementwise on_true where `pred` else on_false.

Differences from JAX: JAX requires all three to have one shape; shard also
broadcasts a scalar case.)"},
    {"jax.lax.integer_pow", "integer_pow(x, y)", R"(x to the static integer power y, by repeated multiplication.)"},
    {"jax.lax.reduce_sum", "reduce_sum(operand, axes)", R"(The sum of `operand` over the dimensions `axes`.)"},
    {"jax.lax.reduce_max", "reduce_max(operand, axes)", R"(The maximum of `operand` over the dimensions `axes`.)"},
    {"jax.lax.complex", "complex(x, y)", R"(x + i y from two float32 (or float64) arrays of one dtype.)"},
    {"jax.lax.fft", "fft(x, fft_type, fft_lengths)",
     R"(The FFT primitive over the trailing len(fft_lengths) dims: fft_type is 'fft',
'ifft', 'rfft' or 'irfft' (JAX's FftType names). jnp.fft composes its functions
from it.)"},
};

#undef SHARD_COLLECTIVE_NOTE

}  // namespace

std::span<const ApiDoc> lax_docs() { return kLaxDocs; }

}  // namespace shard::api
