// jax.random's samplers that transform uniform, normal and bernoulli draws (exponential,
// gumbel, categorical, laplace, logistic, cauchy, rademacher, lognormal, pareto,
// weibull_min, rayleigh, maxwell), with JAX's signatures, defaults and checks; the math is
// trace::random's (trace/random_distributions.cpp).
#include <fmt/format.h>

#include "api/modules/random_args.hpp"
#include "api/objects/dtype_value.hpp"
#include "interp/builtins/support.hpp"
#include "trace/ops_random.hpp"
#include "types/x64_mode.hpp"

namespace shard::api {

namespace random = trace::random;
using interp::ArgParser;
using namespace random_args;

namespace {

using Sampler = ValueId (*)(Trace&, ValueId, const Shape&, DType, const sharding::OptOutSharding&);

// f(key, shape=(), dtype=None, *, out_sharding=None): a parameterless float sampler.
NativeFn plain_sampler(const char* name, Sampler sample) {
  return [name, sample](Interp& I, CallArgs& a) {
    ArgParser p(I, a, name, {"key", "shape=", "dtype=", "*", "out_sharding="});
    KeyArg k = key_arg(I, p.get("key"), name);
    Shape shape = random_shape(I, p.get("shape"), name);
    DType dt = float_dtype(I, p.get("dtype"), name);
    auto out = out_sharding_arg(I, p.get("out_sharding"));
    OutMeshScope scope(out);
    return apply(I, name, {k.data}, [&](Trace& t, const std::vector<ValueId>& ids) { return one(sample(t, ids[0], shape, dt, out)); });
  };
}

random::GumbelMode gumbel_mode(Interp& I, const Value& v) {
  if (is_none(v) || I.str(v) == "low") return random::GumbelMode::Low;  // JAX's default (use_high_dynamic_range_gumbel off)
  if (I.str(v) == "high") return random::GumbelMode::High;
  I.raise("ValueError", fmt::format("Must provide valid mode for gumbel got: {}", I.str(v)));
}

// A parameter operand (a Python number or an array) and the shape it gives when shape=None.
Shape shape_or_operand(Interp& I, const Value& shape, const Value& operand, const std::string& name) {
  return is_none(shape) ? type_of(operand).shape() : random_shape(I, shape, name);
}

Value r_gumbel(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "gumbel", {"key", "shape=", "dtype=", "mode=", "*", "out_sharding="});
  KeyArg k = key_arg(I, p.get("key"), "gumbel");
  Shape shape = random_shape(I, p.get("shape"), "gumbel");
  DType dt = float_dtype(I, p.get("dtype"), "gumbel");
  auto mode = gumbel_mode(I, p.get("mode"));
  auto out = out_sharding_arg(I, p.get("out_sharding"));
  OutMeshScope scope(out);
  return apply(I, "gumbel", {k.data}, [&](Trace& t, const std::vector<ValueId>& ids) { return one(random::gumbel(t, ids[0], shape, dt, mode, out)); });
}

Value r_categorical(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "categorical", {"key", "logits", "axis=", "shape=", "replace=", "mode=", "*", "out_sharding="});
  KeyArg k = key_arg(I, p.get("key"), "categorical");
  const int64_t axis = p.has("axis") ? int_arg(I, p.get("axis"), "axis") : -1;
  std::optional<Shape> shape;
  if (!is_none(p.get("shape"))) shape = random_shape(I, p.get("shape"), "categorical");
  const bool replace = !p.has("replace") || I.truthy(p.get("replace"));
  if (!is_none(p.get("out_sharding")))
    I.raise("NotImplementedError", "jax.random.categorical with out_sharding= is not supported yet: reshard the result");
  auto mode = gumbel_mode(I, p.get("mode"));
  Value logits = as_operand(I, p.get("logits"), false);
  if (!logits) I.raise("TypeError", fmt::format("categorical requires ndarray or scalar arguments, got {} at position 0.", I.type_name(p.get("logits"))));
  if (!types::is_float(type_of(logits).dtype()))
    I.raise("ValueError", fmt::format("dtype argument to `gumbel` must be a float dtype, got {}", types::dtype_name(type_of(logits).dtype())));
  return apply(I, "categorical", {k.data, logits}, [&](Trace& t, const std::vector<ValueId>& ids) {
    return one(random::categorical(t, ids[0], ids[1], axis, shape, replace, mode));
  });
}

Value r_rademacher(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "rademacher", {"key", "shape=", "dtype=", "*", "out_sharding="});
  KeyArg k = key_arg(I, p.get("key"), "rademacher");
  Shape shape = random_shape(I, p.get("shape"), "rademacher");
  DType dt = is_none(p.get("dtype")) ? types::default_int_dtype() : storage_dtype(require_dtype(I, p.get("dtype")), false);  // JAX's dtype=int
  auto out = out_sharding_arg(I, p.get("out_sharding"));
  OutMeshScope scope(out);
  return apply(I, "rademacher", {k.data}, [&](Trace& t, const std::vector<ValueId>& ids) { return one(random::rademacher(t, ids[0], shape, dt, out)); });
}

// f(key, param, shape=None, dtype=None, *, out_sharding=None): the shape defaults to param's.
template <ValueId (*Sample)(Trace&, ValueId, ValueId, const Shape&, DType, const sharding::OptOutSharding&)>
NativeFn one_parameter_sampler(const char* name, const char* param, std::optional<double> param_default) {
  return [name, param, param_default](Interp& I, CallArgs& a) {
    ArgParser p(I, a, name, {"key", param_default ? std::string(param) + "=" : std::string(param), "shape=", "dtype=", "*", "out_sharding="});
    KeyArg k = key_arg(I, p.get("key"), name);
    Value v = p.has(param) ? p.get(param) : interp::make_float(*param_default);
    Value operand = as_operand(I, v, false);
    if (!operand) I.raise("TypeError", fmt::format("{} requires ndarray or scalar arguments, got {}", name, I.type_name(v)));
    Shape shape = shape_or_operand(I, p.get("shape"), operand, name);
    DType dt = float_dtype(I, p.get("dtype"), name);
    auto out = out_sharding_arg(I, p.get("out_sharding"));
    OutMeshScope scope(out);
    return apply(I, name, {k.data, operand}, [&](Trace& t, const std::vector<ValueId>& ids) { return one(Sample(t, ids[0], ids[1], shape, dt, out)); });
  };
}

Value r_weibull_min(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "weibull_min", {"key", "scale", "concentration", "shape=", "dtype="});
  KeyArg k = key_arg(I, p.get("key"), "weibull_min");
  Shape shape = random_shape(I, p.get("shape"), "weibull_min");
  DType dt = float_dtype(I, p.get("dtype"), "weibull_min");
  Value scale = as_operand(I, p.get("scale"), false), conc = as_operand(I, p.get("concentration"), false);
  if (!scale || !conc) I.raise("TypeError", "weibull_min requires ndarray or scalar scale and concentration");
  return apply(I, "weibull_min", {k.data, scale, conc}, [&](Trace& t, const std::vector<ValueId>& ids) {
    return one(random::weibull_min(t, ids[0], ids[1], ids[2], shape, dt));
  });
}

}  // namespace

void fill_random_distributions(ModuleObj& m) {
  def_fn(m, "exponential", plain_sampler("exponential", [](Trace& t, ValueId k, const Shape& s, DType d, const sharding::OptOutSharding& o) {
           return random::exponential(t, k, s, d, o);
         }));
  def_fn(m, "laplace", plain_sampler("laplace", [](Trace& t, ValueId k, const Shape& s, DType d, const sharding::OptOutSharding& o) {
           return random::laplace(t, k, s, d, o);
         }));
  def_fn(m, "logistic", plain_sampler("logistic", [](Trace& t, ValueId k, const Shape& s, DType d, const sharding::OptOutSharding& o) {
           return random::logistic(t, k, s, d, o);
         }));
  def_fn(m, "cauchy", plain_sampler("cauchy", [](Trace& t, ValueId k, const Shape& s, DType d, const sharding::OptOutSharding& o) {
           return random::cauchy(t, k, s, d, o);
         }));
  def_fn(m, "maxwell", plain_sampler("maxwell", [](Trace& t, ValueId k, const Shape& s, DType d, const sharding::OptOutSharding& o) {
           return random::maxwell(t, k, s, d, o);
         }));
  def_fn(m, "gumbel", r_gumbel);
  def_fn(m, "categorical", r_categorical);
  def_fn(m, "rademacher", r_rademacher);
  def_fn(m, "lognormal", one_parameter_sampler<random::lognormal>("lognormal", "sigma", 1.0));
  def_fn(m, "pareto", one_parameter_sampler<random::pareto>("pareto", "b", std::nullopt));
  def_fn(m, "rayleigh", one_parameter_sampler<random::rayleigh>("rayleigh", "scale", std::nullopt));
  def_fn(m, "weibull_min", r_weibull_min);
  fill_random_samplers(m);
}

}  // namespace shard::api
