// jax.random's counting samplers and the remaining transforms, with JAX's algorithms
// (jax/_src/random: _poisson with _poisson_knuth / _poisson_rejection, _binomial with
// _binomial_inversion / _btrs, multinomial, _geometric, _triangular, _wald,
// _double_sided_maxwell, _orthogonal, _multivariate_normal). The rejection samplers are
// while_loops over the whole array, as JAX writes them: every iteration draws one fresh
// array from the next key, and the loop runs until every element has accepted.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "primitives/linalg/linalg.hpp"
#include "trace/ops_random.hpp"
#include "types/x64_mode.hpp"

namespace shard::trace::random {

namespace {

ValueId c(Trace& t, double v, DType d) { return scalar_constant(t, v, {d, false}); }
ValueId add(Trace& t, ValueId a, ValueId b) { return binary(t, "add", EwOp::Add, a, b); }
ValueId sub(Trace& t, ValueId a, ValueId b) { return binary(t, "sub", EwOp::Sub, a, b); }
ValueId mul(Trace& t, ValueId a, ValueId b) { return binary(t, "mul", EwOp::Mul, a, b); }
ValueId div(Trace& t, ValueId a, ValueId b) { return binary(t, "div", EwOp::Div, a, b); }
ValueId gt(Trace& t, ValueId a, ValueId b) { return binary(t, "gt", EwOp::Gt, a, b); }
ValueId ge(Trace& t, ValueId a, ValueId b) { return binary(t, "ge", EwOp::Ge, a, b); }
ValueId lt(Trace& t, ValueId a, ValueId b) { return binary(t, "lt", EwOp::Lt, a, b); }
ValueId le(Trace& t, ValueId a, ValueId b) { return binary(t, "le", EwOp::Le, a, b); }
ValueId eq(Trace& t, ValueId a, ValueId b) { return binary(t, "eq", EwOp::Eq, a, b); }
ValueId band(Trace& t, ValueId a, ValueId b) { return binary(t, "and", EwOp::And, a, b); }
ValueId bor(Trace& t, ValueId a, ValueId b) { return binary(t, "or", EwOp::Or, a, b); }
ValueId bnot(Trace& t, ValueId a) { return unary(t, "not", EwOp::Not, a); }
ValueId neg(Trace& t, ValueId x) { return unary(t, "neg", EwOp::Neg, x); }
ValueId log_(Trace& t, ValueId x) { return unary(t, "log", EwOp::Log, x); }
ValueId sqrt_(Trace& t, ValueId x) { return unary(t, "sqrt", EwOp::Sqrt, x); }
ValueId floor_(Trace& t, ValueId x) { return unary(t, "floor", EwOp::Floor, x); }
ValueId abs_(Trace& t, ValueId x) { return unary(t, "abs", EwOp::Abs, x); }
ValueId isnan_(Trace& t, ValueId x) { return binary(t, "ne", EwOp::Ne, x, x); }
// A scalar is its own any (and a rank-0 reduce_or would batch as a reduction of the batch).
ValueId any_(Trace& t, ValueId pred) { return t.type(pred).rank() == 0 ? pred : reduce(t, "reduce_or", ReduceKind::Or, pred, {}, false); }
ValueId key_at(Trace& t, ValueId keys, int64_t i) { return index_dims(t, keys, {0}, {i}); }
// x op v and v op x for a constant v of x's dtype: the constant is emitted inside, so a call
// has one argument that emits ops (docs/architecture.md: op order must not depend on the
// compiler's argument order).
DType dt(Trace& t, ValueId x) { return t.type(x).dtype(); }
ValueId addc(Trace& t, ValueId x, double v) { ValueId k = c(t, v, dt(t, x)); return add(t, x, k); }
ValueId subc(Trace& t, ValueId x, double v) { ValueId k = c(t, v, dt(t, x)); return sub(t, x, k); }
ValueId mulc(Trace& t, ValueId x, double v) { ValueId k = c(t, v, dt(t, x)); return mul(t, x, k); }
ValueId divc(Trace& t, ValueId x, double v) { ValueId k = c(t, v, dt(t, x)); return div(t, x, k); }
ValueId cadd(Trace& t, double v, ValueId x) { ValueId k = c(t, v, dt(t, x)); return add(t, k, x); }
ValueId csub(Trace& t, double v, ValueId x) { ValueId k = c(t, v, dt(t, x)); return sub(t, k, x); }
ValueId cmul(Trace& t, double v, ValueId x) { ValueId k = c(t, v, dt(t, x)); return mul(t, k, x); }
ValueId cdiv(Trace& t, double v, ValueId x) { ValueId k = c(t, v, dt(t, x)); return div(t, k, x); }
ValueId ltc(Trace& t, ValueId x, double v) { ValueId k = c(t, v, dt(t, x)); return lt(t, x, k); }
ValueId lec(Trace& t, ValueId x, double v) { ValueId k = c(t, v, dt(t, x)); return le(t, x, k); }
ValueId gec(Trace& t, ValueId x, double v) { ValueId k = c(t, v, dt(t, x)); return ge(t, x, k); }
ValueId eqc(Trace& t, ValueId x, double v) { ValueId k = c(t, v, dt(t, x)); return eq(t, x, k); }
ValueId unit_uniform(Trace& t, ValueId key, const Shape& shape, DType d, const OptOutSharding& out = std::nullopt) {
  ValueId lo = c(t, 0, d), hi = c(t, 1, d);
  return uniform(t, key, shape, d, lo, hi, out);
}
// A parameter of `dtype` broadcast to `shape` (and laid out as out_sharding, when given, so
// the sampler runs on each device's part).
ValueId param_as(Trace& t, ValueId p, const Shape& shape, DType dtype, const OptOutSharding& out = std::nullopt) {
  ValueId x = strong(t, convert(t, p, {dtype, false}));
  if (t.type(x).shape() != shape) x = broadcast_to(t, x, shape);
  return out ? reshard(t, x, out) : x;
}

// ---- poisson --------------------------------------------------------------------------------

// Knuth: multiply uniforms until the product drops below exp(-lam); k counts the draws.
ValueId poisson_knuth(Trace& t, ValueId key, ValueId lam, const Shape& shape, DType dtype, const OptOutSharding& out) {
  ValueId k0 = full(t, shape, 0, {dtype, false}, out);
  ValueId log0 = full(t, shape, 0, {DType::F32, false}, out);
  auto going = [&](Trace& r, ValueId log_prod) {
    ValueId lam_r = r.lift(t, lam);
    return gt(r, log_prod, neg(r, lam_r));
  };
  auto res = loop(
      t, {k0, key, log0}, [&](Trace& r, const std::vector<ValueId>& s) { return any_(r, going(r, s[2])); },
      [&](Trace& r, const std::vector<ValueId>& s) {
        ValueId ks = split(r, s[1], {2});
        ValueId next = key_at(r, ks, 0), sub_key = key_at(r, ks, 1);
        ValueId k_plus = addc(r, s[0], 1);
        ValueId k = where(r, going(r, s[2]), k_plus, s[0]);
        ValueId u = unit_uniform(r, sub_key, shape, DType::F32, out);
        return std::vector<ValueId>{k, next, add(r, s[2], log_(r, u))};
      });
  return subc(t, res[0], 1);
}

// Hörmann's transformed rejection (PTRS) for lam >= 10.
ValueId poisson_rejection(Trace& t, ValueId key, ValueId lam, const Shape& shape, DType dtype, const OptOutSharding& out) {
  const DType f = DType::F32;
  ValueId log_lam = log_(t, lam);
  ValueId sqrt_lam = sqrt_(t, lam);
  ValueId b = cadd(t, 0.931, cmul(t, 2.53, sqrt_lam));
  ValueId a = cadd(t, -0.059, cmul(t, 0.02483, b));
  ValueId b_34 = subc(t, b, 3.4);
  ValueId inv_alpha = cadd(t, 1.1239, cdiv(t, 1.1328, b_34));
  ValueId b_2 = subc(t, b, 2);
  ValueId v_r = csub(t, 0.9277, cdiv(t, 3.6224, b_2));
  ValueId k0 = full(t, shape, -1, {f, false}, out);
  ValueId acc0 = full(t, shape, 0, {DType::Bool, false}, out);
  auto res = loop(
      t, {k0, acc0, key}, [&](Trace& r, const std::vector<ValueId>& s) { return any_(r, bnot(r, s[1])); },
      [&](Trace& r, const std::vector<ValueId>& s) {
        ValueId lam_r = r.lift(t, lam), a_r = r.lift(t, a), b_r = r.lift(t, b);
        ValueId inv_alpha_r = r.lift(t, inv_alpha), log_lam_r = r.lift(t, log_lam), v_r_r = r.lift(t, v_r);
        ValueId ks = split(r, s[2], {3});
        ValueId next = key_at(r, ks, 0);
        ValueId u = subc(r, unit_uniform(r, key_at(r, ks, 1), shape, f, out), 0.5);
        ValueId v = unit_uniform(r, key_at(r, ks, 2), shape, f, out);
        ValueId us = csub(r, 0.5, abs_(r, u));
        ValueId two_a = cmul(r, 2, a_r);
        ValueId slope = add(r, div(r, two_a, us), b_r);
        ValueId k = floor_(r, addc(r, add(r, mul(r, slope, u), lam_r), 0.43));
        ValueId us_sq = mul(r, us, us);
        ValueId denom = add(r, div(r, a_r, us_sq), b_r);
        ValueId s_ = log_(r, div(r, mul(r, v, inv_alpha_r), denom));
        ValueId k_log_lam = mul(r, k, log_lam_r);
        ValueId lg = gammaln(r, addc(r, k, 1));
        ValueId t_ = sub(r, add(r, neg(r, lam_r), k_log_lam), lg);
        ValueId wide = gec(r, us, 0.07);
        ValueId low_v = le(r, v, v_r_r);
        ValueId accept1 = band(r, wide, low_v);
        ValueId negative = ltc(r, k, 0);
        ValueId narrow = ltc(r, us, 0.013);
        ValueId high_v = gt(r, v, us);
        ValueId reject = bor(r, negative, band(r, narrow, high_v));
        ValueId accept2 = le(r, s_, t_);
        ValueId accept = bor(r, accept1, band(r, bnot(r, reject), accept2));
        ValueId k_out = where(r, accept, k, s[0]);
        return std::vector<ValueId>{k_out, bor(r, s[1], accept), next};
      });
  return convert(t, res[0], {dtype, false});
}

// ---- binomial -------------------------------------------------------------------------------

// The Stirling approximation's tail log(k!) - [(k + 1/2) log(k + 1) - (k + 1) + log(2 pi)/2],
// tabulated below 10 (JAX clamps k to [0, 9] before the series too).
ValueId stirling_approx_tail(Trace& t, ValueId k) {
  static constexpr double kTail[10] = {0.0810614667953272,  0.0413406959554092,  0.0276779256849983, 0.02079067210376509,
                                       0.0166446911898211,  0.0138761288230707,  0.0118967099458917, 0.0104112652619720,
                                       0.00925546218271273, 0.00833056343336287};
  const DType d = t.type(k).dtype();
  ValueId use_tail = lec(t, k, 9);
  ValueId lo = c(t, 0, d);
  ValueId hi = c(t, 9, d);
  ValueId kc = clip(t, k, lo, hi);
  ValueId kp1 = addc(t, kc, 1);
  ValueId kp1sq = mul(t, kp1, kp1);
  ValueId inner = csub(t, 1.0 / 360, cdiv(t, 1.0 / 1260, kp1sq));
  ValueId approx = div(t, csub(t, 1.0 / 12, div(t, inner, kp1sq)), kp1);
  ValueId idx = floor_(t, kc);
  ValueId table = c(t, kTail[0], d);
  for (int j = 1; j < 10; ++j) {
    ValueId at_j = eqc(t, idx, j);
    ValueId tail_j = c(t, kTail[j], d);
    table = where(t, at_j, tail_j, table);
  }
  return where(t, use_tail, table, approx);
}

// Sums of geometric draws until they pass the count (n p <= 10).
ValueId binomial_inversion(Trace& t, ValueId key, ValueId count, ValueId prob, const Shape& shape, DType dtype) {
  const DType pd = t.type(prob).dtype();
  ValueId log1mp = unary(t, "log1p", EwOp::Log1p, neg(t, prob));
  ValueId zeros = full(t, shape, 0, {pd, false}, std::nullopt);
  auto going = [&](Trace& r, ValueId geom_sum) {
    ValueId count_r = r.lift(t, count);
    return le(r, geom_sum, count_r);
  };
  auto out = loop(
      t, {zeros, zeros, key}, [&](Trace& r, const std::vector<ValueId>& s) { return any_(r, going(r, s[1])); },
      [&](Trace& r, const std::vector<ValueId>& s) {
        ValueId log1mp_r = r.lift(t, log1mp);
        ValueId ks = split(r, s[2], {2});
        ValueId sub_key = key_at(r, ks, 0), next = key_at(r, ks, 1);  // subkey, key = split(key)
        ValueId more = going(r, s[1]);
        ValueId num = where(r, more, addc(r, s[0], 1), s[0]);
        ValueId u = unit_uniform(r, sub_key, shape, pd);
        ValueId geom = unary(r, "ceil", EwOp::Ceil, div(r, log_(r, u), log1mp_r));
        return std::vector<ValueId>{num, add(r, s[1], geom), next};
      });
  return convert(t, subc(t, out[0], 1), {dtype, false});
}

// Hörmann's BTRS transformed rejection (n p > 10).
ValueId btrs(Trace& t, ValueId key, ValueId count, ValueId prob, const Shape& shape, DType dtype) {
  const DType d = t.type(prob).dtype();
  ValueId q = csub(t, 1, prob);
  ValueId stddev = sqrt_(t, mul(t, mul(t, count, prob), q));
  ValueId b = cadd(t, 1.15, cmul(t, 2.53, stddev));
  ValueId a0 = cadd(t, -0.0873, cmul(t, 0.0248, b));
  ValueId a = add(t, a0, cmul(t, 0.01, prob));
  ValueId cc = addc(t, mul(t, count, prob), 0.5);
  ValueId v_r = csub(t, 0.92, cdiv(t, 4.2, b));
  ValueId r_ = div(t, prob, q);
  ValueId alpha = mul(t, cadd(t, 2.83, cdiv(t, 5.1, b)), stddev);
  ValueId m = floor_(t, mul(t, addc(t, count, 1), prob));
  ValueId k0 = full(t, shape, -1, {d, false}, std::nullopt);
  ValueId acc0 = full(t, shape, 0, {DType::Bool, false}, std::nullopt);
  auto out = loop(
      t, {k0, acc0, key}, [&](Trace& r, const std::vector<ValueId>& s) { return any_(r, bnot(r, s[1])); },
      [&](Trace& r, const std::vector<ValueId>& s) {
        ValueId n = r.lift(t, count), a_r = r.lift(t, a), mm = r.lift(t, m), rr = r.lift(t, r_);
        ValueId b_r = r.lift(t, b), cc_r = r.lift(t, cc), v_r_r = r.lift(t, v_r), alpha_r = r.lift(t, alpha);
        ValueId ks = split(r, s[2], {3});
        ValueId next = key_at(r, ks, 0);
        ValueId u0 = unit_uniform(r, key_at(r, ks, 1), shape, d);
        ValueId v0 = unit_uniform(r, key_at(r, ks, 2), shape, d);
        ValueId u = subc(r, u0, 0.5);
        ValueId us = csub(r, 0.5, abs_(r, u));
        ValueId wide = gec(r, us, 0.07);
        ValueId low_v = le(r, v0, v_r_r);
        ValueId accept1 = band(r, wide, low_v);
        ValueId two_a = cmul(r, 2, a_r);
        ValueId slope = add(r, div(r, two_a, us), b_r);
        ValueId k = floor_(r, add(r, mul(r, slope, u), cc_r));
        ValueId negative = ltc(r, k, 0);
        ValueId too_many = gt(r, k, n);
        ValueId reject = bor(r, negative, too_many);
        ValueId us_sq = mul(r, us, us);
        ValueId denom = add(r, div(r, a_r, us_sq), b_r);
        ValueId v = log_(r, div(r, mul(r, v0, alpha_r), denom));
        ValueId n_m_1 = addc(r, sub(r, n, mm), 1);  // count - m + 1
        ValueId n_k_1 = addc(r, sub(r, n, k), 1);   // count - k + 1
        ValueId m_half = addc(r, mm, 0.5);
        ValueId m_1 = addc(r, mm, 1);
        ValueId t1 = mul(r, m_half, log_(r, div(r, m_1, mul(r, rr, n_m_1))));
        ValueId n_1 = addc(r, n, 1);
        ValueId t2 = mul(r, n_1, log_(r, div(r, n_m_1, n_k_1)));
        ValueId k_half = addc(r, k, 0.5);
        ValueId r_nk = mul(r, rr, n_k_1);
        ValueId k_1 = addc(r, k, 1);
        ValueId t3 = mul(r, k_half, log_(r, div(r, r_nk, k_1)));
        ValueId s1 = stirling_approx_tail(r, mm);
        ValueId s2 = stirling_approx_tail(r, sub(r, n, mm));
        ValueId s3 = stirling_approx_tail(r, k);
        ValueId s4 = stirling_approx_tail(r, sub(r, n, k));
        ValueId ub = sub(r, sub(r, add(r, add(r, add(r, add(r, t1, t2), t3), s1), s2), s3), s4);
        ValueId accept2 = le(r, v, ub);
        ValueId accept = bor(r, accept1, band(r, bnot(r, reject), accept2));
        return std::vector<ValueId>{where(r, accept, k, s[0]), bor(r, s[1], accept), next};
      });
  return convert(t, out[0], {dtype, false});
}

}  // namespace

ValueId poisson(Trace& t, ValueId key, ValueId lam_in, const Shape& shape, DType dtype, const OptOutSharding& out) {
  const DType f = DType::F32;
  ValueId lam = param_as(t, lam_in, shape, f, out);
  ValueId lam_nan = isnan_(t, lam);
  ValueId lam_small = ltc(t, lam, 10);
  ValueId use_knuth = bor(t, lam_nan, lam_small);
  ValueId lam_knuth = where(t, use_knuth, lam, c(t, 0, f));
  ValueId lam_rejection = where(t, use_knuth, c(t, 1e5, f), lam);
  ValueId knuth = poisson_knuth(t, key, lam_knuth, shape, dtype, out);
  ValueId rejection = poisson_rejection(t, key, lam_rejection, shape, dtype, out);
  ValueId result = where(t, use_knuth, knuth, rejection);
  ValueId lam_zero = eqc(t, lam, 0);
  return where(t, lam_zero, c(t, 0, dtype), result);
}

namespace {

// T(y) = (1 - y^2 + 2 y log y) / (1 - y)^2, by its series near y = 1.
ValueId peizer_pratt_t(Trace& t, ValueId y) {
  const DType d = t.type(y).dtype();
  ValueId dd = subc(t, y, 1);
  ValueId small = ltc(t, abs_(t, dd), 0.25);
  ValueId series = mulc(t, dd, 0);
  for (int k = 9; k >= 1; --k) {
    const double coef = 2.0 * (k % 2 ? -1.0 : 1.0) / ((k + 1) * (k + 2));
    series = mul(t, dd, cadd(t, coef, series));
  }
  ValueId y_safe = where(t, small, c(t, 2, d), y);
  ValueId d_safe = where(t, small, c(t, 1, d), dd);
  ValueId y2 = mul(t, y_safe, y_safe);
  ValueId log_y = log_(t, y_safe);
  ValueId two_y_log_y = mul(t, cmul(t, 2, y_safe), log_y);
  ValueId numer = add(t, csub(t, 1, y2), two_y_log_y);
  ValueId direct = div(t, numer, mul(t, d_safe, d_safe));
  return where(t, small, series, direct);
}

// z(x) with Pr[X <= x] ~ ndtr(z(x)) (Peizer and Pratt, with the 0.02 correction).
ValueId peizer_pratt_z(Trace& t, ValueId x, ValueId lam) {
  ValueId y = div(t, addc(t, x, 0.5), lam);
  ValueId tt = peizer_pratt_t(t, y);
  ValueId head0 = addc(t, sub(t, x, lam), 2.0 / 3.0);
  ValueId head = add(t, head0, cdiv(t, 0.02, addc(t, x, 1)));
  return mul(t, head, sqrt_(t, div(t, cadd(t, 1, tt), lam)));
}

ValueId poisson_from_normal(Trace& t, ValueId z, ValueId lam) {
  const DType d = t.type(z).dtype();
  // Below lam 7: the cdf of the first 20 terms, inverted at ndtr(z).
  ValueId u = ndtr(t, z);
  ValueId pmf = unary(t, "exp", EwOp::Exp, neg(t, lam));
  ValueId cdf = pmf;
  ValueId count = convert(t, lt(t, cdf, u), {d, false});
  for (int k = 1; k < 19; ++k) {
    pmf = mul(t, pmf, divc(t, lam, k));
    cdf = add(t, cdf, pmf);
    count = add(t, count, convert(t, lt(t, cdf, u), {d, false}));
  }
  // Above: the smallest integer c with z(c) >= z, around a Cornish-Fisher guess.
  ValueId s = sqrt_(t, lam);
  ValueId z2 = mul(t, z, z);
  ValueId root0 = subc(t, add(t, lam, mul(t, s, z)), 2.0 / 3.0);
  ValueId root1 = add(t, root0, divc(t, z2, 6));
  ValueId cubic = mul(t, z, csub(t, 1, z2));
  ValueId root = add(t, root1, div(t, cubic, cmul(t, 72, s)));
  ValueId x = addc(t, root, 0.6);
  ValueId ci = unary(t, "ceil", EwOp::Ceil, x);
  auto root_ge = [&](ValueId cc) {
    ValueId at_least_0 = binary(t, "max", EwOp::Max, cc, c(t, 0, d));
    ValueId zc = peizer_pratt_z(t, at_least_0, lam);
    ValueId negative = ltc(t, cc, 0);
    ValueId zint = where(t, negative, c(t, -INFINITY, d), zc);
    return convert(t, ge(t, zint, z), {d, false});
  };
  ValueId ge_c = root_ge(ci);
  ValueId ge_c1 = root_ge(subc(t, ci, 1));
  ValueId large = binary(t, "max", EwOp::Max, sub(t, sub(t, addc(t, ci, 1), ge_c), ge_c1), c(t, 0, d));
  ValueId small_lam = ltc(t, lam, 7);
  return where(t, small_lam, count, large);
}

}  // namespace

ValueId poisson_approx(Trace& t, ValueId key, ValueId lam_in, const Shape& shape, DType dtype) {
  const auto lt_ = t.type(lam_in);
  const bool wide = (types::is_float(lt_.dtype()) && lt_.dtype() == DType::F64) || types::dtype_size(dtype) > 4;
  const DType cd = wide ? DType::F64 : DType::F32;
  ValueId lam = strong(t, convert(t, lam_in, {cd, false}));
  std::vector<int64_t> lead;
  for (size_t i = 0; i + lt_.rank() < shape.size(); ++i) lead.push_back(static_cast<int64_t>(i));
  if (!lead.empty()) lam = expand_dims(t, lam, lead);
  ValueId z = normal(t, key, shape, cd);
  return convert(t, poisson_from_normal(t, z, lam), {dtype, false});
}

ValueId binomial(Trace& t, ValueId key, ValueId count_in, ValueId prob_in, const Shape& shape, DType dtype) {
  DType pd = t.type(prob_in).dtype();
  if (!types::is_float(pd)) pd = types::default_float_dtype();
  ValueId prob = param_as(t, prob_in, shape, pd);
  ValueId count = param_as(t, count_in, shape, pd);
  ValueId p_lt_half = ltc(t, prob, 0.5);
  ValueId q = where(t, p_lt_half, prob, csub(t, 1, prob));
  ValueId count_nan = isnan_(t, count);
  ValueId count_neg = ltc(t, count, 0);
  ValueId count_nan_or_neg = bor(t, count_nan, count_neg);
  ValueId count_inf = eqc(t, abs_(t, count), INFINITY);
  ValueId q_is_nan = isnan_(t, q);
  ValueId q_l_0 = ltc(t, q, 0);
  ValueId q_bad = bor(t, q_is_nan, q_l_0);
  q = where(t, q_bad, c(t, 0.01, pd), q);
  ValueId use_inversion = bor(t, count_nan_or_neg, lec(t, mul(t, count, q), 10));
  count = floor_(t, count);
  ValueId count_inv = where(t, use_inversion, count, c(t, 0, pd));
  ValueId count_btrs = where(t, use_inversion, c(t, 1e4, pd), count);
  ValueId q_btrs = where(t, use_inversion, c(t, 0.5, pd), q);
  ValueId inv = binomial_inversion(t, key, count_inv, q, shape, dtype);
  ValueId bt = btrs(t, key, count_btrs, q_btrs, shape, dtype);
  ValueId samples = where(t, use_inversion, inv, bt);
  ValueId invalid = bor(t, bor(t, q_l_0, q_is_nan), count_nan_or_neg);
  samples = where(t, invalid, c(t, NAN, dtype), samples);
  ValueId infinite = band(t, count_inf, bnot(t, invalid));
  samples = where(t, infinite, c(t, INFINITY, dtype), samples);
  ValueId keep = bor(t, bor(t, bor(t, p_lt_half, count_nan_or_neg), q_is_nan), count_inf);
  ValueId flipped = sub(t, convert(t, count, {dtype, false}), samples);
  return where(t, keep, samples, flipped);
}

ValueId multinomial(Trace& t, ValueId key, ValueId n_in, ValueId p_in, const Shape& shape, DType dtype) {
  // n and p promoted to one inexact dtype; counts are drawn category by category by a scan
  // over (ratio, key): count = binomial(remainder, p_i / sum(p_i..)), remainder -= count.
  DType pd = types::is_float(t.type(p_in).dtype()) ? t.type(p_in).dtype() : types::default_float_dtype();
  if (types::is_float(t.type(n_in).dtype()) && t.type(n_in).dtype() == DType::F64) pd = DType::F64;
  Shape batch(shape.begin(), shape.end() - 1);
  ValueId n = param_as(t, n_in, batch, pd);
  ValueId p = param_as(t, p_in, shape, pd);
  const int64_t last = static_cast<int64_t>(shape.size()) - 1;
  p = move_dim(t, p, last, 0);
  ValueId remaining = rev(t, cumulative(t, "cumsum", ReduceKind::Sum, rev(t, p, {0}), 0), {0});
  ValueId nothing_left = eqc(t, remaining, 0);
  ValueId denom = where(t, nothing_left, c(t, 1, pd), remaining);
  ValueId ratios = div(t, p, denom);
  const int64_t k = shape.back();
  ValueId keys = split(t, key, {k});
  std::vector<ArrayType> types{t.type(n)};
  ArrayType rt = t.type(ratios);
  types.push_back(rt.with_shape(batch, {}));
  types.push_back(t.type(keys).with_shape({2}, {}));
  Region body = trace_body(t, "multinomial", types, [&](Trace& r, const std::vector<ValueId>& ps) {
    ValueId lo = c(r, 0, pd);
    ValueId hi = c(r, 1, pd);
    ValueId ratio = clip(r, ps[1], lo, hi);
    ValueId count = binomial(r, ps[2], ps[0], ratio, batch, pd);
    return std::vector<ValueId>{sub(r, ps[0], count), count};
  });
  auto outs = scan(t, {body.fn, body.consts}, {n}, {ratios, keys}, {t.type(n), rt}, k, false);
  return convert(t, move_dim(t, outs.at(1), 0, last), {dtype, false});
}

ValueId geometric(Trace& t, ValueId key, ValueId p, const Shape& shape, DType dtype, const OptOutSharding& out) {
  const DType pd = t.type(p).dtype();
  ValueId u = unit_uniform(t, key, shape, pd, out);
  ValueId u_zero = eqc(t, u, 0);
  u = where(t, u_zero, c(t, 1, pd), u);
  ValueId log_u = log_(t, u);
  ValueId log_1mp = broadcast_to(t, unary(t, "log1p", EwOp::Log1p, neg(t, p)), shape, out);
  ValueId g = addc(t, floor_(t, div(t, log_u, log_1mp)), 1);
  return convert(t, g, {dtype, false});
}

ValueId triangular(Trace& t, ValueId key, ValueId left_in, ValueId mode_in, ValueId right_in, const Shape& shape, DType dtype,
                   const OptOutSharding& out) {
  ValueId left = param_as(t, left_in, shape, dtype, out);
  ValueId right = param_as(t, right_in, shape, dtype, out);
  ValueId mode = param_as(t, mode_in, shape, dtype, out);
  ValueId width = sub(t, right, left);
  ValueId fc = div(t, sub(t, mode, left), width);
  ValueId u = unit_uniform(t, key, shape, dtype, out);
  ValueId u_width = mul(t, u, sub(t, right, left));
  ValueId rise = sub(t, mode, left);
  ValueId out1 = add(t, left, sqrt_(t, mul(t, u_width, rise)));
  ValueId one_minus_u = csub(t, 1, u);
  ValueId rest_width = mul(t, one_minus_u, sub(t, right, left));
  ValueId fall = sub(t, right, mode);
  ValueId out2 = sub(t, right, sqrt_(t, mul(t, rest_width, fall)));
  return where(t, lt(t, u, fc), out1, out2);
}

ValueId wald(Trace& t, ValueId key, ValueId mean_in, const Shape& shape, DType dtype, const OptOutSharding& out) {
  ValueId keys = split(t, key, {2});
  ValueId mean = param_as(t, mean_in, shape, dtype, out);
  ValueId v = normal(t, key_at(t, keys, 0), shape, dtype, out);
  ValueId z = unit_uniform(t, key_at(t, keys, 1), shape, dtype, out);
  ValueId y = integer_pow(t, v, 2);
  ValueId y_sq = integer_pow(t, y, 2);
  ValueId mean_sq = integer_pow(t, mean, 2);
  ValueId four_mean_y = mul(t, cmul(t, 4, mean), y);
  ValueId sqrt_term = sqrt_(t, add(t, four_mean_y, mul(t, mean_sq, y_sq)));
  ValueId head = add(t, mean, divc(t, mul(t, mean_sq, y), 2));
  ValueId x = sub(t, head, mul(t, divc(t, mean, 2), sqrt_term));
  ValueId take_x = le(t, z, div(t, mean, add(t, mean, x)));
  return where(t, take_x, x, div(t, mean_sq, x));
}

ValueId double_sided_maxwell(Trace& t, ValueId key, ValueId loc, ValueId scale, const Shape& shape_in, DType dtype) {
  Shape params = broadcast_shapes("double_sided_maxwell", {t.type(loc).shape(), t.type(scale).shape()});
  Shape shape = shape_in.empty() ? params : shape_in;
  shape.insert(shape.end(), params.begin(), params.end());
  ValueId keys = split(t, key, {2});
  ValueId m = maxwell(t, key_at(t, keys, 0), shape, dtype);
  ValueId sign = rademacher(t, key_at(t, keys, 1), shape, dtype);
  return add(t, mul(t, mul(t, sign, m), scale), loc);
}

ValueId orthogonal(Trace& t, ValueId key, int64_t n, int64_t m, const Shape& shape, DType dtype) {
  Shape zs = shape;
  zs.push_back(std::max(n, m));
  zs.push_back(std::min(n, m));
  ValueId z = normal(t, key, zs, dtype);
  auto factors = qr(t, z, false);
  ValueId d = linalg::diagonal(t, factors.r);
  ValueId sign = unary(t, "sign", EwOp::Sign, d);
  ValueId x = mul(t, factors.q, expand_dims(t, sign, {static_cast<int64_t>(zs.size()) - 2}));
  return n < m ? linalg::mT(t, x) : x;
}

ValueId multivariate_normal(Trace& t, ValueId key, ValueId mean, ValueId cov, const std::optional<Shape>& shape_arg, DType dtype,
                            const std::string& method) {
  const auto mt = t.type(mean), ct = t.type(cov);
  if (mt.rank() < 1)
    throw types::ShardingError("ValueError", fmt::format("multivariate_normal requires mean.ndim >= 1, got mean.ndim == {}", mt.rank()));
  if (ct.rank() < 2)
    throw types::ShardingError("ValueError", fmt::format("multivariate_normal requires cov.ndim >= 2, got cov.ndim == {}", ct.rank()));
  const int64_t n = mt.shape().back();
  const Shape& cs = ct.shape();
  if (cs[cs.size() - 2] != n || cs.back() != n)
    throw types::ShardingError("ValueError", fmt::format("multivariate_normal requires cov.shape == (..., n, n) for n={}, but got cov.shape == {}.",
                                                         n, types::py_int_tuple(cs)));
  Shape mean_batch(mt.shape().begin(), mt.shape().end() - 1);
  Shape cov_batch(cs.begin(), cs.end() - 2);
  Shape shape;
  if (!shape_arg) {
    shape = broadcast_shapes("multivariate_normal", {mean_batch, cov_batch});
  } else {
    shape = *shape_arg;
    Shape got = broadcast_shapes("normal", {shape, mean_batch, cov_batch});
    if (got != shape)
      throw types::ShardingError("ValueError", fmt::format("normal parameter shapes must be broadcast-compatible with shape argument, and the "
                                                           "result of broadcasting the shapes must equal the shape argument, but got result {} "
                                                           "for shape argument {}.",
                                                           types::py_int_tuple(got), types::py_int_tuple(shape)));
  }
  ValueId factor;
  const int64_t r = static_cast<int64_t>(cs.size());
  if (method == "svd") {
    auto s = svd(t, cov, false, true);
    factor = mul(t, s.u, expand_dims(t, sqrt_(t, s.s), {r - 2}));
  } else if (method == "eigh") {
    auto e = jnp_eigh(t, cov, true, true);
    factor = mul(t, e.v, expand_dims(t, sqrt_(t, e.w), {r - 2}));
  } else {
    factor = jnp_cholesky(t, cov, false, true);
  }
  Shape ns = shape;
  ns.push_back(n);
  ValueId z = normal(t, key, ns, dtype);
  // einsum('...ij,...j->...i', factor, z): a batched matrix-vector product.
  ValueId col = expand_dims(t, z, {static_cast<int64_t>(ns.size())});
  ValueId prod = linalg::matmul(t, factor, col);
  ValueId y = squeeze(t, prod, std::vector<int64_t>{static_cast<int64_t>(t.type(prod).rank()) - 1});
  return add(t, mean, y);
}

}  // namespace shard::trace::random
