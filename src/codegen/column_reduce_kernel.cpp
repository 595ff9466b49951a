// Column kernels (ElementwiseKernel::rows with `columns`): reductions down dim 0 of a
// [length, columns] iteration space (reductions over leading dims: sum(a, 0), var(a, 0),
// any(a > c, 0)) fused with the elementwise work before and after them. Columns are taken in
// blocks whose accumulators live on the stack; each reduction walks the block's rows in
// order, combining a whole contiguous run of columns per row (a loop the vectoriser widens),
// and the outputs are written last. Values are combined in row order, as the plain reduce
// kernel does for leading dims, so results do not depend on the block size.
//
// Centred second moments are the exception (var(a, 0), std, layernorm over columns): a sum of
// (X - M)^2, with X per element and M per column, that shares its X with a sum of X (or another
// such sum) needs no pass of its own. One pass over tiles of rows gives each column's sum of X
// and M2 = sum((X - mean)^2) about its exact mean. Per tile, read twice from cache: the tile's
// sum gives its rounded mean t, then d = X - t gives the tile's M2 as sum(d^2) - sum(d)^2 / rows
// (the corrected two-pass algorithm: exact whatever t's rounding); tiles are merged in float64
// by Chan, Golub and LeVeque's update (M2 += M2_tile + delta^2 * n_a * n_b / (n_a + n_b)). A sum
// of (X - M)^2 is then M2 + n * (mean - M)^2: the same value in exact arithmetic whatever M is,
// with no cancellation (two non-negative terms); for the variance M is the mean and the second
// term vanishes. So var(a, 0) reads `a` once instead of twice, and at least as accurately.
#include <algorithm>
#include <stdexcept>

#include "codegen/loop_builder.hpp"
#include "codegen/row_reduce_kernel.hpp"
#include "codegen/scalar_ops.hpp"

namespace shard::codegen {

namespace {

using types::DType;

constexpr int64_t kColumnBlock = 4096;  // columns per block: whole rows of most arrays, accumulators in L1/L2
// A kernel with a moment group takes narrower blocks, whose per-column sums stay in L1, and
// tiles of this many bytes (128 rows of 256 float32 columns), read twice from L2. Measured on
// var(a, 0) of 4096x4096 float32: 4096-column blocks with 16-row tiles took 2x a plain column
// sum; 256-column blocks with 128-row tiles take 1.1x.
constexpr int64_t kMomentBlock = 256;
constexpr int64_t kMomentTileBytes = 128 << 10;
constexpr int64_t kMomentTileRows = 256;

enum Level : uint8_t { kUniform = 0, kPerColumn = 1, kPerElement = 2 };

class ColumnEmitter {
 public:
  ColumnEmitter(jit::ModuleHandle& mh, const ElementwiseKernel& k) : mh_(mh), c_(mh.context()), b_(c_), k_(k), ops_(b_, mh.module()) {}

  void emit(const std::string& name) {
    auto* ptr = b_.getPtrTy();
    const size_t nin = k_.inputs.size(), nout = k_.outputs.size();
    fn_ = begin_kernel_function(b_, mh_.module(), name + ".impl", nin, nout, llvm::Function::InternalLinkage);
    levels();
    const int groups = find_moments();
    const int64_t cols = k_.shape[1], block = std::min(groups ? kMomentBlock : kColumnBlock, std::max<int64_t>(cols, 1));
    block_ = block;
    acc_.assign(k_.nodes.size(), nullptr);
    for (size_t n = 0; n < k_.nodes.size(); ++n)
      if (k_.nodes[n].reduces_row) acc_[n] = block_array(reg_storage(k_.nodes[n].dtype));
    for (int g = 0; g < groups; ++g)
      moments_.push_back({moment_x_[g], block_array(b_.getDoubleTy()), block_array(b_.getDoubleTy()), block_array(b_.getDoubleTy())});
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

  // A moment group's pass (see find_moments).
  struct Moment {
    int x;                         // the per-element node
    llvm::Value* sum;              // per column of the block: float64 sum of x (of the tiles' sums)
    llvm::Value* exact_sum;        // the same, of the tiles' corrected sums (for the mean)
    llvm::Value* m2;               // sum of squares about the column's mean
  };

  llvm::AllocaInst* block_array(llvm::Type* t) {
    auto* a = b_.CreateAlloca(t, b_.getInt64(block_));
    a->setAlignment(llvm::Align(64));
    return a;
  }

  // The moment groups (see the header): per X, the reductions one tiled pass serves: sums of
  // X, of (X - M)^2 and of X - M, with M per column (in centre_). Only float32 / float64 (16-bit
  // values are computed in float32 nodes), and only for a group serving two reductions or more,
  // one of them squared: alone, a centred sum is one pass either way.
  // Returns the number of groups (their X in moment_x_).
  int find_moments() {
    moment_of_.assign(k_.nodes.size(), -1);
    centre_.assign(k_.nodes.size(), -1);
    form_.assign(k_.nodes.size(), Form::Plain);
    if (k_.shape[0] < 2) return 0;
    std::vector<int> x_of(k_.nodes.size(), -1);
    // X - M with X per element and M per column, all of dtype t: X (M in *m), else -1.
    auto deviation = [&](int d, DType t, int* m) {
      const EwNode& sub = k_.nodes[d];
      if (sub.op != EwOp::Sub || sub.dtype != t || level_[sub.args[0]] != kPerElement || level_[sub.args[1]] == kPerElement) return -1;
      for (int a : sub.args)
        if (k_.nodes[a].dtype != t) return -1;
      *m = sub.args[1];
      return sub.args[0];
    };
    for (size_t n = 0; n < k_.nodes.size(); ++n) {
      const EwNode& node = k_.nodes[n];
      if (!node.reduces_row || node.op != EwOp::Add || (node.dtype != DType::F32 && node.dtype != DType::F64)) continue;
      const int arg = node.args[0];
      const EwNode& sq = k_.nodes[arg];
      int d = -1;
      if (sq.op == EwOp::Mul && sq.args.size() == 2 && sq.args[0] == sq.args[1]) d = sq.args[0];
      else if (sq.op == EwOp::Square || (sq.op == EwOp::IntegerPow && sq.const_value == 2)) d = sq.args[0];
      if (d >= 0 && sq.dtype == node.dtype && (x_of[n] = deviation(d, node.dtype, &centre_[n])) >= 0) {
        form_[n] = Form::Squared;
      } else if ((x_of[n] = deviation(arg, node.dtype, &centre_[n])) >= 0) {
        form_[n] = Form::Deviation;
      } else if (level_[arg] == kPerElement && sq.dtype == node.dtype) {
        x_of[n] = arg;  // a plain sum of X
        centre_[n] = -1;
      } else {
        x_of[n] = centre_[n] = -1;
      }
    }
    for (size_t n = 0; n < k_.nodes.size(); ++n) {
      if (x_of[n] < 0 || moment_of_[n] >= 0) continue;
      std::vector<int> served;
      bool squared = false;
      for (size_t m = n; m < k_.nodes.size(); ++m)
        if (x_of[m] == x_of[n]) served.push_back(static_cast<int>(m)), squared |= form_[m] == Form::Squared;
      if (served.size() < 2 || !squared) continue;
      for (int m : served) moment_of_[m] = static_cast<int>(moment_x_.size());
      moment_x_.push_back(x_of[n]);
    }
    return static_cast<int>(moment_x_.size());
  }

  // The tiled pass of moment group g over the block's columns [c0, c0 + width): fills its
  // float64 sums and M2s. Per tile of rows, a first loop sums X to get the tile's mean t
  // (rounded), a second sums d = X - t and d^2 (the corrected two-pass algorithm: the tile's
  // sum is rows * t + sum(d) and its M2 is sum(d^2) - sum(d)^2 / rows, exact whatever t's
  // rounding), and the tile is merged into the running moments in float64.
  void emit_moments(const Moment& g, llvm::Value* c0, llvm::Value* width) {
    const int64_t length = k_.shape[0];
    const DType t = k_.nodes[g.x].dtype;
    auto* ft = register_type(c_, t);
    auto* f64 = b_.getDoubleTy();
    // Tiles of at most kMomentTileRows rows keep the float32 partial sums short.
    const int64_t tile = std::clamp<int64_t>(kMomentTileBytes / (block_ * static_cast<int64_t>(types::dtype_size(t))), 1,
                                             std::min(length, kMomentTileRows));
    llvm::Value* tmean = block_array(ft);
    llvm::Value* tdev = block_array(ft);
    llvm::Value* tsq = block_array(ft);
    auto at = [&](llvm::Value* base, llvm::Type* ty, llvm::Value* c) { return b_.CreateGEP(ty, base, c); };
    auto fill = [&](llvm::Value* base, llvm::Type* ty) {
      counted_loop(b_, b_.getInt64(0), width, 1, "mzero", [&](llvm::Value* c) { b_.CreateStore(llvm::ConstantFP::get(ty, 0.0), at(base, ty, c)); });
    };
    auto ext = [&](llvm::Value* v) { return v->getType() == f64 ? v : b_.CreateFPExt(v, f64); };
    fill(g.sum, f64);
    fill(g.exact_sum, f64);
    fill(g.m2, f64);
    counted_loop(b_, b_.getInt64(0), b_.getInt64(length), tile, "tile", [&](llvm::Value* t0) {
      llvm::Value* end = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b_.CreateAdd(t0, b_.getInt64(tile)), b_.getInt64(length));
      llvm::Value* rows = b_.CreateSub(end, t0);
      fill(tmean, ft);
      counted_loop(b_, t0, end, 1, "tsum", [&](llvm::Value* r) {
        counted_loop(b_, b_.getInt64(0), width, 1, "tsum.c", [&](llvm::Value* c) {
          std::vector<llvm::Value*> memo(k_.nodes.size(), nullptr);
          auto* p = at(tmean, ft, c);
          b_.CreateStore(b_.CreateFAdd(b_.CreateLoad(ft, p), value(g.x, r, c0, c, memo)), p);
        });
      });
      // The plain sum is the reduction's value (an infinite X gives an infinite sum, not the
      // NaN of the corrected one).
      llvm::Value* rows_t = b_.CreateSIToFP(rows, ft);
      counted_loop(b_, b_.getInt64(0), width, 1, "tmean", [&](llvm::Value* c) {
        auto* p = at(tmean, ft, c);
        llvm::Value* tsum = b_.CreateLoad(ft, p);
        auto* ps = at(g.sum, f64, c);
        b_.CreateStore(b_.CreateFAdd(b_.CreateLoad(f64, ps), ext(tsum)), ps);
        b_.CreateStore(b_.CreateFDiv(tsum, rows_t), p);
      });
      fill(tdev, ft);
      fill(tsq, ft);
      counted_loop(b_, t0, end, 1, "tdev", [&](llvm::Value* r) {
        counted_loop(b_, b_.getInt64(0), width, 1, "tdev.c", [&](llvm::Value* c) {
          std::vector<llvm::Value*> memo(k_.nodes.size(), nullptr);
          llvm::Value* d = b_.CreateFSub(value(g.x, r, c0, c, memo), b_.CreateLoad(ft, at(tmean, ft, c)));
          auto* pd = at(tdev, ft, c);
          b_.CreateStore(b_.CreateFAdd(b_.CreateLoad(ft, pd), d), pd);
          auto* pq = at(tsq, ft, c);
          b_.CreateStore(b_.CreateFAdd(b_.CreateLoad(ft, pq), b_.CreateFMul(d, d)), pq);
        });
      });
      // Merge the tile (n_b = rows) into the running moments (n_a = t0 rows so far).
      llvm::Value* na = b_.CreateSIToFP(t0, f64);
      llvm::Value* nb = b_.CreateSIToFP(rows, f64);
      llvm::Value* weight = b_.CreateFDiv(b_.CreateFMul(na, nb), b_.CreateFAdd(na, nb));
      llvm::Value* one = llvm::ConstantFP::get(f64, 1.0);
      llvm::Value* inv_na = b_.CreateFDiv(one, b_.CreateMaxNum(na, one));
      llvm::Value* inv_nb = b_.CreateFDiv(one, nb);
      counted_loop(b_, b_.getInt64(0), width, 1, "merge", [&](llvm::Value* c) {
        llvm::Value* e = ext(b_.CreateLoad(ft, at(tdev, ft, c)));
        llvm::Value* ts = b_.CreateFAdd(b_.CreateFMul(ext(b_.CreateLoad(ft, at(tmean, ft, c))), nb), e);
        llvm::Value* tm2 = b_.CreateFSub(ext(b_.CreateLoad(ft, at(tsq, ft, c))), b_.CreateFMul(b_.CreateFMul(e, e), inv_nb));
        tm2 = b_.CreateMaxNum(tm2, llvm::ConstantFP::get(f64, 0.0));
        llvm::Value* s = b_.CreateLoad(f64, at(g.exact_sum, f64, c));
        llvm::Value* delta = b_.CreateFSub(b_.CreateFMul(ts, inv_nb), b_.CreateFMul(s, inv_na));
        llvm::Value* m2 = b_.CreateLoad(f64, at(g.m2, f64, c));
        b_.CreateStore(b_.CreateFAdd(m2, b_.CreateFAdd(tm2, b_.CreateFMul(b_.CreateFMul(delta, delta), weight))), at(g.m2, f64, c));
        b_.CreateStore(b_.CreateFAdd(s, ts), at(g.exact_sum, f64, c));
      });
    });
  }

  // Reduction n of a moment group, from the group's sums and M2s (in float64, rounded once):
  // sum(X), sum((X - M)^2) = M2 + n * (mean - M)^2, sum(X - M) = n * (mean - M). A column
  // with an infinite X (an infinite or NaN plain sum) has no finite moments: it gets what the
  // sums of infinities give, from the plain sum (inf for finite M, NaN otherwise).
  void emit_from_moments(int n, const Moment& g, llvm::Value* c0, llvm::Value* width) {
    const EwNode& node = k_.nodes[n];
    auto* st = reg_storage(node.dtype);
    auto* f64 = b_.getDoubleTy();
    llvm::Value* len = llvm::ConstantFP::get(f64, static_cast<double>(k_.shape[0]));
    counted_loop(b_, b_.getInt64(0), width, 1, "moment", [&](llvm::Value* c) {
      llvm::Value* sum = b_.CreateLoad(f64, b_.CreateGEP(f64, g.sum, c));
      llvm::Value* v = sum;
      if (form_[n] != Form::Plain) {
        std::vector<llvm::Value*> memo(k_.nodes.size(), nullptr);
        llvm::Value* m = value(centre_[n], nullptr, c0, c, memo);
        if (node.dtype != DType::F64) m = b_.CreateFPExt(m, f64);
        llvm::Value* exact = b_.CreateLoad(f64, b_.CreateGEP(f64, g.exact_sum, c));
        llvm::Value* d = b_.CreateFSub(b_.CreateFDiv(exact, len), m);
        llvm::Value* finite = b_.CreateFCmpOEQ(b_.CreateFSub(sum, sum), llvm::ConstantFP::get(f64, 0.0));
        if (form_[n] == Form::Squared) {
          v = b_.CreateFAdd(b_.CreateLoad(f64, b_.CreateGEP(f64, g.m2, c)), b_.CreateFMul(len, b_.CreateFMul(d, d)));
          llvm::Value* inf = b_.CreateFAdd(b_.CreateFSub(m, m), llvm::ConstantFP::getInfinity(f64));
          v = b_.CreateSelect(finite, v, b_.CreateSelect(b_.CreateFCmpUNO(sum, sum), sum, inf));
        } else {
          v = b_.CreateSelect(finite, b_.CreateFMul(len, d), b_.CreateFSub(sum, b_.CreateFMul(len, m)));
        }
      }
      if (node.dtype != DType::F64) v = b_.CreateFPTrunc(v, register_type(c_, node.dtype));
      b_.CreateStore(ops_.to_storage(v, node.dtype), b_.CreateGEP(st, acc_[n], c));
    });
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
    std::vector<bool> moments_done(moments_.size(), false);
    for (size_t n = 0; n < k_.nodes.size(); ++n) {
      const EwNode& node = k_.nodes[n];
      if (!node.reduces_row) continue;
      if (const int g = moment_of_[n]; g >= 0) {
        // The group's pass runs at its first reduction: what X reads is computed by then.
        if (!moments_done[g]) emit_moments(moments_[g], c0, width);
        moments_done[g] = true;
        emit_from_moments(static_cast<int>(n), moments_[g], c0, width);
        continue;
      }
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
  int64_t block_ = 1;              // columns per block
  std::vector<Moment> moments_;
  std::vector<int> moment_x_;      // per moment group: its X
  std::vector<int> moment_of_;     // per reduction node: its moment group, or -1
  enum class Form : uint8_t { Plain, Squared, Deviation };  // sum of X, of (X - M)^2, of X - M
  std::vector<Form> form_;         // per reduction node in a moment group
  std::vector<int> centre_;        // per centred reduction: the node of M
};

}  // namespace

void emit_column_kernel(jit::ModuleHandle& mh, const ElementwiseKernel& k, const std::string& name) { ColumnEmitter(mh, k).emit(name); }

}  // namespace shard::codegen
