#include "spmd/local_builder.hpp"

#include <algorithm>

#include "runtime/process_layout.hpp"

#include <fmt/format.h>

#include <cstring>

#include "ir/builder.hpp"
#include "primitives/collectives/collectives.hpp"

namespace shard::spmd {

using ir::OpKind;
using types::DType;

// Layouts keep their unreduced axes: the devices along them hold partial sums.
PartitionSpec normalized(const PartitionSpec& s, size_t rank) {
  auto entries = s.entries();
  entries.resize(std::max(rank, entries.size()));
  entries.resize(rank);
  return PartitionSpec(entries, s.unreduced());
}

PartitionSpec with_entry(const PartitionSpec& s, size_t d, Entry e) {
  auto entries = s.entries();
  entries[d] = std::move(e);
  return PartitionSpec(entries, s.unreduced());
}

namespace {
bool has_axis(const Entry& axes, const std::string& a) { return std::find(axes.begin(), axes.end(), a) != axes.end(); }
}  // namespace

ir::ValueId LocalBuilder::reconcile_unreduced(ir::ValueId v, DType dt, const types::Shape& global, PartitionSpec& from,
                                              const PartitionSpec& to, const std::string& why) {
  Entry sum, split, kept;
  for (auto& a : from.unreduced()) (has_axis(to.unreduced(), a) ? kept : sum).push_back(a);
  for (auto& a : to.unreduced())
    if (!has_axis(from.unreduced(), a)) split.push_back(a);
  if (!sum.empty()) {
    sum = am_.order_wrt_mesh(sum);
    auto entries = from.entries();
    // Summed straight onto a dim the target shards on exactly these axes: a reduce-scatter
    // (half the traffic of an all-reduce, and no slicing after it).
    int64_t scatter = -1;
    for (size_t d = 0; d < entries.size() && scatter < 0; ++d)
      if (entries[d].empty() && to[d] == sum && global[d] % axes_size(sum) == 0) scatter = static_cast<int64_t>(d);
    const std::string what = fmt::format("{}: the partial sums over {} are added up", why, entry_text(sum));
    if (scatter >= 0) {
      v = collective(ir::attr::ReduceScatter{.kind = ir::ReduceKind::Sum, .axes = sum, .scatter_dimension = scatter, .tiled = true}, v, dt, what);
      entries[static_cast<size_t>(scatter)] = sum;
    } else {
      v = collective(ir::attr::AllReduce{.kind = ir::ReduceKind::Sum, .axes = sum}, v, dt, what);
    }
    from = PartitionSpec(entries, kept);
  }
  if (!split.empty()) {
    // A reduced value as partial sums over `split`: the first device along them keeps it,
    // the others hold zeros.
    ir::attr::AxisIndex ai;
    ai.axes = am_.order_wrt_mesh(split);
    auto idx = emit(OpKind::AxisIndex, {}, DType::I32, {}, ai);
    ir::attr::Elementwise eq;
    eq.op = ir::EwOp::Eq;
    auto first = emit(OpKind::Elementwise, {idx, scalar_i32(0)}, DType::Bool, {}, eq);
    ir::attr::Elementwise cvt;
    cvt.op = ir::EwOp::Convert;
    auto keep = emit(OpKind::Elementwise, {first}, dt, {}, cvt);
    const auto& local = fn_.type(v).shape();
    auto keep_all = emit(OpKind::BroadcastInDim, {keep}, dt, local, ir::attr::BroadcastInDim{});
    ir::attr::Elementwise mul;
    mul.op = ir::EwOp::Mul;
    v = emit(OpKind::Elementwise, {v, keep_all}, dt, local, mul);
    from = from.with_unreduced(to.unreduced());
  }
  return v;
}

std::string entry_text(const Entry& e) {
  std::vector<std::string> q;
  for (auto& a : e) q.push_back("'" + a + "'");
  return q.size() == 1 ? q[0] : fmt::format("({})", fmt::join(q, ", "));
}

types::Shape LocalBuilder::local_shape(const types::Shape& global, const PartitionSpec& layout) const {
  types::Shape s = global;
  for (size_t d = 0; d < s.size() && d < layout.size(); ++d) s[d] /= axes_size(layout[d]);
  return s;
}

ir::ValueId LocalBuilder::param(DType dt, const types::Shape& local) {
  return ir::Builder(fn_).param(ir::ArrayType(dt, local));
}

ir::ValueId LocalBuilder::emit(OpKind kind, std::vector<ir::ValueId> operands, DType dt, const types::Shape& local,
                               ir::Attrs attrs) {
  return ir::Builder(fn_, loc_).op(kind, std::move(operands), ir::ArrayType(dt, local), std::move(attrs));
}

std::vector<ir::ValueId> LocalBuilder::emit_multi(OpKind kind, std::vector<ir::ValueId> operands,
                                                  const std::vector<std::pair<DType, types::Shape>>& results, ir::Attrs attrs,
                                                  std::vector<std::shared_ptr<const ir::Function>> regions) {
  std::vector<ir::ArrayType> types;
  for (auto& [dt, shape] : results) types.emplace_back(dt, shape);
  return ir::Builder(fn_, loc_).op_multi(kind, std::move(operands), types, std::move(attrs), std::move(regions));
}

ir::ValueId LocalBuilder::scalar_i32(int64_t v) {
  ir::attr::Constant a;
  auto lit = std::make_shared<ir::Literal>();
  int32_t x = static_cast<int32_t>(v);
  lit->bytes.resize(4);
  std::memcpy(lit->bytes.data(), &x, 4);
  a.literal = lit;
  return emit(OpKind::Constant, {}, DType::I32, {}, a);
}

void LocalBuilder::record(const std::string& kind, const Entry& axes, int64_t bytes, const std::string& why) {
  // A device receives from the n-1 others of its group; those in other processes send theirs
  // over MPI.
  int64_t between = 0;
  const auto& layout = runtime::process_layout();
  if (layout.process_count > 1)
    for (const auto& group : mesh_.collective_groups(axes)) {
      const int64_t n = static_cast<int64_t>(group.size());
      for (int d : group) {
        int64_t remote = 0;
        for (int e : group) remote += layout.process_of(e) != layout.process_of(d);
        if (n > 1) between = std::max(between, bytes * remote / (n - 1));
      }
    }
  ledger_.push_back(CollectiveRecord{kind, axes, bytes, between, why, loc_});
}

ir::ValueId LocalBuilder::collective(ir::Attrs attrs, ir::ValueId v, DType dt, const std::string& why) {
  const OpKind kind = ir::attrs_kind(attrs);
  const Entry axes = ir::collective_axes(attrs);
  const auto effect = primitives::on_block(attrs, fn_.type(v).shape(), axes_size(axes));
  record(ir::collective_kind_name(kind), axes, effect.elements_moved * static_cast<int64_t>(types::dtype_size(dt)), why);
  return emit(kind, {v}, dt, effect.shape, std::move(attrs));
}

static bool is_prefix(const Entry& p, const Entry& e) {
  return p.size() <= e.size() && std::equal(p.begin(), p.end(), e.begin());
}

ir::ValueId LocalBuilder::reshard(ir::ValueId v, DType dt, const types::Shape& global, const PartitionSpec& from_in,
                                  const PartitionSpec& to_in, const std::string& why) {
  const size_t rank = global.size();
  PartitionSpec from = normalized(from_in, rank), to = normalized(to_in, rank);
  if (from == to) return v;
  if (from.unreduced() != to.unreduced()) {
    v = reconcile_unreduced(v, dt, global, from, to, why);
    if (from == to) return v;
  }
  auto cur = from.entries();
  // 0. Sharding that only changes dims moves by all-to-all: each device exchanges 1/n of its
  //    block with each peer instead of gathering the whole array.
  for (size_t d = 0; d < rank; ++d) {
    if (cur[d].empty() || is_prefix(cur[d], to[d])) continue;
    for (size_t e = 0; e < rank; ++e) {
      if (e == d || !cur[e].empty() || !is_prefix(cur[d], to[e])) continue;
      const int64_t n = axes_size(cur[d]);
      if (fn_.type(v).shape()[e] % n != 0) continue;
      v = collective(ir::attr::AllToAll{.axes = cur[d], .split_axis = static_cast<int64_t>(e), .concat_axis = static_cast<int64_t>(d), .tiled = true}, v, dt,
                     fmt::format("{}: the sharding on {} moves from dim {} to dim {}", why, entry_text(cur[d]), d, e));
      cur[e] = cur[d];
      cur[d].clear();
      break;
    }
  }
  // 1. Gather every dim whose current axes are not the start of its target axes.
  for (size_t d = 0; d < rank; ++d) {
    if (!cur[d].empty() && !is_prefix(cur[d], to[d])) {
      v = collective(ir::attr::AllGather{.axes = cur[d], .all_gather_dimension = static_cast<int64_t>(d), .tiled = true}, v, dt,
                     fmt::format("{}: dim {} sharded on {} must become {}", why, d, entry_text(cur[d]),
                                 to[d].empty() ? std::string("replicated") : entry_text(to[d])));
      cur[d].clear();
    }
  }
  // 2. Split locally what the target shards further: no communication, each device keeps
  //    the block its axis index selects.
  std::vector<ir::ValueId> starts;
  bool any = false;
  types::Shape sizes = fn_.type(v).shape();
  for (size_t d = 0; d < rank; ++d) {
    Entry rest(to[d].begin() + static_cast<long>(cur[d].size()), to[d].end());
    if (rest.empty()) {
      starts.push_back(-1);
      continue;
    }
    any = true;
    const int64_t piece = sizes[d] / axes_size(rest);
    sizes[d] = piece;
    ir::attr::AxisIndex ai;
    ai.axes = rest;
    auto idx = emit(OpKind::AxisIndex, {}, DType::I32, {}, ai);
    ir::attr::Elementwise mul;
    mul.op = ir::EwOp::Mul;
    starts.push_back(emit(OpKind::Elementwise, {idx, scalar_i32(piece)}, DType::I32, {}, mul));
  }
  if (!any) return v;
  std::vector<ir::ValueId> operands{v};
  ir::ValueId zero = -1;
  for (auto s : starts) {
    if (s < 0) {
      if (zero < 0) zero = scalar_i32(0);
      s = zero;
    }
    operands.push_back(s);
  }
  ir::attr::DynamicSlice a;
  a.slice_sizes = sizes;
  return emit(OpKind::DynamicSlice, operands, dt, sizes, a);
}

}  // namespace shard::spmd
