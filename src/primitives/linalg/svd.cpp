// svd: a = u diag(s) vt (LAPACK's gesdd), s descending, k = min(m, n); u and vt are m x m and
// n x n (full_matrices) or m x k and k x n, and only computed when compute_uv. Results: s,
// then u and vt.
#include <fmt/format.h>

#include "autodiff/rules.hpp"
#include "batching/rules.hpp"
#include "primitives/linalg/linalg.hpp"
#include "trace/ops.hpp"

namespace shard::trace {

SvdResult svd(Trace& t, ValueId x, bool full_matrices, bool compute_uv) {
  const auto xt = t.type(x);
  if (xt.rank() < 2)
    throw types::ShardingError("ValueError", fmt::format("Argument to singular value decomposition must have ndims >= 2, got shape {}",
                                                         types::py_int_tuple(xt.shape())));
  const int64_t m = xt.shape()[xt.rank() - 2], n = xt.shape()[xt.rank() - 1], k = std::min(m, n);
  std::vector<sharding::LinalgResult> results{{{k}, xt.dtype()}};
  if (compute_uv) {
    results.push_back({{m, full_matrices ? m : k}, xt.dtype()});
    results.push_back({{full_matrices ? n : k, n}, xt.dtype()});
  }
  auto rt = sharding::propagate_linalg(t.ctx("svd"), {xt}, results);
  auto r = t.emit_multi(ir::OpKind::Svd, {x}, rt, ir::attr::Svd{.full_matrices = full_matrices, .compute_uv = compute_uv}, {});
  if (!compute_uv) return {r.at(0)};
  return {r.at(0), r.at(1), r.at(2)};
}

}  // namespace shard::trace

namespace shard::autodiff {

// JAX's rule, on the reduced decomposition (full matrices: NotImplementedError, as JAX).
JvpOut jvp_Svd(JvpArgs& a) {
  Trace& t = a.t;
  namespace la = trace::linalg;
  const auto& p = a.op.attr<ir::attr::Svd>();
  if (!a.dx[0]) return emit_primal(a);
  if (p.compute_uv && p.full_matrices)
    throw types::ShardingError("NotImplementedError", "Singular value decomposition JVP not implemented for full matrices");
  const auto xt = a.operand_type(0);
  const int64_t m = xt.shape()[xt.rank() - 2], n = xt.shape()[xt.rank() - 1];
  auto d = trace::svd(t, a.x[0], false, true);
  const ValueId da = *a.dx[0];
  const ValueId ut = la::mT(t, d.u), v = la::mT(t, d.vt);
  const int64_t r = static_cast<int64_t>(t.type(d.s).rank());
  const ValueId s_row = trace::expand_dims(t, d.s, {r - 1});  // s[..., None, :]
  const ValueId s_col = la::mT(t, s_row);
  const ValueId ds_full = la::matmul(t, la::matmul(t, ut, da), v);
  JvpOut out;
  out.y.push_back(d.s);
  out.dy.push_back(la::diagonal(t, ds_full));
  if (!p.compute_uv) return out;
  const int64_t k = t.type(d.s).shape().back();
  const ValueId eye = la::eye_like(t, ds_full, k);
  auto op = [&](ir::EwOp e, const char* name, ValueId x, ValueId y) { return trace::binary(t, name, e, x, y); };
  const ValueId s_diffs = op(ir::EwOp::Mul, "mul", op(ir::EwOp::Add, "add", s_row, s_col), op(ir::EwOp::Sub, "sub", s_row, s_col));
  const ValueId f = sub(t, trace::integer_pow(t, add(t, s_diffs, eye), -1), eye);
  const ValueId dss = mul(t, s_row, ds_full);  // dS diag(s)
  const ValueId sds = mul(t, s_col, ds_full);  // diag(s) dS
  const ValueId zero_s = trace::convert(t, op(ir::EwOp::Eq, "eq", d.s, trace::scalar_constant(t, 0, {xt.dtype(), true})), {xt.dtype(), false});
  const ValueId s_inv = sub(t, trace::integer_pow(t, add(t, d.s, zero_s), -1), zero_s);
  const ValueId s_inv_mat = mul(t, eye, trace::expand_dims(t, s_inv, {r - 1}));
  const ValueId half = trace::scalar_constant(t, 0.5, {xt.dtype(), true});
  const ValueId dudv_diag = mul(t, mul(t, half, sub(t, ds_full, la::mT(t, ds_full))), s_inv_mat);
  ValueId du = la::matmul(t, d.u, add(t, mul(t, f, add(t, dss, la::mT(t, dss))), dudv_diag));
  ValueId dv = la::matmul(t, v, mul(t, f, add(t, sds, la::mT(t, sds))));
  if (m > n) {
    const ValueId dav = la::matmul(t, da, v);
    du = add(t, du, div(t, sub(t, dav, la::matmul(t, d.u, la::matmul(t, ut, dav))), s_row));
  }
  if (n > m) {
    const ValueId dahu = la::matmul(t, la::mT(t, da), d.u);
    dv = add(t, dv, div(t, sub(t, dahu, la::matmul(t, v, la::matmul(t, d.vt, dahu))), s_row));
  }
  out.y.push_back(d.u);
  out.y.push_back(d.vt);
  out.dy.push_back(du);
  out.dy.push_back(la::mT(t, dv));
  return out;
}

}  // namespace shard::autodiff

namespace shard::batching {

std::vector<Batched> batch_Svd(BatchArgs& a) {
  const auto& p = a.op.attr<ir::attr::Svd>();
  auto r = trace::svd(a.t, a.full(0), p.full_matrices, p.compute_uv);
  if (!p.compute_uv) return {batched(r.s)};
  return all_batched({r.s, r.u, r.vt});
}

}  // namespace shard::batching
