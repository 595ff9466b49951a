// argmax / argmin as LLVM loops, with numpy's rules: the first index of the extreme value,
// and the first NaN when there is one (a NaN beats every number).
//
// Over the last axis (inner == 1), for 32- and 64-bit elements, one pass tracks the index in
// vectors (tracked_rows). Narrower elements (whose indices would need several registers per
// vector) cut each row into chunks that stay in L1: a chunk's extreme is a vectorised
// reduction (llvm.maximum / smax / umax ...), and only when it beats the best so far is the
// chunk searched again, with explicit vector compares, for the first lane equal to it.
//
// Over another axis (inner > 1) a block of contiguous columns is walked row after row,
// keeping each column's best value in a stack buffer and its index in the output: an
// elementwise select loop the loop vectoriser widens.
#include <fmt/format.h>

#include <cstdint>
#include <vector>

#include "codegen/half_float_ir.hpp"
#include "codegen/loop_builder.hpp"
#include "codegen/reduce_forms.hpp"

namespace shard::codegen {

namespace {

using types::DType;

constexpr int64_t kRowChunk = 2048;    // elements of a row reduced before searching (L1-sized)
constexpr int64_t kColumnBlock = 1024; // columns whose best values live on the stack
constexpr int64_t kVectorBytes = 64;   // one AVX-512 register: the search's vector width
constexpr unsigned kTrackedChains = 4;  // index tracking: independent chains of one register each

// The widest vector register of this host, in bytes (kernels run where they are compiled).
int64_t host_vector_bytes() {
  static const int64_t bytes = [] {
    const auto features = llvm::sys::getHostCPUFeatures();
    auto has = [&](const char* name) { auto it = features.find(name); return it != features.end() && it->second; };
    return has("avx512f") ? 64 : has("avx2") ? 32 : 16;
  }();
  return bytes;
}

class ArgReduceEmitter {
 public:
  ArgReduceEmitter(jit::ModuleHandle& mh, const ReduceKernel& k)
      : mh_(mh), c_(mh.context()), b_(c_), k_(k), split_(split_at_axis(k)),
        mt_(storage_type(c_, k.dtype)), st_(is_half_float(k.dtype) ? b_.getFloatTy() : mt_) {}

  void emit(const std::string& name) {
    fn_ = begin_kernel_function(b_, mh_.module(), name, 1, 1, llvm::Function::ExternalLinkage);
    llvm::FastMathFlags fmf;
    fmf.setAllowReassoc();  // the chunk extreme is order-independent: let the vectoriser split it
    b_.setFastMathFlags(fmf);
    if (split_.inner == 1 && types::dtype_size(k_.dtype) >= 4) tracked_rows();
    else if (split_.inner == 1) rows();
    else columns();
    b_.CreateRetVoid();
  }

 private:
  bool is_max() const { return k_.kind == ReduceKind::Max; }
  bool is_float() const { return types::is_float(k_.dtype); }
  bool is_signed() const { return !types::is_unsigned(k_.dtype) && k_.dtype != DType::Bool; }
  llvm::Value* in() const { return fn_->getArg(0); }
  llvm::Value* out() const { return fn_->getArg(1); }
  llvm::Value* i64(int64_t v) { return b_.getInt64(v); }
  // Element `index` of the input at `base` (float16 / bfloat16 widened to float32: exact,
  // and ordered as the 16-bit values are).
  llvm::Value* load(llvm::Value* base, llvm::Value* index) { return widen(b_.CreateLoad(mt_, b_.CreateGEP(mt_, base, index))); }
  llvm::Value* widen(llvm::Value* v) { return is_half_float(k_.dtype) ? emit_half_to_float(b_, v, k_.dtype) : v; }

  // The value every element beats or ties: -inf / +inf, or the integer extreme.
  llvm::Value* identity() {
    if (is_float()) return llvm::ConstantFP::getInfinity(st_, is_max());
    const unsigned bits = st_->getIntegerBitWidth();
    auto v = is_signed() ? (is_max() ? llvm::APInt::getSignedMinValue(bits) : llvm::APInt::getSignedMaxValue(bits))
                         : (is_max() ? llvm::APInt::getMinValue(bits) : llvm::APInt::getMaxValue(bits));
    return llvm::ConstantInt::get(st_, v);
  }
  // The extreme of two values, NaN-propagating (as numpy's max / min).
  llvm::Value* extreme(llvm::Value* a, llvm::Value* x) {
    using llvm::Intrinsic::ID;
    ID id = is_float() ? (is_max() ? llvm::Intrinsic::maximum : llvm::Intrinsic::minimum)
          : is_signed() ? (is_max() ? llvm::Intrinsic::smax : llvm::Intrinsic::smin)
                        : (is_max() ? llvm::Intrinsic::umax : llvm::Intrinsic::umin);
    return b_.CreateBinaryIntrinsic(id, a, x);
  }
  // Does x replace the best value so far? Strictly better, or the first NaN.
  llvm::Value* better(llvm::Value* x, llvm::Value* best) {
    if (!is_float())
      return is_max() ? (is_signed() ? b_.CreateICmpSGT(x, best) : b_.CreateICmpUGT(x, best))
                      : (is_signed() ? b_.CreateICmpSLT(x, best) : b_.CreateICmpULT(x, best));
    // Unordered-or-better covers "x is NaN"; a NaN best is never replaced. Two compares and
    // one and: not three compares, an and and an or.
    auto* better_or_nan = is_max() ? b_.CreateFCmpUGT(x, best) : b_.CreateFCmpULT(x, best);
    return b_.CreateAnd(better_or_nan, b_.CreateFCmpORD(best, best));
  }
  // Is x the value searched for? Equal to it, or (when it is NaN) a NaN.
  llvm::Value* matches(llvm::Value* x, llvm::Value* target, llvm::Value* target_is_nan) {
    if (!is_float()) return b_.CreateICmpEQ(x, target);
    return b_.CreateOr(b_.CreateFCmpOEQ(x, target), b_.CreateAnd(b_.CreateFCmpUNO(x, x), target_is_nan));
  }

  // One pass per row with the index tracked in vectors: `kTrackedChains` independent chains of
  // one register each, every lane keeping its best value and the vector step it came from
  // (strictly better only, so the first of ties; a NaN beats everything, so the first NaN).
  // One register per chain and index lanes as wide as the value lanes keep the loop in
  // registers: wider vectors (or i32 indices beside 64-bit values) made LLVM spill and
  // repack masks every step. Then across lanes: the extreme (NaN if any lane has one) and
  // the smallest index among the lanes holding it; the tail goes one by one.
  void tracked_rows() {
    const int64_t len = split_.len;
    const auto elem_bytes = static_cast<int64_t>(types::dtype_size(k_.dtype));
    const auto lanes = static_cast<unsigned>(host_vector_bytes() / elem_bytes);
    const unsigned width = lanes * kTrackedChains;  // elements per step, over all chains
    const int64_t whole = len - len % width;
    auto* i32 = b_.getInt32Ty();
    auto* index_ty = b_.getIntNTy(static_cast<unsigned>(elem_bytes * 8));
    counted_loop(b_, i64(0), i64(split_.outer), 1, "row", [&](llvm::Value* row) {
      llvm::Value* row_base = b_.CreateGEP(mt_, in(), b_.CreateMul(row, i64(len)));
      llvm::Value* best = identity();
      llvm::Value* best_index = b_.getInt32(0);
      if (whole > 0) {
        auto* vty = llvm::FixedVectorType::get(st_, lanes);
        std::vector<llvm::Value*> init;
        for (unsigned c = 0; c < kTrackedChains; ++c) init.push_back(b_.CreateVectorSplat(lanes, identity()));
        for (unsigned c = 0; c < kTrackedChains; ++c) init.push_back(llvm::Constant::getNullValue(llvm::FixedVectorType::get(index_ty, lanes)));
        auto state = carried_loop(b_, i64(0), i64(whole), width, "track", init,
                                  [&](llvm::Value* v, const std::vector<llvm::Value*>& carried) -> std::vector<llvm::Value*> {
          llvm::Value* at = b_.CreateVectorSplat(lanes, b_.CreateTrunc(v, index_ty));
          std::vector<llvm::Value*> next(2 * kTrackedChains);
          for (unsigned c = 0; c < kTrackedChains; ++c) {
            llvm::Value* p = b_.CreateGEP(st_, row_base, b_.CreateAdd(v, i64(c * lanes)));
            llvm::Value* x = b_.CreateAlignedLoad(vty, p, llvm::Align(elem_bytes));
            llvm::Value* take = better(x, carried[c]);
            next[c] = b_.CreateSelect(take, x, carried[c]);
            next[kTrackedChains + c] = b_.CreateSelect(take, at, carried[kTrackedChains + c]);
          }
          return next;
        });
        // Chain c's lane l holds element step + c * lanes + l: laid side by side, lane k of
        // the joined vectors holds element step + k.
        llvm::Value* lane_best = concat({state.begin(), state.begin() + kTrackedChains});
        llvm::Value* lane_step = concat({state.begin() + kTrackedChains, state.end()});
        using llvm::Intrinsic::ID;
        ID across = is_float() ? (is_max() ? llvm::Intrinsic::vector_reduce_fmaximum : llvm::Intrinsic::vector_reduce_fminimum)
                  : is_signed() ? (is_max() ? llvm::Intrinsic::vector_reduce_smax : llvm::Intrinsic::vector_reduce_smin)
                                : (is_max() ? llvm::Intrinsic::vector_reduce_umax : llvm::Intrinsic::vector_reduce_umin);
        best = b_.CreateUnaryIntrinsic(across, lane_best);
        llvm::Value* best_is_nan = is_float() ? b_.CreateFCmpUNO(best, best) : b_.getFalse();
        llvm::Value* holds = matches(lane_best, b_.CreateVectorSplat(width, best), b_.CreateVectorSplat(width, best_is_nan));
        llvm::Value* index = b_.CreateAdd(b_.CreateTrunc(lane_step, llvm::FixedVectorType::get(i32, width)), iota(width));
        llvm::Value* none = b_.CreateVectorSplat(width, b_.getInt32(INT32_MAX));
        best_index = b_.CreateUnaryIntrinsic(llvm::Intrinsic::vector_reduce_umin, b_.CreateSelect(holds, index, none));
      }
      auto tail = carried_loop(b_, i64(whole), i64(len), 1, "tail", {best, best_index},
                               [&](llvm::Value* j, const std::vector<llvm::Value*>& carried) -> std::vector<llvm::Value*> {
        llvm::Value* x = load(row_base, j);
        llvm::Value* take = better(x, carried[0]);
        return {b_.CreateSelect(take, x, carried[0]), b_.CreateSelect(take, b_.CreateTrunc(j, i32), carried[1])};
      });
      b_.CreateStore(tail[1], b_.CreateGEP(i32, out(), row));
    });
  }

  // <0, 1, ..., n-1> as i32.
  llvm::Constant* iota(unsigned n) {
    std::vector<llvm::Constant*> v;
    for (unsigned l = 0; l < n; ++l) v.push_back(b_.getInt32(l));
    return llvm::ConstantVector::get(v);
  }
  // Equal-width vectors laid end to end, joined pairwise.
  llvm::Value* concat(std::vector<llvm::Value*> parts) {
    while (parts.size() > 1) {
      const auto n = static_cast<unsigned>(llvm::cast<llvm::FixedVectorType>(parts[0]->getType())->getNumElements());
      std::vector<int> mask;
      for (unsigned i = 0; i < 2 * n; ++i) mask.push_back(static_cast<int>(i));
      std::vector<llvm::Value*> joined;
      for (size_t i = 0; i + 1 < parts.size(); i += 2) joined.push_back(b_.CreateShuffleVector(parts[i], parts[i + 1], mask));
      if (parts.size() % 2) joined.push_back(parts.back());  // not reached: kTrackedChains is a power of two
      parts = std::move(joined);
    }
    return parts[0];
  }

  void rows() {
    const int64_t len = split_.len;
    counted_loop(b_, i64(0), i64(split_.outer), 1, "row", [&](llvm::Value* row) {
      llvm::Value* row_base = b_.CreateGEP(mt_, in(), b_.CreateMul(row, i64(len)));
      auto best = carried_loop(b_, i64(0), i64(len), kRowChunk, "chunk", {identity(), i64(0)},
                               [&](llvm::Value* start, const std::vector<llvm::Value*>& carried) -> std::vector<llvm::Value*> {
        llvm::Value* chunk = b_.CreateGEP(mt_, row_base, start);
        llvm::Value* n = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, i64(kRowChunk), b_.CreateSub(i64(len), start));
        auto m = carried_loop(b_, i64(1), n, 1, "extreme", {load(chunk, i64(0))},
                              [&](llvm::Value* j, const std::vector<llvm::Value*>& acc) -> std::vector<llvm::Value*> {
          return {extreme(acc[0], load(chunk, j))};
        })[0];
        // Only a chunk that beats the best so far is searched for its first extreme.
        auto* pre = b_.GetInsertBlock();
        auto* search = llvm::BasicBlock::Create(c_, "search", fn_);
        auto* join = llvm::BasicBlock::Create(c_, "join", fn_);
        b_.CreateCondBr(better(m, carried[0]), search, join);
        b_.SetInsertPoint(search);
        llvm::Value* found = b_.CreateAdd(start, find_first(chunk, n, m));
        auto* searched = b_.GetInsertBlock();
        b_.CreateBr(join);
        b_.SetInsertPoint(join);
        auto* best_value = b_.CreatePHI(st_, 2);
        best_value->addIncoming(carried[0], pre);
        best_value->addIncoming(m, searched);
        auto* best_index = b_.CreatePHI(b_.getInt64Ty(), 2);
        best_index->addIncoming(carried[1], pre);
        best_index->addIncoming(found, searched);
        return {best_value, best_index};
      });
      b_.CreateStore(b_.CreateTrunc(best[1], b_.getInt32Ty()), b_.CreateGEP(b_.getInt32Ty(), out(), row));
    });
  }

  // The index of the first of p[0..n) that matches target: whole vectors compared at once,
  // then the tail one by one. The target is in the range, so the search always ends early.
  llvm::Value* find_first(llvm::Value* p, llvm::Value* n, llvm::Value* target) {
    const int64_t lanes = kVectorBytes / static_cast<int64_t>(types::dtype_size(k_.dtype));
    auto* vty = llvm::FixedVectorType::get(mt_, static_cast<unsigned>(lanes));
    auto* mask_ty = b_.getIntNTy(static_cast<unsigned>(lanes));
    llvm::Value* target_is_nan = is_float() ? b_.CreateFCmpUNO(target, target) : b_.getFalse();
    llvm::Value* vtarget = b_.CreateVectorSplat(static_cast<unsigned>(lanes), target);
    llvm::Value* vnan = b_.CreateVectorSplat(static_cast<unsigned>(lanes), target_is_nan);
    llvm::Value* whole = b_.CreateAnd(n, i64(-lanes));

    auto* entry = b_.GetInsertBlock();
    auto* vhead = llvm::BasicBlock::Create(c_, "find.vec", fn_);
    auto* vhit = llvm::BasicBlock::Create(c_, "find.vec.hit", fn_);
    auto* vnext = llvm::BasicBlock::Create(c_, "find.vec.next", fn_);
    auto* shead = llvm::BasicBlock::Create(c_, "find.tail", fn_);
    auto* snext = llvm::BasicBlock::Create(c_, "find.tail.next", fn_);
    auto* done = llvm::BasicBlock::Create(c_, "find.done", fn_);
    b_.CreateCondBr(b_.CreateICmpSGT(whole, i64(0)), vhead, shead);

    b_.SetInsertPoint(vhead);
    auto* vi = b_.CreatePHI(b_.getInt64Ty(), 2);
    vi->addIncoming(i64(0), entry);
    llvm::Value* v = widen(b_.CreateAlignedLoad(vty, b_.CreateGEP(mt_, p, vi), llvm::Align(types::dtype_size(k_.dtype))));
    llvm::Value* hit = b_.CreateBitCast(matches(v, vtarget, vnan), mask_ty);
    b_.CreateCondBr(b_.CreateICmpNE(hit, llvm::ConstantInt::get(mask_ty, 0)), vhit, vnext);
    b_.SetInsertPoint(vhit);
    llvm::Value* lane = b_.CreateZExtOrTrunc(b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, hit, b_.getTrue()), b_.getInt64Ty());
    llvm::Value* vfound = b_.CreateAdd(vi, lane);
    b_.CreateBr(done);
    b_.SetInsertPoint(vnext);
    auto* vi_next = b_.CreateAdd(vi, i64(lanes));
    vi->addIncoming(vi_next, vnext);
    b_.CreateCondBr(b_.CreateICmpSLT(vi_next, whole), vhead, shead);

    b_.SetInsertPoint(shead);
    auto* si = b_.CreatePHI(b_.getInt64Ty(), 3);
    si->addIncoming(i64(0), entry);
    si->addIncoming(whole, vnext);
    auto* in_range = llvm::BasicBlock::Create(c_, "find.tail.body", fn_);
    b_.CreateCondBr(b_.CreateICmpSLT(si, n), in_range, done);
    b_.SetInsertPoint(in_range);
    b_.CreateCondBr(matches(load(p, si), target, target_is_nan), done, snext);
    b_.SetInsertPoint(snext);
    auto* si_next = b_.CreateAdd(si, i64(1));
    si->addIncoming(si_next, snext);
    b_.CreateBr(shead);

    b_.SetInsertPoint(done);
    auto* result = b_.CreatePHI(b_.getInt64Ty(), 3);
    result->addIncoming(vfound, vhit);
    result->addIncoming(i64(0), shead);  // not reached: the target is in the range
    result->addIncoming(si, in_range);
    return result;
  }

  void columns() {
    const int64_t len = split_.len, inner = split_.inner;
    auto* saved = b_.GetInsertBlock();
    b_.SetInsertPoint(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    const int64_t block = std::min(kColumnBlock, inner);
    llvm::Value* best = b_.CreateAlloca(st_, i64(block));
    llvm::cast<llvm::AllocaInst>(best)->setAlignment(llvm::Align(64));
    b_.SetInsertPoint(saved);
    auto* i32 = b_.getInt32Ty();
    counted_loop(b_, i64(0), i64(split_.outer), 1, "outer", [&](llvm::Value* a) {
      llvm::Value* in_plane = b_.CreateGEP(mt_, in(), b_.CreateMul(a, i64(len * inner)));
      llvm::Value* out_row = b_.CreateGEP(i32, out(), b_.CreateMul(a, i64(inner)));
      counted_loop(b_, i64(0), i64(inner), block, "block", [&](llvm::Value* c0) {
        llvm::Value* n = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, i64(block), b_.CreateSub(i64(inner), c0));
        llvm::Value* first = b_.CreateGEP(mt_, in_plane, c0);
        llvm::Value* index = b_.CreateGEP(i32, out_row, c0);
        counted_loop(b_, i64(0), n, 1, "first", [&](llvm::Value* c) {
          b_.CreateStore(load(first, c), b_.CreateGEP(st_, best, c));
          b_.CreateStore(b_.getInt32(0), b_.CreateGEP(i32, index, c));
        });
        counted_loop(b_, i64(1), i64(len), 1, "along", [&](llvm::Value* i) {
          llvm::Value* rowp = b_.CreateGEP(mt_, first, b_.CreateMul(i, i64(inner)));
          llvm::Value* i_32 = b_.CreateTrunc(i, i32);
          counted_loop(b_, i64(0), n, 1, "col", [&](llvm::Value* c) {
            llvm::Value* x = load(rowp, c);
            llvm::Value* bp = b_.CreateGEP(st_, best, c);
            llvm::Value* ip = b_.CreateGEP(i32, index, c);
            llvm::Value* bv = b_.CreateLoad(st_, bp);
            llvm::Value* take = better(x, bv);
            b_.CreateStore(b_.CreateSelect(take, x, bv), bp);
            b_.CreateStore(b_.CreateSelect(take, i_32, b_.CreateLoad(i32, ip)), ip);
          });
        });
      });
    });
  }

  jit::ModuleHandle& mh_;
  llvm::LLVMContext& c_;
  llvm::IRBuilder<> b_;
  const ReduceKernel& k_;
  const AxisSplit split_;
  llvm::Type* mt_;  // elements in memory
  llvm::Type* st_;  // elements in registers
  llvm::Function* fn_ = nullptr;
};

}  // namespace

void emit_arg_reduce(jit::ModuleHandle& mh, const ReduceKernel& k, const std::string& name) {
  ArgReduceEmitter(mh, k).emit(name);
}

}  // namespace shard::codegen
