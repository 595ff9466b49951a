// argmax / argmin and cumulative scans as generated kernels (codegen/arg_reduce_kernel,
// codegen/cumulative_kernel), against naive loops with numpy's rules: first index of the
// extreme, first NaN wins, running values combined in order.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "codegen/reduce_kernel.hpp"
#include "jit/kernel_jit.hpp"

using namespace shard::codegen;
using shard::types::DType;

namespace {

shard::jit::KernelJit& ajit() {
  static shard::jit::KernelJit jit;
  return jit;
}

struct Split { int64_t outer, len, inner; };

Split split(const std::vector<int64_t>& shape, size_t axis) {
  Split s{1, shape[axis], 1};
  for (size_t d = 0; d < shape.size(); ++d)
    if (d < axis) s.outer *= shape[d];
    else if (d > axis) s.inner *= shape[d];
  return s;
}

template <class T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}

template <class T>
std::vector<int32_t> naive_arg(const std::vector<T>& x, const std::vector<int64_t>& shape, size_t axis, bool max) {
  Split s = split(shape, axis);
  std::vector<int32_t> out;
  for (int64_t a = 0; a < s.outer; ++a)
    for (int64_t c = 0; c < s.inner; ++c) {
      int64_t best = 0;
      T bv = x[a * s.len * s.inner + c];
      for (int64_t i = 1; i < s.len && !is_nan(bv); ++i) {
        T cur = x[(a * s.len + i) * s.inner + c];
        if (is_nan(cur) || (max ? cur > bv : cur < bv)) bv = cur, best = i;
      }
      out.push_back(static_cast<int32_t>(best));
    }
  return out;
}

std::vector<bool> mask_for(size_t rank, size_t axis) {
  std::vector<bool> m(rank, false);
  m[axis] = true;
  return m;
}

template <class T>
void check_arg(DType dt, const std::vector<T>& x, const std::vector<int64_t>& shape) {
  for (size_t axis = 0; axis < shape.size(); ++axis)
    for (auto kind : {ReduceKind::Max, ReduceKind::Min}) {
      ReduceKernel k{dt, kind, shape, mask_for(shape.size(), axis), ReduceForm::ArgReduce};
      auto want = naive_arg(x, shape, axis, kind == ReduceKind::Max);
      std::vector<int32_t> got(want.size(), -1);
      compile_reduce(ajit(), k)(x.data(), got.data());
      INFO(k.signature());
      CHECK(got == want);
    }
}

}  // namespace

TEST_CASE("argmax / argmin over each axis, every dtype, odd tails", "[codegen]") {
  // 3 x 4133: rows longer than one chunk (2048) with a tail no vector width divides.
  const std::vector<int64_t> shape{3, 4133};
  const size_t n = 3 * 4133;
  std::vector<float> f(n);
  std::vector<double> d(n);
  std::vector<int32_t> i32(n);
  std::vector<int64_t> i64(n);
  std::vector<uint8_t> u8(n), b(n);
  std::vector<uint16_t> u16(n);
  std::vector<uint32_t> u32(n);
  for (size_t i = 0; i < n; ++i) {
    const double v = std::sin(0.37 * double(i)) * 1000;
    f[i] = static_cast<float>(v);
    d[i] = v;
    i32[i] = static_cast<int32_t>(v);
    i64[i] = static_cast<int64_t>(v) * 1000000007LL;
    u8[i] = static_cast<uint8_t>(int64_t(v) & 0xff);
    u16[i] = static_cast<uint16_t>(int64_t(v) & 0xffff);
    u32[i] = static_cast<uint32_t>(int64_t(v));
    b[i] = (i % 5) == 3;
  }
  check_arg(DType::F32, f, shape);
  check_arg(DType::F64, d, shape);
  check_arg(DType::I32, i32, shape);
  check_arg(DType::I64, i64, shape);
  check_arg(DType::U8, u8, shape);
  check_arg(DType::U16, u16, shape);
  check_arg(DType::U32, u32, shape);
  check_arg(DType::Bool, b, shape);
  // A rank-3 shape: the middle axis has columns on both sides.
  check_arg(DType::F32, std::vector<float>(f.begin(), f.begin() + 5 * 7 * 33), {5, 7, 33});
}

TEST_CASE("argmax / argmin: ties give the first index, NaN wins, infinities", "[codegen]") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const int64_t cols = 4100;
  std::vector<float> x(4 * cols, 1.0f);
  x[0 * cols + 3000] = 5;  // a tie in a later chunk: the first one counts
  x[0 * cols + 3001] = 5;
  x[0 * cols + 17] = -5;
  x[1 * cols + 4099] = nan;  // NaN in the scalar tail beats the max elsewhere
  x[1 * cols + 5] = 9;
  x[1 * cols + 2500] = nan;  // ... and the first NaN wins
  for (int64_t c = 0; c < cols; ++c) x[2 * cols + c] = -inf;  // all -inf: index 0
  x[3 * cols + 2] = -0.0f;  // signed zeros compare equal: the first zero is the extreme
  x[3 * cols + 3] = 0.0f;
  for (int64_t c = 4; c < cols; ++c) x[3 * cols + c] = -1;
  x[3 * cols + 0] = -1;
  x[3 * cols + 1] = -1;
  check_arg(DType::F32, x, {4, cols});
  std::vector<int32_t> got(4);
  compile_reduce(ajit(), {DType::F32, ReduceKind::Max, {4, cols}, {false, true}, ReduceForm::ArgReduce})(x.data(), got.data());
  CHECK(got == std::vector<int32_t>{3000, 2500, 0, 2});
  compile_reduce(ajit(), {DType::F32, ReduceKind::Min, {4, cols}, {false, true}, ReduceForm::ArgReduce})(x.data(), got.data());
  CHECK(got == std::vector<int32_t>{17, 2500, 0, 0});
  // Over the first axis (columns side by side) with NaNs in some columns.
  std::vector<float> y{1, nan, 3, 2, 5, nan, 1, 1, 7, nan, 4, 0};
  check_arg(DType::F32, y, {3, 4});
}

TEST_CASE("the empty arg-reduction is left to the host kernels; float16 is generated", "[codegen]") {
  CHECK_FALSE(jit_supports({DType::F32, ReduceKind::Max, {3, 0}, {false, true}, ReduceForm::ArgReduce}));
  CHECK(jit_supports({DType::F32, ReduceKind::Max, {0, 3}, {false, true}, ReduceForm::ArgReduce}));
  CHECK(jit_supports({DType::F16, ReduceKind::Sum, {4}, {true}, ReduceForm::Cumulative}));
  // No rows: nothing to write, nothing read.
  compile_reduce(ajit(), {DType::F32, ReduceKind::Max, {0, 3}, {false, true}, ReduceForm::ArgReduce})(nullptr, nullptr);
  compile_reduce(ajit(), {DType::F32, ReduceKind::Sum, {0, 3}, {false, true}, ReduceForm::Cumulative})(nullptr, nullptr);
}

namespace {

template <class T>
std::vector<T> naive_scan(const std::vector<T>& x, const std::vector<int64_t>& shape, size_t axis, ReduceKind kind, bool reverse) {
  Split s = split(shape, axis);
  std::vector<T> out(x.size());
  for (int64_t a = 0; a < s.outer; ++a)
    for (int64_t c = 0; c < s.inner; ++c) {
      T acc{};
      for (int64_t j = 0; j < s.len; ++j) {
        const int64_t i = reverse ? s.len - 1 - j : j;
        const T cur = x[(a * s.len + i) * s.inner + c];
        if (j == 0) acc = cur;
        else if (kind == ReduceKind::Sum) acc = static_cast<T>(acc + cur);
        else if (kind == ReduceKind::Prod) acc = static_cast<T>(acc * cur);
        else if (kind == ReduceKind::Max) acc = (is_nan(acc) || acc >= cur) ? acc : cur;
        else acc = (is_nan(acc) || acc <= cur) ? acc : cur;
        out[(a * s.len + i) * s.inner + c] = acc;
      }
    }
  return out;
}

template <class T>
void check_scan(DType dt, const std::vector<T>& x, const std::vector<int64_t>& shape) {
  for (size_t axis = 0; axis < shape.size(); ++axis)
    for (auto kind : {ReduceKind::Sum, ReduceKind::Prod, ReduceKind::Max, ReduceKind::Min})
      for (bool reverse : {false, true}) {
        ReduceKernel k{dt, kind, shape, mask_for(shape.size(), axis), ReduceForm::Cumulative, reverse};
        auto want = naive_scan(x, shape, axis, kind, reverse);
        std::vector<T> got(x.size());
        compile_reduce(ajit(), k)(x.data(), got.data());
        INFO(k.signature());
        bool same = true;
        for (size_t i = 0; i < x.size(); ++i) same &= (got[i] == want[i]) || (is_nan(got[i]) && is_nan(want[i]));
        CHECK(same);
      }
}

}  // namespace

TEST_CASE("cumulative scans over each axis and direction match the sequential definition bit for bit", "[codegen]") {
  // 7 rows: one group of four rows scanned side by side plus three single rows.
  const std::vector<int64_t> shape{7, 45};
  std::vector<float> f(7 * 45);
  std::vector<double> d(f.size());
  std::vector<int32_t> i32(f.size());
  std::vector<int64_t> i64(f.size());
  std::vector<uint32_t> u32(f.size());
  for (size_t i = 0; i < f.size(); ++i) {
    const double v = std::sin(0.7 * double(i)) * 3;
    f[i] = static_cast<float>(v);
    d[i] = v * 1.0000001;
    i32[i] = static_cast<int32_t>(v * 1000);
    i64[i] = static_cast<int64_t>(v * 1e9);
    u32[i] = static_cast<uint32_t>(i * 2654435761u);
  }
  f[3 * 45 + 10] = std::numeric_limits<float>::quiet_NaN();  // NaN sticks in cummax / cummin
  check_scan(DType::F32, f, shape);
  check_scan(DType::F64, d, shape);
  check_scan(DType::I32, i32, shape);  // int32 products wrap
  check_scan(DType::I64, i64, shape);
  check_scan(DType::U32, u32, shape);
  check_scan(DType::F32, std::vector<float>(f.begin(), f.begin() + 3 * 5 * 9), {3, 5, 9});
}
