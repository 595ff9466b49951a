// jax.numpy reductions (sum prod max min mean var std all any argmax argmin), scans
// (cumsum cumprod cummax cummin) and sort. They double as Array methods (args[0] = the
// array); numpy host arrays get numpy's accumulator dtypes (int64 sums, float64 means).
#include <fmt/format.h>

#include "api/modules/jnp_module.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using ir::ReduceKind;
using interp::ArgParser;

namespace {

Value array_operand(Interp& I, const Value& v, const std::string& name) {
  if (is_array_like(v) || python_scalar_type(v, false)) return v;
  if (v && (v->kind == interp::ObjKind::List || v->kind == interp::ObjKind::Tuple))
    I.raise("TypeError", fmt::format("{} requires ndarray or scalar arguments, got {} at position 0.", name, I.type_name(v)));
  I.raise("TypeError", fmt::format("{} requires ndarray or scalar arguments, got {} at position 0.", name, I.type_name(v)));
}

bool keepdims_of(Interp& I, const ArgParser& p) { return p.has("keepdims") && !is_none(p.get("keepdims")) && I.truthy(p.get("keepdims")); }

void unsupported(Interp& I, const ArgParser& p, const std::string& name, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (p.has(k) && !is_none(p.get(k)))
      I.raise("NotImplementedError", fmt::format("{}: the '{}' argument is not supported yet", name, k));
}

// The operand of a reduction or scan as it accumulates: in dtype= when given; on the host,
// integer sums and products in int64 (numpy's default accumulator).
ValueId accumulation_input(Trace& t, ValueId v, const std::optional<DType>& dt, bool host, ReduceKind kind) {
  if (dt) return trace::convert(t, v, {storage_dtype(*dt, host), false});
  if (host && (kind == ReduceKind::Sum || kind == ReduceKind::Prod) && !types::is_inexact(t.type(v).dtype()))
    return trace::convert(t, v, {DType::I64, false});
  return v;
}

bool is_half_float(DType d) { return d == DType::F16 || d == DType::BF16; }

// As jnp's reductions (upcast_f16_for_computation): float16 / bfloat16 sums, products, means
// and variances accumulate in float32; the result is rounded back to the 16-bit dtype once.
ValueId upcast_half(Trace& t, ValueId v, bool upcast) {
  return upcast ? trace::convert(t, v, {DType::F32, false}) : v;
}
ValueId back_to(Trace& t, ValueId v, bool upcast, DType d) { return upcast ? trace::convert(t, v, {d, false}) : v; }

// sum/prod/max/min/all/any over `axis` (None = all; () = none).
Value reduce_impl(Interp& I, CallArgs& a, const std::string& name, ReduceKind kind) {
  ArgParser p(I, a, name, {"a", "axis=", "dtype=", "out=", "keepdims=", "initial=", "where="});
  Value x = array_operand(I, p.get("a"), name);
  unsupported(I, p, name, {"out", "initial", "where"});
  auto axes = axes_arg(I, p.get("axis"));
  auto dt = (kind == ReduceKind::And || kind == ReduceKind::Or) ? std::nullopt : dtype_arg(I, p.get("dtype"));
  const bool keepdims = keepdims_of(I, p);
  const bool host = host_operands({x});
  return apply(I, name, {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
    ValueId v = accumulation_input(t, ids[0], dt, host, kind);
    if (axes && axes->empty()) {
      if (kind == ReduceKind::And || kind == ReduceKind::Or) v = trace::convert(t, v, {DType::Bool, false});
      return std::vector<ValueId>{v};
    }
    const DType in_dt = t.type(v).dtype();
    const bool upcast = !dt && is_half_float(in_dt) && (kind == ReduceKind::Sum || kind == ReduceKind::Prod);
    ValueId r = trace::reduce(t, name, kind, upcast_half(t, v, upcast), axes ? *axes : std::vector<int64_t>{}, keepdims);
    return std::vector<ValueId>{back_to(t, r, upcast, in_dt)};
  });
}

Value mean_var_impl(Interp& I, CallArgs& a, const std::string& name, int which /*0 mean 1 var 2 std*/) {
  std::vector<std::string> sig = {"a", "axis=", "dtype=", "out="};
  if (which) sig.push_back("ddof=");
  sig.push_back("keepdims=");
  sig.push_back("*");
  sig.push_back("where=");
  if (which) sig.push_back("correction=");
  ArgParser p(I, a, name, sig);
  Value x = array_operand(I, p.get("a"), name);
  unsupported(I, p, name, {"out", "where"});
  auto axes = axes_arg(I, p.get("axis"));
  auto dt = dtype_arg(I, p.get("dtype"));
  const bool keepdims = keepdims_of(I, p);
  int64_t ddof = 0;
  if (which && p.has("ddof")) ddof = int_arg(I, p.get("ddof"), "ddof");
  if (which && p.has("correction") && !is_none(p.get("correction"))) ddof = int_arg(I, p.get("correction"), "correction");
  const bool host = host_operands({x});
  if (axes && axes->empty()) I.raise("NotImplementedError", fmt::format("{} with axis=() is not supported yet", name));
  return apply(I, name, {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
    ValueId v = ids[0];
    const std::optional<DType> want = dt ? std::optional<DType>(storage_dtype(*dt, host)) : std::nullopt;
    // jnp.mean computes a 16-bit input in float32 only without dtype=; var and std compute
    // any 16-bit result in float32, from the input itself (not rounded to dtype= first).
    const bool half_wanted = want && is_half_float(*want);
    if (want && !(which && half_wanted)) v = trace::convert(t, v, {*want, false});
    else if (!want && host && !types::is_inexact(t.type(v).dtype())) v = trace::convert(t, v, {DType::F64, false});
    const DType result_dt = which && half_wanted ? *want : t.type(v).dtype();
    const bool upcast = is_half_float(result_dt) && (which || !want);
    v = upcast_half(t, v, upcast);
    std::vector<int64_t> ax = axes ? *axes : std::vector<int64_t>{};
    if (which == 0) return std::vector<ValueId>{back_to(t, trace::mean(t, v, ax, keepdims), upcast, result_dt)};
    // jnp.std is the square root of the variance in the result dtype (rounded first).
    const bool sqrt_after = which == 2 && upcast;
    ValueId r = back_to(t, trace::var(t, v, ax, keepdims, ddof, which == 2 && !sqrt_after), upcast, result_dt);
    return std::vector<ValueId>{sqrt_after ? trace::unary(t, "std", ir::EwOp::Sqrt, r) : r};
  });
}

Value arg_impl(Interp& I, CallArgs& a, const std::string& name, ReduceKind kind) {
  ArgParser p(I, a, name, {"a", "axis=", "out=", "keepdims="});
  Value x = array_operand(I, p.get("a"), name);
  unsupported(I, p, name, {"out"});
  std::optional<int64_t> axis;
  if (!is_none(p.get("axis"))) axis = int_arg(I, p.get("axis"), "axis");
  const bool keepdims = keepdims_of(I, p);
  const bool host = host_operands({x});
  return apply(I, name, {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
    ValueId r = trace::argminmax(t, name, kind, ids[0], axis, keepdims);
    if (host) r = trace::convert(t, r, {DType::I64, false});
    return std::vector<ValueId>{r};
  });
}

Value cumulative_impl(Interp& I, CallArgs& a, const std::string& name, ReduceKind kind) {
  ArgParser p(I, a, name, {"a", "axis=", "dtype=", "out="});
  Value x = array_operand(I, p.get("a"), name);
  unsupported(I, p, name, {"out"});
  std::optional<int64_t> axis;
  if (!is_none(p.get("axis"))) axis = int_arg(I, p.get("axis"), "axis");
  auto dt = dtype_arg(I, p.get("dtype"));
  const bool host = host_operands({x});
  return apply(I, name, {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
    ValueId v = accumulation_input(t, ids[0], dt, host, kind);
    return std::vector<ValueId>{trace::cumulative(t, name, kind, v, axis)};
  });
}

}  // namespace

Value jnp_sum(Interp& I, CallArgs& a) { return reduce_impl(I, a, "sum", ReduceKind::Sum); }
Value jnp_prod(Interp& I, CallArgs& a) { return reduce_impl(I, a, "prod", ReduceKind::Prod); }
Value jnp_max(Interp& I, CallArgs& a) { return reduce_impl(I, a, "max", ReduceKind::Max); }
Value jnp_min(Interp& I, CallArgs& a) { return reduce_impl(I, a, "min", ReduceKind::Min); }
Value jnp_all(Interp& I, CallArgs& a) { return reduce_impl(I, a, "all", ReduceKind::And); }
Value jnp_any(Interp& I, CallArgs& a) { return reduce_impl(I, a, "any", ReduceKind::Or); }
Value jnp_mean(Interp& I, CallArgs& a) { return mean_var_impl(I, a, "mean", 0); }
Value jnp_var(Interp& I, CallArgs& a) { return mean_var_impl(I, a, "var", 1); }
Value jnp_std(Interp& I, CallArgs& a) { return mean_var_impl(I, a, "std", 2); }
Value jnp_argmax(Interp& I, CallArgs& a) { return arg_impl(I, a, "argmax", ReduceKind::Max); }
Value jnp_argmin(Interp& I, CallArgs& a) { return arg_impl(I, a, "argmin", ReduceKind::Min); }
Value jnp_cumsum(Interp& I, CallArgs& a) { return cumulative_impl(I, a, "cumsum", ReduceKind::Sum); }
Value jnp_cumprod(Interp& I, CallArgs& a) { return cumulative_impl(I, a, "cumprod", ReduceKind::Prod); }

Value jnp_sort(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "sort", {"a", "axis=", "*", "kind=", "order=", "stable=", "descending="});
  Value x = array_operand(I, p.get("a"), "sort");
  const bool flatten = p.has("axis") && is_none(p.get("axis"));
  int64_t axis = p.has("axis") && !flatten ? int_arg(I, p.get("axis"), "axis") : -1;
  const bool descending = p.has("descending") && I.truthy(p.get("descending"));
  return apply(I, "sort", {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
    ValueId v = ids[0];
    if (flatten || t.type(v).rank() == 0) {
      v = trace::reshape(t, v, {t.type(v).num_elements()});
      axis = 0;
    }
    ValueId r = trace::sort(t, v, axis);
    if (descending) r = trace::rev(t, r, {axis});
    return std::vector<ValueId>{r};
  });
}

// jnp.argsort: the stable ascending order (descending: of the reversed order, as jnp).
Value jnp_argsort(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "argsort", {"a", "axis=", "*", "kind=", "order=", "stable=", "descending="});
  Value x = array_operand(I, p.get("a"), "argsort");
  const bool flatten = p.has("axis") && is_none(p.get("axis"));
  int64_t axis = p.has("axis") && !flatten ? int_arg(I, p.get("axis"), "axis") : -1;
  const bool descending = p.has("descending") && I.truthy(p.get("descending"));
  return apply(I, "argsort", {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
    ValueId v = ids[0];
    if (flatten || t.type(v).rank() == 0) {
      v = trace::reshape(t, v, {t.type(v).num_elements()});
      axis = 0;
    }
    if (!descending) return std::vector<ValueId>{trace::argsort(t, v, axis)};
    // Stable descending: sort the reversed array ascending by the negated order... as jnp:
    // rev(argsort(rev(x))) mapped back to the original positions.
    const int64_t ax = trace::normalize_axis("argsort", axis, t.type(v).rank());
    const int64_t n = t.type(v).shape()[static_cast<size_t>(ax)];
    ValueId r = trace::rev(t, trace::argsort(t, trace::rev(t, v, {ax}), ax), {ax});
    ValueId last = trace::scalar_constant(t, static_cast<double>(n - 1), {DType::I32, false});
    return std::vector<ValueId>{trace::binary(t, "sub", ir::EwOp::Sub, last, r)};
  });
}

void add_jnp_reductions(Interp&, ModuleObj& m) {
  def_jnp(m, "sum", jnp_sum);
  def_jnp(m, "prod", jnp_prod);
  def_jnp(m, "max", jnp_max);
  def_jnp(m, "amax", jnp_max);
  def_jnp(m, "min", jnp_min);
  def_jnp(m, "amin", jnp_min);
  def_jnp(m, "all", jnp_all);
  def_jnp(m, "any", jnp_any);
  def_jnp(m, "mean", jnp_mean);
  def_jnp(m, "var", jnp_var);
  def_jnp(m, "std", jnp_std);
  def_jnp(m, "argmax", jnp_argmax);
  def_jnp(m, "argmin", jnp_argmin);
  def_jnp(m, "cumsum", jnp_cumsum);
  def_jnp(m, "cumprod", jnp_cumprod);
  def_jnp(m, "cummax", [](Interp& I, CallArgs& a) { return cumulative_impl(I, a, "cummax", ReduceKind::Max); });
  def_jnp(m, "cummin", [](Interp& I, CallArgs& a) { return cumulative_impl(I, a, "cummin", ReduceKind::Min); });
  def_jnp(m, "sort", jnp_sort);
  def_jnp(m, "argsort", jnp_argsort);
}

}  // namespace shard::api
