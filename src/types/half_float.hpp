// float16 and bfloat16 on the host: rounding a float32 / float64 to the 16-bit format (round
// to nearest, ties to even; infinities, signed zeros and NaN kept — a NaN stays quiet and keeps
// its sign and top payload bits) and widening back (exact). codegen/half_float_ir emits the
// same steps as LLVM IR for kernels; both follow one recipe, written out in round_bits below.
#pragma once
#include <cstdint>
#include <cstring>

#include "types/dtype.hpp"

namespace shard::types {

// An IEEE binary format: mantissa bits (without the implicit one) and exponent bits.
struct FloatFormat {
  int mantissa_bits;
  int exponent_bits;
  constexpr int bias() const { return (1 << (exponent_bits - 1)) - 1; }
  constexpr int width() const { return 1 + exponent_bits + mantissa_bits; }
};
inline constexpr FloatFormat kFloat16{10, 5};
inline constexpr FloatFormat kBFloat16{7, 8};
inline constexpr FloatFormat kFloat32{23, 8};
inline constexpr FloatFormat kFloat64{52, 11};

constexpr FloatFormat half_format(DType t) { return t == DType::BF16 ? kBFloat16 : kFloat16; }

// The constants of rounding format `from` (f32 or f64) to the narrower `to` (f16 or bf16),
// all as `from` bit patterns of the magnitude.
struct HalfRounding {
  uint64_t infinity;        // `from`'s +inf: above it are NaNs
  uint64_t overflow;        // 2^(emax_to + 1): at or above it the result is inf
  uint64_t min_normal;      // `to`'s smallest normal: below it the result is subnormal
  uint64_t subnormal_magic; // a power of two whose ulp in `from` is `to`'s subnormal ulp
  uint64_t rebias;          // added to a normal's bits: moves the exponent to `to`'s bias
  int shift;                // mantissa bits dropped
};

constexpr HalfRounding half_rounding(FloatFormat from, FloatFormat to) {
  const int shift = from.mantissa_bits - to.mantissa_bits;
  const uint64_t m = static_cast<uint64_t>(from.mantissa_bits);
  HalfRounding r{};
  r.infinity = ((uint64_t{1} << from.exponent_bits) - 1) << m;
  r.overflow = static_cast<uint64_t>(from.bias() + to.bias() + 1) << m;
  r.min_normal = static_cast<uint64_t>(from.bias() - to.bias() + 1) << m;
  r.subnormal_magic = static_cast<uint64_t>(from.bias() - to.bias() + shift + 1) << m;
  // (to.bias - from.bias) << m, modulo 2^64: the exponent of a normal moves down by the bias
  // difference (wraps back into range: normals start at min_normal).
  r.rebias = static_cast<uint64_t>(static_cast<int64_t>(to.bias() - from.bias()) * (int64_t{1} << m));
  r.shift = shift;
  return r;
}

namespace half_detail {
template <class F, class U>
uint16_t round_bits(F x, FloatFormat from, FloatFormat to) {
  const HalfRounding r = half_rounding(from, to);
  U u;
  std::memcpy(&u, &x, sizeof u);
  const U sign_bit = U{1} << (from.width() - 1);
  const auto sign = static_cast<uint16_t>((u & sign_bit) >> (from.width() - 16));
  u &= ~sign_bit;
  const uint16_t exp_all = static_cast<uint16_t>(((1u << to.exponent_bits) - 1) << to.mantissa_bits);
  uint16_t out;
  if (u > r.infinity) {  // NaN: quiet, top payload bits kept
    out = exp_all | static_cast<uint16_t>(1u << (to.mantissa_bits - 1)) |
          static_cast<uint16_t>((u >> r.shift) & ((1u << to.mantissa_bits) - 1));
  } else if (u >= r.overflow) {
    out = exp_all;
  } else if (u < r.min_normal) {
    // Adding the magic power of two rounds x to a multiple of the subnormal ulp (in the
    // hardware's round-to-nearest-even); the sum's low bits are then the subnormal's.
    F magic, sum;
    U magic_bits = static_cast<U>(r.subnormal_magic), sum_bits;
    std::memcpy(&magic, &magic_bits, sizeof magic);
    F mag;
    std::memcpy(&mag, &u, sizeof mag);
    sum = mag + magic;
    std::memcpy(&sum_bits, &sum, sizeof sum);
    out = static_cast<uint16_t>(sum_bits - magic_bits);
  } else {
    const U odd = (u >> r.shift) & 1;  // ties go to the even neighbour
    u += static_cast<U>(r.rebias) + ((U{1} << (r.shift - 1)) - 1) + odd;
    out = static_cast<uint16_t>(u >> r.shift);
  }
  return out | sign;
}
}  // namespace half_detail

inline uint16_t round_to_half(float x, DType to) { return half_detail::round_bits<float, uint32_t>(x, kFloat32, half_format(to)); }
// From a double: float16 rounds once (numpy's npy_double_to_half); bfloat16 goes through
// float32 first, as ml_dtypes (Eigen's bfloat16 constructor) and so jnp.array(..., bfloat16)
// and JAX's weak-typed Python scalars do.
inline uint16_t round_to_half(double x, DType to) {
  if (to == DType::BF16) return round_to_half(static_cast<float>(x), to);
  return half_detail::round_bits<double, uint64_t>(x, kFloat64, kFloat16);
}
// The same recipe from a double for either format (one rounding).
inline uint16_t round_double_once(double x, DType to) { return half_detail::round_bits<double, uint64_t>(x, kFloat64, half_format(to)); }

// The float32 value of 16-bit pattern `h` (exact: both formats fit in float32).
inline float half_to_float(uint16_t h, DType from) {
  uint32_t bits;
  if (from == DType::BF16) {
    bits = static_cast<uint32_t>(h) << 16;
  } else {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    if (exp == 0x1f) {
      bits = sign | 0x7f800000u | (mant << 13);
    } else if (exp == 0) {
      // A subnormal (or zero) is mant * 2^-24: exact in float32.
      float f = static_cast<float>(mant) * 0x1p-24f;
      std::memcpy(&bits, &f, 4);
      bits |= sign;
    } else {
      bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    }
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// A float16 / bfloat16 element as a C++ value for host-side kernels (sort, scans, collective
// reductions): arithmetic on it happens in float32 (the conversion operator) and storing a
// result rounds it back (the constructor), so each op rounds once, as the kernels do.
template <DType D>
struct HalfValue {
  uint16_t bits = 0;
  HalfValue() = default;
  explicit HalfValue(float f) : bits(round_to_half(f, D)) {}
  operator float() const { return half_to_float(bits, D); }
};

}  // namespace shard::types
