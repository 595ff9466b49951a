// JAX's type promotion with weak types (jax.numpy.result_type, 64-bit mode off on device):
// the least upper bound in the lattice
//   bool -> i* -> i32 -> i64 -> f* -> {f16, bf16} -> f32 -> f64 -> c128,
//   f* -> c* -> c64 -> c128, f32 -> c64,
//           i* -> u8 -> u16 -> u32 -> i32 (and u8 -> i32, u16 -> i32)
// where i* / f* / c* are the weak types of Python ints, floats and complex numbers (int32 / float32 with
// weak_type=True). i32 + f16 = f16, bf16 + f16 = f32, i32 + 1.5 = f* (weak float32).
// With x64 on (types/x64_mode.hpp) i* / f* are int64 / float64, u32 -> i64, and
// canonicalize_device keeps 64-bit dtypes.
#pragma once
#include "types/dtype.hpp"

namespace shard::trace {

struct DTypeW {
  types::DType dtype;
  bool weak = false;
  bool operator==(const DTypeW& o) const { return dtype == o.dtype && weak == o.weak; }
};

DTypeW promote(DTypeW a, DTypeW b);
// numpy.promote_types (host arrays): uint32 + int32 = int64, uint16 + float16 = float32.
types::DType numpy_promote_types(types::DType a, types::DType b);
// Device dtypes: with x64 off float64 -> float32 and int64 -> int32; with x64 on unchanged.
types::DType canonicalize_device(types::DType t);
// The dtype of true division / transcendental results: ints and bools become float (weak
// floats stay weak).
DTypeW to_inexact(DTypeW t);

}  // namespace shard::trace
