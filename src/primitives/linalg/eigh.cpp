// eigh: the eigendecomposition of a symmetric matrix from one triangle (LAPACK's syevd):
// eigenvectors v (columns) and ascending eigenvalues w, a = v diag(w) v^T.
#include "autodiff/rules.hpp"
#include "batching/rules.hpp"
#include "primitives/linalg/linalg.hpp"
#include "trace/ops.hpp"

namespace shard::trace {

EighResult eigh(Trace& t, ValueId x, bool lower) {
  const auto xt = t.type(x);
  linalg::require_square(xt, "Argument to symmetric eigendecomposition must have shape [..., n, n], got shape {}");
  const int64_t n = xt.shape().back();
  auto rt = sharding::propagate_linalg(t.ctx("eigh"), {xt}, {{{n, n}, xt.dtype()}, {{n}, xt.dtype()}});
  auto r = t.emit_multi(ir::OpKind::Eigh, {x}, rt, ir::attr::Eigh{.lower = lower, .sort_eigenvalues = true}, {});
  return {r.at(0), r.at(1)};
}

}  // namespace shard::trace

namespace shard::autodiff {

// JAX's rule: with S = v^T da v, dw = diag(S) and dv = v (F * S), F[i, j] = 1 / (w[j] - w[i])
// off the diagonal and 0 on it (degenerate eigenvalues give infinities, as in JAX).
JvpOut jvp_Eigh(JvpArgs& a) {
  Trace& t = a.t;
  JvpOut out = emit_primal(a);
  if (!a.dx[0]) return out;
  const ValueId v = out.y[0], w = out.y[1];
  const auto wt = t.type(w);
  const int64_t n = wt.shape().back();
  const int64_t r = static_cast<int64_t>(wt.rank());
  ValueId eye = trace::linalg::eye_like(t, v, n);
  ValueId w_row = trace::expand_dims(t, w, {r - 1});  // w[..., None, :]
  ValueId w_col = trace::expand_dims(t, w, {r});      // w[..., :, None]
  ValueId gaps = trace::binary(t, "sub", ir::EwOp::Sub, trace::binary(t, "add", ir::EwOp::Add, eye, w_row), w_col);
  ValueId f = sub(t, trace::integer_pow(t, gaps, -1), eye);
  ValueId s = trace::linalg::matmul(t, trace::linalg::matmul(t, trace::linalg::mT(t, v), *a.dx[0]), v);
  out.dy[0] = trace::linalg::matmul(t, v, mul(t, f, s));
  out.dy[1] = trace::linalg::diagonal(t, s);
  return out;
}

}  // namespace shard::autodiff

namespace shard::batching {

std::vector<Batched> batch_Eigh(BatchArgs& a) {
  auto r = trace::eigh(a.t, a.full(0), a.op.attr<ir::attr::Eigh>().lower);
  return all_batched({r.v, r.w});
}

}  // namespace shard::batching
