// jax.numpy elementwise functions: the primitives named in the table's jnp column
// (ir/elementwise_ops.hpp), the compositions of trace/ops_composite.cpp, and the functions
// with arguments of their own: where, clip, round, isclose, allclose, array_equal.
#include "api/modules/jnp_module.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using interp::ArgParser;
using interp::ObjKind;

namespace {

using Body1 = std::function<ValueId(Trace&, ValueId)>;
using Body2 = std::function<ValueId(Trace&, ValueId, ValueId)>;

Value run1(Interp& I, const std::string& name, const Value& x, const Body1& body) {
  return apply(I, name, {elementwise_operand(I, x, name.c_str())}, [&](Trace& t, const std::vector<ValueId>& ids) {
    return std::vector<ValueId>{body(t, ids[0])};
  });
}
Value run2(Interp& I, const std::string& name, const Value& x, const Value& y, const Body2& body) {
  return apply(I, name, {elementwise_operand(I, x, name.c_str()), elementwise_operand(I, y, name.c_str())},
               [&](Trace& t, const std::vector<ValueId>& ids) {
                 check_broadcast(t, ids);
                 return std::vector<ValueId>{body(t, ids[0], ids[1])};
               });
}

struct CloseArgs {
  Value a, b;
  double rtol = 1e-5, atol = 1e-8;
  bool equal_nan = false;
};
CloseArgs close_args(Interp& I, CallArgs& c, const char* name) {
  ArgParser p(I, c, name, {"a", "b", "rtol=", "atol=", "equal_nan="});
  CloseArgs r;
  r.a = elementwise_operand(I, p.get("a"), name);
  r.b = elementwise_operand(I, p.get("b"), name);
  if (p.has("rtol")) r.rtol = float_arg(I, p.get("rtol"), "rtol");
  if (p.has("atol")) r.atol = float_arg(I, p.get("atol"), "atol");
  r.equal_nan = p.has("equal_nan") && I.truthy(p.get("equal_nan"));
  return r;
}

Value bool_scalar(Interp& I, bool v) { return to_array(I, interp::make_bool(v), DType::Bool, false); }

}  // namespace

Value jnp_clip(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "clip", {"arr=", "min=", "max=", "*", "a=", "a_min=", "a_max="});
  Value x = p.has("arr") ? p.get("arr") : p.get("a");
  if (!x) I.raise("TypeError", "clip() missing 1 required positional argument: 'arr'");
  Value lo = !is_none(p.get("min")) ? p.get("min") : p.get("a_min");
  Value hi = !is_none(p.get("max")) ? p.get("max") : p.get("a_max");
  std::vector<Value> ops = {elementwise_operand(I, x, "clip")};
  const bool has_lo = !is_none(lo), has_hi = !is_none(hi);
  if (has_lo) ops.push_back(elementwise_operand(I, lo, "clip"));
  if (has_hi) ops.push_back(elementwise_operand(I, hi, "clip"));
  return apply(I, "clip", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
    std::optional<ValueId> l, h;
    size_t k = 1;
    if (has_lo) l = ids[k++];
    if (has_hi) h = ids[k++];
    return std::vector<ValueId>{trace::clip(t, ids[0], l, h)};
  });
}

Value jnp_round(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "round", {"a", "decimals=", "out="});
  int64_t decimals = p.has("decimals") ? int_arg(I, p.get("decimals"), "decimals") : 0;
  return run1(I, "round", p.get("a"), [&](Trace& t, ValueId x) { return trace::round_decimals(t, x, decimals); });
}

namespace {

void def_unary(ModuleObj& m, const std::string& name, Body1 body) {
  def_jnp(m, name, [name, body](Interp& I, CallArgs& a) {
    interp::bi::func_nargs(I, a, name, 1, 1);
    return run1(I, name, a.args[0], body);
  });
}
void def_binary(ModuleObj& m, const std::string& name, Body2 body) {
  def_jnp(m, name, [name, body](Interp& I, CallArgs& a) {
    interp::bi::func_nargs(I, a, name, 2, 2);
    return run2(I, name, a.args[0], a.args[1], body);
  });
}

}  // namespace

void add_jnp_elementwise(Interp&, ModuleObj& m) {
  ir::for_each_binding([](const ir::EwInfo& e) { return e.jnp_names; }, [&](ir::EwOp op, std::string_view name) {
    const std::string prim = ir::ew_info(op).primitive;
    if (ir::ew_info(op).arity == 1)
      def_unary(m, std::string(name), [prim, op](Trace& t, ValueId x) { return trace::unary(t, prim, op, x); });
    else
      def_binary(m, std::string(name), [prim, op](Trace& t, ValueId x, ValueId y) { return trace::binary(t, prim, op, x, y); });
  });
  for (const char* name : {"power", "pow"})
    def_binary(m, name, [](Trace& t, ValueId x, ValueId y) { return trace::power(t, "pow", x, y); });
  for (auto& c : trace::unary_composites()) def_unary(m, c.name, c.fn);
  for (auto& c : trace::binary_composites()) def_binary(m, c.name, c.fn);
  def_jnp(m, "where", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "where", {"condition", "x=", "y=", "*", "size=", "fill_value="});
    if (!p.has("x") && !p.has("y"))
      I.raise("NotImplementedError", "jnp.where(condition) (nonzero) is not supported: its shape depends on the values");
    if (!p.has("x") || !p.has("y")) I.raise("ValueError", "Either both or neither of the x and y arguments should be provided to jax.numpy.where, got only one.");
    return apply(I, "where", {elementwise_operand(I, p.get("condition"), "where"), elementwise_operand(I, p.get("x"), "where"), elementwise_operand(I, p.get("y"), "where")},
                 [&](Trace& t, const std::vector<ValueId>& ids) {
                   check_broadcast(t, ids);
                   return std::vector<ValueId>{trace::where(t, ids[0], ids[1], ids[2])};
                 });
  });
  def_jnp(m, "angle", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "angle", {"z", "deg="});
    const bool deg = p.has("deg") && I.truthy(p.get("deg"));
    return run1(I, "angle", p.get("z"), [deg](Trace& t, ValueId x) { return trace::angle(t, x, deg); });
  });
  def_jnp(m, "clip", jnp_clip);
  def_jnp(m, "round", jnp_round);
  def_jnp(m, "around", jnp_round);
  def_jnp(m, "isclose", [](Interp& I, CallArgs& a) {
    auto c = close_args(I, a, "isclose");
    return run2(I, "isclose", c.a, c.b, [&](Trace& t, ValueId x, ValueId y) { return trace::isclose(t, x, y, c.rtol, c.atol, c.equal_nan); });
  });
  def_jnp(m, "allclose", [](Interp& I, CallArgs& a) {
    auto c = close_args(I, a, "allclose");
    return run2(I, "allclose", c.a, c.b, [&](Trace& t, ValueId x, ValueId y) {
      return trace::reduce(t, "allclose", ir::ReduceKind::And, trace::isclose(t, x, y, c.rtol, c.atol, c.equal_nan), {}, false);
    });
  });
  def_jnp(m, "array_equal", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "array_equal", {"a1", "a2", "equal_nan="});
    Value x = p.get("a1"), y = p.get("a2");
    if (!is_array_like(x) && !python_scalar_type(x, false)) x = to_array(I, x, std::nullopt, false);
    if (!is_array_like(y) && !python_scalar_type(y, false)) y = to_array(I, y, std::nullopt, false);
    Shape sx = is_array_like(x) ? type_of(x).shape() : Shape{}, sy = is_array_like(y) ? type_of(y).shape() : Shape{};
    if (sx != sy) return bool_scalar(I, false);
    const bool equal_nan = p.has("equal_nan") && I.truthy(p.get("equal_nan"));
    return run2(I, "array_equal", x, y, [&](Trace& t, ValueId u, ValueId v) { return trace::array_equal(t, u, v, equal_nan); });
  });
}

}  // namespace shard::api
