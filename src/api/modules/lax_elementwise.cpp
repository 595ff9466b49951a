// jax.lax elementwise ops and element-type conversions. Unlike jax.numpy, lax does not
// promote: operands must share one dtype and shape (Python scalars take the array's dtype).
#include <fmt/format.h>

#include <map>

#include "api/modules/lax_module.hpp"
#include "api/pytree/pytree.hpp"
#include "api/objects/dtype_value.hpp"
#include "interp/builtins/support.hpp"
#include "ir/ir.hpp"
#include "trace/ops_random.hpp"

namespace shard::api::lax {

using ir::EwOp;
using interp::ArgParser;

namespace {

// The jnp function JAX's same-dtypes error suggests for a lax op (lax.py's
// _JNP_FUNCTION_EQUIVALENTS, the elementwise entries); none for the others (lax.polygamma).
const char* jnp_equivalent(const std::string& lax_name) {
  static const std::map<std::string, const char*> table = {
      {"abs", "fabs"}, {"acos", "arccos"}, {"acosh", "arccosh"}, {"add", "add"}, {"asin", "arcsin"}, {"asinh", "arcsinh"},
      {"atan", "arctan"}, {"atan2", "arctan2"}, {"atanh", "arctanh"}, {"bitwise_and", "bitwise_and"},
      {"bitwise_not", "bitwise_not"}, {"bitwise_or", "bitwise_or"}, {"bitwise_xor", "bitwise_xor"}, {"cbrt", "cbrt"},
      {"ceil", "ceil"}, {"cos", "cos"}, {"cosh", "cosh"}, {"div", "divide"}, {"eq", "equal"}, {"exp", "exp"},
      {"expm1", "expm1"}, {"floor", "floor"}, {"greater", "greater"}, {"greater_equal", "greater_equal"}, {"less", "less"},
      {"less_equal", "less_equal"}, {"log", "log"}, {"logical_and", "logical_and"}, {"logical_not", "logical_not"},
      {"logical_or", "logical_or"}, {"logical_xor", "logical_xor"}, {"log1p", "log1p"}, {"max", "maximum"},
      {"min", "minimum"}, {"mul", "multiply"}, {"ne", "not_equal"}, {"neg", "negative"}, {"nextafter", "nextafter"},
      {"pow", "float_power"}, {"round", "round"}, {"select", "where"}, {"shift_left", "left_shift"},
      {"shift_right_logical", "right_shift"}, {"shift_right_arithmetic", "right_shift"}, {"sign", "sign"}, {"sin", "sin"},
      {"sinh", "sinh"}, {"sqrt", "sqrt"}, {"sub", "subtract"}, {"tan", "tan"}, {"tanh", "tanh"}};
  auto it = table.find(lax_name);
  return it == table.end() ? nullptr : it->second;
}

// lax's elementwise ops take operands of one dtype and shape; Python scalars take the
// array's dtype (weakly).
std::vector<ValueId> lax_coerce(Trace& t, const std::string& name, const std::vector<ValueId>& ids, const std::vector<bool>& is_array) {
  std::optional<DTypeW> dt;
  std::optional<Shape> shape;
  std::vector<std::string> dtypes, shapes;
  bool mismatch = false, shape_mismatch = false;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!is_array[i]) continue;
    const auto& ty = t.type(ids[i]);
    dtypes.push_back(std::string(types::dtype_name(ty.dtype())));
    shapes.push_back(types::py_int_tuple(ty.shape()));
    if (!dt) dt = DTypeW{ty.dtype(), ty.weak_type()};
    else if (dt->dtype != ty.dtype()) mismatch = true;
    else dt->weak = dt->weak && ty.weak_type();
    if (ty.rank() == 0) continue;  // 0-d arrays broadcast (JAX's broadcasting_shape_rule skips them)
    if (!shape) shape = ty.shape();
    else if (*shape != ty.shape()) shape_mismatch = true;
  }
  if (mismatch) {
    std::string msg = fmt::format("lax.{} requires arguments to have the same dtypes, got {}.", name, fmt::join(dtypes, ", "));
    if (const char* equiv = jnp_equivalent(name))
      msg += fmt::format(" (Tip: jnp.{} is a similar function that does automatic type promotion on inputs).", equiv);
    throw types::ShardingError("TypeError", msg);
  }
  if (shape_mismatch)
    throw types::ShardingError("TypeError", fmt::format("{} got incompatible shapes for broadcasting: {}.", name, fmt::join(shapes, ", ")));
  std::vector<ValueId> out = ids;
  if (dt)
    for (size_t i = 0; i < ids.size(); ++i) {
      if (!is_array[i]) out[i] = trace::convert(t, ids[i], {dt->dtype, true});
      if (shape && t.type(out[i]).shape() != *shape) out[i] = trace::broadcast_to(t, out[i], *shape);
    }
  return out;
}

// float_only: every operand, Python scalars too, must be floating already (JAX's dtype rule
// for lax.polygamma runs before its same-dtypes check).
Value lax_nary(Interp& I, const std::string& name, CallArgs& a, size_t n,
               const std::function<ValueId(Trace&, const std::vector<ValueId>&)>& body, bool float_only = false) {
  interp::bi::func_nargs(I, a, name, n, n);
  std::vector<Value> ops;
  std::vector<bool> is_arr;
  for (size_t i = 0; i < n; ++i) {
    ops.push_back(lax_operand(I, a.args[i], name, i));
    is_arr.push_back(is_array_like(ops.back()));
  }
  return apply(I, name, ops, [&](Trace& t, const std::vector<ValueId>& ids) {
    if (float_only && n > 1) {
      std::vector<DType> dtypes;
      for (ValueId id : ids) dtypes.push_back(t.type(id).dtype());
      trace::reject_non_float_operands(name, dtypes);
    }
    return std::vector<ValueId>{body(t, lax_coerce(t, name, ids, is_arr))};
  });
}

// An elementwise lax op of `arity` operands whose trace is body(t, name, op, operands).
using EwBody = ValueId (*)(Trace&, const std::string&, EwOp, const std::vector<ValueId>&);
NativeFn lax_elementwise(std::string name, size_t arity, EwOp op, EwBody body) {
  const bool float_only = ir::ew_info(op).dtype_rule == ir::EwDTypeRule::FloatOnly;
  return [name, arity, op, body, float_only](Interp& I, CallArgs& a) {
    return lax_nary(I, name, a, arity, [&](Trace& t, const std::vector<ValueId>& ids) { return body(t, name, op, ids); }, float_only);
  };
}

ValueId lax_unary(Trace& t, const std::string& name, EwOp op, const std::vector<ValueId>& ids) {
  return trace::unary(t, name, op, ids[0]);
}
ValueId lax_binary(Trace& t, const std::string& name, EwOp op, const std::vector<ValueId>& ids) {
  return trace::binary(t, name, op, ids[0], ids[1]);
}
ValueId lax_shift(Trace& t, const std::string& name, EwOp op, const std::vector<ValueId>& ids) {
  return trace::shift(t, name, op, ids[0], ids[1]);
}
// lax.div on integers truncates (C semantics): Rem's partner.
ValueId lax_div(Trace& t, const std::string& name, EwOp, const std::vector<ValueId>& ids) {
  if (types::is_int(t.type(ids[0]).dtype())) {
    ValueId r = trace::binary(t, name, EwOp::Rem, ids[0], ids[1]);
    ValueId num = trace::binary(t, name, EwOp::Sub, ids[0], r);
    return trace::binary(t, name, EwOp::FloorDiv, num, ids[1]);
  }
  return trace::binary(t, name, EwOp::Div, ids[0], ids[1]);
}

}  // namespace

// Elementwise ops: the table's primitives, then those with arguments or semantics of their
// own (lax.div truncates integers; stop_gradient maps over a pytree).
void add_elementwise(ModuleObj& m) {
  // The elementwise primitives of the table's lax column (ir/elementwise_ops.hpp).
  ir::for_each_binding([](const ir::EwInfo& e) { return e.lax_names; }, [&](EwOp op, std::string_view n) {
    const std::string name(n);
    const auto& info = ir::ew_info(op);
    EwBody body = info.dtype_rule == ir::EwDTypeRule::Shift ? lax_shift : info.arity == 1 ? lax_unary : lax_binary;
    def_lax(m, name, lax_elementwise(name, static_cast<size_t>(info.arity), op, body));
  });
  def_lax(m, "div", lax_elementwise("div", 2, EwOp::Div, lax_div));
  def_lax(m, "integer_pow", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "integer_pow", {"x", "y"});
    int64_t y = int_arg(I, p.get("y"), "y");
    return apply(I, "integer_pow", {lax_operand(I, p.get("x"), "integer_pow", 0)}, [&](Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{trace::integer_pow(t, ids[0], y)};
    });
  });
  def_lax(m, "select", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "select", {"pred", "on_true", "on_false"});
    std::vector<Value> ops = {lax_operand(I, p.get("pred"), "select", 0), lax_operand(I, p.get("on_true"), "select", 1),
                              lax_operand(I, p.get("on_false"), "select", 2)};
    std::vector<bool> is_arr = {is_array_like(ops[1]), is_array_like(ops[2])};
    return apply(I, "select", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
      if (t.type(ids[0]).dtype() != DType::Bool)
        throw types::ShardingError("TypeError", fmt::format("select `which` must be boolean, got {}.", types::dtype_name(t.type(ids[0]).dtype())));
      auto cases = lax_coerce(t, "select", {ids[1], ids[2]}, is_arr);
      const auto& pt = t.type(ids[0]);
      if (pt.rank() != 0 && pt.shape() != t.type(cases[0]).shape())
        throw types::ShardingError("TypeError", fmt::format("select `which` must be scalar or have the same shape as cases, got `which` "
                                                            "shape {} but case shape {}.", types::py_int_tuple(pt.shape()),
                                                            types::py_int_tuple(t.type(cases[0]).shape())));
      return std::vector<ValueId>{trace::where(t, ids[0], cases[0], cases[1])};
    });
  });
  def_lax(m, "clamp", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "clamp", {"min", "x", "max"});
    std::vector<Value> ops = {lax_operand(I, p.get("min"), "clamp", 0), lax_operand(I, p.get("x"), "clamp", 1),
                              lax_operand(I, p.get("max"), "clamp", 2)};
    return apply(I, "clamp", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{trace::clip(t, ids[1], ids[0], ids[2])};
    });
  });
  // Complex numbers: lax.complex(x, y) = x + i y; real / imag / conj.
  def_lax(m, "complex", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "complex", {"x", "y"});
    std::vector<Value> ops = {lax_operand(I, p.get("x"), "complex", 0), lax_operand(I, p.get("y"), "complex", 1)};
    std::vector<bool> is_arr = {is_array_like(ops[0]), is_array_like(ops[1])};
    return apply(I, "complex", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
      auto xy = lax_coerce(t, "complex", ids, is_arr);
      return std::vector<ValueId>{trace::make_complex(t, xy[0], xy[1])};
    });
  });
  using PartFn = ValueId (*)(Trace&, ValueId);
  for (auto [name, fn] : {std::pair<const char*, PartFn>{"real", trace::real}, {"imag", trace::imag}, {"conj", trace::conj}}) {
    def_lax(m, name, [name = std::string(name), fn = fn](Interp& I, CallArgs& a) {
      ArgParser p(I, a, name, {"x"});
      return apply(I, name, {lax_operand(I, p.get("x"), name, 0)}, [&](Trace& t, const std::vector<ValueId>& ids) {
        const DType d = t.type(ids[0]).dtype();
        // lax.real / lax.imag take complex operands only (lax.conj also real ones)
        if (name != "conj" && !types::is_complex(d))
          throw types::ShardingError("TypeError", fmt::format("{} does not accept dtype {}. Accepted dtypes are subtypes of "
                                                              "complexfloating.", name, types::dtype_name(d)));
        return std::vector<ValueId>{fn(t, ids[0])};
      });
    });
  }
  // Over a pytree, as JAX: each leaf the same value with a zero derivative.
  def_lax(m, "stop_gradient", [](Interp& I, CallArgs& a) {
    interp::bi::func_nargs(I, a, "stop_gradient", 1, 1);
    std::vector<Value> leaves;
    api::TreeDef def = api::tree_flatten(I, a.args[0], leaves);
    for (auto& leaf : leaves)
      leaf = apply(I, "stop_gradient", {leaf}, [](Trace& t, const std::vector<ValueId>& ids) {
        return std::vector<ValueId>{trace::stop_gradient(t, ids[0])};
      });
    size_t pos = 0;
    return api::tree_unflatten(I, def, leaves, pos);
  });
}

// Conversions of the element type: convert_element_type (a value conversion) and
// bitcast_convert_type (the same bits reread).
void add_conversions(ModuleObj& m) {
  def_lax(m, "convert_element_type", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "convert_element_type", {"operand", "new_dtype"});
    Value x = lax_operand(I, p.get("operand"), "convert_element_type", 0);
    if (!is_array_like(x)) x = to_array(I, x, std::nullopt, false);
    return op_astype(I, x, storage_dtype(require_dtype(I, p.get("new_dtype")), false));
  });
  def_lax(m, "bitcast_convert_type", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "bitcast_convert_type", {"operand", "new_dtype"});
    Value x = lax_operand(I, p.get("operand"), "bitcast_convert_type", 0);
    DType to = storage_dtype(require_dtype(I, p.get("new_dtype")), false);
    return apply(I, "bitcast_convert_type", {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{trace::bitcast_convert(t, ids[0], to)};
    });
  });
}

}  // namespace shard::api::lax
