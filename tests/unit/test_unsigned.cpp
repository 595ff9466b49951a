// Unsigned integer dtypes (uint8/uint16/uint32): JAX's and numpy's promotion, the codegen's
// unsigned compare/divide/max/convert, reduction identities, and the runtime's all-reduce.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <vector>

#include "codegen/elementwise_kernel.hpp"
#include "codegen/reduce_kernel.hpp"
#include "jit/kernel_jit.hpp"
#include "runtime/collective_kernels.hpp"
#include "trace/promotion.hpp"
#include "types/element_io.hpp"

using namespace shard::codegen;
using shard::trace::DTypeW;
using shard::types::DType;

namespace {
shard::jit::KernelJit& ujit() {
  static shard::jit::KernelJit jit;
  return jit;
}

// out[i] = op(a[i], b[i]) in dtype t, result dtype rt.
template <class T, class R = T>
std::vector<R> binary(EwOp op, DType t, DType rt, const std::vector<T>& a, const std::vector<T>& b) {
  ElementwiseKernel k;
  const auto n = static_cast<int64_t>(a.size());
  k.shape = {n};
  k.inputs = {{t, {1}}, {t, {1}}};
  k.nodes = {{EwOp::Input, t, {}, 0}, {EwOp::Input, t, {}, 1}, {op, rt, {0, 1}}};
  k.outputs = {2};
  auto fn = compile_elementwise(ujit(), k);
  std::vector<R> out(a.size());
  const void* ins[] = {a.data(), b.data()};
  void* outs[] = {out.data()};
  fn(ins, outs);
  return out;
}

// out[i] = convert(a[i]) from `from` to `to`.
template <class T, class R>
std::vector<R> convert(DType from, DType to, const std::vector<T>& a) {
  ElementwiseKernel k;
  k.shape = {static_cast<int64_t>(a.size())};
  k.inputs = {{from, {1}}};
  k.nodes = {{EwOp::Input, from, {}, 0}, {EwOp::Convert, to, {0}}};
  k.outputs = {1};
  auto fn = compile_elementwise(ujit(), k);
  std::vector<R> out(a.size());
  const void* ins[] = {a.data()};
  void* outs[] = {out.data()};
  fn(ins, outs);
  return out;
}

constexpr uint32_t kMax32 = std::numeric_limits<uint32_t>::max();
}  // namespace

TEST_CASE("JAX promotion with unsigned types, x64 off", "[unsigned]") {
  using shard::trace::promote;
  auto S = [](DType d) { return DTypeW{d, false}; };
  auto W = [](DType d) { return DTypeW{d, true}; };
  CHECK(promote(S(DType::U32), S(DType::I32)) == S(DType::I32));  // x32 lattice: never int64
  CHECK(promote(S(DType::U32), W(DType::I32)) == S(DType::U32));  // Python int keeps uint32
  CHECK(promote(S(DType::U32), W(DType::F32)) == W(DType::F32));  // Python float: weak float32
  CHECK(promote(S(DType::U32), S(DType::F32)) == S(DType::F32));
  CHECK(promote(S(DType::U32), S(DType::F16)) == S(DType::F16));
  CHECK(promote(S(DType::U8), S(DType::U16)) == S(DType::U16));
  CHECK(promote(S(DType::U8), S(DType::I32)) == S(DType::I32));
  CHECK(promote(S(DType::U16), S(DType::U32)) == S(DType::U32));
  CHECK(promote(S(DType::U8), S(DType::Bool)) == S(DType::U8));
  CHECK(promote(S(DType::U32), S(DType::I64)) == S(DType::I64));
  CHECK(promote(W(DType::U32), S(DType::U8)) == S(DType::U8));  // weak unsigned is i*
  CHECK(shard::trace::canonicalize_device(DType::U32) == DType::U32);
}

TEST_CASE("numpy promotion with unsigned types", "[unsigned]") {
  using shard::trace::numpy_promote_types;
  CHECK(numpy_promote_types(DType::U32, DType::I32) == DType::I64);
  CHECK(numpy_promote_types(DType::U16, DType::I32) == DType::I32);
  CHECK(numpy_promote_types(DType::U8, DType::U32) == DType::U32);
  CHECK(numpy_promote_types(DType::U8, DType::F16) == DType::F16);
  CHECK(numpy_promote_types(DType::U16, DType::F16) == DType::F32);
  CHECK(numpy_promote_types(DType::U32, DType::F32) == DType::F64);
  CHECK(numpy_promote_types(DType::I32, DType::F32) == DType::F64);
  CHECK(numpy_promote_types(DType::Bool, DType::U16) == DType::U16);
  CHECK(numpy_promote_types(DType::F16, DType::BF16) == DType::F32);
}

TEST_CASE("unsigned compare, divide, max and wrap in kernels", "[unsigned]") {
  const std::vector<uint32_t> a = {0, kMax32, 7, 2147483648u, 5};
  const std::vector<uint32_t> b = {1, 1, 0, 3, 0};
  CHECK(binary<uint32_t, uint8_t>(EwOp::Lt, DType::U32, DType::Bool, a, b) == std::vector<uint8_t>{1, 0, 0, 0, 0});
  CHECK(binary(EwOp::Max, DType::U32, DType::U32, a, b) == std::vector<uint32_t>{1, kMax32, 7, 2147483648u, 5});
  CHECK(binary(EwOp::Min, DType::U32, DType::U32, a, b) == std::vector<uint32_t>{0, 1, 0, 3, 0});
  CHECK(binary(EwOp::Add, DType::U32, DType::U32, a, b) == std::vector<uint32_t>{1, 0, 7, 2147483651u, 5});
  // x // 0 = all ones, x % 0 = x (XLA); floor division is plain division for unsigned.
  CHECK(binary(EwOp::FloorDiv, DType::U32, DType::U32, a, b) == std::vector<uint32_t>{0, kMax32, kMax32, 715827882u, kMax32});
  CHECK(binary(EwOp::Mod, DType::U32, DType::U32, a, b) == std::vector<uint32_t>{0, 0, 7, 2, 5});
  CHECK(binary(EwOp::Pow, DType::U32, DType::U32, std::vector<uint32_t>{65536, 3, 2147483648u}, std::vector<uint32_t>{2, 3, 1}) ==
        std::vector<uint32_t>{0, 27, 2147483648u});
  const std::vector<uint8_t> c = {250, 5, 128}, d = {10, 3, 2};
  CHECK(binary(EwOp::Add, DType::U8, DType::U8, c, d) == std::vector<uint8_t>{4, 8, 130});
  CHECK(binary(EwOp::Mul, DType::U8, DType::U8, c, d) == std::vector<uint8_t>{196, 15, 0});
  CHECK(binary<uint8_t, uint8_t>(EwOp::Gt, DType::U8, DType::Bool, c, d) == std::vector<uint8_t>{1, 1, 1});
  const std::vector<uint16_t> e = {65535, 1};
  CHECK(binary(EwOp::Mul, DType::U16, DType::U16, e, e) == std::vector<uint16_t>{1, 1});
}

TEST_CASE("conversions to and from unsigned types", "[unsigned]") {
  // Widening zero-extends an unsigned source; narrowing keeps the low bits.
  CHECK(convert<uint32_t, int64_t>(DType::U32, DType::I64, {kMax32, 1}) == std::vector<int64_t>{4294967295LL, 1});
  CHECK(convert<int32_t, uint32_t>(DType::I32, DType::U32, {-1, 5}) == std::vector<uint32_t>{kMax32, 5});
  CHECK(convert<int32_t, uint8_t>(DType::I32, DType::U8, {300, -1}) == std::vector<uint8_t>{44, 255});
  CHECK(convert<uint8_t, int32_t>(DType::U8, DType::I32, {255, 0}) == std::vector<int32_t>{255, 0});
  CHECK(convert<uint32_t, double>(DType::U32, DType::F64, {kMax32}) == std::vector<double>{4294967295.0});
  // float -> unsigned saturates (NaN -> 0), as XLA converts.
  CHECK(convert<float, uint32_t>(DType::F32, DType::U32, {3e9f, -2.0f, 1.7f, 1e10f}) ==
        std::vector<uint32_t>{3000000000u, 0, 1, kMax32});
}

TEST_CASE("unsigned reductions use unsigned identities", "[unsigned]") {
  const std::vector<uint32_t> in = {5, kMax32, 0, 7};
  uint32_t out = 0;
  compile_reduce(ujit(), {DType::U32, ReduceKind::Max, {4}, {true}})(in.data(), &out);
  CHECK(out == kMax32);
  compile_reduce(ujit(), {DType::U32, ReduceKind::Min, {4}, {true}})(in.data(), &out);
  CHECK(out == 0);
  compile_reduce(ujit(), {DType::U32, ReduceKind::Sum, {4}, {true}})(in.data(), &out);
  CHECK(out == 11);  // wraps
  CHECK(reduce_identity(ReduceKind::Min, DType::U16) == 65535.0);
  CHECK(reduce_identity(ReduceKind::Max, DType::U32) == 0.0);
}

TEST_CASE("all-reduce kernels on unsigned data", "[unsigned]") {
  using shard::runtime::reduce_elements;
  using RK = shard::runtime::ReduceKind;
  std::vector<uint32_t> a = {kMax32, 1, 2}, b = {2, kMax32, 3}, out(3);
  const void* srcs[] = {a.data(), b.data()};
  void* dsts[] = {out.data()};
  reduce_elements(RK::Sum, DType::U32, srcs, 2, 0, dsts, 1, 0, 3);
  CHECK(out == std::vector<uint32_t>{1, 0, 5});
  reduce_elements(RK::Max, DType::U32, srcs, 2, 0, dsts, 1, 0, 3);
  CHECK(out == std::vector<uint32_t>{kMax32, kMax32, 3});
  std::vector<uint16_t> c = {65535, 300}, d = {65535, 300}, o16(2);
  const void* s16[] = {c.data(), d.data()};
  void* d16[] = {o16.data()};
  reduce_elements(RK::Prod, DType::U16, s16, 2, 0, d16, 1, 0, 2);
  CHECK(o16 == std::vector<uint16_t>{1, static_cast<uint16_t>(90000 % 65536)});
}

TEST_CASE("host element loads and stores by signedness", "[unsigned]") {
  uint8_t buf[8] = {};
  shard::types::store_int_element(DType::U32, -1, buf);
  CHECK(shard::types::load_int_element(DType::U32, buf) == 4294967295LL);
  CHECK(shard::types::load_int_element(DType::I32, buf) == -1);
  shard::types::store_int_element(DType::U8, 300, buf);
  CHECK(shard::types::load_int_element(DType::U8, buf) == 44);
}
