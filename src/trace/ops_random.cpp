// jax.random's threefry2x32 PRNG and samplers as lax-level IR (see ops_random.hpp).
#include "trace/ops_random.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <limits>

#include "types/x64_mode.hpp"

namespace shard::trace::random {

namespace {

ValueId u32(Trace& t, double v) { return scalar_constant(t, v, {kKeyDType, false}); }
ValueId i32(Trace& t, double v) { return scalar_constant(t, v, {DType::I32, false}); }
ValueId i64(Trace& t, double v) { return scalar_constant(t, v, {DType::I64, false}); }
ValueId f32(Trace& t, double v) { return scalar_constant(t, v, {DType::F32, false}); }

ValueId add(Trace& t, ValueId a, ValueId b) { return binary(t, "add", EwOp::Add, a, b); }
ValueId bxor(Trace& t, ValueId a, ValueId b) { return binary(t, "xor", EwOp::Xor, a, b); }
ValueId bor(Trace& t, ValueId a, ValueId b) { return binary(t, "or", EwOp::Or, a, b); }
ValueId band(Trace& t, ValueId a, ValueId b) { return binary(t, "and", EwOp::And, a, b); }
ValueId shl(Trace& t, ValueId x, ValueId n) { return shift(t, "shift_left", EwOp::ShiftLeft, x, n); }
ValueId lshr(Trace& t, ValueId x, ValueId n) { return shift(t, "shift_right_logical", EwOp::ShiftRightLogical, x, n); }

// 32-bit rotation, as JAX writes it: (x << r) | (x >>> (32 - r)).
ValueId rotate_left(Trace& t, ValueId x, int r) {
  ValueId left = shl(t, x, u32(t, r));
  ValueId right = lshr(t, x, u32(t, 32 - r));
  return bor(t, left, right);
}

// uint32 remainder (lax.rem: x % 0 == x, as XLA defines it).
ValueId urem32(Trace& t, ValueId a, ValueId b) { return binary(t, "rem", EwOp::Rem, a, b); }

// The two 32-bit halves of one key's data (shape (2,)) as scalars.
std::pair<ValueId, ValueId> key_halves(Trace& t, ValueId key) {
  const auto& kt = t.type(key);
  if (kt.shape() != Shape{2} || kt.dtype() != kKeyDType)
    throw std::logic_error(fmt::format("internal error: threefry key data must be uint32[2], got {}", kt.str_short()));
  return {index_dims(t, key, {0}, {0}), index_dims(t, key, {0}, {1})};
}

// JAX's iota_2x32_shape: the row-major index of every element of `shape` as a uint64 split
// into (high, low) uint32 words; the iotas carry the output sharding, so each device
// computes only its own indices.
std::pair<ValueId, ValueId> iota_2x32(Trace& t, const Shape& shape, const OptOutSharding& out_sharding) {
  int64_t n = types::shape_product(shape);
  if (n > (int64_t(1) << 32))
    throw types::ShardingError("NotImplementedError", "random arrays of more than 2**32 elements are not supported yet");
  ValueId hi = full(t, shape, 0, {kKeyDType, false}, out_sharding);
  std::optional<ValueId> lo;
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] != 1) {
      ValueId term = iota(t, kKeyDType, shape, static_cast<int64_t>(d), out_sharding);
      if (stride != 1) term = binary(t, "mul", EwOp::Mul, term, u32(t, static_cast<double>(static_cast<uint32_t>(stride))));
      lo = lo ? add(t, *lo, term) : term;
    }
    stride *= shape[d];
  }
  return {hi, lo ? *lo : hi};
}

}  // namespace

std::pair<ValueId, ValueId> threefry2x32(Trace& t, ValueId k1, ValueId k2, ValueId x1, ValueId x2) {
  static constexpr std::array<std::array<int, 4>, 2> kRotations = {{{13, 15, 26, 6}, {17, 29, 16, 24}}};
  ValueId k12 = bxor(t, k1, k2);
  const std::array<ValueId, 3> ks = {k1, k2, bxor(t, k12, u32(t, 0x1BD11BDA))};
  ValueId a = add(t, x1, ks[0]);
  ValueId b = add(t, x2, ks[1]);
  for (int i = 0; i < 5; ++i) {
    for (int r : kRotations[i % 2]) {
      a = add(t, a, b);
      b = bxor(t, a, rotate_left(t, b, r));
    }
    // Key injection: the schedule rotates through ks, plus the round-group number.
    a = add(t, a, ks[(i + 1) % 3]);
    b = add(t, b, add(t, ks[(i + 2) % 3], u32(t, i + 1)));
  }
  return {a, b};
}

namespace {
// An integer's low 32 bits as a key word (a wrapped Python int's bits, not its value).
ValueId as_key_word(Trace& t, ValueId v) {
  if (t.type(v).dtype() == types::DType::I32) return bitcast_convert(t, v, kKeyDType);
  return convert(t, v, {kKeyDType, false});
}
}  // namespace

ValueId seed(Trace& t, ValueId seed_value) {
  const auto& st = t.type(seed_value);
  if (st.rank() != 0) throw types::ShardingError("TypeError", fmt::format("PRNG key seed must be a scalar; got {}.", st.str_short()));
  if (!types::is_int(st.dtype()))
    throw types::ShardingError("TypeError", fmt::format("PRNG key seed must be an integer; got {}", st.str_short()));
  // threefry_seed: high word = seed >>> 32 (0 for a 32-bit seed), low word = the seed's bits.
  // A seed is 64-bit only with x64 on (a wider Python int with x64 off keeps JAX's low word).
  ValueId low = as_key_word(t, seed_value);
  ValueId high = st.dtype() == DType::I64 && types::x64_enabled() ? convert(t, lshr(t, seed_value, i64(t, 32)), {kKeyDType, false})
                                                                   : u32(t, 0);
  return stack(t, {high, low}, 0);
}

ValueId split(Trace& t, ValueId key, const Shape& shape) {
  auto [k1, k2] = key_halves(t, key);
  auto [hi, lo] = iota_2x32(t, shape, std::nullopt);
  auto [b1, b2] = threefry2x32(t, k1, k2, hi, lo);
  return stack(t, {b1, b2}, static_cast<int64_t>(shape.size()));
}

ValueId fold_in(Trace& t, ValueId key, ValueId data) {
  auto [k1, k2] = key_halves(t, key);
  // threefry_2x32(key, threefry_seed(data)): the counter pair is (0, data).
  ValueId zero = u32(t, 0);
  ValueId word = as_key_word(t, data);
  auto [b1, b2] = threefry2x32(t, k1, k2, zero, word);
  return stack(t, {b1, b2}, 0);
}

ValueId bits(Trace& t, ValueId key, const Shape& shape, const OptOutSharding& out_sharding) {
  auto [k1, k2] = key_halves(t, key);
  auto [hi, lo] = iota_2x32(t, shape, out_sharding);
  auto [b1, b2] = threefry2x32(t, k1, k2, hi, lo);
  return bxor(t, b1, b2);
}

ValueId bits64(Trace& t, ValueId key, const Shape& shape, const OptOutSharding& out_sharding) {
  auto [k1, k2] = key_halves(t, key);
  auto [hi, lo] = iota_2x32(t, shape, out_sharding);
  auto [b1, b2] = threefry2x32(t, k1, k2, hi, lo);
  // JAX: (uint64(bits1) << 32) | uint64(bits2); zero-extended into int64, the same bits.
  ValueId high = convert(t, b1, {DType::I64, false}), low = convert(t, b2, {DType::I64, false});
  return bor(t, shl(t, high, i64(t, 32)), low);
}

ValueId uniform(Trace& t, ValueId key, const Shape& shape, DType dtype, ValueId minval, ValueId maxval,
                const OptOutSharding& out_sharding) {
  if (dtype != DType::F32 && dtype != DType::F64)
    throw types::ShardingError("NotImplementedError", fmt::format("jax.random samplers support float32 and float64 only, got {}", types::dtype_name(dtype)));
  // The mantissa's worth of random bits (23 of 32, or 52 of 64) under the exponent of 1.0
  // give a float in [1, 2); minus 1 is uniform on [0, 1), then scaled, shifted and clamped
  // below at minval.
  ValueId unit;
  if (dtype == DType::F32) {
    ValueId b = bits(t, key, shape, out_sharding);
    ValueId fraction = lshr(t, b, u32(t, 32 - 23));
    ValueId mantissa = bor(t, fraction, u32(t, 0x3f800000));
    ValueId one_to_two = bitcast_convert(t, mantissa, DType::F32);
    unit = binary(t, "sub", EwOp::Sub, one_to_two, f32(t, 1.0));
  } else {
    ValueId b = bits64(t, key, shape, out_sharding);
    ValueId fraction = lshr(t, b, i64(t, 64 - 52));
    ValueId mantissa = bor(t, fraction, i64(t, static_cast<double>(0x3ff0000000000000ull)));
    ValueId one_to_two = bitcast_convert(t, mantissa, DType::F64);
    unit = binary(t, "sub", EwOp::Sub, one_to_two, scalar_constant(t, 1.0, {DType::F64, false}));
  }
  ValueId lo = convert(t, minval, {dtype, false});
  ValueId hi = convert(t, maxval, {dtype, false});
  ValueId scaled = add(t, binary(t, "mul", EwOp::Mul, unit, binary(t, "sub", EwOp::Sub, hi, lo)), lo);
  return binary(t, "max", EwOp::Max, lo, scaled);
}

ValueId normal(Trace& t, ValueId key, const Shape& shape, DType dtype, const OptOutSharding& out_sharding) {
  // Uniform on (-1, 1) — the low end nudged to nextafter(-1, 0) so erf_inv stays finite —
  // mapped through sqrt(2) * erf_inv.
  const DTypeW dw{dtype, false};
  const double lo = dtype == DType::F64 ? std::nextafter(-1.0, 0.0) : std::nextafter(-1.0f, 0.0f);
  ValueId minval = scalar_constant(t, lo, dw);
  ValueId maxval = scalar_constant(t, 1.0, dw);
  ValueId u = uniform(t, key, shape, dtype, minval, maxval, out_sharding);
  const double sqrt2 = dtype == DType::F64 ? std::sqrt(2.0) : static_cast<float>(std::sqrt(2.0));
  ValueId scale = scalar_constant(t, sqrt2, dw);
  return binary(t, "mul", EwOp::Mul, scale, erf_inv(t, u));
}

ValueId truncated_normal(Trace& t, ValueId key, ValueId lower, ValueId upper, const Shape& shape, DType dtype,
                         const OptOutSharding& out_sharding) {
  const DTypeW dw{dtype, false};
  ValueId sqrt2 = scalar_constant(t, std::sqrt(2.0), dw);
  ValueId lo = convert(t, lower, dw), hi = convert(t, upper, dw);
  ValueId a = unary(t, "erf", EwOp::Erf, binary(t, "div", EwOp::Div, lo, sqrt2));
  ValueId b = unary(t, "erf", EwOp::Erf, binary(t, "div", EwOp::Div, hi, sqrt2));
  ValueId u = uniform(t, key, shape, dtype, a, b, out_sharding);
  ValueId out = binary(t, "mul", EwOp::Mul, sqrt2, erf_inv(t, u));
  ValueId lo_fixed = stop_gradient(t, lo);
  ValueId inside_lo = binary(t, "nextafter", EwOp::NextAfter, lo_fixed, scalar_constant(t, INFINITY, dw));
  ValueId hi_fixed = stop_gradient(t, hi);
  ValueId inside_hi = binary(t, "nextafter", EwOp::NextAfter, hi_fixed, scalar_constant(t, -INFINITY, dw));
  return clip(t, out, inside_lo, inside_hi);
}

ValueId randint(Trace& t, ValueId key, const Shape& shape, ValueId minval, ValueId maxval, DType dtype,
                const OptOutSharding& out_sharding) {
  if (dtype != DType::I32)
    throw types::ShardingError("NotImplementedError", fmt::format("randint supports int32 only, got {}", types::dtype_name(dtype)));
  ValueId lo = convert(t, minval, {dtype, false});
  ValueId hi = convert(t, maxval, {dtype, false});
  // Twice the bits the result needs (two keys), reduced modulo the span, as JAX does.
  ValueId keys = split(t, key, {2});
  ValueId higher = bits(t, index_dims(t, keys, {0}, {0}), shape, out_sharding);
  ValueId lower = bits(t, index_dims(t, keys, {0}, {1}), shape, out_sharding);
  ValueId span = convert(t, binary(t, "sub", EwOp::Sub, hi, lo), {kKeyDType, false});
  ValueId empty = binary(t, "le", EwOp::Le, hi, lo);
  span = where(t, empty, u32(t, 1), span);
  // multiplier = 2**32 mod span, from (2**16 mod span)**2 in wrapping uint32 arithmetic.
  ValueId multiplier = urem32(t, u32(t, 65536), span);
  multiplier = urem32(t, binary(t, "mul", EwOp::Mul, multiplier, multiplier), span);
  ValueId high_part = binary(t, "mul", EwOp::Mul, urem32(t, higher, span), multiplier);
  ValueId offset = add(t, high_part, urem32(t, lower, span));
  offset = urem32(t, offset, span);
  return add(t, lo, convert(t, offset, {dtype, false}));
}

ValueId bernoulli(Trace& t, ValueId key, ValueId p, const Shape& shape, const OptOutSharding& out_sharding) {
  ValueId pf = types::is_float(t.type(p).dtype()) ? p : convert(t, p, {DType::F32, true});
  ValueId minval = f32(t, 0.0), maxval = f32(t, 1.0);
  ValueId u = uniform(t, key, shape, t.type(pf).dtype(), minval, maxval, out_sharding);
  return binary(t, "lt", EwOp::Lt, u, pf);
}

ValueId permutation_indices(Trace& t, ValueId key, int64_t n) {
  // JAX's _shuffle: enough rounds of sorting on fresh 32-bit keys that colliding keys are
  // unlikely (exponent 3 of tjablin's analysis); the sort is stable. A round sorts int64
  // words (the uint32 sort key minus 2**31 in the high word, so signed order is the key's
  // order; then the position, for stability; then the value carried along).
  const double uint32max = 4294967295.0;
  const auto rounds = static_cast<int>(std::ceil(3 * std::log(static_cast<double>(std::max<int64_t>(1, n))) / std::log(uint32max)));
  const bool packed_position = n <= 65536;  // position and value share the low 32 bits
  ValueId x = iota(t, DType::I32, {n}, 0, std::nullopt);
  ValueId position = convert(t, x, {DType::I64, false});
  for (int r = 0; r < rounds; ++r) {
    ValueId keys = split(t, key, {2});
    key = index_dims(t, keys, {0}, {0});
    ValueId sort_keys = bits(t, index_dims(t, keys, {0}, {1}), {n});
    ValueId wide_keys = convert(t, sort_keys, {DType::I64, false});
    ValueId centred = binary(t, "sub", EwOp::Sub, wide_keys, i64(t, 2147483648.0));
    ValueId high = shl(t, centred, i64(t, 32));
    ValueId value = convert(t, x, {DType::I64, false});
    ValueId low = packed_position ? bor(t, shl(t, position, i64(t, 16)), value) : value;
    ValueId sorted = sort(t, bor(t, high, low), 0);
    x = convert(t, band(t, sorted, i64(t, packed_position ? 65535.0 : uint32max)), {DType::I32, false});
  }
  return x;
}

ValueId take(Trace& t, ValueId x, ValueId idx, int64_t axis) {
  const auto xt = t.type(x);
  const Shape& s = xt.shape();
  const int64_t n = s.at(static_cast<size_t>(axis));
  const int64_t m = t.type(idx).shape().at(0);
  // No gather op yet: a one-hot mask selects each element, and an integer sum (every other
  // term is 0) reads it back exactly; floats travel as their bits.
  Shape wide(s.begin(), s.begin() + axis);
  wide.push_back(m);
  wide.insert(wide.end(), s.begin() + axis, s.end());
  if (types::shape_product(wide) > (int64_t(1) << 26))
    throw types::ShardingError("NotImplementedError", "this jax.random gather is too large without a gather op (not supported yet)");
  const DType dt = xt.dtype();
  ValueId xi = dt == DType::F32 ? bitcast_convert(t, x, DType::I32)
             : dt == DType::F64 ? bitcast_convert(t, x, DType::I64)
             : dt == DType::Bool ? convert(t, x, {DType::I32, false}) : x;
  ValueId xb = broadcast_to(t, expand_dims(t, xi, {axis}), wide);
  ValueId idx_col = broadcast_to(t, reshape(t, idx, {m, 1}), {m, n});
  ValueId positions = iota(t, DType::I32, {m, n}, 1, std::nullopt);
  ValueId hit = binary(t, "eq", EwOp::Eq, idx_col, positions);
  Shape mask_shape(s.size() + 1, 1);
  mask_shape[static_cast<size_t>(axis)] = m;
  mask_shape[static_cast<size_t>(axis) + 1] = n;
  ValueId mask = broadcast_to(t, reshape(t, hit, mask_shape), wide);
  ValueId zero = scalar_constant(t, 0, {t.type(xi).dtype(), false});
  ValueId picked = reduce(t, "take", ReduceKind::Sum, where(t, mask, xb, zero), {axis + 1}, false);
  if (dt == DType::F32 || dt == DType::F64) return bitcast_convert(t, picked, dt);
  if (dt == DType::Bool) return binary(t, "ne", EwOp::Ne, picked, i32(t, 0));
  return convert(t, picked, {dt, xt.weak_type()});
}

}  // namespace shard::trace::random
