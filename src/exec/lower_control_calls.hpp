// Statements of a compiled loop body that call the C++ kernels of exec/host_kernels (iota,
// GEMM, cumulative scans, argmax / argmin, sort): the same code the step path runs, so
// results are identical, called directly from the loop kernel instead of through a step.
#pragma once
#include <vector>

#include "codegen/loop_kernel.hpp"
#include "ir/reduce_kind.hpp"
#include "types/dtype.hpp"

namespace shard::exec {

using Shape = std::vector<int64_t>;

// Each returns a LoopStmt::Kind::Call over the given vars.
codegen::LoopStmt call_iota(types::DType dtype, const Shape& shape, int64_t axis, int out);
codegen::LoopStmt call_gemm(types::DType dtype, int64_t batch, int64_t m, int64_t n, int64_t k, int lhs, int rhs, int out);
codegen::LoopStmt call_cumulative(types::DType dtype, ir::ReduceKind kind, const Shape& shape, int64_t axis, bool reverse,
                                  int in, int out);
codegen::LoopStmt call_arg_reduce(types::DType dtype, ir::ReduceKind kind, const Shape& shape, int64_t axis, int in, int out);
// One operand: sort_kernel; several: sort_multi_kernel by the first num_keys.
codegen::LoopStmt call_sort(const std::vector<types::DType>& dtypes, const Shape& shape, int64_t axis, int64_t num_keys,
                            std::vector<int> in, std::vector<int> out);

}  // namespace shard::exec
