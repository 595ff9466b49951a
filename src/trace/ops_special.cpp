#include "trace/ops_special.hpp"

#include <cmath>

namespace shard::trace {

using ir::EwOp;
using ir::OpKind;

namespace {
DTypeW dtw(const ArrayType& x) { return {x.dtype(), x.weak_type()}; }
DTypeW dtw(Trace& t, ValueId x) { return dtw(t.type(x)); }
ValueId un(Trace& t, EwOp op, ValueId x) { return unary(t, ir::ew_info(op).primitive, op, x); }
ValueId bin(Trace& t, EwOp op, ValueId a, ValueId b) { return binary(t, ir::ew_info(op).primitive, op, a, b); }
ValueId to_float(Trace& t, ValueId x) { return convert(t, x, to_inexact(dtw(t, x))); }
// A scalar of x's dtype, strong (JAX's _lax_const / numpy scalars of x's dtype).
ValueId cst(Trace& t, double v, ValueId like) { return scalar_constant(t, v, {t.type(like).dtype(), false}); }
std::pair<ValueId, ValueId> promote_inexact(Trace& t, ValueId a, ValueId b) {
  const DTypeW p = to_inexact(promote(dtw(t, a), dtw(t, b)));
  ValueId ac = convert(t, a, p);
  ValueId bc = convert(t, b, p);
  return {ac, bc};
}
}  // namespace

ValueId betainc(Trace& t, ValueId a, ValueId b, ValueId x) {
  const char* name = "regularized_incomplete_beta";
  const auto at = t.type(a), bt = t.type(b), xt = t.type(x);
  reject_non_float_operands(name, {at.dtype(), bt.dtype(), xt.dtype()});
  const DTypeW p = promote(promote(dtw(at), dtw(bt)), dtw(xt));
  auto rt = sharding::propagate_elementwise(t.ctx(name), {at, bt, xt}, p.dtype).with_weak_type(p.weak);
  ValueId ac = broadcast_to(t, convert(t, a, p), rt.shape());
  ValueId bc = broadcast_to(t, convert(t, b, p), rt.shape());
  ValueId xc = broadcast_to(t, convert(t, x, p), rt.shape());
  return t.emit(OpKind::Elementwise, {ac, bc, xc}, rt, ir::attr::Elementwise{EwOp::RegularizedIncompleteBeta});
}

ValueId special_binary(Trace& t, EwOp op, ValueId a, ValueId b) {
  auto [ac, bc] = promote_inexact(t, a, b);
  return bin(t, op, ac, bc);
}

ValueId special_unary(Trace& t, EwOp op, ValueId x) { return un(t, op, to_float(t, x)); }

ValueId bessel_i0(Trace& t, ValueId x) {
  x = to_float(t, x);
  ValueId scale = un(t, EwOp::Exp, un(t, EwOp::Abs, x));
  return bin(t, EwOp::Mul, scale, un(t, EwOp::BesselI0e, x));
}

ValueId bessel_i1(Trace& t, ValueId x) {
  x = to_float(t, x);
  ValueId scale = un(t, EwOp::Exp, un(t, EwOp::Abs, x));
  return bin(t, EwOp::Mul, scale, un(t, EwOp::BesselI1e, x));
}

ValueId rel_entr(Trace& t, ValueId p, ValueId q) {
  auto [pc, qc] = promote_inexact(t, p, q);
  p = pc;
  q = qc;
  ValueId zero = cst(t, 0, p);
  ValueId p_pos = bin(t, EwOp::Gt, p, zero);
  ValueId q_pos = bin(t, EwOp::Gt, q, zero);
  ValueId both = bin(t, EwOp::And, p_pos, q_pos);
  ValueId p_zero = bin(t, EwOp::Eq, p, zero);
  ValueId q_nonneg = bin(t, EwOp::Ge, q, zero);
  ValueId one_zero = bin(t, EwOp::And, p_zero, q_nonneg);
  ValueId safe_p = where(t, both, p, cst(t, 1, p));
  ValueId safe_q = where(t, both, q, cst(t, 1, q));
  ValueId xlogx = xlogy(t, safe_p, safe_p);
  ValueId log_val = bin(t, EwOp::Sub, xlogx, xlogy(t, safe_p, safe_q));
  ValueId inner = where(t, one_zero, zero, cst(t, INFINITY, p));
  return where(t, both, log_val, inner);
}

ValueId kl_div(Trace& t, ValueId p, ValueId q) {
  auto [pc, qc] = promote_inexact(t, p, q);
  ValueId r = rel_entr(t, pc, qc);
  return bin(t, EwOp::Add, bin(t, EwOp::Sub, r, pc), qc);
}

ValueId poch(Trace& t, ValueId z, ValueId m) {
  auto [zc, mc] = promote_inexact(t, z, m);
  ValueId m_zero = bin(t, EwOp::Eq, mc, cst(t, 0, mc));
  ValueId num = gamma(t, bin(t, EwOp::Add, zc, mc));
  ValueId ratio = bin(t, EwOp::Div, num, gamma(t, zc));
  return where(t, m_zero, cst(t, 1, zc), ratio);
}

}  // namespace shard::trace
