// jax.scipy.special: the special functions over the elementwise primitives (erf, erfc,
// erf_inv, logistic) and the compositions of trace/ops_composite.cpp (logsumexp, xlogy,
// xlog1py, logit). Integer arguments become floats, as in JAX.
#include "api/op_args.hpp"
#include "api/modules/scipy_linalg_module.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using interp::ArgParser;
using ir::EwOp;

namespace {

ValueId to_float(Trace& t, ValueId x) { return trace::convert(t, x, trace::to_inexact(dtw(t, x))); }

void def_unary(ModuleObj& m, const std::string& name, std::function<ValueId(Trace&, ValueId)> body) {
  def_fn(m, name, [name, body](Interp& I, CallArgs& a) {
    ArgParser p(I, a, name, {"x"});
    return apply(I, name, {elementwise_operand(I, p.get("x"), name)},
                 [&](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{body(t, ids[0])}; });
  });
}

void def_binary(ModuleObj& m, const std::string& name, ValueId (*body)(Trace&, ValueId, ValueId)) {
  def_fn(m, name, [name, body](Interp& I, CallArgs& a) {
    ArgParser p(I, a, name, {"x", "y"});
    return apply(I, name, {elementwise_operand(I, p.get("x"), name), elementwise_operand(I, p.get("y"), name)}, [&](Trace& t, const std::vector<ValueId>& ids) {
      check_broadcast(t, ids);
      return std::vector<ValueId>{body(t, ids[0], ids[1])};
    });
  });
}

// The primitive applied to x made floating first (lax's own functions take floats only).
std::function<ValueId(Trace&, ValueId)> primitive(EwOp op) {
  return [op](Trace& t, ValueId x) { return trace::unary(t, ir::ew_info(op).primitive, op, to_float(t, x)); };
}

Value logsumexp(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "logsumexp", {"a", "axis=", "b=", "keepdims=", "return_sign=", "where="});
  if (!is_none(p.get("return_sign")) && I.truthy(p.get("return_sign")))
    I.raise("NotImplementedError", "jax.scipy.special.logsumexp(return_sign=True) is not supported yet");
  if (!is_none(p.get("where"))) I.raise("NotImplementedError", "jax.scipy.special.logsumexp(where=...) is not supported yet");
  auto axes = axes_arg(I, p.get("axis"));
  const bool keepdims = !is_none(p.get("keepdims")) && I.truthy(p.get("keepdims"));
  std::vector<Value> ops = {elementwise_operand(I, p.get("a"), "logsumexp")};
  const bool weighted = !is_none(p.get("b"));
  if (weighted) ops.push_back(elementwise_operand(I, p.get("b"), "logsumexp"));
  return apply(I, "logsumexp", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
    std::optional<ValueId> b;
    if (weighted) b = ids[1];
    return std::vector<ValueId>{trace::logsumexp(t, ids[0], axes.value_or(std::vector<int64_t>{}), keepdims, b)};
  });
}

void fill_special(Interp&, ModuleObj& m) {
  def_unary(m, "erf", primitive(EwOp::Erf));
  def_unary(m, "erfc", primitive(EwOp::Erfc));
  def_unary(m, "erfinv", primitive(EwOp::ErfInv));
  def_unary(m, "expit", primitive(EwOp::Logistic));
  def_unary(m, "logit", [](Trace& t, ValueId x) {  // log(x / (1 - x))
    x = to_float(t, x);
    ValueId one = trace::scalar_constant(t, 1, {t.type(x).dtype(), true});
    return trace::unary(t, "log", EwOp::Log, trace::binary(t, "div", EwOp::Div, x, trace::binary(t, "sub", EwOp::Sub, one, x)));
  });
  def_binary(m, "xlogy", trace::xlogy);
  def_binary(m, "xlog1py", trace::xlog1py);
  def_fn(m, "logsumexp", logsumexp);
}

void fill_scipy(Interp& I, ModuleObj& m) {
  m.dict.set("special", I.import_module("jax.scipy.special", I.current_loc()));
  m.dict.set("linalg", I.import_module("jax.scipy.linalg", I.current_loc()));
}

}  // namespace

void register_scipy_module() {
  Interp::register_builtin_module("jax.scipy.special", fill_special);
  Interp::register_builtin_module("jax.scipy", fill_scipy);
  register_scipy_linalg_module();
}

}  // namespace shard::api
