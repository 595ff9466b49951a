#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "codegen/reduce_kernel.hpp"
#include "jit/kernel_jit.hpp"

using namespace shard::codegen;
using shard::types::DType;

namespace {
shard::jit::KernelJit& rjit() {
  static shard::jit::KernelJit jit;
  return jit;
}
// Reference: reduce `in` (shape) over `mask` with double accumulation.
std::vector<double> reference(const std::vector<float>& in, std::vector<int64_t> shape, std::vector<bool> mask, ReduceKind kind) {
  std::vector<int64_t> out_shape;
  for (size_t d = 0; d < shape.size(); ++d) if (!mask[d]) out_shape.push_back(shape[d]);
  int64_t out_n = 1;
  for (auto s : out_shape) out_n *= s;
  std::vector<double> out(out_n, reduce_identity(kind, DType::F32));
  std::vector<int64_t> idx(shape.size(), 0);
  for (size_t i = 0; i < in.size(); ++i) {
    int64_t o = 0;
    for (size_t d = 0; d < shape.size(); ++d) if (!mask[d]) o = o * shape[d] + idx[d];
    double x = in[i];
    out[o] = kind == ReduceKind::Sum ? out[o] + x : kind == ReduceKind::Max ? std::max(out[o], x) : std::min(out[o], x);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}
}  // namespace

TEST_CASE("reduce kernels over every axis combination of a rank-3 array", "[codegen]") {
  std::vector<int64_t> shape{6, 5, 70};
  std::vector<float> in(6 * 5 * 70);
  for (size_t i = 0; i < in.size(); ++i) in[i] = std::sin(0.1f * i) * 3 + 0.5f;
  for (int m = 1; m < 8; ++m) {
    std::vector<bool> mask{bool(m & 4), bool(m & 2), bool(m & 1)};
    for (auto kind : {ReduceKind::Sum, ReduceKind::Max, ReduceKind::Min}) {
      ReduceKernel k{DType::F32, kind, shape, mask};
      auto fn = compile_reduce(rjit(), k);
      auto ref = reference(in, shape, mask, kind);
      std::vector<float> out(ref.size());
      fn(in.data(), out.data());
      for (size_t i = 0; i < ref.size(); ++i) {
        INFO(k.signature() << " at " << i);
        REQUIRE(out[i] == Approx(ref[i]).epsilon(1e-5).margin(1e-5));
      }
    }
  }
}

TEST_CASE("a float32 sum of 2^22 elements is vectorised and accurate", "[codegen]") {
  const int64_t n = 1 << 22;
  std::vector<float> in(n);
  for (int64_t i = 0; i < n; ++i) in[i] = 1.0f + float(i % 7) * 1e-3f;
  ReduceKernel k{DType::F32, ReduceKind::Sum, {n}, {true}};
  std::string ir;
  auto fn = compile_reduce(rjit(), k, &ir);
  CHECK_THAT(ir, Catch::Contains("x double>"));
  float out = 0;
  fn(in.data(), &out);
  double ref = 0;
  for (auto x : in) ref += x;
  CHECK(out == Approx(ref).epsilon(1e-7));
}

TEST_CASE("float max/min over rows are vectorised and propagate NaN as numpy does", "[codegen]") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const int64_t rows = 5, cols = 37;  // a row length no vector width divides
  std::vector<float> in(rows * cols);
  for (int64_t i = 0; i < rows * cols; ++i) in[i] = std::sin(0.37f * float(i)) * 10;
  in[0 * cols + 36] = nan;  // NaN in the scalar tail of row 0
  in[1 * cols + 3] = nan;   // NaN in the vector body of row 1
  for (int64_t c = 0; c < cols; ++c) in[3 * cols + c] = -inf;  // an all -inf row
  for (auto kind : {ReduceKind::Max, ReduceKind::Min}) {
    std::string ir;
    auto fn = compile_reduce(rjit(), {DType::F32, kind, {rows, cols}, {false, true}}, &ir);
    CHECK_THAT(ir, Catch::Contains(kind == ReduceKind::Max ? "vector.reduce.fmaximum" : "vector.reduce.fminimum"));
    std::vector<float> out(rows);
    fn(in.data(), out.data());
    CHECK(std::isnan(out[0]));
    CHECK(std::isnan(out[1]));
    for (int64_t r : {2, 4}) {
      float want = in[r * cols];
      for (int64_t c = 1; c < cols; ++c) want = kind == ReduceKind::Max ? std::max(want, in[r * cols + c]) : std::min(want, in[r * cols + c]);
      CHECK(out[r] == want);
    }
    CHECK(out[3] == -inf);
  }
}

TEST_CASE("integer and bool reductions", "[codegen]") {
  std::vector<int32_t> in{3, -7, 12, 5, 0, -2};
  int32_t out = 0;
  compile_reduce(rjit(), {DType::I32, ReduceKind::Max, {6}, {true}})(in.data(), &out);
  CHECK(out == 12);
  compile_reduce(rjit(), {DType::I32, ReduceKind::Sum, {2, 3}, {true, true}})(in.data(), &out);
  CHECK(out == 11);
  std::vector<int32_t> cols(3);
  compile_reduce(rjit(), {DType::I32, ReduceKind::Min, {2, 3}, {true, false}})(in.data(), cols.data());
  CHECK(cols == std::vector<int32_t>{3, -7, -2});
  std::vector<uint8_t> b{1, 1, 0, 1};
  uint8_t r = 7;
  compile_reduce(rjit(), {DType::Bool, ReduceKind::And, {4}, {true}})(b.data(), &r);
  CHECK(r == 0);
  compile_reduce(rjit(), {DType::Bool, ReduceKind::Or, {4}, {true}})(b.data(), &r);
  CHECK(r == 1);
}

TEST_CASE("int64 max/min reductions start from the exact extremes", "[codegen]") {
  std::vector<int64_t> in{std::numeric_limits<int64_t>::max() - 5, 7, -3};
  int64_t out = 0;
  compile_reduce(rjit(), {DType::I64, ReduceKind::Min, {3}, {true}})(in.data(), &out);
  CHECK(out == -3);
  std::vector<int64_t> big{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::max() - 1};
  compile_reduce(rjit(), {DType::I64, ReduceKind::Min, {2}, {true}})(big.data(), &out);
  CHECK(out == std::numeric_limits<int64_t>::max() - 1);
  std::vector<int64_t> small{std::numeric_limits<int64_t>::min() + 1, std::numeric_limits<int64_t>::min() + 2};
  compile_reduce(rjit(), {DType::I64, ReduceKind::Max, {2}, {true}})(small.data(), &out);
  CHECK(out == std::numeric_limits<int64_t>::min() + 2);
}
