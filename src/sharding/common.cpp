#include "sharding/common.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace shard::sharding {

using types::throw_type_error;
using types::throw_value_error;

void throw_sharding_type_error(const std::string& message) {
  throw ShardingError(kShardingTypeError, message);
}

void throw_name_error(const std::string& message) { throw ShardingError("NameError", message); }

// ---- printing -------------------------------------------------------------------------------

std::string types_list(const std::vector<ArrayType>& types) {
  std::string out;
  for (size_t i = 0; i < types.size(); ++i) out += (i ? ", " : "") + types[i].str_short();
  return out;
}

std::string short_type(DType dtype, const Shape& shape, const PartitionSpec& spec,
                       const std::vector<std::string>& vma) {
  std::string dims;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d) dims += ',';
    dims += std::to_string(shape[d]);
    if (d >= spec.size() || spec[d].empty()) continue;
    const Entry& e = spec[d];
    if (e.size() == 1) {
      dims += "@" + e[0];
    } else {
      dims += "@(";
      for (size_t i = 0; i < e.size(); ++i) dims += (i ? "," : "") + e[i];
      dims += ")";
    }
  }
  std::string tail;
  for (size_t i = 0; i < vma.size(); ++i) tail += (i ? "," : "") + vma[i];
  if (!tail.empty()) tail = "{" + tail + "}";
  return fmt::format("{}[{}]{}", types::dtype_name(dtype), dims, tail);
}

std::string entry_str(const Entry& e) { return PartitionSpec::entry_repr(e); }

std::string entries_tuple(const std::vector<Entry>& entries) {
  std::string out = "(";
  for (size_t i = 0; i < entries.size(); ++i) out += (i ? ", " : "") + entry_str(entries[i]);
  if (entries.size() == 1) out += ',';
  return out + ")";
}

std::string paste_spec(const std::vector<Entry>& entries) {
  std::string out = "P(";
  for (size_t i = 0; i < entries.size(); ++i) out += (i ? ", " : "") + entry_str(entries[i]);
  if (entries.size() == 1 && entries[0].size() > 1) out += ',';  // P(('X', 'Y'),) as JAX prints
  return out + ")";
}

std::string paste_spec(const PartitionSpec& spec) {
  std::string out = paste_spec(spec.entries());
  if (spec.unreduced().empty()) return out;
  std::string u;
  for (size_t i = 0; i < spec.unreduced().size(); ++i)
    u += (i ? ", " : "") + types::py_str_repr(spec.unreduced()[i]);
  out.pop_back();
  return out + (spec.empty() ? "" : ", ") + "unreduced={" + u + "})";
}

std::string quoted_axes(const AxisNames& axes) {
  std::string out;
  for (size_t i = 0; i < axes.size(); ++i) out += (i ? ", " : "") + types::py_str_repr(axes[i]);
  return out;
}

std::string shape_tuple(const Shape& s) { return types::py_int_tuple(s); }

// ---- §0 framework -------------------------------------------------------------------------

bool has_explicit_axes(const AbstractMesh& mesh) { return mesh.any_axis_is(AxisType::Explicit); }

namespace {

// Meshes without Explicit axes never carry shardings in types, so two of them never conflict.
bool meshes_conflict(const AbstractMesh& a, const AbstractMesh& b) {
  if (a.empty() || b.empty() || a == b) return false;
  return has_explicit_axes(a) || has_explicit_axes(b);
}

void add_unique(std::vector<std::string>& out, const std::vector<std::string>& names) {
  for (const auto& n : names)
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
}

}  // namespace

OutputPlan plan_output(const RuleContext& ctx, const std::vector<ArrayType>& inputs) {
  OutputPlan plan;
  const ArrayType* first = nullptr;
  for (const auto& t : inputs) {
    if (t.mesh().empty()) continue;
    if (!first) {
      first = &t;
      continue;
    }
    if (meshes_conflict(first->mesh(), t.mesh()))
      throw_value_error(fmt::format(
          "Mesh for all inputs of `{}` should be equal. Got one mesh: {} (input {}) and another "
          "mesh: {} (input {}). Move the inputs onto one mesh first, e.g. with "
          "`jax.device_put(x, NamedSharding(mesh, spec))`.",
          ctx.op, first->mesh().repr(), first->str_short(), t.mesh().repr(), t.str_short()));
  }
  AbstractMesh input_mesh = first ? first->mesh() : AbstractMesh();
  if (meshes_conflict(ctx.mesh, input_mesh))
    throw_value_error(fmt::format(
        "For `{}`, the context mesh {} should match the mesh {} of the input {}. Enter the "
        "input's mesh with `jax.sharding.use_mesh(mesh)`, or move the input onto the context "
        "mesh with `jax.device_put(x, NamedSharding(mesh, spec))`.",
        ctx.op, ctx.mesh.repr(), input_mesh.repr(), first->str_short()));
  plan.mesh = input_mesh.empty() ? ctx.mesh : input_mesh;
  plan.rule_runs = has_explicit_axes(ctx.mesh) || has_explicit_axes(input_mesh);
  if (ctx.check_vma)
    for (const auto& t : inputs) add_unique(plan.vma, t.vma());
  return plan;
}

ArrayType make_result(const RuleContext& ctx, const std::vector<ArrayType>& inputs, DType dtype,
                      Shape shape, const AbstractMesh& mesh, const PartitionSpec& spec,
                      std::vector<std::string> vma, bool weak_type, ReducedInputs reduced_inputs) {
  if (reduced_inputs == ReducedInputs::Kept)
    for (const auto& t : inputs) {
      const auto& r = t.spec().reduced();
      // Kept in the result, or consumed by a partial sum (an unreduced product).
      bool kept = std::all_of(r.begin(), r.end(), [&](const std::string& a) {
        return std::find(spec.reduced().begin(), spec.reduced().end(), a) != spec.reduced().end() ||
               std::find(spec.unreduced().begin(), spec.unreduced().end(), a) != spec.unreduced().end();
      });
      if (!kept)
        throw ShardingError("NotImplementedError",
                            fmt::format("unreduced/reduced rule for `{}` is not implemented: its input {} is reduced over {}. "
                                        "Reshard it first, e.g. `reshard(x, {})`.",
                                        ctx.op, t.str_short(), entry_str(r), paste_spec(t.spec().entries())));
    }
  auto dups = spec.duplicate_axes();
  if (!dups.empty()) {
    // A legal alternative: keep each axis on the first dimension that uses it.
    std::vector<Entry> legal;
    std::vector<std::string> seen;
    for (const auto& e : spec.entries()) {
      Entry kept;
      for (const auto& a : e)
        if (std::find(seen.begin(), seen.end(), a) == seen.end()) {
          kept.push_back(a);
          seen.push_back(a);
        }
      legal.push_back(kept);
    }
    legal.resize(std::max(legal.size(), shape.size()));
    throw_sharding_type_error(fmt::format(
        "`{}` operation with inputs: {} produces an illegally sharded result: {}. Mesh axis {} "
        "would shard more than one dimension. Reshard an operand so that each mesh axis shards "
        "at most one dimension of the result, pass `out_sharding={}` if `{}` takes one, or "
        "wrap the call in `auto_axes(f, out_sharding={})`.",
        ctx.op, types_list(inputs), short_type(dtype, shape, spec, vma), quoted_axes(dups),
        paste_spec(legal), ctx.op, paste_spec(legal)));
  }
  try {
    return ArrayType(dtype, std::move(shape), mesh, spec, std::move(vma), weak_type);
  } catch (const ShardingError& e) {
    throw ShardingError(e.py_type(),
                        fmt::format("{} (the result of `{}` with inputs: {}). Reshard an input, "
                                    "or pass an out_sharding= whose mesh axes divide the "
                                    "result's dimensions.",
                                    e.what(), ctx.op, types_list(inputs)));
  }
}

ArrayType replicated_result(const RuleContext& ctx, const std::vector<ArrayType>& inputs,
                            DType dtype, Shape shape, const OutputPlan& plan, bool weak_type) {
  return make_result(ctx, inputs, dtype, std::move(shape), plan.mesh, PartitionSpec(), plan.vma,
                     weak_type);
}

void throw_no_rule(const RuleContext& ctx, const std::vector<ArrayType>& inputs) {
  throw_sharding_type_error(fmt::format(
      "sharding rule for `{}` is not implemented (inputs: {}). You can work around this error "
      "by dropping that operation into full auto sharding mode via "
      "`jax.sharding.auto_axes(f, out_sharding=P(...))`, or by resharding its inputs to be "
      "replicated first (`reshard(x, P())`).",
      ctx.op, types_list(inputs)));
}

ArrayType propagate_without_rule(const RuleContext& ctx, const std::vector<ArrayType>& inputs,
                                 DType dtype, Shape shape) {
  OutputPlan plan = plan_output(ctx, inputs);
  if (plan.rule_runs) throw_no_rule(ctx, inputs);
  return replicated_result(ctx, inputs, dtype, std::move(shape), plan, all_weak(inputs));
}

void reject_unreduced(const RuleContext& ctx, const std::vector<ArrayType>& inputs) {
  for (const auto& t : inputs)
    if (!t.spec().unreduced().empty())
      throw_sharding_type_error(fmt::format(
          "`{}` does not accept unreduced inputs; got {}. Reduce it first with "
          "`reshard(x, {})`.",
          ctx.op, t.str_short(), paste_spec(t.spec().entries())));
}

NamedSharding resolve_out_sharding(const RuleContext& ctx, const OutSharding& s,
                                   std::string_view what, bool allow_non_explicit) {
  std::optional<NamedSharding> ns;
  if (const auto* p = std::get_if<PartitionSpec>(&s)) {
    if (ctx.mesh.empty())
      throw_value_error(fmt::format(
          "Using PartitionSpec when you are not under a mesh context via "
          "`jax.sharding.use_mesh` is not allowed. Please pass a NamedSharding instance or "
          "enter into a mesh context via `jax.sharding.use_mesh` (or `jax.sharding.set_mesh`). "
          "Got {} passed to `{}`.",
          p->repr(), what));
    ns.emplace(ctx.mesh, *p);
  } else {
    const auto& given = std::get<NamedSharding>(s);
    if (!allow_non_explicit && !ctx.mesh.empty() && given.abstract_mesh() != ctx.mesh)
      throw_value_error(fmt::format(
          "Context mesh {} should match the mesh of sharding {} passed to `{}`. Pass a "
          "PartitionSpec to use the context mesh, or enter the sharding's mesh with "
          "`jax.sharding.use_mesh`.",
          ctx.mesh.repr(), given.abstract_mesh().repr(), what));
    ns.emplace(given.abstract_mesh(), given.spec());
  }
  if (!allow_non_explicit) {
    const AbstractMesh& m = ns->abstract_mesh();
    for (const auto& a : ns->spec().used_axes()) {
      AxisType t = m.axis_type(a);
      if (t == AxisType::Explicit) continue;
      throw_value_error(fmt::format(
          "PartitionSpec passed to `{}` cannot contain axis names that are of type Auto or "
          "Manual. Got PartitionSpec: {} with axis name: {} of type: AxisType.{}. {}",
          what, ns->spec().repr(), a, types::axis_type_name(t),
          t == AxisType::Auto
              ? "Auto axes are left to the compiler: name only Explicit axes here, or make the "
                "axis Explicit with `explicit_axes`."
              : "Manual axes are handled by shard_map's in_specs/out_specs."));
    }
  }
  return *ns;
}

// ---- small utilities ------------------------------------------------------------------------

size_t normalize_axis(const RuleContext& ctx, int64_t axis, size_t rank, std::string_view what) {
  int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r)
    throw_value_error(fmt::format("`{}`: {} {} is out of bounds for array of dimension {}",
                                  ctx.op, what, axis, rank));
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

int64_t entry_size(const AbstractMesh& mesh, const Entry& e) {
  return e.empty() ? 1 : mesh.axes_size(e);
}

bool all_weak(const std::vector<ArrayType>& inputs) {
  return !inputs.empty() && std::all_of(inputs.begin(), inputs.end(),
                                        [](const ArrayType& t) { return t.weak_type(); });
}

std::vector<Entry> spec_entries(const ArrayType& t) {
  std::vector<Entry> e = t.spec().entries();
  e.resize(t.rank());
  return e;
}

}  // namespace shard::sharding
