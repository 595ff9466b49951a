#include "codegen/half_float_ir.hpp"

#include "types/half_float.hpp"

namespace shard::codegen {

using types::DType;

namespace {
// `scalar` shaped like `v`: itself for a scalar, a vector of as many lanes for a vector.
llvm::Type* shaped_like(llvm::Value* v, llvm::Type* scalar) {
  if (auto* vt = llvm::dyn_cast<llvm::VectorType>(v->getType())) return llvm::VectorType::get(scalar, vt->getElementCount());
  return scalar;
}
// F16C (vcvtps2ph / vcvtph2ps) converts float32 <-> float16 in hardware with the same
// rounding (nearest even, NaN quieted with its top payload bits); kernels run on this host.
bool host_has_f16c() {
  static const bool has = [] {
    const auto features = llvm::sys::getHostCPUFeatures();
    auto it = features.find("f16c");
    return it != features.end() && it->second;
  }();
  return has;
}
}  // namespace

llvm::Value* emit_round_to_half(llvm::IRBuilder<>& b, llvm::Value* x, DType to, bool hardware) {
  llvm::IRBuilder<>::FastMathFlagGuard exact(b);  // the magic addition must round as IEEE says
  b.clearFastMathFlags();
  const bool from_double = x->getType()->getScalarType()->isDoubleTy();
  if (hardware && !from_double && to == DType::F16 && host_has_f16c())
    return b.CreateBitCast(b.CreateFPTrunc(x, shaped_like(x, b.getHalfTy())), shaped_like(x, b.getInt16Ty()));
  if (!from_double && to == DType::BF16) {
    // float32 and bfloat16 share the exponent: dropping 16 mantissa bits with the carry of
    // the rounding increment covers subnormals and overflow to inf alike; NaN stays quiet.
    auto* u32 = shaped_like(x, b.getInt32Ty());
    auto c = [&](uint32_t v) { return llvm::ConstantInt::get(u32, v); };
    auto* bits = b.CreateBitCast(x, u32);
    auto* high = b.CreateLShr(bits, c(16));
    auto* rounded = b.CreateLShr(b.CreateAdd(b.CreateAdd(bits, c(0x7fff)), b.CreateAnd(high, c(1))), c(16));
    auto* nan = b.CreateFCmpUNO(x, x);
    auto* out = b.CreateSelect(nan, b.CreateOr(high, c(0x40)), rounded);
    return b.CreateTrunc(out, shaped_like(x, b.getInt16Ty()));
  }
  const types::FloatFormat from = from_double ? types::kFloat64 : types::kFloat32;
  const types::FloatFormat tf = types::half_format(to);
  const types::HalfRounding r = types::half_rounding(from, tf);
  auto* uty = shaped_like(x, b.getIntNTy(static_cast<unsigned>(from.width())));
  const uint64_t width_mask = from_double ? ~uint64_t{0} : 0xffffffffu;
  auto c = [&](uint64_t v) { return llvm::ConstantInt::get(uty, v & width_mask); };  // wraps (rebias)
  auto* i16 = shaped_like(x, b.getInt16Ty());
  auto c16 = [&](uint64_t v) { return llvm::ConstantInt::get(i16, v); };

  llvm::Value* bits = b.CreateBitCast(x, uty);
  const uint64_t sign_bit = uint64_t{1} << (from.width() - 1);
  auto* sign = b.CreateTrunc(b.CreateLShr(b.CreateAnd(bits, c(sign_bit)), c(static_cast<uint64_t>(from.width() - 16))), i16);
  auto* mag = b.CreateAnd(bits, c(sign_bit - 1));
  const uint64_t exp_all = ((uint64_t{1} << tf.exponent_bits) - 1) << tf.mantissa_bits;
  const uint64_t mant_mask = (uint64_t{1} << tf.mantissa_bits) - 1;
  const uint64_t quiet = uint64_t{1} << (tf.mantissa_bits - 1);
  auto* shift = c(static_cast<uint64_t>(r.shift));

  // NaN: quiet, with the top payload bits.
  auto* payload = b.CreateTrunc(b.CreateAnd(b.CreateLShr(mag, shift), c(mant_mask)), i16);
  auto* nan = b.CreateOr(payload, c16(exp_all | quiet));
  // Subnormal results: the magic addition rounds to the subnormal ulp.
  auto* magic = b.CreateBitCast(c(r.subnormal_magic), x->getType());
  auto* sum = b.CreateBitCast(b.CreateFAdd(b.CreateBitCast(mag, x->getType()), magic), uty);
  auto* subnormal = b.CreateTrunc(b.CreateSub(sum, c(r.subnormal_magic)), i16);
  // Normal results: rebias, add half an ulp minus one plus the kept lsb (ties to even), drop.
  auto* odd = b.CreateAnd(b.CreateLShr(mag, shift), c(1));
  auto* rounded = b.CreateAdd(b.CreateAdd(mag, c(r.rebias + ((uint64_t{1} << (r.shift - 1)) - 1))), odd);
  auto* normal = b.CreateTrunc(b.CreateLShr(rounded, shift), i16);

  llvm::Value* out = b.CreateSelect(b.CreateICmpULT(mag, c(r.min_normal)), subnormal, normal);
  out = b.CreateSelect(b.CreateICmpUGE(mag, c(r.overflow)), c16(exp_all), out);
  out = b.CreateSelect(b.CreateICmpUGT(mag, c(r.infinity)), nan, out);
  return b.CreateOr(out, sign);
}

llvm::Value* emit_half_to_float(llvm::IRBuilder<>& b, llvm::Value* h, DType from, bool hardware) {
  auto* i32 = shaped_like(h, b.getInt32Ty());
  auto* f32 = shaped_like(h, b.getFloatTy());
  auto c = [&](uint32_t v) { return llvm::ConstantInt::get(i32, v); };
  if (hardware && from == DType::F16 && host_has_f16c()) return b.CreateFPExt(b.CreateBitCast(h, shaped_like(h, b.getHalfTy())), f32);
  auto* wide = b.CreateZExt(h, i32);
  if (from == DType::BF16) return b.CreateBitCast(b.CreateShl(wide, c(16)), f32);
  llvm::IRBuilder<>::FastMathFlagGuard exact(b);
  b.clearFastMathFlags();
  auto* sign = b.CreateShl(b.CreateAnd(wide, c(0x8000)), c(16));
  auto* exp = b.CreateAnd(b.CreateLShr(wide, c(10)), c(0x1f));
  auto* mant = b.CreateAnd(wide, c(0x3ff));
  auto* mant_bits = b.CreateShl(mant, c(13));
  auto* normal = b.CreateOr(b.CreateShl(b.CreateAdd(exp, c(127 - 15)), c(23)), mant_bits);
  auto* special = b.CreateOr(mant_bits, c(0x7f800000));  // inf / NaN
  // A subnormal (or zero) is mant * 2^-24, exact in float32.
  auto* sub_value = b.CreateFMul(b.CreateUIToFP(mant, f32), llvm::ConstantFP::get(f32, 0x1p-24));
  auto* subnormal = b.CreateBitCast(sub_value, i32);
  llvm::Value* out = b.CreateSelect(b.CreateICmpEQ(exp, c(0)), subnormal, normal);
  out = b.CreateSelect(b.CreateICmpEQ(exp, c(0x1f)), special, out);
  return b.CreateBitCast(b.CreateOr(out, sign), f32);
}

}  // namespace shard::codegen
