#include "exec/lower_control_kernel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "exec/host_kernels.hpp"
#include "exec/lower_control_calls.hpp"
#include "exec/lower_fusion.hpp"
#include "ir/dim_map.hpp"

namespace shard::exec {

namespace {

using codegen::LoopStmt;
using codegen::LoopVar;
using ir::EwOp;
using ir::OpKind;
using ir::ValueId;
using types::DType;

// Constants up to this size are baked into the kernel (LLVM folds scalars into the code);
// larger ones are passed in as inputs, so the cache key does not carry their bytes.
constexpr size_t kBakedLiteralBytes = 256;

int64_t bytes_of(const ir::ArrayType& t) { return t.num_elements() * static_cast<int64_t>(types::dtype_size(t.dtype())); }

// A fusion whose region reduces (spmd/row_fusion) is not an element loop: the loop kernel
// cannot emit it, so its body keeps the step path.
bool reducing_fusion(const ir::Op& op) {
  for (const auto& r : op.regions)
    for (const auto& inner : r->ops)
      if (inner.kind == OpKind::Reduce || inner.kind == OpKind::ArgReduce || inner.kind == OpKind::Cumulative) return true;
  return false;
}

bool op_compiles(const ir::Function& f, const ir::Op& op) {
  switch (op.kind) {
    case OpKind::Fusion:
      return !reducing_fusion(op);
    case OpKind::Elementwise: case OpKind::BroadcastInDim: case OpKind::Transpose:
    case OpKind::Slice: case OpKind::Rev: case OpKind::Reshape: case OpKind::Reduce: case OpKind::Concatenate:
    case OpKind::DynamicSlice: case OpKind::DynamicUpdateSlice: case OpKind::While: case OpKind::Scan:
    case OpKind::Cond:
      return true;
    case OpKind::Iota: case OpKind::DotGeneral: case OpKind::Cumulative: case OpKind::Sort:  // lower_control_calls
      return true;
    case OpKind::ArgReduce: {  // the kernel raises on an empty axis: the step path reports it
      const auto& arg = op.attr<ir::attr::ArgReduce>();
      return f.type(op.operands[0]).shape()[static_cast<size_t>(arg.axis)] > 0;
    }
    case OpKind::Constant: return op.attr<ir::attr::Constant>().literal != nullptr;
    case OpKind::Pad: {
      const auto& pad = op.attr<ir::attr::Pad>();
      for (size_t d = 0; d < pad.low.size(); ++d)
        if (pad.low[d] < 0 || pad.high[d] < 0) return false;  // the step path reports it
      return true;
    }
    default: return false;  // collectives, callbacks, runtime kernels
  }
}

bool region_compiles(const ir::Function& f) {
  for (const auto& op : f.ops) {
    if (!op_compiles(f, op)) return false;
    if (op.kind != OpKind::Fusion)  // a fusion's region is an element loop by construction
      for (const auto& r : op.regions)
        if (!region_compiles(*r)) return false;
  }
  return true;
}

// Builds the statements of one kernel from the IR of a control-flow op and its regions.
class KernelBuilder {
 public:
  ControlKernel build(const ir::Op& op, const ir::Function& fn) {
    Env env(fn);
    for (size_t i = 0; i < op.operands.size(); ++i)
      if (env.var_of[op.operands[i]] < 0) env.var_of[op.operands[i]] = input(static_cast<int>(i), nullptr);
    for (size_t r = 0; r < op.results.size(); ++r) {
      LoopVar out{LoopVar::Kind::Output, static_cast<int>(r), bytes_of(fn.type(op.results[r]))};
      env.dest_of[op.results[r]] = out_.kernel.add_var(out);
    }
    out_.kernel.num_outputs = static_cast<int>(op.results.size());
    lower_op(fn, op, env, out_.kernel.body);
    for (auto r : op.results)
      if (env.var_of[r] != env.dest_of[r]) out_.kernel.body.push_back(copy(env.dest_of[r], env.var_of[r], bytes_of(fn.type(r))));
    return std::move(out_);
  }

 private:
  // Per value of one function: its var, and where its producer should write it (-1: a
  // fresh local), so a body's next carry lands in the carry's buffer without a copy.
  struct Env {
    explicit Env(const ir::Function& f) : var_of(f.value_types.size(), -1), dest_of(f.value_types.size(), -1) {}
    std::vector<int> var_of, dest_of;
  };

  int input(int operand, std::shared_ptr<const ir::Literal> literal) {
    out_.operand.push_back(operand);
    out_.literal.push_back(std::move(literal));
    return out_.kernel.add_var({LoopVar::Kind::Input, out_.kernel.num_inputs++});
  }
  int local(int64_t bytes) { return out_.kernel.add_var({LoopVar::Kind::Local, -1, bytes}); }
  int bound() { return out_.kernel.add_var({LoopVar::Kind::Bound}); }
  int result_var(Env& env, ValueId v, int64_t bytes) {
    const int d = env.dest_of[v];
    return env.var_of[v] = d >= 0 ? d : local(bytes);
  }
  static LoopStmt copy(int dst, int src, int64_t bytes) {
    LoopStmt s;
    s.kind = LoopStmt::Kind::Copy;
    s.in = {src};
    s.out = {dst};
    s.bytes = bytes;
    return s;
  }
  static LoopStmt elementwise(codegen::ElementwiseKernel k, std::vector<int> in, int out) {
    LoopStmt s;
    s.kind = LoopStmt::Kind::Elementwise;
    s.ew = std::move(k);
    s.in = std::move(in);
    s.out = {out};
    return s;
  }
  // A one-input copy loop reading `in` through `strides` / `offset`, writing `out_shape`
  // (at `out_strides` / `out_offset` of a larger buffer when given).
  static codegen::ElementwiseKernel copy_kernel(DType dt, const types::Shape& out_shape, std::vector<int64_t> strides, int64_t offset) {
    codegen::ElementwiseKernel k;
    k.shape = out_shape;
    k.inputs = {{dt, std::move(strides), offset}};
    k.nodes = {{EwOp::Input, dt, {}, 0}};
    k.outputs = {0};
    return k;
  }

  int literal_var(const std::shared_ptr<const ir::Literal>& lit) {
    if (lit->bytes.size() > kBakedLiteralBytes) return input(-1, lit);
    LoopVar v{LoopVar::Kind::Literal};
    v.bytes = static_cast<int64_t>(lit->bytes.size());
    v.literal.assign(lit->bytes.begin(), lit->bytes.end());
    return out_.kernel.add_var(std::move(v));
  }

  // Lowers `region` with its params bound to `params`; its results end in `dests` (-1: left
  // where they are). Returns the results' vars.
  std::vector<int> lower_region(const ir::Function& region, const std::vector<int>& params, const std::vector<int>& dests,
                                std::vector<LoopStmt>& block) {
    Env env(region);
    for (size_t i = 0; i < region.params.size(); ++i) env.var_of[region.params[i]] = params[i];
    for (size_t i = 0; i < region.results.size(); ++i) {
      const ValueId v = region.results[i];
      // A value produced here and returned once is written straight into its destination.
      const bool returned_once = std::count(region.results.begin(), region.results.end(), v) == 1;
      if (dests[i] >= 0 && returned_once && env.var_of[v] < 0) env.dest_of[v] = dests[i];
    }
    for (const auto& op : region.ops) lower_op(region, op, env, block);
    std::vector<int> results;
    for (size_t i = 0; i < region.results.size(); ++i) {
      const ValueId v = region.results[i];
      if (dests[i] >= 0 && env.var_of[v] != dests[i]) block.push_back(copy(dests[i], env.var_of[v], bytes_of(region.type(v))));
      results.push_back(dests[i] >= 0 ? dests[i] : env.var_of[v]);
    }
    return results;
  }

  void lower_op(const ir::Function& f, const ir::Op& op, Env& env, std::vector<LoopStmt>& block) {
    auto var = [&](ValueId v) {
      if (env.var_of[v] < 0) throw std::logic_error("internal error: loop kernel value used before its definition");
      return env.var_of[v];
    };
    const ValueId result = op.results.empty() ? -1 : op.results[0];
    switch (op.kind) {
      case OpKind::Constant: env.var_of[result] = literal_var(op.attr<ir::attr::Constant>().literal); return;
      case OpKind::Reshape:  // contiguous row-major: the same bytes
        env.var_of[result] = out_.kernel.add_var({LoopVar::Kind::Alias, -1, 0, {}, var(op.operands[0])});
        return;
      case OpKind::Elementwise: {
        codegen::ElementwiseKernel k;
        const auto& rt = f.type(result);
        k.shape = rt.shape();
        std::vector<int> in, args;
        for (size_t i = 0; i < op.operands.size(); ++i) {
          const auto& t = f.type(op.operands[i]);
          k.inputs.push_back({t.dtype(), contiguous_strides(t.shape()), 0});
          k.nodes.push_back({EwOp::Input, t.dtype(), {}, static_cast<int>(i)});
          in.push_back(var(op.operands[i]));
          args.push_back(static_cast<int>(i));
        }
        const auto& ew = op.attr<ir::attr::Elementwise>();
        k.nodes.push_back({ew.op, rt.dtype(), args, -1, static_cast<double>(ew.y)});
        k.outputs = {static_cast<int>(op.operands.size())};
        block.push_back(elementwise(std::move(k), std::move(in), result_var(env, result, bytes_of(rt))));
        return;
      }
      case OpKind::Fusion: {
        FusedKernel fk = build_fused_kernel(*op.regions[0]);
        std::vector<int> in;
        for (size_t i = 0; i < fk.operand.size(); ++i)
          in.push_back(fk.operand[i] >= 0 ? var(op.operands[static_cast<size_t>(fk.operand[i])]) : literal_var(fk.literal[i]));
        block.push_back(elementwise(std::move(fk.kernel), std::move(in), result_var(env, result, bytes_of(f.type(result)))));
        return;
      }
      case OpKind::BroadcastInDim: case OpKind::Transpose: case OpKind::Slice: case OpKind::Rev: {
        // A strided read of the operand: result index j walks operand dim d by step.
        const auto& it = f.type(op.operands[0]);
        const auto& rt = f.type(result);
        auto in_strides = contiguous_strides(it.shape());
        std::vector<int64_t> strides(rt.rank(), 0);
        int64_t offset = 0;
        auto map = ir::dim_map(f, op);
        for (size_t d = 0; d < map.size(); ++d) {
          offset += map[d].start * in_strides[d];
          if (map[d].result_dim >= 0) strides[static_cast<size_t>(map[d].result_dim)] += map[d].step * in_strides[d];
        }
        block.push_back(elementwise(copy_kernel(rt.dtype(), rt.shape(), strides, offset), {var(op.operands[0])},
                                    result_var(env, result, bytes_of(rt))));
        return;
      }
      case OpKind::Concatenate: {
        // Each operand is copied into its slab of the result (strided writes).
        const auto& rt = f.type(result);
        const auto out_strides = contiguous_strides(rt.shape());
        const int64_t axis = op.attr<ir::attr::Concatenate>().dimension;
        const int out = result_var(env, result, bytes_of(rt));
        int64_t at = 0;
        for (auto v : op.operands) {
          const auto& t = f.type(v);
          auto k = copy_kernel(t.dtype(), t.shape(), contiguous_strides(t.shape()), 0);
          k.out_strides = out_strides;
          k.out_offset = at * out_strides[static_cast<size_t>(axis)];
          block.push_back(elementwise(std::move(k), {var(v)}, out));
          at += t.shape()[static_cast<size_t>(axis)];
        }
        return;
      }
      case OpKind::Pad: {
        // The pad value everywhere, then the operand's interior.
        const auto& pad = op.attr<ir::attr::Pad>();
        const auto& it = f.type(op.operands[0]);
        const auto& rt = f.type(result);
        const int out = result_var(env, result, bytes_of(rt));
        block.push_back(elementwise(copy_kernel(rt.dtype(), rt.shape(), std::vector<int64_t>(rt.rank(), 0), 0), {var(op.operands[1])}, out));
        auto k = copy_kernel(it.dtype(), it.shape(), contiguous_strides(it.shape()), 0);
        k.out_strides = contiguous_strides(rt.shape());
        for (size_t d = 0; d < it.rank(); ++d) k.out_offset += pad.low[d] * k.out_strides[d];
        block.push_back(elementwise(std::move(k), {var(op.operands[0])}, out));
        return;
      }
      case OpKind::Reduce: {
        const auto& it = f.type(op.operands[0]);
        const auto& reduce = op.attr<ir::attr::Reduce>();
        LoopStmt s;
        s.kind = LoopStmt::Kind::Reduce;
        s.reduce = {it.dtype(), reduce.kind, it.shape(), std::vector<bool>(it.rank(), false)};
        for (auto d : reduce.axes) s.reduce.reduced[static_cast<size_t>(d)] = true;
        s.in = {var(op.operands[0])};
        s.out = {result_var(env, result, bytes_of(f.type(result)))};
        block.push_back(std::move(s));
        return;
      }
      case OpKind::DynamicSlice: case OpKind::DynamicUpdateSlice: {
        const bool update = op.kind == OpKind::DynamicUpdateSlice;
        const auto& it = f.type(op.operands[0]);
        LoopStmt s;
        s.kind = update ? LoopStmt::Kind::DynamicUpdateSlice : LoopStmt::Kind::DynamicSlice;
        s.shape = it.shape();
        s.sizes = update ? f.type(op.operands[1]).shape() : op.attr<ir::attr::DynamicSlice>().slice_sizes;
        s.elem_bytes = static_cast<int64_t>(types::dtype_size(it.dtype()));
        for (size_t i = 0; i < op.operands.size(); ++i) {
          s.in.push_back(var(op.operands[i]));
          if (i >= (update ? 2u : 1u)) s.index_dtypes.push_back(f.type(op.operands[i]).dtype());
        }
        s.out = {result_var(env, result, bytes_of(f.type(result)))};
        block.push_back(std::move(s));
        return;
      }
      case OpKind::Iota:
        block.push_back(call_iota(f.type(result).dtype(), f.type(result).shape(), op.attr<ir::attr::Iota>().dimension,
                                  result_var(env, result, bytes_of(f.type(result)))));
        return;
      case OpKind::Cumulative: {
        const auto& it = f.type(op.operands[0]);
        const auto& cum = op.attr<ir::attr::Cumulative>();
        block.push_back(call_cumulative(it.dtype(), cum.kind, it.shape(), cum.axis, cum.reverse, var(op.operands[0]),
                                        result_var(env, result, bytes_of(f.type(result)))));
        return;
      }
      case OpKind::ArgReduce: {
        const auto& it = f.type(op.operands[0]);
        const auto& arg = op.attr<ir::attr::ArgReduce>();
        block.push_back(call_arg_reduce(it.dtype(), arg.kind, it.shape(), arg.axis, var(op.operands[0]),
                                        result_var(env, result, bytes_of(f.type(result)))));
        return;
      }
      case OpKind::Sort: {
        const auto& sa = op.attr<ir::attr::Sort>();
        std::vector<DType> dtypes;
        std::vector<int> in, out;
        for (auto v : op.operands) {
          dtypes.push_back(f.type(v).dtype());
          in.push_back(var(v));
        }
        for (auto r : op.results) out.push_back(result_var(env, r, bytes_of(f.type(r))));
        block.push_back(call_sort(dtypes, f.type(op.operands[0]).shape(), sa.dimension, sa.num_keys, std::move(in), std::move(out)));
        return;
      }
      case OpKind::DotGeneral: return lower_dot(f, op, env, block);
      case OpKind::While: return lower_while(f, op, env, block);
      case OpKind::Scan: return lower_scan(f, op, env, block);
      case OpKind::Cond: return lower_cond(f, op, env, block);
      default:
        throw std::logic_error(fmt::format("internal error: `{}` in a compiled loop body", ir::op_display_name(op)));
    }
  }

  // dot_general as the step path runs it: each operand copied into (batch, m, k) and
  // (batch, k, n) layouts unless already so, then a batched GEMM whose (batch, m, n) result
  // is JAX's output order.
  void lower_dot(const ir::Function& f, const ir::Op& op, Env& env, std::vector<LoopStmt>& block) {
    const auto& a = op.attr<ir::attr::DotGeneral>();
    const auto& lt = f.type(op.operands[0]);
    const auto& rt = f.type(op.operands[1]);
    const auto& ot = f.type(op.results[0]);
    auto free_dims = [](size_t rank, const std::vector<int64_t>& c, const std::vector<int64_t>& b) {
      std::vector<int64_t> fd;
      for (int64_t d = 0; d < static_cast<int64_t>(rank); ++d)
        if (std::find(c.begin(), c.end(), d) == c.end() && std::find(b.begin(), b.end(), d) == b.end()) fd.push_back(d);
      return fd;
    };
    auto lfree = free_dims(lt.rank(), a.lhs_contracting, a.lhs_batch);
    auto rfree = free_dims(rt.rank(), a.rhs_contracting, a.rhs_batch);
    auto prod = [](const types::Shape& sh, const std::vector<int64_t>& ds) {
      int64_t p = 1;
      for (auto d : ds) p *= sh[static_cast<size_t>(d)];
      return p;
    };
    const int64_t batch = prod(lt.shape(), a.lhs_batch), m = prod(lt.shape(), lfree), k = prod(lt.shape(), a.lhs_contracting),
                  n = prod(rt.shape(), rfree);
    std::vector<int64_t> lperm = a.lhs_batch, rperm = a.rhs_batch;
    lperm.insert(lperm.end(), lfree.begin(), lfree.end());
    lperm.insert(lperm.end(), a.lhs_contracting.begin(), a.lhs_contracting.end());
    rperm.insert(rperm.end(), a.rhs_contracting.begin(), a.rhs_contracting.end());
    rperm.insert(rperm.end(), rfree.begin(), rfree.end());
    // The operand's var, or a local holding it transposed by `perm`.
    auto laid_out = [&](ValueId v, const std::vector<int64_t>& perm) {
      const auto& t = f.type(v);
      bool identity = true;
      for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == static_cast<int64_t>(i);
      if (identity) return var_of(env, v);
      const auto in_strides = contiguous_strides(t.shape());
      types::Shape shape;
      std::vector<int64_t> strides;
      for (auto p : perm) {
        shape.push_back(t.shape()[static_cast<size_t>(p)]);
        strides.push_back(in_strides[static_cast<size_t>(p)]);
      }
      const int tmp = local(bytes_of(t));
      block.push_back(elementwise(copy_kernel(t.dtype(), shape, strides, 0), {var_of(env, v)}, tmp));
      return tmp;
    };
    const int lhs = laid_out(op.operands[0], lperm), rhs = laid_out(op.operands[1], rperm);
    block.push_back(call_gemm(ot.dtype(), batch, m, n, k, lhs, rhs, result_var(env, op.results[0], bytes_of(ot))));
  }

  static int var_of(const Env& env, ValueId v) {
    if (env.var_of[v] < 0) throw std::logic_error("internal error: loop kernel value used before its definition");
    return env.var_of[v];
  }

  // `dest`: where the loop's result for this carry must end (-1: anywhere). It becomes the
  // carry's first buffer, so a final value left there needs no copy (nothing else touches a
  // destination before the loop has finished).
  codegen::LoopCarry carry(int init, int64_t bytes, bool in_place, int dest) {
    codegen::LoopCarry c;
    c.cur = bound();
    c.spare = bound();
    c.a = dest >= 0 ? dest : local(bytes);
    if (!in_place) c.b = local(bytes);
    c.init = init;
    c.bytes = bytes;
    c.in_place = in_place;
    return c;
  }

  // The carries a body can update in place: the carry's param (body param `first + k`) is
  // used once, as the operand of a dynamic_update_slice whose result is the body's k-th
  // result, returned once. Nothing reads the old value after the update, so it may write
  // just its block into the carry's buffer (a fori_loop filling a table row by row copies
  // rows, not the table).
  static std::vector<bool> updated_in_place(const ir::Function& body, size_t first, size_t ncarry) {
    std::vector<bool> in_place(ncarry, false);
    for (size_t k = 0; k < ncarry; ++k) {
      const ValueId p = body.params[first + k];
      auto uses = std::count(body.results.begin(), body.results.end(), p);
      const ir::Op* user = nullptr;
      for (const auto& op : body.ops) {
        const auto n = std::count(op.operands.begin(), op.operands.end(), p);
        if (n) user = &op;
        uses += n;
      }
      if (uses != 1 || !user || user->kind != OpKind::DynamicUpdateSlice || user->operands[0] != p) continue;
      const ValueId next = user->results[0];
      in_place[k] = body.results[k] == next && std::count(body.results.begin(), body.results.end(), next) == 1;
    }
    return in_place;
  }

  // The vars of operands [from, to) of op.
  static std::vector<int> vars(const Env& env, const ir::Op& op, size_t from, size_t to) {
    std::vector<int> v;
    for (size_t i = from; i < to; ++i) v.push_back(env.var_of[op.operands[i]]);
    return v;
  }

  void lower_while(const ir::Function& f, const ir::Op& op, Env& env, std::vector<LoopStmt>& block) {
    const auto& w = op.attr<ir::attr::While>();
    const auto ncc = static_cast<size_t>(w.cond_nconsts), nbc = static_cast<size_t>(w.body_nconsts);
    LoopStmt s;
    s.kind = LoopStmt::Kind::While;
    std::vector<int> cur, spare;
    const auto in_place = updated_in_place(*op.regions[1], nbc, op.operands.size() - ncc - nbc);
    for (size_t i = ncc + nbc; i < op.operands.size(); ++i) {
      const size_t k = i - ncc - nbc;
      s.carries.push_back(carry(env.var_of[op.operands[i]], bytes_of(f.type(op.operands[i])), in_place[k], env.dest_of[op.results[k]]));
      cur.push_back(s.carries.back().cur);
      spare.push_back(s.carries.back().spare);
    }
    s.blocks.resize(2);
    auto cond_params = vars(env, op, 0, ncc);
    cond_params.insert(cond_params.end(), cur.begin(), cur.end());
    s.cond = lower_region(*op.regions[0], cond_params, {-1}, s.blocks[0])[0];
    auto body_params = vars(env, op, ncc, ncc + nbc);
    body_params.insert(body_params.end(), cur.begin(), cur.end());
    lower_region(*op.regions[1], body_params, spare, s.blocks[1]);
    for (size_t r = 0; r < op.results.size(); ++r) env.var_of[op.results[r]] = cur[r];
    block.push_back(std::move(s));
  }

  void lower_scan(const ir::Function& f, const ir::Op& op, Env& env, std::vector<LoopStmt>& block) {
    const auto& scan = op.attr<ir::attr::Scan>();
    const auto nconst = static_cast<size_t>(scan.num_consts), ncarry = static_cast<size_t>(scan.num_carry);
    LoopStmt s;
    s.kind = LoopStmt::Kind::Scan;
    s.length = scan.length;
    s.reverse = scan.reverse;
    auto params = vars(env, op, 0, nconst);
    std::vector<int> dests;
    const auto in_place = updated_in_place(*op.regions[0], nconst, ncarry);
    for (size_t i = nconst; i < nconst + ncarry; ++i) {
      const size_t k = i - nconst;
      s.carries.push_back(carry(env.var_of[op.operands[i]], bytes_of(f.type(op.operands[i])), in_place[k], env.dest_of[op.results[k]]));
      params.push_back(s.carries.back().cur);
      dests.push_back(s.carries.back().spare);
    }
    const auto per_iteration = [&](ValueId stacked) { return scan.length ? bytes_of(f.type(stacked)) / scan.length : 0; };
    for (size_t i = nconst + ncarry; i < op.operands.size(); ++i) {
      s.xs.push_back({bound(), env.var_of[op.operands[i]], per_iteration(op.operands[i])});
      params.push_back(s.xs.back().view);
    }
    for (size_t r = ncarry; r < op.results.size(); ++r) {
      const ValueId y = op.results[r];
      s.ys.push_back({bound(), result_var(env, y, bytes_of(f.type(y))), per_iteration(y)});
      dests.push_back(s.ys.back().view);
    }
    s.blocks.resize(1);
    lower_region(*op.regions[0], params, dests, s.blocks[0]);
    for (size_t r = 0; r < ncarry; ++r) env.var_of[op.results[r]] = s.carries[r].cur;
    block.push_back(std::move(s));
  }

  void lower_cond(const ir::Function& f, const ir::Op& op, Env& env, std::vector<LoopStmt>& block) {
    LoopStmt s;
    s.kind = LoopStmt::Kind::Cond;
    s.cond = env.var_of[op.operands[0]];
    std::vector<int> results;
    for (auto r : op.results) results.push_back(result_var(env, r, bytes_of(f.type(r))));
    const auto operands = vars(env, op, 1, op.operands.size());
    for (const auto& branch : op.regions) {
      s.blocks.emplace_back();
      lower_region(*branch, operands, results, s.blocks.back());
    }
    block.push_back(std::move(s));
  }

  ControlKernel out_;
};

}  // namespace

bool can_compile_control_flow(const ir::Op& op, const ir::Function& fn) {
  for (const auto& r : op.regions)
    if (!region_compiles(*r)) return false;
  return true;
}

ControlKernel build_control_kernel(const ir::Op& op, const ir::Function& fn) { return KernelBuilder().build(op, fn); }

}  // namespace shard::exec
