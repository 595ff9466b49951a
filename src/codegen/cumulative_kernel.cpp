// cumsum / cumprod / cummax / cummin as LLVM loops. The running value is combined in input
// order, one element after another, exactly as the sequential definition (and numpy) does:
// no reassociation, so results do not depend on the layout or the vector width.
//
// Over the last axis (inner == 1) a row is one dependency chain, bound by the latency of the
// combine; kRowsAtOnce rows are walked side by side so their chains overlap.
// Over another axis (inner > 1) each step combines a whole contiguous row of columns with the
// previous output row: an elementwise loop the loop vectoriser widens.
#include "codegen/loop_builder.hpp"
#include "codegen/reduce_forms.hpp"
#include "codegen/scalar_ops.hpp"

namespace shard::codegen {

namespace {

using types::DType;

constexpr int64_t kRowsAtOnce = 4;

class CumulativeEmitter {
 public:
  CumulativeEmitter(jit::ModuleHandle& mh, const ReduceKernel& k)
      : mh_(mh), c_(mh.context()), b_(c_), k_(k), split_(split_at_axis(k)), st_(storage_type(c_, k.dtype)), ops_(b_, mh.module()) {}

  void emit(const std::string& name) {
    fn_ = begin_kernel_function(b_, mh_.module(), name, 1, 1, llvm::Function::ExternalLinkage);
    if (split_.len > 0 && split_.outer > 0 && split_.inner > 0) {
      if (split_.inner == 1) rows();
      else columns();
    }
    b_.CreateRetVoid();
  }

 private:
  llvm::Value* i64(int64_t v) { return b_.getInt64(v); }
  // The position along the axis of the i-th element combined.
  llvm::Value* position(llvm::Value* i) { return k_.reverse ? b_.CreateSub(i64(split_.len - 1), i) : i; }
  llvm::Value* load(llvm::Value* base, llvm::Value* index) {
    return ops_.from_storage(b_.CreateLoad(st_, b_.CreateGEP(st_, base, index)), k_.dtype);
  }
  void store(llvm::Value* v, llvm::Value* base, llvm::Value* index) {
    b_.CreateStore(ops_.to_storage(v, k_.dtype), b_.CreateGEP(st_, base, index));
  }
  // running (op) x with the elementwise op's semantics: integers wrap, max / min keep the
  // first NaN (numpy's (acc >= x || isnan(acc)) ? acc : x), bool sums are ors.
  llvm::Value* combine(llvm::Value* running, llvm::Value* x) {
    EwOp op = EwOp::Add;
    switch (k_.kind) {
      case ReduceKind::Sum: op = EwOp::Add; break;
      case ReduceKind::Prod: op = EwOp::Mul; break;
      case ReduceKind::Max: op = EwOp::Max; break;
      case ReduceKind::Min: op = EwOp::Min; break;
      case ReduceKind::And: op = EwOp::And; break;
      case ReduceKind::Or: op = EwOp::Or; break;
    }
    EwNode node{op, k_.dtype, {0, 1}};
    return ops_.emit(node, {running, x}, {k_.dtype, k_.dtype});
  }

  // Rows [first, first + count) scanned side by side.
  void scan_rows(llvm::Value* first_row, int64_t count) {
    const int64_t len = split_.len;
    std::vector<llvm::Value*> in_rows, out_rows, init;
    for (int64_t r = 0; r < count; ++r) {
      llvm::Value* offset = b_.CreateMul(b_.CreateAdd(first_row, i64(r)), i64(len));
      in_rows.push_back(b_.CreateGEP(st_, fn_->getArg(0), offset));
      out_rows.push_back(b_.CreateGEP(st_, fn_->getArg(1), offset));
      llvm::Value* x = load(in_rows.back(), position(i64(0)));
      store(x, out_rows.back(), position(i64(0)));
      init.push_back(x);
    }
    carried_loop(b_, i64(1), i64(len), 1, "scan", init, [&](llvm::Value* i, const std::vector<llvm::Value*>& running) {
      llvm::Value* at = position(i);
      std::vector<llvm::Value*> next;
      for (int64_t r = 0; r < count; ++r) {
        next.push_back(combine(running[r], load(in_rows[r], at)));
        store(next.back(), out_rows[r], at);
      }
      return next;
    });
  }

  void rows() {
    const int64_t groups = split_.outer / kRowsAtOnce;
    if (groups > 0)
      counted_loop(b_, i64(0), i64(groups), 1, "rows", [&](llvm::Value* g) { scan_rows(b_.CreateMul(g, i64(kRowsAtOnce)), kRowsAtOnce); });
    for (int64_t r = groups * kRowsAtOnce; r < split_.outer; ++r) scan_rows(i64(r), 1);
  }

  void columns() {
    const int64_t len = split_.len, inner = split_.inner;
    counted_loop(b_, i64(0), i64(split_.outer), 1, "outer", [&](llvm::Value* a) {
      llvm::Value* plane = b_.CreateMul(a, i64(len * inner));
      llvm::Value* in_plane = b_.CreateGEP(st_, fn_->getArg(0), plane);
      llvm::Value* out_plane = b_.CreateGEP(st_, fn_->getArg(1), plane);
      auto row = [&](llvm::Value* base, llvm::Value* i) { return b_.CreateGEP(st_, base, b_.CreateMul(position(i), i64(inner))); };
      llvm::Value* in0 = row(in_plane, i64(0));
      llvm::Value* out0 = row(out_plane, i64(0));
      counted_loop(b_, i64(0), i64(inner), 1, "copy", [&](llvm::Value* c) { store(load(in0, c), out0, c); });
      counted_loop(b_, i64(1), i64(len), 1, "along", [&](llvm::Value* i) {
        llvm::Value* src = row(in_plane, i);
        llvm::Value* dst = row(out_plane, i);
        llvm::Value* prev = row(out_plane, b_.CreateSub(i, i64(1)));
        counted_loop(b_, i64(0), i64(inner), 1, "col", [&](llvm::Value* c) { store(combine(load(prev, c), load(src, c)), dst, c); });
      });
    });
  }

  jit::ModuleHandle& mh_;
  llvm::LLVMContext& c_;
  llvm::IRBuilder<> b_;
  const ReduceKernel& k_;
  const AxisSplit split_;
  llvm::Type* st_;
  ScalarOps ops_;
  llvm::Function* fn_ = nullptr;
};

}  // namespace

void emit_cumulative(jit::ModuleHandle& mh, const ReduceKernel& k, const std::string& name) {
  CumulativeEmitter(mh, k).emit(name);
}

}  // namespace shard::codegen
