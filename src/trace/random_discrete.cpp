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
  auto going = [&](Trace& r, ValueId log_prod) { return gt(r, log_prod, neg(r, r.lift(t, lam))); };
  auto res = loop(
      t, {k0, key, log0}, [&](Trace& r, const std::vector<ValueId>& s) { return any_(r, going(r, s[2])); },
      [&](Trace& r, const std::vector<ValueId>& s) {
        ValueId ks = split(r, s[1], {2});
        ValueId next = key_at(r, ks, 0), sub_key = key_at(r, ks, 1);
        ValueId k_plus = add(r, s[0], c(r, 1, dtype));
        ValueId k = where(r, going(r, s[2]), k_plus, s[0]);
        ValueId u = unit_uniform(r, sub_key, shape, DType::F32, out);
        return std::vector<ValueId>{k, next, add(r, s[2], log_(r, u))};
      });
  return sub(t, res[0], c(t, 1, dtype));
}

// Hörmann's transformed rejection (PTRS) for lam >= 10.
ValueId poisson_rejection(Trace& t, ValueId key, ValueId lam, const Shape& shape, DType dtype, const OptOutSharding& out) {
  const DType f = DType::F32;
  ValueId log_lam = log_(t, lam);
  ValueId b = add(t, c(t, 0.931, f), mul(t, c(t, 2.53, f), sqrt_(t, lam)));
  ValueId a = add(t, c(t, -0.059, f), mul(t, c(t, 0.02483, f), b));
  ValueId inv_alpha = add(t, c(t, 1.1239, f), div(t, c(t, 1.1328, f), sub(t, b, c(t, 3.4, f))));
  ValueId v_r = sub(t, c(t, 0.9277, f), div(t, c(t, 3.6224, f), sub(t, b, c(t, 2, f))));
  ValueId k0 = full(t, shape, -1, {f, false}, out);
  ValueId acc0 = full(t, shape, 0, {DType::Bool, false}, out);
  auto res = loop(
      t, {k0, acc0, key}, [&](Trace& r, const std::vector<ValueId>& s) { return any_(r, bnot(r, s[1])); },
      [&](Trace& r, const std::vector<ValueId>& s) {
        auto L = [&](ValueId v) { return r.lift(t, v); };
        ValueId ks = split(r, s[2], {3});
        ValueId next = key_at(r, ks, 0);
        ValueId u = sub(r, unit_uniform(r, key_at(r, ks, 1), shape, f, out), c(r, 0.5, f));
        ValueId v = unit_uniform(r, key_at(r, ks, 2), shape, f, out);
        ValueId us = sub(r, c(r, 0.5, f), abs_(r, u));
        ValueId lam_r = L(lam), a_r = L(a), b_r = L(b);
        ValueId two_a = mul(r, c(r, 2, f), a_r);
        ValueId slope = add(r, div(r, two_a, us), b_r);
        ValueId k = floor_(r, add(r, add(r, mul(r, slope, u), lam_r), c(r, 0.43, f)));
        ValueId denom = add(r, div(r, a_r, mul(r, us, us)), b_r);
        ValueId s_ = log_(r, div(r, mul(r, v, L(inv_alpha)), denom));
        ValueId k_log_lam = mul(r, k, L(log_lam));
        ValueId lg = gammaln(r, add(r, k, c(r, 1, f)));
        ValueId t_ = sub(r, add(r, neg(r, lam_r), k_log_lam), lg);
        ValueId accept1 = band(r, ge(r, us, c(r, 0.07, f)), le(r, v, L(v_r)));
        ValueId reject = bor(r, lt(r, k, c(r, 0, f)), band(r, lt(r, us, c(r, 0.013, f)), gt(r, v, us)));
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
  ValueId use_tail = le(t, k, c(t, 9, d));
  ValueId kc = clip(t, k, c(t, 0, d), c(t, 9, d));
  ValueId kp1 = add(t, kc, c(t, 1, d));
  ValueId kp1sq = mul(t, kp1, kp1);
  ValueId inner = sub(t, c(t, 1.0 / 360, d), div(t, c(t, 1.0 / 1260, d), kp1sq));
  ValueId approx = div(t, sub(t, c(t, 1.0 / 12, d), div(t, inner, kp1sq)), kp1);
  ValueId idx = floor_(t, kc);
  ValueId table = c(t, kTail[0], d);
  for (int j = 1; j < 10; ++j) table = where(t, eq(t, idx, c(t, j, d)), c(t, kTail[j], d), table);
  return where(t, use_tail, table, approx);
}

// Sums of geometric draws until they pass the count (n p <= 10).
ValueId binomial_inversion(Trace& t, ValueId key, ValueId count, ValueId prob, const Shape& shape, DType dtype) {
  const DType pd = t.type(prob).dtype();
  ValueId log1mp = unary(t, "log1p", EwOp::Log1p, neg(t, prob));
  ValueId zeros = full(t, shape, 0, {pd, false}, std::nullopt);
  auto going = [&](Trace& r, ValueId geom_sum) { return le(r, geom_sum, r.lift(t, count)); };
  auto out = loop(
      t, {zeros, zeros, key}, [&](Trace& r, const std::vector<ValueId>& s) { return any_(r, going(r, s[1])); },
      [&](Trace& r, const std::vector<ValueId>& s) {
        ValueId ks = split(r, s[2], {2});
        ValueId sub_key = key_at(r, ks, 0), next = key_at(r, ks, 1);  // subkey, key = split(key)
        ValueId num = where(r, going(r, s[1]), add(r, s[0], c(r, 1, pd)), s[0]);
        ValueId u = unit_uniform(r, sub_key, shape, pd);
        ValueId geom = unary(r, "ceil", EwOp::Ceil, div(r, log_(r, u), r.lift(t, log1mp)));
        return std::vector<ValueId>{num, add(r, s[1], geom), next};
      });
  return convert(t, sub(t, out[0], c(t, 1, pd)), {dtype, false});
}

// Hörmann's BTRS transformed rejection (n p > 10).
ValueId btrs(Trace& t, ValueId key, ValueId count, ValueId prob, const Shape& shape, DType dtype) {
  const DType d = t.type(prob).dtype();
  ValueId one = c(t, 1, d);
  ValueId q = sub(t, one, prob);
  ValueId stddev = sqrt_(t, mul(t, mul(t, count, prob), q));
  ValueId b = add(t, c(t, 1.15, d), mul(t, c(t, 2.53, d), stddev));
  ValueId a = add(t, add(t, c(t, -0.0873, d), mul(t, c(t, 0.0248, d), b)), mul(t, c(t, 0.01, d), prob));
  ValueId cc = add(t, mul(t, count, prob), c(t, 0.5, d));
  ValueId v_r = sub(t, c(t, 0.92, d), div(t, c(t, 4.2, d), b));
  ValueId r_ = div(t, prob, q);
  ValueId alpha = mul(t, add(t, c(t, 2.83, d), div(t, c(t, 5.1, d), b)), stddev);
  ValueId m = floor_(t, mul(t, add(t, count, one), prob));
  ValueId k0 = full(t, shape, -1, {d, false}, std::nullopt);
  ValueId acc0 = full(t, shape, 0, {DType::Bool, false}, std::nullopt);
  auto out = loop(
      t, {k0, acc0, key}, [&](Trace& r, const std::vector<ValueId>& s) { return any_(r, bnot(r, s[1])); },
      [&](Trace& r, const std::vector<ValueId>& s) {
        auto L = [&](ValueId v) { return r.lift(t, v); };
        ValueId ks = split(r, s[2], {3});
        ValueId next = key_at(r, ks, 0);
        ValueId u0 = unit_uniform(r, key_at(r, ks, 1), shape, d);
        ValueId v0 = unit_uniform(r, key_at(r, ks, 2), shape, d);
        ValueId u = sub(r, u0, c(r, 0.5, d));
        ValueId us = sub(r, c(r, 0.5, d), abs_(r, u));
        ValueId accept1 = band(r, ge(r, us, c(r, 0.07, d)), le(r, v0, L(v_r)));
        ValueId n = L(count), a_r = L(a), mm = L(m), rr = L(r_);
        ValueId two_a = mul(r, c(r, 2, d), a_r);
        ValueId k = floor_(r, add(r, mul(r, add(r, div(r, two_a, us), L(b)), u), L(cc)));
        ValueId reject = bor(r, lt(r, k, c(r, 0, d)), gt(r, k, n));
        ValueId denom = add(r, div(r, a_r, mul(r, us, us)), L(b));
        ValueId v = log_(r, div(r, mul(r, v0, L(alpha)), denom));
        ValueId one_r = c(r, 1, d), half = c(r, 0.5, d);
        ValueId n_m_1 = add(r, sub(r, n, mm), one_r);  // count - m + 1
        ValueId n_k_1 = add(r, sub(r, n, k), one_r);   // count - k + 1
        ValueId t1 = mul(r, add(r, mm, half), log_(r, div(r, add(r, mm, one_r), mul(r, rr, n_m_1))));
        ValueId t2 = mul(r, add(r, n, one_r), log_(r, div(r, n_m_1, n_k_1)));
        ValueId t3 = mul(r, add(r, k, half), log_(r, div(r, mul(r, rr, n_k_1), add(r, k, one_r))));
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
  ValueId use_knuth = bor(t, isnan_(t, lam), lt(t, lam, c(t, 10, f)));
  ValueId lam_knuth = where(t, use_knuth, lam, c(t, 0, f));
  ValueId lam_rejection = where(t, use_knuth, c(t, 1e5, f), lam);
  ValueId knuth = poisson_knuth(t, key, lam_knuth, shape, dtype, out);
  ValueId rejection = poisson_rejection(t, key, lam_rejection, shape, dtype, out);
  ValueId result = where(t, use_knuth, knuth, rejection);
  return where(t, eq(t, lam, c(t, 0, f)), c(t, 0, dtype), result);
}

namespace {

// T(y) = (1 - y^2 + 2 y log y) / (1 - y)^2, by its series near y = 1.
ValueId peizer_pratt_t(Trace& t, ValueId y) {
  const DType d = t.type(y).dtype();
  ValueId dd = sub(t, y, c(t, 1, d));
  ValueId small = lt(t, abs_(t, dd), c(t, 0.25, d));
  ValueId series = mul(t, dd, c(t, 0, d));
  for (int k = 9; k >= 1; --k) {
    const double coef = 2.0 * (k % 2 ? -1.0 : 1.0) / ((k + 1) * (k + 2));
    series = mul(t, dd, add(t, c(t, coef, d), series));
  }
  ValueId y_safe = where(t, small, c(t, 2, d), y);
  ValueId d_safe = where(t, small, c(t, 1, d), dd);
  ValueId y2 = mul(t, y_safe, y_safe);
  ValueId two_y_log_y = mul(t, mul(t, c(t, 2, d), y_safe), log_(t, y_safe));
  ValueId direct = div(t, add(t, sub(t, c(t, 1, d), y2), two_y_log_y), mul(t, d_safe, d_safe));
  return where(t, small, series, direct);
}

// z(x) with Pr[X <= x] ~ ndtr(z(x)) (Peizer and Pratt, with the 0.02 correction).
ValueId peizer_pratt_z(Trace& t, ValueId x, ValueId lam) {
  const DType d = t.type(x).dtype();
  ValueId y = div(t, add(t, x, c(t, 0.5, d)), lam);
  ValueId tt = peizer_pratt_t(t, y);
  ValueId head = add(t, add(t, sub(t, x, lam), c(t, 2.0 / 3.0, d)), div(t, c(t, 0.02, d), add(t, x, c(t, 1, d))));
  return mul(t, head, sqrt_(t, div(t, add(t, c(t, 1, d), tt), lam)));
}

ValueId poisson_from_normal(Trace& t, ValueId z, ValueId lam) {
  const DType d = t.type(z).dtype();
  // Below lam 7: the cdf of the first 20 terms, inverted at ndtr(z).
  ValueId u = ndtr(t, z);
  ValueId pmf = unary(t, "exp", EwOp::Exp, neg(t, lam));
  ValueId cdf = pmf;
  ValueId count = convert(t, lt(t, cdf, u), {d, false});
  for (int k = 1; k < 19; ++k) {
    pmf = mul(t, pmf, div(t, lam, c(t, k, d)));
    cdf = add(t, cdf, pmf);
    count = add(t, count, convert(t, lt(t, cdf, u), {d, false}));
  }
  // Above: the smallest integer c with z(c) >= z, around a Cornish-Fisher guess.
  ValueId s = sqrt_(t, lam);
  ValueId z2 = mul(t, z, z);
  ValueId root = add(t, add(t, sub(t, add(t, lam, mul(t, s, z)), c(t, 2.0 / 3.0, d)), div(t, z2, c(t, 6, d))),
                     div(t, mul(t, z, sub(t, c(t, 1, d), z2)), mul(t, c(t, 72, d), s)));
  ValueId x = add(t, root, c(t, 0.6, d));
  ValueId ci = unary(t, "ceil", EwOp::Ceil, x);
  auto root_ge = [&](ValueId cc) {
    ValueId zc = peizer_pratt_z(t, binary(t, "max", EwOp::Max, cc, c(t, 0, d)), lam);
    ValueId zint = where(t, lt(t, cc, c(t, 0, d)), c(t, -INFINITY, d), zc);
    return convert(t, ge(t, zint, z), {d, false});
  };
  ValueId ge_c = root_ge(ci);
  ValueId ge_c1 = root_ge(sub(t, ci, c(t, 1, d)));
  ValueId large = binary(t, "max", EwOp::Max, sub(t, sub(t, add(t, ci, c(t, 1, d)), ge_c), ge_c1), c(t, 0, d));
  return where(t, lt(t, lam, c(t, 7, d)), count, large);
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
  ValueId p_lt_half = lt(t, prob, c(t, 0.5, pd));
  ValueId q = where(t, p_lt_half, prob, sub(t, c(t, 1, pd), prob));
  ValueId count_nan_or_neg = bor(t, isnan_(t, count), lt(t, count, c(t, 0, pd)));
  ValueId count_inf = eq(t, abs_(t, count), c(t, INFINITY, pd));
  ValueId q_is_nan = isnan_(t, q);
  ValueId q_l_0 = lt(t, q, c(t, 0, pd));
  q = where(t, bor(t, q_is_nan, q_l_0), c(t, 0.01, pd), q);
  ValueId use_inversion = bor(t, count_nan_or_neg, le(t, mul(t, count, q), c(t, 10, pd)));
  count = floor_(t, count);
  ValueId count_inv = where(t, use_inversion, count, c(t, 0, pd));
  ValueId count_btrs = where(t, use_inversion, c(t, 1e4, pd), count);
  ValueId q_btrs = where(t, use_inversion, c(t, 0.5, pd), q);
  ValueId inv = binomial_inversion(t, key, count_inv, q, shape, dtype);
  ValueId bt = btrs(t, key, count_btrs, q_btrs, shape, dtype);
  ValueId samples = where(t, use_inversion, inv, bt);
  ValueId invalid = bor(t, bor(t, q_l_0, q_is_nan), count_nan_or_neg);
  samples = where(t, invalid, c(t, NAN, dtype), samples);
  samples = where(t, band(t, count_inf, bnot(t, invalid)), c(t, INFINITY, dtype), samples);
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
  ValueId denom = where(t, eq(t, remaining, c(t, 0, pd)), c(t, 1, pd), remaining);
  ValueId ratios = div(t, p, denom);
  const int64_t k = shape.back();
  ValueId keys = split(t, key, {k});
  std::vector<ArrayType> types{t.type(n)};
  ArrayType rt = t.type(ratios);
  types.push_back(rt.with_shape(batch, {}));
  types.push_back(t.type(keys).with_shape({2}, {}));
  Region body = trace_body(t, "multinomial", types, [&](Trace& r, const std::vector<ValueId>& ps) {
    ValueId ratio = clip(r, ps[1], c(r, 0, pd), c(r, 1, pd));
    ValueId count = binomial(r, ps[2], ps[0], ratio, batch, pd);
    return std::vector<ValueId>{sub(r, ps[0], count), count};
  });
  auto outs = scan(t, {body.fn, body.consts}, {n}, {ratios, keys}, {t.type(n), rt}, k, false);
  return convert(t, move_dim(t, outs.at(1), 0, last), {dtype, false});
}

ValueId geometric(Trace& t, ValueId key, ValueId p, const Shape& shape, DType dtype, const OptOutSharding& out) {
  const DType pd = t.type(p).dtype();
  ValueId u = unit_uniform(t, key, shape, pd, out);
  u = where(t, eq(t, u, c(t, 0, pd)), c(t, 1, pd), u);
  ValueId log_u = log_(t, u);
  ValueId log_1mp = broadcast_to(t, unary(t, "log1p", EwOp::Log1p, neg(t, p)), shape, out);
  ValueId g = add(t, floor_(t, div(t, log_u, log_1mp)), c(t, 1, pd));
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
  ValueId out1 = add(t, left, sqrt_(t, mul(t, mul(t, u, sub(t, right, left)), sub(t, mode, left))));
  ValueId one_minus_u = sub(t, c(t, 1, dtype), u);
  ValueId out2 = sub(t, right, sqrt_(t, mul(t, mul(t, one_minus_u, sub(t, right, left)), sub(t, right, mode))));
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
  ValueId four_mean_y = mul(t, mul(t, c(t, 4, dtype), mean), y);
  ValueId sqrt_term = sqrt_(t, add(t, four_mean_y, mul(t, mean_sq, y_sq)));
  ValueId two = c(t, 2, dtype);
  ValueId x = sub(t, add(t, mean, div(t, mul(t, mean_sq, y), two)), mul(t, div(t, mean, two), sqrt_term));
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
