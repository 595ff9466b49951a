// qr: a = q r (LAPACK's geqrf and orgqr), q with orthonormal columns, r upper triangular;
// k = min(m, n): q m x m and r m x n (full_matrices) or q m x k and r k x n.
#include <fmt/format.h>

#include "autodiff/rules.hpp"
#include "batching/rules.hpp"
#include "primitives/linalg/linalg.hpp"
#include "trace/ops.hpp"

namespace shard::trace {

QrResult qr(Trace& t, ValueId x, bool full_matrices) {
  const auto xt = t.type(x);
  if (xt.rank() < 2)
    throw types::ShardingError("ValueError", fmt::format("Argument to QR decomposition must have ndims >= 2, got shape {}",
                                                         types::py_int_tuple(xt.shape())));
  const int64_t m = xt.shape()[xt.rank() - 2], n = xt.shape()[xt.rank() - 1], k = std::min(m, n);
  const int64_t qcols = full_matrices ? m : k;
  auto rt = sharding::propagate_linalg(t.ctx("qr"), {xt}, {{{m, qcols}, xt.dtype()}, {{qcols, n}, xt.dtype()}});
  auto r = t.emit_multi(ir::OpKind::Qr, {x}, rt, ir::attr::Qr{.full_matrices = full_matrices}, {});
  return {r.at(0), r.at(1)};
}

}  // namespace shard::trace

namespace shard::autodiff {

// JAX's rule for m >= n (and a square complete q): with C = q^T da r^-1 and
// o = tril(C, -1) - tril(C, -1)^T, dq = q (o - C) + da r^-1 and dr = (C - o) r.
JvpOut jvp_Qr(JvpArgs& a) {
  Trace& t = a.t;
  namespace la = trace::linalg;
  if (!a.dx[0]) return emit_primal(a);
  const auto xt = a.operand_type(0);
  const int64_t m = xt.shape()[xt.rank() - 2], n = xt.shape()[xt.rank() - 1];
  const bool full = a.op.attr<ir::attr::Qr>().full_matrices;
  if (m < n || (full && m != n)) throw types::ShardingError("NotImplementedError", "Unimplemented case of QR decomposition derivative");
  JvpOut out = emit_primal(a);
  const ValueId q = out.y[0], r = out.y[1];
  const ValueId dx_rinv = trace::triangular_solve(t, r, *a.dx[0], {.left_side = false, .lower = false});
  const ValueId c = la::matmul(t, la::mT(t, q), dx_rinv);
  const ValueId lower = la::tril(t, c, -1);
  const ValueId o = sub(t, lower, la::mT(t, lower));
  out.dy[0] = add(t, la::matmul(t, q, sub(t, o, c)), dx_rinv);
  out.dy[1] = la::matmul(t, sub(t, c, o), r);
  return out;
}

}  // namespace shard::autodiff

namespace shard::batching {

std::vector<Batched> batch_Qr(BatchArgs& a) {
  auto r = trace::qr(a.t, a.full(0), a.op.attr<ir::attr::Qr>().full_matrices);
  return all_batched({r.q, r.r});
}

}  // namespace shard::batching
