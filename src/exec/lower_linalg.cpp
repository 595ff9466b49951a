#include "exec/lower_linalg.hpp"

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

#include "exec/fft_kernels.hpp"
#include "exec/lapack_kernels.hpp"

namespace shard::exec {

using ir::OpKind;

std::function<void(const StepContext&, const std::vector<const void*>&, const std::vector<void*>&)> linalg_step_run(
    const ir::Function& fn, const ir::Op& op) {
  const auto& it = fn.type(op.operands.at(0));
  using In = const std::vector<const void*>;
  using Out = const std::vector<void*>;
  if (op.kind == OpKind::Fft) {
    // The operand's storage: real values, or complex ones lowered to their parts (a trailing
    // dim of 2, spmd/lower_complex.hpp); the batch is what precedes the transformed dims.
    const auto& a = op.attr<ir::attr::Fft>();
    int64_t elements = 1;
    for (auto d : it.shape()) elements *= d;
    int64_t signal = 1;
    for (size_t d = 0; d + 1 < a.fft_lengths.size(); ++d) signal *= a.fft_lengths[d];
    const int64_t n = a.fft_lengths.back();
    const bool complex_in = a.fft_type != ir::attr::FftType::Rfft;
    signal *= a.fft_type == ir::attr::FftType::Irfft ? n / 2 + 1 : n;
    if (complex_in) signal *= 2;
    const int64_t batch = signal == 0 ? 0 : elements / signal;
    const types::DType part = it.dtype();
    // an empty transform (a zero length) of a non-empty result: the sums of nothing, zeros
    // (rfft of length 0 has n // 2 + 1 = 1 output per row)
    const auto& rt = fn.type(op.results.at(0));
    const size_t out_bytes = signal == 0 ? static_cast<size_t>(rt.num_elements()) * types::dtype_size(rt.dtype()) : 0;
    return [=, type = a.fft_type, lengths = a.fft_lengths](const StepContext&, In& in, Out& out) {
      if (out_bytes) std::memset(out[0], 0, out_bytes);
      else fft_kernel(part, type, batch, lengths, in[0], out[0]);
    };
  }
  const size_t r = it.rank();
  const int64_t m = it.shape()[r - 2], n = it.shape()[r - 1];
  int64_t batch = 1;
  for (size_t d = 0; d + 2 < r; ++d) batch *= it.shape()[d];
  const types::DType dt = it.dtype();
  switch (op.kind) {
    case OpKind::Cholesky:
      return [=](const StepContext&, In& in, Out& out) { cholesky_kernel(dt, batch, n, in[0], out[0]); };
    case OpKind::Lu:
      return [=](const StepContext&, In& in, Out& out) {
        lu_kernel(dt, batch, m, n, in[0], out[0], static_cast<int32_t*>(out[1]), static_cast<int32_t*>(out[2]));
      };
    case OpKind::TriangularSolve: {
      const auto& a = op.attr<ir::attr::TriangularSolve>();
      const auto& bt = fn.type(op.operands.at(1));
      const int64_t bm = bt.shape()[bt.rank() - 2], bn = bt.shape()[bt.rank() - 1];
      TriangularSolveParams p{a.left_side, a.lower, a.transpose_a, a.unit_diagonal};
      return [=](const StepContext&, In& in, Out& out) { triangular_solve_kernel(dt, batch, bm, bn, p, in[0], in[1], out[0]); };
    }
    case OpKind::Eigh: {
      const bool lower = op.attr<ir::attr::Eigh>().lower;
      return [=](const StepContext&, In& in, Out& out) { eigh_kernel(dt, batch, n, lower, in[0], out[0], out[1]); };
    }
    case OpKind::Svd: {
      const auto& a = op.attr<ir::attr::Svd>();
      const bool full = a.full_matrices, uv = a.compute_uv;
      return [=](const StepContext&, In& in, Out& out) {
        svd_kernel(dt, batch, m, n, full, in[0], out[0], uv ? out[1] : nullptr, uv ? out[2] : nullptr);
      };
    }
    case OpKind::Qr: {
      const bool full = op.attr<ir::attr::Qr>().full_matrices;
      return [=](const StepContext&, In& in, Out& out) { qr_kernel(dt, batch, m, n, full, in[0], out[0], out[1]); };
    }
    default:
      throw std::logic_error(fmt::format("internal error: `{}` is not a linalg primitive", ir::op_display_name(op)));
  }
}

}  // namespace shard::exec
