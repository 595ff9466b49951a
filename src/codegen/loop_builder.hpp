// Small pieces every kernel generator in codegen/ uses: the storage type of a dtype and a
// counted loop. Only codegen .cpp files include this header (it pulls in LLVM).
#pragma once
#include <string>
#include <vector>

#include "jit/llvm_headers.hpp"
#include "types/dtype.hpp"

namespace shard::codegen {

// How a dtype is laid out in memory (bool is one byte; in registers it is i1; float16 and
// bfloat16 are their i16 bit patterns, float32 in registers: codegen/half_float_ir).
inline llvm::Type* storage_type(llvm::LLVMContext& c, types::DType t) {
  switch (t) {
    case types::DType::Bool: case types::DType::U8: return llvm::Type::getInt8Ty(c);
    case types::DType::U16: return llvm::Type::getInt16Ty(c);
    case types::DType::I32: case types::DType::U32: return llvm::Type::getInt32Ty(c);
    case types::DType::I64: return llvm::Type::getInt64Ty(c);
    case types::DType::F32: return llvm::Type::getFloatTy(c);
    case types::DType::F64: return llvm::Type::getDoubleTy(c);
    case types::DType::F16: case types::DType::BF16: return llvm::Type::getInt16Ty(c);
  }
  return nullptr;
}

// The type a dtype's values have in registers (ScalarOps::from_storage gives it).
inline llvm::Type* register_type(llvm::LLVMContext& c, types::DType t) {
  if (t == types::DType::Bool) return llvm::Type::getInt1Ty(c);
  if (t == types::DType::F16 || t == types::DType::BF16) return llvm::Type::getFloatTy(c);
  return storage_type(c, t);
}

// A kernel function `void name(ptr in_0, ..., ptr out_0, ...)`: every pointer noalias, the
// inputs read-only, no unwinding; the builder is left at its entry block.
inline llvm::Function* begin_kernel_function(llvm::IRBuilder<>& b, llvm::Module& m, const std::string& name, size_t nin,
                                             size_t nout, llvm::GlobalValue::LinkageTypes linkage) {
  std::vector<llvm::Type*> params(nin + nout, b.getPtrTy());
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), params, false), linkage, name, m);
  for (size_t i = 0; i < nin + nout; ++i) fn->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::NoAlias);
  for (size_t i = 0; i < nin; ++i) fn->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::ReadOnly);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  b.SetInsertPoint(llvm::BasicBlock::Create(b.getContext(), "entry", fn));
  return fn;
}

// for (i = begin; i < end; i += step) body(i), with `end` an i64 value; the body runs zero
// times when begin >= end. `body` may create blocks: the back edge leaves from wherever the
// builder stands when it returns. Returns that back edge (for loop metadata).
template <class Body>
llvm::BranchInst* counted_loop(llvm::IRBuilder<>& b, llvm::Value* begin, llvm::Value* end, int64_t step, const std::string& tag, Body body) {
  auto& c = b.getContext();
  auto* fn = b.GetInsertBlock()->getParent();
  auto* pre = b.GetInsertBlock();
  auto* head = llvm::BasicBlock::Create(c, tag, fn);
  auto* exit = llvm::BasicBlock::Create(c, tag + ".exit", fn);
  b.CreateCondBr(b.CreateICmpSLT(begin, end), head, exit);
  b.SetInsertPoint(head);
  auto* iv = b.CreatePHI(b.getInt64Ty(), 2, tag + ".i");
  iv->addIncoming(begin, pre);
  body(static_cast<llvm::Value*>(iv));
  auto* next = b.CreateAdd(iv, b.getInt64(step), "", true, true);
  iv->addIncoming(next, b.GetInsertBlock());
  auto* back = b.CreateCondBr(b.CreateICmpSLT(next, end), head, exit);
  b.SetInsertPoint(exit);
  return back;
}

// Asks the loop vectoriser to widen the loop ending in `back` by `width` lanes and the
// unroller to leave it alone (a loop of exactly one vector: unrolled first, the loop around
// it would be vectorised instead, with gathers).
inline void vectorise_as_is(llvm::BranchInst* back, unsigned width) {
  auto& c = back->getContext();
  auto flag = [&](const char* name, llvm::Constant* v) -> llvm::Metadata* {
    return llvm::MDNode::get(c, {llvm::MDString::get(c, name), llvm::ConstantAsMetadata::get(v)});
  };
  auto* i32 = llvm::Type::getInt32Ty(c);
  llvm::Metadata* ops[] = {nullptr, llvm::MDNode::get(c, {llvm::MDString::get(c, "llvm.loop.unroll.disable")}),
                           flag("llvm.loop.vectorize.enable", llvm::ConstantInt::getTrue(c)),
                           flag("llvm.loop.vectorize.width", llvm::ConstantInt::get(i32, width))};
  auto* md = llvm::MDNode::getDistinct(c, ops);
  md->replaceOperandWith(0, md);
  back->setMetadata(llvm::LLVMContext::MD_loop, md);
}

}  // namespace shard::codegen

namespace shard::codegen {

// counted_loop with loop-carried values: body(i, carried) returns the next carried values;
// the result is the carried values after the loop (`init` when it does not run).
template <class Body>
std::vector<llvm::Value*> carried_loop(llvm::IRBuilder<>& b, llvm::Value* begin, llvm::Value* end, int64_t step,
                                       const std::string& tag, const std::vector<llvm::Value*>& init, Body body) {
  auto& c = b.getContext();
  auto* fn = b.GetInsertBlock()->getParent();
  auto* pre = b.GetInsertBlock();
  auto* head = llvm::BasicBlock::Create(c, tag, fn);
  auto* exit = llvm::BasicBlock::Create(c, tag + ".exit", fn);
  b.CreateCondBr(b.CreateICmpSLT(begin, end), head, exit);
  b.SetInsertPoint(head);
  auto* iv = b.CreatePHI(b.getInt64Ty(), 2, tag + ".i");
  iv->addIncoming(begin, pre);
  std::vector<llvm::PHINode*> phis;
  std::vector<llvm::Value*> carried;
  for (auto* v : init) {
    phis.push_back(b.CreatePHI(v->getType(), 2));
    phis.back()->addIncoming(v, pre);
    carried.push_back(phis.back());
  }
  std::vector<llvm::Value*> next_carried = body(static_cast<llvm::Value*>(iv), carried);
  auto* latch = b.GetInsertBlock();
  auto* next = b.CreateAdd(iv, b.getInt64(step), "", true, true);
  iv->addIncoming(next, latch);
  for (size_t i = 0; i < phis.size(); ++i) phis[i]->addIncoming(next_carried[i], latch);
  b.CreateCondBr(b.CreateICmpSLT(next, end), head, exit);
  b.SetInsertPoint(exit);
  std::vector<llvm::Value*> out;
  for (size_t i = 0; i < init.size(); ++i) {
    auto* phi = b.CreatePHI(init[i]->getType(), 2);
    phi->addIncoming(init[i], pre);
    phi->addIncoming(next_carried[i], latch);
    out.push_back(phi);
  }
  return out;
}

}  // namespace shard::codegen
