// triangular_solve: x with op(a) x = b (left_side) or x op(a) = b, a triangular (the other
// triangle is not read), op(a) = a or a^T. Linear in b: its transpose solves with op(a)^T.
#include <fmt/format.h>

#include "autodiff/rules.hpp"
#include "batching/rules.hpp"
#include "primitives/linalg/linalg.hpp"

namespace shard::trace {

ValueId triangular_solve(Trace& t, ValueId a, ValueId b, const ir::attr::TriangularSolve& params) {
  const auto at = t.type(a), bt = t.type(b);
  auto shape_error = [&](const std::string& msg) { throw types::ShardingError("TypeError", msg); };
  if (at.rank() < 2) shape_error(fmt::format("triangular_solve requires a.ndim to be at least 2, got {}.", at.rank()));
  if (bt.rank() < 2) shape_error(fmt::format("triangular_solve requires b.ndim to be at least 2, got {}.", bt.rank()));
  const auto as = types::py_int_tuple(at.shape()), bs = types::py_int_tuple(bt.shape());
  if (at.shape()[at.rank() - 1] != at.shape()[at.rank() - 2])
    shape_error(fmt::format("triangular_solve requires the last two dimensions of a to be equal in size, got a.shape of {}.", as));
  if (linalg::batch_shape(at) != linalg::batch_shape(bt))
    shape_error(fmt::format("triangular_solve requires both arguments to have the same number of dimensions and equal batch "
                            "dimensions, got {} and {}.", as, bs));
  const size_t common = params.left_side ? bt.rank() - 2 : bt.rank() - 1;
  if (at.shape().back() != bt.shape()[common])
    shape_error(fmt::format("Incompatible shapes for arguments to triangular_solve: {} and {}.", as, bs));
  if (at.dtype() != bt.dtype())
    shape_error(fmt::format("triangular_solve requires arguments of one dtype, got {} and {}.", types::dtype_name(at.dtype()),
                            types::dtype_name(bt.dtype())));
  const types::Shape trailing{bt.shape()[bt.rank() - 2], bt.shape()[bt.rank() - 1]};
  auto rt = sharding::propagate_linalg(t.ctx("triangular_solve"), {at, bt}, {{trailing, bt.dtype()}});
  return t.emit(ir::OpKind::TriangularSolve, {a, b}, rt.at(0), params);
}

}  // namespace shard::trace

namespace shard::autodiff {

// d x = solve(a, d b) - solve(a, op(d a) x) (left side; the right side mirrors it), with d a
// restricted to the triangle the solve reads. The product with x goes on whichever side keeps
// the solve's right-hand side smaller, as JAX orders it.
JvpOut jvp_TriangularSolve(JvpArgs& a) {
  Trace& t = a.t;
  const auto& p = a.op.attr<ir::attr::TriangularSolve>();
  JvpOut out = emit_primal(a);
  const ValueId x = out.y[0];
  Tangent from_b, from_a;
  if (a.dx[1]) from_b = trace::triangular_solve(t, a.x[0], *a.dx[1], p);
  if (a.dx[0]) {
    const int64_t k = p.unit_diagonal ? 1 : 0;
    ValueId g = p.lower ? trace::linalg::tril(t, *a.dx[0], -k) : trace::linalg::triu(t, *a.dx[0], k);
    g = neg(t, g);
    if (p.transpose_a) g = trace::linalg::mT(t, g);
    const auto bt = a.operand_type(1);
    const int64_t m = bt.shape()[bt.rank() - 2], n = bt.shape()[bt.rank() - 1];
    auto a_inverse = [&](ValueId rhs) { return trace::triangular_solve(t, a.x[0], rhs, p); };
    if (p.left_side) from_a = m > n ? a_inverse(trace::linalg::matmul(t, g, x)) : trace::linalg::matmul(t, a_inverse(g), x);
    else from_a = m < n ? a_inverse(trace::linalg::matmul(t, x, g)) : trace::linalg::matmul(t, x, a_inverse(g));
  }
  out.dy[0] = add_tangents(t, from_b, from_a);
  return out;
}

std::vector<Tangent> transpose_TriangularSolve(TransposeArgs& a) {
  if (a.linear[0]) throw std::logic_error("internal error: triangular_solve's matrix in a linear program");
  auto p = a.op.attr<ir::attr::TriangularSolve>();
  p.transpose_a = !p.transpose_a;
  std::vector<Tangent> out(2);
  if (a.linear[1] && a.ct[0]) out[1] = trace::triangular_solve(a.t, a.x[0], *a.ct[0], p);
  return out;
}

}  // namespace shard::autodiff

namespace shard::batching {

std::vector<Batched> batch_TriangularSolve(BatchArgs& a) {
  const ValueId m = a.full(0), b = a.full(1);
  return {batched(trace::triangular_solve(a.t, m, b, a.op.attr<ir::attr::TriangularSolve>()))};
}

}  // namespace shard::batching
