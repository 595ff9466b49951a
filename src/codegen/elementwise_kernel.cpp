#include "codegen/elementwise_kernel.hpp"

#include <fmt/format.h>

#include <cmath>
#include <mutex>
#include <stdexcept>

#include "codegen/scalar_ops.hpp"
#include "jit/kernel_jit.hpp"
#include "jit/llvm_headers.hpp"

namespace shard::codegen {


std::string ElementwiseKernel::signature() const {
  std::string s = fmt::format("ew[{}]", fmt::join(shape, "x"));
  for (auto& in : inputs) s += fmt::format("|in:{}:{}@{}", types::dtype_name(in.dtype), fmt::join(in.strides, ","), in.offset);
  for (auto& n : nodes) {
    s += fmt::format("|{}:{}", ew_op_name(n.op), types::dtype_name(n.dtype));
    if (n.op == EwOp::Input) s += fmt::format("#{}", n.input);
    if (n.op == EwOp::Const || n.op == EwOp::IntegerPow) s += fmt::format("={:a}", n.const_value);
    for (int a : n.args) s += fmt::format(",{}", a);
  }
  s += fmt::format("|out:{}:{}@{}", fmt::join(outputs, ","), fmt::join(out_strides, ","), out_offset);
  return s;
}

namespace {

// Merges adjacent dims that every input (and the contiguous output) walks with one stride,
// so a broadcast-free elementwise op becomes one flat loop.
struct LoopShape {
  std::vector<int64_t> extent;
  std::vector<std::vector<int64_t>> in_strides;  // [input][dim]
  std::vector<int64_t> out_strides;
};

LoopShape collapse_dims(const ElementwiseKernel& k) {
  const size_t rank = k.shape.size();
  std::vector<int64_t> out_strides(rank, 1);
  for (size_t d = rank; d-- > 1;) out_strides[d - 1] = out_strides[d] * k.shape[d];
  if (!k.out_strides.empty()) out_strides = k.out_strides;
  LoopShape ls;
  ls.in_strides.resize(k.inputs.size());
  for (size_t d = 0; d < rank; ++d) {
    if (k.shape[d] == 1) continue;  // size-1 dims contribute nothing to addressing
    bool merge = !ls.extent.empty();
    if (merge) {
      const int64_t prev = ls.extent.back();
      if (ls.out_strides.back() != out_strides[d] * k.shape[d]) merge = false;
      for (size_t i = 0; merge && i < k.inputs.size(); ++i)
        if (ls.in_strides[i].back() != k.inputs[i].strides[d] * k.shape[d]) merge = false;
      (void)prev;
    }
    if (merge) {
      ls.extent.back() *= k.shape[d];
      ls.out_strides.back() = out_strides[d];
      for (size_t i = 0; i < k.inputs.size(); ++i) ls.in_strides[i].back() = k.inputs[i].strides[d];
    } else {
      ls.extent.push_back(k.shape[d]);
      ls.out_strides.push_back(out_strides[d]);
      for (size_t i = 0; i < k.inputs.size(); ++i) ls.in_strides[i].push_back(k.inputs[i].strides[d]);
    }
  }
  return ls;
}

llvm::Type* storage_type(llvm::LLVMContext& c, types::DType t) {
  switch (t) {
    case types::DType::Bool: return llvm::Type::getInt8Ty(c);
    case types::DType::U8: return llvm::Type::getInt8Ty(c);
    case types::DType::U16: return llvm::Type::getInt16Ty(c);
    case types::DType::I32: case types::DType::U32: return llvm::Type::getInt32Ty(c);
    case types::DType::I64: return llvm::Type::getInt64Ty(c);
    case types::DType::F32: return llvm::Type::getFloatTy(c);
    case types::DType::F64: return llvm::Type::getDoubleTy(c);
    case types::DType::F16: return llvm::Type::getHalfTy(c);
    case types::DType::BF16: return llvm::Type::getBFloatTy(c);
  }
  return nullptr;
}

class EwEmitter {
 public:
  EwEmitter(jit::ModuleHandle& mh, const ElementwiseKernel& k) : mh_(mh), c_(mh.context()), b_(c_), k_(k) {}

  void emit(const std::string& name) {
    llvm::Function* impl = emit_impl(name + ".impl");
    const size_t nin = k_.inputs.size(), nout = k_.outputs.size();
    auto* ptr = b_.getPtrTy();
    auto* wrap_ty = llvm::FunctionType::get(b_.getVoidTy(), {ptr, ptr}, false);
    auto* wrap = llvm::Function::Create(wrap_ty, llvm::Function::ExternalLinkage, name, mh_.module());
    b_.SetInsertPoint(llvm::BasicBlock::Create(c_, "entry", wrap));
    std::vector<llvm::Value*> args;
    for (size_t i = 0; i < nin; ++i)
      args.push_back(b_.CreateLoad(ptr, b_.CreateConstGEP1_64(ptr, wrap->getArg(0), i)));
    for (size_t i = 0; i < nout; ++i)
      args.push_back(b_.CreateLoad(ptr, b_.CreateConstGEP1_64(ptr, wrap->getArg(1), i)));
    b_.CreateCall(impl, args);
    b_.CreateRetVoid();
  }

  // The internal function holding the loops: impl(noalias in..., noalias out...).
  llvm::Function* emit_impl(const std::string& impl_name) {
    LoopShape ls = collapse_dims(k_);
    auto* ptr = b_.getPtrTy();
    const size_t nin = k_.inputs.size(), nout = k_.outputs.size();
    // impl(noalias ptr in..., noalias ptr out...) holds the loops; the exported wrapper
    // unpacks the pointer arrays. noalias lets the vectoriser skip runtime overlap checks.
    std::vector<llvm::Type*> params(nin + nout, ptr);
    auto* impl_ty = llvm::FunctionType::get(b_.getVoidTy(), params, false);
    auto* impl = llvm::Function::Create(impl_ty, llvm::Function::InternalLinkage, impl_name, mh_.module());
    for (size_t i = 0; i < nin + nout; ++i) impl->addParamAttr(i, llvm::Attribute::NoAlias);
    for (size_t i = 0; i < nin; ++i) impl->addParamAttr(i, llvm::Attribute::ReadOnly);
    impl->addFnAttr(llvm::Attribute::NoUnwind);
    fn_ = impl;
    auto* entry = llvm::BasicBlock::Create(c_, "entry", impl);
    b_.SetInsertPoint(entry);
    std::vector<llvm::Value*> in_off;
    for (auto& in : k_.inputs) in_off.push_back(b_.getInt64(in.offset));
    llvm::Value* out_off = b_.getInt64(k_.out_offset);
    emit_loops(ls, 0, in_off, out_off);
    b_.CreateRetVoid();
    return impl;
  }

 private:
  // Emits the loop over dim `d` (or the body when d == rank); offsets are in elements.
  void emit_loops(const LoopShape& ls, size_t d, std::vector<llvm::Value*> in_off, llvm::Value* out_off) {
    if (d == ls.extent.size()) {
      emit_body(in_off, out_off);
      return;
    }
    auto* i64 = b_.getInt64Ty();
    auto* pre = b_.GetInsertBlock();
    auto* body = llvm::BasicBlock::Create(c_, fmt::format("loop{}", d), fn_);
    auto* exit = llvm::BasicBlock::Create(c_, fmt::format("exit{}", d), fn_);
    b_.CreateBr(body);
    b_.SetInsertPoint(body);
    auto* iv = b_.CreatePHI(i64, 2, fmt::format("i{}", d));
    iv->addIncoming(b_.getInt64(0), pre);
    std::vector<llvm::Value*> inner_in(in_off.size());
    for (size_t i = 0; i < in_off.size(); ++i)
      inner_in[i] = ls.in_strides[i][d] == 0 ? in_off[i]
                                              : b_.CreateAdd(in_off[i], b_.CreateMul(iv, b_.getInt64(ls.in_strides[i][d])));
    auto* inner_out = b_.CreateAdd(out_off, b_.CreateMul(iv, b_.getInt64(ls.out_strides[d])));
    emit_loops(ls, d + 1, inner_in, inner_out);
    auto* next = b_.CreateAdd(iv, b_.getInt64(1), "", true, true);
    iv->addIncoming(next, b_.GetInsertBlock());
    b_.CreateCondBr(b_.CreateICmpSLT(next, b_.getInt64(ls.extent[d])), body, exit);
    b_.SetInsertPoint(exit);
  }

  void emit_body(const std::vector<llvm::Value*>& in_off, llvm::Value* out_off) {
    std::vector<llvm::Value*> vals(k_.nodes.size());
    ScalarOps ops(b_, mh_.module());
    for (size_t n = 0; n < k_.nodes.size(); ++n) {
      const EwNode& node = k_.nodes[n];
      if (node.op == EwOp::Input) {
        auto dt = k_.inputs[node.input].dtype;
        auto* p = b_.CreateGEP(storage_type(c_, dt), fn_->getArg(node.input), in_off[node.input]);
        vals[n] = ops.from_storage(b_.CreateLoad(storage_type(c_, dt), p), dt);
        continue;
      }
      std::vector<llvm::Value*> args;
      std::vector<types::DType> arg_types;
      for (int a : node.args) {
        args.push_back(vals[a]);
        arg_types.push_back(k_.nodes[a].dtype);
      }
      vals[n] = ops.emit(node, args, arg_types);
    }
    for (size_t o = 0; o < k_.outputs.size(); ++o) {
      const EwNode& node = k_.nodes[k_.outputs[o]];
      auto* st = storage_type(c_, node.dtype);
      auto* p = b_.CreateGEP(st, fn_->getArg(k_.inputs.size() + o), out_off);
      b_.CreateStore(ops.to_storage(vals[k_.outputs[o]], node.dtype), p);
    }
  }

  jit::ModuleHandle& mh_;
  llvm::LLVMContext& c_;
  llvm::IRBuilder<> b_;
  const ElementwiseKernel& k_;
  llvm::Function* fn_ = nullptr;
};

void validate(const ElementwiseKernel& k) {
  for (auto& in : k.inputs)
    if (in.strides.size() != k.shape.size()) throw std::logic_error("internal error: elementwise input rank mismatch");
  if (!k.out_strides.empty() && k.out_strides.size() != k.shape.size())
    throw std::logic_error("internal error: elementwise output rank mismatch");
  for (size_t n = 0; n < k.nodes.size(); ++n) {
    auto& node = k.nodes[n];
    if (node.dtype == types::DType::F16 || node.dtype == types::DType::BF16)
      throw std::runtime_error(fmt::format("{} arithmetic is not supported yet (storage only)", types::dtype_name(node.dtype)));
    if (node.op == EwOp::Input && (node.input < 0 || size_t(node.input) >= k.inputs.size()))
      throw std::logic_error("internal error: elementwise input index out of range");
    for (int a : node.args)
      if (a < 0 || size_t(a) >= n) throw std::logic_error("internal error: elementwise node uses a later node");
  }
  for (int o : k.outputs)
    if (o < 0 || size_t(o) >= k.nodes.size()) throw std::logic_error("internal error: bad elementwise output");
}

}  // namespace

llvm::Function* emit_elementwise_function(jit::ModuleHandle& mh, const ElementwiseKernel& k, const std::string& name) {
  validate(k);
  return EwEmitter(mh, k).emit_impl(name);
}

EwFn compile_elementwise(jit::KernelJit& jit, const ElementwiseKernel& k, std::string* optimised_ir) {
  validate(k);
  static std::atomic<uint64_t> counter{0};
  std::string name = fmt::format("ew_kernel_{}", counter++);
  jit::ModuleHandle mh(name);
  register_scalar_runtime(jit);
  EwEmitter(mh, k).emit(name);
  jit.add(std::move(mh), optimised_ir);
  return jit.lookup_fn<void(const void* const*, void* const*)>(name);
}

}  // namespace shard::codegen
