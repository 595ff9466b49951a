#include "codegen/scalar_ops.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <mutex>
#include <set>
#include <stdexcept>

#include "codegen/gamma_functions.hpp"
#include "codegen/special_functions.hpp"
#include "codegen/half_float_ir.hpp"
#include "jit/kernel_jit.hpp"
#include "types/half_float.hpp"

namespace shard::codegen {

using types::DType;

namespace {
// Integer power by squaring, wrapping like numpy; negative exponents give 0 except for
// bases 1 and -1 (numpy raises; JAX returns these values).
extern "C" int64_t shard_ipow_i64(int64_t base, int64_t exp) {
  if (exp < 0) return base == 1 ? 1 : base == -1 ? (exp % 2 ? -1 : 1) : 0;
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  auto e = static_cast<uint64_t>(exp);
  while (e) {
    if (e & 1) result *= b;
    b *= b;
    e >>= 1;
  }
  return static_cast<int64_t>(result);
}

// The gamma family (codegen/gamma_functions.cpp), called per element. float32 is computed in
// float64 and rounded once (correctly rounded but for rare double roundings).
extern "C" double shard_lgamma_f64(double x) { return lgamma_f64(x); }
extern "C" float shard_lgamma_f32(float x) { return static_cast<float>(lgamma_f64(x)); }
extern "C" double shard_digamma_f64(double x) { return digamma_f64(x); }
extern "C" float shard_digamma_f32(float x) { return static_cast<float>(digamma_f64(x)); }
extern "C" double shard_polygamma_f64(double m, double x) { return polygamma_f64(m, x); }
extern "C" float shard_polygamma_f32(float m, float x) { return static_cast<float>(polygamma_f64(m, x)); }
// The special functions of codegen/special_functions.cpp, the same way.
#define SHARD_SPECIAL_1(name)                                                        \
  extern "C" double shard_##name##_f64(double x) { return name##_f64(x); }          \
  extern "C" float shard_##name##_f32(float x) { return static_cast<float>(name##_f64(x)); }
#define SHARD_SPECIAL_2(name)                                                                         \
  extern "C" double shard_##name##_f64(double a, double x) { return name##_f64(a, x); }              \
  extern "C" float shard_##name##_f32(float a, float x) { return static_cast<float>(name##_f64(a, x)); }
SHARD_SPECIAL_1(bessel_i0e)
SHARD_SPECIAL_1(bessel_i1e)
SHARD_SPECIAL_1(erfcx)
SHARD_SPECIAL_1(expi)
SHARD_SPECIAL_2(igamma)
SHARD_SPECIAL_2(igammac)
SHARD_SPECIAL_2(igamma_grad_a)
SHARD_SPECIAL_2(zeta)
SHARD_SPECIAL_2(expn)
#undef SHARD_SPECIAL_1
#undef SHARD_SPECIAL_2
extern "C" double shard_betainc_f64(double a, double b, double x) { return betainc_f64(a, b, x); }
extern "C" float shard_betainc_f32(float a, float b, float x) { return static_cast<float>(betainc_f64(a, b, x)); }

// lax.bitcast_convert_type between same-width types (bool is not bitcastable).
llvm::Value* emit_bitcast(llvm::IRBuilder<>& b, llvm::Value* x, DType from, DType to, llvm::Type* to_ty) {
  if (from == to) return x;
  if (from == DType::Bool || to == DType::Bool || types::dtype_size(from) != types::dtype_size(to))
    throw std::runtime_error(fmt::format("bitcast_convert_type from {} to {} needs types of one width",
                                         types::dtype_name(from), types::dtype_name(to)));
  return b.CreateBitCast(x, to_ty);
}

// lax shifts: LLVM's shifts are poison for counts outside [0, width); lax defines them
// (counts read as unsigned): left and logical right give 0, arithmetic right the sign fill.
llvm::Value* emit_shift(llvm::IRBuilder<>& b, EwOp op, llvm::Value* x, llvm::Value* n, DType t) {
  if (!types::is_int(t)) throw std::runtime_error(std::string(ew_op_name(op)) + " needs integer operands");
  auto* ty = x->getType();
  const unsigned width = ty->getIntegerBitWidth();
  auto* zero = llvm::ConstantInt::get(ty, 0);
  auto* in_range = b.CreateICmpULT(n, llvm::ConstantInt::get(ty, width));
  auto* safe_n = b.CreateSelect(in_range, n, zero);
  switch (op) {
    case EwOp::ShiftLeft: return b.CreateSelect(in_range, b.CreateShl(x, safe_n), zero);
    case EwOp::ShiftRightLogical: return b.CreateSelect(in_range, b.CreateLShr(x, safe_n), zero);
    default: return b.CreateAShr(x, b.CreateSelect(in_range, n, llvm::ConstantInt::get(ty, width - 1)));
  }
}

// lax.erf_inv for f64 as XLA computes it: Giles' double-precision approximation, with three
// ranges of w = -log1p(-x*x): w < 6.25 (a degree-22 polynomial in w - 3.125), w < 16
// (degree 18 in sqrt(w) - 3.25) and beyond (degree 16 in sqrt(w) - 5); times x.
llvm::Value* emit_erf_inv_f64(llvm::IRBuilder<>& b, llvm::Module& m, llvm::Value* x) {
  static constexpr double kBelow6_25[23] = {
      -3.6444120640178196996e-21, -1.685059138182016589e-19, 1.2858480715256400167e-18, 1.115787767802518096e-17,
      -1.333171662854620906e-16,  2.0972767875968561637e-17, 6.6376381343583238325e-15, -4.0545662729752068639e-14,
      -8.1519341976054721522e-14, 2.6335093153082322977e-12, -1.2975133253453532498e-11, -5.4154120542946279317e-11,
      1.051212273321532285e-09,   -4.1126339803469836976e-09, -2.9070369957882005086e-08, 4.2347877827932403518e-07,
      -1.3654692000834678645e-06, -1.3882523362786468719e-05, 0.0001867342080340571352, -0.00074070253416626697512,
      -0.0060336708714301490533,  0.24015818242558961693,     1.6536545626831027356};
  static constexpr double kBelow16[19] = {
      2.2137376921775787049e-09,  9.0756561938885390979e-08, -2.7517406297064545428e-07, 1.8239629214389227755e-08,
      1.5027403968909827627e-06,  -4.013867526981545969e-06, 2.9234449089955446044e-06, 1.2475304481671778723e-05,
      -4.7318229009055733981e-05, 6.8284851459573175448e-05, 2.4031110387097893999e-05, -0.0003550375203628474796,
      0.00095328937973738049703,  -0.0016882755560235047313, 0.0024914420961078508066, -0.0037512085075692412107,
      0.005370914553590063617,    1.0052589676941592334,     3.0838856104922207635};
  static constexpr double kAbove16[17] = {
      -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09, -3.7894654401267369937e-09,
      7.6157012080783393804e-09,  -1.4960026627149240478e-08, 2.9147953450901080826e-08, -6.7711997758452339498e-08,
      2.2900482228026654717e-07,  -9.9298272942317002539e-07, 4.5260625972231537039e-06, -1.9681778105531670567e-05,
      7.5995277030017761139e-05,  -0.00021503011930044477347, -0.00013871931833623122026, 1.0103004648645343977,
      4.8499064014085844221};
  auto* ty = x->getType();
  auto c = [&](double v) { return llvm::ConstantFP::get(ty, v); };
  auto log1p = m.getOrInsertFunction("log1p", llvm::FunctionType::get(ty, {ty}, false));
  auto* call = b.CreateCall(log1p, {b.CreateFNeg(b.CreateFMul(x, x))});
  call->setDoesNotThrow();
  call->setOnlyAccessesInaccessibleMemory();
  auto* w = b.CreateFNeg(call);
  auto* lt6 = b.CreateFCmpOLT(w, c(6.25));
  auto* lt16 = b.CreateFCmpOLT(w, c(16.0));
  auto* sqrt_w = b.CreateIntrinsic(llvm::Intrinsic::sqrt, {ty}, {w});
  auto* wr = b.CreateSelect(lt6, b.CreateFSub(w, c(3.125)), b.CreateFSub(sqrt_w, b.CreateSelect(lt16, c(3.25), c(5.0))));
  // The three polynomials run in lockstep, each range's coefficient picked per element; the
  // shorter two stop early (their last steps keep p), as XLA's evaluation order does.
  auto coefficient = [&](int i) -> llvm::Value* {
    llvm::Value* k = c(kBelow6_25[i]);
    if (i < 19) k = b.CreateSelect(lt6, k, c(kBelow16[i]));
    if (i < 17) k = b.CreateSelect(lt16, k, c(kAbove16[i]));
    return k;
  };
  llvm::Value* p = coefficient(0);
  for (int i = 1; i < 17; ++i) p = b.CreateFAdd(coefficient(i), b.CreateFMul(p, wr));
  for (int i = 17; i < 19; ++i) p = b.CreateSelect(lt16, b.CreateFAdd(coefficient(i), b.CreateFMul(p, wr)), p);
  for (int i = 19; i < 23; ++i) p = b.CreateSelect(lt6, b.CreateFAdd(coefficient(i), b.CreateFMul(p, wr)), p);
  auto* at_one = b.CreateFCmpOEQ(b.CreateIntrinsic(llvm::Intrinsic::fabs, {ty}, {x}), c(1.0));
  return b.CreateSelect(at_one, b.CreateFMul(x, llvm::ConstantFP::getInfinity(ty)), b.CreateFMul(p, x));
}

// lax.erf_inv as XLA computes it for f32: Giles' single-precision approximation
// ("Approximating the erfinv function"): w = -log1p(-x*x), a degree-8 polynomial in
// w - 2.5 (w < 5) or sqrt(w) - 3, times x; erf_inv(+-1) = +-inf. f64: emit_erf_inv_f64.
llvm::Value* emit_erf_inv(llvm::IRBuilder<>& b, llvm::Module& m, llvm::Value* x, DType t) {
  if (!types::is_float(t)) throw std::runtime_error("erf_inv needs a floating-point operand");
  if (x->getType()->isDoubleTy()) return emit_erf_inv_f64(b, m, x);
  static constexpr float kSmall[9] = {2.81022636e-08f, 3.43273939e-07f, -3.5233877e-06f, -4.39150654e-06f, 0.00021858087f,
                                      -0.00125372503f, -0.00417768164f, 0.246640727f, 1.50140941f};
  static constexpr float kLarge[9] = {-0.000200214257f, 0.000100950558f, 0.00134934322f, -0.00367342844f, 0.00573950773f,
                                      -0.0076224613f, 0.00943887047f, 1.00167406f, 2.83297682f};
  auto* ty = x->getType();
  auto c = [&](double v) { return llvm::ConstantFP::get(ty, v); };
  auto log1p = m.getOrInsertFunction(ty->isFloatTy() ? "log1pf" : "log1p", llvm::FunctionType::get(ty, {ty}, false));
  auto* call = b.CreateCall(log1p, {b.CreateFNeg(b.CreateFMul(x, x))});
  call->setDoesNotThrow();
  call->setOnlyAccessesInaccessibleMemory();
  auto* w = b.CreateFNeg(call);
  auto* lt = b.CreateFCmpOLT(w, c(5.0));
  auto* sqrt_w = b.CreateIntrinsic(llvm::Intrinsic::sqrt, {ty}, {w});
  auto* wr = b.CreateSelect(lt, b.CreateFSub(w, c(2.5)), b.CreateFSub(sqrt_w, c(3.0)));
  llvm::Value* p = b.CreateSelect(lt, c(kSmall[0]), c(kLarge[0]));
  for (int i = 1; i < 9; ++i) p = b.CreateFAdd(b.CreateSelect(lt, c(kSmall[i]), c(kLarge[i])), b.CreateFMul(p, wr));
  auto* at_one = b.CreateFCmpOEQ(b.CreateIntrinsic(llvm::Intrinsic::fabs, {ty}, {x}), c(1.0));
  return b.CreateSelect(at_one, b.CreateFMul(x, llvm::ConstantFP::getInfinity(ty)), b.CreateFMul(p, x));
}
}  // namespace

void register_scalar_runtime(jit::KernelJit& jit) {
  static std::mutex mu;
  static std::set<jit::KernelJit*> done;
  std::lock_guard<std::mutex> lock(mu);
  if (!done.insert(&jit).second) return;
  jit.define_symbol("shard_ipow_i64", reinterpret_cast<void*>(&shard_ipow_i64));
  for (auto [name, fn] : {std::pair<const char*, void*>{"shard_lgamma_f64", reinterpret_cast<void*>(&shard_lgamma_f64)},
                          {"shard_lgamma_f32", reinterpret_cast<void*>(&shard_lgamma_f32)},
                          {"shard_digamma_f64", reinterpret_cast<void*>(&shard_digamma_f64)},
                          {"shard_digamma_f32", reinterpret_cast<void*>(&shard_digamma_f32)},
                          {"shard_polygamma_f64", reinterpret_cast<void*>(&shard_polygamma_f64)},
                          {"shard_polygamma_f32", reinterpret_cast<void*>(&shard_polygamma_f32)}})
    jit.define_symbol(name, fn);
#define SHARD_SPECIAL_SYMBOLS(name)                                            \
  jit.define_symbol("shard_" #name "_f64", reinterpret_cast<void*>(&shard_##name##_f64)); \
  jit.define_symbol("shard_" #name "_f32", reinterpret_cast<void*>(&shard_##name##_f32));
  SHARD_SPECIAL_SYMBOLS(bessel_i0e)
  SHARD_SPECIAL_SYMBOLS(bessel_i1e)
  SHARD_SPECIAL_SYMBOLS(erfcx)
  SHARD_SPECIAL_SYMBOLS(expi)
  SHARD_SPECIAL_SYMBOLS(igamma)
  SHARD_SPECIAL_SYMBOLS(igammac)
  SHARD_SPECIAL_SYMBOLS(igamma_grad_a)
  SHARD_SPECIAL_SYMBOLS(zeta)
  SHARD_SPECIAL_SYMBOLS(expn)
  SHARD_SPECIAL_SYMBOLS(betainc)
#undef SHARD_SPECIAL_SYMBOLS
  // The libm functions called below that glibc 2.35+ also ships as vector functions, beyond
  // LLVM 19's LIBMVEC_X86 list (which stops at sin/cos/tan/exp/log/pow).
  for (auto [name, arity] : {std::pair{"expm1", 1}, {"log1p", 1}, {"sinh", 1}, {"cosh", 1}, {"tanh", 1}, {"cbrt", 1}, {"erf", 1}, {"erfc", 1}, {"atan2", 2}})
    jit.add_vector_math(name, arity);
}

llvm::Type* ScalarOps::reg_type(DType t) {
  auto& c = b_.getContext();
  switch (t) {
    case DType::Bool: return llvm::Type::getInt1Ty(c);
    case DType::U8: return llvm::Type::getInt8Ty(c);
    case DType::U16: return llvm::Type::getInt16Ty(c);
    case DType::I32: case DType::U32: return llvm::Type::getInt32Ty(c);
    case DType::I64: return llvm::Type::getInt64Ty(c);
    case DType::F32: case DType::F16: case DType::BF16: return llvm::Type::getFloatTy(c);
    case DType::F64: return llvm::Type::getDoubleTy(c);
  }
  throw std::logic_error("internal error: unknown dtype in a kernel");
}

llvm::Value* ScalarOps::from_storage(llvm::Value* v, DType t) {
  if (is_half_float(t)) return emit_half_to_float(b_, v, t);
  return t == DType::Bool ? b_.CreateICmpNE(v, b_.getInt8(0)) : v;
}
llvm::Value* ScalarOps::to_storage(llvm::Value* v, DType t) {
  if (is_half_float(t)) return emit_round_to_half(b_, v, t);
  return t == DType::Bool ? b_.CreateZExt(v, b_.getInt8Ty()) : v;
}

// A float register holding a 16-bit dtype's value: `v` rounded to that dtype.
llvm::Value* ScalarOps::round_to(llvm::Value* v, DType t) {
  return is_half_float(t) ? emit_half_to_float(b_, emit_round_to_half(b_, v, t), t) : v;
}

llvm::Value* ScalarOps::constant(DType t, double v) {
  // As numpy / ml_dtypes round a Python float (types/half_float.hpp), not via ConstantFP's float.
  if (is_half_float(t)) return llvm::ConstantFP::get(reg_type(t), types::half_to_float(types::round_to_half(v, t), t));
  if (types::is_float(t)) return llvm::ConstantFP::get(reg_type(t), v);
  if (t == DType::Bool) return b_.getInt1(v != 0);
  // Through int64, keeping the low bits: -1 and 4294967295 are both all ones in uint32.
  auto* ity = llvm::cast<llvm::IntegerType>(reg_type(t));
  llvm::APInt wide(64, static_cast<uint64_t>(static_cast<int64_t>(v)));
  return llvm::ConstantInt::get(ity, wide.zextOrTrunc(ity->getBitWidth()));
}

llvm::Value* ScalarOps::intrinsic(llvm::Intrinsic::ID id, std::vector<llvm::Value*> args) {
  std::vector<llvm::Type*> tys{args[0]->getType()};
  return b_.CreateIntrinsic(id, tys, args);
}

llvm::Value* ScalarOps::libm(const char* f32_name, const char* f64_name, std::vector<llvm::Value*> args) {
  bool is_f32 = args[0]->getType()->isFloatTy();
  std::vector<llvm::Type*> params(args.size(), args[0]->getType());
  auto fn = m_.getOrInsertFunction(is_f32 ? f32_name : f64_name,
                                   llvm::FunctionType::get(args[0]->getType(), params, false));
  auto* call = b_.CreateCall(fn, args);
  call->setDoesNotThrow();
  call->setDoesNotAccessMemory();  // libm without errno: lets the loop vectorise it through libmvec
  return call;
}

llvm::Value* ScalarOps::convert(llvm::Value* v, DType from, DType to) {
  if (from == to) return v;
  auto* ty = reg_type(to);
  bool ff = types::is_float(from), tf = types::is_float(to);
  if (to == DType::Bool) return ff ? b_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0))
                                   : b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  if (from == DType::Bool) return tf ? b_.CreateUIToFP(v, ty) : b_.CreateZExt(v, ty);
  if (ff && tf) return b_.CreateFPCast(v, ty);
  // Integer widening extends by the source's signedness; narrowing keeps the low bits.
  if (!ff && !tf) return types::is_unsigned(from) ? b_.CreateZExtOrTrunc(v, ty) : b_.CreateSExtOrTrunc(v, ty);
  // float -> integer saturates with NaN -> 0, as XLA's convert does.
  if (ff) return b_.CreateIntrinsic(types::is_unsigned(to) ? llvm::Intrinsic::fptoui_sat : llvm::Intrinsic::fptosi_sat,
                                    {ty, v->getType()}, {v});
  return types::is_unsigned(from) ? b_.CreateUIToFP(v, ty) : b_.CreateSIToFP(v, ty);
}

namespace {
// Ops that give a representable value when their operands are: no rounding after them.
bool exact_on_half(EwOp op) {
  switch (op) {
    case EwOp::Const: case EwOp::StopGradient: case EwOp::Select: case EwOp::Neg: case EwOp::Abs: case EwOp::Sign:
    case EwOp::Floor: case EwOp::Ceil: case EwOp::Round: case EwOp::Max: case EwOp::Min: case EwOp::Clamp:
    case EwOp::BitcastConvert: case EwOp::NextAfter:
    case EwOp::IntegerPow:  // integer_pow rounds after each multiply itself
      return true;
    default: return false;
  }
}
}  // namespace

llvm::Value* ScalarOps::emit(const EwNode& node, const std::vector<llvm::Value*>& args,
                             const std::vector<DType>& arg_types) {
  // float16 / bfloat16: computed in float32 and rounded back after every op, as XLA's CPU
  // backend does, so fusing ops never changes a result.
  llvm::Value* v = emit_in_register(node, args, arg_types);
  if (is_half_float(node.dtype) && !exact_on_half(node.op)) v = round_to(v, node.dtype);
  return v;
}

llvm::Value* ScalarOps::emit_in_register(const EwNode& node, const std::vector<llvm::Value*>& args,
                                         const std::vector<DType>& arg_types) {
  switch (node.op) {
    case EwOp::Const: return constant(node.dtype, node.const_value);
    case EwOp::IntegerPow: return integer_pow(args[0], node.dtype, static_cast<int64_t>(node.const_value));
    case EwOp::Convert:
      // float64 -> float16 rounds once, from the double (numpy's astype); float64 -> bfloat16
      // goes through float32 below, as ml_dtypes' cast does.
      if (node.dtype == DType::F16 && arg_types[0] == DType::F64) return from_storage(to_storage(args[0], node.dtype), node.dtype);
      return convert(args[0], arg_types[0], node.dtype);
    case EwOp::StopGradient: return args[0];
    case EwOp::IsNan: case EwOp::IsInf: case EwOp::IsFinite: {
      if (!types::is_float(arg_types[0])) return b_.getInt1(node.op == EwOp::IsFinite);
      if (node.op == EwOp::IsNan) return b_.CreateFCmpUNO(args[0], args[0]);
      auto* a = intrinsic(llvm::Intrinsic::fabs, {args[0]});
      auto* inf = llvm::ConstantFP::getInfinity(a->getType());
      return node.op == EwOp::IsInf ? b_.CreateFCmpOEQ(a, inf) : b_.CreateFCmpOLT(a, inf);
    }
    case EwOp::Eq: case EwOp::Ne: case EwOp::Lt: case EwOp::Le: case EwOp::Gt: case EwOp::Ge:
      return compare(node.op, args[0], args[1], arg_types[0]);
    case EwOp::BitcastConvert: {
      const DType from = arg_types[0], to = node.dtype;
      if (!is_half_float(from) && !is_half_float(to)) return emit_bitcast(b_, args[0], from, to, reg_type(to));
      // A 16-bit float's bits are its storage pattern, not its float32 register.
      llvm::Value* x = is_half_float(from) ? to_storage(args[0], from) : args[0];
      x = emit_bitcast(b_, x, from, to, is_half_float(to) ? b_.getInt16Ty() : reg_type(to));
      return is_half_float(to) ? from_storage(x, to) : x;
    }
    case EwOp::ErfInv: return emit_erf_inv(b_, m_, args[0], node.dtype);
    case EwOp::NextAfter:
      if (is_half_float(node.dtype)) return half_nextafter(args[0], args[1], node.dtype);
      break;
    case EwOp::ShiftLeft: case EwOp::ShiftRightLogical: case EwOp::ShiftRightArithmetic:
      return emit_shift(b_, node.op, args[0], args[1], node.dtype);
    case EwOp::Select: return b_.CreateSelect(args[0], args[1], args[2]);
    case EwOp::RegularizedIncompleteBeta: return libm("shard_betainc_f32", "shard_betainc_f64", {args[0], args[1], args[2]});
    case EwOp::Clamp: {  // (x, lo, hi) = min(max(x, lo), hi), numpy's clip
      auto* lo = binary(EwOp::Max, args[0], args[1], node.dtype);
      return binary(EwOp::Min, lo, args[2], node.dtype);
    }
    default: break;
  }
  if (args.size() == 1) return unary(node.op, args[0], node.dtype);
  if (args.size() == 2) return binary(node.op, args[0], args[1], node.dtype);
  throw std::logic_error(std::string("internal error: bad arity for ") + ew_op_name(node.op));
}

llvm::Value* ScalarOps::unary(EwOp op, llvm::Value* x, DType t) {
  const bool fl = types::is_float(t);
  auto* ty = x->getType();
  auto one = [&] { return constant(t, 1); };
  if (t == DType::Bool) {
    switch (op) {
      case EwOp::Not: return b_.CreateNot(x);
      case EwOp::Abs: case EwOp::Sign: case EwOp::Floor: case EwOp::Ceil: case EwOp::Round: case EwOp::Square: return x;
      default: throw std::runtime_error(std::string(ew_op_name(op)) + " is not defined for bool");
    }
  }
  if (types::is_unsigned(t)) {
    switch (op) {  // jnp.abs is the identity, jnp.sign is 0 or 1; negation wraps
      case EwOp::Abs: return x;
      case EwOp::Sign: return b_.CreateZExt(b_.CreateICmpNE(x, constant(t, 0)), ty);
      default: break;
    }
  }
  switch (op) {
    case EwOp::Neg: return fl ? b_.CreateFNeg(x) : b_.CreateNeg(x);
    case EwOp::Abs: return fl ? intrinsic(llvm::Intrinsic::fabs, {x}) : intrinsic(llvm::Intrinsic::abs, {x, b_.getFalse()});
    case EwOp::Sign: {
      auto* zero = constant(t, 0);
      if (fl) {  // keeps NaN and signed zeros, like numpy
        auto* neg = b_.CreateSelect(b_.CreateFCmpOLT(x, zero), constant(t, -1), x);
        return b_.CreateSelect(b_.CreateFCmpOGT(x, zero), one(), neg);
      }
      auto* pos = b_.CreateZExt(b_.CreateICmpSGT(x, zero), ty);
      auto* neg = b_.CreateZExt(b_.CreateICmpSLT(x, zero), ty);
      return b_.CreateSub(pos, neg);
    }
    case EwOp::Floor: return fl ? intrinsic(llvm::Intrinsic::floor, {x}) : x;
    case EwOp::Ceil: return fl ? intrinsic(llvm::Intrinsic::ceil, {x}) : x;
    case EwOp::Round: return fl ? intrinsic(llvm::Intrinsic::roundeven, {x}) : x;
    case EwOp::Square: return fl ? b_.CreateFMul(x, x) : b_.CreateMul(x, x);
    case EwOp::Not: return b_.CreateNot(x);
    default: break;
  }
  if (!fl) throw std::runtime_error(std::string(ew_op_name(op)) + " needs a floating-point operand");
  switch (op) {
    case EwOp::Sqrt: return intrinsic(llvm::Intrinsic::sqrt, {x});
    case EwOp::Rsqrt: return b_.CreateFDiv(one(), intrinsic(llvm::Intrinsic::sqrt, {x}));
    case EwOp::Reciprocal: return b_.CreateFDiv(one(), x);
    case EwOp::Exp: return intrinsic(llvm::Intrinsic::exp, {x});
    case EwOp::Log: return intrinsic(llvm::Intrinsic::log, {x});
    case EwOp::Sin: return intrinsic(llvm::Intrinsic::sin, {x});
    case EwOp::Cos: return intrinsic(llvm::Intrinsic::cos, {x});
    case EwOp::Tan: return intrinsic(llvm::Intrinsic::tan, {x});
    case EwOp::Log1p: return libm("log1pf", "log1p", {x});
    case EwOp::Expm1: return libm("expm1f", "expm1", {x});
    case EwOp::Cbrt: return libm("cbrtf", "cbrt", {x});
    case EwOp::Sinh: return libm("sinhf", "sinh", {x});
    case EwOp::Cosh: return libm("coshf", "cosh", {x});
    case EwOp::Tanh: return libm("tanhf", "tanh", {x});
    case EwOp::Erf: return libm("erff", "erf", {x});
    case EwOp::Erfc: return libm("erfcf", "erfc", {x});
    case EwOp::Lgamma: return libm("shard_lgamma_f32", "shard_lgamma_f64", {x});
    case EwOp::Digamma: return libm("shard_digamma_f32", "shard_digamma_f64", {x});
    case EwOp::BesselI0e: return libm("shard_bessel_i0e_f32", "shard_bessel_i0e_f64", {x});
    case EwOp::BesselI1e: return libm("shard_bessel_i1e_f32", "shard_bessel_i1e_f64", {x});
    case EwOp::Erfcx: return libm("shard_erfcx_f32", "shard_erfcx_f64", {x});
    case EwOp::Expi: return libm("shard_expi_f32", "shard_expi_f64", {x});
    case EwOp::Logistic:
      return b_.CreateFDiv(one(), b_.CreateFAdd(one(), intrinsic(llvm::Intrinsic::exp, {b_.CreateFNeg(x)})));
    default: break;
  }
  throw std::logic_error(std::string("internal error: not a unary op: ") + ew_op_name(op));
}

llvm::Value* ScalarOps::compare(EwOp op, llvm::Value* x, llvm::Value* y, DType t) {
  using P = llvm::CmpInst::Predicate;
  P p;
  if (types::is_float(t)) {
    // Ordered comparisons are false with NaN; != is true (numpy).
    p = op == EwOp::Eq ? P::FCMP_OEQ : op == EwOp::Ne ? P::FCMP_UNE : op == EwOp::Lt ? P::FCMP_OLT
      : op == EwOp::Le ? P::FCMP_OLE : op == EwOp::Gt ? P::FCMP_OGT : P::FCMP_OGE;
    return b_.CreateFCmp(p, x, y);
  }
  const bool u = t == DType::Bool || types::is_unsigned(t);  // False < True
  p = op == EwOp::Eq ? P::ICMP_EQ : op == EwOp::Ne ? P::ICMP_NE
    : op == EwOp::Lt ? (u ? P::ICMP_ULT : P::ICMP_SLT) : op == EwOp::Le ? (u ? P::ICMP_ULE : P::ICMP_SLE)
    : op == EwOp::Gt ? (u ? P::ICMP_UGT : P::ICMP_SGT) : (u ? P::ICMP_UGE : P::ICMP_SGE);
  return b_.CreateICmp(p, x, y);
}

// Integer Div/Rem truncate (lax.div/lax.rem); FloorDiv/Mod follow numpy (divisor's sign).
// Division by zero never reaches sdiv (undefined in LLVM): numpy's results, 0, are selected.
// Unsigned: floor division is division and mod is rem (jnp does exactly that for unsigned
// types); by zero, XLA's results: x / 0 = all ones, x % 0 = x.
llvm::Value* ScalarOps::int_divmod(EwOp op, llvm::Value* x, llvm::Value* y, bool is_unsigned) {
  auto* ty = x->getType();
  if (is_unsigned) {
    auto* by_zero0 = b_.CreateICmpEQ(y, llvm::ConstantInt::get(ty, 0));
    auto* safe = b_.CreateSelect(by_zero0, llvm::ConstantInt::get(ty, 1), y);
    if (op == EwOp::Div || op == EwOp::FloorDiv)
      return b_.CreateSelect(by_zero0, llvm::ConstantInt::getAllOnesValue(ty), b_.CreateUDiv(x, safe));
    return b_.CreateSelect(by_zero0, x, b_.CreateURem(x, safe));
  }
  auto* zero = llvm::ConstantInt::get(ty, 0);
  auto* minus1 = llvm::ConstantInt::getSigned(ty, -1);
  auto* min = llvm::ConstantInt::get(ty, llvm::APInt::getSignedMinValue(ty->getIntegerBitWidth()));
  auto* by_zero = b_.CreateICmpEQ(y, zero);
  auto* overflow = b_.CreateAnd(b_.CreateICmpEQ(x, min), b_.CreateICmpEQ(y, minus1));
  auto* safe_y = b_.CreateSelect(b_.CreateOr(by_zero, overflow), llvm::ConstantInt::get(ty, 1), y);
  auto* q = b_.CreateSDiv(x, safe_y);  // overflow case: x / 1 = MIN, numpy's wrapped answer
  auto* r = b_.CreateSRem(x, safe_y);
  r = b_.CreateSelect(overflow, zero, r);
  auto* adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero), b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(y, zero)));
  llvm::Value* out;
  switch (op) {
    case EwOp::Div: out = q; break;
    case EwOp::Rem: out = r; break;
    case EwOp::FloorDiv: out = b_.CreateSelect(adjust, b_.CreateSub(q, llvm::ConstantInt::get(ty, 1)), q); break;
    default: out = b_.CreateSelect(adjust, b_.CreateAdd(r, y), r); break;  // Mod
  }
  return b_.CreateSelect(by_zero, zero, out);
}

// numpy's npy_divmod for floats, so x // y and x % y match numpy bit for bit.
llvm::Value* ScalarOps::float_floordiv_mod(EwOp op, llvm::Value* a, llvm::Value* b) {
  auto* ty = a->getType();
  auto* zero = llvm::ConstantFP::get(ty, 0.0);
  auto* one = llvm::ConstantFP::get(ty, 1.0);
  auto* mod0 = b_.CreateFRem(a, b);
  auto* div0 = b_.CreateFDiv(b_.CreateFSub(a, mod0), b);
  auto* mod_nz = b_.CreateFCmpUNE(mod0, zero);
  auto* sign_differs = b_.CreateXor(b_.CreateFCmpOLT(b, zero), b_.CreateFCmpOLT(mod0, zero));
  auto* fix = b_.CreateAnd(mod_nz, sign_differs);
  auto* mod1 = b_.CreateSelect(fix, b_.CreateFAdd(mod0, b), mod0);
  auto* div1 = b_.CreateSelect(fix, b_.CreateFSub(div0, one), div0);
  // A zero remainder takes the divisor's sign.
  auto* mod = b_.CreateSelect(mod_nz, mod1, intrinsic(llvm::Intrinsic::copysign, {zero, b}));
  if (op == EwOp::Mod) return mod;
  auto* fl = intrinsic(llvm::Intrinsic::floor, {div1});
  auto* round_up = b_.CreateFCmpOGT(b_.CreateFSub(div1, fl), llvm::ConstantFP::get(ty, 0.5));
  auto* floordiv = b_.CreateSelect(round_up, b_.CreateFAdd(fl, one), fl);
  auto* div_nz = b_.CreateFCmpUNE(div1, zero);
  floordiv = b_.CreateSelect(div_nz, floordiv, intrinsic(llvm::Intrinsic::copysign, {zero, b_.CreateFDiv(a, b)}));
  // Division by zero: numpy gives a / b (inf or nan).
  return b_.CreateSelect(b_.CreateFCmpOEQ(b, zero), b_.CreateFDiv(a, b), floordiv);
}

// nextafter in a 16-bit type steps its bit pattern (numpy's npy_half_nextafter): one ulp of
// the 16-bit type towards y; from zero, the smallest subnormal with y's sign; NaN if either is.
llvm::Value* ScalarOps::half_nextafter(llvm::Value* x, llvm::Value* y, DType t) {
  auto* i16 = b_.getInt16Ty();
  auto* bits = to_storage(x, t);  // exact: x holds a 16-bit value
  auto* y_sign = b_.CreateAnd(to_storage(y, t), llvm::ConstantInt::get(i16, 0x8000));
  auto* away_from_zero = b_.CreateICmpEQ(b_.CreateFCmpOLT(x, y), b_.CreateFCmpOGT(x, llvm::ConstantFP::get(x->getType(), 0.0)));
  llvm::Value* step = b_.CreateSelect(away_from_zero, b_.CreateAdd(bits, llvm::ConstantInt::get(i16, 1)),
                                      b_.CreateSub(bits, llvm::ConstantInt::get(i16, 1)));
  auto* zero = b_.CreateFCmpOEQ(x, llvm::ConstantFP::get(x->getType(), 0.0));
  step = b_.CreateSelect(zero, b_.CreateOr(y_sign, llvm::ConstantInt::get(i16, 1)), step);
  llvm::Value* r = from_storage(step, t);
  r = b_.CreateSelect(b_.CreateFCmpOEQ(x, y), y, r);
  auto* nan = b_.CreateFCmpUNO(x, y);
  return b_.CreateSelect(nan, b_.CreateFAdd(x, y), r);
}

// x ** n for a known integer n, as XLA expands integer_pow: square-and-multiply (x*x for n = 2,
// never a pow call); a negative n is the reciprocal of x ** -n (floats only: the tracer
// refuses negative powers of integers).
llvm::Value* ScalarOps::integer_pow(llvm::Value* x, DType t, int64_t n) {
  const bool fl = types::is_float(t);
  // 16-bit floats round after each multiply: JAX expands integer_pow into multiplies.
  auto mul = [&](llvm::Value* a, llvm::Value* b) { return fl ? round_to(b_.CreateFMul(a, b), t) : b_.CreateMul(a, b); };
  uint64_t m = n < 0 ? static_cast<uint64_t>(-(n + 1)) + 1 : static_cast<uint64_t>(n);
  llvm::Value* acc = nullptr;
  for (llvm::Value* base = x; m; m >>= 1) {
    if (m & 1) acc = acc ? mul(acc, base) : base;
    if (m > 1) base = mul(base, base);
  }
  if (!acc) acc = constant(t, 1);
  if (n < 0) {
    if (!fl) throw std::logic_error("internal error: integer_pow of integers with a negative exponent");
    acc = round_to(b_.CreateFDiv(constant(t, 1), acc), t);
  }
  return acc;
}

// log(exp(x) + exp(y)) without overflow, as numpy's npy_logaddexp: the larger operand plus
// log1p(exp(-|x - y|)); equal operands (infinities too) give x + log(2); NaN propagates.
llvm::Value* ScalarOps::logaddexp(llvm::Value* x, llvm::Value* y) {
  auto* ty = x->getType();
  auto* d = b_.CreateFSub(x, y);
  auto* larger = b_.CreateSelect(b_.CreateFCmpOGT(d, llvm::ConstantFP::get(ty, 0.0)), x, y);
  auto* e = intrinsic(llvm::Intrinsic::exp, {b_.CreateFNeg(intrinsic(llvm::Intrinsic::fabs, {d}))});
  auto* general = b_.CreateFAdd(larger, libm("log1pf", "log1p", {e}));
  auto* same = b_.CreateFAdd(x, llvm::ConstantFP::get(ty, M_LN2));
  return b_.CreateSelect(b_.CreateFCmpOEQ(x, y), same, general);
}

llvm::Value* ScalarOps::binary(EwOp op, llvm::Value* x, llvm::Value* y, DType t) {
  const bool fl = types::is_float(t);
  const bool uns = types::is_unsigned(t);
  if (t == DType::Bool) {
    switch (op) {
      case EwOp::Add: case EwOp::Or: case EwOp::Max: return b_.CreateOr(x, y);
      case EwOp::Mul: case EwOp::And: case EwOp::Min: return b_.CreateAnd(x, y);
      case EwOp::Xor: case EwOp::Ne: return b_.CreateXor(x, y);
      default: throw std::runtime_error(std::string(ew_op_name(op)) + " is not defined for bool");
    }
  }
  switch (op) {
    case EwOp::Add: return fl ? b_.CreateFAdd(x, y) : b_.CreateAdd(x, y);
    case EwOp::Sub: return fl ? b_.CreateFSub(x, y) : b_.CreateSub(x, y);
    case EwOp::Mul: return fl ? b_.CreateFMul(x, y) : b_.CreateMul(x, y);
    case EwOp::Div: return fl ? b_.CreateFDiv(x, y) : int_divmod(op, x, y, uns);
    case EwOp::Rem: return fl ? b_.CreateFRem(x, y) : int_divmod(op, x, y, uns);
    case EwOp::FloorDiv: case EwOp::Mod: return fl ? float_floordiv_mod(op, x, y) : int_divmod(op, x, y, uns);
    case EwOp::Max: case EwOp::Min: {
      if (uns) return intrinsic(op == EwOp::Max ? llvm::Intrinsic::umax : llvm::Intrinsic::umin, {x, y});
      if (!fl) return intrinsic(op == EwOp::Max ? llvm::Intrinsic::smax : llvm::Intrinsic::smin, {x, y});
      // numpy: (a >= b || isnan(a)) ? a : b, which propagates NaN from either side.
      auto* keep = op == EwOp::Max ? b_.CreateFCmpOGE(x, y) : b_.CreateFCmpOLE(x, y);
      return b_.CreateSelect(b_.CreateOr(keep, b_.CreateFCmpUNO(x, x)), x, y);
    }
    case EwOp::Pow: {
      if (fl) return intrinsic(llvm::Intrinsic::pow, {x, y});
      auto* i64 = b_.getInt64Ty();
      auto fn = m_.getOrInsertFunction("shard_ipow_i64", llvm::FunctionType::get(i64, {i64, i64}, false));
      // Unsigned operands zero-extend (their exponents are never negative); the product
      // wraps mod 2**64, so its low bits are the narrow type's wrapped power.
      auto ext = [&](llvm::Value* v) { return uns ? b_.CreateZExt(v, i64) : b_.CreateSExt(v, i64); };
      auto* call = b_.CreateCall(fn, {ext(x), ext(y)});
      call->setDoesNotThrow();
      call->setDoesNotAccessMemory();
      return b_.CreateTrunc(call, x->getType());
    }
    case EwOp::And: if (!fl) return b_.CreateAnd(x, y); break;
    case EwOp::Or: if (!fl) return b_.CreateOr(x, y); break;
    case EwOp::Xor: if (!fl) return b_.CreateXor(x, y); break;
    case EwOp::Atan2: if (fl) return libm("atan2f", "atan2", {x, y}); break;
    case EwOp::NextAfter: if (fl) return libm("nextafterf", "nextafter", {x, y}); break;
    case EwOp::LogAddExp: if (fl) return logaddexp(x, y); break;
    case EwOp::Polygamma: if (fl) return libm("shard_polygamma_f32", "shard_polygamma_f64", {x, y}); break;
    case EwOp::Igamma: if (fl) return libm("shard_igamma_f32", "shard_igamma_f64", {x, y}); break;
    case EwOp::Igammac: if (fl) return libm("shard_igammac_f32", "shard_igammac_f64", {x, y}); break;
    case EwOp::IgammaGradA: if (fl) return libm("shard_igamma_grad_a_f32", "shard_igamma_grad_a_f64", {x, y}); break;
    case EwOp::Zeta: if (fl) return libm("shard_zeta_f32", "shard_zeta_f64", {x, y}); break;
    case EwOp::Expn: if (fl) return libm("shard_expn_f32", "shard_expn_f64", {x, y}); break;
    default: break;
  }
  throw std::runtime_error(std::string(ew_op_name(op)) + " is not defined for " + std::string(types::dtype_name(t)));
}

}  // namespace shard::codegen
