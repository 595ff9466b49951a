// §3 Shape operations that move dims around without splitting or merging them: broadcasts,
// expand_dims/squeeze, transpose, rev, concatenate/stack.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "ir/dim_map.hpp"
#include "sharding/rules.hpp"

namespace shard::sharding {

using types::throw_type_error;
using types::throw_value_error;

namespace {

std::string int_list(const std::vector<int64_t>& v) { return types::py_int_tuple(v); }

}  // namespace

ArrayType propagate_broadcast_in_dim(const RuleContext& ctx, const ArrayType& x, const Shape& shape,
                                     const std::vector<int64_t>& broadcast_dimensions,
                                     const OptOutSharding& out_sharding) {
  const auto& bd = broadcast_dimensions;
  bool ok = bd.size() == x.rank();
  for (size_t i = 0; ok && i < bd.size(); ++i) {
    ok = bd[i] >= 0 && static_cast<size_t>(bd[i]) < shape.size() && (i == 0 || bd[i] > bd[i - 1]);
    ok = ok && (x.shape()[i] == 1 || x.shape()[i] == shape[static_cast<size_t>(bd[i])]);
  }
  if (!ok)
    throw_type_error(fmt::format(
        "`{}`: cannot broadcast operand of shape {} to shape {} with broadcast_dimensions {}; "
        "they must be strictly increasing result dims whose sizes equal the operand's or 1.",
        ctx.op, shape_tuple(x.shape()), shape_tuple(shape), int_list(bd)));
  OutputPlan plan = plan_output(ctx, {x});
  reject_unreduced(ctx, {x});
  std::vector<Entry> spec(shape.size());
  if (out_sharding) {
    NamedSharding s = resolve_out_sharding(ctx, *out_sharding, ctx.op);
    return make_result(ctx, {x}, x.dtype(), shape, s.abstract_mesh(), s.spec(), plan.vma,
                       x.weak_type());
  }
  if (plan.rule_runs) {  // whole dims keep their sharding (a size-1 dim has none to keep)
    auto in = spec_entries(x);
    auto map = ir::dim_map(ir::attr::BroadcastInDim{bd}, x.shape(), shape);
    for (size_t i = 0; i < map.size(); ++i)
      if (ir::keeps_whole_dim(map, i, x.shape(), shape)) spec[static_cast<size_t>(map[i].result_dim)] = in[i];
  }
  return make_result(ctx, {x}, x.dtype(), shape, plan.mesh, PartitionSpec(spec, {}, x.spec().reduced()), plan.vma,
                     x.weak_type());
}

ArrayType propagate_broadcast_to(const RuleContext& ctx, const ArrayType& x, const Shape& shape,
                                 const OptOutSharding& out_sharding) {
  bool ok = shape.size() >= x.rank();
  size_t off = ok ? shape.size() - x.rank() : 0;
  for (size_t i = 0; ok && i < x.rank(); ++i)
    ok = x.shape()[i] == 1 || x.shape()[i] == shape[off + i];
  if (!ok)
    throw_value_error(fmt::format("`{}`: Incompatible shapes for broadcasting: {} and requested "
                                  "shape {}",
                                  ctx.op, shape_tuple(x.shape()), shape_tuple(shape)));
  std::vector<int64_t> bd(x.rank());
  std::iota(bd.begin(), bd.end(), static_cast<int64_t>(off));
  return propagate_broadcast_in_dim(ctx, x, shape, bd, out_sharding);
}

ArrayType propagate_expand_dims(const RuleContext& ctx, const ArrayType& x,
                                const std::vector<int64_t>& axes) {
  size_t rank = x.rank() + axes.size();
  std::vector<bool> is_new(rank, false);
  for (int64_t a : axes) {
    size_t d = normalize_axis(ctx, a, rank, "axis");
    if (is_new[d]) throw_value_error(fmt::format("`{}`: repeated axis {} in axes", ctx.op, a));
    is_new[d] = true;
  }
  OutputPlan plan = plan_output(ctx, {x});
  auto in = spec_entries(x);
  Shape shape;
  std::vector<Entry> spec;
  size_t next = 0;
  for (size_t d = 0; d < rank; ++d) {
    shape.push_back(is_new[d] ? 1 : x.shape()[next]);
    spec.push_back(is_new[d] || !plan.rule_runs ? Entry{} : in[next]);
    if (!is_new[d]) ++next;
  }
  return make_result(ctx, {x}, x.dtype(), shape, plan.mesh,
                     x.spec().with_entries(spec), plan.vma, x.weak_type());
}

ArrayType propagate_squeeze(const RuleContext& ctx, const ArrayType& x,
                            const std::vector<int64_t>& dims) {
  std::vector<bool> drop(x.rank(), false);
  for (int64_t a : dims) {
    size_t d = normalize_axis(ctx, a, x.rank(), "dimension");
    if (x.shape()[d] != 1)
      throw_value_error(fmt::format(
          "`{}`: cannot select an axis to squeeze out which has size not equal to one, got "
          "shape={} and dimensions={}",
          ctx.op, shape_tuple(x.shape()), int_list(dims)));
    drop[d] = true;
  }
  OutputPlan plan = plan_output(ctx, {x});
  auto in = spec_entries(x);
  Shape shape;
  std::vector<Entry> spec;
  for (size_t d = 0; d < x.rank(); ++d) {
    if (drop[d]) continue;
    shape.push_back(x.shape()[d]);
    spec.push_back(plan.rule_runs ? in[d] : Entry{});
  }
  return make_result(ctx, {x}, x.dtype(), shape, plan.mesh,
                     x.spec().with_entries(spec), plan.vma, x.weak_type());
}

ArrayType propagate_squeeze_all(const RuleContext& ctx, const ArrayType& x) {
  std::vector<int64_t> dims;
  for (size_t d = 0; d < x.rank(); ++d)
    if (x.shape()[d] == 1) dims.push_back(static_cast<int64_t>(d));
  return propagate_squeeze(ctx, x, dims);
}

ArrayType propagate_transpose(const RuleContext& ctx, const ArrayType& x,
                              const std::vector<int64_t>& perm_in) {
  std::vector<int64_t> perm = perm_in;
  if (perm.empty())
    for (size_t d = x.rank(); d-- > 0;) perm.push_back(static_cast<int64_t>(d));
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  bool ok = perm.size() == x.rank();
  for (size_t i = 0; ok && i < sorted.size(); ++i) ok = sorted[i] == static_cast<int64_t>(i);
  if (!ok)
    throw_type_error(fmt::format(
        "`{}` permutation must be a permutation of range(ndim), got permutation={} for operand "
        "shape {}.",
        ctx.op, int_list(perm), shape_tuple(x.shape())));
  OutputPlan plan = plan_output(ctx, {x});
  auto in = spec_entries(x);
  Shape shape;
  for (int64_t p : perm) shape.push_back(x.shape()[static_cast<size_t>(p)]);
  // Each operand dim's sharding goes where the dimension map sends the dim (ir/dim_map.hpp).
  std::vector<Entry> spec(shape.size());
  auto map = ir::dim_map(ir::attr::Transpose{perm}, x.shape(), shape);
  if (plan.rule_runs)
    for (size_t d = 0; d < map.size(); ++d) spec[static_cast<size_t>(map[d].result_dim)] = in[d];
  return make_result(ctx, {x}, x.dtype(), shape, plan.mesh,
                     x.spec().with_entries(spec), plan.vma, x.weak_type());
}

ArrayType propagate_rev(const RuleContext& ctx, const ArrayType& x,
                        const std::vector<int64_t>& dims) {
  for (int64_t d : dims) normalize_axis(ctx, d, x.rank(), "dimension");
  OutputPlan plan = plan_output(ctx, {x});
  PartitionSpec spec = plan.rule_runs ? x.spec() : PartitionSpec();
  return make_result(ctx, {x}, x.dtype(), x.shape(), plan.mesh, spec, plan.vma, x.weak_type());
}

namespace {

// The one sharding all operands on a mesh share (JAX: operands on the empty mesh, such as
// constants, do not take part).
std::vector<Entry> common_sharding(const RuleContext& ctx, const std::vector<ArrayType>& operands) {
  const ArrayType* first = nullptr;
  for (const auto& t : operands) {
    if (t.mesh().empty()) continue;
    if (!first) {
      first = &t;
    } else if (t.spec() != first->spec()) {
      throw_sharding_type_error(fmt::format(
          "`{}`: all operands should have the same sharding. Got operand types {}. Reshard "
          "them to one sharding first, e.g. `reshard(x, {})` for the operand of type {}.",
          ctx.op, types_list(operands), paste_spec(spec_entries(*first)), t.str_short()));
    }
  }
  return first ? spec_entries(*first) : std::vector<Entry>{};
}

void check_same_rank_shapes(const RuleContext& ctx, const std::vector<ArrayType>& operands,
                            std::optional<size_t> except_dim) {
  const ArrayType& a = operands[0];
  for (const auto& t : operands) {
    bool ok = t.rank() == a.rank();
    for (size_t d = 0; ok && d < a.rank(); ++d)
      ok = (except_dim && d == *except_dim) || t.shape()[d] == a.shape()[d];
    if (!ok) {
      std::string shapes;
      for (size_t i = 0; i < operands.size(); ++i)
        shapes += (i ? ", " : "") + shape_tuple(operands[i].shape());
      throw_type_error(fmt::format(
          "`{}` operands must have the same shape{}, got shapes {}.", ctx.op,
          except_dim ? fmt::format(" except on dimension {}", *except_dim) : "", shapes));
    }
  }
}

}  // namespace

ArrayType propagate_concatenate(const RuleContext& ctx, const std::vector<ArrayType>& operands,
                                int64_t axis) {
  if (operands.empty())
    throw_value_error(fmt::format("`{}` needs at least one array to concatenate.", ctx.op));
  if (operands[0].rank() == 0)
    throw_value_error(fmt::format("`{}`: zero-dimensional arrays cannot be concatenated.",
                                  ctx.op));
  size_t dim = normalize_axis(ctx, axis, operands[0].rank(), "axis");
  check_same_rank_shapes(ctx, operands, dim);
  OutputPlan plan = plan_output(ctx, operands);
  reject_unreduced(ctx, operands);
  Shape shape = operands[0].shape();
  shape[dim] = 0;
  for (const auto& t : operands) shape[dim] += t.shape()[dim];
  std::vector<Entry> spec = plan.rule_runs ? common_sharding(ctx, operands) : std::vector<Entry>{};
  return make_result(ctx, operands, operands[0].dtype(), shape, plan.mesh, PartitionSpec(spec),
                     plan.vma, all_weak(operands));
}

ArrayType propagate_stack(const RuleContext& ctx, const std::vector<ArrayType>& operands,
                          int64_t axis) {
  if (operands.empty())
    throw_value_error(fmt::format("`{}` needs at least one array to stack.", ctx.op));
  check_same_rank_shapes(ctx, operands, std::nullopt);
  size_t dim = normalize_axis(ctx, axis, operands[0].rank() + 1, "axis");
  OutputPlan plan = plan_output(ctx, operands);
  reject_unreduced(ctx, operands);
  Shape shape = operands[0].shape();
  shape.insert(shape.begin() + static_cast<long>(dim), static_cast<int64_t>(operands.size()));
  std::vector<Entry> spec;
  if (plan.rule_runs) {
    spec = common_sharding(ctx, operands);
    spec.resize(operands[0].rank());
    spec.insert(spec.begin() + static_cast<long>(dim), Entry{});
  }
  return make_result(ctx, operands, operands[0].dtype(), shape, plan.mesh, PartitionSpec(spec),
                     plan.vma, all_weak(operands));
}

}  // namespace shard::sharding
