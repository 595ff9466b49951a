// lu: P a = L U with partial pivoting, as LAPACK's getrf. Results: `lu` (L's strict lower
// triangle, U on and above the diagonal), the row swaps `pivots` (int32, min(m, n)) and the
// same swaps as a `permutation` of the rows (int32, m). The integer results carry no tangent.
#include <fmt/format.h>

#include "autodiff/rules.hpp"
#include "batching/rules.hpp"
#include "primitives/linalg/linalg.hpp"
#include "trace/ops.hpp"

namespace shard::trace {

LuResult lu(Trace& t, ValueId x) {
  const auto xt = t.type(x);
  if (xt.rank() < 2) throw types::ShardingError("ValueError", "Argument to LU decomposition must have ndims >= 2");
  const int64_t m = xt.shape()[xt.rank() - 2], n = xt.shape()[xt.rank() - 1];
  auto rt = sharding::propagate_linalg(t.ctx("lu"), {xt}, {{{m, n}, xt.dtype()}, {{std::min(m, n)}, DType::I32}, {{m}, DType::I32}});
  auto r = t.emit_multi(ir::OpKind::Lu, {x}, rt, ir::attr::Lu{}, {});
  return {r.at(0), r.at(1), r.at(2)};
}

}  // namespace shard::trace

namespace shard::autodiff {

using types::DType;

namespace {
// x's last two dims sliced to [0, rows) x [0, cols).
ValueId leading_block(Trace& t, ValueId x, int64_t rows, int64_t cols) {
  const auto xt = t.type(x);
  const size_t r = xt.rank();
  types::Shape start(r, 0), limit = xt.shape(), strides(r, 1);
  limit[r - 2] = rows;
  limit[r - 1] = cols;
  return trace::slice(t, x, start, limit, strides);
}
// x padded with zeros after its last two dims to rows x cols.
ValueId pad_to(Trace& t, ValueId x, int64_t rows, int64_t cols) {
  const auto xt = t.type(x);
  const size_t r = xt.rank();
  types::Shape low(r, 0), high(r, 0);
  high[r - 2] = rows - xt.shape()[r - 2];
  high[r - 1] = cols - xt.shape()[r - 1];
  return trace::pad(t, x, trace::scalar_constant(t, 0, {xt.dtype(), true}), low, high);
}
// Ones on the diagonal of an n x n matrix from index k on (U's completion past min(m, n)).
ValueId trailing_eye(Trace& t, DType dtype, int64_t n, int64_t k) {
  types::Shape s{n, n};
  ValueId rows = trace::iota(t, DType::I32, s, 0, std::nullopt), cols = trace::iota(t, DType::I32, s, 1, std::nullopt);
  ValueId on = trace::binary(t, "eq", ir::EwOp::Eq, rows, cols);
  ValueId past = trace::binary(t, "ge", ir::EwOp::Ge, rows, trace::scalar_constant(t, static_cast<double>(k), {DType::I32, true}));
  return trace::convert(t, trace::binary(t, "and", ir::EwOp::And, on, past), {dtype, false});
}
}  // namespace

// JAX's rule (after "Differentiation of Matrix Functionals Using Triangular Factorization"):
// with L (m x m, unit lower) and U (n x n, upper) completed from lu and X = P da,
// M = L^-1 X U^-1 and d lu = L tril(M, -1) + triu(M) U.
JvpOut jvp_Lu(JvpArgs& a) {
  Trace& t = a.t;
  JvpOut out = emit_primal(a);
  if (!a.dx[0]) return out;
  const auto xt = a.operand_type(0);
  const int64_t m = xt.shape()[xt.rank() - 2], n = xt.shape()[xt.rank() - 1], k = std::min(m, n);
  const ValueId lu = out.y[0], permutation = out.y[2];
  ValueId x = trace::linalg::permute_rows(t, *a.dx[0], permutation);
  ValueId l = pad_to(t, trace::linalg::tril(t, leading_block(t, lu, m, k), -1), m, m);
  l = add(t, l, trace::linalg::eye_like(t, l, m));
  ValueId u = pad_to(t, trace::linalg::triu(t, leading_block(t, lu, k, n)), n, n);
  if (n > k) u = add(t, u, trailing_eye(t, xt.dtype(), n, k));
  ValueId la = trace::triangular_solve(t, l, x, {.left_side = true, .lower = true, .unit_diagonal = true});
  ValueId lau = trace::triangular_solve(t, u, la, {.left_side = false, .lower = false});
  ValueId l_dot = trace::linalg::matmul(t, l, trace::linalg::tril(t, lau, -1));
  ValueId u_dot = trace::linalg::matmul(t, trace::linalg::triu(t, lau), u);
  out.dy[0] = add(t, l_dot, u_dot);
  return out;
}

}  // namespace shard::autodiff

namespace shard::batching {

std::vector<Batched> batch_Lu(BatchArgs& a) {
  auto r = trace::lu(a.t, a.full(0));
  return all_batched({r.lu, r.pivots, r.permutation});
}

}  // namespace shard::batching
