// Tiled transposes whose output is large enough for streaming (non-temporal) stores
// (codegen/elementwise_kernel: kStreamBytes, 8 MiB): whole tiles go through tile buffers and
// aligned streaming stores, edges through ordinary stores; an output pointer that is not
// 64-byte aligned takes ordinary stores at run time. Checked against naive index arithmetic.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "codegen/elementwise_kernel.hpp"
#include "jit/kernel_jit.hpp"

using namespace shard::codegen;
using shard::types::DType;

namespace {

// n elements of T, 64-byte aligned, every one set to `fill`.
template <class T>
std::unique_ptr<T, decltype(&std::free)> aligned(size_t n, T fill) {
  const size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
  std::unique_ptr<T, decltype(&std::free)> p(static_cast<T*>(std::aligned_alloc(64, bytes)), &std::free);
  for (size_t i = 0; i < n; ++i) p.get()[i] = fill;
  return p;
}

shard::jit::KernelJit& sjit() {
  static shard::jit::KernelJit jit;
  return jit;
}

// out0[i, j] = in[j, i] + 1 and out1 = float64(out0), for in of shape [rows, cols]; the
// outputs start `skew` elements into their (64-byte aligned) vectors.
void check_streamed(int64_t rows, int64_t cols, bool two_outputs, size_t skew) {
  std::vector<float> in(static_cast<size_t>(rows * cols));
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 100003) * 0.5f - 3;
  ElementwiseKernel k;
  k.shape = {cols, rows};
  k.inputs = {{DType::F32, {1, cols}, 0}, {DType::F32, {0, 0}, 0}};
  k.nodes = {{EwOp::Input, DType::F32, {}, 0}, {EwOp::Input, DType::F32, {}, 1}, {EwOp::Add, DType::F32, {0, 1}}};
  k.outputs = {2};
  if (two_outputs) {
    k.nodes.push_back({EwOp::Convert, DType::F64, {2}});
    k.outputs.push_back(3);
  }
  std::string ir;
  auto fn = compile_elementwise(sjit(), k, &ir);
  CHECK_THAT(ir, Catch::Contains("!nontemporal"));
  const float one = 1;
  auto out0_buf = aligned<float>(in.size() + 16, -1);
  auto out1_buf = aligned<double>(two_outputs ? in.size() + 16 : 1, -1);
  float* out0 = out0_buf.get();
  double* out1 = out1_buf.get();
  const void* ins[] = {in.data(), &one};
  void* outs[] = {out0 + skew, out1 + skew};
  fn(ins, outs);
  bool same = true, untouched = skew == 0 || out0[0] == -1;
  for (int64_t i = 0; i < cols; ++i)
    for (int64_t j = 0; j < rows; ++j) {
      const float want = in[static_cast<size_t>(j * cols + i)] + 1;
      same &= out0[skew + static_cast<size_t>(i * rows + j)] == want;
      if (two_outputs) same &= out1[skew + static_cast<size_t>(i * rows + j)] == static_cast<double>(want);
    }
  untouched &= out0[skew + in.size()] == -1;
  INFO(k.signature() << " skew " << skew);
  CHECK(same);
  CHECK(untouched);
}

}  // namespace

TEST_CASE("streamed transposes: whole tiles, partial blocks and tiles at the edges, unaligned outputs", "[codegen]") {
  // 2061 result rows of 1040: 32 blocks of 64 rows, a partial block of 13 rows (ordinary
  // stores), 16 blocks and a partial block of 16 columns. 8.2 MiB of float32.
  check_streamed(1040, 2061, false, 0);
  check_streamed(1040, 2061, false, 1);    // not 64-byte aligned: ordinary stores
  check_streamed(1040, 2061, true, 0);     // a float32 and a float64 output, both streamed
  check_streamed(1040, 2061, true, 8);     // 32 bytes in: neither output aligned
}
