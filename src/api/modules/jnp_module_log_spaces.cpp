// Logarithmic sequences of jax.numpy and the host numpy module: logspace (base ** evenly
// spaced exponents) and geomspace (a geometric progression between two values). Start and
// stop are static scalars here. jnp follows JAX: its linspace formula lo*(1-s) + hi*s in
// float32, then power; numpy computes in float64 with its linspace (lo + i*step, the last
// sample exactly hi) and geomspace's exact endpoints.
#include <fmt/format.h>

#include <cmath>

#include "api/modules/jnp_module.hpp"
#include "api/modules/numpy_internal.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using ir::EwOp;
using interp::ArgParser;

namespace {

ValueId cst(Trace& t, double v, DType d) { return trace::scalar_constant(t, v, {d, false}); }  // strong: two weak constants would compute in float32

// JAX's linspace of static scalars in dtype d.
ValueId jnp_linspace(Trace& t, double lo, double hi, int64_t num, bool endpoint, DType d) {
  if (num == 0) return trace::full(t, {0}, 0, {d, false}, std::nullopt);
  if (num == 1) return trace::full(t, {1}, lo, {d, false}, std::nullopt);
  const int64_t div = endpoint ? num - 1 : num;
  ValueId steps = trace::iota(t, d, {div}, 0, std::nullopt);
  ValueId s = trace::binary(t, "div", EwOp::Div, steps, cst(t, static_cast<double>(div), d));
  ValueId one_minus = trace::binary(t, "sub", EwOp::Sub, cst(t, 1, d), s);
  ValueId from_lo = trace::binary(t, "mul", EwOp::Mul, cst(t, lo, d), one_minus);
  ValueId from_hi = trace::binary(t, "mul", EwOp::Mul, cst(t, hi, d), s);
  ValueId out = trace::binary(t, "add", EwOp::Add, from_lo, from_hi);
  if (endpoint) out = trace::concatenate(t, {out, trace::full(t, {1}, hi, {d, false}, std::nullopt)}, 0);
  return out;
}

ValueId power_of(Trace& t, double base, ValueId e) {
  const DType d = t.type(e).dtype();
  return trace::power(t, "power", trace::broadcast_to(t, cst(t, base, d), t.type(e).shape()), e);
}

struct SpaceArgs {
  double start = 0, stop = 0;
  int64_t num = 50;
  bool endpoint = true;
  std::optional<DType> dtype;
};

SpaceArgs space_args(Interp& I, const ArgParser& p, const char* fname, bool numpy) {
  SpaceArgs s;
  s.start = float_arg(I, p.get("start"), "start");
  s.stop = float_arg(I, p.get("stop"), "stop");
  if (!is_none(p.get("num"))) s.num = int_arg(I, p.get("num"), fmt::format("'num' argument of jnp.{}", fname));
  if (s.num < 0) I.raise("ValueError", fmt::format("Number of samples, {}, must be non-negative.", s.num));
  if (numpy) np::check_size(I, {s.num});
  s.endpoint = is_none(p.get("endpoint")) || I.truthy(p.get("endpoint"));
  s.dtype = dtype_arg(I, p.get("dtype"));
  if (!is_none(p.get("axis"))) {
    const int64_t axis = int_arg(I, p.get("axis"), "axis");
    if (axis < -1 || axis > 0) I.raise("ValueError", fmt::format("axis {} is out of bounds for array of dimension 1", axis));
  }
  return s;
}

}  // namespace

void add_jnp_log_spaces(Interp&, ModuleObj& m) {
  def_jnp(m, "logspace", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "logspace", {"start", "stop", "num=", "endpoint=", "base=", "dtype=", "axis="});
    auto s = space_args(I, p, "logspace", false);
    const double base = is_none(p.get("base")) ? 10.0 : float_arg(I, p.get("base"), "base");
    const DType out = s.dtype ? storage_dtype(*s.dtype, false) : DType::F32;
    const DType cd = types::is_float(out) ? out : DType::F32;
    return apply(I, "logspace", {}, [&](Trace& t, const std::vector<ValueId>&) {
      ValueId r = power_of(t, base, jnp_linspace(t, s.start, s.stop, s.num, s.endpoint, cd));
      return std::vector<ValueId>{trace::convert(t, r, {out, false})};
    });
  });
  def_jnp(m, "geomspace", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "geomspace", {"start", "stop", "num=", "endpoint=", "dtype=", "axis="});
    auto s = space_args(I, p, "geomspace", false);
    const DType out = s.dtype ? storage_dtype(*s.dtype, false) : DType::F32;
    const DType cd = types::is_float(out) ? out : DType::F32;
    return apply(I, "geomspace", {}, [&](Trace& t, const std::vector<ValueId>&) {
      // sign * 10 ** linspace(log10(start/sign), log10(stop/sign)), computed in cd as JAX does
      const double sign = s.start > 0 ? 1 : s.start < 0 ? -1 : 0;  // start 0: NaN, as JAX
      auto log10_in_cd = [&](double v) {
        return cd == DType::F64 ? std::log10(v / sign) : static_cast<double>(std::log10(static_cast<float>(v) / static_cast<float>(sign)));
      };
      const double lo = log10_in_cd(s.start), hi = log10_in_cd(s.stop);
      ValueId r = power_of(t, 10.0, jnp_linspace(t, lo, hi, s.num, s.endpoint, cd));
      r = trace::binary(t, "mul", EwOp::Mul, cst(t, sign, cd), r);
      return std::vector<ValueId>{trace::convert(t, r, {out, false})};
    });
  });
}

namespace np {

void add_log_space_functions(Interp&, ModuleObj& m) {
  add(m, "logspace", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "logspace", {"start", "stop", "num=", "endpoint=", "base=", "dtype=", "axis="});
    auto s = space_args(I, p, "logspace", true);
    const double base = is_none(p.get("base")) ? 10.0 : number_arg(I, p.get("base"), "base");
    const DType out = s.dtype.value_or(DType::F64);
    return result(run1(I, "logspace", {}, [&](trace::Trace& t, const std::vector<ValueId>&) {
      ValueId e = trace::linspace(t, s.start, s.stop, s.num, s.endpoint, {DType::F64, false}, std::nullopt);
      return std::vector<ValueId>{cast(t, power_of(t, base, e), out)};
    }));
  });
  add(m, "geomspace", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "geomspace", {"start", "stop", "num=", "endpoint=", "dtype=", "axis="});
    auto s = space_args(I, p, "geomspace", true);
    if (s.start == 0 || s.stop == 0) I.raise("ValueError", "Geometric sequence cannot include zero");
    const DType out = s.dtype.value_or(DType::F64);
    // both negative: the progression of the magnitudes, negated
    const bool negative = s.start < 0 && s.stop < 0;
    const double lo = negative ? -s.start : s.start, hi = negative ? -s.stop : s.stop;
    return result(run1(I, "geomspace", {}, [&](trace::Trace& t, const std::vector<ValueId>&) {
      ValueId e = trace::linspace(t, std::log10(lo), std::log10(hi), s.num, s.endpoint, {DType::F64, false}, std::nullopt);
      ValueId r = power_of(t, 10.0, e);
      if (s.num > 0) {  // numpy sets the endpoints to start and stop exactly
        ValueId i = trace::iota(t, DType::I64, {s.num}, 0, std::nullopt);
        ValueId at_first = trace::binary(t, "eq", EwOp::Eq, i, cst(t, 0, DType::I64));
        r = trace::where(t, at_first, cst(t, lo, DType::F64), r);
        if (s.num > 1 && s.endpoint) {
          ValueId at_last = trace::binary(t, "eq", EwOp::Eq, i, cst(t, static_cast<double>(s.num - 1), DType::I64));
          r = trace::where(t, at_last, cst(t, hi, DType::F64), r);
        }
      }
      if (negative) r = trace::unary(t, "neg", EwOp::Neg, r);
      return std::vector<ValueId>{cast(t, r, out)};
    }));
  });
}

}  // namespace np

}  // namespace shard::api
