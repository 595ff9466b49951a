// The inner loops of the collectives: elementwise reduction of several ranks' arrays, and a
// strided block copy. Internal to runtime/ (collectives.hpp is the public face).
#pragma once
#include "ir/reduce_kind.hpp"
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "types/dtype.hpp"

namespace shard::runtime {

using types::DType;

using ir::ReduceKind;  // the monoids: ir/reduce_kind.hpp

// "sum", "max", ... and the JAX-style collective name "psum", "pmax", ...
using types::dtype_short_name;  // "f32", "i64", "bool": HLO-style shapes `f32[1024]`

// Throws CollectiveError when `kind` cannot reduce `dtype` (and/or on floats; float16 and
// bfloat16, which are storage-only). `op` names the collective in the message.
void check_reduction(ReduceKind kind, DType dtype, std::string_view op);

// dst_d[dst_offset + i] = src_0[src_offset + i] (op) src_1[...] (op) ... for every d and
// i < count, offsets and count in elements. Sources combine in order 0, 1, ... so every
// destination gets bit-identical results. Works tile by tile (a tile of all sources is read
// before that tile of any destination is written), so a destination may be exactly a source;
// partial overlaps are the caller's business. bool follows logical semantics: sum/max/or are
// "or", prod/min/and are "and". Integer sum/prod wrap around; float max/min propagate NaN.
void reduce_elements(ReduceKind kind, DType dtype, const void* const* srcs, int nsrc, size_t src_offset,
                     void* const* dsts, int ndst, size_t dst_offset, size_t count);

// Copies an n-dimensional block: for each index (i_0..i_{n-1}) < extents, the element of
// `elem_bytes` bytes at src + sum(i_k * src_strides[k]) goes to dst + sum(i_k * dst_strides[k])
// (strides in bytes). Contiguous inner dimensions are merged into single memcpy runs.
struct CopyDim {
  size_t extent;
  size_t src_stride;
  size_t dst_stride;
};
constexpr int kMaxCopyDims = 16;
void copy_strided(void* dst, const void* src, const CopyDim* dims, int ndims, size_t elem_bytes);

}  // namespace shard::runtime
