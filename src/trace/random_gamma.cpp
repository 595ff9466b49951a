// jax.random's gamma family with JAX's algorithms (jax/_src/random: _gamma_one, _gamma_impl,
// random_gamma_p, _beta, _dirichlet, _chisquare, _f, _t, _generalized_normal, _ball), so
// values are JAX's to float rounding:
//
// - gamma is Marsaglia and Tsang's rejection sampler for one element (_gamma_one: a
//   while_loop of proposals, each with an inner while_loop until the cube is positive, and
//   the alpha < 1 boost by U**(1/alpha)), traced once on scalars and batched by shard's vmap
//   (batching::batch) over one key per element, split from the key as JAX splits it. The
//   batching rule of a while_loop with a batched predicate is JAX's: the loop runs while any
//   lane goes on, and the body advances only those lanes, so each element's draws are the
//   ones its own loop would take.
// - the sampler is wrapped in a custom_jvp_call whose rule is JAX's random_gamma_p JVP:
//   d sample = d alpha * random_gamma_grad(alpha, sample) (implicit reparameterisation,
//   lax.random_gamma_grad's series and continued fraction of d igamma / d a), so grad and
//   jvp of gamma, beta, dirichlet, chisquare, t and f with respect to their parameters are
//   JAX's.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "autodiff/custom_rules.hpp"
#include "batching/batching.hpp"
#include "trace/ops_random.hpp"

namespace shard::trace::random {

namespace {

ValueId c(Trace& t, double v, DType d) { return scalar_constant(t, v, {d, false}); }
ValueId add(Trace& t, ValueId a, ValueId b) { return binary(t, "add", EwOp::Add, a, b); }
ValueId sub(Trace& t, ValueId a, ValueId b) { return binary(t, "sub", EwOp::Sub, a, b); }
ValueId mul(Trace& t, ValueId a, ValueId b) { return binary(t, "mul", EwOp::Mul, a, b); }
ValueId div(Trace& t, ValueId a, ValueId b) { return binary(t, "div", EwOp::Div, a, b); }
ValueId ge(Trace& t, ValueId a, ValueId b) { return binary(t, "ge", EwOp::Ge, a, b); }
ValueId gt(Trace& t, ValueId a, ValueId b) { return binary(t, "gt", EwOp::Gt, a, b); }
ValueId lt(Trace& t, ValueId a, ValueId b) { return binary(t, "lt", EwOp::Lt, a, b); }
ValueId le(Trace& t, ValueId a, ValueId b) { return binary(t, "le", EwOp::Le, a, b); }
ValueId eq(Trace& t, ValueId a, ValueId b) { return binary(t, "eq", EwOp::Eq, a, b); }
ValueId ne(Trace& t, ValueId a, ValueId b) { return binary(t, "ne", EwOp::Ne, a, b); }
ValueId band(Trace& t, ValueId a, ValueId b) { return binary(t, "and", EwOp::And, a, b); }
ValueId bor(Trace& t, ValueId a, ValueId b) { return binary(t, "or", EwOp::Or, a, b); }
ValueId bnot(Trace& t, ValueId a) { return unary(t, "not", EwOp::Not, a); }
ValueId log_(Trace& t, ValueId x) { return unary(t, "log", EwOp::Log, x); }
ValueId exp_(Trace& t, ValueId x) { return unary(t, "exp", EwOp::Exp, x); }
ValueId abs_(Trace& t, ValueId x) { return unary(t, "abs", EwOp::Abs, x); }
ValueId sqrt_(Trace& t, ValueId x) { return unary(t, "sqrt", EwOp::Sqrt, x); }
ValueId isnan_(Trace& t, ValueId x) { return ne(t, x, x); }
ValueId key_at(Trace& t, ValueId keys, int64_t i) { return index_dims(t, keys, {0}, {i}); }

}  // namespace

// ---- tracer-level regions ------------------------------------------------------------------

Region trace_body(Trace& parent, const std::string& name, const std::vector<ArrayType>& params, const RegionBody& body) {
  auto rt = std::make_shared<Trace>(name, parent.mesh(), parent.shared_from_this());
  rt->set_loc(parent.loc());
  std::vector<ValueId> ps;
  for (const auto& p : params) ps.push_back(rt->param(p));
  std::vector<ValueId> outs = body(*rt, ps);
  ir::Function fn = rt->finish(outs);
  // Captured values first (the region's consts), then the explicit params.
  std::vector<ValueId> order(fn.params.begin() + static_cast<long>(ps.size()), fn.params.end());
  order.insert(order.end(), ps.begin(), ps.end());
  fn.params = order;
  return {std::make_shared<const ir::Function>(std::move(fn)), rt->captured()};
}

ValueId strong(Trace& t, ValueId x) {
  const ArrayType xt = t.type(x);
  return xt.weak_type() ? retype(t, x, xt.with_weak_type(false)) : x;
}

std::vector<ValueId> loop(Trace& t, const std::vector<ValueId>& init_in, const LoopCond& cond, const RegionBody& body) {
  std::vector<ValueId> init;
  for (auto v : init_in) init.push_back(strong(t, v));  // the body's results are never weak
  // A carry may come back with another type of its shape and dtype (a constant's mesh meeting
  // an operand committed to a mesh): the initial values take the body's types, as lax's
  // loops promote weak carries, and the body is traced again on them.
  for (int attempt = 0;; ++attempt) {
    std::vector<ArrayType> types;
    for (auto v : init) types.push_back(t.type(v));
    Region br = trace_body(t, "body", types, body);
    bool same = true;
    for (size_t i = 0; i < types.size(); ++i) {
      const ArrayType got = br.fn->type(br.fn->results.at(i));
      if (got == types[i]) continue;
      if (attempt >= 2 || got.shape() != types[i].shape() || got.dtype() != types[i].dtype())
        throw std::logic_error(fmt::format("internal error: a jax.random loop carry changes type: {} -> {}", types[i].repr(), got.repr()));
      init[i] = retype(t, init[i], got);
      same = false;
    }
    if (!same) continue;
    Region cr = trace_body(t, "cond", types, [&](Trace& r, const std::vector<ValueId>& xs) { return std::vector<ValueId>{cond(r, xs)}; });
    return while_loop(t, {cr.fn, cr.consts}, {br.fn, br.consts}, init, types);
  }
}

namespace {

// ---- gamma ---------------------------------------------------------------------------------

// JAX's _gamma_one on one uint32[2] key and one scalar alpha of `dtype`: a function of
// (key, alpha) -> sample (its log with log_space).
ir::Function gamma_one_function(Trace& parent, const ArrayType& key_type, const ArrayType& alpha_type, bool log_space) {
  auto gt_ = std::make_shared<Trace>("gamma_one", parent.mesh());
  gt_->set_loc(parent.loc());
  Trace& t = *gt_;
  const DType dtype = alpha_type.dtype();
  ValueId key = t.param(key_type);
  ValueId alpha = t.param(alpha_type);
  ValueId zero = c(t, 0, dtype), one = c(t, 1, dtype), two = c(t, 2, dtype), minus_one = c(t, -1, dtype);
  ValueId half = c(t, 0.5, dtype), third = c(t, 1.0 / 3.0, dtype), squeeze = c(t, 0.0331, dtype);
  // alpha < 1 is boosted to alpha + 1: Gamma(alpha) ~ Gamma(alpha + 1) * U**(1 / alpha).
  ValueId boost_mask = ge(t, alpha, one);
  ValueId alpha_plus_one = add(t, alpha, one);
  ValueId boosted = where(t, boost_mask, alpha, alpha_plus_one);
  ValueId d = sub(t, boosted, third);
  ValueId cc = div(t, third, sqrt_(t, d));
  ValueId halves = split(t, key, {2});
  ValueId loop_key = key_at(t, halves, 0), subkey = key_at(t, halves, 1);
  auto accept_cond = [&](Trace& r, const std::vector<ValueId>& s) {  // (key, X, V, U): go on while rejected
    ValueId X = s[1], V = s[2], U = s[3];
    ValueId one_r = r.lift(t, one), d_r = r.lift(t, d);
    ValueId squeeze_r = r.lift(t, squeeze);
    ValueId x_sq = mul(r, X, X);
    ValueId squeezed = sub(r, one_r, mul(r, squeeze_r, x_sq));
    ValueId first = ge(r, U, squeezed);
    ValueId log_u = log_(r, U);
    ValueId x_half = mul(r, X, r.lift(t, half));
    ValueId one_minus_v = sub(r, one_r, V);
    ValueId log_v = log_(r, V);
    ValueId tail = mul(r, d_r, add(r, one_minus_v, log_v));
    ValueId second = ge(r, log_u, add(r, x_half, tail));
    return band(r, first, second);
  };
  auto propose = [&](Trace& r, const std::vector<ValueId>& s) {
    ValueId keys = split(r, s[0], {3});
    ValueId next = key_at(r, keys, 0), x_key = key_at(r, keys, 1), u_key = key_at(r, keys, 2);
    ValueId zero_r = r.lift(t, zero), minus_one_r = r.lift(t, minus_one);
    // Normal draws until v = (1 + c x) > 0.
    auto positive = loop(
        r, {x_key, zero_r, minus_one_r},
        [&](Trace& q, const std::vector<ValueId>& kxv) { return le(q, kxv[2], q.lift(t, zero)); },
        [&](Trace& q, const std::vector<ValueId>& kxv) {
          ValueId ks = split(q, kxv[0], {2});
          ValueId k2 = key_at(q, ks, 0), sk = key_at(q, ks, 1);
          ValueId x = normal(q, sk, {}, dtype);
          ValueId one_q = q.lift(t, one);
          ValueId c_q = q.lift(t, cc);
          ValueId v = add(q, one_q, mul(q, x, c_q));
          return std::vector<ValueId>{k2, x, v};
        });
    ValueId x = positive[1], v = positive[2];
    ValueId X = mul(r, x, x);
    ValueId V = mul(r, mul(r, v, v), v);
    ValueId u_lo = c(r, 0, dtype), u_hi = c(r, 1, dtype);
    ValueId U = uniform(r, u_key, {}, dtype, u_lo, u_hi);
    return std::vector<ValueId>{next, X, V, U};
  };
  // The initial state is one the condition rejects, so the body runs at least once.
  ValueId V = loop(t, {loop_key, zero, one, two}, accept_cond, propose).at(2);
  ValueId result;
  if (log_space) {
    // log U as -Exponential (log1p(-u)), so log-space and linear samples match.
    ValueId log_samples = unary(t, "neg", EwOp::Neg, exponential(t, subkey, {}, dtype));
    ValueId no_boost = bor(t, boost_mask, eq(t, log_samples, zero));
    ValueId inv_alpha = div(t, one, alpha);
    ValueId log_boost = where(t, no_boost, zero, mul(t, log_samples, inv_alpha));
    ValueId log_d = log_(t, d);
    ValueId log_v = log_(t, V);
    result = add(t, add(t, log_d, log_v), log_boost);
  } else {
    ValueId u_lo = c(t, 0, dtype), u_hi = c(t, 1, dtype);
    ValueId samples = sub(t, one, uniform(t, subkey, {}, dtype, u_lo, u_hi));
    ValueId inv_alpha = div(t, one, alpha);
    ValueId boost = where(t, boost_mask, one, binary(t, "pow", EwOp::Pow, samples, inv_alpha));
    result = mul(t, mul(t, d, V), boost);
  }
  return t.finish({result});
}

// How the lanes of a batched sampler are laid out: the flat lanes sharded over the output
// sharding's axes (without one, over the mesh's Explicit axes), so each device runs the
// rejection loops of its part only; the lanes are gathered at the end, and out_sharding= then
// keeps each device's part.
struct Lanes {
  sharding::OutSharding flat, keys, whole;  // (n,), (n, 2), replicated
};
std::optional<Lanes> lanes_for(Trace& t, const OptOutSharding& out, int64_t n) {
  const types::AbstractMesh& mesh = t.mesh();
  const auto* ns = out ? std::get_if<types::NamedSharding>(&*out) : nullptr;
  // No out_sharding: a replicated result, whose lanes still spread over the Explicit axes.
  const types::PartitionSpec spec = !out ? types::PartitionSpec({mesh.explicit_axes()})
                                  : ns   ? ns->spec()
                                         : std::get<types::PartitionSpec>(*out);
  types::PartitionSpec::Entry axes;
  int64_t devices = 1;
  for (const auto& e : spec.entries())
    for (const auto& ax : e) {
      const auto& names = mesh.axis_names();
      auto it = std::find(names.begin(), names.end(), ax);
      if (it == names.end() || mesh.axis_type(ax) != types::AxisType::Explicit) return std::nullopt;
      axes.push_back(ax);
      devices *= mesh.axis_sizes()[static_cast<size_t>(it - names.begin())];
    }
  if (devices <= 1 || n % devices != 0) return std::nullopt;
  auto as = [&](std::vector<types::PartitionSpec::Entry> entries) -> sharding::OutSharding {
    types::PartitionSpec p(std::move(entries));
    if (ns) return ns->with_spec(p);
    return p;
  };
  return Lanes{as({axes}), as({axes, {}}), as({})};
}

// JAX's _gamma_impl: one key per element (split from the key), _gamma_one vmapped over them.
ValueId gamma_impl(Trace& t, ValueId key, ValueId a, bool log_space, const std::optional<Lanes>& lanes) {
  const auto at = t.type(a);
  const int64_t n = types::shape_product(at.shape());
  if (n == 0) return full(t, at.shape(), 0, {at.dtype(), false}, std::nullopt);
  ValueId keys = split(t, key, {n});
  ValueId alphas = reshape(t, a, {n});
  if (lanes) {
    keys = reshard(t, keys, lanes->keys);
    alphas = reshard(t, alphas, lanes->flat);
  }
  const ir::Function one =
      gamma_one_function(t, t.type(keys).with_shape({2}, {}), t.type(alphas).with_shape({}, {}).with_weak_type(false), log_space);
  auto out = batching::batch(t, one, {{keys, true}, {alphas, true}}, n);
  ValueId samples = batching::materialize(t, out.at(0), n);
  if (lanes) samples = reshard(t, samples, lanes->whole);
  return reshape(t, samples, at.shape());
}

// ---- lax.random_gamma_grad (JAX's random_gamma_grad_impl) ---------------------------------

// A scalar is its own any (and a rank-0 reduce_or would batch as a reduction of the batch).
ValueId any_(Trace& t, ValueId pred) { return t.type(pred).rank() == 0 ? pred : reduce(t, "reduce_or", ReduceKind::Or, pred, {}, false); }

// The series of igamma for x <= max(1, a), in the mode that gives d sample / d a.
ValueId igamma_series_sample_derivative(Trace& t, ValueId x, ValueId a, ValueId enabled, DType dt) {
  const double eps = dt == DType::F64 ? std::ldexp(1.0, -52) : std::ldexp(1.0, -23);
  ValueId one_ = c(t, 1, dt), zero_ = c(t, 0, dt);
  ValueId ones = broadcast_to(t, one_, t.type(a).shape()), zeros = broadcast_to(t, zero_, t.type(a).shape());
  auto vals = loop(
      t, {enabled, a, ones, ones, x, zeros, zeros}, [&](Trace& r, const std::vector<ValueId>& v) { return any_(r, v[0]); },
      [&](Trace& r, const std::vector<ValueId>& v) {
        ValueId en = v[0];
        ValueId rr = add(r, v[1], c(r, 1, dt));
        ValueId xx = v[4];
        ValueId x_over_r = div(r, xx, rr);
        ValueId dc_scaled = mul(r, v[5], x_over_r);
        ValueId c_x = mul(r, v[2], xx);
        ValueId r_sq = mul(r, rr, rr);
        ValueId dc_da = sub(r, dc_scaled, div(r, c_x, r_sq));
        ValueId dans_da = add(r, v[6], dc_da);
        ValueId cc = mul(r, v[2], div(r, xx, rr));
        ValueId ans = add(r, v[3], cc);
        ValueId ratio = abs_(r, div(r, dc_da, dans_da));
        ValueId cond = band(r, en, gt(r, ratio, c(r, eps, dt)));
        return std::vector<ValueId>{cond,
                                    where(r, en, rr, v[1]),
                                    where(r, en, cc, v[2]),
                                    where(r, en, ans, v[3]),
                                    where(r, en, xx, v[4]),
                                    where(r, en, dc_da, v[5]),
                                    where(r, en, dans_da, v[6])};
      });
  ValueId ans = vals[3], dans_da = vals[6];
  ValueId log_x = log_(t, x);
  ValueId dlogax_da = sub(t, log_x, digamma(t, add(t, a, one_)));
  ValueId inner = add(t, dans_da, mul(t, ans, dlogax_da));
  return div(t, mul(t, unary(t, "neg", EwOp::Neg, inner), x), a);
}

// The continued fraction of igammac for x > max(1, a), in the sample-derivative mode.
ValueId igammac_cf_sample_derivative(Trace& t, ValueId x, ValueId a, ValueId enabled, DType dt) {
  const double eps = dt == DType::F64 ? std::ldexp(1.0, -52) : std::ldexp(1.0, -23);
  const Shape s = t.type(x).shape();
  ValueId one_ = c(t, 1, dt);
  ValueId y = sub(t, one_, a);
  ValueId z = add(t, add(t, x, y), one_);
  ValueId cnt = c(t, 0, dt);
  ValueId pkm2 = broadcast_to(t, one_, s);
  ValueId qkm2 = x;
  ValueId pkm1 = add(t, x, one_);
  ValueId qkm1 = mul(t, z, x);
  ValueId ans = div(t, pkm1, qkm1);
  ValueId tt = broadcast_to(t, one_, s);
  ValueId zeros = broadcast_to(t, c(t, 0, dt), s);
  ValueId dqkm1_da = unary(t, "neg", EwOp::Neg, x);
  ValueId dans_da = div(t, sub(t, zeros, mul(t, ans, dqkm1_da)), qkm1);
  auto vals = loop(
      t, {enabled, ans, tt, y, z, cnt, pkm1, qkm1, pkm2, qkm2, zeros, zeros, zeros, dqkm1_da, dans_da},
      [&](Trace& r, const std::vector<ValueId>& v) {
        ValueId below = lt(r, v[5], c(r, 2000, dt));
        ValueId going = any_(r, v[0]);
        return band(r, below, going);
      },
      [&](Trace& r, const std::vector<ValueId>& v) {
        ValueId en = v[0];
        ValueId one_r = c(r, 1, dt);
        ValueId cn = add(r, v[5], one_r);
        ValueId yy = add(r, v[3], one_r);
        ValueId zz = add(r, v[4], c(r, 2, dt));
        ValueId yc = mul(r, yy, cn);
        ValueId pkm1_z = mul(r, v[6], zz);
        ValueId pkm2_yc = mul(r, v[8], yc);
        ValueId pk = sub(r, pkm1_z, pkm2_yc);
        ValueId qkm1_z = mul(r, v[7], zz);
        ValueId qkm2_yc = mul(r, v[9], yc);
        ValueId qk = sub(r, qkm1_z, qkm2_yc);
        ValueId qk_nonzero = ne(r, qk, c(r, 0, dt));
        ValueId rat = div(r, pk, qk);
        ValueId t_new = where(r, qk_nonzero, abs_(r, div(r, sub(r, v[1], rat), rat)), one_r);
        ValueId ans_new = where(r, qk_nonzero, rat, v[1]);
        // dpk_da = dpkm1_da z - pkm1 - dpkm2_da yc + pkm2 c (and alike for q)
        ValueId dp1 = sub(r, mul(r, v[12], zz), v[6]);
        ValueId dp2 = mul(r, v[10], yc);
        ValueId dp3 = mul(r, v[8], cn);
        ValueId dpk_da = add(r, sub(r, dp1, dp2), dp3);
        ValueId dq1 = sub(r, mul(r, v[13], zz), v[7]);
        ValueId dq2 = mul(r, v[11], yc);
        ValueId dq3 = mul(r, v[9], cn);
        ValueId dqk_da = add(r, sub(r, dq1, dq2), dq3);
        ValueId dans_da_new = where(r, qk_nonzero, div(r, sub(r, dpk_da, mul(r, ans_new, dqk_da)), qk), v[14]);
        ValueId grad_cond = where(r, qk_nonzero, abs_(r, sub(r, dans_da_new, v[14])), one_r);
        ValueId n_pkm2 = v[6], n_pkm1 = pk, n_qkm2 = v[7], n_qkm1 = qk;
        ValueId n_dpkm2 = v[12], n_dqkm2 = v[13], n_dpkm1 = dpk_da, n_dqkm1 = dqk_da;
        ValueId abs_pk = abs_(r, pk);
        ValueId rescale = gt(r, abs_pk, c(r, 1.0 / eps, dt));
        ValueId e = c(r, eps, dt);
        auto sc = [&](ValueId q) { return where(r, rescale, mul(r, q, e), q); };
        n_pkm2 = sc(n_pkm2);
        n_pkm1 = sc(n_pkm1);
        n_qkm2 = sc(n_qkm2);
        n_qkm1 = sc(n_qkm1);
        n_dpkm2 = sc(n_dpkm2);
        n_dqkm2 = sc(n_dqkm2);
        n_dpkm1 = sc(n_dpkm1);
        n_dqkm1 = sc(n_dqkm1);
        ValueId cond = band(r, en, gt(r, grad_cond, e));
        return std::vector<ValueId>{cond,
                                    where(r, en, ans_new, v[1]),
                                    where(r, en, t_new, v[2]),
                                    where(r, en, yy, v[3]),
                                    where(r, en, zz, v[4]),
                                    cn,
                                    where(r, en, n_pkm1, v[6]),
                                    where(r, en, n_qkm1, v[7]),
                                    where(r, en, n_pkm2, v[8]),
                                    where(r, en, n_qkm2, v[9]),
                                    where(r, en, n_dpkm2, v[10]),
                                    where(r, en, n_dqkm2, v[11]),
                                    where(r, en, n_dpkm1, v[12]),
                                    where(r, en, n_dqkm1, v[13]),
                                    where(r, en, dans_da_new, v[14])};
      });
  ValueId ans_out = vals[1], dans = vals[14];
  ValueId log_x = log_(t, x);
  ValueId dlogax_da = sub(t, log_x, digamma(t, a));
  return mul(t, unary(t, "neg", EwOp::Neg, add(t, dans, mul(t, ans_out, dlogax_da))), x);
}

}  // namespace

ValueId random_gamma_grad(Trace& t, ValueId a_in, ValueId x_in) {
  ValueId a = strong(t, a_in), x = strong(t, x_in);
  const DType dt = t.type(a).dtype();
  const Shape s = t.type(a).shape();
  ValueId zero = c(t, 0, dt), one = c(t, 1, dt);
  ValueId a_nan = isnan_(t, a);
  ValueId x_nan = isnan_(t, x);
  ValueId is_nan = bor(t, a_nan, x_nan);
  ValueId x_is_zero = eq(t, x, zero);
  ValueId x_negative = lt(t, x, zero);
  ValueId a_nonpositive = le(t, a, zero);
  ValueId domain_error = bor(t, x_negative, a_nonpositive);
  ValueId x_above_one = gt(t, x, one);
  ValueId x_above_a = gt(t, x, a);
  ValueId use_igammac = band(t, x_above_one, x_above_a);
  ValueId a_log_x = mul(t, a, log_(t, x));
  ValueId a_log_x_minus_x = sub(t, a_log_x, x);
  ValueId ax = sub(t, a_log_x_minus_x, gammaln(t, a));
  const double log_max = std::log(dt == DType::F64 ? std::numeric_limits<double>::max() : double(std::numeric_limits<float>::max()));
  ValueId underflow = lt(t, ax, c(t, -log_max, dt));
  ValueId disabled = bor(t, bor(t, bor(t, x_is_zero, domain_error), underflow), is_nan);
  ValueId enabled = broadcast_to(t, bnot(t, disabled), s);
  ValueId cf_enabled = band(t, enabled, use_igammac);
  ValueId series_enabled = band(t, enabled, bnot(t, use_igammac));
  ValueId cf = unary(t, "neg", EwOp::Neg, igammac_cf_sample_derivative(t, x, a, cf_enabled, dt));
  ValueId series = igamma_series_sample_derivative(t, x, a, series_enabled, dt);
  ValueId out = where(t, use_igammac, cf, series);
  out = where(t, x_is_zero, zero, out);
  ValueId invalid = bor(t, domain_error, is_nan);
  return where(t, invalid, c(t, NAN, dt), out);
}

namespace {

// JAX's _gamma_grad: d sample / d alpha from the sample (in log space: of log(sample)).
ValueId gamma_grad(Trace& t, ValueId sample, ValueId a, bool log_space) {
  if (!log_space) return random_gamma_grad(t, a, sample);
  const DType dt = t.type(a).dtype();
  ValueId samples = exp_(t, sample);
  const double tiny = dt == DType::F64 ? std::numeric_limits<double>::min() : double(std::numeric_limits<float>::min());
  ValueId underflowed = eq(t, samples, c(t, 0, dt));
  samples = where(t, underflowed, c(t, tiny, dt), samples);
  return div(t, random_gamma_grad(t, a, samples), samples);
}

// random_gamma_p: the sampler as a custom_jvp_call of (key, alpha) whose rule is JAX's JVP.
ValueId gamma_p(Trace& t, ValueId key, ValueId a, bool log_space, const OptOutSharding& out) {
  const auto at = t.type(a);
  const std::optional<Lanes> lanes = lanes_for(t, out, types::shape_product(at.shape()));
  Region body = trace_body(t, "random_gamma", {t.type(key), at}, [&](Trace& r, const std::vector<ValueId>& ps) {
    return std::vector<ValueId>{gamma_impl(r, ps[0], ps[1], log_space, lanes)};
  });
  if (!body.consts.empty()) throw std::logic_error("internal error: random_gamma captured outer values");
  autodiff::CustomJvpRule rule = [log_space, lanes](Trace& rt, const std::vector<ValueId>& primals, const std::vector<ValueId>& tangents) {
    ValueId sample = gamma_impl(rt, primals.at(0), primals.at(1), log_space, lanes);
    ValueId g = gamma_grad(rt, sample, primals.at(1), log_space);
    ValueId dy = mul(rt, tangents.at(1), g);
    return std::pair<std::vector<ValueId>, std::vector<ValueId>>{{sample}, {dy}};
  };
  ir::attr::CustomJvpCall attrs{{"random_gamma", log_space ? "log_space" : "linear"},
                                std::make_shared<const autodiff::CustomJvpRule>(std::move(rule))};
  return t.emit_multi(ir::OpKind::CustomJvpCall, {key, a}, {body.fn->type(body.fn->results.at(0))}, attrs, {body.fn}).at(0);
}

// A parameter of `dtype` broadcast to `shape`.
ValueId param_as(Trace& t, ValueId p, const Shape& shape, DType dtype) {
  ValueId x = strong(t, convert(t, p, {dtype, false}));
  return t.type(x).shape() == shape ? x : broadcast_to(t, x, shape);
}

}  // namespace

ValueId gamma(Trace& t, ValueId key, ValueId a, const Shape& shape, DType dtype, bool log_space, const OptOutSharding& out) {
  return gamma_p(t, key, param_as(t, a, shape, dtype), log_space, out);
}

namespace {

// JAX's _loggamma_chisquare: log Gamma(a) from a chi-square quantile series (Goldstein's
// Algorithm 451, with the leading constant 1) cubed, at nu = 2a degrees of freedom.
ValueId loggamma_chisquare(Trace& t, ValueId key, ValueId a) {
  static constexpr double kCoef[7][3] = {{1.0, -0.2237368, -0.01513904},          {0.4713941, 0.02607083, -0.008986007},
                                         {0.0001348028, 0.01128186, 0.02277679},  {-0.008553069, -0.01153761, -0.01323293},
                                         {0.00312558, 0.005169654, -0.006950356}, {-0.0008426812, 0.00253001, 0.001060438},
                                         {0.00009780499, -0.001450117, 0.001565326}};
  const auto at = t.type(a);
  const DType d = at.dtype();
  ValueId nu = mul(t, c(t, 2, d), a);
  ValueId x = normal(t, key, at.shape(), d);
  ValueId u = div(t, c(t, 1, d), nu);
  ValueId tt = mul(t, x, unary(t, "rsqrt", EwOp::Rsqrt, nu));
  auto row = [&](const double* r) {  // r0 + u (r1 + u r2)
    ValueId c0 = c(t, r[0], d);
    ValueId c1 = c(t, r[1], d);
    ValueId c2 = c(t, r[2], d);
    ValueId inner = add(t, c1, mul(t, u, c2));
    return add(t, c0, mul(t, u, inner));
  };
  ValueId poly = row(kCoef[6]);
  for (int i = 5; i >= 0; --i) {
    ValueId scaled = mul(t, poly, tt);
    ValueId coef = row(kCoef[i]);
    poly = add(t, scaled, coef);
  }
  const double tiny = d == DType::F64 ? std::numeric_limits<double>::min() : double(std::numeric_limits<float>::min());
  poly = binary(t, "max", EwOp::Max, poly, c(t, tiny, d));
  ValueId log_a = log_(t, a);
  ValueId three = c(t, 3, d);
  ValueId log_poly = log_(t, poly);
  return add(t, log_a, mul(t, three, log_poly));
}

}  // namespace

ValueId gamma_approx(Trace& t, ValueId key, ValueId a_in, const Shape& shape, DType dtype, bool log_space) {
  // Stuart's boost: log G_a = log G_(a+4) + sum_k log U_k / (a + k), log U_k = -Exponential.
  constexpr int64_t kBoosts = 4;
  ValueId a = param_as(t, a_in, shape, dtype);
  ValueId keys = split(t, key, {2});
  ValueId a_boosted = add(t, a, c(t, kBoosts, dtype));
  ValueId log_base = loggamma_chisquare(t, key_at(t, keys, 0), a_boosted);
  Shape ks(shape.size() + 1, 1);
  ks[0] = kBoosts;
  ValueId k = reshape(t, iota(t, dtype, {kBoosts}, 0, std::nullopt), ks);
  Shape boosted_shape = shape;
  boosted_shape.insert(boosted_shape.begin(), kBoosts);
  ValueId log_u = unary(t, "neg", EwOp::Neg, exponential(t, key_at(t, keys, 1), boosted_shape, dtype));
  ValueId denom = add(t, expand_dims(t, a, {0}), k);
  ValueId boost = reduce(t, "sum", ReduceKind::Sum, div(t, log_u, denom), {0}, false);
  ValueId log_sample = add(t, log_base, boost);
  return log_space ? log_sample : exp_(t, log_sample);
}

ValueId beta(Trace& t, ValueId key, ValueId a, ValueId b, const Shape& shape, DType dtype, bool approximate) {
  ValueId keys = split(t, key, {2});
  ValueId aa = param_as(t, a, shape, dtype);
  ValueId bb = param_as(t, b, shape, dtype);
  ValueId log_a = approximate ? gamma_approx(t, key_at(t, keys, 0), aa, shape, dtype, true) : gamma(t, key_at(t, keys, 0), aa, shape, dtype, true);
  ValueId log_b = approximate ? gamma_approx(t, key_at(t, keys, 1), bb, shape, dtype, true) : gamma(t, key_at(t, keys, 1), bb, shape, dtype, true);
  // gamma_a / (gamma_a + gamma_b) without losing precision.
  ValueId log_max = binary(t, "max", EwOp::Max, log_a, log_b);
  ValueId ga = exp_(t, sub(t, log_a, log_max));
  ValueId gb = exp_(t, sub(t, log_b, log_max));
  return div(t, ga, add(t, ga, gb));
}

ValueId dirichlet(Trace& t, ValueId key, ValueId alpha, const Shape& shape, DType dtype) {
  Shape full_shape = shape;
  full_shape.push_back(t.type(alpha).shape().back());
  ValueId log_gamma = gamma(t, key, alpha, full_shape, dtype, true);
  return nn_softmax(t, log_gamma, {static_cast<int64_t>(full_shape.size()) - 1});
}

ValueId chisquare(Trace& t, ValueId key, ValueId df, const Shape& shape, DType dtype, bool approximate) {
  ValueId d = convert(t, df, {dtype, false});
  ValueId two = c(t, 2, dtype);
  ValueId half_df = div(t, d, two);
  ValueId log_g = approximate ? gamma_approx(t, key, half_df, shape, dtype, true) : gamma(t, key, half_df, shape, dtype, true);
  return mul(t, exp_(t, log_g), two);
}

ValueId f(Trace& t, ValueId key, ValueId dfnum, ValueId dfden, const Shape& shape, DType dtype) {
  ValueId den_df = convert(t, dfden, {dtype, false});
  ValueId num_df = convert(t, dfnum, {dtype, false});
  ValueId keys = split(t, key, {2});
  ValueId chi2_num = chisquare(t, key_at(t, keys, 1), num_df, shape, dtype, false);
  ValueId chi2_den = chisquare(t, key_at(t, keys, 0), den_df, shape, dtype, false);
  ValueId num = div(t, chi2_num, num_df);
  ValueId den = div(t, chi2_den, den_df);
  return div(t, num, den);
}

ValueId student_t(Trace& t, ValueId key, ValueId df, const Shape& shape, DType dtype) {
  ValueId d = convert(t, df, {dtype, false});
  ValueId keys = split(t, key, {2});
  ValueId n = normal(t, key_at(t, keys, 0), shape, dtype);
  ValueId half_df = div(t, d, c(t, 2, dtype));
  ValueId g = gamma(t, key_at(t, keys, 1), half_df, shape, dtype, false);
  return mul(t, n, sqrt_(t, div(t, half_df, g)));
}

ValueId generalized_normal(Trace& t, ValueId key, ValueId inv_p, const Shape& shape, DType dtype) {
  ValueId keys = split(t, key, {2});
  ValueId g = gamma(t, key_at(t, keys, 0), inv_p, shape, dtype, false);
  ValueId r = rademacher(t, key_at(t, keys, 1), shape, dtype);
  return mul(t, r, power(t, "power", g, inv_p));
}

ValueId ball(Trace& t, ValueId key, int64_t d, ValueId p, ValueId inv_p, std::optional<int64_t> int_p, const Shape& shape,
             DType dtype) {
  ValueId keys = split(t, key, {2});
  Shape gshape = shape;
  gshape.push_back(d);
  ValueId g = generalized_normal(t, key_at(t, keys, 0), inv_p, gshape, dtype);
  ValueId e = exponential(t, key_at(t, keys, 1), shape, dtype);
  ValueId mag = abs_(t, g);
  ValueId powered = int_p ? integer_pow(t, mag, *int_p) : power(t, "power", mag, p);
  ValueId s = reduce(t, "sum", ReduceKind::Sum, powered, {static_cast<int64_t>(shape.size())}, false);
  ValueId norm = power(t, "power", add(t, s, e), inv_p);
  return div(t, g, expand_dims(t, norm, {static_cast<int64_t>(shape.size())}));
}

}  // namespace shard::trace::random
