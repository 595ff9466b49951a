// Elementwise kernels that read an input transposed (codegen/elementwise_kernel's tiled
// loops, codegen/transpose_tile's in-register transpose), against naive index arithmetic:
// every dtype width, shapes with partial tiles and partial blocks of tiles on both edges, a transpose fused with other
// inputs, a reversed transposed input and a batch dim outside the tiles.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "codegen/elementwise_kernel.hpp"
#include "jit/kernel_jit.hpp"

using namespace shard::codegen;
using shard::types::DType;

namespace {

shard::jit::KernelJit& tjit() {
  static shard::jit::KernelJit jit;
  return jit;
}

// out[i, j] = in[j, i] for in of shape [rows, cols] (out: [cols, rows]).
template <class T>
void check_transpose(DType dt, int64_t rows, int64_t cols) {
  std::vector<T> in(static_cast<size_t>(rows * cols)), out(in.size());
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<T>(i * 7 + 3);
  ElementwiseKernel k;
  k.shape = {cols, rows};
  k.inputs = {{dt, {1, cols}, 0}};
  k.nodes = {{EwOp::Input, dt, {}, 0}};
  k.outputs = {0};
  std::string ir;
  auto fn = compile_elementwise(tjit(), k, &ir);
  const void* ins[] = {in.data()};
  void* outs[] = {out.data()};
  fn(ins, outs);
  bool same = true;
  for (int64_t i = 0; i < cols; ++i)
    for (int64_t j = 0; j < rows; ++j) same &= out[i * rows + j] == in[j * cols + i];
  INFO(k.signature());
  CHECK(same);
  if ((dt == DType::F32 || dt == DType::F64) && rows >= 16 && cols >= 16) CHECK_THAT(ir, Catch::Contains("shufflevector"));
}

}  // namespace

TEST_CASE("transposes of every element width, whole and partial tiles", "[codegen]") {
  for (auto [r, c] : std::vector<std::pair<int64_t, int64_t>>{{64, 32}, {37, 53}, {16, 16}, {5, 300}, {300, 5}, {1, 9}, {300, 270}, {256, 128}}) {
    check_transpose<float>(DType::F32, r, c);
    check_transpose<double>(DType::F64, r, c);
    check_transpose<int32_t>(DType::I32, r, c);
    check_transpose<int64_t>(DType::I64, r, c);
    check_transpose<uint16_t>(DType::U16, r, c);
    check_transpose<uint8_t>(DType::U8, r, c);
  }
}

TEST_CASE("a transposed input fused with a contiguous one, a reversed one and a batch dim", "[codegen]") {
  // out[b, i, j] = a[b, j, i] * 2 + c[b, i, j] - a[b, rows-1-j, i] over b in 3, i in 40, j in 35.
  const int64_t batch = 3, rows = 35, cols = 40;
  std::vector<float> a(batch * rows * cols), c(a.size()), out(a.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] = 0.5f * float(i % 1000) - 7, c[i] = float(i % 13);
  ElementwiseKernel k;
  k.shape = {batch, cols, rows};
  k.inputs = {{DType::F32, {rows * cols, 1, cols}, 0},
              {DType::F32, {rows * cols, rows, 1}, 0},
              {DType::F32, {rows * cols, 1, -cols}, (rows - 1) * cols}};
  k.nodes = {{EwOp::Input, DType::F32, {}, 0}, {EwOp::Input, DType::F32, {}, 1}, {EwOp::Input, DType::F32, {}, 2},
             {EwOp::Add, DType::F32, {0, 0}},  {EwOp::Add, DType::F32, {3, 1}},  {EwOp::Sub, DType::F32, {4, 2}}};
  k.outputs = {5};
  auto fn = compile_elementwise(tjit(), k);
  const void* ins[] = {a.data(), c.data(), a.data()};
  void* outs[] = {out.data()};
  fn(ins, outs);
  bool same = true;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < cols; ++i)
      for (int64_t j = 0; j < rows; ++j) {
        const float want = a[b * rows * cols + j * cols + i] * 2 + c[(b * cols + i) * rows + j] - a[b * rows * cols + (rows - 1 - j) * cols + i];
        same &= out[(b * cols + i) * rows + j] == want;
      }
  CHECK(same);
}
