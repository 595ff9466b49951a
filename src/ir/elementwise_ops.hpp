// The elementwise primitives, declared once. Every layer derives what it needs from this
// table: the IR's printed names, the tracer's dtype rule, cost analysis (flops and
// transcendentals), and the Python bindings of jax.numpy, jax.lax and numpy (a binding
// column lists the names the module exports for the primitive). A new elementwise
// primitive is a row here plus its scalar code in codegen/scalar_ops.cpp.
#pragma once
#include <cstdint>
#include <string_view>

namespace shard::ir {

// How a primitive's result dtype follows from its operands' (jnp semantics; numpy's
// float64 defaults are the binding's business).
enum class EwDTypeRule : uint8_t {
  Internal,   // not bound by name (leaves, converts, select, clamp): the caller decides
  Numeric,    // the promoted operand dtype
  Inexact,    // the promoted operand dtype, integers and bools made floating
  Rounding,   // floating operands only; integers pass through unchanged (jnp.floor(int) is int)
  Compare,    // operands promoted, bool result
  Predicate,  // float -> bool; integer operands give a constant (jnp.isnan(int) is False)
  Bitwise,    // integers and bools
  Shift,      // integers; a right shift is logical for unsigned types
  FloatOnly,  // floating operands only, never promoted (lax.erf_inv, lax.lgamma, lax.polygamma)
};

// X(Enum, "JAX primitive name", arity, dtype rule, transcendental, flops per element,
//   "jax.numpy names", "jax.lax names", "numpy names")  -- names separated by spaces.
// The binding columns list only plain bindings (the primitive applied after the rule's
// promotion); bindings with other semantics (lax.div's truncation, numpy's integer
// reciprocal, jnp.round's decimals) are written out in their modules.
#define SHARD_ELEMENTWISE_OPS(X)                                                                                  \
  /* leaves of a fused kernel */                                                                                  \
  X(Input, "input", 0, Internal, false, 0, "", "", "")                                                            \
  X(Const, "const", 0, Internal, false, 0, "", "", "")                                                            \
  /* unary */                                                                                                     \
  X(Neg, "neg", 1, Numeric, false, 1, "negative", "neg", "negative")                                              \
  X(Abs, "abs", 1, Numeric, false, 1, "abs absolute", "abs", "abs absolute")                                      \
  X(Sign, "sign", 1, Numeric, false, 1, "sign", "sign", "sign")                                                   \
  X(Floor, "floor", 1, Rounding, false, 1, "floor", "floor", "floor")                                                  \
  X(Ceil, "ceil", 1, Rounding, false, 1, "ceil", "ceil", "ceil")                                                      \
  X(Round, "round", 1, Rounding, false, 1, "rint", "round", "rint")                                                   \
  X(Sqrt, "sqrt", 1, Inexact, true, 1, "sqrt", "sqrt", "sqrt")                                                    \
  X(Rsqrt, "rsqrt", 1, Inexact, true, 1, "rsqrt", "rsqrt", "")                                                    \
  X(Cbrt, "cbrt", 1, Inexact, true, 1, "cbrt", "cbrt", "cbrt")                                                    \
  X(Exp, "exp", 1, Inexact, true, 1, "exp", "exp", "exp")                                                         \
  X(Expm1, "expm1", 1, Inexact, true, 1, "expm1", "expm1", "expm1")                                               \
  X(Log, "log", 1, Inexact, true, 1, "log", "log", "log")                                                         \
  X(Log1p, "log1p", 1, Inexact, true, 1, "log1p", "log1p", "log1p")                                               \
  X(Sin, "sin", 1, Inexact, true, 1, "sin", "sin", "sin")                                                         \
  X(Cos, "cos", 1, Inexact, true, 1, "cos", "cos", "cos")                                                         \
  X(Tan, "tan", 1, Inexact, true, 1, "tan", "tan", "tan")                                                         \
  X(Sinh, "sinh", 1, Inexact, true, 1, "sinh", "sinh", "sinh")                                                    \
  X(Cosh, "cosh", 1, Inexact, true, 1, "cosh", "cosh", "cosh")                                                    \
  X(Tanh, "tanh", 1, Inexact, true, 1, "tanh", "tanh", "tanh")                                                    \
  X(Logistic, "logistic", 1, Inexact, true, 1, "", "logistic", "")                                                \
  X(Erf, "erf", 1, Inexact, true, 1, "", "erf", "")                                                               \
  X(Erfc, "erfc", 1, Inexact, true, 1, "", "erfc", "")                                                            \
  X(ErfInv, "erf_inv", 1, FloatOnly, true, 1, "", "erf_inv", "")                                                  \
  X(Lgamma, "lgamma", 1, FloatOnly, true, 1, "", "lgamma", "")     /* log|Gamma(x)| */                             \
  X(Digamma, "digamma", 1, FloatOnly, true, 1, "", "digamma", "")  /* psi = lgamma's derivative */               \
  /* special functions (codegen/special_functions.cpp): float64 inside, rounded once */                      \
  X(BesselI0e, "bessel_i0e", 1, FloatOnly, true, 1, "", "bessel_i0e", "")  /* exp(-|x|) I0(x) */               \
  X(BesselI1e, "bessel_i1e", 1, FloatOnly, true, 1, "", "bessel_i1e", "")  /* exp(-|x|) I1(x) */               \
  X(Erfcx, "erfcx", 1, FloatOnly, true, 1, "", "", "")  /* exp(x^2) erfc(x): jax.scipy.special.erfcx */         \
  X(Expi, "expi", 1, FloatOnly, true, 1, "", "", "")  /* Ei(x): jax.scipy.special.expi */                       \
  X(Not, "not", 1, Bitwise, false, 1, "invert bitwise_not bitwise_invert", "not_", "invert bitwise_not")          \
  X(Square, "square", 1, Numeric, false, 1, "square", "square", "square")                                         \
  X(IntegerPow, "integer_pow", 1, Numeric, false, 1, "", "", "") /* x ** y, y the attribute: multiplies */       \
  X(Reciprocal, "reciprocal", 1, Inexact, false, 1, "reciprocal", "reciprocal", "")                               \
  X(IsNan, "isnan", 1, Predicate, false, 1, "isnan", "", "isnan")                                                 \
  X(IsInf, "isinf", 1, Predicate, false, 1, "isinf", "", "isinf")                                                 \
  X(IsFinite, "is_finite", 1, Predicate, false, 1, "isfinite", "is_finite", "isfinite")                           \
  X(Convert, "convert_element_type", 1, Internal, false, 1, "", "", "")                                           \
  X(BitcastConvert, "bitcast_convert_type", 1, Internal, false, 1, "", "", "") /* same width: the bits reread */  \
  X(StopGradient, "stop_gradient", 1, Internal, false, 0, "", "", "") /* identity whose tangent is zero */        \
  /* complex numbers: lowered to ops on the parts before codegen (spmd/lower_complex.hpp) */                     \
  X(Real, "real", 1, Internal, false, 0, "", "", "")                                                              \
  X(Imag, "imag", 1, Internal, false, 0, "", "", "")                                                              \
  X(Conj, "conj", 1, Internal, false, 1, "", "", "")                                                              \
  /* binary */                                                                                                    \
  X(Add, "add", 2, Numeric, false, 1, "add", "add", "add")                                                        \
  X(Sub, "sub", 2, Numeric, false, 1, "subtract", "sub", "subtract")                                              \
  X(Mul, "mul", 2, Numeric, false, 1, "multiply", "mul", "multiply")                                              \
  X(Div, "div", 2, Inexact, false, 1, "divide true_divide", "", "divide true_divide")                             \
  X(FloorDiv, "floor_divide", 2, Numeric, false, 1, "floor_divide", "", "floor_divide")                           \
  X(Rem, "rem", 2, Numeric, false, 1, "fmod", "rem", "fmod")  /* C's remainder: the dividend's sign */            \
  X(Mod, "remainder", 2, Numeric, false, 1, "remainder mod", "", "remainder mod") /* the divisor's sign */        \
  X(Pow, "pow", 2, Numeric, true, 1, "", "pow", "power") /* jnp: trace::power */                                                 \
  X(Max, "max", 2, Numeric, false, 1, "maximum fmax", "max", "maximum")                                           \
  X(Min, "min", 2, Numeric, false, 1, "minimum fmin", "min", "minimum")                                           \
  X(Atan2, "atan2", 2, Inexact, true, 1, "arctan2 atan2", "atan2", "arctan2")                                     \
  X(NextAfter, "nextafter", 2, Inexact, false, 1, "nextafter", "nextafter", "nextafter")                          \
  X(LogAddExp, "logaddexp", 2, Inexact, true, 1, "logaddexp", "", "logaddexp")                                    \
  X(Polygamma, "polygamma", 2, FloatOnly, true, 1, "", "polygamma", "") /* (m, x): psi's m-th derivative */       \
  X(Complex, "complex", 2, Internal, false, 0, "", "", "") /* (real part, imaginary part) */                      \
  X(Igamma, "igamma", 2, FloatOnly, true, 1, "", "igamma", "") /* (a, x): regularized P(a, x) */              \
  X(Igammac, "igammac", 2, FloatOnly, true, 1, "", "igammac", "") /* (a, x): Q(a, x) = 1 - P(a, x) */         \
  X(IgammaGradA, "igamma_grad_a", 2, FloatOnly, true, 1, "", "igamma_grad_a", "") /* dP(a, x)/da */          \
  X(Zeta, "zeta", 2, FloatOnly, true, 1, "", "zeta", "") /* (x, q): Hurwitz zeta */                           \
  X(Expn, "expn", 2, FloatOnly, true, 1, "", "", "") /* (n, x): E_n(x), jax.scipy.special.expn */            \
  X(And, "and", 2, Bitwise, false, 1, "bitwise_and", "bitwise_and", "bitwise_and")                                \
  X(Or, "or", 2, Bitwise, false, 1, "bitwise_or", "bitwise_or", "bitwise_or")                                     \
  X(Xor, "xor", 2, Bitwise, false, 1, "bitwise_xor", "bitwise_xor", "bitwise_xor")                                \
  X(Eq, "eq", 2, Compare, false, 1, "equal", "eq", "equal")                                                       \
  X(Ne, "ne", 2, Compare, false, 1, "not_equal", "ne", "not_equal")                                               \
  X(Lt, "lt", 2, Compare, false, 1, "less", "lt", "less")                                                         \
  X(Le, "le", 2, Compare, false, 1, "less_equal", "le", "less_equal")                                             \
  X(Gt, "gt", 2, Compare, false, 1, "greater", "gt", "greater")                                                   \
  X(Ge, "ge", 2, Compare, false, 1, "greater_equal", "ge", "greater_equal")                                       \
  /* shifts: counts >= the bit width give 0 (or the sign fill), as lax */                                         \
  X(ShiftLeft, "shift_left", 2, Shift, false, 1, "left_shift bitwise_left_shift", "shift_left", "left_shift")     \
  X(ShiftRightLogical, "shift_right_logical", 2, Shift, false, 1, "", "shift_right_logical", "")                  \
  X(ShiftRightArithmetic, "shift_right_arithmetic", 2, Shift, false, 1, "right_shift bitwise_right_shift",        \
    "shift_right_arithmetic", "right_shift")                                                                      \
  /* ternary */                                                                                                   \
  X(Select, "select_n", 3, Internal, false, 1, "", "", "")                                                        \
  X(Clamp, "clamp", 3, Internal, false, 1, "", "", "") \
  X(RegularizedIncompleteBeta, "regularized_incomplete_beta", 3, FloatOnly, true, 1, "", "", "") /* (a, b, x): lax.betainc */

enum class EwOp : uint8_t {
#define X(e, ...) e,
  SHARD_ELEMENTWISE_OPS(X)
#undef X
};

// One row of the table.
struct EwInfo {
  const char* enum_name;  // "Log1p": kernel signatures, internal errors
  const char* primitive;  // "log1p": the IR's printed name
  int arity;
  EwDTypeRule dtype_rule;
  bool transcendental;  // counted apart in cost_analysis(), as XLA does
  int flops;            // per element, for cost_analysis()
  std::string_view jnp_names, lax_names, numpy_names;
};

inline constexpr EwInfo kEwInfo[] = {
#define X(e, prim, arity, rule, transc, flops, jnp, lax, np) {#e, prim, arity, EwDTypeRule::rule, transc, flops, jnp, lax, np},
    SHARD_ELEMENTWISE_OPS(X)
#undef X
};

constexpr const EwInfo& ew_info(EwOp op) { return kEwInfo[static_cast<size_t>(op)]; }
constexpr const char* ew_op_name(EwOp op) { return ew_info(op).enum_name; }
constexpr size_t kNumEwOps = sizeof(kEwInfo) / sizeof(kEwInfo[0]);

// Results are bool.
constexpr bool ew_returns_bool(EwOp op) {
  auto r = ew_info(op).dtype_rule;
  return r == EwDTypeRule::Compare || r == EwDTypeRule::Predicate;
}
// Integer (and bool) operands are made floating first.
constexpr bool ew_makes_inexact(EwOp op) { return ew_info(op).dtype_rule == EwDTypeRule::Inexact; }

// Calls f(op, name) for every name in one binding column of the table.
template <class Column, class F>
void for_each_binding(Column column, F&& f) {
  for (size_t i = 0; i < kNumEwOps; ++i) {
    std::string_view names = column(kEwInfo[i]);
    while (!names.empty()) {
      size_t end = names.find(' ');
      std::string_view name = names.substr(0, end);
      if (!name.empty()) f(static_cast<EwOp>(i), name);
      if (end == std::string_view::npos) break;
      names.remove_prefix(end + 1);
    }
  }
}

}  // namespace shard::ir
