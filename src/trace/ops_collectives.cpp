// Collectives inside shard_map (SHARDING_RULES.md §7): each takes its type from the rule in
// sharding/collectives.cpp and records one IR collective; the partitioner passes them through
// and exec/lower_collectives.cpp runs them on the runtime's rendezvous collectives.
// pvary has no data movement: it is recorded as a same-shape reshape carrying the new type.
#include <fmt/format.h>

#include <vector>

#include "trace/ops.hpp"

namespace shard::trace {

using ir::OpKind;

namespace {
std::vector<bool>& check_vma_stack() {
  static std::vector<bool> stack;
  return stack;
}
}  // namespace

CheckVmaScope::CheckVmaScope(bool check_vma) { check_vma_stack().push_back(check_vma); }
CheckVmaScope::~CheckVmaScope() { check_vma_stack().pop_back(); }
bool vma_checked() { return check_vma_stack().empty() || check_vma_stack().back(); }

namespace {
std::vector<std::pair<std::string, int64_t>>& vmap_axis_stack() {
  static std::vector<std::pair<std::string, int64_t>> stack;
  return stack;
}

// The size of the vmap axes `axes` names (all of them vmap axes), or nullopt (none is).
std::optional<int64_t> vmap_axes_size(const AxisNames& axes, const std::string& op) {
  int64_t size = 1;
  size_t found = 0;
  for (auto& a : axes)
    for (auto it = vmap_axis_stack().rbegin(); it != vmap_axis_stack().rend(); ++it)
      if (it->first == a) {
        size *= it->second;
        ++found;
        break;
      }
  if (found == 0) return std::nullopt;
  if (found != axes.size())
    throw types::ShardingError("NotImplementedError", fmt::format("{} over vmap axes and mesh axes together is not supported yet", op));
  return size;
}
}  // namespace

VmapAxisScope::VmapAxisScope(std::string name, int64_t size) { vmap_axis_stack().emplace_back(std::move(name), size); }
VmapAxisScope::~VmapAxisScope() { vmap_axis_stack().pop_back(); }

namespace {
sharding::RuleContext collective_ctx(const Trace& t, const std::string& op) {
  auto ctx = t.ctx(op);
  ctx.check_vma = vma_checked();
  return ctx;
}
}  // namespace

ValueId pvary(Trace& t, ValueId x, const AxisNames& axes, const std::string& name) {
  auto rt = sharding::propagate_pvary(collective_ctx(t, name), t.type(x), axes);
  if (rt == t.type(x)) return x;
  return t.emit(OpKind::Reshape, {x}, rt);
}

ValueId all_reduce(Trace& t, const std::string& name, ReduceKind kind, ValueId x, const AxisNames& axes) {
  if (vmap_axes_size(axes, name)) {  // over a vmap axis: the batching transform resolves it
    ir::attr::AllReduce a;
    a.kind = kind;
    a.axes = axes;
    return t.emit(OpKind::AllReduce, {x}, t.type(x), a);
  }
  auto ctx = collective_ctx(t, name);
  auto rt = sharding::propagate_psum(ctx, t.type(x), axes);
  ir::attr::AllReduce a;
  a.kind = kind;
  a.axes = axes;
  return t.emit(OpKind::AllReduce, {x}, rt, a);
}

ValueId pmean(Trace& t, ValueId x, const AxisNames& axes) {
  ValueId s = all_reduce(t, "pmean", ReduceKind::Sum, x, axes);
  auto vn = vmap_axes_size(axes, "pmean");
  auto n = static_cast<double>(vn ? *vn : t.mesh().axes_size(axes));
  return binary(t, "div", EwOp::Div, s, scalar_constant(t, n, {DType::I32, true}));
}

ValueId all_gather(Trace& t, ValueId x, const AxisNames& axes, int64_t axis, bool tiled) {
  auto ctx = collective_ctx(t, "all_gather");
  const auto& xt = t.type(x);
  if (auto n = vmap_axes_size(axes, "all_gather")) {  // over a vmap axis: resolved by batching
    const auto d = static_cast<int64_t>(sharding::normalize_axis(ctx, axis, tiled ? xt.rank() : xt.rank() + 1, "axis"));
    types::Shape shape = xt.shape();
    auto e = xt.spec().normalized(xt.rank()).entries();
    if (tiled) {
      shape[static_cast<size_t>(d)] *= *n;
    } else {
      shape.insert(shape.begin() + d, *n);
      e.insert(e.begin() + d, types::PartitionSpec::Entry{});
    }
    ir::attr::AllGather a;
    a.axes = axes;
    a.all_gather_dimension = d;
    a.tiled = tiled;
    return t.emit(OpKind::AllGather, {x}, xt.with_shape(shape, types::PartitionSpec(e)), a);
  }
  auto rt = sharding::propagate_all_gather(ctx, xt, axes, axis, tiled);
  ir::attr::AllGather a;
  a.axes = axes;
  a.all_gather_dimension = static_cast<int64_t>(sharding::normalize_axis(ctx, axis, tiled ? xt.rank() : xt.rank() + 1, "axis"));
  a.tiled = tiled;
  return t.emit(OpKind::AllGather, {x}, rt, a);
}

ValueId psum_scatter(Trace& t, ValueId x, const AxisNames& axes, int64_t scatter_dimension, bool tiled) {
  if (vmap_axes_size(axes, "psum_scatter"))
    throw types::ShardingError("NotImplementedError", "psum_scatter over a vmap axis_name is not supported yet (psum, pmean, pmax, pmin, all_gather and axis_index are)");
  auto ctx = collective_ctx(t, "psum_scatter");
  const auto& xt = t.type(x);
  auto rt = sharding::propagate_psum_scatter(ctx, xt, axes, scatter_dimension, tiled);
  ir::attr::ReduceScatter a;
  a.kind = ReduceKind::Sum;
  a.axes = axes;
  a.scatter_dimension = static_cast<int64_t>(sharding::normalize_axis(ctx, scatter_dimension, xt.rank(), "scatter_dimension"));
  a.tiled = tiled;
  return t.emit(OpKind::ReduceScatter, {x}, rt, a);
}

ValueId ppermute(Trace& t, ValueId x, const AxisNames& axes, const std::vector<std::pair<int64_t, int64_t>>& perm) {
  if (vmap_axes_size(axes, "ppermute"))
    throw types::ShardingError("NotImplementedError", "ppermute over a vmap axis_name is not supported yet (psum, pmean, pmax, pmin, all_gather and axis_index are)");
  auto rt = sharding::propagate_ppermute(collective_ctx(t, "ppermute"), t.type(x), axes, perm);
  ir::attr::CollectivePermute a;
  a.axes = axes;
  a.perm = perm;
  return t.emit(OpKind::CollectivePermute, {x}, rt, a);
}

ValueId all_to_all(Trace& t, ValueId x, const AxisNames& axes, int64_t split_axis, int64_t concat_axis, bool tiled) {
  if (vmap_axes_size(axes, "all_to_all"))
    throw types::ShardingError("NotImplementedError", "all_to_all over a vmap axis_name is not supported yet (psum, pmean, pmax, pmin, all_gather and axis_index are)");
  auto ctx = collective_ctx(t, "all_to_all");
  const auto& xt = t.type(x);
  auto rt = sharding::propagate_all_to_all(ctx, xt, axes, split_axis, concat_axis, tiled);
  ir::attr::AllToAll a;
  a.axes = axes;
  a.split_axis = static_cast<int64_t>(sharding::normalize_axis(ctx, split_axis, xt.rank(), "split_axis"));
  a.concat_axis = static_cast<int64_t>(sharding::normalize_axis(ctx, concat_axis, xt.rank(), "concat_axis"));
  a.tiled = tiled;
  return t.emit(OpKind::AllToAll, {x}, rt, a);
}

ValueId axis_index(Trace& t, const AxisNames& axes) {
  if (vmap_axes_size(axes, "axis_index")) {
    ir::attr::AxisIndex a;
    a.axes = axes;
    return t.emit(OpKind::AxisIndex, {}, sharding::propagate_creation(t.ctx("axis_index"), types::DType::I32, {}, std::nullopt), a);
  }
  auto rt = sharding::propagate_axis_index(collective_ctx(t, "axis_index"), axes);
  ir::attr::AxisIndex a;
  a.axes = axes;
  return t.emit(OpKind::AxisIndex, {}, rt, a);
}

}  // namespace shard::trace
