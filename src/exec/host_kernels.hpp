// Kernels written in C++ rather than generated: ops that are not hot loops over elements
// (iota, argmax, cumulative scans, sort, dynamic slices) and GEMM through OpenBLAS. They run
// on device threads like every other step.
#pragma once
#include <cstdint>
#include <vector>

#include "codegen/reduce_kernel.hpp"
#include "types/dtype.hpp"

namespace shard::exec {

using Shape = std::vector<int64_t>;

std::vector<int64_t> contiguous_strides(const Shape& shape);
int64_t num_elements(const Shape& shape);

// out[i...] = i[axis] (plus `start` along that axis, for sharded iotas), in `dtype`.
void iota_kernel(types::DType dtype, const Shape& shape, int64_t axis, int64_t start, void* out);
// Index of the first max/min along `axis` (NaN counts as the extreme, as numpy), int32 out.
void arg_reduce_kernel(types::DType dtype, ir::ReduceKind kind, const Shape& shape, int64_t axis,
                       const void* in, int32_t* out);
// Inclusive scan along `axis`.
void cumulative_kernel(types::DType dtype, ir::ReduceKind kind, const Shape& shape, int64_t axis,
                       bool reverse, const void* in, void* out);
// Ascending sort along `axis`, NaNs last (numpy).
void sort_kernel(types::DType dtype, const Shape& shape, int64_t axis, const void* in, void* out);
// Sorts several arrays of one shape along `axis` by the first num_keys (lexicographic, stable).
void sort_multi_kernel(const std::vector<types::DType>& dtypes, const Shape& shape, int64_t axis, int64_t num_keys,
                       const std::vector<const void*>& in, const std::vector<void*>& out);
// Batched row-major GEMM: out[b] = lhs[b] (m x k) @ rhs[b] (k x n).
void gemm_kernel(types::DType dtype, int64_t batch, int64_t m, int64_t n, int64_t k, const void* lhs,
                 const void* rhs, void* out);
// Copies the block [starts, starts + sizes) of `in` (shape) to contiguous `out`, or, when
// `update`, writes contiguous `in_block` into that block of `out` (shape).
void copy_block(size_t elem_bytes, const Shape& shape, const std::vector<int64_t>& starts, const Shape& sizes,
                const void* src, void* dst, bool update);

}  // namespace shard::exec
