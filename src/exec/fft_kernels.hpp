// The kernel of the `fft` primitive (primitives/fft/): FFTW on the trailing
// `lengths.size()` dims of `batch` arrays stored one after another. Complex data is
// interleaved (real part, imaginary part), as numpy and the complex lowering
// (spmd/lower_complex.hpp) store it; `part` is the dtype of one part (float32 or float64).
// Shapes: Fft / Ifft complex `lengths` -> complex `lengths`; Rfft real `lengths` -> complex
// `lengths` with the last dim n / 2 + 1; Irfft the reverse. Ifft and Irfft divide by the
// product of the lengths, as numpy's default norm="backward".
#pragma once
#include <cstdint>
#include <vector>

#include "ir/attrs.hpp"
#include "types/dtype.hpp"

namespace shard::exec {

void fft_kernel(types::DType part, ir::attr::FftType type, int64_t batch, const std::vector<int64_t>& lengths,
                const void* in, void* out);

}  // namespace shard::exec
