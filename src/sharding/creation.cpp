// §2 Creation: new arrays are replicated over the context mesh unless out_sharding says
// otherwise; *_like ops follow their input.
#include <fmt/format.h>

#include "sharding/rules.hpp"

namespace shard::sharding {

namespace {

void check_shape(const RuleContext& ctx, const Shape& shape) {
  for (int64_t d : shape)
    if (d < 0)
      types::throw_value_error(fmt::format(
          "`{}`: negative dimensions are not allowed, got shape {}", ctx.op, shape_tuple(shape)));
}

// The type of a new array placed by out_sharding.
ArrayType placed(const RuleContext& ctx, DType dtype, const Shape& shape,
                 const OutSharding& out_sharding, std::vector<std::string> vma, bool weak) {
  NamedSharding s = resolve_out_sharding(ctx, out_sharding, ctx.op);
  return make_result(ctx, {}, dtype, shape, s.abstract_mesh(), s.spec(), std::move(vma), weak);
}

}  // namespace

ArrayType propagate_creation(const RuleContext& ctx, DType dtype, const Shape& shape,
                             const OptOutSharding& out_sharding, bool weak_type) {
  check_shape(ctx, shape);
  if (out_sharding) return placed(ctx, dtype, shape, *out_sharding, {}, weak_type);
  return make_result(ctx, {}, dtype, shape, ctx.mesh, PartitionSpec(), {}, weak_type);
}

ArrayType propagate_full_like(const RuleContext& ctx, const ArrayType& x, DType dtype,
                              const std::optional<Shape>& shape,
                              const OptOutSharding& out_sharding) {
  Shape out_shape = shape ? *shape : x.shape();
  check_shape(ctx, out_shape);
  OutputPlan plan = plan_output(ctx, {x});
  if (out_sharding) return placed(ctx, dtype, out_shape, *out_sharding, plan.vma, false);
  bool same_shape = out_shape == x.shape();
  // x's sharding, reduced axes included (JAX's full_like broadcasts with x's sharding); a new
  // shape starts replicated.
  PartitionSpec spec = plan.rule_runs && same_shape ? PartitionSpec(x.spec().entries(), {}, x.spec().reduced()) : PartitionSpec();
  return make_result(ctx, {x}, dtype, out_shape, plan.mesh, spec, plan.vma, false,
                     same_shape ? ReducedInputs::Kept : ReducedInputs::Dropped);
}

}  // namespace shard::sharding
