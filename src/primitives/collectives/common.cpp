#include "primitives/collectives/common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <type_traits>
#include <vector>

namespace shard {

namespace {
std::vector<bool>& check_vma_stack() {
  static std::vector<bool> stack;
  return stack;
}
std::vector<std::pair<std::string, int64_t>>& vmap_axis_stack() {
  static std::vector<std::pair<std::string, int64_t>> stack;
  return stack;
}
}  // namespace

namespace trace {
CheckVmaScope::CheckVmaScope(bool check_vma) { check_vma_stack().push_back(check_vma); }
CheckVmaScope::~CheckVmaScope() { check_vma_stack().pop_back(); }
bool vma_checked() { return check_vma_stack().empty() || check_vma_stack().back(); }

VmapAxisScope::VmapAxisScope(std::string name, int64_t size) { vmap_axis_stack().emplace_back(std::move(name), size); }
VmapAxisScope::~VmapAxisScope() { vmap_axis_stack().pop_back(); }
}  // namespace trace

namespace primitives {

BlockEffect on_block(const ir::Attrs& attrs, const types::Shape& block, int64_t n) {
  return std::visit(
      [&](const auto& a) -> BlockEffect {
        if constexpr (requires { on_block(a, block, n); }) return on_block(a, block, n);
        else throw std::logic_error("internal error: the partitioner inserts a collective it has no block effect for");
      },
      attrs);
}

namespace collectives {

RuleContext rule_ctx(const trace::Trace& t, const std::string& op) {
  auto ctx = t.ctx(op);
  ctx.check_vma = trace::vma_checked();
  return ctx;
}

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

void reject_vmap_axes(const AxisNames& axes, const std::string& op) {
  if (vmap_axes_size(axes, op))
    throw types::ShardingError("NotImplementedError", fmt::format("{} over a vmap axis_name is not supported yet (psum, pmean, pmax, pmin, all_gather and axis_index are)", op));
}

bool names_other_vmap_axis(const batching::BatchArgs& a) {
  for (auto& n : ir::collective_axes(a.op))
    if (!a.t.mesh().has_axis(n)) return true;
  return false;
}

bool contains(const AxisNames& v, const std::string& a) { return std::find(v.begin(), v.end(), a) != v.end(); }

int64_t bound_axes_size(const RuleContext& ctx, const AxisNames& axes) {
  if (axes.empty()) types::throw_value_error(fmt::format("`{}` needs at least one axis name.", ctx.op));
  AxisNames available = ctx.mesh.manual_axes();
  for (const auto& a : axes)
    if (!contains(available, a)) {
      std::string list;
      for (size_t i = 0; i < available.size(); ++i) list += (i ? ", " : "") + types::py_str_repr(available[i]);
      sharding::throw_name_error(fmt::format(
          "unbound axis name: {}. The following axis names (e.g. defined by shard_map) are "
          "available to collective operations: [{}]",
          a, list));
    }
  std::set<std::string> unique(axes.begin(), axes.end());
  if (unique.size() != axes.size())
    types::throw_value_error(fmt::format("`{}`: axis names must be distinct, got {}", ctx.op, types::py_str_tuple(axes)));
  return ctx.mesh.axes_size(axes);
}

AxisNames vma_union(const RuleContext& ctx, const ArrayType& x, const AxisNames& axes) {
  if (!ctx.check_vma) return {};
  AxisNames v = x.vma();
  for (const auto& a : axes)
    if (!contains(v, a)) v.push_back(a);
  return v;
}

ArrayType result(const RuleContext& ctx, const ArrayType& x, Shape shape, std::vector<Entry> spec, AxisNames vma) {
  const types::AbstractMesh& mesh = x.mesh().empty() ? ctx.mesh : x.mesh();
  return sharding::make_result(ctx, {x}, x.dtype(), std::move(shape), mesh, types::PartitionSpec(spec), std::move(vma), x.weak_type());
}

}  // namespace collectives
}  // namespace primitives
}  // namespace shard
