// §5 Reductions and scans: reduced dims leave the spec (the partitioner all-reduces); scans
// and sorts need their dim unsharded.
#include <fmt/format.h>

#include "sharding/rules.hpp"

namespace shard::sharding {

ArrayType propagate_reduce(const RuleContext& ctx, const ArrayType& x,
                           const std::vector<int64_t>& axes, DType out_dtype, bool keepdims) {
  std::vector<bool> reduced(x.rank(), false);
  for (int64_t a : axes) {
    size_t d = normalize_axis(ctx, a, x.rank(), "axis");
    if (reduced[d])
      types::throw_value_error(fmt::format("`{}`: duplicate value in 'axis': {}", ctx.op,
                                           types::py_int_tuple(axes)));
    reduced[d] = true;
  }
  OutputPlan plan = plan_output(ctx, {x});
  reject_unreduced(ctx, {x});
  auto in = spec_entries(x);
  Shape shape;
  std::vector<Entry> spec;
  for (size_t d = 0; d < x.rank(); ++d) {
    if (reduced[d] && !keepdims) continue;
    shape.push_back(reduced[d] ? 1 : x.shape()[d]);
    spec.push_back(reduced[d] || !plan.rule_runs ? Entry{} : in[d]);
  }
  return make_result(ctx, {x}, out_dtype, shape, plan.mesh, PartitionSpec(spec, {}, x.spec().reduced()), plan.vma,
                     x.weak_type() && out_dtype == x.dtype());
}

ArrayType propagate_reduce_all(const RuleContext& ctx, const ArrayType& x, DType out_dtype,
                               bool keepdims) {
  std::vector<int64_t> axes;
  for (size_t d = 0; d < x.rank(); ++d) axes.push_back(static_cast<int64_t>(d));
  return propagate_reduce(ctx, x, axes, out_dtype, keepdims);
}

ArrayType propagate_argminmax(const RuleContext& ctx, const ArrayType& x,
                              std::optional<int64_t> axis, DType index_dtype, bool keepdims) {
  if (!axis) {  // over the flattened array: every dim is reduced
    ArrayType r = propagate_reduce_all(ctx, x, index_dtype, keepdims);
    return r.with_weak_type(false);
  }
  return propagate_reduce(ctx, x, {*axis}, index_dtype, keepdims).with_weak_type(false);
}

namespace {

ArrayType unsharded_along(const RuleContext& ctx, const ArrayType& x, int64_t axis,
                          const char* what) {
  size_t dim = normalize_axis(ctx, axis, x.rank(), "axis");
  OutputPlan plan = plan_output(ctx, {x});
  reject_unreduced(ctx, {x});
  if (plan.rule_runs && !spec_entries(x)[dim].empty()) {
    auto fixed = spec_entries(x);
    fixed[dim].clear();
    throw_sharding_type_error(fmt::format(
        "`{}`: Input should be unsharded over the axis being {}. Got input type={} and "
        "axis={}. Reshard it first, e.g. `reshard(x, {})`, or wrap the call in "
        "`auto_axes(f, out_sharding=P(...))`.",
        ctx.op, what, x.str_short(), axis, paste_spec(fixed)));
  }
  PartitionSpec spec = plan.rule_runs ? x.spec() : PartitionSpec();
  return make_result(ctx, {x}, x.dtype(), x.shape(), plan.mesh, spec, plan.vma, x.weak_type());
}

}  // namespace

ArrayType propagate_cumulative(const RuleContext& ctx, const ArrayType& x, int64_t axis) {
  return unsharded_along(ctx, x, axis, "reduced");
}

ArrayType propagate_sort(const RuleContext& ctx, const ArrayType& x, int64_t axis) {
  return unsharded_along(ctx, x, axis, "sorted");
}

}  // namespace shard::sharding
