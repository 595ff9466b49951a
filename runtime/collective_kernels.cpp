#include "runtime/collective_kernels.hpp"

#include <fmt/format.h>

#include <emmintrin.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "runtime/rendezvous.hpp"
#include "types/half_float.hpp"

namespace shard::runtime {

void check_reduction(ReduceKind kind, DType dtype, std::string_view op) {
  if (types::is_float(dtype) && (kind == ReduceKind::And || kind == ReduceKind::Or))
    throw CollectiveError(fmt::format("{} (logical {}) is not defined for {} arrays", op, ir::reduce_kind_name(kind),
                                      types::dtype_name(dtype)));
}

namespace {

// Integer sum/prod go through the unsigned type: wrap-around instead of undefined overflow
// (types narrower than int through unsigned int, or uint16 * uint16 would overflow int).
template <class T>
struct WideOf {
  using type = T;
};
template <class T>
  requires std::is_integral_v<T>
struct WideOf<T> {
  using type = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
};
template <class T>
using Wide = typename WideOf<T>::type;

struct AddOp {
  template <class T>
  static T apply(T a, T b) { return T(Wide<T>(a) + Wide<T>(b)); }
};
struct MulOp {
  template <class T>
  static T apply(T a, T b) { return T(Wide<T>(a) * Wide<T>(b)); }
};
// `a != a` only for NaN: floats propagate NaN like XLA's max/min; a no-op for integers.
struct MaxOp {
  template <class T>
  static T apply(T a, T b) { return (a > b || a != a) ? a : b; }
};
struct MinOp {
  template <class T>
  static T apply(T a, T b) { return (a < b || a != a) ? a : b; }
};
struct AndOp {
  template <class T>
  static T apply(T a, T b) { return T(a & b); }
};
struct OrOp {
  template <class T>
  static T apply(T a, T b) { return T(a | b); }
};

// The accumulator tile: small enough to stay in L1 while all sources stream through it.
constexpr size_t kTileBytes = 8192;

// Fixed trip counts and restrict let GCC vectorise these at -O2 (its "very cheap" cost model
// only vectorises loops whose iteration count is a known multiple of the vector width).
// Checked with -fopt-info-vec: all but int64 max/min/prod vectorise (the x86-64 baseline,
// SSE2, has no 64-bit integer compare or multiply); all are memory-bound anyway.
template <class T, class Op>
void combine_tile(T* __restrict acc, const T* __restrict a, const T* __restrict b) {
  constexpr size_t n = kTileBytes / sizeof(T);
  for (size_t i = 0; i < n; ++i) acc[i] = Op::apply(a[i], b[i]);
}
template <class T, class Op>
void fold_tile(T* __restrict acc, const T* __restrict a) {
  constexpr size_t n = kTileBytes / sizeof(T);
  for (size_t i = 0; i < n; ++i) acc[i] = Op::apply(acc[i], a[i]);
}
template <class T, class Op>
void combine_tail(T* __restrict acc, const T* __restrict a, const T* __restrict b, size_t n) {
  for (size_t i = 0; i < n; ++i) acc[i] = Op::apply(a[i], b[i]);
}
template <class T, class Op>
void fold_tail(T* __restrict acc, const T* __restrict a, size_t n) {
  for (size_t i = 0; i < n; ++i) acc[i] = Op::apply(acc[i], a[i]);
}

// Results bigger than this (per call, all destinations) bypass the cache with streaming
// stores: a plain store first reads the line it overwrites, which costs a third of the
// memory traffic of a large all-reduce. Smaller results stay cached for their consumer.
constexpr size_t kStreamingBytes = size_t(2) << 20;

void store_tile(void* dst, const void* src, size_t bytes, bool streaming) {
  if (!streaming || reinterpret_cast<uintptr_t>(dst) % 16 != 0 || bytes % 16 != 0) {
    std::memcpy(dst, src, bytes);
    return;
  }
  auto* d = static_cast<__m128i*>(dst);
  auto* s = static_cast<const __m128i*>(src);  // the accumulator tile: 64-byte aligned
  for (size_t i = 0; i < bytes / 16; ++i) _mm_stream_si128(d + i, _mm_load_si128(s + i));
}

template <class T, class Op>
void reduce_typed(const void* const* srcs, int nsrc, size_t src_offset, void* const* dsts, int ndst,
                  size_t dst_offset, size_t count) {
  constexpr size_t kTile = kTileBytes / sizeof(T);
  alignas(64) T acc[kTile];
  auto src = [&](int j, size_t done) { return static_cast<const T*>(srcs[j]) + src_offset + done; };
  // Destinations that are also sources are in cache already (just read): no streaming.
  bool streaming = count * sizeof(T) * ndst >= kStreamingBytes;
  for (int d = 0; d < ndst && streaming; ++d)
    for (int j = 0; j < nsrc; ++j) streaming &= dsts[d] != srcs[j];
  for (size_t done = 0; done < count; done += kTile) {
    const size_t m = std::min(kTile, count - done);
    if (nsrc == 1) {
      std::memcpy(acc, src(0, done), m * sizeof(T));
    } else if (m == kTile) {
      combine_tile<T, Op>(acc, src(0, done), src(1, done));
      for (int j = 2; j < nsrc; ++j) fold_tile<T, Op>(acc, src(j, done));
    } else {
      combine_tail<T, Op>(acc, src(0, done), src(1, done), m);
      for (int j = 2; j < nsrc; ++j) fold_tail<T, Op>(acc, src(j, done), m);
    }
    for (int d = 0; d < ndst; ++d) store_tile(static_cast<T*>(dsts[d]) + dst_offset + done, acc, m * sizeof(T), streaming);
  }
  // Streaming stores are weakly ordered: make them visible before the rendezvous says "done".
  if (streaming) _mm_sfence();
}

using ReduceFn = void (*)(const void* const*, int, size_t, void* const*, int, size_t, size_t);

template <class T>
ReduceFn pick_op(ReduceKind kind) {
  switch (kind) {
    case ReduceKind::Sum: return reduce_typed<T, AddOp>;
    case ReduceKind::Prod: return reduce_typed<T, MulOp>;
    case ReduceKind::Max: return reduce_typed<T, MaxOp>;
    case ReduceKind::Min: return reduce_typed<T, MinOp>;
    case ReduceKind::And:
      if constexpr (std::is_integral_v<T>) return reduce_typed<T, AndOp>;
      break;
    case ReduceKind::Or:
      if constexpr (std::is_integral_v<T>) return reduce_typed<T, OrOp>;
      break;
  }
  return nullptr;
}

ReduceFn pick(ReduceKind kind, DType dtype) {
  switch (dtype) {
    case DType::F32: return pick_op<float>(kind);
    case DType::F64: return pick_op<double>(kind);
    case DType::I32: return pick_op<int32_t>(kind);
    case DType::I64: return pick_op<int64_t>(kind);
    case DType::U8: return pick_op<uint8_t>(kind);
    case DType::U16: return pick_op<uint16_t>(kind);
    case DType::U32: return pick_op<uint32_t>(kind);
    case DType::Bool:  // stored as 0/1 bytes: logical or / and
      return (kind == ReduceKind::Sum || kind == ReduceKind::Max || kind == ReduceKind::Or)
                 ? reduce_typed<uint8_t, OrOp>
                 : reduce_typed<uint8_t, AndOp>;
    // float16 / bfloat16: combined in float32, rounded back after every step
    case DType::F16: return pick_op<types::HalfValue<DType::F16>>(kind);
    case DType::BF16: return pick_op<types::HalfValue<DType::BF16>>(kind);
    // complex values reach collectives as the float arrays of their parts (spmd/lower_complex)
    case DType::C64: case DType::C128: break;
  }
  return nullptr;
}

}  // namespace

void reduce_elements(ReduceKind kind, DType dtype, const void* const* srcs, int nsrc, size_t src_offset,
                     void* const* dsts, int ndst, size_t dst_offset, size_t count) {
  ReduceFn fn = pick(kind, dtype);
  if (!fn) check_reduction(kind, dtype, ir::all_reduce_name(kind));  // throws with the reason
  if (!fn || nsrc < 1) throw CollectiveError("internal error: reduce_elements without sources");
  if (count > 0) fn(srcs, nsrc, src_offset, dsts, ndst, dst_offset, count);
}

void copy_strided(void* dst, const void* src, const CopyDim* dims_in, int ndims, size_t elem_bytes) {
  if (ndims > kMaxCopyDims) throw CollectiveError("internal error: block copy of too many dimensions");
  // Drop unit dimensions; an empty extent means nothing to copy.
  CopyDim dims[kMaxCopyDims];
  int n = 0;
  for (int k = 0; k < ndims; ++k) {
    if (dims_in[k].extent == 0) return;
    if (dims_in[k].extent != 1) dims[n++] = dims_in[k];
  }
  // Fold contiguous innermost dimensions into one run of bytes.
  size_t run = elem_bytes;
  while (n > 0 && dims[n - 1].src_stride == run && dims[n - 1].dst_stride == run) run *= dims[--n].extent;
  auto* d = static_cast<std::byte*>(dst);
  auto* s = static_cast<const std::byte*>(src);
  if (n == 0) {
    std::memcpy(d, s, run);
    return;
  }
  // Odometer over the remaining outer dimensions; the innermost one is a plain loop.
  size_t index[kMaxCopyDims] = {};
  const CopyDim inner = dims[n - 1];
  for (;;) {
    size_t so = 0, doff = 0;
    for (int k = 0; k < n - 1; ++k) {
      so += index[k] * dims[k].src_stride;
      doff += index[k] * dims[k].dst_stride;
    }
    for (size_t i = 0; i < inner.extent; ++i)
      std::memcpy(d + doff + i * inner.dst_stride, s + so + i * inner.src_stride, run);
    int k = n - 2;
    while (k >= 0 && ++index[k] == dims[k].extent) index[k--] = 0;
    if (k < 0) return;
  }
}

}  // namespace shard::runtime
