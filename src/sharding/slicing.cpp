// §3 Slicing: static and dynamic slices, integer indexing, pad, split, and updates.
#include <fmt/format.h>

#include "sharding/rules.hpp"

namespace shard::sharding {

using types::throw_type_error;
using types::throw_value_error;

namespace {

// JAX's _get_sharding_for_varying_out_shape: the operand's sharding is kept when every
// changed sharded dim still divides by its axes; all-size-1 and scalar results are replicated.
ArrayType varying_out_shape(const RuleContext& ctx, const ArrayType& x, const Shape& out_shape,
                            const std::vector<ArrayType>& inputs) {
  OutputPlan plan = plan_output(ctx, inputs);
  reject_unreduced(ctx, inputs);
  bool all_unit = true;
  for (int64_t d : out_shape) all_unit = all_unit && d == 1;
  if (!plan.rule_runs || all_unit)
    return replicated_result(ctx, inputs, x.dtype(), out_shape, plan, x.weak_type());
  auto spec = spec_entries(x);
  for (size_t d = 0; d < x.rank(); ++d) {
    if (spec[d].empty() || out_shape[d] == x.shape()[d]) continue;
    int64_t n = entry_size(plan.mesh, spec[d]);
    if (out_shape[d] % n == 0) continue;
    std::vector<Entry> fixed = spec;
    fixed[d].clear();
    throw_sharding_type_error(fmt::format(
        "`{}` on sharded dims where out dim ({}) is not divisible by mesh axes ({}) with spec "
        "({}) is not implemented. Got input type={} and output shape={}. Reshard the operand so "
        "dimension {} is not sharded (`reshard(x, {})`), or choose a size divisible by {}.",
        ctx.op, out_shape[d], n, spec[d].size() == 1 ? spec[d][0] : types::py_str_tuple(spec[d]),
        x.str_short(), shape_tuple(out_shape), d, paste_spec(fixed), n));
  }
  return make_result(ctx, inputs, x.dtype(), out_shape, plan.mesh, PartitionSpec(spec, {}, x.spec().reduced()), plan.vma,
                     x.weak_type());
}

void check_rank(const RuleContext& ctx, const ArrayType& x, size_t n, std::string_view what) {
  if (n != x.rank())
    throw_type_error(fmt::format("`{}` {} must have length equal to the rank of the operand ({}), "
                                 "got {} for operand shape {}.",
                                 ctx.op, what, x.rank(), n, shape_tuple(x.shape())));
}

}  // namespace

ArrayType propagate_slice(const RuleContext& ctx, const ArrayType& x, const Shape& start,
                          const Shape& limit, const Shape& strides) {
  check_rank(ctx, x, start.size(), "start_indices");
  check_rank(ctx, x, limit.size(), "limit_indices");
  if (!strides.empty()) check_rank(ctx, x, strides.size(), "strides");
  Shape out;
  for (size_t d = 0; d < x.rank(); ++d) {
    int64_t stride = strides.empty() ? 1 : strides[d];
    if (start[d] < 0 || start[d] > limit[d] || limit[d] > x.shape()[d] || stride < 1)
      throw_type_error(fmt::format(
          "`{}`: invalid slice of dimension {} (size {}): start {}, limit {}, stride {}; need "
          "0 <= start <= limit <= size and stride >= 1.",
          ctx.op, d, x.shape()[d], start[d], limit[d], stride));
    out.push_back((limit[d] - start[d] + stride - 1) / stride);
  }
  return varying_out_shape(ctx, x, out, {x});
}

ArrayType propagate_index(const RuleContext& ctx, const ArrayType& x,
                          const std::vector<int64_t>& dims) {
  std::vector<bool> drop(x.rank(), false);
  for (int64_t a : dims) drop[normalize_axis(ctx, a, x.rank(), "index dimension")] = true;
  OutputPlan plan = plan_output(ctx, {x});
  reject_unreduced(ctx, {x});
  auto in = spec_entries(x);
  Shape shape;
  std::vector<Entry> spec;
  bool all_unit = true;
  for (size_t d = 0; d < x.rank(); ++d) {
    if (drop[d]) continue;
    shape.push_back(x.shape()[d]);
    spec.push_back(plan.rule_runs ? in[d] : Entry{});
    all_unit = all_unit && x.shape()[d] == 1;
  }
  if (all_unit) spec.assign(shape.size(), Entry{});
  return make_result(ctx, {x}, x.dtype(), shape, plan.mesh, PartitionSpec(spec, {}, x.spec().reduced()), plan.vma,
                     x.weak_type());
}

ArrayType propagate_dynamic_slice(const RuleContext& ctx, const ArrayType& x, const Shape& sizes) {
  check_rank(ctx, x, sizes.size(), "slice_sizes");
  for (size_t d = 0; d < x.rank(); ++d)
    if (sizes[d] < 0 || sizes[d] > x.shape()[d])
      throw_type_error(fmt::format(
          "`{}` slice_sizes must be less than or equal to operand shape, got slice_sizes {} for "
          "operand shape {}.",
          ctx.op, shape_tuple(sizes), shape_tuple(x.shape())));
  return varying_out_shape(ctx, x, sizes, {x});
}

ArrayType propagate_dynamic_update_slice(const RuleContext& ctx, const ArrayType& x,
                                         const ArrayType& update) {
  bool ok = update.rank() == x.rank();
  for (size_t d = 0; ok && d < x.rank(); ++d) ok = update.shape()[d] <= x.shape()[d];
  if (!ok)
    throw_type_error(fmt::format(
        "`{}` update shape must be smaller than operand shape and of the same rank, got update "
        "shape {} for operand shape {}.",
        ctx.op, shape_tuple(update.shape()), shape_tuple(x.shape())));
  OutputPlan plan = plan_output(ctx, {x, update});
  reject_unreduced(ctx, {x, update});
  if (plan.rule_runs && spec_entries(x) != spec_entries(update))
    throw_sharding_type_error(fmt::format(
        "`{}` operand sharding must be equal to update sharding, got operand sharding {} and "
        "update sharding {}. Reshard the update to the operand's sharding, e.g. "
        "`reshard(update, {})`.",
        ctx.op, x.str_short(), update.str_short(), paste_spec(spec_entries(x))));
  PartitionSpec spec = plan.rule_runs ? x.spec() : PartitionSpec();
  return make_result(ctx, {x, update}, x.dtype(), x.shape(), plan.mesh, spec, plan.vma,
                     x.weak_type());
}

ArrayType propagate_at_update(const RuleContext& ctx, const ArrayType& x,
                              const ArrayType& update) {
  if (update.rank() > x.rank())
    throw_value_error(fmt::format("`{}`: update of shape {} has more dimensions than the "
                                  "operand of shape {}.",
                                  ctx.op, shape_tuple(update.shape()), shape_tuple(x.shape())));
  OutputPlan plan = plan_output(ctx, {x, update});
  reject_unreduced(ctx, {x, update});
  auto xs = spec_entries(x), us = spec_entries(update);
  std::vector<Entry> want(xs.end() - static_cast<long>(update.rank()), xs.end());
  if (plan.rule_runs && update.rank() > 0 && us != want)
    throw_sharding_type_error(fmt::format(
        "`{}`: operand and update shardings must match, got operand {} and update {}. Reshard "
        "the update to match the operand, e.g. `reshard(update, {})`.",
        ctx.op, x.str_short(), update.str_short(), paste_spec(want)));
  PartitionSpec spec = plan.rule_runs ? x.spec() : PartitionSpec();
  return make_result(ctx, {x, update}, x.dtype(), x.shape(), plan.mesh, spec, plan.vma,
                     x.weak_type());
}

ArrayType propagate_pad(const RuleContext& ctx, const ArrayType& x,
                        const std::vector<PadDim>& config) {
  check_rank(ctx, x, config.size(), "padding_config");
  Shape out;
  for (size_t d = 0; d < x.rank(); ++d) {
    const PadDim& p = config[d];
    int64_t n = x.shape()[d];
    int64_t size = p.low + p.high + n + (n > 0 ? (n - 1) * p.interior : 0);
    if (p.interior < 0 || size < 0)
      throw_value_error(fmt::format(
          "`{}`: invalid padding (low {}, high {}, interior {}) for dimension {} of size {}.",
          ctx.op, p.low, p.high, p.interior, d, n));
    out.push_back(size);
  }
  return varying_out_shape(ctx, x, out, {x});
}

std::vector<ArrayType> propagate_split(const RuleContext& ctx, const ArrayType& x,
                                       const std::vector<int64_t>& sizes, int64_t axis) {
  size_t dim = normalize_axis(ctx, axis, x.rank(), "axis");
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      throw_value_error(fmt::format("`{}`: sizes must be non-negative, got {}", ctx.op,
                                    types::py_int_tuple(sizes)));
    total += s;
  }
  if (total != x.shape()[dim])
    throw_value_error(fmt::format("`{}`: sizes must sum to the size of dimension {} ({}), got {}",
                                  ctx.op, dim, x.shape()[dim], types::py_int_tuple(sizes)));
  std::vector<ArrayType> out;
  for (int64_t s : sizes) {
    Shape shape = x.shape();
    shape[dim] = s;
    out.push_back(varying_out_shape(ctx, x, shape, {x}));
  }
  return out;
}

}  // namespace shard::sharding
