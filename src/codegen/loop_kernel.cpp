#include "codegen/loop_kernel.hpp"

#include "runtime/device_runtime.hpp"

#include <fmt/format.h>

#include <atomic>
#include <functional>
#include <stdexcept>

#include "codegen/loop_storage.hpp"
#include "codegen/scalar_ops.hpp"
#include "jit/kernel_jit.hpp"
#include "jit/llvm_headers.hpp"

namespace shard::codegen {

namespace {

const char* stmt_name(LoopStmt::Kind k) {
  switch (k) {
    case LoopStmt::Kind::Elementwise: return "ew";
    case LoopStmt::Kind::Reduce: return "reduce";
    case LoopStmt::Kind::Copy: return "copy";
    case LoopStmt::Kind::DynamicSlice: return "dslice";
    case LoopStmt::Kind::DynamicUpdateSlice: return "dupdate";
    case LoopStmt::Kind::While: return "while";
    case LoopStmt::Kind::Scan: return "scan";
    case LoopStmt::Kind::Cond: return "cond";
    case LoopStmt::Kind::Call: return "call";
  }
  return "?";
}

void append_block(std::string& s, const std::vector<LoopStmt>& block);

void append_stmt(std::string& s, const LoopStmt& st) {
  s += fmt::format("{}({};{})", stmt_name(st.kind), fmt::join(st.in, ","), fmt::join(st.out, ","));
  switch (st.kind) {
    case LoopStmt::Kind::Elementwise: s += "{" + st.ew.signature() + "}"; break;
    case LoopStmt::Kind::Reduce: s += "{" + st.reduce.signature() + "}"; break;
    case LoopStmt::Kind::Copy: s += fmt::format("{}", st.bytes); break;
    case LoopStmt::Kind::DynamicSlice: case LoopStmt::Kind::DynamicUpdateSlice: {
      s += fmt::format("[{}][{}]{}", fmt::join(st.shape, "x"), fmt::join(st.sizes, "x"), st.elem_bytes);
      for (auto t : st.index_dtypes) s += fmt::format(":{}", types::dtype_name(t));
      break;
    }
    case LoopStmt::Kind::Call:  // the address too: two callees may share a name in tests
      s += fmt::format("{}@{}[{}]", st.callee_name, reinterpret_cast<uintptr_t>(st.callee), fmt::join(st.params, ","));
      break;
    case LoopStmt::Kind::While: case LoopStmt::Kind::Scan: case LoopStmt::Kind::Cond: {
      s += fmt::format("c{}n{}{}", st.cond, st.length, st.reverse ? "r" : "");
      for (auto& c : st.carries)
        s += fmt::format("|carry:{},{},{},{},{},{}{}", c.cur, c.spare, c.a, c.b, c.init, c.bytes, c.in_place ? "i" : "");
      for (auto& x : st.xs) s += fmt::format("|x:{},{},{}", x.view, x.base, x.bytes);
      for (auto& y : st.ys) s += fmt::format("|y:{},{},{}", y.view, y.base, y.bytes);
      for (auto& b : st.blocks) append_block(s, b);
      break;
    }
  }
}

void append_block(std::string& s, const std::vector<LoopStmt>& block) {
  s += "{";
  for (auto& st : block) {
    append_stmt(s, st);
    s += ";";
  }
  s += "}";
}

// Walks the statements and reports uses of undefined vars before LLVM would crash on them.
void validate(const LoopKernel& k) {
  auto check_var = [&](int v) {
    if (v < 0 || static_cast<size_t>(v) >= k.vars.size()) throw std::logic_error("internal error: loop kernel var out of range");
  };
  for (auto& v : k.vars) {
    if (v.kind == LoopVar::Kind::Alias) check_var(v.base);
    if (v.kind == LoopVar::Kind::Input && (v.index < 0 || v.index >= k.num_inputs))
      throw std::logic_error("internal error: loop kernel input out of range");
    if (v.kind == LoopVar::Kind::Output && (v.index < 0 || v.index >= k.num_outputs))
      throw std::logic_error("internal error: loop kernel output out of range");
  }
  std::function<void(const std::vector<LoopStmt>&)> walk = [&](const std::vector<LoopStmt>& block) {
    for (auto& st : block) {
      for (int v : st.in) check_var(v);
      for (int v : st.out) check_var(v);
      for (auto& c : st.carries) {
        for (int v : {c.cur, c.spare, c.a, c.init}) check_var(v);
        if (!c.in_place) check_var(c.b);
      }
      for (auto& b : st.blocks) walk(b);
    }
  };
  walk(k.body);
}

class LoopEmitter {
 public:
  LoopEmitter(jit::ModuleHandle& mh, const LoopKernel& k) : mh_(mh), c_(mh.context()), b_(c_), k_(k) {}

  void emit(const std::string& name) {
    name_ = name;
    auto* ptr = b_.getPtrTy();
    auto* fty = llvm::FunctionType::get(b_.getVoidTy(), {ptr, ptr, ptr}, false);
    fn_ = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, name, mh_.module());
    fn_->addFnAttr(llvm::Attribute::NoUnwind);
    b_.SetInsertPoint(llvm::BasicBlock::Create(c_, "entry", fn_));
    define_vars();
    emit_block(k_.body);
    b_.CreateRetVoid();
  }

 private:
  // Every var that is not Bound gets its pointer here, in the entry block (so allocas are
  // promotable and every pointer dominates its uses).
  void define_vars() {
    auto* ptr = b_.getPtrTy();
    ptr_.assign(k_.vars.size(), nullptr);
    const LoopStorage storage = plan_loop_storage(k_);
    for (size_t i = 0; i < k_.vars.size(); ++i) {
      const LoopVar& v = k_.vars[i];
      switch (v.kind) {
        case LoopVar::Kind::Input:
          ptr_[i] = b_.CreateLoad(ptr, b_.CreateConstGEP1_64(ptr, fn_->getArg(0), static_cast<uint64_t>(v.index)));
          break;
        case LoopVar::Kind::Output:
          ptr_[i] = b_.CreateLoad(ptr, b_.CreateConstGEP1_64(ptr, fn_->getArg(1), static_cast<uint64_t>(v.index)));
          break;
        case LoopVar::Kind::Local:
          if (storage.on_stack[i]) {
            auto* a = b_.CreateAlloca(llvm::ArrayType::get(b_.getInt8Ty(), static_cast<uint64_t>(std::max<int64_t>(v.bytes, 1))));
            a->setAlignment(llvm::Align(16));
            ptr_[i] = a;
          } else {  // (a var never referenced has no bytes: any pointer does)
            const int64_t at = std::max<int64_t>(storage.scratch_offset[i], 0);
            ptr_[i] = b_.CreateConstGEP1_64(b_.getInt8Ty(), fn_->getArg(2), static_cast<uint64_t>(at));
          }
          break;
        case LoopVar::Kind::Literal: {
          auto* data = llvm::ConstantDataArray::getRaw(v.literal, v.literal.size(), b_.getInt8Ty());
          auto* g = new llvm::GlobalVariable(mh_.module(), data->getType(), true, llvm::GlobalValue::PrivateLinkage, data,
                                             fmt::format("{}.lit{}", name_, i));
          g->setAlignment(llvm::Align(16));
          ptr_[i] = g;
          break;
        }
        case LoopVar::Kind::Alias: case LoopVar::Kind::Bound: break;
      }
    }
  }

  llvm::Value* ptr(int v) {
    while (k_.vars[static_cast<size_t>(v)].kind == LoopVar::Kind::Alias) v = k_.vars[static_cast<size_t>(v)].base;
    llvm::Value* p = ptr_[static_cast<size_t>(v)];
    if (!p) throw std::logic_error(fmt::format("internal error: loop kernel var {} used outside the statement that binds it", v));
    return p;
  }

  std::string fresh_name(const char* what) { return fmt::format("{}.{}{}", name_, what, counter_++); }

  void emit_block(const std::vector<LoopStmt>& block) {
    for (const auto& st : block) emit_stmt(st);
  }

  void emit_stmt(const LoopStmt& st) {
    switch (st.kind) {
      case LoopStmt::Kind::Elementwise: {
        int64_t n = 1;
        for (auto d : st.ew.shape) n *= d;
        if (n == 0) return;  // the element loops run at least once: nothing to do must emit nothing
        auto* f = emit_elementwise_function(mh_, st.ew, fresh_name("ew"));
        std::vector<llvm::Value*> args;
        for (int v : st.in) args.push_back(ptr(v));
        for (int v : st.out) args.push_back(ptr(v));
        b_.CreateCall(f, args);
        return;
      }
      case LoopStmt::Kind::Reduce: {
        auto* f = emit_reduce_function(mh_, st.reduce, fresh_name("reduce"));
        b_.CreateCall(f, {ptr(st.in[0]), ptr(st.out[0])});
        return;
      }
      case LoopStmt::Kind::Copy: return copy(ptr(st.out[0]), ptr(st.in[0]), st.bytes);
      case LoopStmt::Kind::DynamicSlice: case LoopStmt::Kind::DynamicUpdateSlice: return emit_dynamic_slice(st);
      case LoopStmt::Kind::While: return emit_while(st);
      case LoopStmt::Kind::Scan: return emit_scan(st);
      case LoopStmt::Kind::Cond: return emit_cond(st);
      case LoopStmt::Kind::Call: return emit_call(st);
    }
  }

  // callee(params, in, out): the parameters a constant array, the pointers arrays on the stack.
  void emit_call(const LoopStmt& st) {
    auto* ptr_ty = b_.getPtrTy();
    auto* i64 = b_.getInt64Ty();
    auto* params = llvm::ConstantDataArray::get(c_, llvm::ArrayRef<uint64_t>(reinterpret_cast<const uint64_t*>(st.params.data()), st.params.size()));
    auto* params_global = new llvm::GlobalVariable(mh_.module(), params->getType(), true, llvm::GlobalValue::PrivateLinkage, params,
                                                   fresh_name("params"));
    auto pointer_array = [&](const std::vector<int>& vars) -> llvm::Value* {
      auto* ty = llvm::ArrayType::get(ptr_ty, std::max<size_t>(vars.size(), 1));
      llvm::AllocaInst* a;
      {  // in the entry block, so it is one stack slot however often the call runs
        llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
        a = entry.CreateAlloca(ty);
      }
      for (size_t i = 0; i < vars.size(); ++i) b_.CreateStore(ptr(vars[i]), b_.CreateConstGEP2_64(ty, a, 0, i));
      return a;
    };
    llvm::Value* in = pointer_array(st.in);
    llvm::Value* out = pointer_array(st.out);
    auto* fty = llvm::FunctionType::get(b_.getVoidTy(), {ptr_ty, ptr_ty, ptr_ty}, false);
    auto* callee = llvm::ConstantExpr::getIntToPtr(llvm::ConstantInt::get(i64, reinterpret_cast<uintptr_t>(st.callee)), ptr_ty);
    b_.CreateCall(fty, callee, {params_global, in, out});
  }

  // (llvm.memcpy allows a source equal to the destination: a carry whose final buffer may
  // be its destination.)
  void copy(llvm::Value* dst, llvm::Value* src, int64_t bytes) {
    if (bytes > 0 && dst != src) b_.CreateMemCpy(dst, llvm::MaybeAlign(1), src, llvm::MaybeAlign(1), static_cast<uint64_t>(bytes));
  }

  // for (iv = 0; iv < n; ++iv) body(iv), for n > 0 known here.
  template <class Body>
  void counted_loop(int64_t n, Body body) {
    auto* pre = b_.GetInsertBlock();
    auto* head = llvm::BasicBlock::Create(c_, "rows", fn_);
    auto* exit = llvm::BasicBlock::Create(c_, "rows.exit", fn_);
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

  // Start indices are clamped into range as XLA does (the interpreter path's rule).
  void emit_dynamic_slice(const LoopStmt& st) {
    const bool update = st.kind == LoopStmt::Kind::DynamicUpdateSlice;
    const size_t rank = st.shape.size(), first_index = update ? 2 : 1;
    int64_t total = st.elem_bytes, block = st.elem_bytes;
    for (size_t d = 0; d < rank; ++d) {
      total *= st.shape[d];
      block *= st.sizes[d];
    }
    if (update && ptr(st.out[0]) != ptr(st.in[0])) copy(ptr(st.out[0]), ptr(st.in[0]), total);
    if (block == 0) return;
    // Element offset of the block's first element in the whole array.
    llvm::Value* start = b_.getInt64(0);
    std::vector<int64_t> strides(rank, 1);
    for (size_t d = rank; d-- > 1;) strides[d - 1] = strides[d] * st.shape[d];
    for (size_t d = 0; d < rank; ++d) {
      const bool i64 = st.index_dtypes[d] == types::DType::I64;
      llvm::Value* raw = b_.CreateLoad(i64 ? b_.getInt64Ty() : b_.getInt32Ty(), ptr(st.in[first_index + d]));
      if (!i64) raw = b_.CreateSExt(raw, b_.getInt64Ty());
      llvm::Value* clamped = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, raw, b_.getInt64(0));
      clamped = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, clamped, b_.getInt64(st.shape[d] - st.sizes[d]));
      start = b_.CreateAdd(start, b_.CreateMul(clamped, b_.getInt64(strides[d])));
    }
    llvm::Value* whole = update ? ptr(st.out[0]) : ptr(st.in[0]);
    llvm::Value* part = update ? ptr(st.in[1]) : ptr(st.out[0]);
    std::vector<int64_t> part_strides(rank, 1);
    for (size_t d = rank; d-- > 1;) part_strides[d - 1] = part_strides[d] * st.sizes[d];
    const int64_t row_bytes = rank ? st.sizes[rank - 1] * st.elem_bytes : st.elem_bytes;
    // Rows of the last dim are contiguous on both sides: one memcpy each.
    std::function<void(size_t, llvm::Value*, llvm::Value*)> rows = [&](size_t d, llvm::Value* whole_at, llvm::Value* part_at) {
      if (rank == 0 || d + 1 >= rank) {
        auto* w = b_.CreateGEP(b_.getInt8Ty(), whole, b_.CreateMul(whole_at, b_.getInt64(st.elem_bytes)));
        auto* p = b_.CreateGEP(b_.getInt8Ty(), part, b_.CreateMul(part_at, b_.getInt64(st.elem_bytes)));
        if (update) copy(w, p, row_bytes);
        else copy(p, w, row_bytes);
        return;
      }
      counted_loop(st.sizes[d], [&](llvm::Value* iv) {
        rows(d + 1, b_.CreateAdd(whole_at, b_.CreateMul(iv, b_.getInt64(strides[d]))),
             b_.CreateAdd(part_at, b_.CreateMul(iv, b_.getInt64(part_strides[d]))));
      });
    };
    rows(0, start, b_.getInt64(0));
  }

  bool swaps(const LoopCarry& c) const { return !c.in_place && c.bytes > kLoopStackBytes; }

  // Loop entry: init copied into buffer a. Returns the pointer phis of swapped carries.
  std::vector<std::pair<llvm::PHINode*, llvm::PHINode*>> enter_carries(const LoopStmt& st, llvm::BasicBlock* pre) {
    std::vector<std::pair<llvm::PHINode*, llvm::PHINode*>> phis;
    for (const auto& c : st.carries) {
      if (swaps(c)) {
        auto* cur = b_.CreatePHI(b_.getPtrTy(), 2, "cur");
        auto* spare = b_.CreatePHI(b_.getPtrTy(), 2, "spare");
        cur->addIncoming(ptr(c.a), pre);
        spare->addIncoming(ptr(c.b), pre);
        ptr_[static_cast<size_t>(c.cur)] = cur;
        ptr_[static_cast<size_t>(c.spare)] = spare;
        phis.emplace_back(cur, spare);
      } else {
        ptr_[static_cast<size_t>(c.cur)] = ptr(c.a);
        ptr_[static_cast<size_t>(c.spare)] = ptr(c.in_place ? c.a : c.b);
        phis.emplace_back(nullptr, nullptr);
      }
    }
    return phis;
  }

  void copy_inits(const LoopStmt& st) {
    for (const auto& c : st.carries) copy(ptr(c.a), ptr(c.init), c.bytes);
  }

  // End of an iteration: the next values (in spare) become the current ones.
  void advance_carries(const LoopStmt& st, const std::vector<std::pair<llvm::PHINode*, llvm::PHINode*>>& phis) {
    auto* latch = b_.GetInsertBlock();
    for (size_t i = 0; i < st.carries.size(); ++i) {
      const auto& c = st.carries[i];
      if (phis[i].first) {
        phis[i].first->addIncoming(phis[i].second, latch);
        phis[i].second->addIncoming(phis[i].first, latch);
      } else if (!c.in_place) {
        copy(ptr(c.a), ptr(c.b), c.bytes);
      }
    }
  }

  // Ctrl-C: every loop iteration reads the runtime's cancel flag (one load the loop keeps; the
  // step that ran the kernel then raises), so an endless while_loop can be stopped.
  llvm::Value* not_cancelled() {
    auto* addr = b_.CreateIntToPtr(b_.getInt64(reinterpret_cast<uint64_t>(runtime::cancel_flag_address())), b_.getPtrTy());
    auto* flag = b_.CreateLoad(b_.getInt32Ty(), addr);
    flag->setVolatile(true);
    return b_.CreateICmpEQ(flag, b_.getInt32(0));
  }

  void emit_while(const LoopStmt& st) {
    copy_inits(st);
    auto* pre = b_.GetInsertBlock();
    auto* head = llvm::BasicBlock::Create(c_, "while.cond", fn_);
    auto* body = llvm::BasicBlock::Create(c_, "while.body", fn_);
    auto* exit = llvm::BasicBlock::Create(c_, "while.exit", fn_);
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    auto phis = enter_carries(st, pre);
    emit_block(st.blocks[0]);
    auto* go = b_.CreateICmpNE(b_.CreateLoad(b_.getInt8Ty(), ptr(st.cond)), b_.getInt8(0));
    b_.CreateCondBr(b_.CreateAnd(go, not_cancelled()), body, exit);
    b_.SetInsertPoint(body);
    emit_block(st.blocks[1]);
    advance_carries(st, phis);
    b_.CreateBr(head);
    b_.SetInsertPoint(exit);
  }

  void emit_scan(const LoopStmt& st) {
    copy_inits(st);
    auto* pre = b_.GetInsertBlock();
    auto* head = llvm::BasicBlock::Create(c_, "scan.head", fn_);
    auto* body = llvm::BasicBlock::Create(c_, "scan.body", fn_);
    auto* exit = llvm::BasicBlock::Create(c_, "scan.exit", fn_);
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    auto* it = b_.CreatePHI(b_.getInt64Ty(), 2, "it");
    it->addIncoming(b_.getInt64(0), pre);
    auto phis = enter_carries(st, pre);
    b_.CreateCondBr(b_.CreateAnd(b_.CreateICmpSLT(it, b_.getInt64(st.length)), not_cancelled()), body, exit);
    b_.SetInsertPoint(body);
    llvm::Value* i = st.reverse ? b_.CreateSub(b_.getInt64(st.length - 1), it) : it;
    for (const auto* slices : {&st.xs, &st.ys})
      for (const auto& s : *slices)
        ptr_[static_cast<size_t>(s.view)] = b_.CreateGEP(b_.getInt8Ty(), ptr(s.base), b_.CreateMul(i, b_.getInt64(s.bytes)));
    emit_block(st.blocks[0]);
    advance_carries(st, phis);
    it->addIncoming(b_.CreateAdd(it, b_.getInt64(1), "", true, true), b_.GetInsertBlock());
    b_.CreateBr(head);
    b_.SetInsertPoint(exit);
    // The slices are meaningless after the loop.
    for (const auto* slices : {&st.xs, &st.ys})
      for (const auto& s : *slices) ptr_[static_cast<size_t>(s.view)] = nullptr;
  }

  void emit_cond(const LoopStmt& st) {
    const auto n = static_cast<int32_t>(st.blocks.size());
    llvm::Value* index = b_.CreateLoad(b_.getInt32Ty(), ptr(st.cond));
    index = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, index, b_.getInt32(0));
    index = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, index, b_.getInt32(n - 1));
    auto* merge = llvm::BasicBlock::Create(c_, "cond.merge", fn_);
    std::vector<llvm::BasicBlock*> branches;
    for (int32_t i = 0; i < n; ++i) branches.push_back(llvm::BasicBlock::Create(c_, fmt::format("cond.branch{}", i), fn_));
    auto* sw = b_.CreateSwitch(index, branches[0], static_cast<unsigned>(n - 1));
    for (int32_t i = 1; i < n; ++i) sw->addCase(b_.getInt32(i), branches[static_cast<size_t>(i)]);
    for (int32_t i = 0; i < n; ++i) {
      b_.SetInsertPoint(branches[static_cast<size_t>(i)]);
      emit_block(st.blocks[static_cast<size_t>(i)]);
      b_.CreateBr(merge);
    }
    b_.SetInsertPoint(merge);
  }

  jit::ModuleHandle& mh_;
  llvm::LLVMContext& c_;
  llvm::IRBuilder<> b_;
  const LoopKernel& k_;
  llvm::Function* fn_ = nullptr;
  std::string name_;
  std::vector<llvm::Value*> ptr_;  // per var: its pointer where the emission currently is
  int counter_ = 0;
};

}  // namespace

int64_t LoopKernel::scratch_bytes() const { return plan_loop_storage(*this).scratch_bytes; }

std::string LoopKernel::signature() const {
  std::string s = fmt::format("loop{}->{}", num_inputs, num_outputs);
  for (auto& v : vars) {
    s += fmt::format("|v{}:{}:{}:{}", static_cast<int>(v.kind), v.index, v.bytes, v.base);
    if (v.kind == LoopVar::Kind::Literal)
      for (unsigned char ch : v.literal) s += fmt::format("{:02x}", ch);
  }
  append_block(s, body);
  return s;
}

LoopFn compile_loop_kernel(jit::KernelJit& jit, const LoopKernel& k, std::string* optimised_ir) {
  validate(k);
  static std::atomic<uint64_t> counter{0};
  std::string name = fmt::format("loop_kernel_{}", counter++);
  jit::ModuleHandle mh(name);
  register_scalar_runtime(jit);
  LoopEmitter(mh, k).emit(name);
  jit.add(std::move(mh), optimised_ir);
  return jit.lookup_fn<void(const void* const*, void* const*, void*)>(name);
}

}  // namespace shard::codegen
