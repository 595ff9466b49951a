// Column kernels (ElementwiseKernel::rows with `columns`): reductions down dim 0 of a
// [length, columns] iteration space (reductions over leading dims: sum(a, 0), var(a, 0),
// any(a > c, 0)) fused with the elementwise work before and after them. Columns are taken in
// blocks whose accumulators live on the stack; each reduction walks the block's rows in
// order, combining a whole contiguous run of columns per row (a loop the vectoriser widens),
// and the outputs are written last. Values are combined in row order, as the plain reduce
// kernel does for leading dims, so results do not depend on the block size.
#include <stdexcept>

#include "codegen/loop_builder.hpp"
#include "codegen/row_reduce_kernel.hpp"
#include "codegen/scalar_ops.hpp"

namespace shard::codegen {

namespace {

using types::DType;

constexpr int64_t kColumnBlock = 4096;  // columns per block: whole rows of most arrays, accumulators in L1/L2

enum Level : uint8_t { kUniform = 0, kPerColumn = 1, kPerElement = 2 };

class ColumnEmitter {
 public:
  ColumnEmitter(jit::ModuleHandle& mh, const ElementwiseKernel& k) : mh_(mh), c_(mh.context()), b_(c_), k_(k), ops_(b_, mh.module()) {}

  void emit(const std::string& name) {
    auto* ptr = b_.getPtrTy();
    const size_t nin = k_.inputs.size(), nout = k_.outputs.size();
    fn_ = begin_kernel_function(b_, mh_.module(), name + ".impl", nin, nout, llvm::Function::InternalLinkage);
    levels();
    const int64_t cols = k_.shape[1], block = std::min(kColumnBlock, std::max<int64_t>(cols, 1));
    acc_.assign(k_.nodes.size(), nullptr);
    for (size_t n = 0; n < k_.nodes.size(); ++n)
      if (k_.nodes[n].reduces_row) {
        auto* a = b_.CreateAlloca(reg_storage(k_.nodes[n].dtype), b_.getInt64(block));
        a->setAlignment(llvm::Align(64));
        acc_[n] = a;
      }
    counted_loop(b_, b_.getInt64(0), b_.getInt64(cols), block, "block", [&](llvm::Value* c0) {
      llvm::Value* width = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b_.getInt64(block), b_.CreateSub(b_.getInt64(cols), c0));
      emit_block(c0, width);
    });
    b_.CreateRetVoid();

    auto* wrap = llvm::Function::Create(llvm::FunctionType::get(b_.getVoidTy(), {ptr, ptr}, false), llvm::Function::ExternalLinkage,
                                        name, mh_.module());
    b_.SetInsertPoint(llvm::BasicBlock::Create(c_, "entry", wrap));
    std::vector<llvm::Value*> args;
    for (size_t i = 0; i < nin; ++i) args.push_back(b_.CreateLoad(ptr, b_.CreateConstGEP1_64(ptr, wrap->getArg(0), i)));
    for (size_t i = 0; i < nout; ++i) args.push_back(b_.CreateLoad(ptr, b_.CreateConstGEP1_64(ptr, wrap->getArg(1), i)));
    b_.CreateCall(fn_, args);
    b_.CreateRetVoid();
  }

 private:
  // Accumulators are kept in registers' types; bool (i1) is stored as a byte.
  llvm::Type* reg_storage(DType t) { return storage_type(c_, t); }

  void levels() {
    level_.resize(k_.nodes.size());
    for (size_t n = 0; n < k_.nodes.size(); ++n) {
      const EwNode& node = k_.nodes[n];
      Level l = kUniform;
      if (node.op == EwOp::Input) {
        const auto& s = k_.inputs[node.input].strides;
        l = s[0] != 0 ? kPerElement : s[1] != 0 ? kPerColumn : kUniform;
      } else if (node.reduces_row) {
        l = kPerColumn;
      } else {
        for (int a : node.args) l = std::max(l, level_[a]);
      }
      level_[n] = l;
    }
  }

  // Node n at row r (null outside a row loop) and column c0 + c.
  llvm::Value* value(int n, llvm::Value* r, llvm::Value* c0, llvm::Value* c, std::vector<llvm::Value*>& memo) {
    if (memo[n]) return memo[n];
    const EwNode& node = k_.nodes[n];
    if (node.reduces_row) {
      auto* st = reg_storage(node.dtype);
      return memo[n] = ops_.from_storage(b_.CreateLoad(st, b_.CreateGEP(st, acc_[n], c)), node.dtype);
    }
    if (node.op == EwOp::Input) {
      const EwInput& in = k_.inputs[node.input];
      if (in.strides[0] && !r) throw std::logic_error("internal error: a per-element value read per column");
      llvm::Value* off = b_.getInt64(in.offset);
      if (in.strides[0]) off = b_.CreateAdd(off, b_.CreateMul(r, b_.getInt64(in.strides[0])));
      if (in.strides[1]) off = b_.CreateAdd(off, b_.CreateMul(b_.CreateAdd(c0, c), b_.getInt64(in.strides[1])));
      auto* st = storage_type(c_, in.dtype);
      return memo[n] = ops_.from_storage(b_.CreateLoad(st, b_.CreateGEP(st, fn_->getArg(node.input), off)), in.dtype);
    }
    std::vector<llvm::Value*> args;
    std::vector<DType> arg_types;
    for (int a : node.args) {
      args.push_back(value(a, r, c0, c, memo));
      arg_types.push_back(k_.nodes[a].dtype);
    }
    return memo[n] = ops_.emit(node, args, arg_types);
  }

  llvm::Value* identity(EwOp op, DType t) {
    auto* ty = register_type(c_, t);
    if (types::is_float(t)) {
      if (op == EwOp::Max || op == EwOp::Min) return llvm::ConstantFP::getInfinity(ty, op == EwOp::Max);
      return llvm::ConstantFP::get(ty, op == EwOp::Mul ? 1.0 : 0.0);
    }
    const unsigned bits = ty->getIntegerBitWidth();
    const bool uns = types::is_unsigned(t) || t == DType::Bool;
    switch (op) {
      case EwOp::Max: return llvm::ConstantInt::get(ty, uns ? llvm::APInt::getMinValue(bits) : llvm::APInt::getSignedMinValue(bits));
      case EwOp::Min: return llvm::ConstantInt::get(ty, uns ? llvm::APInt::getMaxValue(bits) : llvm::APInt::getSignedMaxValue(bits));
      case EwOp::Mul: case EwOp::And: return llvm::ConstantInt::get(ty, t == DType::Bool ? 1 : (op == EwOp::And ? -1 : 1), true);
      default: return llvm::ConstantInt::get(ty, 0);
    }
  }

  void emit_block(llvm::Value* c0, llvm::Value* width) {
    const int64_t length = k_.shape[0];
    for (size_t n = 0; n < k_.nodes.size(); ++n) {
      const EwNode& node = k_.nodes[n];
      if (!node.reduces_row) continue;
      auto* st = reg_storage(node.dtype);
      counted_loop(b_, b_.getInt64(0), width, 1, "init", [&](llvm::Value* c) {
        b_.CreateStore(ops_.to_storage(identity(node.op, node.dtype), node.dtype), b_.CreateGEP(st, acc_[n], c));
      });
      counted_loop(b_, b_.getInt64(0), b_.getInt64(length), 1, "down", [&](llvm::Value* r) {
        counted_loop(b_, b_.getInt64(0), width, 1, "across", [&](llvm::Value* c) {
          std::vector<llvm::Value*> memo(k_.nodes.size(), nullptr);
          llvm::Value* x = value(node.args[0], r, c0, c, memo);
          auto* p = b_.CreateGEP(st, acc_[n], c);
          llvm::Value* acc = ops_.from_storage(b_.CreateLoad(st, p), node.dtype);
          EwNode combine{node.op, node.dtype, {0, 1}};
          b_.CreateStore(ops_.to_storage(ops_.emit(combine, {acc, x}, {node.dtype, node.dtype}), node.dtype), p);
        });
      });
    }
    const bool per_column_out = !k_.out_strides.empty() && k_.out_strides[0] == 0;
    const int64_t out_row_stride = k_.out_strides.empty() ? k_.shape[1] : k_.out_strides[0];
    auto store = [&](size_t o, llvm::Value* v, llvm::Value* off) {
      const DType t = k_.nodes[k_.outputs[o]].dtype;
      auto* st = storage_type(c_, t);
      b_.CreateStore(ops_.to_storage(v, t), b_.CreateGEP(st, fn_->getArg(k_.inputs.size() + o), off));
    };
    if (per_column_out) {
      counted_loop(b_, b_.getInt64(0), width, 1, "out", [&](llvm::Value* c) {
        std::vector<llvm::Value*> memo(k_.nodes.size(), nullptr);
        for (size_t o = 0; o < k_.outputs.size(); ++o) {
          if (level_[k_.outputs[o]] == kPerElement) throw std::logic_error("internal error: a per-element value as a per-column output");
          store(o, value(k_.outputs[o], nullptr, c0, c, memo), b_.CreateAdd(b_.getInt64(k_.out_offset), b_.CreateAdd(c0, c)));
        }
      });
      return;
    }
    counted_loop(b_, b_.getInt64(0), b_.getInt64(length), 1, "rows", [&](llvm::Value* r) {
      llvm::Value* row = b_.CreateAdd(b_.getInt64(k_.out_offset), b_.CreateMul(r, b_.getInt64(out_row_stride)));
      counted_loop(b_, b_.getInt64(0), width, 1, "out", [&](llvm::Value* c) {
        std::vector<llvm::Value*> memo(k_.nodes.size(), nullptr);
        for (size_t o = 0; o < k_.outputs.size(); ++o) store(o, value(k_.outputs[o], r, c0, c, memo), b_.CreateAdd(row, b_.CreateAdd(c0, c)));
      });
    });
  }

  jit::ModuleHandle& mh_;
  llvm::LLVMContext& c_;
  llvm::IRBuilder<> b_;
  const ElementwiseKernel& k_;
  ScalarOps ops_;
  llvm::Function* fn_ = nullptr;
  std::vector<Level> level_;
  std::vector<llvm::Value*> acc_;  // per reduction node: its block of accumulators
};

}  // namespace

void emit_column_kernel(jit::ModuleHandle& mh, const ElementwiseKernel& k, const std::string& name) { ColumnEmitter(mh, k).emit(name); }

}  // namespace shard::codegen
