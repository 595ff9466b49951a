// §6 Moving between shardings: reshard, device_put, with_sharding_constraint, and the types
// crossing auto_axes / explicit_axes scopes.
#include <fmt/format.h>

#include <algorithm>

#include "sharding/rules.hpp"

namespace shard::sharding {

using types::throw_type_error;
using types::throw_value_error;

ArrayType propagate_reshard(const RuleContext& ctx, const ArrayType& x, const OptOutSharding& s) {
  auto none_error = [&](const std::string& got) {
    throw_value_error(fmt::format(
        "`{}` should only be used with out_shardings which are non-None and have a nonempty "
        "mesh. Got sharding {}. Pass a PartitionSpec under a mesh context "
        "(`jax.sharding.use_mesh(mesh)`) or a NamedSharding(mesh, spec).",
        ctx.op, got));
  };
  if (!s) none_error("None");
  NamedSharding target = resolve_out_sharding(ctx, *s, ctx.op);
  if (target.abstract_mesh().empty()) none_error(target.repr());
  return make_result(ctx, {x}, x.dtype(), x.shape(), target.abstract_mesh(), target.spec(),
                     x.vma(), x.weak_type(), ReducedInputs::Dropped);
}

ArrayType propagate_device_put(const RuleContext& ctx, const ArrayType& x, const OutSharding& s) {
  NamedSharding target = resolve_out_sharding(ctx, s, ctx.op, /*allow_non_explicit=*/true);
  return make_result(ctx, {x}, x.dtype(), x.shape(), target.abstract_mesh(), target.spec(),
                     x.vma(), x.weak_type(), ReducedInputs::Dropped);
}

ArrayType check_with_sharding_constraint(const RuleContext& ctx, const ArrayType& x,
                                         const OutSharding& s) {
  NamedSharding target = resolve_out_sharding(ctx, s, ctx.op, /*allow_non_explicit=*/true);
  const AbstractMesh& mesh = target.abstract_mesh();
  if (mesh.empty()) return x;
  if (mesh.all_axes_are(AxisType::Explicit)) {  // an assertion on the type
    std::vector<Entry> want = target.spec().entries();
    want.resize(std::max(want.size(), x.rank()));
    std::vector<Entry> have = spec_entries(x);
    have.resize(want.size());
    if (have != want)
      throw_value_error(fmt::format(
          "`{}`: on a mesh whose axes are all Explicit, with_sharding_constraint only checks "
          "the sharding in the type, and {} is not sharded as {}. You probably meant to use "
          "`reshard`: `reshard(x, {})`.",
          ctx.op, x.str_short(), target.spec().repr(), paste_spec(target.spec())));
    return x;
  }
  for (const auto& a : target.spec().used_axes())
    if (mesh.axis_type(a) != AxisType::Auto)
      throw_value_error(fmt::format(
          "The spec of NamedSharding passed to with_sharding_constraint can only refer to Auto "
          "axes of the mesh. Got spec={} and mesh={}. You probably meant to use `reshard` API? "
          "(`reshard(x, {})` changes the sharding in the type.)",
          target.spec().repr(), mesh.repr(), paste_spec(target.spec())));
  return x;  // pins the partitioner's choice; the type is unchanged
}

// ---- auto_axes / explicit_axes ---------------------------------------------------------------

namespace {

AxesScope enter_scope(const AbstractMesh& context_mesh, const std::optional<AxisNames>& axes,
                      const OptOutSharding& sharding, AxisType to, const char* api) {
  AbstractMesh sharding_mesh;
  if (sharding)
    if (const auto* ns = std::get_if<NamedSharding>(&*sharding))
      sharding_mesh = ns->abstract_mesh();
  if (context_mesh.empty() && sharding_mesh.empty())
    throw_value_error(fmt::format(
        "`{}` needs a mesh in context: the context mesh cannot be empty. Use "
        "`jax.sharding.use_mesh(mesh)` or `jax.sharding.set_mesh(mesh)` first, or pass a "
        "NamedSharding(mesh, spec).",
        api));
  if (!context_mesh.empty() && !sharding_mesh.empty() && context_mesh != sharding_mesh)
    throw_value_error(fmt::format("`{}`: the context mesh {} should match the mesh {} of the "
                                  "sharding passed to it.",
                                  api, context_mesh.repr(), sharding_mesh.repr()));
  const AbstractMesh& mesh = context_mesh.empty() ? sharding_mesh : context_mesh;
  AxesScope scope;
  scope.outer = mesh;
  AxisNames named = axes ? *axes : mesh.axis_names();
  for (const auto& a : named) {
    if (!mesh.has_axis(a))
      throw_value_error(fmt::format("`{}`: axis {} is not in the mesh {}.", api,
                                    types::py_str_repr(a), mesh.repr()));
    if (mesh.axis_type(a) == AxisType::Manual)
      throw_value_error(fmt::format(
          "`{}`: axis {} is Manual (inside shard_map) and cannot be cast to {}.", api,
          types::py_str_repr(a), types::axis_type_name(to)));
  }
  scope.axes = mesh.order_wrt_mesh(named);
  scope.noop = to == AxisType::Auto && std::all_of(named.begin(), named.end(), [&](auto& a) {
                 return mesh.axis_type(a) == AxisType::Auto;
               });
  scope.inner = mesh.with_axis_types(scope.axes, to);
  return scope;
}

}  // namespace

AxesScope enter_auto_axes(const AbstractMesh& context_mesh, const std::optional<AxisNames>& axes,
                          const OptOutSharding& out_sharding) {
  return enter_scope(context_mesh, axes, out_sharding, AxisType::Auto, "auto_axes");
}

AxesScope enter_explicit_axes(const AbstractMesh& context_mesh,
                              const std::optional<AxisNames>& axes,
                              const OptOutSharding& in_sharding) {
  return enter_scope(context_mesh, axes, in_sharding, AxisType::Explicit, "explicit_axes");
}

ArrayType auto_axes_argument(const AxesScope& scope, const ArrayType& arg) {
  if (scope.noop || arg.mesh().empty()) return arg;
  return arg.with_mesh(scope.inner, arg.spec());  // the now-Auto axes leave the type
}

ArrayType auto_axes_result(const AxesScope& scope, const ArrayType& result,
                           const OptOutSharding& out_sharding) {
  if (!out_sharding)
    throw_type_error(
        "Missing required keyword argument: 'out_sharding'. auto_axes needs to know how to "
        "shard the result outside: call it with out_sharding=P(...) (or out_shardings=...).");
  if (scope.noop) return result;
  RuleContext outer{scope.outer, "auto_axes"};
  NamedSharding s = resolve_out_sharding(outer, *out_sharding, "auto_axes");
  return make_result(outer, {result}, result.dtype(), result.shape(), s.abstract_mesh(), s.spec(),
                     result.vma(), result.weak_type(), ReducedInputs::Dropped);
}

ArrayType explicit_axes_argument(const AxesScope& scope, const ArrayType& arg,
                                 const OptOutSharding& in_sharding) {
  if (!in_sharding)
    throw_type_error(
        "Missing required keyword argument: 'in_sharding'. explicit_axes needs to know how the "
        "arguments are sharded inside: call it with in_sharding=P(...) (or in_shardings=...).");
  RuleContext inner{scope.inner, "explicit_axes"};
  NamedSharding s = resolve_out_sharding(inner, *in_sharding, "explicit_axes");
  return make_result(inner, {arg}, arg.dtype(), arg.shape(), s.abstract_mesh(), s.spec(),
                     arg.vma(), arg.weak_type(), ReducedInputs::Dropped);
}

ArrayType explicit_axes_result(const AxesScope& scope, const ArrayType& result) {
  if (result.mesh().empty()) return result;
  return result.with_mesh(scope.outer, result.spec());  // outer-Auto axes leave the type
}

}  // namespace shard::sharding
