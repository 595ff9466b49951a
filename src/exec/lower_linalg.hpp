// The step of a linalg primitive (cholesky, lu, triangular_solve, eigh, svd, qr) or of fft in a
// per-device program: its LAPACK kernel (exec/lapack_kernels.hpp) or FFTW (exec/fft_kernels.hpp) over the device's block,
// whose matrix (or transformed) dims the partitioner keeps whole.
#pragma once
#include <functional>
#include <vector>

#include "exec/program.hpp"
#include "ir/ir.hpp"

namespace shard::exec {

std::function<void(const StepContext&, const std::vector<const void*>&, const std::vector<void*>&)> linalg_step_run(
    const ir::Function& fn, const ir::Op& op);

}  // namespace shard::exec
