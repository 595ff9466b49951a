#include "codegen/reduce_kernel.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "codegen/reduce_forms.hpp"
#include "codegen/scalar_ops.hpp"
#include "jit/kernel_jit.hpp"
#include "jit/llvm_headers.hpp"

namespace shard::codegen {

using types::DType;

std::string ReduceKernel::signature() const {
  std::string mask;
  for (bool r : reduced) mask += r ? 'r' : 'k';
  const char* form_name = form == ReduceForm::ArgReduce ? "arg" : form == ReduceForm::Cumulative ? (reverse ? "cumrev" : "cum") : "";
  return fmt::format("{}reduce_{}:{}[{}]{}", form_name, reduce_kind_name(kind), types::dtype_name(dtype), fmt::join(shape, "x"), mask);
}

bool jit_supports(const ReduceKernel& k) {
  if (k.form == ReduceForm::Reduce) return true;
  int64_t axis_len = -1, reduced_dims = 0;
  for (size_t d = 0; d < k.shape.size(); ++d)
    if (k.reduced[d]) axis_len = k.shape[d], ++reduced_dims;
  if (reduced_dims != 1) return false;
  return k.form != ReduceForm::ArgReduce || axis_len > 0;
}

AxisSplit split_at_axis(const ReduceKernel& k) {
  AxisSplit s;
  bool seen = false;
  for (size_t d = 0; d < k.shape.size(); ++d) {
    if (k.reduced[d]) seen = true, s.len = k.shape[d];
    else (seen ? s.inner : s.outer) *= k.shape[d];
  }
  return s;
}

double reduce_identity(ReduceKind kind, DType t) {
  const bool fl = types::is_float(t);
  switch (kind) {
    case ReduceKind::Sum: case ReduceKind::Or: return 0;
    case ReduceKind::Prod: case ReduceKind::And: return 1;
    case ReduceKind::Max:
      return fl ? -std::numeric_limits<double>::infinity()
                : t == DType::I32 ? double(std::numeric_limits<int32_t>::min())
                : t == DType::Bool || types::is_unsigned(t) ? 0 : double(std::numeric_limits<int64_t>::min());
    case ReduceKind::Min:
      return fl ? std::numeric_limits<double>::infinity()
                : t == DType::I32 ? double(std::numeric_limits<int32_t>::max())
                : types::is_unsigned(t) ? std::ldexp(1.0, 8 * int(types::dtype_size(t))) - 1
                : t == DType::Bool ? 1 : double(std::numeric_limits<int64_t>::max());
  }
  return 0;
}

namespace {

struct Dim { int64_t extent; bool reduced; int64_t in_stride, out_stride; };

// Merges adjacent dims of the same class (both reduced or both kept); size-1 dims vanish.
std::vector<Dim> collapse(const ReduceKernel& k) {
  std::vector<Dim> dims;
  for (size_t d = 0; d < k.shape.size(); ++d) {
    if (k.shape[d] == 1) continue;
    if (!dims.empty() && dims.back().reduced == k.reduced[d]) dims.back().extent *= k.shape[d];
    else dims.push_back({k.shape[d], k.reduced[d], 0, 0});
  }
  int64_t in_s = 1, out_s = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    dims[d].in_stride = in_s;
    in_s *= dims[d].extent;
    dims[d].out_stride = dims[d].reduced ? 0 : out_s;
    if (!dims[d].reduced) out_s *= dims[d].extent;
  }
  return dims;
}

class ReduceEmitter {
 public:
  ReduceEmitter(jit::ModuleHandle& mh, const ReduceKernel& k) : mh_(mh), c_(mh.context()), b_(c_), k_(k), ops_(b_, mh.module()) {}

  void emit(const std::string& name) {
    auto* ptr = b_.getPtrTy();
    auto* fty = llvm::FunctionType::get(b_.getVoidTy(), {ptr, ptr}, false);
    fn_ = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, name, mh_.module());
    fn_->addParamAttr(0, llvm::Attribute::NoAlias);
    fn_->addParamAttr(1, llvm::Attribute::NoAlias);
    fn_->addFnAttr(llvm::Attribute::NoUnwind);
    b_.SetInsertPoint(llvm::BasicBlock::Create(c_, "entry", fn_));
    llvm::FastMathFlags fmf;
    fmf.setAllowReassoc();  // lets the vectoriser reorder the accumulation (numpy's sum is pairwise too)
    b_.setFastMathFlags(fmf);

    dims_ = collapse(k_);
    int64_t out_elems = 1;
    for (auto& d : dims_) if (!d.reduced) out_elems *= d.extent;
    elem_ty_ = storage(k_.dtype);
    // The loops below run their body at least once: an empty output or input emits none.
    bool empty_input = false;
    for (auto& d : dims_) empty_input |= d.extent == 0;
    // out[:] = identity
    if (out_elems > 0)
      loop(out_elems, "init", [&](llvm::Value* i) {
        b_.CreateStore(ops_.to_storage(identity(k_.dtype), k_.dtype), b_.CreateGEP(elem_ty_, fn_->getArg(1), i));
      });
    // A trailing reduced run is reduced in a register.
    inner_run_ = !dims_.empty() && dims_.back().reduced;
    if (!empty_input) nest(0, b_.getInt64(0), b_.getInt64(0));
    b_.CreateRetVoid();
  }

 private:
  llvm::Type* storage(DType t) {
    switch (t) {
      case DType::Bool: return b_.getInt8Ty();
      case DType::U8: return b_.getInt8Ty();
      case DType::U16: return b_.getInt16Ty();
      case DType::I32: case DType::U32: return b_.getInt32Ty();
      case DType::I64: return b_.getInt64Ty();
      case DType::F32: return b_.getFloatTy();
      case DType::F64: return b_.getDoubleTy();
      case DType::F16: case DType::BF16: return b_.getInt16Ty();
    }
    throw std::logic_error("internal error: unknown dtype in a reduction");
  }
  llvm::Value* identity(DType t) {
    if (types::is_int(t) && (k_.kind == ReduceKind::Max || k_.kind == ReduceKind::Min)) {
      // Exact integer extremes: INT64_MAX does not survive a trip through double.
      const unsigned bits = storage(t)->getIntegerBitWidth();
      auto v = types::is_unsigned(t) ? (k_.kind == ReduceKind::Max ? llvm::APInt::getMinValue(bits) : llvm::APInt::getMaxValue(bits))
             : k_.kind == ReduceKind::Max ? llvm::APInt::getSignedMinValue(bits) : llvm::APInt::getSignedMaxValue(bits);
      return llvm::ConstantInt::get(storage(t), v);
    }
    double v = reduce_identity(k_.kind, t);
    if (t == DType::Bool) return b_.getInt1(v != 0);
    if (types::is_float(t)) return llvm::ConstantFP::get(ops_.register_type(t), v);
    return llvm::ConstantInt::get(storage(t), static_cast<uint64_t>(static_cast<int64_t>(v)), true);
  }
  EwOp combine_op() const {
    switch (k_.kind) {
      case ReduceKind::Sum: return EwOp::Add;
      case ReduceKind::Prod: return EwOp::Mul;
      case ReduceKind::Max: return EwOp::Max;
      case ReduceKind::Min: return EwOp::Min;
      case ReduceKind::And: return EwOp::And;
      case ReduceKind::Or: return EwOp::Or;
    }
    return EwOp::Add;
  }
  llvm::Value* combine(llvm::Value* acc, llvm::Value* x, DType t) {
    EwNode node{combine_op(), t, {0, 1}};
    return ops_.emit(node, {acc, x}, {t, t});
  }

  template <class Body>
  void loop(int64_t n, const char* tag, Body body) {
    auto* pre = b_.GetInsertBlock();
    auto* head = llvm::BasicBlock::Create(c_, tag, fn_);
    auto* exit = llvm::BasicBlock::Create(c_, std::string(tag) + ".exit", fn_);
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    auto* iv = b_.CreatePHI(b_.getInt64Ty(), 2);
    iv->addIncoming(b_.getInt64(0), pre);
    body(iv);
    auto* next = b_.CreateAdd(iv, b_.getInt64(1), "", true, true);
    iv->addIncoming(next, b_.GetInsertBlock());
    b_.CreateCondBr(b_.CreateICmpSLT(next, b_.getInt64(n)), head, exit);
    b_.SetInsertPoint(exit);
  }

  void nest(size_t d, llvm::Value* in_off, llvm::Value* out_off) {
    auto* in = fn_->getArg(0);
    auto* out = fn_->getArg(1);
    if (inner_run_ && d + 1 == dims_.size()) {
      // Register accumulation over the contiguous trailing run.
      const bool widen = k_.kind == ReduceKind::Sum && k_.dtype == DType::F32;
      const DType acc_t = widen ? DType::F64 : k_.dtype;  // float16 / bfloat16: rounded after every step
      auto* pre = b_.GetInsertBlock();
      auto* head = llvm::BasicBlock::Create(c_, "run", fn_);
      auto* exit = llvm::BasicBlock::Create(c_, "run.exit", fn_);
      b_.CreateBr(head);
      b_.SetInsertPoint(head);
      auto* iv = b_.CreatePHI(b_.getInt64Ty(), 2);
      auto* acc = b_.CreatePHI(ops_.register_type(acc_t), 2);
      iv->addIncoming(b_.getInt64(0), pre);
      acc->addIncoming(identity(acc_t), pre);
      auto* x = ops_.from_storage(b_.CreateLoad(elem_ty_, b_.CreateGEP(elem_ty_, in, b_.CreateAdd(in_off, iv))), k_.dtype);
      if (widen) x = b_.CreateFPExt(x, b_.getDoubleTy());
      // Float max/min as llvm.maximum/minimum (NaN-propagating, like numpy's): the loop
      // vectoriser knows them as a reduction; the select form of combine() it does not.
      const bool float_extreme = types::is_float(acc_t) && (k_.kind == ReduceKind::Max || k_.kind == ReduceKind::Min);
      auto* next_acc = float_extreme ? b_.CreateBinaryIntrinsic(k_.kind == ReduceKind::Max ? llvm::Intrinsic::maximum : llvm::Intrinsic::minimum, acc, x)
                                     : combine(acc, x, acc_t);
      auto* next = b_.CreateAdd(iv, b_.getInt64(1), "", true, true);
      iv->addIncoming(next, head);
      acc->addIncoming(next_acc, head);
      b_.CreateCondBr(b_.CreateICmpSLT(next, b_.getInt64(dims_.back().extent)), head, exit);
      b_.SetInsertPoint(exit);
      llvm::Value* total = next_acc;
      if (widen) total = b_.CreateFPTrunc(total, b_.getFloatTy());
      auto* p = b_.CreateGEP(elem_ty_, out, out_off);
      auto* cur = ops_.from_storage(b_.CreateLoad(elem_ty_, p), k_.dtype);
      b_.CreateStore(ops_.to_storage(combine(cur, total, k_.dtype), k_.dtype), p);
      return;
    }
    if (d == dims_.size()) {
      auto* x = ops_.from_storage(b_.CreateLoad(elem_ty_, b_.CreateGEP(elem_ty_, in, in_off)), k_.dtype);
      auto* p = b_.CreateGEP(elem_ty_, out, out_off);
      auto* cur = ops_.from_storage(b_.CreateLoad(elem_ty_, p), k_.dtype);
      b_.CreateStore(ops_.to_storage(combine(cur, x, k_.dtype), k_.dtype), p);
      return;
    }
    const Dim dim = dims_[d];
    loop(dim.extent, "dim", [&](llvm::Value* iv) {
      auto* in2 = b_.CreateAdd(in_off, b_.CreateMul(iv, b_.getInt64(dim.in_stride)));
      auto* out2 = dim.out_stride ? b_.CreateAdd(out_off, b_.CreateMul(iv, b_.getInt64(dim.out_stride))) : out_off;
      nest(d + 1, in2, out2);
    });
  }

  jit::ModuleHandle& mh_;
  llvm::LLVMContext& c_;
  llvm::IRBuilder<> b_;
  const ReduceKernel& k_;
  ScalarOps ops_;
  llvm::Function* fn_ = nullptr;
  llvm::Type* elem_ty_ = nullptr;
  std::vector<Dim> dims_;
  bool inner_run_ = false;
};

}  // namespace

llvm::Function* emit_reduce_function(jit::ModuleHandle& mh, const ReduceKernel& k, const std::string& name) {
  if (k.reduced.size() != k.shape.size()) throw std::logic_error("internal error: reduce mask rank mismatch");
  ReduceEmitter(mh, k).emit(name);
  llvm::Function* fn = mh.module().getFunction(name);
  fn->setLinkage(llvm::Function::InternalLinkage);
  return fn;
}

ReduceFn compile_reduce(jit::KernelJit& jit, const ReduceKernel& k, std::string* optimised_ir) {
  if (k.reduced.size() != k.shape.size()) throw std::logic_error("internal error: reduce mask rank mismatch");
  if (!jit_supports(k)) throw std::logic_error("internal error: a reduction kernel the generator does not support");
  static std::atomic<uint64_t> counter{0};
  std::string name = fmt::format("reduce_kernel_{}", counter++);
  jit::ModuleHandle mh(name);
  register_scalar_runtime(jit);
  switch (k.form) {
    case ReduceForm::Reduce: ReduceEmitter(mh, k).emit(name); break;
    case ReduceForm::ArgReduce: emit_arg_reduce(mh, k, name); break;
    case ReduceForm::Cumulative: emit_cumulative(mh, k, name); break;
  }
  jit.add(std::move(mh), optimised_ir);
  return jit.lookup_fn<void(const void*, void*)>(name);
}

}  // namespace shard::codegen
