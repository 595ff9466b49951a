// Array operators: + - * / // % ** @ & | ^ (and their reflected forms), unary - + ~ abs,
// and the elementwise comparisons. Device arrays follow jax.numpy (Python scalars weak,
// other Python values -> NotImplemented, so Python raises its TypeError); numpy host arrays
// follow numpy (lists on either side become arrays; numpy's value-based promotion).
#include <fmt/format.h>

#include "api/op_args.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using ir::EwOp;
using interp::ObjKind;
namespace bi = interp::bi;

Value op_binary(Interp& I, const std::string& name, EwOp op, const Value& a, const Value& b) {
  const bool host = host_operands({a, b});
  std::optional<DType> R = host ? numpy_binary_dtype({a, b}, ir::ew_makes_inexact(op)) : std::nullopt;
  const bool a_arr = is_array_like(a), b_arr = is_array_like(b);
  return apply(I, name, {a, b}, [&](Trace& t, const std::vector<ValueId>& ids) {
    ValueId x = ids[0], y = ids[1];
    check_broadcast(t, ids, host);
    if (R) {
      // numpy: arrays take the result dtype; Python scalars stay weak constants.
      if (a_arr) x = trace::convert(t, x, {*R, false});
      if (b_arr) y = trace::convert(t, y, {*R, false});
      if (!a_arr) x = trace::convert(t, x, {*R, true});
      if (!b_arr) y = trace::convert(t, y, {*R, true});
    }
    // jnp semantics for device arrays: x ** 2 is integer_pow; numpy keeps its pow.
    if (op == EwOp::Pow && !host) return std::vector<ValueId>{trace::power(t, name, x, y)};
    return std::vector<ValueId>{trace::binary(t, name, op, x, y)};
  });
}

Value op_unary(Interp& I, const std::string& name, EwOp op, const Value& x) {
  const bool host = host_operands({x});
  return apply(I, name, {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
    ValueId v = ids[0];
    if (host && ir::ew_makes_inexact(op) && !types::is_inexact(t.type(v).dtype())) v = trace::convert(t, v, {DType::F64, false});
    return std::vector<ValueId>{trace::unary(t, name, op, v)};
  });
}

Value op_matmul(Interp& I, const Value& a, const Value& b, const sharding::OptOutSharding& out_sharding, const std::string& name) {
  const bool host = host_operands({a, b});
  std::optional<DType> R = host ? numpy_binary_dtype({a, b}, false) : std::nullopt;
  return apply(I, name, {a, b}, [&](Trace& t, const std::vector<ValueId>& ids) {
    ValueId x = ids[0], y = ids[1];
    if (R) {
      x = trace::convert(t, x, {*R, false});
      y = trace::convert(t, y, {*R, false});
    }
    const auto& lt = t.type(x);
    const auto& rt = t.type(y);
    if (lt.rank() > 0 && rt.rank() > 0) {
      int64_t k1 = lt.shape().back(), k2 = rt.shape()[rt.rank() == 1 ? 0 : rt.rank() - 2];
      if (k1 != k2)
        throw types::ShardingError("TypeError", fmt::format("dot_general requires contracting dimensions to have the same shape, "
                                                            "got ({},) and ({},).", k1, k2));
    }
    return std::vector<ValueId>{trace::matmul(t, x, y, out_sharding, "dot_general")};
  });
}

namespace {

struct BinSpec {
  const char* dunder;
  const char* rdunder;
  const char* name;  // the primitive as errors name it
  EwOp op;
};

const BinSpec kBinary[] = {
    {"__add__", "__radd__", "add", EwOp::Add},
    {"__sub__", "__rsub__", "sub", EwOp::Sub},
    {"__mul__", "__rmul__", "mul", EwOp::Mul},
    {"__truediv__", "__rtruediv__", "div", EwOp::Div},
    {"__floordiv__", "__rfloordiv__", "floor_divide", EwOp::FloorDiv},
    {"__mod__", "__rmod__", "rem", EwOp::Mod},
    {"__pow__", "__rpow__", "pow", EwOp::Pow},
    {"__and__", "__rand__", "and", EwOp::And},
    {"__or__", "__ror__", "or", EwOp::Or},
    {"__xor__", "__rxor__", "xor", EwOp::Xor},
    {"__lshift__", "__rlshift__", "shift_left", EwOp::ShiftLeft},
    {"__rshift__", "__rrshift__", "shift_right", EwOp::ShiftRightArithmetic},  // logical if unsigned
};

const BinSpec kCompare[] = {
    {"__eq__", nullptr, "eq", EwOp::Eq},
    {"__ne__", nullptr, "ne", EwOp::Ne},
    {"__lt__", nullptr, "lt", EwOp::Lt},
    {"__le__", nullptr, "le", EwOp::Le},
    {"__gt__", nullptr, "gt", EwOp::Gt},
    {"__ge__", nullptr, "ge", EwOp::Ge},
};

// The other operand as an array op accepts it, or null (-> NotImplemented).
Value other_operand(Interp& I, const Value& self, const Value& other) {
  auto* sa = as_array(self);
  const bool host = sa && sa->host;
  return as_operand(I, other, host);
}

// x.__add__(y) / x.__radd__(y) (reflected: y + x); NotImplemented for other operands.
NativeFn binary_dunder(const BinSpec& spec, bool reflected) {
  const char* dunder = reflected ? spec.rdunder : spec.dunder;
  return [spec, dunder, reflected](Interp& I, CallArgs& a) -> Value {
    bi::method_nargs(I, a, dunder, 1, 1);
    Value o = other_operand(I, a.args[0], a.args[1]);
    if (!o) return interp::not_implemented();
    return reflected ? op_binary(I, spec.name, spec.op, o, a.args[0]) : op_binary(I, spec.name, spec.op, a.args[0], o);
  };
}

}  // namespace

void install_array_operators(const ClassP& c) {
  for (const auto& spec : kBinary) {
    bi::def(c, spec.dunder, binary_dunder(spec, false));
    bi::def(c, spec.rdunder, binary_dunder(spec, true));
  }
  for (const auto& spec : kCompare) bi::def(c, spec.dunder, binary_dunder(spec, false));
  bi::def(c, "__matmul__", [](Interp& I, CallArgs& a) -> Value {
    bi::method_nargs(I, a, "__matmul__", 1, 1);
    Value o = other_operand(I, a.args[0], a.args[1]);
    if (!o || !is_array_like(o)) return interp::not_implemented();
    return op_matmul(I, a.args[0], o, std::nullopt, "matmul");
  });
  bi::def(c, "__rmatmul__", [](Interp& I, CallArgs& a) -> Value {
    bi::method_nargs(I, a, "__rmatmul__", 1, 1);
    Value o = other_operand(I, a.args[0], a.args[1]);
    if (!o || !is_array_like(o)) return interp::not_implemented();
    return op_matmul(I, o, a.args[0], std::nullopt, "matmul");
  });
  bi::def(c, "__neg__", [](Interp& I, CallArgs& a) { return op_unary(I, "neg", EwOp::Neg, a.args[0]); });
  bi::def(c, "__pos__", [](Interp&, CallArgs& a) { return a.args[0]; });
  bi::def(c, "__abs__", [](Interp& I, CallArgs& a) { return op_unary(I, "abs", EwOp::Abs, a.args[0]); });
  bi::def(c, "__invert__", [](Interp& I, CallArgs& a) { return op_unary(I, "not", EwOp::Not, a.args[0]); });
}

}  // namespace shard::api
