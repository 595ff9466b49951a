// Row kernels: for each row, the row-level nodes (per-row inputs, constants, reductions and
// what is computed from them) are emitted once, in node order; each reduction is a loop over
// the row that evaluates its argument's per-element nodes inside it; a last loop writes the
// per-element outputs. A row is read from memory by the first loop and from cache after
// (rows of a few thousand elements fit in L1/L2), so softmax or layernorm costs one read and
// one write of the array. Cheap per-element work is recomputed in each loop that needs it;
// a transcendental one needed by several loops (exp in softmax's sum and in its output) is
// kept in a row buffer on the stack by the first loop and read back by the later ones.
//
// Reductions vectorise as the plain reduce kernel's do: the accumulation is marked
// reassociable, float32 sums accumulate in float64, float max/min are llvm.maximum/minimum
// (NaN-propagating, as numpy).
#include "codegen/row_reduce_kernel.hpp"

#include <stdexcept>

#include "codegen/loop_builder.hpp"
#include "codegen/reduce_kernel.hpp"
#include "codegen/scalar_ops.hpp"

namespace shard::codegen {

namespace {

using types::DType;

enum Level : uint8_t { kUniform = 0, kPerRow = 1, kPerElement = 2 };

class RowEmitter {
 public:
  RowEmitter(jit::ModuleHandle& mh, const ElementwiseKernel& k) : mh_(mh), c_(mh.context()), b_(c_), k_(k), ops_(b_, mh.module()) {}

  void emit(const std::string& name) {
    auto* ptr = b_.getPtrTy();
    const size_t nin = k_.inputs.size(), nout = k_.outputs.size();
    fn_ = begin_kernel_function(b_, mh_.module(), name + ".impl", nin, nout, llvm::Function::InternalLinkage);
    levels();
    plan_row_buffers();
    const int64_t rows = k_.shape[0];
    counted_loop(b_, b_.getInt64(0), b_.getInt64(rows), 1, "row", [&](llvm::Value* r) { emit_row(r); });
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
  void levels() {
    level_.resize(k_.nodes.size());
    for (size_t n = 0; n < k_.nodes.size(); ++n) {
      const EwNode& node = k_.nodes[n];
      Level l = kUniform;
      if (node.op == EwOp::Input) {
        const auto& s = k_.inputs[node.input].strides;
        l = s[1] != 0 ? kPerElement : s[0] != 0 ? kPerRow : kUniform;
      } else if (node.reduces_row) {
        l = kPerRow;
      } else {
        for (int a : node.args) l = std::max(l, level_[a]);
      }
      level_[n] = l;
    }
  }

  // The per-element nodes a loop computing `root` evaluates (root included).
  void collect(int n, std::vector<bool>& seen) const {
    if (seen[n] || level_[n] != kPerElement) return;
    seen[n] = true;
    for (int a : k_.nodes[n].args) collect(a, seen);
  }

  // Which per-element values are worth a row buffer: transcendental (or computed from one),
  // evaluated by two loops or more, and floating (rows up to kMaxBufferedRow elements).
  void plan_row_buffers() {
    constexpr int64_t kMaxBufferedRow = 16384;
    const size_t n = k_.nodes.size();
    buffer_.assign(n, nullptr);
    buffered_.assign(n, false);
    if (k_.shape[1] > kMaxBufferedRow) return;
    std::vector<int> loops_using(n, 0);
    auto count = [&](int root) {
      std::vector<bool> seen(n, false);
      collect(root, seen);
      for (size_t i = 0; i < n; ++i) loops_using[i] += seen[i];
    };
    for (size_t i = 0; i < n; ++i)
      if (k_.nodes[i].reduces_row) count(k_.nodes[i].args[0]);
    if (k_.out_strides.empty() || k_.out_strides[1] != 0)
      for (int o : k_.outputs) count(o);  // one write loop for all outputs
    std::vector<bool> costly(n, false);
    llvm::IRBuilder<>::InsertPointGuard guard(b_);
    b_.SetInsertPoint(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    for (size_t i = 0; i < n; ++i) {
      const EwNode& node = k_.nodes[i];
      if (level_[i] != kPerElement || node.op == EwOp::Input) continue;
      costly[i] = ir::ew_info(node.op).transcendental;
      for (int a : node.args) costly[i] = costly[i] || costly[a];
      if (costly[i] && loops_using[i] >= 2 && types::is_float(node.dtype)) {
        auto* a = b_.CreateAlloca(register_type(c_, node.dtype), b_.getInt64(k_.shape[1]));  // register values
        a->setAlignment(llvm::Align(64));
        buffer_[i] = a;
      }
    }
  }

  llvm::Value* load_input(const EwNode& node, llvm::Value* r, llvm::Value* j) {
    const EwInput& in = k_.inputs[node.input];
    llvm::Value* off = b_.getInt64(in.offset);
    if (in.strides[0]) off = b_.CreateAdd(off, b_.CreateMul(r, b_.getInt64(in.strides[0])));
    if (j && in.strides[1]) off = b_.CreateAdd(off, b_.CreateMul(j, b_.getInt64(in.strides[1])));
    auto* st = storage_type(c_, in.dtype);
    return ops_.from_storage(b_.CreateLoad(st, b_.CreateGEP(st, fn_->getArg(node.input), off)), in.dtype);
  }

  llvm::Value* apply(const EwNode& node, const std::vector<llvm::Value*>& vals) {
    std::vector<llvm::Value*> args;
    std::vector<DType> arg_types;
    for (int a : node.args) {
      args.push_back(vals[a]);
      arg_types.push_back(k_.nodes[a].dtype);
    }
    return ops_.emit(node, args, arg_types);
  }

  // Node n at element j of row r, inside a loop over the row: per-element nodes are computed
  // here (memoised per loop), row-level ones were computed before the loop.
  llvm::Value* at_element(int n, llvm::Value* r, llvm::Value* j, std::vector<llvm::Value*>& memo) {
    if (memo[n]) return memo[n];
    const EwNode& node = k_.nodes[n];
    if (level_[n] != kPerElement) return memo[n] = row_vals_[n];
    if (node.op == EwOp::Input) return memo[n] = load_input(node, r, j);
    auto* st = buffer_[n] ? register_type(c_, node.dtype) : nullptr;
    if (buffer_[n] && buffered_[n]) return memo[n] = b_.CreateLoad(st, b_.CreateGEP(st, buffer_[n], j));
    for (int a : node.args) at_element(a, r, j, memo);
    memo[n] = apply(node, memo);
    if (buffer_[n]) {  // the first loop to compute it keeps it for the later ones
      b_.CreateStore(memo[n], b_.CreateGEP(st, buffer_[n], j));
      stored_in_loop_.push_back(n);
    }
    return memo[n];
  }

  // After a loop over the row: the values it kept are read back from here on.
  void end_loop() {
    for (int n : stored_in_loop_) buffered_[n] = true;
    stored_in_loop_.clear();
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

  llvm::Value* reduce(int n, llvm::Value* r) {
    const EwNode& node = k_.nodes[n];
    const int arg = node.args[0];
    const DType t = node.dtype;
    const bool widen = node.op == EwOp::Add && t == DType::F32;  // as the reduce kernel: f32 sums in f64
    const DType acc_t = widen ? DType::F64 : t;
    auto total = carried_loop(b_, b_.getInt64(0), b_.getInt64(k_.shape[1]), 1, "reduce", {identity(node.op, acc_t)},
                              [&](llvm::Value* j, const std::vector<llvm::Value*>& acc) -> std::vector<llvm::Value*> {
      std::vector<llvm::Value*> memo(k_.nodes.size(), nullptr);
      llvm::Value* x = at_element(arg, r, j, memo);
      if (widen) x = b_.CreateFPExt(x, b_.getDoubleTy());
      llvm::Value* next;
      if (types::is_float(acc_t) && (node.op == EwOp::Max || node.op == EwOp::Min)) {
        next = b_.CreateBinaryIntrinsic(node.op == EwOp::Max ? llvm::Intrinsic::maximum : llvm::Intrinsic::minimum, acc[0], x);
      } else {
        EwNode combine{node.op, acc_t, {0, 1}};
        next = ops_.emit(combine, {acc[0], x}, {acc_t, acc_t});
      }
      // Reassociable, so the vectoriser may keep one partial result per lane.
      if (auto* inst = llvm::dyn_cast<llvm::Instruction>(next); inst && llvm::isa<llvm::FPMathOperator>(inst)) inst->setHasAllowReassoc(true);
      return {next};
    })[0];
    end_loop();
    return widen ? b_.CreateFPTrunc(total, b_.getFloatTy()) : total;
  }

  void emit_row(llvm::Value* r) {
    row_vals_.assign(k_.nodes.size(), nullptr);
    for (size_t n = 0; n < k_.nodes.size(); ++n) {
      const EwNode& node = k_.nodes[n];
      if (level_[n] == kPerElement) continue;  // computed inside the loops that read it
      if (node.reduces_row) row_vals_[n] = reduce(static_cast<int>(n), r);
      else if (node.op == EwOp::Input) row_vals_[n] = load_input(node, r, nullptr);
      else row_vals_[n] = apply(node, row_vals_);
    }
    const bool per_row_out = !k_.out_strides.empty() && k_.out_strides[1] == 0;
    const int64_t out_row_stride = k_.out_strides.empty() ? k_.shape[1] : k_.out_strides[0];
    llvm::Value* out_row = b_.CreateAdd(b_.getInt64(k_.out_offset), b_.CreateMul(r, b_.getInt64(out_row_stride)));
    auto store = [&](size_t o, llvm::Value* v, llvm::Value* off) {
      const DType t = k_.nodes[k_.outputs[o]].dtype;
      auto* st = storage_type(c_, t);
      b_.CreateStore(ops_.to_storage(v, t), b_.CreateGEP(st, fn_->getArg(k_.inputs.size() + o), off));
    };
    if (per_row_out) {
      for (size_t o = 0; o < k_.outputs.size(); ++o) {
        const int n = k_.outputs[o];
        if (level_[n] == kPerElement) throw std::logic_error("internal error: a per-element value as a per-row output");
        store(o, row_vals_[n], out_row);
      }
      return;
    }
    counted_loop(b_, b_.getInt64(0), b_.getInt64(k_.shape[1]), 1, "write", [&](llvm::Value* j) {
      std::vector<llvm::Value*> memo(k_.nodes.size(), nullptr);
      for (size_t o = 0; o < k_.outputs.size(); ++o) store(o, at_element(k_.outputs[o], r, j, memo), b_.CreateAdd(out_row, j));
    });
  }

  jit::ModuleHandle& mh_;
  llvm::LLVMContext& c_;
  llvm::IRBuilder<> b_;
  const ElementwiseKernel& k_;
  ScalarOps ops_;
  llvm::Function* fn_ = nullptr;
  std::vector<Level> level_;
  std::vector<llvm::Value*> row_vals_;
  std::vector<llvm::Value*> buffer_;  // per node: its row buffer, if it has one
  std::vector<bool> buffered_;         // per node: an earlier loop filled its buffer
  std::vector<int> stored_in_loop_;
};

}  // namespace

void emit_row_kernel(jit::ModuleHandle& mh, const ElementwiseKernel& k, const std::string& name) { RowEmitter(mh, k).emit(name); }

}  // namespace shard::codegen
