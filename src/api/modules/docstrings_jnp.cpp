// Docstrings of jax.numpy (see docstrings.hpp). Written for shard.
#include "api/modules/docstrings.hpp"

namespace shard::api {

namespace {

// Said by every reduction: how a sharded reduced dimension is paid for.
#define SHARD_REDUCTION_NOTE \
  "\n\nReducing a dimension that is sharded over mesh axes costs an all-reduce over\n" \
  "those axes (`:ledger` in the REPL, `--stats` at exit show it)."

constexpr ApiDoc kJnpDocs[] = {
    // ---- creation ----
    {"jax.numpy.array", "array(object, dtype=None, copy=True, order='K', ndmin=0, *, device=None)",
     R"(A new jax.Array from a Python scalar, nested lists, a numpy array or an Array.

Differences from NumPy: without jax_enable_x64, Python floats become float32
and ints int32 (JAX's default 32-bit mode). `device` may be a NamedSharding.)"},
    {"jax.numpy.asarray", "asarray(a, dtype=None, order=None, *, copy=None, device=None)",
     R"(Like array, but returns `a` itself when it already is a jax.Array of that dtype.)"},
    {"jax.numpy.zeros", "zeros(shape, dtype=None, *, device=None, out_sharding=None)",
     R"(An array of zeros; `out_sharding` (a PartitionSpec under a mesh, or a
NamedSharding) gives the result's sharding.)"},
    {"jax.numpy.ones", "ones(shape, dtype=None, *, device=None, out_sharding=None)",
     R"(An array of ones; see zeros for `out_sharding`.)"},
    {"jax.numpy.full", "full(shape, fill_value, dtype=None, *, device=None, out_sharding=None)",
     R"(An array of `shape` filled with `fill_value`.)"},
    {"jax.numpy.zeros_like", "zeros_like(a, dtype=None, shape=None, *, device=None, out_sharding=None)",
     R"(Zeros with the shape and dtype of `a` (or the given ones).)"},
    {"jax.numpy.ones_like", "ones_like(a, dtype=None, shape=None, *, device=None, out_sharding=None)",
     R"(Ones with the shape and dtype of `a` (or the given ones).)"},
    {"jax.numpy.arange", "arange(start, stop=None, step=None, dtype=None, *, device=None, out_sharding=None)",
     R"(Evenly spaced values in [start, stop) with `step`; arange(n) is 0 .. n-1.)"},
    {"jax.numpy.linspace", "linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None)",
     R"(`num` evenly spaced values from start to stop (stop included if `endpoint`).)"},
    {"jax.numpy.eye", "eye(N, M=None, k=0, dtype=None, *, device=None, out_sharding=None)",
     R"(An N x M array with ones on diagonal `k` and zeros elsewhere.)"},
    // ---- reductions ----
    {"jax.numpy.sum", "sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None)",
     R"(The sum of the elements of `a` over `axis` (all axes when None).

Booleans and integers narrower than 32 bits are summed in 32 bits of their
signedness (int32 / uint32; 64 bits with jax_enable_x64). `out` is not
supported (jax arrays are immutable).)" SHARD_REDUCTION_NOTE},
    {"jax.numpy.prod", "prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None)",
     R"(The product of the elements of `a` over `axis` (all axes when None).)" SHARD_REDUCTION_NOTE},
    {"jax.numpy.mean", "mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None)",
     R"(The arithmetic mean over `axis`; integer inputs give a float result.)" SHARD_REDUCTION_NOTE},
    {"jax.numpy.max", "max(a, axis=None, out=None, keepdims=False, initial=None, where=None)",
     R"(The largest element over `axis`; NaN if any compared element is NaN.)" SHARD_REDUCTION_NOTE},
    {"jax.numpy.min", "min(a, axis=None, out=None, keepdims=False, initial=None, where=None)",
     R"(The smallest element over `axis`; NaN if any compared element is NaN.)" SHARD_REDUCTION_NOTE},
    {"jax.numpy.var", "var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None)",
     R"(The variance over `axis`, dividing by N - ddof.)" SHARD_REDUCTION_NOTE},
    {"jax.numpy.std", "std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None)",
     R"(The standard deviation over `axis`: sqrt(var(a, axis, ddof=ddof)).)" SHARD_REDUCTION_NOTE},
    {"jax.numpy.argmax", "argmax(a, axis=None, out=None, keepdims=None)",
     R"(The index of the largest element over `axis` (of the flattened array when
None); the first one on ties.)"},
    {"jax.numpy.argmin", "argmin(a, axis=None, out=None, keepdims=None)",
     R"(The index of the smallest element over `axis`; the first one on ties.)"},
    {"jax.numpy.cumsum", "cumsum(a, axis=None, dtype=None, out=None)",
     R"(Running sums along `axis` (over the flattened array when None).)"},
    {"jax.numpy.all", "all(a, axis=None, out=None, keepdims=False, *, where=None)",
     R"(Whether every element over `axis` is true.)"},
    {"jax.numpy.any", "any(a, axis=None, out=None, keepdims=False, *, where=None)",
     R"(Whether some element over `axis` is true.)"},
    // ---- contractions ----
    {"jax.numpy.matmul", "matmul(a, b, *, precision=None, preferred_element_type=None, out_sharding=None)",
     R"(The matrix product of `a` and `b`, batched over leading dimensions.

A contracted dimension sharded over a mesh axis costs an all-reduce of the
partial products over it; `out_sharding` says how the result is laid out.
`precision` is accepted; shard computes float32 products in float32.)"},
    {"jax.numpy.dot", "dot(a, b, *, precision=None, preferred_element_type=None, out_sharding=None)",
     R"(The dot product: matmul for 2-D inputs, the sum over a's last and b's
second-to-last dimension in general.)"},
    {"jax.numpy.einsum", "einsum(subscripts, *operands, out=None, optimize='auto', precision=None, preferred_element_type=None, out_sharding=None)",
     R"(A contraction written as subscripts ('ij,jk->ik'), traced as dot_general and
transposes.)"},
    // ---- shape ----
    {"jax.numpy.reshape", "reshape(a, shape, order='C', *, out_sharding=None)",
     R"(`a`'s elements in a new shape (-1 for one inferred dimension).

On an array sharded over Explicit mesh axes the sharding follows the
dimensions; a reshape shard cannot lay out without moving data between
devices is refused with the reason (reshard first, or give `out_sharding`).)"},
    {"jax.numpy.transpose", "transpose(a, axes=None)",
     R"(`a` with its dimensions permuted (reversed when `axes` is None); the sharding
follows the dimensions.)"},
    {"jax.numpy.concatenate", "concatenate(arrays, axis=0, dtype=None)",
     R"(The arrays joined along an existing `axis`.)"},
    {"jax.numpy.stack", "stack(arrays, axis=0, out=None, dtype=None)",
     R"(The arrays joined along a new `axis`.)"},
    {"jax.numpy.squeeze", "squeeze(a, axis=None)",
     R"(`a` without its size-1 dimensions (only those in `axis` when given).)"},
    {"jax.numpy.expand_dims", "expand_dims(a, axis)",
     R"(`a` with a size-1 dimension inserted at `axis`.)"},
    {"jax.numpy.broadcast_to", "broadcast_to(array, shape, *, out_sharding=None)",
     R"(`array` broadcast to `shape` by NumPy's rules.)"},
    {"jax.numpy.split", "split(ary, indices_or_sections, axis=0)",
     R"(A list of sub-arrays: equal sections, or cut before each index given.)"},
    {"jax.numpy.where", "where(condition, x=None, y=None, /, *, size=None, fill_value=None)",
     R"(Elementwise x where `condition` else y. With only `condition`, its nonzero
indices (under jit `size` must be given: the result's shape must be static).)"},
    {"jax.numpy.take", "take(a, indices, axis=None, out=None, mode=None, unique_indices=False, indices_are_sorted=False, fill_value=None)",
     R"(Elements of `a` at `indices` along `axis`. Out-of-range indices follow
`mode`: 'fill' (the default: NaN or the dtype's extreme), 'clip' or 'wrap'.)"},
    // ---- elementwise ----
    {"jax.numpy.exp", "exp(x, /)", R"(e to the power x, elementwise.)"},
    {"jax.numpy.log", "log(x, /)", R"(The natural logarithm, elementwise (NaN below 0, -inf at 0).)"},
    {"jax.numpy.sqrt", "sqrt(x, /)", R"(The non-negative square root, elementwise (NaN below 0).)"},
    {"jax.numpy.sin", "sin(x, /)", R"(The sine of x (radians), elementwise.)"},
    {"jax.numpy.cos", "cos(x, /)", R"(The cosine of x (radians), elementwise.)"},
    {"jax.numpy.tanh", "tanh(x, /)", R"(The hyperbolic tangent, elementwise.)"},
    {"jax.numpy.abs", "abs(x, /)", R"(The absolute value, elementwise.)"},
    {"jax.numpy.maximum", "maximum(x, y, /)", R"(The larger of x and y, elementwise, with broadcasting; NaN wins.)"},
    {"jax.numpy.minimum", "minimum(x, y, /)", R"(The smaller of x and y, elementwise, with broadcasting; NaN wins.)"},
    {"jax.numpy.clip", "clip(arr, min=None, max=None)", R"(`arr` with its values limited to [min, max].)"},
    {"jax.numpy.allclose", "allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False)",
     R"(Whether |a - b| <= atol + rtol * |b| for every element pair (a bool Array).)"},
    {"jax.numpy.isclose", "isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False)",
     R"(The elementwise test of allclose.)"},
    // ---- ordering ----
    {"jax.numpy.sort", "sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False)",
     R"(A sorted copy of `a` along `axis` (flattened when None); NaNs sort last.)"},
    {"jax.numpy.argsort", "argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False)",
     R"(The indices that sort `a` along `axis`; ties keep their order.)"},
    // ---- more shape and data movement ----
    {"jax.numpy.astype", "astype(x, dtype, /, *, copy=False, device=None)",
     R"(`x` converted to `dtype` (floats to integers truncate toward zero).)"},
    {"jax.numpy.ravel", "ravel(a, order='C')", R"(`a` flattened to one dimension, in row-major order.)"},
    {"jax.numpy.tile", "tile(A, reps)", R"(`A` repeated `reps` times along each dimension.)"},
    {"jax.numpy.repeat", "repeat(a, repeats, axis=None, *, total_repeat_length=None)",
     R"(Each element of `a` repeated `repeats` times along `axis` (flattened when
None). With an array of repeats the result's length depends on values, so
under jit `total_repeat_length` must give it.)"},
    {"jax.numpy.pad", "pad(array, pad_width, mode='constant', constant_values=0)",
     R"(`array` padded by `pad_width` ((before, after) per dimension).)"},
    {"jax.numpy.roll", "roll(a, shift, axis=None)",
     R"(The elements of `a` shifted by `shift` along `axis`, wrapping around.)"},
    {"jax.numpy.flip", "flip(m, axis=None)", R"(`m` with the order of its elements reversed along `axis` (all when None).)"},
    {"jax.numpy.diff", "diff(a, n=1, axis=-1, prepend=None, append=None)",
     R"(The n-th discrete difference along `axis`: a[1:] - a[:-1], n times.)"},
    {"jax.numpy.unique", "unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True, size=None, fill_value=None)",
     R"(The sorted distinct values of `ar`. The count of them depends on values, so
under jit `size` must be given (padded with `fill_value`, else the smallest).)"},
    {"jax.numpy.nonzero", "nonzero(a, *, size=None, fill_value=None)",
     R"(The indices of the nonzero elements, one array per dimension; under jit
`size` must be given.)"},
    {"jax.numpy.argwhere", "argwhere(a, *, size=None, fill_value=None)",
     R"(The indices of the nonzero elements as rows (N, ndim); under jit `size`
must be given.)"},
    {"jax.numpy.count_nonzero", "count_nonzero(a, axis=None, keepdims=False)",
     R"(How many elements over `axis` are nonzero.)"},
    {"jax.numpy.outer", "outer(a, b, out=None)", R"(The outer product of the flattened `a` and `b`.)"},
    {"jax.numpy.tensordot", "tensordot(a, b, axes=2)",
     R"(The sum of products over the last `axes` dimensions of a and the first of b
(or the dimensions listed as a pair of sequences).)"},
    {"jax.numpy.trace", "trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None)",
     R"(The sum along diagonal `offset` of the 2-D slices given by axis1 and axis2.)"},
    {"jax.numpy.cumprod", "cumprod(a, axis=None, dtype=None, out=None)",
     R"(Running products along `axis` (over the flattened array when None).)"},
    // ---- more elementwise ----
    {"jax.numpy.square", "square(x, /)", R"(x * x, elementwise.)"},
    {"jax.numpy.power", "power(x1, x2, /)", R"(x1 to the power x2, elementwise, with broadcasting.)"},
    {"jax.numpy.log2", "log2(x, /)", R"(The base-2 logarithm, elementwise.)"},
    {"jax.numpy.log10", "log10(x, /)", R"(The base-10 logarithm, elementwise.)"},
    {"jax.numpy.log1p", "log1p(x, /)", R"(log(1 + x), accurate for small x.)"},
    {"jax.numpy.expm1", "expm1(x, /)", R"(exp(x) - 1, accurate for small x.)"},
    {"jax.numpy.floor", "floor(x, /)", R"(The largest integer not above x, elementwise (as a float for floats).)"},
    {"jax.numpy.ceil", "ceil(x, /)", R"(The smallest integer not below x, elementwise (as a float for floats).)"},
    {"jax.numpy.isnan", "isnan(x, /)", R"(Whether each element is NaN.)"},
    {"jax.numpy.isfinite", "isfinite(x, /)", R"(Whether each element is neither infinite nor NaN.)"},
    {"jax.numpy.logaddexp", "logaddexp(x1, x2, /)", R"(log(exp(x1) + exp(x2)), computed without overflow.)"},
    {"jax.numpy.median", "median(a, axis=None, out=None, overwrite_input=False, keepdims=False)",
     R"(The median over `axis` (the mean of the two middle values for an even count).)"},
    {"jax.numpy.percentile", "percentile(a, q, axis=None, out=None, overwrite_input=False, method='linear', keepdims=False)",
     R"(The q-th percentiles over `axis`; `method` is linear, lower, higher,
nearest or midpoint.)"},
    // ---- complex numbers and FFTs ----
    {"jax.numpy.angle", "angle(z, deg=False)", R"(The argument of each complex element, atan2(imag, real), in radians (degrees when `deg`).)"},
    {"jax.numpy.real", "real(val, /)", R"(The real part of each element (a real array is returned as it is).)"},
    {"jax.numpy.imag", "imag(val, /)", R"(The imaginary part of each element (zeros for a real array).)"},
    {"jax.numpy.conj", "conj(x, /)", R"(The complex conjugate of each element (a real array is returned as it is).)"},
    {"jax.numpy.fft.fft", "fft(a, n=None, axis=-1, norm=None)",
     R"(The one-dimensional discrete Fourier transform of `a` along `axis`, complex64
(complex128 with jax_enable_x64). `n` crops or zero-pads that axis first; `norm`
is "backward" (the default: no scaling), "ortho" (1/sqrt(n)) or "forward" (1/n).

Under a mesh the result keeps `a`'s sharding; each device transforms whole
signals (a sharded transform axis is gathered first). Computed by FFTW.)"},
    {"jax.numpy.fft.ifft", "ifft(a, n=None, axis=-1, norm=None)",
     R"(The inverse of fft: divides by n by default ("backward").)"},
    {"jax.numpy.fft.rfft", "rfft(a, n=None, axis=-1, norm=None)",
     R"(The transform of a real input: the n // 2 + 1 non-negative frequencies.)"},
    {"jax.numpy.fft.irfft", "irfft(a, n=None, axis=-1, norm=None)",
     R"(The inverse of rfft: a real result of length n (2 * (m - 1) by default).)"},
    {"jax.numpy.fft.fftn", "fftn(a, s=None, axes=None, norm=None)",
     R"(The transform over several axes (all of them by default); `s` crops or pads each.)"},
};

#undef SHARD_REDUCTION_NOTE

}  // namespace

std::span<const ApiDoc> jnp_docs() { return kJnpDocs; }

}  // namespace shard::api
