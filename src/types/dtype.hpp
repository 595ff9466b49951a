// Element types of arrays. Device arrays follow JAX with 64-bit mode off (float32/int32 by
// default); host (numpy) arrays keep numpy's dtypes. float16 / bfloat16 compute as XLA's CPU
// backend does: in float32, rounded back after every op (types/half_float.hpp rounds).
// Unsigned integers (uint8/16/32) are full citizens: jax.random's key data and bits are
// uint32 as in JAX. There is no uint64 (JAX canonicalises it to uint32 with x64 off).
// complex64 / complex128 are stored as numpy stores them (real part, imaginary part); the
// device programs compute on the parts (spmd/lower_complex.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace shard::types {

#define SHARD_DTYPES(X)                         \
  /* enum,  name,      bytes, kind, short */      \
  X(Bool, "bool", 1, 'b', "bool")              \
  X(I32, "int32", 4, 'i', "i32")               \
  X(I64, "int64", 8, 'i', "i64")               \
  X(U8, "uint8", 1, 'u', "u8")                 \
  X(U16, "uint16", 2, 'u', "u16")              \
  X(U32, "uint32", 4, 'u', "u32")              \
  X(F16, "float16", 2, 'f', "f16")             \
  X(BF16, "bfloat16", 2, 'f', "bf16")          \
  X(F32, "float32", 4, 'f', "f32")             \
  X(F64, "float64", 8, 'f', "f64")             \
  X(C64, "complex64", 8, 'c', "c64")           \
  X(C128, "complex128", 16, 'c', "c128")

enum class DType : uint8_t {
#define X(e, n, b, k, sh) e,
  SHARD_DTYPES(X)
#undef X
};

constexpr std::string_view dtype_name(DType t) {
  switch (t) {
#define X(e, n, b, k, sh) case DType::e: return n;
    SHARD_DTYPES(X)
#undef X
  }
  return "?";
}
// Short names as jaxprs and HLO shapes print them: f32, i32, bool.
constexpr std::string_view dtype_short_name(DType t) {
  switch (t) {
#define X(e, n, b, k, sh) case DType::e: return sh;
    SHARD_DTYPES(X)
#undef X
  }
  return "?";
}
constexpr size_t dtype_size(DType t) {
  switch (t) {
#define X(e, n, b, k, sh) case DType::e: return b;
    SHARD_DTYPES(X)
#undef X
  }
  return 0;
}
// 'b' bool, 'i' signed integer, 'u' unsigned integer, 'f' floating, 'c' complex (numpy's dtype.kind)
constexpr char dtype_kind(DType t) {
  switch (t) {
#define X(e, n, b, k, sh) case DType::e: return k;
    SHARD_DTYPES(X)
#undef X
  }
  return '?';
}
constexpr bool is_float(DType t) { return dtype_kind(t) == 'f'; }
constexpr bool is_complex(DType t) { return dtype_kind(t) == 'c'; }
// Floating or complex (numpy's np.inexact).
constexpr bool is_inexact(DType t) { return is_float(t) || is_complex(t); }
// The dtype of a complex dtype's real and imaginary parts (complex64 -> float32).
constexpr DType complex_part_dtype(DType t) { return t == DType::C128 ? DType::F64 : DType::F32; }
// The complex dtype whose parts are `t` (float64 -> complex128, others -> complex64).
constexpr DType complex_of(DType t) { return t == DType::F64 || t == DType::C128 ? DType::C128 : DType::C64; }
// Any integer, signed or unsigned (numpy's np.integer).
constexpr bool is_int(DType t) { return dtype_kind(t) == 'i' || dtype_kind(t) == 'u'; }
constexpr bool is_unsigned(DType t) { return dtype_kind(t) == 'u'; }
constexpr bool is_signed_int(DType t) { return dtype_kind(t) == 'i'; }

inline std::optional<DType> dtype_from_name(std::string_view s) {
#define X(e, n, b, k, sh) if (s == n) return DType::e;
  SHARD_DTYPES(X)
#undef X
  if (s == "bool_") return DType::Bool;
  return std::nullopt;
}

}  // namespace shard::types
