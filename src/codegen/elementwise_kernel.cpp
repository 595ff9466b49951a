#include "codegen/elementwise_kernel.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <mutex>
#include <stdexcept>

#include "codegen/loop_builder.hpp"
#include "codegen/row_reduce_kernel.hpp"
#include "codegen/scalar_ops.hpp"
#include "codegen/transpose_tile.hpp"
#include "jit/kernel_jit.hpp"
#include "jit/llvm_headers.hpp"
#include <llvm/IR/IntrinsicsX86.h>

namespace shard::codegen {


std::string ElementwiseKernel::signature() const {
  std::string s = fmt::format("ew[{}]", fmt::join(shape, "x"));
  for (auto& in : inputs) s += fmt::format("|in:{}:{}@{}", types::dtype_name(in.dtype), fmt::join(in.strides, ","), in.offset);
  for (auto& n : nodes) {
    s += fmt::format("|{}:{}", ew_op_name(n.op), types::dtype_name(n.dtype));
    if (n.op == EwOp::Input) s += fmt::format("#{}", n.input);
    if (n.op == EwOp::Const || n.op == EwOp::IntegerPow) s += fmt::format("={:a}", n.const_value);
    for (int a : n.args) s += fmt::format(",{}", a);
    if (n.reduces_row) s += "/row";
  }
  s += fmt::format("|out:{}:{}@{}", fmt::join(outputs, ","), fmt::join(out_strides, ","), out_offset);
  if (rows) s += columns ? "|columns" : "|rows";
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

// Where the loop nest stands: per input its base pointer, element offset and strides (a
// transposed input staged in a tile buffer is read through the buffer's), and the outputs'
// bases, offset and strides (a streamed tile is written to tile buffers first).
struct Cursor {
  std::vector<llvm::Value*> base;
  std::vector<llvm::Value*> offset;
  std::vector<std::vector<int64_t>> strides;  // [input][dim]
  std::vector<llvm::Value*> out_base;         // [output]
  llvm::Value* out = nullptr;
  std::vector<int64_t> out_strides;           // [dim]
};

// A loop over [lo, hi) of one collapsed dim, by `step`.
struct Range {
  size_t dim;
  int64_t lo, hi, step = 1;
  unsigned vector_width = 0;  // > 0: widen this loop by exactly that many lanes (a tile row)
};

// A transpose among the inputs: dim `tile_dim` is contiguous in some input that walks the
// output's contiguous last dim with a large stride. The (tile_dim, last) plane is then walked
// in square tiles that fit in L1, so neither side streams across memory one element per
// cache line; inputs listed in `staged` are transposed tile by tile in registers.
// Elements along each side of a block of tiles (a multiple of every tile edge). Measured per
// kernel (a.T + 1, float32): 64 beats 256 by 10-20% from 1024x1024 to 4096x4096 on 1 or 2
// devices (4096x4096 on 2 devices, streaming: 3.2 against 3.7 ms a device), and matches it
// below.
constexpr int64_t kBlock = 64;

// Outputs of at least this many bytes are written with non-temporal (streaming) stores when
// tiled: a transposed output several times the L2 (2 MiB a core here) cannot stay in cache
// for its reader, and ordinary stores read every output line before writing it and evict
// the source lines the next tiles need. Measured per kernel for float32 a.T + 1: 4096x4096
// on 2 devices (32 MiB out each) 3.2 ms against 5-15 ms; 2048x2048 on 2 devices (8 MiB)
// 0.74 against 0.83 ms, on 1 device 1.5 against 1.8 ms; 1024x1024 (4 MiB) even; 512x512
// 1.4x slower. tests/bench/transpose_bound.c measures the same tiles in C.
constexpr int64_t kStreamBytes = int64_t{8} << 20;

struct TilePlan {
  size_t tile_dim = 0;
  int64_t size = 0;  // tile edge (0: no tiling)
  std::vector<size_t> staged;
  // Whole tiles are written through tile buffers with aligned non-temporal stores of whole
  // cache lines (when the output pointers are 64-byte aligned at run time).
  bool streams = false;
};

TilePlan plan_tiles(const LoopShape& ls, const ElementwiseKernel& k) {
  TilePlan plan;
  const size_t rank = ls.extent.size();
  if (rank < 2 || ls.out_strides.back() != 1) return plan;
  for (size_t i = 0; i < k.inputs.size() && !plan.size; ++i) {
    const int64_t s = ls.in_strides[i].back();
    if (s == 0 || s == 1 || s == -1) continue;
    for (size_t d = 0; d + 1 < rank; ++d)
      if (ls.in_strides[i][d] == 1 && ls.extent[d] > 1) {
        plan.tile_dim = d;
        plan.size = 16;
        break;
      }
  }
  if (!plan.size) return plan;
  // Shuffle staging needs one element per lane of a 64-byte register, N lanes and N rows.
  for (size_t i = 0; i < k.inputs.size(); ++i) {
    const int64_t s = ls.in_strides[i].back();
    const size_t esz = types::dtype_size(k.inputs[i].dtype);
    if (s == 0 || s == 1 || ls.in_strides[i][plan.tile_dim] != 1 || (esz != 4 && esz != 8)) continue;
    plan.staged.push_back(i);
  }
  if (!plan.staged.empty()) {
    // One tile edge for all staged inputs: the narrowest element decides (16 floats, 8 doubles).
    size_t widest = 0;
    for (size_t i : plan.staged) widest = std::max(widest, types::dtype_size(k.inputs[i].dtype));
    plan.size = 64 / static_cast<int64_t>(widest);
    std::vector<size_t> same_width;
    for (size_t i : plan.staged)
      if (types::dtype_size(k.inputs[i].dtype) == widest) same_width.push_back(i);
    plan.staged = same_width;
  }
  // Streaming stores: a tile row of every output is whole cache lines, and every tile row
  // starts on a cache line when the buffer does.
  int64_t out_bytes = 0;
  plan.streams = !k.outputs.empty();
  for (int o : k.outputs) {
    const auto esz = static_cast<int64_t>(types::dtype_size(k.nodes[static_cast<size_t>(o)].dtype));
    int64_t n = 1;
    for (auto e : ls.extent) n *= e;
    out_bytes += n * esz;
    if ((plan.size * esz) % 64 != 0 || (k.out_offset * esz) % 64 != 0) plan.streams = false;
    for (size_t d = 0; d + 1 < rank; ++d)
      if ((ls.out_strides[d] * esz) % 64 != 0) plan.streams = false;
  }
  if (out_bytes < kStreamBytes) plan.streams = false;
  return plan;
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
    ls_ = ls;
    Cursor at;
    for (size_t i = 0; i < nin; ++i) {
      at.base.push_back(impl->getArg(i));
      at.offset.push_back(b_.getInt64(k_.inputs[i].offset));
      at.strides.push_back(ls.in_strides[i]);
    }
    for (size_t o = 0; o < nout; ++o) at.out_base.push_back(impl->getArg(nin + o));
    at.out = b_.getInt64(k_.out_offset);
    at.out_strides = ls.out_strides;
    plan_ = plan_tiles(ls, k_);
    if (plan_.size) {
      emit_tiled(at);
    } else {
      std::vector<Range> all;
      for (size_t d = 0; d < ls.extent.size(); ++d) all.push_back({d, 0, ls.extent[d]});
      loops(all, 0, at, [&](const Cursor& c) { emit_body(c); });
    }
    b_.CreateRetVoid();
    return impl;
  }

 private:
  using Leaf = std::function<void(const Cursor&)>;

  // The loops of ranges[r..] around `leaf`; offsets are in elements.
  void loops(const std::vector<Range>& ranges, size_t r, const Cursor& at, const Leaf& leaf) {
    if (r == ranges.size()) return leaf(at);
    const Range& range = ranges[r];
    if (range.lo >= range.hi) return;
    auto* back = counted_loop(b_, b_.getInt64(range.lo), b_.getInt64(range.hi), range.step, fmt::format("loop{}", range.dim), [&](llvm::Value* iv) {
      Cursor inner = at;
      for (size_t i = 0; i < at.offset.size(); ++i) {
        const int64_t s = at.strides[i][range.dim];
        if (s != 0) inner.offset[i] = b_.CreateAdd(at.offset[i], b_.CreateMul(iv, b_.getInt64(s)));
      }
      inner.out = b_.CreateAdd(at.out, b_.CreateMul(iv, b_.getInt64(at.out_strides[range.dim])));
      loops(ranges, r + 1, inner, leaf);
    });
    if (range.vector_width) vectorise_as_is(back, range.vector_width);
  }

  // The other dims outside; the (tile_dim, last) plane as whole tiles, then its two edges.
  void emit_tiled(const Cursor& at) {
    const size_t last = ls_.extent.size() - 1, t = plan_.tile_dim;
    const int64_t n = plan_.size;
    const int64_t rows = ls_.extent[t], cols = ls_.extent[last];
    const int64_t full_rows = rows - rows % n, full_cols = cols - cols % n;
    std::vector<Range> outer;
    for (size_t d = 0; d < last; ++d)
      if (d != t) outer.push_back({d, 0, ls_.extent[d]});
    // Tile buffers live in the entry block (one per staged input and, when streaming, one
    // per output; reused by every tile).
    std::vector<llvm::Value*> buffers;
    {
      llvm::IRBuilder<>::InsertPointGuard guard(b_);
      b_.SetInsertPoint(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
      auto tile_buffer = [&](types::DType dt) {
        auto* a = b_.CreateAlloca(storage_type(c_, dt), b_.getInt64(n * n));
        a->setAlignment(llvm::Align(64));
        return a;
      };
      for (size_t i : plan_.staged) buffers.push_back(tile_buffer(k_.inputs[i].dtype));
      if (plan_.streams) {
        out_tiles_.clear();
        for (int o : k_.outputs) out_tiles_.push_back(tile_buffer(k_.nodes[static_cast<size_t>(o)].dtype));
      }
    }
    if (plan_.streams) {  // streaming stores need 64-byte aligned outputs: checked once here
      llvm::Value* ok = b_.getTrue();
      for (llvm::Value* p : at.out_base)
        ok = b_.CreateAnd(ok, b_.CreateICmpEQ(b_.CreateAnd(b_.CreatePtrToInt(p, b_.getInt64Ty()), b_.getInt64(63)), b_.getInt64(0)));
      out_aligned_ = ok;
    }
    loops(outer, 0, at, [&](const Cursor& plane) {
      // Tiles in blocks of kBlock x kBlock elements: a block touches kBlock source rows and
      // kBlock result rows, few enough pages for the TLB, and each page serves many tiles
      // (swept plane-wide, every tile would touch a fresh page on both sides). Inside a block
      // consecutive tiles step along tile_dim: each reads the next cache line of the same
      // source rows, which the prefetchers see as a few sequential streams (measured: 6.3 ms
      // against 8.5 ms the other way round for a 4096x4096 float32 a.T + 1 on 2 devices).
      const int64_t block_rows = full_rows - full_rows % kBlock, block_cols = full_cols - full_cols % kBlock;
      auto tile = [&](const Cursor& c) { emit_tile(c, buffers); };
      loops({{t, 0, block_rows, kBlock}, {last, 0, block_cols, kBlock}, {last, 0, kBlock, n}, {t, 0, kBlock, n}}, 0, plane, tile);
      loops({{t, block_rows, full_rows, n}, {last, 0, full_cols, n}}, 0, plane, tile);
      loops({{t, 0, block_rows, n}, {last, block_cols, full_cols, n}}, 0, plane, tile);
      auto body = [&](const Cursor& c) { emit_body(c); };
      loops({{t, full_rows, rows}, {last, 0, cols}}, 0, plane, body);
      loops({{t, 0, full_rows}, {last, full_cols, cols}}, 0, plane, body);
    });
    // Streaming stores are weakly ordered: drain them before the kernel returns (the device
    // thread then publishes the output to its readers).
    if (plan_.streams && llvm::Triple(llvm::sys::getProcessTriple()).isX86())
      b_.CreateIntrinsic(llvm::Intrinsic::x86_sse_sfence, {}, {});
  }

  // One n x n tile at `tile`: staged inputs are loaded as n vectors along tile_dim,
  // transposed in registers into their buffers, and read from there by the tile's loops.
  void emit_tile(const Cursor& tile, const std::vector<llvm::Value*>& buffers) {
    const size_t last = ls_.extent.size() - 1, t = plan_.tile_dim;
    const int64_t n = plan_.size;
    Cursor inner = tile;
    for (size_t s = 0; s < plan_.staged.size(); ++s) {
      const size_t i = plan_.staged[s];
      auto* st = storage_type(c_, k_.inputs[i].dtype);
      auto* vty = llvm::FixedVectorType::get(st, static_cast<unsigned>(n));
      const llvm::Align align(types::dtype_size(k_.inputs[i].dtype));
      std::vector<llvm::Value*> vecs;
      for (int64_t j = 0; j < n; ++j) {
        auto* off = b_.CreateAdd(tile.offset[i], b_.getInt64(j * tile.strides[i][last]));
        vecs.push_back(b_.CreateAlignedLoad(vty, b_.CreateGEP(st, tile.base[i], off), align));
      }
      vecs = transpose_square(b_, std::move(vecs));
      for (int64_t r = 0; r < n; ++r)
        b_.CreateAlignedStore(vecs[r], b_.CreateGEP(st, buffers[s], b_.getInt64(r * n)), llvm::Align(64));
      inner.base[i] = buffers[s];
      inner.offset[i] = b_.getInt64(0);
      inner.strides[i].assign(ls_.extent.size(), 0);
      inner.strides[i][t] = n;
      inner.strides[i][last] = 1;
    }
    if (plan_.streams) {  // the tile's outputs go to the tile buffers, rows of n elements
      inner.out_base = out_tiles_;
      inner.out = b_.getInt64(0);
      inner.out_strides.assign(ls_.extent.size(), 0);
      inner.out_strides[t] = n;
      inner.out_strides[last] = 1;
    }
    loops({{t, 0, n}, {last, 0, n, 1, static_cast<unsigned>(n)}}, 0, inner, [&](const Cursor& c) { emit_body(c); });
    if (plan_.streams) stream_tile(tile);
  }

  // Copies the tile buffers to the outputs at `tile`, a cache line per store: non-temporal
  // when the outputs are aligned, else ordinary stores.
  void stream_tile(const Cursor& tile) {
    const size_t last = ls_.extent.size() - 1, t = plan_.tile_dim;
    const int64_t n = plan_.size;
    auto* nt_block = llvm::BasicBlock::Create(c_, "tile.stream", fn_);
    auto* plain_block = llvm::BasicBlock::Create(c_, "tile.store", fn_);
    auto* done = llvm::BasicBlock::Create(c_, "tile.stored", fn_);
    b_.CreateCondBr(out_aligned_, nt_block, plain_block);
    for (bool nt : {true, false}) {
      b_.SetInsertPoint(nt ? nt_block : plain_block);
      for (size_t o = 0; o < k_.outputs.size(); ++o) {
        const types::DType dt = k_.nodes[static_cast<size_t>(k_.outputs[o])].dtype;
        auto* st = storage_type(c_, dt);
        const auto esz = static_cast<int64_t>(types::dtype_size(dt));
        const int64_t lanes = 64 / esz;
        auto* vty = llvm::FixedVectorType::get(st, static_cast<unsigned>(lanes));
        for (int64_t r = 0; r < n; ++r)
          for (int64_t c = 0; c < n; c += lanes) {
            auto* v = b_.CreateAlignedLoad(vty, b_.CreateGEP(st, out_tiles_[o], b_.getInt64(r * n + c)), llvm::Align(64));
            auto* at = b_.CreateAdd(tile.out, b_.getInt64(r * tile.out_strides[t] + c * tile.out_strides[last]));
            auto* s = b_.CreateAlignedStore(v, b_.CreateGEP(st, tile.out_base[o], at), llvm::Align(nt ? 64 : esz));
            if (nt)
              s->setMetadata(llvm::LLVMContext::MD_nontemporal,
                             llvm::MDNode::get(c_, {llvm::ConstantAsMetadata::get(b_.getInt32(1))}));
          }
      }
      b_.CreateBr(done);
    }
    b_.SetInsertPoint(done);
  }

  void emit_body(const Cursor& at) {
    std::vector<llvm::Value*> vals(k_.nodes.size());
    ScalarOps ops(b_, mh_.module());
    for (size_t n = 0; n < k_.nodes.size(); ++n) {
      const EwNode& node = k_.nodes[n];
      if (node.op == EwOp::Input) {
        auto dt = k_.inputs[node.input].dtype;
        auto* p = b_.CreateGEP(storage_type(c_, dt), at.base[node.input], at.offset[node.input]);
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
      auto* p = b_.CreateGEP(st, at.out_base[o], at.out);
      b_.CreateStore(ops.to_storage(vals[k_.outputs[o]], node.dtype), p);
    }
  }

  jit::ModuleHandle& mh_;
  llvm::LLVMContext& c_;
  llvm::IRBuilder<> b_;
  const ElementwiseKernel& k_;
  llvm::Function* fn_ = nullptr;
  LoopShape ls_;
  TilePlan plan_;
  std::vector<llvm::Value*> out_tiles_;  // streaming: the outputs' tile buffers
  llvm::Value* out_aligned_ = nullptr;   // streaming: every output pointer 64-byte aligned
};

void validate(const ElementwiseKernel& k) {
  for (auto& in : k.inputs)
    if (in.strides.size() != k.shape.size()) throw std::logic_error("internal error: elementwise input rank mismatch");
  if (!k.out_strides.empty() && k.out_strides.size() != k.shape.size())
    throw std::logic_error("internal error: elementwise output rank mismatch");
  for (size_t n = 0; n < k.nodes.size(); ++n) {
    auto& node = k.nodes[n];
    if (node.op == EwOp::Input && (node.input < 0 || size_t(node.input) >= k.inputs.size()))
      throw std::logic_error("internal error: elementwise input index out of range");
    for (int a : node.args)
      if (a < 0 || size_t(a) >= n) throw std::logic_error("internal error: elementwise node uses a later node");
    if (node.reduces_row && (!k.rows || node.args.size() != 1))
      throw std::logic_error("internal error: a row reduction outside a row kernel");
  }
  for (int o : k.outputs)
    if (o < 0 || size_t(o) >= k.nodes.size()) throw std::logic_error("internal error: bad elementwise output");
  if (k.rows && (k.shape.size() != 2 || (!k.out_strides.empty() && k.out_strides.size() != 2)))
    throw std::logic_error("internal error: a row kernel is [rows, row length]");
  if (k.columns && !k.rows) throw std::logic_error("internal error: a column kernel is a row kernel");
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
  if (k.rows && k.columns) emit_column_kernel(mh, k, name);
  else if (k.rows) emit_row_kernel(mh, k, name);
  else EwEmitter(mh, k).emit(name);
  jit.add(std::move(mh), optimised_ir);
  return jit.lookup_fn<void(const void* const*, void* const*)>(name);
}

}  // namespace shard::codegen
