// Elementwise jnp ops: promotion, broadcasting, the elementwise sharding rules.
#include <fmt/format.h>

#include <cstring>

#include "trace/ops.hpp"
#include "types/element_io.hpp"
#include "types/half_float.hpp"

namespace shard::trace {

using ir::OpKind;

namespace {
DTypeW dtw(const ArrayType& t) { return {t.dtype(), t.weak_type()}; }

ir::attr::Elementwise ew_attrs(EwOp op) { return {op}; }

[[noreturn]] void reject_dtype(const std::string& name, DType d, const char* accepted) {
  throw types::ShardingError("TypeError", fmt::format("{} does not accept dtype {}. Accepted dtypes are subtypes of {}.", name,
                                                      types::dtype_name(d), accepted));
}

// The primitives shard computes on complex values (spmd/lower_complex.cpp writes each as
// real ops on the parts).
bool complex_supported(EwOp op) {
  switch (op) {
    case EwOp::Neg: case EwOp::Abs: case EwOp::Sign: case EwOp::Sqrt: case EwOp::Rsqrt: case EwOp::Exp: case EwOp::Expm1:
    case EwOp::Log: case EwOp::Log1p: case EwOp::Sin: case EwOp::Cos: case EwOp::Tan: case EwOp::Sinh: case EwOp::Cosh:
    case EwOp::Tanh: case EwOp::Logistic: case EwOp::Square: case EwOp::IntegerPow: case EwOp::Reciprocal: case EwOp::IsNan:
    case EwOp::IsInf: case EwOp::IsFinite: case EwOp::Convert: case EwOp::StopGradient: case EwOp::Add: case EwOp::Sub:
    case EwOp::Mul: case EwOp::Div: case EwOp::Pow: case EwOp::Eq: case EwOp::Ne: case EwOp::Select: case EwOp::Real:
    case EwOp::Imag: case EwOp::Conj:
    // ordered lexicographically (real part first), as jnp's complex comparisons and
    // maximum / minimum do
    case EwOp::Lt: case EwOp::Le: case EwOp::Gt: case EwOp::Ge: case EwOp::Max: case EwOp::Min:
      return true;
    default: return false;
  }
}

void check_complex_support(const std::string& name, EwOp op, DType d) {
  if (!types::is_complex(d) || complex_supported(op)) return;
  const auto rule = ir::ew_info(op).dtype_rule;
  // What JAX itself refuses (ordering, rounding, bitwise and float-only primitives) is its
  // TypeError; the rest JAX has and shard does not yet.
  if (rule == ir::EwDTypeRule::Rounding || rule == ir::EwDTypeRule::FloatOnly || rule == ir::EwDTypeRule::Bitwise ||
      rule == ir::EwDTypeRule::Shift || op == EwOp::Cbrt || op == EwOp::Erf || op == EwOp::Erfc || op == EwOp::Atan2 ||
      op == EwOp::Rem || op == EwOp::Mod || op == EwOp::FloorDiv || op == EwOp::NextAfter)
    reject_dtype(name, d, rule == ir::EwDTypeRule::Bitwise || rule == ir::EwDTypeRule::Shift ? "integer, bool" : "floating");
  throw types::ShardingError("NotImplementedError",
                             fmt::format("{} of complex values ({}) is not supported by shard yet", name, types::dtype_name(d)));
}
}  // namespace

// lax's n-ary float-only primitives (polygamma): JAX's message names the first operand that
// is not floating by its position.
void reject_non_float_operands(const std::string& name, const std::vector<DType>& dtypes) {
  for (size_t i = 0; i < dtypes.size(); ++i)
    if (!types::is_float(dtypes[i]))
      throw types::ShardingError("TypeError", fmt::format("{} does not accept dtype {} at position {}. Accepted dtypes at position {} "
                                                          "are subtypes of floating.", name, types::dtype_name(dtypes[i]), i, i));
}

int64_t normalize_axis(const std::string& op, int64_t axis, size_t rank) {
  const auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r)
    throw types::ShardingError("ValueError", fmt::format("axis {} is out of bounds for array of dimension {}", axis, rank));
  return axis < 0 ? axis + r : axis;
}

ValueId constant(Trace& t, DType dtype, const Shape& shape, const void* bytes, bool weak, const OptOutSharding& out_sharding) {
  auto type = sharding::propagate_creation(t.ctx("constant"), dtype, shape, out_sharding, weak);
  ir::attr::Constant a;
  auto lit = std::make_shared<ir::Literal>();
  lit->bytes.resize(static_cast<size_t>(types::shape_product(shape)) * types::dtype_size(dtype));
  if (!lit->bytes.empty()) std::memcpy(lit->bytes.data(), bytes, lit->bytes.size());
  a.literal = lit;
  return t.emit(OpKind::Constant, {}, type, a);
}

ValueId scalar_constant(Trace& t, double value, DTypeW dtype) {
  uint8_t buf[16] = {};
  switch (dtype.dtype) {
    case DType::F32: { float v = static_cast<float>(value); std::memcpy(buf, &v, 4); break; }
    case DType::F64: std::memcpy(buf, &value, 8); break;
    case DType::C64: { float v = static_cast<float>(value); std::memcpy(buf, &v, 4); break; }
    case DType::C128: std::memcpy(buf, &value, 8); break;  // the imaginary part stays 0
    // Integers go through int64 and wrap: a weak Python int 4294967295 held as int32 is -1,
    // which converts to uint32 4294967295 (and a double out of int32's range is no UB).
    case DType::I32: case DType::I64: case DType::U8: case DType::U16: case DType::U32:
      types::store_int_element(dtype.dtype, types::double_to_int64(value), buf);
      break;
    case DType::Bool: buf[0] = value != 0; break;
    case DType::F16: case DType::BF16: {  // as numpy / ml_dtypes round a double (types/half_float.hpp)
      const uint16_t h = types::round_to_half(value, dtype.dtype);
      std::memcpy(buf, &h, 2);
      break;
    }
  }
  return constant(t, dtype.dtype, {}, buf, dtype.weak);
}

namespace {
// The value of a weak integer literal (a Python int: int32, or int64 outside int32's range),
// if x is one.
std::optional<int64_t> python_int_literal(Trace& t, ValueId x) {
  const auto type = t.type(x);
  if ((type.dtype() != DType::I64 && type.dtype() != DType::I32) || !type.weak_type() || type.rank() != 0) return std::nullopt;
  for (auto it = t.fn().ops.rbegin(); it != t.fn().ops.rend(); ++it)
    if (!it->results.empty() && it->results[0] == x) {
      const auto* c = std::get_if<ir::attr::Constant>(&it->attrs);
      if (!c || !c->literal) return std::nullopt;
      return types::load_int_element(type.dtype(), c->literal->bytes.data());
    }
  return std::nullopt;
}
}  // namespace

ValueId convert(Trace& t, ValueId x, DTypeW to) {
  const auto& xt = t.type(x);
  // A Python int converted to an integer type it does not fit: JAX's OverflowError.
  if (types::is_int(to.dtype) && to.dtype != DType::I64 && xt.dtype() != to.dtype)
    if (auto v = python_int_literal(t, x)) {
      const bool fits = types::is_unsigned(to.dtype) ? *v >= 0 && *v <= (int64_t{1} << (8 * types::dtype_size(to.dtype))) - 1
                                                     : *v >= INT32_MIN && *v <= INT32_MAX;
      if (!fits)
        throw types::ShardingError("OverflowError", fmt::format("Python int {} too large to convert to {}", *v, types::dtype_name(to.dtype)));
    }
  if (xt.dtype() == to.dtype && xt.weak_type() == to.weak) return x;
  if (xt.dtype() == to.dtype) return x;  // weak-only change: same data
  auto rt = sharding::propagate_unary(t.ctx("convert_element_type"), xt, to.dtype).with_weak_type(to.weak);
  return t.emit(OpKind::Elementwise, {x}, rt, ew_attrs(EwOp::Convert));
}

Shape broadcast_shapes(const std::string& op, const std::vector<Shape>& shapes) {
  size_t rank = 0;
  for (auto& s : shapes) rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (auto& s : shapes)
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& o = out[rank - s.size() + i];
      if (s[i] == 1) continue;
      if (o != 1 && o != s[i]) {
        std::vector<std::string> parts;
        for (auto& ss : shapes) parts.push_back(types::py_int_tuple(ss));
        throw types::ShardingError("ValueError", fmt::format("Incompatible shapes for broadcasting: shapes=[{}]", fmt::join(parts, ", ")));
      }
      o = s[i];
    }
  return out;
}

ValueId broadcast_to(Trace& t, ValueId x, const Shape& shape, const OptOutSharding& out_sharding) {
  const auto& xt = t.type(x);
  if (xt.shape() == shape && !out_sharding) return x;
  broadcast_shapes("broadcast_to", {xt.shape(), shape});
  if (broadcast_shapes("broadcast_to", {xt.shape(), shape}) != shape)
    throw types::ShardingError("ValueError", fmt::format("Incompatible shapes for broadcasting: {} and requested shape {}",
                                                         types::py_int_tuple(xt.shape()), types::py_int_tuple(shape)));
  std::vector<int64_t> dims;  // numpy aligns trailing dims
  for (size_t i = 0; i < xt.rank(); ++i) dims.push_back(static_cast<int64_t>(shape.size() - xt.rank() + i));
  return broadcast_in_dim(t, x, shape, dims, out_sharding);
}

ValueId broadcast_in_dim(Trace& t, ValueId x, const Shape& shape, const std::vector<int64_t>& dims, const OptOutSharding& out_sharding) {
  auto rt = sharding::propagate_broadcast_in_dim(t.ctx("broadcast_in_dim"), t.type(x), shape, dims, out_sharding);
  return t.emit(OpKind::BroadcastInDim, {x}, rt, ir::attr::BroadcastInDim{dims});
}

// The dtype rule of the primitive's table row (ir/elementwise_ops.hpp) decides promotion.
ValueId unary(Trace& t, const std::string& name, EwOp op, ValueId x) {
  const auto& xt = t.type(x);
  DTypeW in = dtw(xt), compute = in;
  check_complex_support(name, op, in.dtype);
  switch (ir::ew_info(op).dtype_rule) {
    case ir::EwDTypeRule::Rounding:
      if (!types::is_float(in.dtype)) return x;  // jnp.floor(int) is the identity
      break;
    case ir::EwDTypeRule::Predicate:
      if (!types::is_inexact(in.dtype)) return full(t, xt.shape(), op == EwOp::IsFinite ? 1 : 0, {DType::Bool, false}, std::nullopt);
      break;
    case ir::EwDTypeRule::Inexact: compute = to_inexact(in); break;
    case ir::EwDTypeRule::Bitwise:
      if (in.dtype != DType::Bool && !types::is_int(in.dtype)) reject_dtype(name, in.dtype, "integer, bool");
      break;
    case ir::EwDTypeRule::FloatOnly:
      if (!types::is_float(in.dtype)) reject_dtype(name, in.dtype, "floating");
      break;
    default: break;
  }
  DTypeW out = ir::ew_returns_bool(op) ? DTypeW{DType::Bool, false} : compute;
  // |z| of a complex z is real.
  if (op == EwOp::Abs && types::is_complex(compute.dtype)) out = {types::complex_part_dtype(compute.dtype), compute.weak};
  ValueId xc = convert(t, x, compute);
  auto rt = sharding::propagate_unary(t.ctx(name), t.type(xc), out.dtype).with_weak_type(out.weak);
  return t.emit(OpKind::Elementwise, {xc}, rt, ew_attrs(op));
}

ValueId binary(Trace& t, const std::string& name, EwOp op, ValueId a, ValueId b) {
  const auto& at = t.type(a);
  const auto& bt = t.type(b);
  DTypeW p = promote(dtw(at), dtw(bt));
  const auto rule = ir::ew_info(op).dtype_rule;
  DTypeW compute = rule == ir::EwDTypeRule::Inexact ? to_inexact(p) : p;
  DTypeW out = ir::ew_returns_bool(op) ? DTypeW{DType::Bool, false} : compute;
  check_complex_support(name, op, compute.dtype);
  if (rule == ir::EwDTypeRule::Bitwise && types::is_float(compute.dtype)) reject_dtype(name, compute.dtype, "integer, bool");
  if (rule == ir::EwDTypeRule::FloatOnly) reject_non_float_operands(name, {at.dtype(), bt.dtype()});
  if (rule == ir::EwDTypeRule::Shift) {
    // jnp.left_shift / right_shift: the promoted operands go to lax's shift, a right shift
    // logical for unsigned types and arithmetic for signed ones.
    if (op == EwOp::ShiftRightArithmetic && types::is_unsigned(compute.dtype)) op = EwOp::ShiftRightLogical;
    if (!types::is_int(compute.dtype)) reject_dtype(ir::ew_info(op).primitive, compute.dtype, "integer");
  }
  auto rt = sharding::propagate_elementwise(t.ctx(name), {at, bt}, out.dtype).with_weak_type(out.weak);
  ValueId ac = broadcast_to(t, convert(t, a, compute), rt.shape());
  ValueId bc = broadcast_to(t, convert(t, b, compute), rt.shape());
  return t.emit(OpKind::Elementwise, {ac, bc}, rt, ew_attrs(op));
}

ValueId integer_pow(Trace& t, ValueId x, int64_t y) {
  const auto& xt = t.type(x);
  if (y < 0 && !types::is_inexact(xt.dtype()))
    throw types::ShardingError("TypeError", fmt::format("Integers cannot be raised to negative powers, got integer_pow(x, {})", y));
  auto rt = sharding::propagate_unary(t.ctx("integer_pow"), xt, xt.dtype()).with_weak_type(xt.weak_type());
  return t.emit(OpKind::Elementwise, {x}, rt, ir::attr::Elementwise{EwOp::IntegerPow, y});
}

namespace {
// The value of a scalar integer constant recorded in this trace (the exponent of x ** 2).
std::optional<int64_t> concrete_int_scalar(Trace& t, ValueId v) {
  const auto type = t.type(v);
  if (type.rank() != 0 || !types::is_int(type.dtype())) return std::nullopt;
  for (auto it = t.fn().ops.rbegin(); it != t.fn().ops.rend(); ++it)
    if (!it->results.empty() && it->results[0] == v) {
      const auto* c = std::get_if<ir::attr::Constant>(&it->attrs);
      if (!c || !c->literal) return std::nullopt;
      return types::load_int_element(type.dtype(), c->literal->bytes.data());
    }
  return std::nullopt;
}
}  // namespace

ValueId power(Trace& t, const std::string& name, ValueId x, ValueId y) {
  if (auto n = concrete_int_scalar(t, y)) {
    DTypeW p = promote(dtw(t.type(x)), dtw(t.type(y)));
    if (*n >= 0 || types::is_inexact(p.dtype)) return integer_pow(t, convert(t, x, p), *n);
  }
  return binary(t, name, EwOp::Pow, x, y);
}

ValueId where(Trace& t, ValueId pred, ValueId a, ValueId b) {
  DTypeW p = promote(dtw(t.type(a)), dtw(t.type(b)));
  auto rt = sharding::propagate_where(t.ctx("where"), t.type(pred), t.type(a), t.type(b)).with_dtype(p.dtype).with_weak_type(p.weak);
  ValueId pc = broadcast_to(t, convert(t, pred, {DType::Bool, false}), rt.shape());
  ValueId ac = broadcast_to(t, convert(t, a, p), rt.shape());
  ValueId bc = broadcast_to(t, convert(t, b, p), rt.shape());
  return t.emit(OpKind::Elementwise, {pc, ac, bc}, rt, ew_attrs(EwOp::Select));
}

ValueId stop_gradient(Trace& t, ValueId x) {
  if (!types::is_inexact(t.type(x).dtype())) return x;
  return t.emit(OpKind::Elementwise, {x}, t.type(x), ew_attrs(EwOp::StopGradient));
}

ValueId clip(Trace& t, ValueId x, std::optional<ValueId> lo, std::optional<ValueId> hi) {
  for (auto v : {std::optional<ValueId>(x), lo, hi})
    if (v && types::is_complex(t.type(*v).dtype()))
      throw types::ShardingError("ValueError", "Clip received a complex value either through the input or the min/max keywords. Complex "
                                               "values have no ordering and cannot be clipped. Please convert to a real value or array by "
                                               "taking the real or imaginary components via jax.numpy.real/imag respectively.");
  ValueId r = x;
  if (lo) r = binary(t, "clip", EwOp::Max, r, *lo);
  if (hi) r = binary(t, "clip", EwOp::Min, r, *hi);
  return r;
}

}  // namespace shard::trace

// ---- lax bit-level ops (declared in trace/ops_random.hpp) ------------------------------------

namespace shard::trace {

// lax.shift_left / shift_right_logical / shift_right_arithmetic: integer operands of one
// dtype; a scalar count is broadcast (lax itself wants equal shapes; callers check that).
ValueId shift(Trace& t, const std::string& name, EwOp op, ValueId x, ValueId n) {
  const auto& xt = t.type(x);
  if (!types::is_int(xt.dtype()) || !types::is_int(t.type(n).dtype()))
    throw types::ShardingError("TypeError", fmt::format("{} does not accept dtype {}. Accepted dtypes are subtypes of integer.", name,
                                                        types::dtype_name(types::is_int(xt.dtype()) ? t.type(n).dtype() : xt.dtype())));
  ValueId nc = convert(t, n, {xt.dtype(), xt.weak_type()});
  auto rt = sharding::propagate_elementwise(t.ctx(name), {xt, t.type(nc)}, xt.dtype()).with_weak_type(xt.weak_type());
  ValueId xb = broadcast_to(t, x, rt.shape());
  ValueId nb = broadcast_to(t, nc, rt.shape());
  return t.emit(OpKind::Elementwise, {xb, nb}, rt, ew_attrs(op));
}

// lax.bitcast_convert_type between types of one width (bool excluded).
ValueId bitcast_convert(Trace& t, ValueId x, DType to) {
  const auto& xt = t.type(x);
  if (xt.dtype() == to) return x;
  if (xt.dtype() == DType::Bool || to == DType::Bool || types::dtype_size(xt.dtype()) != types::dtype_size(to))
    throw types::ShardingError("TypeError", fmt::format("bitcast_convert_type from {} to {} is not supported (the types must have "
                                                        "one bit width; shard does not change the shape)",
                                                        types::dtype_name(xt.dtype()), types::dtype_name(to)));
  auto rt = sharding::propagate_unary(t.ctx("bitcast_convert_type"), xt, to).with_weak_type(false);
  return t.emit(OpKind::Elementwise, {x}, rt, ew_attrs(EwOp::BitcastConvert));
}

// lax.erf_inv: floating operands only (lax does not promote).
ValueId erf_inv(Trace& t, ValueId x) { return unary(t, "erf_inv", EwOp::ErfInv, x); }

}  // namespace shard::trace
