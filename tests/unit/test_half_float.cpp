// float16 / bfloat16 rounding: the host helper (types/half_float.hpp) against IEEE values
// worked out by hand, and the kernels' integer-op rounding (codegen/half_float_ir) against the
// host helper over every 16-bit pattern and a sweep of float32 values (ties included).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "codegen/elementwise_kernel.hpp"
#include "codegen/half_float_ir.hpp"
#include "jit/kernel_jit.hpp"
#include "jit/llvm_headers.hpp"
#include "types/half_float.hpp"

using namespace shard;
using types::DType;

namespace {
jit::KernelJit& half_test_jit() {
  static jit::KernelJit jit;
  return jit;
}

uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float f32_from(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// out[i] = convert(in[i]) from `from` to `to` in a generated kernel.
template <class In, class Out>
std::vector<Out> run_convert(DType from, DType to, const std::vector<In>& in) {
  codegen::ElementwiseKernel k;
  k.shape = {static_cast<int64_t>(in.size())};
  k.inputs = {{from, {1}}};
  k.nodes = {{ir::EwOp::Input, from, {}, 0}, {ir::EwOp::Convert, to, {0}}};
  k.outputs = {1};
  auto fn = codegen::compile_elementwise(half_test_jit(), k);
  std::vector<Out> out(in.size());
  const void* ins[] = {in.data()};
  void* outs[] = {out.data()};
  fn(ins, outs);
  return out;
}
}  // namespace

TEST_CASE("host rounding to float16: IEEE values, ties to even, overflow, subnormals, NaN", "[half]") {
  using types::round_to_half;
  CHECK(round_to_half(1.0f, DType::F16) == 0x3c00);
  CHECK(round_to_half(-2.0f, DType::F16) == 0xc000);
  CHECK(round_to_half(65504.0f, DType::F16) == 0x7bff);
  CHECK(round_to_half(65519.0f, DType::F16) == 0x7bff);   // below the midpoint to 65536
  CHECK(round_to_half(65520.0f, DType::F16) == 0x7c00);   // the midpoint: ties to even = inf
  CHECK(round_to_half(std::ldexp(1.0f, -24), DType::F16) == 0x0001);   // smallest subnormal
  CHECK(round_to_half(std::ldexp(1.0f, -25), DType::F16) == 0x0000);   // half of it: ties to even (0)
  CHECK(round_to_half(std::ldexp(3.0f, -25), DType::F16) == 0x0002);   // 1.5 ulps: ties to even (2)
  CHECK(round_to_half(std::ldexp(1.0f, -14), DType::F16) == 0x0400);   // smallest normal
  CHECK(round_to_half(1.0f + std::ldexp(1.0f, -11), DType::F16) == 0x3c00);  // tie below an even mantissa
  CHECK(round_to_half(1.0f + 3 * std::ldexp(1.0f, -11), DType::F16) == 0x3c02);  // tie above an odd one
  CHECK(round_to_half(-0.0f, DType::F16) == 0x8000);
  CHECK(round_to_half(std::numeric_limits<float>::infinity(), DType::F16) == 0x7c00);
  CHECK(round_to_half(-std::numeric_limits<float>::infinity(), DType::F16) == 0xfc00);
  const uint16_t nan = round_to_half(f32_from(0xffc00001u), DType::F16);
  CHECK((nan & 0x7c00) == 0x7c00);
  CHECK((nan & 0x0200) != 0);  // quiet
  CHECK((nan & 0x8000) != 0);  // sign kept
  // A signalling NaN whose payload lives only in the dropped bits still gives a NaN.
  CHECK((round_to_half(f32_from(0x7f800001u), DType::F16) & 0x03ff) != 0);
  // From a double, one rounding: just above a float16 midpoint rounds up, though the value
  // rounded to float32 first would sit exactly on the midpoint (and round to even, down).
  CHECK(round_to_half(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40), DType::F16) == 0x3c01);
}

TEST_CASE("host rounding to bfloat16: ties to even, overflow, through float32 from a double", "[half]") {
  using types::round_to_half;
  CHECK(round_to_half(1.0f, DType::BF16) == 0x3f80);
  CHECK(round_to_half(3.14159f, DType::BF16) == 0x4049);  // 3.140625
  CHECK(round_to_half(f32_from(0x3f808000u), DType::BF16) == 0x3f80);  // tie, even below
  CHECK(round_to_half(f32_from(0x3f818000u), DType::BF16) == 0x3f82);  // tie, odd below
  CHECK(round_to_half(f32_from(0x3f808001u), DType::BF16) == 0x3f81);
  CHECK(round_to_half(std::numeric_limits<float>::max(), DType::BF16) == 0x7f80);  // rounds up to inf
  CHECK(round_to_half(f32_from(0x00008000u), DType::BF16) == 0x0000);  // subnormal tie to even
  CHECK(round_to_half(f32_from(0x00018000u), DType::BF16) == 0x0002);
  CHECK(round_to_half(f32_from(0x80000001u), DType::BF16) == 0x8000);
  CHECK((round_to_half(std::nan(""), DType::BF16) & 0x7fc0) == 0x7fc0);
  // ml_dtypes casts a double through float32: 1 + 2^-8 + 2^-30 is a float32 tie.
  CHECK(round_to_half(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30), DType::BF16) == 0x3f80);
  CHECK(types::round_double_once(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30), DType::BF16) == 0x3f81);
}

TEST_CASE("every 16-bit pattern widens exactly and rounds back to itself", "[half]") {
  for (DType t : {DType::F16, DType::BF16}) {
    int bad = 0;
    for (uint32_t h = 0; h < 65536; ++h) {
      const float f = types::half_to_float(static_cast<uint16_t>(h), t);
      if (std::isnan(f)) continue;
      bad += types::round_to_half(f, t) != h;
      bad += types::round_to_half(static_cast<double>(f), t) != h;
    }
    CHECK(bad == 0);
  }
  CHECK(types::half_to_float(0x0001, DType::F16) == std::ldexp(1.0f, -24));
  CHECK(types::half_to_float(0x7bff, DType::F16) == 65504.0f);
  CHECK(types::half_to_float(0x4049, DType::BF16) == 3.140625f);
}

TEST_CASE("kernels round float32 to float16 / bfloat16 exactly as the host helper", "[half][codegen]") {
  // Specials, every tie between neighbouring 16-bit values, and random bit patterns.
  std::vector<float> in = {0.0f, -0.0f, 1.0f, 65519.0f, 65520.0f, std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::max(),
                           std::numeric_limits<float>::denorm_min(), f32_from(0x7fc00000u), f32_from(0xff800001u)};
  for (DType t : {DType::F16, DType::BF16})
    for (uint32_t h = 0; h < 0x7c00; h += 7) {
      const double lo = types::half_to_float(static_cast<uint16_t>(h), t), hi = types::half_to_float(static_cast<uint16_t>(h + 1), t);
      in.push_back(static_cast<float>((lo + hi) / 2));
    }
  std::mt19937 rng(7);
  for (int i = 0; i < 200000; ++i) in.push_back(f32_from(static_cast<uint32_t>(rng())));
  for (DType t : {DType::F16, DType::BF16}) {
    auto out = run_convert<float, uint16_t>(DType::F32, t, in);
    int bad = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      const uint16_t want = types::round_to_half(in[i], t);
      const bool nan = std::isnan(in[i]);
      bad += nan ? !std::isnan(types::half_to_float(out[i], t)) : out[i] != want;
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("kernels widen every float16 / bfloat16 pattern exactly", "[half][codegen]") {
  std::vector<uint16_t> all(65536);
  for (uint32_t h = 0; h < 65536; ++h) all[h] = static_cast<uint16_t>(h);
  for (DType t : {DType::F16, DType::BF16}) {
    auto out = run_convert<uint16_t, float>(t, DType::F32, all);
    int bad = 0;
    for (uint32_t h = 0; h < 65536; ++h) {
      const float want = types::half_to_float(static_cast<uint16_t>(h), t);
      bad += std::isnan(want) ? !std::isnan(out[h]) : f32_bits(out[h]) != f32_bits(want);
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("kernels round a float64 to float16 once", "[half][codegen]") {
  std::vector<double> in = {1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40), 65519.999, 65520.0, 1e-300, -1e300,
                            std::ldexp(1.0, -25) * (1 + 1e-12)};
  std::mt19937_64 rng(11);
  for (int i = 0; i < 100000; ++i) in.push_back(std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng), static_cast<int>(rng() % 40) - 28));
  auto out = run_convert<double, uint16_t>(DType::F64, DType::F16, in);
  int bad = 0;
  for (size_t i = 0; i < in.size(); ++i) bad += out[i] != types::round_to_half(in[i], DType::F16);
  CHECK(bad == 0);
  CHECK(out[0] == 0x3c01);
}

namespace {
// void name(const float* in, uint16_t* bits, float* back, i64 n): bits = round(in), back =
// widen(bits), through the integer steps only (no F16C), one element per iteration.
using SoftFn = void(const float*, uint16_t*, float*, int64_t);
SoftFn* compile_soft_round_trip(DType t, const std::string& name) {
  jit::ModuleHandle mh(name);
  llvm::IRBuilder<> b(mh.context());
  auto* ptr = b.getPtrTy();
  auto* i64 = b.getInt64Ty();
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr, ptr, i64}, false),
                                    llvm::Function::ExternalLinkage, name, mh.module());
  auto* entry = llvm::BasicBlock::Create(mh.context(), "entry", fn);
  auto* loop = llvm::BasicBlock::Create(mh.context(), "loop", fn);
  auto* exit = llvm::BasicBlock::Create(mh.context(), "exit", fn);
  b.SetInsertPoint(entry);
  b.CreateCondBr(b.CreateICmpSGT(fn->getArg(3), b.getInt64(0)), loop, exit);
  b.SetInsertPoint(loop);
  auto* i = b.CreatePHI(i64, 2);
  i->addIncoming(b.getInt64(0), entry);
  auto* x = b.CreateLoad(b.getFloatTy(), b.CreateGEP(b.getFloatTy(), fn->getArg(0), i));
  auto* h = codegen::emit_round_to_half(b, x, t, /*hardware=*/false);
  b.CreateStore(h, b.CreateGEP(b.getInt16Ty(), fn->getArg(1), i));
  auto* in_bits = b.CreateTrunc(b.CreateBitCast(x, b.getInt32Ty()), b.getInt16Ty());  // widen the input's low bits too
  b.CreateStore(codegen::emit_half_to_float(b, in_bits, t, /*hardware=*/false), b.CreateGEP(b.getFloatTy(), fn->getArg(2), i));
  auto* next = b.CreateAdd(i, b.getInt64(1));
  i->addIncoming(next, loop);
  b.CreateCondBr(b.CreateICmpSLT(next, fn->getArg(3)), loop, exit);
  b.SetInsertPoint(exit);
  b.CreateRetVoid();
  half_test_jit().add(std::move(mh));
  return half_test_jit().lookup_fn<SoftFn>(name);
}
}  // namespace

TEST_CASE("the integer rounding and widening steps (used without F16C) match the host helper", "[half][codegen]") {
  // Inputs whose low 16 bits run through every pattern (for the widening), plus ties and
  // random values (for the rounding).
  std::vector<float> in;
  for (uint32_t h = 0; h < 65536; ++h) in.push_back(f32_from(0x3f800000u ^ (h << 16) ^ h));
  for (DType t : {DType::F16, DType::BF16})
    for (uint32_t h = 0; h < 0x7c00; h += 5) {
      const double lo = types::half_to_float(static_cast<uint16_t>(h), t), hi = types::half_to_float(static_cast<uint16_t>(h + 1), t);
      in.push_back(static_cast<float>((lo + hi) / 2));
    }
  std::mt19937 rng(3);
  for (int i = 0; i < 100000; ++i) in.push_back(f32_from(static_cast<uint32_t>(rng())));
  const int64_t n = static_cast<int64_t>(in.size());
  for (DType t : {DType::F16, DType::BF16}) {
    auto* fn = compile_soft_round_trip(t, t == DType::F16 ? "soft_f16" : "soft_bf16");
    std::vector<uint16_t> bits(in.size());
    std::vector<float> back(in.size());
    fn(in.data(), bits.data(), back.data(), n);
    int bad_round = 0, bad_widen = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      const bool nan = std::isnan(in[i]);
      bad_round += nan ? !std::isnan(types::half_to_float(bits[i], t)) : bits[i] != types::round_to_half(in[i], t);
      const float want = types::half_to_float(static_cast<uint16_t>(f32_bits(in[i])), t);
      bad_widen += std::isnan(want) ? !std::isnan(back[i]) : f32_bits(back[i]) != f32_bits(want);
    }
    CHECK(bad_round == 0);
    CHECK(bad_widen == 0);
  }
}
