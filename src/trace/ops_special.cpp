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
  // At m = 0 the value is 1 and, as JAX's custom JVP has it, d/dm = digamma(z) (d/dz = 0):
  // 1 + (m - stop_gradient(m)) digamma(z) is exactly 1 and carries that tangent.
  ValueId dm = bin(t, EwOp::Sub, mc, stop_gradient(t, mc));
  ValueId one = bin(t, EwOp::Add, cst(t, 1, zc), bin(t, EwOp::Mul, dm, un(t, EwOp::Digamma, zc)));
  return where(t, m_zero, one, ratio);
}

namespace {
// (2k)! / B_2k, k = 1..16 (B_2k the Bernoulli numbers).
double bernoulli_coef(int k) {
  static constexpr double kB[16][2] = {{1, 6},           {-1, 30},        {1, 42},           {-1, 30},
                                       {5, 66},          {-691, 2730},    {7, 6},            {-3617, 510},
                                       {43867, 798},     {-174611, 330},  {854513, 138},     {-236364091, 2730},
                                       {8553103, 6},     {-23749461029, 870}, {8615841276005, 14322}, {-7709321041217, 510}};
  double f = 1;
  for (int i = 2; i <= 2 * k; ++i) f *= i;
  return f / (kB[k - 1][0] / kB[k - 1][1]);
}
}  // namespace

ValueId zeta_dx(Trace& t, ValueId x, ValueId q) {
  auto [s, a] = promote_inexact(t, x, q);
  const DType d = t.type(s).dtype();
  const int n = d == DType::F64 ? 16 : 8, m = n;
  auto c = [&](double v) { return cst(t, v, s); };
  auto add = [&](ValueId u, ValueId v) { return bin(t, EwOp::Add, u, v); };
  auto sub = [&](ValueId u, ValueId v) { return bin(t, EwOp::Sub, u, v); };
  auto mul = [&](ValueId u, ValueId v) { return bin(t, EwOp::Mul, u, v); };
  auto div = [&](ValueId u, ValueId v) { return bin(t, EwOp::Div, u, v); };
  auto pow = [&](ValueId u, ValueId v) { return bin(t, EwOp::Pow, u, v); };
  auto log = [&](ValueId u) { return un(t, EwOp::Log, u); };
  ValueId neg_s = un(t, EwOp::Neg, s);
  // S = sum_k<N (a + k)^-s: dS/ds = -sum log(a + k) (a + k)^-s
  ValueId ds = c(0);
  for (int k = 0; k < n; ++k) {
    ValueId ak = add(a, c(k));
    ValueId term = mul(log(ak), pow(ak, neg_s));
    ds = sub(ds, term);
  }
  ValueId an = add(a, c(n));
  ValueId log_an = log(an);
  // I = (a + N)^(1 - s) / (s - 1)
  ValueId p1 = pow(an, sub(c(1), s));
  ValueId sm1 = sub(s, c(1));
  ValueId di = sub(un(t, EwOp::Neg, div(mul(log_an, p1), sm1)), div(p1, mul(sm1, sm1)));
  // T = (a + N)^-s (1/2 + sum_j T1_j / c_j), T1_j = prod_{i <= 2j} (s + i) / (a + N)
  ValueId t0 = pow(an, neg_s);
  ValueId prod = c(1), dlog = c(0), sum_t = c(0.5), dsum_t = c(0);
  for (int i = 0; i < 2 * m; ++i) {
    ValueId si = add(s, c(i));
    prod = mul(prod, div(si, an));
    dlog = add(dlog, un(t, EwOp::Reciprocal, si));
    if (i % 2 == 0) {
      ValueId coef = c(bernoulli_coef(i / 2 + 1));
      sum_t = add(sum_t, div(prod, coef));
      dsum_t = add(dsum_t, div(mul(prod, dlog), coef));
    }
  }
  ValueId dt0 = un(t, EwOp::Neg, mul(log_an, t0));
  ValueId dt = add(mul(dt0, sum_t), mul(t0, dsum_t));
  return add(add(ds, di), dt);
}

ValueId boxcox(Trace& t, ValueId x, ValueId lmbda) {
  auto [xc, lc] = promote_inexact(t, x, lmbda);
  ValueId zero = bin(t, EwOp::Eq, lc, cst(t, 0, lc));
  ValueId safe = where(t, zero, cst(t, 1, lc), lc);
  ValueId log_x = un(t, EwOp::Log, xc);
  ValueId power = bin(t, EwOp::Div, un(t, EwOp::Expm1, bin(t, EwOp::Mul, safe, log_x)), safe);
  return where(t, zero, log_x, power);
}

ValueId boxcox1p(Trace& t, ValueId x, ValueId lmbda) {
  auto [xc, lc] = promote_inexact(t, x, lmbda);
  ValueId zero = bin(t, EwOp::Eq, lc, cst(t, 0, lc));
  ValueId safe = where(t, zero, cst(t, 1, lc), lc);
  ValueId log1p_x = un(t, EwOp::Log1p, xc);
  ValueId power = bin(t, EwOp::Div, un(t, EwOp::Expm1, bin(t, EwOp::Mul, safe, log1p_x)), safe);
  return where(t, zero, log1p_x, power);
}

ValueId comb(Trace& t, ValueId n, ValueId k, bool repetition) {
  auto [nc, kc] = promote_inexact(t, n, k);
  if (repetition) {
    ValueId k_zero = bin(t, EwOp::Eq, kc, cst(t, 0, kc));
    ValueId n_nonneg = bin(t, EwOp::Ge, nc, cst(t, 0, nc));
    ValueId cond = bin(t, EwOp::And, k_zero, n_nonneg);
    ValueId nk = bin(t, EwOp::Sub, bin(t, EwOp::Add, nc, kc), cst(t, 1, nc));
    ValueId r = comb(t, nk, kc, false);
    return where(t, cond, cst(t, 1, r), r);
  }
  ValueId k_le_n = bin(t, EwOp::Le, kc, nc);
  ValueId n_nonneg = bin(t, EwOp::Ge, nc, cst(t, 0, nc));
  ValueId k_nonneg = bin(t, EwOp::Ge, kc, cst(t, 0, kc));
  ValueId cond = bin(t, EwOp::And, bin(t, EwOp::And, k_le_n, n_nonneg), k_nonneg);
  ValueId safe_n = where(t, cond, nc, cst(t, 0, nc));
  ValueId safe_k = where(t, cond, kc, cst(t, 0, kc));
  ValueId one = cst(t, 1, nc);
  ValueId ln = un(t, EwOp::Lgamma, bin(t, EwOp::Add, safe_n, one));
  ValueId lk = un(t, EwOp::Lgamma, bin(t, EwOp::Add, safe_k, one));
  ValueId lnk = un(t, EwOp::Lgamma, bin(t, EwOp::Sub, bin(t, EwOp::Add, safe_n, one), safe_k));
  ValueId r = un(t, EwOp::Exp, bin(t, EwOp::Sub, bin(t, EwOp::Sub, ln, lk), lnk));
  return where(t, cond, r, cst(t, 0, r));
}

ValueId loggamma(Trace& t, ValueId x) {
  x = to_float(t, x);
  ValueId r = un(t, EwOp::Lgamma, x);
  ValueId pos = bin(t, EwOp::Gt, x, cst(t, 0, x));
  return where(t, pos, r, cst(t, NAN, x));
}

ValueId spence(Trace& t, ValueId x) {
  auto c = [&](double v) { return cst(t, v, x); };
  const double pi2_6 = M_PI * M_PI / 6;
  ValueId inv = bin(t, EwOp::Gt, x, c(2));
  ValueId safe = where(t, bin(t, EwOp::Eq, x, c(0)), c(1), x);  // 1/x is never taken at 0
  ValueId xr = where(t, inv, bin(t, EwOp::Div, c(1), safe), x);
  ValueId big = bin(t, EwOp::Gt, xr, c(1.5));
  ValueId small = bin(t, EwOp::Lt, xr, c(0.5));
  ValueId flag2 = bin(t, EwOp::Or, inv, big);
  ValueId safe_r = where(t, bin(t, EwOp::Eq, xr, c(0)), c(1), xr);
  ValueId z_big = bin(t, EwOp::Sub, c(1), bin(t, EwOp::Div, c(1), safe_r));
  ValueId z_mid = bin(t, EwOp::Sub, c(1), xr);
  ValueId z = where(t, big, z_big, where(t, small, xr, z_mid));
  // Li2(z) = z (1 + z (1/4 + z (1/9 + ...))), |z| <= 1/2
  const int terms = t.type(x).dtype() == DType::F64 ? 60 : 30;
  ValueId acc = c(1.0 / (static_cast<double>(terms) * terms));
  for (int k = terms - 1; k >= 1; --k) acc = bin(t, EwOp::Add, c(1.0 / (static_cast<double>(k) * k)), bin(t, EwOp::Mul, z, acc));
  ValueId y = bin(t, EwOp::Mul, z, acc);
  ValueId log_x = un(t, EwOp::Log, xr);
  ValueId reflect = bin(t, EwOp::Sub, bin(t, EwOp::Sub, c(pi2_6), bin(t, EwOp::Mul, log_x, un(t, EwOp::Log1p, un(t, EwOp::Neg, xr)))), y);
  ValueId y1 = where(t, small, reflect, y);
  ValueId inverted = bin(t, EwOp::Sub, bin(t, EwOp::Mul, c(-0.5), bin(t, EwOp::Mul, log_x, log_x)), y1);
  ValueId r = where(t, flag2, inverted, y1);
  r = where(t, bin(t, EwOp::Eq, x, c(0)), c(pi2_6), r);
  r = where(t, bin(t, EwOp::Eq, x, c(1)), c(0), r);
  return where(t, bin(t, EwOp::Lt, x, c(0)), c(NAN), r);
}

SiCi sici(Trace& t, ValueId x0) {
  ValueId x = to_float(t, x0);
  const DType orig = t.type(x).dtype();
  if (orig != DType::F64) x = convert(t, x, {DType::F64, false});  // computed in float64, rounded once
  auto c = [&](double v) { return cst(t, v, x); };
  auto add = [&](ValueId u, ValueId v) { return bin(t, EwOp::Add, u, v); };
  auto sub = [&](ValueId u, ValueId v) { return bin(t, EwOp::Sub, u, v); };
  auto mul = [&](ValueId u, ValueId v) { return bin(t, EwOp::Mul, u, v); };
  auto div = [&](ValueId u, ValueId v) { return bin(t, EwOp::Div, u, v); };
  const bool f64 = t.type(x).dtype() == DType::F64;
  ValueId ax = un(t, EwOp::Abs, x);
  // series: Si = sum (-1)^k x^(2k+1) / ((2k+1) (2k+1)!), Ci = gamma + log x + sum_k>=1 (-1)^k x^2k / (2k (2k)!)
  const int terms = f64 ? 24 : 14;
  ValueId x2 = mul(ax, ax);
  ValueId si_s = c(0), ci_s = c(0);
  for (int k = terms; k >= 0; --k) {  // Horner in x^2 with the coefficients of each series
    double fs = 1, fc = 1;
    for (int i = 1; i <= 2 * k + 1; ++i) fs *= i;
    for (int i = 1; i <= 2 * k; ++i) fc *= i;
    const double sgn = k % 2 ? -1 : 1;
    si_s = add(mul(si_s, x2), c(sgn / ((2 * k + 1) * fs)));
    if (k >= 1) ci_s = add(mul(ci_s, x2), c(sgn / (2 * k * fc)));
  }
  si_s = mul(si_s, ax);
  ci_s = mul(ci_s, x2);  // the sum starts at k = 1
  ValueId ci_series = add(add(c(0.577215664901532860606512090082402431), un(t, EwOp::Log, ax)), ci_s);
  // E1(i x) = e^-ix / f, f = z + 1 - 1/(z + 3 - 4/(z + 5 - ...)), z = i x, backwards from 60 terms
  const int n = 60;
  ValueId safe = where(t, bin(t, EwOp::Gt, ax, c(4)), ax, c(4));  // the fraction only where it is used
  ValueId fr = c(2.0 * n + 1), fi = safe;
  for (int i = n; i >= 1; --i) {
    ValueId d = add(mul(fr, fr), mul(fi, fi));
    ValueId q = div(c(static_cast<double>(i) * i), d);
    ValueId nr = sub(c(2.0 * i - 1), mul(q, fr));
    ValueId ni = add(safe, mul(q, fi));
    fr = nr;
    fi = ni;
  }
  ValueId d = add(mul(fr, fr), mul(fi, fi));
  ValueId cs = un(t, EwOp::Cos, safe), sn = un(t, EwOp::Sin, safe);
  ValueId e1r = div(sub(mul(cs, fr), mul(sn, fi)), d);
  ValueId e1i = un(t, EwOp::Neg, div(add(mul(cs, fi), mul(sn, fr)), d));
  ValueId si_cf = add(e1i, c(M_PI / 2)), ci_cf = un(t, EwOp::Neg, e1r);
  ValueId near = bin(t, EwOp::Le, ax, c(4));
  ValueId si = where(t, near, si_s, si_cf), ci = where(t, near, ci_series, ci_cf);
  // |x| = inf: Si = pi/2, Ci = 0 (the fraction's cos / sin of inf are NaN)
  ValueId inf = bin(t, EwOp::Eq, ax, c(INFINITY));
  si = where(t, inf, c(M_PI / 2), si);
  ci = where(t, inf, c(0), ci);
  si = mul(un(t, EwOp::Sign, x), si);
  ci = where(t, bin(t, EwOp::Eq, x, c(-INFINITY)), c(NAN), ci);
  if (orig != DType::F64) {
    si = convert(t, si, {orig, false});
    ci = convert(t, ci, {orig, false});
  }
  return {si, ci};
}

Fresnel fresnel(Trace& t, ValueId x0) {
  ValueId x = to_float(t, x0);
  const DType orig = t.type(x).dtype();
  if (orig != DType::F64) x = convert(t, x, {DType::F64, false});  // computed in float64, rounded once
  auto c = [&](double v) { return cst(t, v, x); };
  auto add = [&](ValueId u, ValueId v) { return bin(t, EwOp::Add, u, v); };
  auto sub = [&](ValueId u, ValueId v) { return bin(t, EwOp::Sub, u, v); };
  auto mul = [&](ValueId u, ValueId v) { return bin(t, EwOp::Mul, u, v); };
  auto div = [&](ValueId u, ValueId v) { return bin(t, EwOp::Div, u, v); };
  const bool f64 = t.type(x).dtype() == DType::F64;
  ValueId ax = un(t, EwOp::Abs, x);
  // series: S = sum (-1)^k (pi/2)^(2k+1) x^(4k+3) / ((2k+1)! (4k+3)), C = sum (-1)^k (pi/2)^2k x^(4k+1) / ((2k)! (4k+1))
  const int terms = f64 ? 18 : 10;
  ValueId x4 = mul(mul(ax, ax), mul(ax, ax));
  ValueId s_s = c(0), c_s = c(0);
  for (int k = terms; k >= 0; --k) {
    double fs = 1, fc = 1;
    for (int i = 1; i <= 2 * k + 1; ++i) fs *= i;
    for (int i = 1; i <= 2 * k; ++i) fc *= i;
    const double sgn = k % 2 ? -1 : 1;
    s_s = add(mul(s_s, x4), c(sgn * std::pow(M_PI / 2, 2 * k + 1) / (fs * (4 * k + 3))));
    c_s = add(mul(c_s, x4), c(sgn * std::pow(M_PI / 2, 2 * k) / (fc * (4 * k + 1))));
  }
  s_s = mul(s_s, mul(mul(ax, ax), ax));
  c_s = mul(c_s, ax);
  // the fraction h = 1/(b0 + a1/(b1 + ...)), b_k = 1 + 4k - i pi x^2, a_k = -(2k - 1) 2k
  const int n = 60;
  ValueId safe = where(t, bin(t, EwOp::Ge, ax, c(1.5)), where(t, bin(t, EwOp::Gt, ax, c(36974)), c(1.5), ax), c(1.5));
  ValueId pix2 = mul(c(M_PI), mul(safe, safe));
  ValueId fr = c(1.0 + 4.0 * n), fi = un(t, EwOp::Neg, pix2);
  for (int k = n; k >= 1; --k) {
    ValueId d = add(mul(fr, fr), mul(fi, fi));
    ValueId q = div(c(-(2.0 * k - 1) * (2.0 * k)), d);  // a_k / f = a_k conj(f) / |f|^2
    fr = add(c(1.0 + 4.0 * (k - 1)), mul(q, fr));
    fi = sub(un(t, EwOp::Neg, pix2), mul(q, fi));
  }
  ValueId d = add(mul(fr, fr), mul(fi, fi));
  ValueId hr = div(fr, d), hi = un(t, EwOp::Neg, div(fi, d));  // h = 1 / f
  // h <- (x - i x) h; e = exp(i pi x^2 / 2); cs = (1/2 + i/2) (1 - e h)
  ValueId h2r = mul(safe, add(hr, hi)), h2i = mul(safe, sub(hi, hr));
  ValueId half = mul(c(0.5), pix2);
  ValueId er = un(t, EwOp::Cos, half), ei = un(t, EwOp::Sin, half);
  ValueId ehr = sub(mul(er, h2r), mul(ei, h2i)), ehi = add(mul(er, h2i), mul(ei, h2r));
  ValueId wr = sub(c(1), ehr), wi = un(t, EwOp::Neg, ehi);
  ValueId c_cf = mul(c(0.5), sub(wr, wi)), s_cf = mul(c(0.5), add(wr, wi));
  ValueId near = bin(t, EwOp::Lt, ax, c(1.5));
  ValueId far = bin(t, EwOp::Gt, ax, c(36974));
  ValueId sv = where(t, far, c(0.5), where(t, near, s_s, s_cf));
  ValueId cv = where(t, far, c(0.5), where(t, near, c_s, c_cf));
  ValueId sign = un(t, EwOp::Sign, x);
  sv = mul(sign, sv);
  cv = mul(sign, cv);
  if (orig != DType::F64) {
    sv = convert(t, sv, {orig, false});
    cv = convert(t, cv, {orig, false});
  }
  return {sv, cv};
}

ValueId dawsn(Trace& t, ValueId x0) {
  ValueId x = to_float(t, x0);
  const DType orig = t.type(x).dtype();
  // float32 and the 16-bit floats are computed in float64 and rounded once: the series adds up
  // to ~90 terms, whose roundings in float32 would reach 15 ulp
  if (orig != DType::F64) x = convert(t, x, {DType::F64, false});
  auto c = [&](double v) { return cst(t, v, x); };
  auto add = [&](ValueId u, ValueId v) { return bin(t, EwOp::Add, u, v); };
  auto sub = [&](ValueId u, ValueId v) { return bin(t, EwOp::Sub, u, v); };
  auto mul = [&](ValueId u, ValueId v) { return bin(t, EwOp::Mul, u, v); };
  auto div = [&](ValueId u, ValueId v) { return bin(t, EwOp::Div, u, v); };
  const bool f64 = t.type(x).dtype() == DType::F64;
  ValueId ax = un(t, EwOp::Abs, x);
  const double cut = 6;
  ValueId xs = where(t, bin(t, EwOp::Lt, ax, c(cut)), ax, c(0));  // the series' argument (0 where unused)
  ValueId y = mul(xs, xs);
  // sum_n y^n / (n! (2n+1)) by its terms t_n = y^n / n!
  const int terms = f64 ? 120 : 90;
  ValueId term = c(1), sum = c(1);
  for (int k = 1; k <= terms; ++k) {
    term = mul(term, div(y, c(k)));
    sum = add(sum, div(term, c(2.0 * k + 1)));
  }
  // e^-x^2 with x^2 = hi + lo exactly (Dekker's split of x)
  const double split = f64 ? 134217729.0 : 4097.0;  // 2^27 + 1, 2^12 + 1
  ValueId cx = mul(c(split), xs);
  ValueId xh = sub(cx, sub(cx, xs));
  ValueId xl = sub(xs, xh);
  ValueId hi = mul(xs, xs);
  ValueId lo = add(add(sub(mul(xh, xh), hi), mul(c(2), mul(xh, xl))), mul(xl, xl));
  ValueId e = mul(un(t, EwOp::Exp, un(t, EwOp::Neg, hi)), sub(c(1), lo));
  ValueId series = mul(mul(xs, sum), e);
  // the fraction, backwards
  ValueId xf = where(t, bin(t, EwOp::Lt, ax, c(cut)), c(cut), ax);
  ValueId k = xf;
  for (int j = f64 ? 80 : 40; j >= 1; --j) k = sub(xf, div(c(j / 2.0), k));
  ValueId frac = div(c(0.5), k);
  ValueId r = where(t, bin(t, EwOp::Lt, ax, c(cut)), series, frac);
  r = where(t, bin(t, EwOp::Eq, ax, c(INFINITY)), c(0), r);
  r = mul(un(t, EwOp::Sign, x), r);
  if (orig != DType::F64) r = convert(t, r, {orig, false});
  return r;
}

ValueId bessel_jn(Trace& t, ValueId z, int64_t v, int64_t n_iter) {
  z = to_float(t, z);
  auto c = [&](double x) { return cst(t, x, z); };
  ValueId f0 = c(0), f1 = c(1e-16), bs = c(0);
  std::vector<ValueId> vals(static_cast<size_t>(n_iter + 1));
  for (int64_t k = n_iter; k >= 0; --k) {  // the scan over iota(n_iter + 1), reversed
    ValueId two_k1 = c(2.0 * (static_cast<double>(k) + 1.0));
    ValueId f = bin(t, EwOp::Sub, bin(t, EwOp::Div, bin(t, EwOp::Mul, two_k1, f1), z), f0);
    if (k % 2 == 0) bs = bin(t, EwOp::Add, bs, bin(t, EwOp::Mul, c(2), f));
    f0 = f1;
    f1 = f;
    vals[static_cast<size_t>(k)] = f;
  }
  ValueId norm = bin(t, EwOp::Sub, bs, vals[0]);
  std::vector<ValueId> out;
  for (int64_t k = 0; k <= v && k <= n_iter; ++k) out.push_back(expand_dims(t, bin(t, EwOp::Div, vals[static_cast<size_t>(k)], norm), {0}));
  return out.size() == 1 ? out[0] : concatenate(t, out, 0);
}

SignedLogSumExp logsumexp_signed(Trace& t, ValueId a, std::vector<int64_t> axes, bool keepdims, std::optional<ValueId> b,
                                 std::optional<ValueId> where_mask) {
  std::optional<ValueId> mask;
  if (where_mask) mask = convert(t, *where_mask, {DType::Bool, false});
  if (mask) a = where(t, *mask, a, scalar_constant(t, 0, {t.type(a).dtype(), true}));
  if (b) {
    auto [ac, bc] = promote_inexact(t, a, *b);
    ValueId nonzero = bin(t, EwOp::Ne, bc, cst(t, 0, bc));
    a = where(t, nonzero, ac, cst(t, -INFINITY, ac));
    b = bc;
    const Shape shape = broadcast_shapes("logsumexp", {t.type(a).shape(), t.type(bc).shape()});
    a = broadcast_to(t, a, shape);
  } else {
    a = to_float(t, a);
  }
  if (mask) {
    const Shape shape = broadcast_shapes("logsumexp", {t.type(a).shape(), t.type(*mask).shape()});
    a = broadcast_to(t, a, shape);
    mask = broadcast_to(t, *mask, shape);
  }
  const size_t rank = t.type(a).rank();
  if (axes.empty())
    for (size_t d = 0; d < rank; ++d) axes.push_back(static_cast<int64_t>(d));
  for (auto& ax : axes) ax = normalize_axis("logsumexp", ax, rank);
  ValueId neg_inf = cst(t, -INFINITY, a);
  ValueId for_max = mask ? where(t, *mask, a, neg_inf) : a;
  bool empty = false;
  for (auto ax : axes) empty = empty || t.type(a).shape()[static_cast<size_t>(ax)] == 0;
  ValueId amax;
  if (empty) {  // max with initial=-inf over nothing
    Shape s = t.type(a).shape();
    for (auto ax : axes) s[static_cast<size_t>(ax)] = 1;
    amax = full(t, s, -INFINITY, dtw(t, a), std::nullopt);
  } else {
    amax = reduce(t, "logsumexp", ir::ReduceKind::Max, for_max, axes, true);
  }
  ValueId finite = un(t, EwOp::IsFinite, amax);
  amax = stop_gradient(t, where(t, finite, amax, cst(t, 0, amax)));
  ValueId e = un(t, EwOp::Exp, bin(t, EwOp::Sub, a, amax));
  if (b) e = bin(t, EwOp::Mul, e, *b);
  if (mask) e = where(t, *mask, e, cst(t, 0, e));
  ValueId sum = reduce(t, "logsumexp", ir::ReduceKind::Sum, e, axes, true);
  ValueId sign = un(t, EwOp::Sign, sum);
  ValueId out = bin(t, EwOp::Add, un(t, EwOp::Log, un(t, EwOp::Abs, sum)), amax);
  if (!keepdims) {
    out = squeeze(t, out, axes);
    sign = squeeze(t, sign, axes);
  }
  return {out, sign};
}

}  // namespace shard::trace
