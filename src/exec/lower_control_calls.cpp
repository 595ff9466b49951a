#include "exec/lower_control_calls.hpp"

#include "exec/host_kernels.hpp"

namespace shard::exec {

namespace {

using codegen::LoopStmt;
using types::DType;

// Parameters travel as int64s: enums by value, a shape as its rank then its dims.
void push_shape(std::vector<int64_t>& p, const Shape& shape) {
  p.push_back(static_cast<int64_t>(shape.size()));
  p.insert(p.end(), shape.begin(), shape.end());
}
Shape read_shape(const int64_t*& p) {
  const int64_t rank = *p++;
  Shape s(p, p + rank);
  p += rank;
  return s;
}
DType dtype_at(const int64_t* p) { return static_cast<DType>(*p); }
ir::ReduceKind kind_at(const int64_t* p) { return static_cast<ir::ReduceKind>(*p); }

LoopStmt call(codegen::LoopCallee callee, const char* name, std::vector<int64_t> params, std::vector<int> in, std::vector<int> out) {
  LoopStmt s;
  s.kind = LoopStmt::Kind::Call;
  s.callee = callee;
  s.callee_name = name;
  s.params = std::move(params);
  s.in = std::move(in);
  s.out = std::move(out);
  return s;
}

// The callees: unpack the parameters, run the kernel. None throws for the dtypes and shapes
// can_compile_control_flow lets through (generated code cannot pass an exception on).
void iota(const int64_t* p, const void* const*, void* const* out) {
  const DType dt = dtype_at(p);
  const int64_t axis = p[1];
  p += 2;
  iota_kernel(dt, read_shape(p), axis, 0, out[0]);
}
void gemm(const int64_t* p, const void* const* in, void* const* out) {
  gemm_kernel(dtype_at(p), p[1], p[2], p[3], p[4], in[0], in[1], out[0]);
}
void cumulative(const int64_t* p, const void* const* in, void* const* out) {
  const DType dt = dtype_at(p);
  const auto kind = kind_at(p + 1);
  const int64_t axis = p[2];
  const bool reverse = p[3] != 0;
  p += 4;
  cumulative_kernel(dt, kind, read_shape(p), axis, reverse, in[0], out[0]);
}
void arg_reduce(const int64_t* p, const void* const* in, void* const* out) {
  const DType dt = dtype_at(p);
  const auto kind = kind_at(p + 1);
  const int64_t axis = p[2];
  p += 3;
  arg_reduce_kernel(dt, kind, read_shape(p), axis, in[0], static_cast<int32_t*>(out[0]));
}
void sort(const int64_t* p, const void* const* in, void* const* out) {
  const int64_t axis = p[0], num_keys = p[1];
  p += 2;
  const Shape shape = read_shape(p);
  const int64_t n = *p++;
  if (n == 1) return sort_kernel(dtype_at(p), shape, axis, in[0], out[0]);
  std::vector<DType> dtypes;
  for (int64_t i = 0; i < n; ++i) dtypes.push_back(dtype_at(p + i));
  sort_multi_kernel(dtypes, shape, axis, num_keys, std::vector<const void*>(in, in + n), std::vector<void*>(out, out + n));
}

}  // namespace

LoopStmt call_iota(DType dtype, const Shape& shape, int64_t axis, int out) {
  std::vector<int64_t> p{static_cast<int64_t>(dtype), axis};
  push_shape(p, shape);
  return call(iota, "iota", std::move(p), {}, {out});
}

LoopStmt call_gemm(DType dtype, int64_t batch, int64_t m, int64_t n, int64_t k, int lhs, int rhs, int out) {
  return call(gemm, "gemm", {static_cast<int64_t>(dtype), batch, m, n, k}, {lhs, rhs}, {out});
}

LoopStmt call_cumulative(DType dtype, ir::ReduceKind kind, const Shape& shape, int64_t axis, bool reverse, int in, int out) {
  std::vector<int64_t> p{static_cast<int64_t>(dtype), static_cast<int64_t>(kind), axis, reverse ? 1 : 0};
  push_shape(p, shape);
  return call(cumulative, "cumulative", std::move(p), {in}, {out});
}

LoopStmt call_arg_reduce(DType dtype, ir::ReduceKind kind, const Shape& shape, int64_t axis, int in, int out) {
  std::vector<int64_t> p{static_cast<int64_t>(dtype), static_cast<int64_t>(kind), axis};
  push_shape(p, shape);
  return call(arg_reduce, "arg_reduce", std::move(p), {in}, {out});
}

LoopStmt call_sort(const std::vector<DType>& dtypes, const Shape& shape, int64_t axis, int64_t num_keys, std::vector<int> in,
                   std::vector<int> out) {
  std::vector<int64_t> p{axis, num_keys};
  push_shape(p, shape);
  p.push_back(static_cast<int64_t>(dtypes.size()));
  for (auto t : dtypes) p.push_back(static_cast<int64_t>(t));
  return call(sort, "sort", std::move(p), std::move(in), std::move(out));
}

}  // namespace shard::exec
