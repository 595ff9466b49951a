// NaN-ignoring reductions and order statistics of jax.numpy and of the host numpy module:
// nansum nanmean nanmax nanmin median percentile quantile (linear interpolation) average.
// One traced body per function, shared by both modules: jnp through apply() (float32, jit
// and grad apply), numpy through run1 on host arrays (float64 for integer inputs).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "api/modules/jnp_module.hpp"
#include "api/modules/numpy_internal.hpp"
#include "interp/builtins/support.hpp"
#include "trace/promotion.hpp"

namespace shard::api {

using ir::EwOp;
using ir::ReduceKind;
using interp::ArgParser;

namespace {

[[noreturn]] void fail(const std::string& kind, const std::string& msg) { throw types::ShardingError(kind, msg); }

ValueId cst(Trace& t, double v, ValueId like) { return trace::scalar_constant(t, v, {t.type(like).dtype(), true}); }
ValueId is_nan(Trace& t, ValueId x) { return trace::binary(t, "ne", EwOp::Ne, x, x); }

// The float dtype a statistic computes in: floats keep theirs; others become `dflt`.
ValueId to_float(Trace& t, ValueId x, DType dflt) {
  if (types::is_float(t.type(x).dtype())) return x;
  return trace::convert(t, x, {dflt, false});
}

std::vector<int64_t> axes_or_all(const std::optional<std::vector<int64_t>>& axes) { return axes.value_or(std::vector<int64_t>{}); }

// kind: 0 sum, 1 mean, 2 max, 3 min, 4 prod, 5 var, 6 std.
ValueId nan_reduce(Trace& t, ValueId x, int kind, const std::optional<std::vector<int64_t>>& axes, bool keepdims, DType fdflt,
                   std::optional<DType> int_acc, int64_t ddof = 0) {
  const auto ax = axes_or_all(axes);
  const bool fl = types::is_float(t.type(x).dtype());
  if (!fl) {
    if (kind == 1) return trace::mean(t, to_float(t, x, fdflt), ax, keepdims);
    if (kind >= 5) return trace::var(t, to_float(t, x, fdflt), ax, keepdims, ddof, kind == 6);
    if (kind == 4) {
      if (int_acc) x = trace::convert(t, x, {*int_acc, false});
      return trace::reduce(t, "nanprod", ReduceKind::Prod, x, ax, keepdims);
    }
    if (kind == 0) {
      if (int_acc) x = trace::convert(t, x, {*int_acc, false});
      return trace::reduce(t, "nansum", ReduceKind::Sum, x, ax, keepdims);
    }
    return trace::reduce(t, kind == 2 ? "nanmax" : "nanmin", kind == 2 ? ReduceKind::Max : ReduceKind::Min, x, ax, keepdims);
  }
  // float16 / bfloat16 sums, products, means and variances compute in float32, rounded once
  // at the end, as jnp's reductions do (upcast_f16_for_computation); max/min stay exact.
  if (const DType d = t.type(x).dtype(); (d == DType::F16 || d == DType::BF16) && kind != 2 && kind != 3) {
    ValueId r = nan_reduce(t, trace::convert(t, x, {DType::F32, false}), kind, axes, keepdims, fdflt, int_acc, ddof);
    return trace::convert(t, r, {d, false});
  }
  ValueId nan = is_nan(t, x);
  if (kind == 4) return trace::reduce(t, "nanprod", ReduceKind::Prod, trace::where(t, nan, cst(t, 1, x), x), ax, keepdims);
  if (kind >= 5) {
    ValueId m = nan_reduce(t, x, 1, axes, true, fdflt, int_acc);
    ValueId zero = cst(t, 0, x);
    ValueId d = trace::where(t, nan, zero, trace::binary(t, "sub", EwOp::Sub, x, m));
    ValueId ss = trace::reduce(t, "nanvar", ReduceKind::Sum, trace::binary(t, "mul", EwOp::Mul, d, d), ax, keepdims);
    ValueId ok = trace::convert(t, trace::unary(t, "not", EwOp::Not, nan), {t.type(x).dtype(), false});
    ValueId n = trace::reduce(t, "nanvar", ReduceKind::Sum, ok, ax, keepdims);
    ValueId den = trace::binary(t, "sub", EwOp::Sub, n, cst(t, static_cast<double>(ddof), n));
    ValueId v = trace::binary(t, "div", EwOp::Div, ss, den);
    ValueId no_dof = trace::binary(t, "le", EwOp::Le, den, cst(t, 0, den));
    v = trace::where(t, no_dof, cst(t, std::numeric_limits<double>::quiet_NaN(), v), v);
    return kind == 6 ? trace::unary(t, "sqrt", EwOp::Sqrt, v) : v;
  }
  if (kind == 0 || kind == 1) {
    ValueId s = trace::reduce(t, "nansum", ReduceKind::Sum, trace::where(t, nan, cst(t, 0, x), x), ax, keepdims);
    if (kind == 0) return s;
    ValueId ok = trace::convert(t, trace::unary(t, "not", EwOp::Not, nan), {t.type(x).dtype(), false});
    ValueId n = trace::reduce(t, "nanmean", ReduceKind::Sum, ok, ax, keepdims);
    return trace::binary(t, "div", EwOp::Div, s, n);
  }
  const double inf = std::numeric_limits<double>::infinity();
  ValueId filled = trace::where(t, nan, cst(t, kind == 2 ? -inf : inf, x), x);
  ValueId r = trace::reduce(t, kind == 2 ? "nanmax" : "nanmin", kind == 2 ? ReduceKind::Max : ReduceKind::Min, filled, ax, keepdims);
  ValueId all_nan = trace::reduce(t, "nanmax", ReduceKind::And, nan, ax, keepdims);
  return trace::where(t, all_nan, cst(t, std::numeric_limits<double>::quiet_NaN(), r), r);
}

// nanargmax / nanargmin: NaNs never win; an all-NaN slice gives -1 (jnp). Second result:
// whether any slice was all NaN (numpy raises).
std::vector<ValueId> nan_arg(Trace& t, ValueId x, bool is_max, std::optional<int64_t> axis, bool keepdims, DType idx) {
  const char* name = is_max ? "nanargmax" : "nanargmin";
  if (!types::is_float(t.type(x).dtype())) {
    ValueId r = trace::convert(t, trace::argminmax(t, name, is_max ? ReduceKind::Max : ReduceKind::Min, x, axis, keepdims), {idx, false});
    return {r, trace::scalar_constant(t, 0, {DType::Bool, false})};
  }
  ValueId nan = is_nan(t, x);
  const double inf = std::numeric_limits<double>::infinity();
  ValueId filled = trace::where(t, nan, cst(t, is_max ? -inf : inf, x), x);
  ValueId r = trace::convert(t, trace::argminmax(t, name, is_max ? ReduceKind::Max : ReduceKind::Min, filled, axis, keepdims), {idx, false});
  std::vector<int64_t> ax = axis ? std::vector<int64_t>{*axis} : std::vector<int64_t>{};
  ValueId all_nan = trace::reduce(t, name, ReduceKind::And, nan, ax, keepdims);
  ValueId any = trace::reduce(t, name, ReduceKind::Or, all_nan, {}, false);
  return {trace::where(t, all_nan, trace::scalar_constant(t, -1, {idx, true}), r), any};
}

// Linear-interpolation quantiles at static qs (in [0, 1]); scalar q drops the leading dim.
// xs (B..., n), idx (B...) int32 -> xs[..., idx] (a one-hot select, exact and NaN-safe).
ValueId pick_last(Trace& t, ValueId xs, ValueId idx) {
  Shape full = t.type(xs).shape();
  const int64_t r = static_cast<int64_t>(full.size()) - 1;
  ValueId io = trace::iota(t, DType::I32, full, r, std::nullopt);
  ValueId ie = trace::broadcast_to(t, trace::expand_dims(t, idx, {r}), full);
  ValueId hit = trace::binary(t, "eq", EwOp::Eq, io, ie);
  ValueId sel = trace::where(t, hit, xs, cst(t, 0, xs));
  return trace::reduce(t, "quantile", ReduceKind::Sum, sel, {r}, false);
}

// nanquantile at q: NaNs sort last, so the valid entries are the first cnt of each slice.
ValueId nan_quantile_at(Trace& t, ValueId sorted_last, ValueId cnt, double q) {
  ValueId one = cst(t, 1, cnt), zero = cst(t, 0, cnt);
  ValueId last = trace::binary(t, "max", EwOp::Max, trace::binary(t, "sub", EwOp::Sub, cnt, one), zero);
  ValueId pos = trace::binary(t, "mul", EwOp::Mul, last, cst(t, q, cnt));
  ValueId lof = trace::unary(t, "floor", EwOp::Floor, pos);
  ValueId hif = trace::binary(t, "min", EwOp::Min, trace::binary(t, "add", EwOp::Add, lof, one), last);
  ValueId frac = trace::binary(t, "sub", EwOp::Sub, pos, lof);
  ValueId vlo = pick_last(t, sorted_last, trace::convert(t, lof, {DType::I32, false}));
  ValueId vhi = pick_last(t, sorted_last, trace::convert(t, hif, {DType::I32, false}));
  ValueId d = trace::binary(t, "sub", EwOp::Sub, vhi, vlo);
  ValueId a = trace::binary(t, "add", EwOp::Add, vlo, trace::binary(t, "mul", EwOp::Mul, d, frac));
  ValueId b = trace::binary(t, "sub", EwOp::Sub, vhi, trace::binary(t, "mul", EwOp::Mul, d, trace::binary(t, "sub", EwOp::Sub, one, frac)));
  ValueId v = trace::where(t, trace::binary(t, "lt", EwOp::Lt, frac, cst(t, 0.5, frac)), a, b);
  v = trace::where(t, trace::binary(t, "eq", EwOp::Eq, frac, zero), vlo, v);
  ValueId none = trace::binary(t, "eq", EwOp::Eq, cnt, zero);
  return trace::where(t, none, cst(t, std::numeric_limits<double>::quiet_NaN(), v), v);
}

ValueId quantile_body(Trace& t, ValueId x, const std::vector<double>& qs, bool scalar_q, const std::optional<std::vector<int64_t>>& axes,
                      bool keepdims, DType fdflt, bool ignore_nan = false, int method = 0) {
  // method: 0 linear, 1 lower, 2 higher, 3 nearest, 4 midpoint; numpy keeps the input dtype
  // for the three that pick an element (the caller leaves x as it is then).
  if (method == 0 || method == 4 || types::is_float(t.type(x).dtype()) || fdflt == DType::F32) x = to_float(t, x, fdflt);
  const Shape orig = t.type(x).shape();
  std::optional<int64_t> axis;
  std::optional<Shape> keep_shape;  // several axes: merged into one last axis
  if (axes && axes->empty()) fail("NotImplementedError", "quantile with axis=() is not supported yet");
  if (axes && axes->size() == 1) axis = (*axes)[0];
  if (axes && axes->size() > 1) {
    std::vector<int64_t> ax2;
    for (auto a : *axes) ax2.push_back(trace::normalize_axis("quantile", a, orig.size()));
    std::sort(ax2.begin(), ax2.end());
    if (std::adjacent_find(ax2.begin(), ax2.end()) != ax2.end()) fail("ValueError", "repeated axis");
    std::vector<int64_t> perm;
    Shape s, ks = orig;
    for (int64_t d = 0; d < static_cast<int64_t>(orig.size()); ++d)
      if (!std::binary_search(ax2.begin(), ax2.end(), d)) {
        perm.push_back(d);
        s.push_back(orig[d]);
      }
    int64_t prod = 1;
    for (auto a : ax2) {
      perm.push_back(a);
      prod *= orig[a];
      ks[a] = 1;
    }
    s.push_back(prod);
    x = trace::reshape(t, trace::transpose(t, x, perm), s);
    axis = static_cast<int64_t>(s.size()) - 1;
    keep_shape = ks;
  }
  const int64_t r0 = static_cast<int64_t>(t.type(x).rank());
  int64_t ax;
  if (!axis) {
    x = trace::reshape(t, x, {t.type(x).num_elements()});
    ax = 0;
  } else {
    ax = trace::normalize_axis("quantile", *axis, r0);
  }
  const int64_t n = t.type(x).shape()[ax];
  if (n == 0) {  // numpy and jnp: NaN (numpy warns "Mean of empty slice")
    Shape rs = t.type(x).shape();
    rs.erase(rs.begin() + ax);
    if (keepdims && keep_shape) rs = *keep_shape;
    else if (keepdims && axis) rs.insert(rs.begin() + ax, 1);
    else if (keepdims) rs = Shape(orig.size(), 1);
    if (!scalar_q) rs.insert(rs.begin(), static_cast<int64_t>(qs.size()));
    const DType d = types::is_float(t.type(x).dtype()) ? t.type(x).dtype() : fdflt;
    return trace::full(t, rs, std::numeric_limits<double>::quiet_NaN(), {d, false}, std::nullopt);
  }
  ValueId sorted = trace::sort(t, x, ax);
  ValueId any_nan = trace::reduce(t, "quantile", ReduceKind::Or, is_nan(t, x), {ax}, false);
  ValueId sorted_last = sorted, cnt = any_nan;
  if (ignore_nan) {
    sorted_last = trace::move_dim(t, sorted, ax, t.type(sorted).rank() - 1);
    ValueId ok = trace::convert(t, trace::unary(t, "not", EwOp::Not, is_nan(t, x)), {t.type(x).dtype(), false});
    cnt = trace::reduce(t, "nanquantile", ReduceKind::Sum, ok, {ax}, false);
  }
  std::vector<ValueId> outs;
  for (double q : qs) {
    const double pos = q * static_cast<double>(n - 1);
    int64_t lo = static_cast<int64_t>(std::floor(pos));
    lo = std::clamp<int64_t>(lo, 0, n - 1);
    const int64_t hi = std::min(lo + 1, n - 1);
    const double frac = pos - static_cast<double>(lo);
    ValueId vlo = trace::index_dims(t, sorted, {ax}, {lo}), vhi = trace::index_dims(t, sorted, {ax}, {hi});
    ValueId d = trace::binary(t, "sub", EwOp::Sub, vhi, vlo);
    // numpy's lerp: a + d*w below one half, b - d*(1 - w) from one half on.
    ValueId v = frac < 0.5 ? trace::binary(t, "add", EwOp::Add, vlo, trace::binary(t, "mul", EwOp::Mul, d, cst(t, frac, d)))
                           : trace::binary(t, "sub", EwOp::Sub, vhi, trace::binary(t, "mul", EwOp::Mul, d, cst(t, 1 - frac, d)));
    if (frac == 0) v = vlo;
    if (method == 1) v = vlo;
    if (method == 2) v = frac == 0 ? vlo : vhi;
    if (method == 3) v = trace::index_dims(t, sorted, {ax}, {std::clamp<int64_t>(static_cast<int64_t>(std::nearbyint(pos)), 0, n - 1)});
    if (method == 4 && frac != 0)
      v = trace::binary(t, "add", EwOp::Add, vlo, trace::binary(t, "mul", EwOp::Mul, d, cst(t, 0.5, d)));
    if (ignore_nan) v = nan_quantile_at(t, sorted_last, cnt, q);
    else v = trace::where(t, any_nan, cst(t, std::numeric_limits<double>::quiet_NaN(), v), v);
    if (keepdims && keep_shape) {
      v = trace::reshape(t, v, *keep_shape);
    } else if (keepdims) {
      if (axis) v = trace::expand_dims(t, v, {ax});
      else {
        Shape ones(orig.size(), 1);
        v = trace::reshape(t, v, ones);
      }
    }
    outs.push_back(v);
  }
  if (scalar_q) return outs[0];
  return trace::stack(t, outs, 0);
}

// scl (returned=True): the sum of the weights (the element count without weights), in the
// average's shape and dtype.
ValueId average_body(Trace& t, ValueId x, std::optional<ValueId> w, std::optional<int64_t> axis, bool keepdims, DType fdflt,
                     ValueId* scl = nullptr) {
  if (!w) {
    x = to_float(t, x, fdflt);
    const int64_t total = t.type(x).num_elements();
    ValueId m = trace::mean(t, x, axis ? std::vector<int64_t>{*axis} : std::vector<int64_t>{}, keepdims);
    if (scl) {
      const double n = axis ? static_cast<double>(t.type(x).shape()[trace::normalize_axis("average", *axis, t.type(x).rank())])
                            : static_cast<double>(total);
      *scl = trace::broadcast_to(t, trace::scalar_constant(t, n, {t.type(m).dtype(), false}), t.type(m).shape());
    }
    return m;
  }
  ValueId wv = *w;
  const Shape xs = t.type(x).shape(), ws = t.type(wv).shape();
  const int64_t r = static_cast<int64_t>(xs.size());
  int64_t ax = 0;
  if (axis) ax = trace::normalize_axis("average", *axis, r);
  if (xs != ws) {
    if (!axis) fail("TypeError", "Axis must be specified when shapes of a and weights differ.");
    if (ws.size() != 1) fail("TypeError", "1D weights expected when shapes of a and weights differ.");
    if (ws[0] != xs[ax]) fail("ValueError", "Length of weights not compatible with specified axis.");
    wv = trace::broadcast_in_dim(t, wv, xs, {ax});
  }
  ValueId p = trace::binary(t, "mul", EwOp::Mul, x, wv);  // the common dtype
  DType common = t.type(p).dtype();
  if (!types::is_float(common)) common = fdflt;
  p = trace::convert(t, p, {common, false});
  wv = trace::convert(t, wv, {common, false});
  std::vector<int64_t> axes = axis ? std::vector<int64_t>{ax} : std::vector<int64_t>{};
  ValueId num = trace::reduce(t, "average", ReduceKind::Sum, p, axes, keepdims);
  ValueId den = trace::reduce(t, "average", ReduceKind::Sum, trace::broadcast_to(t, wv, xs), axes, keepdims);
  ValueId avg = trace::binary(t, "div", EwOp::Div, num, den);
  if (scl) *scl = trace::broadcast_to(t, trace::convert(t, den, {t.type(avg).dtype(), false}), t.type(avg).shape());
  return avg;
}

// cov / corrcoef: rows are variables (rowvar), columns observations; 1-D is one variable.
ValueId cov_body(Trace& t, ValueId m, std::optional<ValueId> y, bool rowvar, std::optional<int64_t> ddof_opt, bool bias, bool corr,
                 DType fdflt) {
  auto prep = [&](ValueId v) {
    v = to_float(t, v, fdflt);
    const auto r = t.type(v).rank();
    if (r > 2) fail("ValueError", "m has more than 2 dimensions");
    if (r < 2) v = trace::reshape(t, v, {1, t.type(v).num_elements()});
    else if (!rowvar) v = trace::transpose(t, v, {1, 0});
    return v;
  };
  ValueId x = prep(m);
  if (y) {
    ValueId yy = prep(*y);
    auto d = trace::promote(dtw(t, x), dtw(t, yy));
    x = trace::concatenate(t, {trace::convert(t, x, {d.dtype, false}), trace::convert(t, yy, {d.dtype, false})}, 0);
  }
  const int64_t n = t.type(x).shape()[1];
  const int64_t ddof = ddof_opt ? *ddof_opt : (bias ? 0 : 1);
  ValueId mean = trace::mean(t, x, {1}, true);
  ValueId xc = trace::binary(t, "sub", EwOp::Sub, x, mean);
  sharding::DotDims dd;
  dd.lhs_contracting = {1};
  dd.rhs_contracting = {1};
  ValueId c = trace::dot_general(t, xc, xc, dd, std::nullopt, "dot_general");
  c = trace::binary(t, "div", EwOp::Div, c, cst(t, static_cast<double>(n - ddof), c));
  if (corr) {
    const int64_t k = t.type(c).shape()[0];
    ValueId eye = trace::eye(t, k, k, 0, {DType::Bool, false}, std::nullopt);
    ValueId dg = trace::reduce(t, "corrcoef", ReduceKind::Sum, trace::where(t, eye, c, cst(t, 0, c)), {1}, false);
    ValueId sd = trace::unary(t, "sqrt", EwOp::Sqrt, dg);
    c = trace::binary(t, "div", EwOp::Div, c, trace::reshape(t, sd, {k, 1}));
    c = trace::binary(t, "div", EwOp::Div, c, trace::reshape(t, sd, {1, k}));
    ValueId lo = cst(t, -1, c), hi = cst(t, 1, c);
    c = trace::clip(t, c, lo, hi);
  }
  if (t.type(c).shape()[0] == 1) c = trace::reshape(t, c, {});
  return c;
}

// q as a list of floats (scaled by 1/scale), checked against [0, 1].
std::vector<double> q_list(Interp& I, const Value& v, double scale, bool& scalar, const char* err) {
  std::vector<double> out;
  scalar = false;
  if (is_array_like(v) && type_of(v).rank() == 0) {
    scalar = true;
    out.push_back(float_arg(I, v, "q"));
  } else if (auto* a = as_array(v)) {
    if (a->array->type.rank() > 1) I.raise("NotImplementedError", "quantile: q with more than one dimension is not supported yet");
    for (auto& e : array_elements(concrete(I, v, "q"))) out.push_back(float_arg(I, e, "q"));
  } else if (v && (v->kind == interp::ObjKind::List || v->kind == interp::ObjKind::Tuple)) {
    for (auto& e : I.to_vector(v)) out.push_back(float_arg(I, e, "q"));
  } else {
    scalar = true;
    out.push_back(float_arg(I, v, "q"));
  }
  for (auto& q : out) {
    q /= scale;
    if (!(q >= 0 && q <= 1)) I.raise("ValueError", err);
  }
  return out;
}

std::optional<int64_t> one_axis(Interp& I, const Value& v, const char* name) {
  if (is_none(v)) return std::nullopt;
  if (!interp::bi::int_of(v)) I.raise("NotImplementedError", fmt::format("{}: a tuple axis is not supported yet", name));
  return int_arg(I, v, "axis");
}

bool keep_of(Interp& I, const Value& v) { return !is_none(v) && I.truthy(v); }

Value device_operand(Interp& I, const Value& v) {
  if (is_array_like(v) || python_scalar_type(v, false)) return v;
  return to_array(I, v, std::nullopt, false);
}

int method_of(Interp& I, const Value& v, bool ignore_nan) {
  if (is_none(v)) return 0;
  std::string m = I.str(v);
  const char* names[] = {"linear", "lower", "higher", "nearest", "midpoint"};
  for (int k = 0; k < 5; ++k)
    if (m == names[k]) {
      if (k && ignore_nan) I.raise("NotImplementedError", fmt::format("nan quantiles: method '{}' is not supported yet", m));
      return k;
    }
  I.raise("ValueError", fmt::format("'{}' is not a valid method. Use one of: ('inverted_cdf', 'averaged_inverted_cdf', "
                                    "'closest_observation', 'interpolated_inverted_cdf', 'hazen', 'weibull', 'linear', 'median_unbiased', "
                                    "'normal_unbiased', 'lower', 'higher', 'midpoint', 'nearest')", m));
}

struct QSpec {
  const char* name;
  double scale;  // q / scale in [0, 1]
  const char* err;
  bool ignore_nan;
};
constexpr QSpec kQuantile{"quantile", 1, "Quantiles must be in the range [0, 1]", false};
constexpr QSpec kPercentile{"percentile", 100, "Percentiles must be in the range [0, 100]", false};
constexpr QSpec kNanQuantile{"nanquantile", 1, "Quantiles must be in the range [0, 1]", true};
constexpr QSpec kNanPercentile{"nanpercentile", 100, "Percentiles must be in the range [0, 100]", true};

}  // namespace

void add_jnp_nan_stats(Interp&, ModuleObj& m) {
  static const char* names[] = {"nansum", "nanmean", "nanmax", "nanmin", "nanprod", "nanvar", "nanstd"};
  for (int kind = 0; kind < 7; ++kind) {
    const char* nm = names[kind];
    def_jnp(m, nm, [nm, kind](Interp& I, CallArgs& a) {
      std::vector<std::string> sig = {"a", "axis=", "dtype=", "out="};
      if (kind >= 5) sig.push_back("ddof=");
      for (const char* k : {"keepdims=", "initial=", "where="}) sig.push_back(k);
      ArgParser p(I, a, nm, sig);
      const int64_t ddof = kind >= 5 && !is_none(p.get("ddof")) ? int_arg(I, p.get("ddof"), "ddof") : 0;
      for (const char* k : {"out", "initial", "where"})
        if (!is_none(p.get(k))) I.raise("NotImplementedError", fmt::format("{}: the '{}' argument is not supported yet", nm, k));
      auto axes = axes_arg(I, p.get("axis"));
      bool keep = keep_of(I, p.get("keepdims"));
      auto dt = dtype_arg(I, p.get("dtype"));
      return apply(I, nm, {device_operand(I, p.get("a"))}, [&](Trace& t, const std::vector<ValueId>& ids) {
        ValueId x = ids[0];
        if (dt) x = trace::convert(t, x, {storage_dtype(*dt, false), false});
        return std::vector<ValueId>{nan_reduce(t, x, kind, axes, keep, DType::F32, std::nullopt, ddof)};
      });
    });
  }
  for (bool is_max : {true, false}) {
    const char* nm = is_max ? "nanargmax" : "nanargmin";
    def_jnp(m, nm, [nm, is_max](Interp& I, CallArgs& a) {
      ArgParser p(I, a, nm, {"a", "axis=", "out=", "keepdims="});
      auto axis = one_axis(I, p.get("axis"), nm);
      bool keep = keep_of(I, p.get("keepdims"));
      return apply(I, nm, {device_operand(I, p.get("a"))}, [&](Trace& t, const std::vector<ValueId>& ids) {
        return std::vector<ValueId>{nan_arg(t, ids[0], is_max, axis, keep, DType::I32)[0]};
      });
    });
  }
  for (const QSpec* s : {&kQuantile, &kPercentile, &kNanQuantile, &kNanPercentile}) {
    def_jnp(m, s->name, [s](Interp& I, CallArgs& a) {
      ArgParser p(I, a, s->name, {"a", "q", "axis=", "out=", "overwrite_input=", "method=", "keepdims=", "*", "interpolation="});
      const int method = method_of(I, p.get("method"), s->ignore_nan);
      bool scalar;
      auto qs = q_list(I, p.get("q"), s->scale, scalar, s->err);
      auto axis = api::axes_arg(I, p.get("axis"));
      bool keep = keep_of(I, p.get("keepdims"));
      return apply(I, s->name, {device_operand(I, p.get("a"))}, [&](Trace& t, const std::vector<ValueId>& ids) {
        return std::vector<ValueId>{quantile_body(t, ids[0], qs, scalar, axis, keep, DType::F32, s->ignore_nan, method)};
      });
    });
  }
  for (bool ign : {false, true}) {
  const char* mname = ign ? "nanmedian" : "median";
  def_jnp(m, mname, [mname, ign](Interp& I, CallArgs& a) {
    ArgParser p(I, a, mname, {"a", "axis=", "out=", "overwrite_input=", "keepdims="});
    auto axis = api::axes_arg(I, p.get("axis"));
    bool keep = keep_of(I, p.get("keepdims"));
    return apply(I, mname, {device_operand(I, p.get("a"))}, [&](Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{quantile_body(t, ids[0], std::vector<double>{0.5}, true, axis, keep, DType::F32, ign)};
    });
  });
  }
  for (bool corr : {false, true}) {
    const char* cname = corr ? "corrcoef" : "cov";
    def_jnp(m, cname, [cname, corr](Interp& I, CallArgs& a) {
      std::vector<std::string> sig = {"m", "y=", "rowvar="};
      if (!corr) sig.insert(sig.end(), {"bias=", "ddof=", "fweights=", "aweights="});
      ArgParser p(I, a, cname, sig);
      if (!corr && (!is_none(p.get("fweights")) || !is_none(p.get("aweights"))))
        I.raise("NotImplementedError", "jnp.cov: fweights= and aweights= are not supported yet");
      const bool rowvar = is_none(p.get("rowvar")) || I.truthy(p.get("rowvar"));
      const bool bias = !corr && keep_of(I, p.get("bias"));
      std::optional<int64_t> ddof;
      if (!corr && !is_none(p.get("ddof"))) ddof = int_arg(I, p.get("ddof"), "ddof");
      std::vector<Value> ops{device_operand(I, p.get("m"))};
      if (!is_none(p.get("y"))) ops.push_back(device_operand(I, p.get("y")));
      return apply(I, cname, ops, [&](Trace& t, const std::vector<ValueId>& ids) {
        std::optional<ValueId> y;
        if (ids.size() > 1) y = ids[1];
        return std::vector<ValueId>{cov_body(t, ids[0], y, rowvar, ddof, bias, corr, DType::F32)};
      });
    });
  }
  def_jnp(m, "average", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "average", {"a", "axis=", "weights=", "returned=", "keepdims="});
    const bool returned = keep_of(I, p.get("returned"));
    auto axis = one_axis(I, p.get("axis"), "average");
    bool keep = keep_of(I, p.get("keepdims"));
    std::vector<Value> ops{device_operand(I, p.get("a"))};
    if (!is_none(p.get("weights"))) ops.push_back(device_operand(I, p.get("weights")));
    auto outs = apply_multi(I, "average", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
      std::optional<ValueId> w;
      if (ids.size() > 1) w = ids[1];
      ValueId scl = 0;
      ValueId avg = average_body(t, ids[0], w, axis, keep, DType::F32, returned ? &scl : nullptr);
      return returned ? std::vector<ValueId>{avg, scl} : std::vector<ValueId>{avg};
    });
    if (!returned) return outs.at(0);
    return interp::make_tuple(std::move(outs));
  });
}

namespace np {

void add_nan_stats_functions(Interp&, ModuleObj& m) {
  static const char* names[] = {"nansum", "nanmean", "nanmax", "nanmin", "nanprod", "nanvar", "nanstd"};
  for (int kind = 0; kind < 7; ++kind) {
    const char* nm = names[kind];
    add(m, nm, [nm, kind](Interp& I, CallArgs& a) {
      std::vector<std::string> sig = {"a", "axis=", "dtype=", "out="};
      if (kind >= 5) sig.push_back("ddof=");
      for (const char* k : {"keepdims=", "initial=", "where="}) sig.push_back(k);
      interp::ArgParser p(I, a, nm, sig);
      const int64_t ddof = kind >= 5 && !is_none(p.get("ddof")) ? int_arg(I, p.get("ddof"), "ddof") : 0;
      auto h = host_array(I, p.get("a"));
      auto axes = api::axes_arg(I, p.get("axis"));
      bool keep = bool_arg(I, p.get("keepdims"), false);
      auto dt = dtype_arg(I, p.get("dtype"));
      return result(run1(I, nm, {h}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
        ValueId x = ids[0];
        if (dt) x = cast(t, x, *dt);
        return std::vector<ValueId>{nan_reduce(t, x, kind, axes, keep, DType::F64, DType::I64, ddof)};
      }));
    });
  }
  for (bool is_max : {true, false}) {
    const char* nm = is_max ? "nanargmax" : "nanargmin";
    add(m, nm, [nm, is_max](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, nm, {"a", "axis=", "out=", "*", "keepdims="});
      auto axis = one_axis(I, p.get("axis"), nm);
      bool keep = bool_arg(I, p.get("keepdims"), false);
      auto h = host_array(I, p.get("a"));
      auto outs = run(I, nm, {h}, [&](trace::Trace& t, const std::vector<ValueId>& ids) { return nan_arg(t, ids[0], is_max, axis, keep, DType::I64); });
      if (exec::array_to_host(*outs[1]).at(0) != 0) I.raise("ValueError", "All-NaN slice encountered");
      return result(outs[0]);
    });
  }
  for (const QSpec* s : {&kQuantile, &kPercentile, &kNanQuantile, &kNanPercentile}) {
    add(m, s->name, [s](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, s->name, {"a", "q", "axis=", "out=", "overwrite_input=", "method=", "keepdims=", "*", "interpolation="});
      const int method = method_of(I, p.get("method"), s->ignore_nan);
      bool scalar;
      auto qs = q_list(I, p.get("q"), s->scale, scalar, s->err);
      auto axis = api::axes_arg(I, p.get("axis"));
      bool keep = bool_arg(I, p.get("keepdims"), false);
      auto h = host_array(I, p.get("a"));
      if (!s->ignore_nan) {  // numpy: quantiles of an empty slice raise (median gives NaN)
        int64_t n = axis ? 1 : h->type.num_elements();
        if (axis)
          for (auto ax : *axis) {
            int64_t r = static_cast<int64_t>(h->type.rank()), k = ax < 0 ? ax + r : ax;
            if (k >= 0 && k < r) n *= h->type.shape()[k];
          }
        if (n == 0) I.raise("IndexError", "cannot do a non-empty take from an empty axes.");
      }
      return result(run1(I, s->name, {h}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
        // numpy 1.24 interpolates with float64 q: float64 results whatever the input.
        const bool picks = method == 1 || method == 2 || method == 3;  // numpy: the input's dtype
        ValueId x = picks ? ids[0] : cast(t, ids[0], DType::F64);
        return std::vector<ValueId>{quantile_body(t, x, qs, scalar, axis, keep, DType::F64, s->ignore_nan, method)};
      }));
    });
  }
  for (bool ign : {false, true}) {
  const char* mname = ign ? "nanmedian" : "median";
  add(m, mname, [mname, ign](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, mname, {"a", "axis=", "out=", "overwrite_input=", "keepdims="});
    auto axis = api::axes_arg(I, p.get("axis"));
    bool keep = bool_arg(I, p.get("keepdims"), false);
    auto h = host_array(I, p.get("a"));
    return result(run1(I, mname, {h}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{quantile_body(t, ids[0], std::vector<double>{0.5}, true, axis, keep, DType::F64, ign)};
    }));
  });
  }
  for (bool corr : {false, true}) {
    const char* cname = corr ? "corrcoef" : "cov";
    add(m, cname, [cname, corr](Interp& I, CallArgs& a) {
      std::vector<std::string> sig = {"m", "y=", "rowvar="};
      if (!corr) sig.insert(sig.end(), {"bias=", "ddof=", "fweights=", "aweights="});
      interp::ArgParser p(I, a, cname, sig);
      if (!corr && (!is_none(p.get("fweights")) || !is_none(p.get("aweights"))))
        I.raise("NotImplementedError", "numpy.cov: fweights= and aweights= are not supported yet");
      const bool rowvar = bool_arg(I, p.get("rowvar"), true);
      const bool bias = !corr && bool_arg(I, p.get("bias"), false);
      std::optional<int64_t> ddof;
      if (!corr && !is_none(p.get("ddof"))) ddof = int_arg(I, p.get("ddof"), "ddof");
      std::vector<exec::ArrayRef> ins{host_array(I, p.get("m"))};
      if (!is_none(p.get("y"))) ins.push_back(host_array(I, p.get("y")));
      return result(run1(I, cname, ins, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
        std::optional<ValueId> y;
        if (ids.size() > 1) y = cast(t, ids[1], DType::F64);
        return std::vector<ValueId>{cov_body(t, cast(t, ids[0], DType::F64), y, rowvar, ddof, bias, corr, DType::F64)};
      }));
    });
  }
  add(m, "average", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "average", {"a", "axis=", "weights=", "returned=", "*", "keepdims="});
    const bool returned = p.get("returned") && I.truthy(p.get("returned"));
    auto axis = one_axis(I, p.get("axis"), "average");
    bool keep = bool_arg(I, p.get("keepdims"), false);
    std::vector<exec::ArrayRef> ins{host_array(I, p.get("a"))};
    if (!is_none(p.get("weights"))) ins.push_back(host_array(I, p.get("weights")));
    // numpy's result type of a and weights (int32 with float32 is float64), floats only.
    DType common = ins[0]->type.dtype();
    if (ins.size() > 1) common = promote(common, ins[1]->type.dtype());
    if (!types::is_float(common)) common = DType::F64;
    auto outs = run(I, "average", ins, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      std::optional<ValueId> w;
      ValueId x = ids[0];
      if (ids.size() > 1) {
        w = cast(t, ids[1], common);
        x = cast(t, x, common);
      }
      ValueId scl = 0;
      ValueId avg = average_body(t, x, w, axis, keep, DType::F64, returned ? &scl : nullptr);
      return returned ? std::vector<ValueId>{avg, scl} : std::vector<ValueId>{avg};
    });
    if (!returned) return result(outs.at(0));
    return interp::make_tuple({result(outs[0]), result(outs[1])});
  });
}

}  // namespace np

}  // namespace shard::api
