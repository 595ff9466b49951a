// cholesky: the lower factor L of a symmetric positive-definite matrix, a = L L^T, reading
// the lower triangle (jnp.linalg.cholesky symmetrizes its input first). A matrix that is not
// positive definite gives NaNs, as in JAX.
#include "autodiff/rules.hpp"
#include "batching/rules.hpp"
#include "primitives/linalg/linalg.hpp"

namespace shard::trace {

ValueId cholesky(Trace& t, ValueId x) {
  const auto xt = t.type(x);
  linalg::require_square(xt, "The input to cholesky must be a square matrix. Got shape {}.");
  const int64_t n = xt.shape().back();
  auto rt = sharding::propagate_linalg(t.ctx("cholesky"), {xt}, {{{n, n}, xt.dtype()}});
  return t.emit(ir::OpKind::Cholesky, {x}, rt.at(0), ir::attr::Cholesky{});
}

}  // namespace shard::trace

namespace shard::autodiff {

// JAX's rule (Murray, arXiv:1602.07527): with sigma = the tangent of a,
// dL = L phi(L^-1 sigma L^-T), phi taking the lower triangle with a halved diagonal.
JvpOut jvp_Cholesky(JvpArgs& a) {
  Trace& t = a.t;
  JvpOut out = emit_primal(a);
  if (!a.dx[0]) return out;
  const ValueId l = out.y[0];
  ir::attr::TriangularSolve right{.left_side = false, .lower = true, .transpose_a = true};
  ir::attr::TriangularSolve left{.left_side = true, .lower = true};
  ValueId tmp = trace::triangular_solve(t, l, *a.dx[0], right);         // sigma L^-T
  ValueId inner = trace::triangular_solve(t, l, tmp, left);              // L^-1 sigma L^-T
  const int64_t n = a.operand_type(0).shape().back();
  ValueId one = trace::scalar_constant(t, 1, {a.operand_type(0).dtype(), true});
  ValueId eye = trace::linalg::eye_like(t, inner, n);
  ValueId halves = trace::binary(t, "add", ir::EwOp::Add, one, eye);
  ValueId phi = div(t, trace::linalg::tril(t, inner), halves);
  out.dy[0] = trace::linalg::matmul(t, l, phi);
  return out;
}

}  // namespace shard::autodiff

namespace shard::batching {

std::vector<Batched> batch_Cholesky(BatchArgs& a) { return {batched(trace::cholesky(a.t, a.full(0)))}; }

}  // namespace shard::batching
