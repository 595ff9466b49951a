#include "trace/promotion.hpp"

#include <array>
#include <vector>

#include "types/x64_mode.hpp"

namespace shard::trace {

using types::DType;

namespace {
// Lattice nodes.
enum Node { B1, IW, U8, U16, U32, I32, I64, FW, F16, BF16, F32, F64, CW, C64, C128, kNodes };

// A weak value of any integer dtype is the weak int i* (JAX's _jax_type: weak -> int).
Node node_of(DTypeW t) {
  switch (t.dtype) {
    case DType::Bool: return B1;
    case DType::U8: return t.weak ? IW : U8;
    case DType::U16: return t.weak ? IW : U16;
    case DType::U32: return t.weak ? IW : U32;
    case DType::I32: return t.weak ? IW : I32;
    case DType::I64: return t.weak ? IW : I64;
    case DType::F16: return F16;
    case DType::BF16: return BF16;
    case DType::F32: return t.weak ? FW : F32;
    case DType::F64: return t.weak ? FW : F64;
    case DType::C64: return t.weak ? CW : C64;
    case DType::C128: return t.weak ? CW : C128;
  }
  return F32;
}

DTypeW type_of(Node n) {
  switch (n) {
    case B1: return {DType::Bool, false};
    case IW: return {types::default_int_dtype(), true};
    case U8: return {DType::U8, false};
    case U16: return {DType::U16, false};
    case U32: return {DType::U32, false};
    case I32: return {DType::I32, false};
    case I64: return {DType::I64, false};
    case FW: return {types::default_float_dtype(), true};
    case F16: return {DType::F16, false};
    case BF16: return {DType::BF16, false};
    case F32: return {DType::F32, false};
    case F64: return {DType::F64, false};
    case CW: return {types::complex_of(types::default_float_dtype()), true};
    case C64: return {DType::C64, false};
    case C128: return {DType::C128, false};
    default: return {DType::F32, false};
  }
}

// upper[n] = the set of nodes >= n (bitmask), from the lattice edges.
std::array<unsigned, kNodes> upper_sets(bool x64) {
  std::array<std::vector<Node>, kNodes> edges{};
  // JAX's standard lattice with x64 off (jax/_src/dtypes.py), without the int8/int16/uint64
  // nodes shard lacks: i* -> {u8, i8}, u8 -> {i16, u16}, u16 -> {i32, u32}, and with x64 off
  // u32 -> {i32, u64} (so u32 + i32 = int32, never int64). i8/i16 lead only to i32 here.
  edges[B1] = {IW};
  edges[IW] = {U8, I32};
  edges[U8] = {U16, I32};
  edges[U16] = {U32, I32};
  // With x64 on, JAX's u32 -> {i64, u64}: u32 + i32 = int64 (there is no uint64 node).
  if (x64) edges[U32] = {I64};
  else edges[U32] = {I32};
  edges[I32] = {I64};
  edges[I64] = {FW};
  edges[FW] = {F16, BF16, CW};
  edges[F16] = {F32};
  edges[BF16] = {F32};
  edges[F32] = {F64, C64};
  edges[F64] = {C128};
  edges[CW] = {C64};
  edges[C64] = {C128};
  std::array<unsigned, kNodes> up{};
  for (int n = kNodes - 1; n >= 0; --n) {
    up[n] = 1u << n;
    for (Node m : edges[n]) up[n] |= up[m];
  }
  return up;
}
}  // namespace

DTypeW promote(DTypeW a, DTypeW b) {
  static const auto up32 = upper_sets(false), up64 = upper_sets(true);
  const auto& up = types::x64_enabled() ? up64 : up32;
  const unsigned common = up[node_of(a)] & up[node_of(b)];
  // The least element of the common upper set: the one whose own upper set contains all.
  for (int n = 0; n < kNodes; ++n)
    if ((common >> n & 1) && (up[n] & common) == common) return type_of(static_cast<Node>(n));
  return {DType::F32, false};
}

DType canonicalize_device(DType t) {
  if (types::x64_enabled()) return t;
  if (t == DType::F64) return DType::F32;
  if (t == DType::I64) return DType::I32;
  if (t == DType::C128) return DType::C64;
  return t;
}

// numpy.promote_types over shard's dtypes (host arrays). Integers: same signedness -> the
// wider; mixed -> a signed type wider than the unsigned one (uint32 + int32 = int64; shard's
// signed types are >= 32 bits, so that is int64 only for uint32). Integer with float: the
// smallest float that holds the integer's range (uint8 -> float16, uint16 -> float32, wider
// -> float64), widened to the float operand.
DType numpy_promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  using types::dtype_size;
  using types::is_float;
  using types::is_unsigned;
  auto float_promote = [](DType x, DType y) {
    if ((x == DType::F16 && y == DType::BF16) || (x == DType::BF16 && y == DType::F16)) return DType::F32;
    return dtype_size(x) >= dtype_size(y) ? x : y;
  };
  if (types::is_complex(a) || types::is_complex(b)) {
    // complex64 holds float32 and smaller (and integers up to 16 bits); anything wider needs
    // complex128.
    auto part = [&](DType x) { return types::is_complex(x) ? types::complex_part_dtype(x) : x; };
    const DType r = numpy_promote_types(part(a), part(b));
    return types::dtype_size(r) <= 4 && types::is_float(r) ? DType::C64 : DType::C128;
  }
  if (is_float(a) && is_float(b)) return float_promote(a, b);
  if (!is_float(a) && !is_float(b)) {
    if (is_unsigned(a) == is_unsigned(b)) return dtype_size(a) >= dtype_size(b) ? a : b;
    DType u = is_unsigned(a) ? a : b, s = is_unsigned(a) ? b : a;
    return dtype_size(s) > dtype_size(u) ? s : DType::I64;
  }
  DType i = is_float(a) ? b : a, f = is_float(a) ? a : b;
  DType holds = i == DType::U8 ? DType::F16 : i == DType::U16 ? DType::F32 : DType::F64;
  return float_promote(holds, f);
}

DTypeW to_inexact(DTypeW t) {
  if (types::is_inexact(t.dtype)) return t;
  return {types::default_float_dtype(), t.weak};
}

}  // namespace shard::trace
