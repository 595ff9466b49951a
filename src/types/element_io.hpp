// Reading and writing one integer element of any integer dtype (or bool) on the host:
// loads sign- or zero-extend to int64 by the dtype's signedness, stores wrap (keep the low
// bits), as numpy's astype between integer types does. One place for the per-width switch,
// so host conversions, printing and Python scalars agree on every integer dtype.
#pragma once
#include <cstdint>
#include <cstring>

#include "types/dtype.hpp"

namespace shard::types {

inline int64_t load_int_element(DType t, const void* p) {
  switch (t) {
    case DType::Bool: return *static_cast<const uint8_t*>(p) != 0;
    case DType::U8: return *static_cast<const uint8_t*>(p);
    case DType::U16: { uint16_t x; std::memcpy(&x, p, 2); return x; }
    case DType::U32: { uint32_t x; std::memcpy(&x, p, 4); return x; }
    case DType::I32: { int32_t x; std::memcpy(&x, p, 4); return x; }
    case DType::I64: { int64_t x; std::memcpy(&x, p, 8); return x; }
    default: return 0;
  }
}

// A double as int64 as x86-64 converts it (so as numpy's float -> int astype there): truncated
// toward zero; NaN and values outside int64's range give INT64_MIN. A plain static_cast of
// those is undefined behaviour (UBSan: "inf is outside the range of representable values").
inline int64_t double_to_int64(double v) {
  if (v >= -9223372036854775808.0 && v < 9223372036854775808.0) return static_cast<int64_t>(v);
  return INT64_MIN;
}

inline void store_int_element(DType t, int64_t v, void* p) {
  switch (t) {
    case DType::Bool: *static_cast<uint8_t*>(p) = v != 0; break;
    case DType::U8: *static_cast<uint8_t*>(p) = static_cast<uint8_t>(v); break;
    case DType::U16: { auto x = static_cast<uint16_t>(v); std::memcpy(p, &x, 2); break; }
    case DType::U32: { auto x = static_cast<uint32_t>(v); std::memcpy(p, &x, 4); break; }
    case DType::I32: { auto x = static_cast<int32_t>(v); std::memcpy(p, &x, 4); break; }
    case DType::I64: std::memcpy(p, &v, 8); break;
    default: break;
  }
}

}  // namespace shard::types
