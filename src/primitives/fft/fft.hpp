// lax.fft: the discrete Fourier transform over the trailing len(fft_lengths) dims, as JAX's
// fft_p (jax/_src/lax/fft.py): FFT and IFFT complex -> complex, RFFT real -> complex with the
// last dim n // 2 + 1, IRFFT the reverse. Defined here with its checks (JAX's messages), its
// sharding rule (the result keeps the operand's sharding, as JAX's abstract eval does; the
// partitioner keeps the transformed dims whole on each device), its JVP and transpose (JAX's
// rules) and its batching rule. Elsewhere it is named by its IR row (ir/ir.hpp), attributes
// (ir/attrs.hpp), kernel (exec/fft_kernels.cpp, FFTW) and the jnp.fft bindings
// (api/modules/fft_module.cpp).
#pragma once
#include <vector>

#include "ir/attrs.hpp"
#include "trace/trace.hpp"

namespace shard::trace {

// lax.fft(x, fft_type, fft_lengths): x is converted first (to complex, or for RFFT to a
// floating dtype), as lax.fft does; empty lengths return that conversion.
ValueId fft(Trace& t, ValueId x, ir::attr::FftType type, const std::vector<int64_t>& lengths);

}  // namespace shard::trace
