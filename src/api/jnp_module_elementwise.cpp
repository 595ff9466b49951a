// jax.numpy elementwise functions: unary math, binary arithmetic and comparisons, logical
// and bitwise ops, where/clip/round, isclose/allclose/array_equal. Functions without a
// primitive of their own (log2, sinh, arcsin, ...) are composed from the ones that exist.
#include <fmt/format.h>

#include <cmath>

#include "api/op_args.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using codegen::EwOp;
using interp::ArgParser;
using interp::ObjKind;

namespace {

using Body1 = std::function<ValueId(Trace&, ValueId)>;
using Body2 = std::function<ValueId(Trace&, ValueId, ValueId)>;

Value operand(Interp& I, const Value& v, const char* fname) {
  if (is_array_like(v) || python_scalar_type(v, false)) return v;
  I.raise("TypeError", fmt::format("{} requires ndarray or scalar arguments, got {} at position 0.", fname, I.type_name(v)));
}

Value run1(Interp& I, const std::string& name, const Value& x, const Body1& body) {
  return apply(I, name, {operand(I, x, name.c_str())}, [&](Trace& t, const std::vector<ValueId>& ids) {
    return std::vector<ValueId>{body(t, ids[0])};
  });
}
Value run2(Interp& I, const std::string& name, const Value& x, const Value& y, const Body2& body) {
  return apply(I, name, {operand(I, x, name.c_str()), operand(I, y, name.c_str())},
               [&](Trace& t, const std::vector<ValueId>& ids) {
                 check_broadcast(t, ids);
                 return std::vector<ValueId>{body(t, ids[0], ids[1])};
               });
}

ValueId cst(Trace& t, double v, ValueId like) {
  return trace::scalar_constant(t, v, {trace::to_inexact(dtw(t, like)).dtype, true});
}
ValueId fl(Trace& t, ValueId x) { return trace::convert(t, x, trace::to_inexact(dtw(t, x))); }
bool is_exact(Trace& t, ValueId x) { return !types::is_float(t.type(x).dtype()); }
ValueId to_bool(Trace& t, ValueId x) { return trace::convert(t, x, {DType::Bool, false}); }

ValueId un(Trace& t, const char* n, EwOp op, ValueId x) { return trace::unary(t, n, op, x); }
ValueId bin(Trace& t, const char* n, EwOp op, ValueId x, ValueId y) { return trace::binary(t, n, op, x, y); }

// asin(x) = atan2(x, sqrt(1 - x^2)), acos(x) = atan2(sqrt(1 - x^2), x).
ValueId sqrt_one_minus_sq(Trace& t, ValueId x) {
  return un(t, "sqrt", EwOp::Sqrt, bin(t, "sub", EwOp::Sub, cst(t, 1, x), bin(t, "mul", EwOp::Mul, x, x)));
}

struct Unary {
  const char* name;
  Body1 body;
};

std::vector<Unary> unary_table() {
  auto simple = [](const char* prim, EwOp op) { return [prim, op](Trace& t, ValueId x) { return un(t, prim, op, x); }; };
  // floor/ceil/round/trunc of integers are the identity in jnp.
  auto rounding = [](const char* prim, EwOp op) {
    return [prim, op](Trace& t, ValueId x) { return is_exact(t, x) ? x : un(t, prim, op, x); };
  };
  return {
      {"sin", simple("sin", EwOp::Sin)},
      {"cos", simple("cos", EwOp::Cos)},
      {"tan", simple("tan", EwOp::Tan)},
      {"tanh", simple("tanh", EwOp::Tanh)},
      {"exp", simple("exp", EwOp::Exp)},
      {"log", simple("log", EwOp::Log)},
      {"log1p", simple("log1p", EwOp::Log1p)},
      {"sqrt", simple("sqrt", EwOp::Sqrt)},
      {"rsqrt", simple("rsqrt", EwOp::Rsqrt)},
      {"abs", simple("abs", EwOp::Abs)},
      {"absolute", simple("abs", EwOp::Abs)},
      {"fabs", [](Trace& t, ValueId x) { return un(t, "abs", EwOp::Abs, fl(t, x)); }},
      {"sign", simple("sign", EwOp::Sign)},
      {"negative", simple("neg", EwOp::Neg)},
      {"positive", [](Trace&, ValueId x) { return x; }},
      {"conj", [](Trace&, ValueId x) { return x; }},
      {"conjugate", [](Trace&, ValueId x) { return x; }},
      {"real", [](Trace&, ValueId x) { return x; }},
      {"reciprocal", simple("reciprocal", EwOp::Reciprocal)},
      {"square", simple("square", EwOp::Square)},
      {"floor", rounding("floor", EwOp::Floor)},
      {"ceil", rounding("ceil", EwOp::Ceil)},
      {"rint", rounding("round", EwOp::Round)},
      {"fix", [](Trace& t, ValueId x) {
         if (is_exact(t, x)) return x;
         ValueId neg = bin(t, "lt", EwOp::Lt, x, cst(t, 0, x));
         return trace::where(t, neg, un(t, "ceil", EwOp::Ceil, x), un(t, "floor", EwOp::Floor, x));
       }},
      {"trunc", [](Trace& t, ValueId x) {
         if (is_exact(t, x)) return x;
         ValueId neg = bin(t, "lt", EwOp::Lt, x, cst(t, 0, x));
         return trace::where(t, neg, un(t, "ceil", EwOp::Ceil, x), un(t, "floor", EwOp::Floor, x));
       }},
      {"isnan", [](Trace& t, ValueId x) {
         return is_exact(t, x) ? trace::full(t, t.type(x).shape(), 0, {DType::Bool, false}, std::nullopt) : un(t, "is_nan", EwOp::IsNan, x);
       }},
      {"isinf", [](Trace& t, ValueId x) {
         return is_exact(t, x) ? trace::full(t, t.type(x).shape(), 0, {DType::Bool, false}, std::nullopt) : un(t, "is_inf", EwOp::IsInf, x);
       }},
      {"isfinite", [](Trace& t, ValueId x) {
         return is_exact(t, x) ? trace::full(t, t.type(x).shape(), 1, {DType::Bool, false}, std::nullopt)
                               : un(t, "is_finite", EwOp::IsFinite, x);
       }},
      {"logical_not", [](Trace& t, ValueId x) { return un(t, "not", EwOp::Not, to_bool(t, x)); }},
      {"invert", simple("not", EwOp::Not)},
      {"bitwise_not", simple("not", EwOp::Not)},
      {"bitwise_invert", simple("not", EwOp::Not)},
      {"exp2", [](Trace& t, ValueId x) { x = fl(t, x); return un(t, "exp2", EwOp::Exp, bin(t, "mul", EwOp::Mul, x, cst(t, M_LN2, x))); }},
      {"expm1", [](Trace& t, ValueId x) { x = fl(t, x); return bin(t, "sub", EwOp::Sub, un(t, "exp", EwOp::Exp, x), cst(t, 1, x)); }},
      {"log2", [](Trace& t, ValueId x) { x = fl(t, x); return bin(t, "div", EwOp::Div, un(t, "log", EwOp::Log, x), cst(t, M_LN2, x)); }},
      {"log10", [](Trace& t, ValueId x) { x = fl(t, x); return bin(t, "div", EwOp::Div, un(t, "log", EwOp::Log, x), cst(t, M_LN10, x)); }},
      {"sinh", [](Trace& t, ValueId x) {
         x = fl(t, x);
         ValueId d = bin(t, "sub", EwOp::Sub, un(t, "exp", EwOp::Exp, x), un(t, "exp", EwOp::Exp, un(t, "neg", EwOp::Neg, x)));
         return bin(t, "mul", EwOp::Mul, d, cst(t, 0.5, x));
       }},
      {"cosh", [](Trace& t, ValueId x) {
         x = fl(t, x);
         ValueId s = bin(t, "add", EwOp::Add, un(t, "exp", EwOp::Exp, x), un(t, "exp", EwOp::Exp, un(t, "neg", EwOp::Neg, x)));
         return bin(t, "mul", EwOp::Mul, s, cst(t, 0.5, x));
       }},
      {"arcsin", [](Trace& t, ValueId x) { x = fl(t, x); return bin(t, "atan2", EwOp::Atan2, x, sqrt_one_minus_sq(t, x)); }},
      {"arccos", [](Trace& t, ValueId x) { x = fl(t, x); return bin(t, "atan2", EwOp::Atan2, sqrt_one_minus_sq(t, x), x); }},
      {"arctan", [](Trace& t, ValueId x) { x = fl(t, x); return bin(t, "atan2", EwOp::Atan2, x, cst(t, 1, x)); }},
      {"deg2rad", [](Trace& t, ValueId x) { x = fl(t, x); return bin(t, "mul", EwOp::Mul, x, cst(t, M_PI / 180, x)); }},
      {"radians", [](Trace& t, ValueId x) { x = fl(t, x); return bin(t, "mul", EwOp::Mul, x, cst(t, M_PI / 180, x)); }},
      {"rad2deg", [](Trace& t, ValueId x) { x = fl(t, x); return bin(t, "mul", EwOp::Mul, x, cst(t, 180 / M_PI, x)); }},
      {"degrees", [](Trace& t, ValueId x) { x = fl(t, x); return bin(t, "mul", EwOp::Mul, x, cst(t, 180 / M_PI, x)); }},
      {"signbit", [](Trace& t, ValueId x) { return bin(t, "lt", EwOp::Lt, x, trace::scalar_constant(t, 0, {DType::I32, true})); }},
  };
}

struct Binary {
  const char* name;
  Body2 body;
};

std::vector<Binary> binary_table() {
  auto simple = [](const char* prim, EwOp op) { return [prim, op](Trace& t, ValueId x, ValueId y) { return bin(t, prim, op, x, y); }; };
  auto logical = [](const char* prim, EwOp op) {
    return [prim, op](Trace& t, ValueId x, ValueId y) { return bin(t, prim, op, to_bool(t, x), to_bool(t, y)); };
  };
  return {
      {"add", simple("add", EwOp::Add)},
      {"subtract", simple("sub", EwOp::Sub)},
      {"multiply", simple("mul", EwOp::Mul)},
      {"divide", simple("div", EwOp::Div)},
      {"true_divide", simple("div", EwOp::Div)},
      {"floor_divide", simple("floor_divide", EwOp::FloorDiv)},
      {"remainder", simple("rem", EwOp::Mod)},
      {"mod", simple("rem", EwOp::Mod)},
      {"fmod", simple("rem", EwOp::Rem)},
      {"power", simple("pow", EwOp::Pow)},
      {"pow", simple("pow", EwOp::Pow)},
      {"float_power", [](Trace& t, ValueId x, ValueId y) { return bin(t, "pow", EwOp::Pow, fl(t, x), y); }},
      {"maximum", simple("max", EwOp::Max)},
      {"minimum", simple("min", EwOp::Min)},
      {"fmax", simple("max", EwOp::Max)},
      {"fmin", simple("min", EwOp::Min)},
      {"arctan2", simple("atan2", EwOp::Atan2)},
      {"atan2", simple("atan2", EwOp::Atan2)},
      {"equal", simple("eq", EwOp::Eq)},
      {"not_equal", simple("ne", EwOp::Ne)},
      {"less", simple("lt", EwOp::Lt)},
      {"less_equal", simple("le", EwOp::Le)},
      {"greater", simple("gt", EwOp::Gt)},
      {"greater_equal", simple("ge", EwOp::Ge)},
      {"bitwise_and", simple("and", EwOp::And)},
      {"bitwise_or", simple("or", EwOp::Or)},
      {"bitwise_xor", simple("xor", EwOp::Xor)},
      // right shifts are logical for unsigned operands (trace::binary picks)
      {"left_shift", simple("shift_left", EwOp::ShiftLeft)},
      {"bitwise_left_shift", simple("shift_left", EwOp::ShiftLeft)},
      {"right_shift", simple("shift_right", EwOp::ShiftRightArithmetic)},
      {"bitwise_right_shift", simple("shift_right", EwOp::ShiftRightArithmetic)},
      {"logical_and", logical("and", EwOp::And)},
      {"logical_or", logical("or", EwOp::Or)},
      {"logical_xor", logical("xor", EwOp::Xor)},
      {"hypot", [](Trace& t, ValueId x, ValueId y) {
         x = fl(t, x);
         y = fl(t, y);
         return un(t, "sqrt", EwOp::Sqrt, bin(t, "add", EwOp::Add, bin(t, "mul", EwOp::Mul, x, x), bin(t, "mul", EwOp::Mul, y, y)));
       }},
      {"copysign", [](Trace& t, ValueId x, ValueId y) {
         x = fl(t, x);
         ValueId ax = un(t, "abs", EwOp::Abs, x);
         ValueId neg = bin(t, "lt", EwOp::Lt, y, trace::scalar_constant(t, 0, {DType::I32, true}));
         return trace::where(t, neg, un(t, "neg", EwOp::Neg, ax), ax);
       }},
  };
}

// |a - b| <= atol + rtol*|b|, with infinities equal only to themselves (jnp.isclose).
ValueId isclose_body(Trace& t, ValueId a, ValueId b, double rtol, double atol, bool equal_nan) {
  DTypeW p = trace::promote(dtw(t, a), dtw(t, b));
  if (!types::is_float(p.dtype)) return bin(t, "eq", EwOp::Eq, a, b);
  a = trace::convert(t, a, p);
  b = trace::convert(t, b, p);
  ValueId diff = un(t, "abs", EwOp::Abs, bin(t, "sub", EwOp::Sub, a, b));
  ValueId tol = bin(t, "add", EwOp::Add, trace::scalar_constant(t, atol, {p.dtype, true}),
                    bin(t, "mul", EwOp::Mul, trace::scalar_constant(t, rtol, {p.dtype, true}), un(t, "abs", EwOp::Abs, b)));
  ValueId out = bin(t, "le", EwOp::Le, diff, tol);
  ValueId any_inf = bin(t, "or", EwOp::Or, un(t, "is_inf", EwOp::IsInf, a), un(t, "is_inf", EwOp::IsInf, b));
  out = trace::where(t, any_inf, bin(t, "eq", EwOp::Eq, a, b), out);
  if (equal_nan) {
    ValueId both_nan = bin(t, "and", EwOp::And, un(t, "is_nan", EwOp::IsNan, a), un(t, "is_nan", EwOp::IsNan, b));
    out = bin(t, "or", EwOp::Or, out, both_nan);
  }
  return out;
}

struct CloseArgs {
  Value a, b;
  double rtol = 1e-5, atol = 1e-8;
  bool equal_nan = false;
};
CloseArgs close_args(Interp& I, CallArgs& c, const char* name) {
  ArgParser p(I, c, name, {"a", "b", "rtol=", "atol=", "equal_nan="});
  CloseArgs r;
  r.a = operand(I, p.get("a"), name);
  r.b = operand(I, p.get("b"), name);
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
  std::vector<Value> ops = {operand(I, x, "clip")};
  const bool has_lo = !is_none(lo), has_hi = !is_none(hi);
  if (has_lo) ops.push_back(operand(I, lo, "clip"));
  if (has_hi) ops.push_back(operand(I, hi, "clip"));
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
  return run1(I, "round", p.get("a"), [&](Trace& t, ValueId x) {
    if (is_exact(t, x)) return x;
    if (decimals == 0) return un(t, "round", EwOp::Round, x);
    ValueId f = cst(t, std::pow(10.0, static_cast<double>(decimals)), x);
    return bin(t, "div", EwOp::Div, un(t, "round", EwOp::Round, bin(t, "mul", EwOp::Mul, x, f)), f);
  });
}

void add_jnp_elementwise(Interp&, ModuleObj& m) {
  for (auto& u : unary_table()) {
    std::string name = u.name;
    Body1 body = u.body;
    def_jnp(m, name, [name, body](Interp& I, CallArgs& a) {
      interp::bi::func_nargs(I, a, name, 1, 1);
      return run1(I, name, a.args[0], body);
    });
  }
  for (auto& b : binary_table()) {
    std::string name = b.name;
    Body2 body = b.body;
    def_jnp(m, name, [name, body](Interp& I, CallArgs& a) {
      interp::bi::func_nargs(I, a, name, 2, 2);
      return run2(I, name, a.args[0], a.args[1], body);
    });
  }
  def_jnp(m, "where", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "where", {"condition", "x=", "y=", "*", "size=", "fill_value="});
    if (!p.has("x") && !p.has("y"))
      I.raise("NotImplementedError", "jnp.where(condition) (nonzero) is not supported: its shape depends on the values");
    if (!p.has("x") || !p.has("y")) I.raise("ValueError", "Either both or neither of the x and y arguments should be provided to jax.numpy.where, got only one.");
    return apply(I, "where", {operand(I, p.get("condition"), "where"), operand(I, p.get("x"), "where"), operand(I, p.get("y"), "where")},
                 [&](Trace& t, const std::vector<ValueId>& ids) {
                   check_broadcast(t, ids);
                   return std::vector<ValueId>{trace::where(t, ids[0], ids[1], ids[2])};
                 });
  });
  def_jnp(m, "clip", jnp_clip);
  def_jnp(m, "round", jnp_round);
  def_jnp(m, "around", jnp_round);
  def_jnp(m, "isclose", [](Interp& I, CallArgs& a) {
    auto c = close_args(I, a, "isclose");
    return run2(I, "isclose", c.a, c.b, [&](Trace& t, ValueId x, ValueId y) { return isclose_body(t, x, y, c.rtol, c.atol, c.equal_nan); });
  });
  def_jnp(m, "allclose", [](Interp& I, CallArgs& a) {
    auto c = close_args(I, a, "allclose");
    return run2(I, "allclose", c.a, c.b, [&](Trace& t, ValueId x, ValueId y) {
      return trace::reduce(t, "allclose", codegen::ReduceKind::And, isclose_body(t, x, y, c.rtol, c.atol, c.equal_nan), {}, false);
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
    return run2(I, "array_equal", x, y, [&](Trace& t, ValueId u, ValueId v) {
      ValueId eq = bin(t, "eq", EwOp::Eq, u, v);
      if (equal_nan && !is_exact(t, u))
        eq = bin(t, "or", EwOp::Or, eq, bin(t, "and", EwOp::And, un(t, "is_nan", EwOp::IsNan, u), un(t, "is_nan", EwOp::IsNan, v)));
      return trace::reduce(t, "array_equal", codegen::ReduceKind::And, eq, {}, false);
    });
  });
}

}  // namespace shard::api
