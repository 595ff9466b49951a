#include "exec/lower_fusion.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "exec/host_kernels.hpp"
#include "exec/kernel_cache.hpp"
#include "ir/dim_map.hpp"

namespace shard::exec {

namespace {

using ir::EwOp;
using ir::OpKind;
using ir::ValueId;

// Where a value's element is read, as a function of the loop index i (the result's index):
// per dim k of the value, index_k = c + sum_d coef[d] * i_d. View ops transform these maps
// backwards from the result to the region inputs, where they become strides and offsets.
struct Affine {
  std::vector<int64_t> coef;
  int64_t c = 0;
};
using IndexMap = std::vector<Affine>;

std::string map_key(ValueId v, const IndexMap& m) {
  std::string s = fmt::format("{}", v);
  for (auto& a : m) s += fmt::format("|{}+{}", fmt::join(a.coef, ","), a.c);
  return s;
}

class Builder {
 public:
  explicit Builder(const ir::Function& r) : r_(r) {
    producer_.assign(r.value_types.size(), -1);
    for (size_t i = 0; i < r.ops.size(); ++i)
      for (auto v : r.ops[i].results) producer_[v] = static_cast<int>(i);
    param_index_.assign(r.value_types.size(), -1);
    for (size_t i = 0; i < r.params.size(); ++i) param_index_[r.params[i]] = static_cast<int>(i);
  }

  FusedKernel build() {
    if (r_.results.size() != 1) throw std::logic_error("internal error: a fusion region has one result");
    const ValueId root = r_.results[0];
    const auto& shape = r_.type(root).shape();
    rank_ = shape.size();
    out_.kernel.shape = shape;
    IndexMap identity(rank_);
    for (size_t k = 0; k < rank_; ++k) {
      identity[k].coef.assign(rank_, 0);
      identity[k].coef[k] = 1;
    }
    out_.kernel.outputs = {node(root, identity)};
    return std::move(out_);
  }

 private:
  const ir::Op* op_of(ValueId v) const { return producer_[v] < 0 ? nullptr : &r_.ops[producer_[v]]; }
  bool is_buffer(ValueId v) const {
    const ir::Op* op = op_of(v);
    return !op || op->kind == OpKind::Constant;
  }
  IndexMap zero_map(size_t rank) const { return IndexMap(rank, Affine{std::vector<int64_t>(rank_, 0), 0}); }

  int push(codegen::EwNode n) {
    out_.kernel.nodes.push_back(std::move(n));
    return static_cast<int>(out_.kernel.nodes.size() - 1);
  }

  // The node computing value v at index map m (one node per distinct (v, m)).
  int node(ValueId v, const IndexMap& m) {
    auto key = map_key(v, m);
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    const int n = compute(v, m);
    memo_.emplace(std::move(key), n);
    return n;
  }

  int compute(ValueId v, const IndexMap& m) {
    const ir::Op* op = op_of(v);
    const auto& vt = r_.type(v);
    if (!op || op->kind == OpKind::Constant) return read(v, vt.shape(), m);
    switch (op->kind) {
      case OpKind::Elementwise: {
        std::vector<int> args;
        for (auto u : op->operands) {
          if (r_.type(u).shape() != vt.shape()) throw std::logic_error("internal error: fused elementwise operand shape");
          args.push_back(node(u, m));
        }
        const auto& ew = op->attr<ir::attr::Elementwise>();
        return push({ew.op, vt.dtype(), std::move(args), -1, static_cast<double>(ew.y)});
      }
      case OpKind::BroadcastInDim: case OpKind::Transpose: case OpKind::Slice: case OpKind::Rev: {
        // operand index[d] = start + step * result index[result_dim] (ir/dim_map.hpp)
        const ValueId u = op->operands[0];
        auto map = ir::dim_map(op->attrs, r_.type(u).shape(), vt.shape());
        IndexMap mu = zero_map(map.size());
        for (size_t d = 0; d < map.size(); ++d) {
          if (map[d].result_dim >= 0) {
            mu[d] = m[static_cast<size_t>(map[d].result_dim)];
            for (auto& c : mu[d].coef) c *= map[d].step;
            mu[d].c *= map[d].step;
          }
          mu[d].c += map[d].start;
        }
        return node(u, mu);
      }
      case OpKind::Reshape: {
        const ValueId u = op->operands[0];
        // A buffer is row-major either way: read it as if it had the result's shape.
        if (is_buffer(u)) return read(u, vt.shape(), m);
        if (r_.type(u).num_elements() == 1) return node(u, zero_map(r_.type(u).rank()));
        throw std::logic_error("internal error: fused reshape of a non-contiguous value");
      }
      default:
        throw std::logic_error(fmt::format("internal error: `{}` inside a fusion", ir::op_display_name(*op)));
    }
  }

  // An input node reading buffer value v (a region parameter or a constant), laid out
  // row-major in `shape`, at index map m.
  int read(ValueId v, const types::Shape& shape, const IndexMap& m) {
    const auto cs = contiguous_strides(shape);
    codegen::EwInput in{r_.type(v).dtype(), std::vector<int64_t>(rank_, 0), 0};
    for (size_t k = 0; k < shape.size(); ++k) {
      in.offset += cs[k] * m[k].c;
      for (size_t d = 0; d < rank_; ++d) in.strides[d] += cs[k] * m[k].coef[d];
    }
    const ir::Op* op = op_of(v);
    out_.kernel.inputs.push_back(std::move(in));
    out_.operand.push_back(op ? -1 : param_index_[v]);
    out_.literal.push_back(op ? op->attr<ir::attr::Constant>().literal : nullptr);
    if (op && !out_.literal.back()) throw std::logic_error("internal error: fused constant without data");
    const int index = static_cast<int>(out_.kernel.inputs.size() - 1);
    return push({EwOp::Input, r_.type(v).dtype(), {}, index});
  }

  const ir::Function& r_;
  std::vector<int> producer_, param_index_;
  size_t rank_ = 0;
  std::map<std::string, int> memo_;
  FusedKernel out_;
};

// A row fusion's region (spmd/row_fusion): reductions over the trailing (or leading) dims of
// one shape S with their producers and consumers. The kernel iterates [rows, row length] =
// [product of S's kept dims, product of the reduced ones] (a column kernel: [reduced, kept]);
// a value is read per element (shape S), per row / column (the kept dims, possibly with ones
// for the reduced ones) or once (one element). Broadcasts and reshapes between those shapes
// change nothing in that iteration space.
class RowBuilder {
 public:
  explicit RowBuilder(const ir::Function& r) : r_(r) {
    producer_.assign(r.value_types.size(), -1);
    for (size_t i = 0; i < r.ops.size(); ++i)
      for (auto v : r.ops[i].results) producer_[v] = static_cast<int>(i);
    param_index_.assign(r.value_types.size(), -1);
    for (size_t i = 0; i < r.params.size(); ++i) param_index_[r.params[i]] = static_cast<int>(i);
    memo_.assign(r.value_types.size(), -1);
  }

  FusedKernel build() {
    if (r_.results.empty()) throw std::logic_error("internal error: a fusion region without results");
    for (const auto& op : r_.ops)
      if (op.kind == OpKind::Reduce) {
        full_ = r_.type(op.operands[0]).shape();
        const auto& axes = op.attr<ir::attr::Reduce>().axes;
        lo_ = static_cast<size_t>(*std::min_element(axes.begin(), axes.end()));
        hi_ = static_cast<size_t>(*std::max_element(axes.begin(), axes.end())) + 1;
        break;
      }
    // Per row: [kept, reduced]; per column (leading dims reduced): [reduced, kept].
    const bool per_row = hi_ == full_.size();
    const size_t split = per_row ? lo_ : hi_;
    int64_t first = 1, second = 1;
    for (size_t d = 0; d < full_.size(); ++d) (d < split ? first : second) *= full_[d];
    out_.kernel.shape = {first, second};
    out_.kernel.rows = true;
    out_.kernel.columns = !per_row;
    part_strides_ = per_row ? std::vector<int64_t>{1, 0} : std::vector<int64_t>{0, 1};
    // Several results (spmd/moments) are all whole arrays or all per-row (per-column) values:
    // the kernel writes them the same way.
    const bool whole = r_.type(r_.results[0]).shape() == full_;
    for (const ValueId root : r_.results) {
      if ((r_.type(root).shape() == full_) != whole) throw std::logic_error("internal error: row fusion results of two kinds");
      out_.kernel.outputs.push_back(node(root));
    }
    if (!whole) out_.kernel.out_strides = part_strides_;
    return std::move(out_);
  }

 private:
  int push(codegen::EwNode n) {
    out_.kernel.nodes.push_back(std::move(n));
    return static_cast<int>(out_.kernel.nodes.size() - 1);
  }

  int node(ValueId v) {
    if (memo_[v] < 0) memo_[v] = compute(v);
    return memo_[v];
  }

  int compute(ValueId v) {
    const ir::Op* op = producer_[v] < 0 ? nullptr : &r_.ops[producer_[v]];
    const auto& vt = r_.type(v);
    if (!op || op->kind == OpKind::Constant) return read(v, op);
    switch (op->kind) {
      case OpKind::Elementwise: {
        std::vector<int> args;
        for (auto u : op->operands) args.push_back(node(u));
        const auto& ew = op->attr<ir::attr::Elementwise>();
        return push({ew.op, vt.dtype(), std::move(args), -1, static_cast<double>(ew.y)});
      }
      case OpKind::BroadcastInDim: case OpKind::Reshape:
        return node(op->operands[0]);  // the same per-row (or single) value
      case OpKind::Reduce: {
        EwOp combine = EwOp::Add;
        switch (op->attr<ir::attr::Reduce>().kind) {
          case ir::ReduceKind::Sum: combine = EwOp::Add; break;
          case ir::ReduceKind::Prod: combine = EwOp::Mul; break;
          case ir::ReduceKind::Max: combine = EwOp::Max; break;
          case ir::ReduceKind::Min: combine = EwOp::Min; break;
          case ir::ReduceKind::And: combine = EwOp::And; break;
          case ir::ReduceKind::Or: combine = EwOp::Or; break;
        }
        codegen::EwNode n{combine, vt.dtype(), {node(op->operands[0])}};
        n.reduces_row = true;
        return push(std::move(n));
      }
      default:
        throw std::logic_error(fmt::format("internal error: `{}` inside a row fusion", ir::op_display_name(*op)));
    }
  }

  // A region parameter or a constant: per element, per row or a single value, by its shape.
  int read(ValueId v, const ir::Op* constant) {
    const auto& shape = r_.type(v).shape();
    std::vector<int64_t> strides{0, 0};
    if (shape == full_) strides = {out_.kernel.shape[1], 1};
    else if (types::shape_product(shape) != 1) strides = part_strides_;
    out_.kernel.inputs.push_back({r_.type(v).dtype(), strides, 0});
    out_.operand.push_back(constant ? -1 : param_index_[v]);
    out_.literal.push_back(constant ? constant->attr<ir::attr::Constant>().literal : nullptr);
    if (constant && !out_.literal.back()) throw std::logic_error("internal error: fused constant without data");
    return push({EwOp::Input, r_.type(v).dtype(), {}, static_cast<int>(out_.kernel.inputs.size() - 1)});
  }

  const ir::Function& r_;
  std::vector<int> producer_, param_index_, memo_;
  types::Shape full_;
  size_t lo_ = 0, hi_ = 0;  // the reduced dims of full_
  std::vector<int64_t> part_strides_;  // how a per-row / per-column value is read
  FusedKernel out_;
};

bool has_reduction(const ir::Function& region) {
  for (const auto& op : region.ops)
    if (op.kind == OpKind::Reduce) return true;
  return false;
}

}  // namespace

FusedKernel build_fused_kernel(const ir::Function& region) {
  if (has_reduction(region)) return RowBuilder(region).build();
  if (region.results.size() != 1) throw std::logic_error("internal error: an element fusion has one result");
  return Builder(region).build();
}

Step lower_fusion(const ir::Op& op, Step s, KernelPlan& kernels) {
  if (op.regions.size() != 1) throw std::logic_error("internal error: a fusion has one region");
  FusedKernel fk = build_fused_kernel(*op.regions[0]);
  // Nothing to compute, and no loop to run (a row kernel still writes each row's reductions
  // of an empty row: only no rows (columns) at all is nothing).
  const int64_t kept = fk.kernel.shape.empty() ? 1 : fk.kernel.columns ? fk.kernel.shape[1] : fk.kernel.shape[0];
  if (fk.kernel.rows ? kept == 0 : num_elements(fk.kernel.shape) == 0) {
    s.run = [](const StepContext&, const std::vector<const void*>&, const std::vector<void*>&) {};
    return s;
  }
  auto fn = kernels.elementwise(fk.kernel);
  s.run = [fn, operand = std::move(fk.operand), literal = std::move(fk.literal)](
              const StepContext&, const std::vector<const void*>& in, const std::vector<void*>& out) {
    constexpr size_t kInline = 16;  // no allocation for the usual handful of inputs
    const void* inline_ptrs[kInline];
    std::vector<const void*> heap_ptrs;
    const void** ptrs = inline_ptrs;
    if (operand.size() > kInline) {
      heap_ptrs.resize(operand.size());
      ptrs = heap_ptrs.data();
    }
    for (size_t i = 0; i < operand.size(); ++i) ptrs[i] = operand[i] >= 0 ? in[operand[i]] : literal[i]->bytes.data();
    fn(ptrs, out.data());
  };
  return s;
}

}  // namespace shard::exec
