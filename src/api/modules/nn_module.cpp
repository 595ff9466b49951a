// jax.nn: activations, softmax and friends, one_hot and standardize, composed in
// trace/ops_nn.cpp. Their derivatives come from the primitives' rules.
#include <fmt/format.h>

#include "api/op_args.hpp"
#include "interp/builtins/support.hpp"
#include "types/x64_mode.hpp"

namespace shard::api {

using interp::ArgParser;

namespace {

void def_activation(ModuleObj& m, const std::string& name, ValueId (*body)(Trace&, ValueId)) {
  def_fn(m, name, [name, body](Interp& I, CallArgs& a) {
    ArgParser p(I, a, name, {"x"});
    return apply(I, name, {elementwise_operand(I, p.get("x"), name)},
                 [&](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{body(t, ids[0])}; });
  });
}

// An activation with one float parameter (elu's alpha, leaky_relu's negative_slope).
void def_param_activation(ModuleObj& m, const std::string& name, const std::string& param, double dflt,
                          ValueId (*body)(Trace&, ValueId, double)) {
  def_fn(m, name, [name, param, dflt, body](Interp& I, CallArgs& a) {
    ArgParser p(I, a, name, {"x", param + "="});
    const double v = is_none(p.get(param)) ? dflt : float_arg(I, p.get(param), param);
    return apply(I, name, {elementwise_operand(I, p.get("x"), name)},
                 [&](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{body(t, ids[0], v)}; });
  });
}

// softmax / log_softmax(x, axis=-1, where=None)
void def_normalizer(ModuleObj& m, const std::string& name, ValueId (*body)(Trace&, ValueId, const std::vector<int64_t>&)) {
  def_fn(m, name, [name, body](Interp& I, CallArgs& a) {
    ArgParser p(I, a, name, {"x", "axis=", "where=", "initial="});
    if (!is_none(p.get("where"))) I.raise("NotImplementedError", fmt::format("jax.nn.{}(where=...) is not supported yet", name));
    const auto axes = p.has("axis") ? axes_arg(I, p.get("axis")).value_or(std::vector<int64_t>{}) : std::vector<int64_t>{-1};
    return apply(I, name, {elementwise_operand(I, p.get("x"), name)},
                 [&](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{body(t, ids[0], axes)}; });
  });
}

void fill_nn(Interp& I, ModuleObj& m) {
  def_activation(m, "relu", trace::nn_relu);
  def_activation(m, "relu6", trace::nn_relu6);
  def_activation(m, "sigmoid", trace::nn_sigmoid);
  def_activation(m, "softplus", trace::nn_softplus);
  def_activation(m, "log_sigmoid", trace::nn_log_sigmoid);
  def_activation(m, "soft_sign", trace::nn_soft_sign);
  def_activation(m, "silu", trace::nn_silu);
  def_activation(m, "swish", trace::nn_silu);
  def_activation(m, "selu", trace::nn_selu);
  def_activation(m, "hard_tanh", trace::nn_hard_tanh);
  def_param_activation(m, "elu", "alpha", 1.0, trace::nn_elu);
  def_param_activation(m, "celu", "alpha", 1.0, trace::nn_celu);
  def_param_activation(m, "leaky_relu", "negative_slope", 0.01, trace::nn_leaky_relu);
  def_fn(m, "gelu", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "gelu", {"x", "approximate="});
    const bool approximate = is_none(p.get("approximate")) || I.truthy(p.get("approximate"));
    return apply(I, "gelu", {elementwise_operand(I, p.get("x"), "gelu")},
                 [&](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{trace::nn_gelu(t, ids[0], approximate)}; });
  });
  def_normalizer(m, "softmax", trace::nn_softmax);
  def_normalizer(m, "log_softmax", trace::nn_log_softmax);
  def_fn(m, "standardize", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "standardize", {"x", "axis=", "mean=", "variance=", "epsilon=", "where="});
    if (!is_none(p.get("mean")) || !is_none(p.get("variance")) || !is_none(p.get("where")))
      I.raise("NotImplementedError", "jax.nn.standardize with mean=, variance= or where= is not supported yet");
    const auto axes = p.has("axis") ? axes_arg(I, p.get("axis")).value_or(std::vector<int64_t>{}) : std::vector<int64_t>{-1};
    const double eps = is_none(p.get("epsilon")) ? 1e-5 : float_arg(I, p.get("epsilon"), "epsilon");
    return apply(I, "standardize", {elementwise_operand(I, p.get("x"), "standardize")},
                 [&](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{trace::nn_standardize(t, ids[0], axes, eps)}; });
  });
  def_fn(m, "one_hot", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "one_hot", {"x", "num_classes", "*", "dtype=", "axis="});
    const int64_t n = int_arg(I, p.get("num_classes"), "num_classes");
    const auto dt = dtype_arg(I, p.get("dtype")).value_or(types::default_float_dtype());  // jnp.float_
    const int64_t axis = is_none(p.get("axis")) ? -1 : int_arg(I, p.get("axis"), "axis");
    return apply(I, "one_hot", {elementwise_operand(I, p.get("x"), "one_hot")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{trace::nn_one_hot(t, ids[0], n, {dt, false}, axis)};
    });
  });
  // Shared with the modules that define them.
  auto jnp = I.import_module("jax.numpy", I.current_loc());
  m.dict.set("tanh", I.getattr(jnp, "tanh"));
  m.dict.set("logsumexp", I.getattr(I.import_module("jax.scipy.special", I.current_loc()), "logsumexp"));
  // jax.nn.initializers and dot_product_attention are written in shard (stdlib/jax_nn_*.shard);
  // without the stdlib on the module path (an embedding that sets none) jax.nn lacks them.
  try {
    m.dict.set("initializers", I.import_module("jax_nn_initializers", I.current_loc()));
    m.dict.set("dot_product_attention", I.getattr(I.import_module("jax_nn_attention", I.current_loc()), "dot_product_attention"));
  } catch (const interp::PyError&) {
  }
}

}  // namespace

void register_nn_module() { Interp::register_builtin_module("jax.nn", fill_nn); }

}  // namespace shard::api
