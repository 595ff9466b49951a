// §7 shard_map types: the local type f sees for each argument, the global type of each
// output (with the check_vma replication check), and the loop-carry type check.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "sharding/rules.hpp"

namespace shard::sharding {

using types::throw_type_error;
using types::throw_value_error;

namespace {

bool contains(const AxisNames& v, const std::string& a) {
  return std::find(v.begin(), v.end(), a) != v.end();
}

std::string mesh_shape_line(const AbstractMesh& m) {
  return fmt::format("The mesh given has shape {} with corresponding axis names {}.",
                     types::py_int_tuple(m.axis_sizes()), types::py_str_tuple(m.axis_names()));
}

// in_specs / out_specs entries: known, manual axes, each once.
void check_spec_axes(const ShardMapSpec& sm, const PartitionSpec& spec, const char* prefix,
                     const SpecSite& site) {
  types::check_unique_axes(spec, fmt::format("shard_map {}_specs", prefix));
  for (const auto& a : spec.used_axes()) {
    if (!sm.mesh.has_axis(a))
      throw_value_error(fmt::format(
          "shard_map applied to the function '{}' was given {}_specs{} of value {}, which "
          "refers to mesh axis {} not in the mesh {}.",
          sm.fun_name, prefix, site.spec_path, spec.repr(), types::py_str_repr(a),
          types::py_str_tuple(sm.mesh.axis_names())));
    if (!contains(sm.manual_axes, a))
      throw_value_error(fmt::format(
          "shard_map applied to the function '{}' was given {}_specs{} of value {}, which "
          "refers to mesh axis {}, but it is not among the shard_map's axis_names {}. Add it "
          "to axis_names, or leave it out of the spec.",
          sm.fun_name, prefix, site.spec_path, spec.repr(), types::py_str_repr(a),
          types::py_str_tuple(sm.manual_axes)));
  }
}

void check_spec_length(const ShardMapSpec& sm, const ArrayType& t, const PartitionSpec& spec,
                       bool input, const SpecSite& site) {
  // Inputs: the whole spec must fit; outputs (JAX's _check_names): only named dims count, so
  // trailing Nones are fine.
  size_t length = spec.size();
  if (!input)
    while (length > 0 && spec[length - 1].empty()) --length;
  if (length <= t.rank()) return;
  const char* prefix = input ? "in" : "out";
  std::string base = input ? "args" : sm.fun_name + "(*args)";
  std::string extra =
      input && !site.param_name.empty()
          ? fmt::format(", where {}{} is bound to {}'s parameter '{}',", base, site.value_path,
                        sm.fun_name, site.param_name)
          : "";
  std::string msg = fmt::format(
      "shard_map applied to the function '{0}' was given an {1}_specs entry which is too long "
      "to be compatible with the corresponding {1}put value from the function:\n\n"
      "{1}_specs{2} is {3} which has length {4}, but {5}{6}{7} has shape {8}, which has rank "
      "{9} (and {9} < {4})\n\n"
      "Entries in {1}_specs must be of length no greater than the number of axes in the "
      "corresponding {1}put value.\n\n"
      "Either revise the spec to be shorter, or modify '{0}' so that its {1}puts have "
      "sufficient rank.",
      sm.fun_name, prefix, site.spec_path, spec.repr(), spec.size(), base, site.value_path, extra,
      t.str_short(), t.rank());
  if (t.rank() == 0)
    msg += fmt::format("\n\nFor scalar values (rank 0), consider using an {}_specs entry of "
                       "`P()`, where `P = jax.sharding.PartitionSpec`.",
                       prefix);
  throw_value_error(msg);
}

}  // namespace

ShardMapSpec make_shard_map_spec(std::string fun_name, const AbstractMesh& mesh,
                                 const std::optional<AxisNames>& axis_names, bool check_vma,
                                 bool legacy) {
  if (mesh.empty())
    throw_value_error(
        "shard_map requires a mesh: pass mesh=... or enter one with "
        "`jax.sharding.use_mesh(mesh)` / `jax.sharding.set_mesh(mesh)`.");
  ShardMapSpec sm{std::move(fun_name), mesh, {}, check_vma, legacy};
  AxisNames names = axis_names ? *axis_names : mesh.axis_names();
  for (const auto& a : names)
    if (!mesh.has_axis(a))
      throw_value_error(fmt::format("shard_map axis_names {} refer to axis {} not in the mesh {}.",
                                    types::py_str_tuple(names), types::py_str_repr(a),
                                    types::py_str_tuple(mesh.axis_names())));
  sm.manual_axes = mesh.order_wrt_mesh(names);
  return sm;
}

AbstractMesh shard_map_inner_mesh(const ShardMapSpec& sm) {
  return sm.mesh.with_axis_types(sm.manual_axes, AxisType::Manual);
}

ArrayType shard_map_input(const ShardMapSpec& sm, const ArrayType& global,
                          const PartitionSpec& in_spec, const SpecSite& site) {
  check_spec_axes(sm, in_spec, "in", site);
  check_spec_length(sm, global, in_spec, true, site);
  Shape local = global.shape();
  for (size_t d = 0; d < in_spec.size(); ++d) {
    const Entry& e = in_spec[d];
    if (e.empty()) continue;
    int64_t n = sm.mesh.axes_size(e);
    if (global.shape()[d] % n == 0) {
      local[d] /= n;
      continue;
    }
    std::string extra =
        site.param_name.empty()
            ? ""
            : fmt::format(", where args{} is bound to {}'s parameter '{}',", site.value_path,
                          sm.fun_name, site.param_name);
    std::string axis = e.size() > 1 ? fmt::format("axes {}", types::py_str_tuple(e))
                                    : fmt::format("axis {}", types::py_str_repr(e[0]));
    throw_value_error(fmt::format(
        "shard_map applied to the function '{}' was given argument arrays with axis sizes that "
        "are not evenly divisible by the corresponding mesh axis sizes:\n\n{}\n\n"
        "args{} of shape {}{} corresponds to in_specs{} of value {}, which maps array axis {} "
        "(of size {}) to mesh {} (of {}size {}), but {} does not evenly divide {}\n\n"
        "Array arguments' axis sizes must be evenly divisible by the mesh axis or axes "
        "indicated by the corresponding elements of the argument's in_specs entry. Consider "
        "checking that in_specs are correct, and if so consider changing the mesh axis sizes "
        "or else padding the input and adapting '{}' appropriately.",
        sm.fun_name, mesh_shape_line(sm.mesh), site.value_path, global.str_short(), extra,
        site.spec_path, in_spec.repr(), d, global.shape()[d], axis, e.size() > 1 ? "total " : "",
        n, n, global.shape()[d], sm.fun_name));
  }
  AbstractMesh inner = shard_map_inner_mesh(sm);
  // Shardings over axes that stay Explicit inside carry over; the manual ones leave the type.
  PartitionSpec spec = global.mesh() == sm.mesh ? PartitionSpec(global.spec().entries())
                                                : PartitionSpec();
  std::vector<std::string> vma;
  if (sm.check_vma) {
    vma = global.vma();
    for (const auto& a : in_spec.used_axes()) vma.push_back(a);
  }
  return ArrayType(global.dtype(), local, inner, spec, vma, global.weak_type());
}

ArrayType shard_map_output(const ShardMapSpec& sm, const ArrayType& local,
                           const PartitionSpec& out_spec, const SpecSite& site) {
  check_spec_axes(sm, out_spec, "out", site);
  check_spec_length(sm, local, out_spec, false, site);
  AxisNames named = out_spec.used_axes();
  if (sm.check_vma) {
    AxisNames unmentioned, varying_unmentioned, replicated;
    for (const auto& a : sm.manual_axes) {
      if (!contains(local.vma(), a)) replicated.push_back(a);
      if (contains(named, a)) continue;
      unmentioned.push_back(a);
      if (contains(local.vma(), a)) varying_unmentioned.push_back(a);
    }
    if (!varying_unmentioned.empty()) {
      auto join = [](const AxisNames& v) {
        std::string s;
        for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + v[i];
        return s;
      };
      std::string detail =
          unmentioned.size() > 1
              ? fmt::format("out_specs{} is {} which implies that the corresponding output "
                            "value is replicated across mesh axes {{{}}}, but could only infer "
                            "replication over {{{}}}, which is missing the required axes {}",
                            site.spec_path, out_spec.repr(), join(unmentioned), join(replicated),
                            join(varying_unmentioned))
              : fmt::format("out_specs{} is {} which implies that the corresponding output "
                            "value is replicated across mesh axis {}, but could not infer "
                            "replication over any axes",
                            site.spec_path, out_spec.repr(), types::py_str_repr(unmentioned[0]));
      throw_value_error(fmt::format(
          "shard_map applied to the function '{}' was given out_specs which require "
          "replication which can't be statically inferred given the mesh:\n\n{}\n\n{}\n\n"
          "Check if these output values are meant to be replicated over those mesh axes. If "
          "not, consider revising the corresponding out_specs entries. If so, consider "
          "disabling the check by passing the {}=False argument to shard_map.",
          sm.fun_name, mesh_shape_line(sm.mesh), detail,
          sm.legacy ? "check_rep" : "check_vma"));
    }
  }
  Shape global = local.shape();
  auto local_spec = spec_entries(local);
  std::vector<Entry> spec(local.rank());
  for (size_t d = 0; d < local.rank(); ++d) {
    Entry e = d < out_spec.size() ? out_spec[d] : Entry{};
    global[d] *= e.empty() ? 1 : sm.mesh.axes_size(e);
    e.insert(e.end(), local_spec[d].begin(), local_spec[d].end());
    spec[d] = e;
  }
  std::vector<std::string> vma;
  for (const auto& a : local.vma())
    if (!contains(sm.manual_axes, a)) vma.push_back(a);
  return ArrayType(local.dtype(), global, sm.mesh, PartitionSpec(spec), vma, local.weak_type());
}

// ---- loop carries -------------------------------------------------------------------------------

void check_carry_types(std::string_view loop, std::string_view carry_name,
                       const std::vector<CarryComponent>& components) {
  auto component = [&](const std::string& path) {
    if (!carry_name.empty())
      return path.empty() ? fmt::format("the input carry {}", carry_name)
                          : fmt::format("the input carry component {}{}", carry_name, path);
    return path.empty() ? std::string("the input carry")
                        : fmt::format("the input carry at path {}", path);
  };
  std::vector<std::string> diffs, pvarys;
  for (const auto& c : components) {
    bool dtype = c.in.dtype() != c.out.dtype(), shape = c.in.shape() != c.out.shape();
    bool vma = c.in.vma() != c.out.vma();
    bool sharding = !shape && (spec_entries(c.in) != spec_entries(c.out) ||
                               c.in.spec().unreduced() != c.out.spec().unreduced());
    if (!dtype && !shape && !vma && !sharding) continue;
    std::vector<std::string> why;
    if (dtype) why.push_back("the dtypes do not match");
    if (shape) why.push_back("the shapes do not match");
    if (sharding) why.push_back("the shardings do not match");
    if (vma) why.push_back("the varying manual axes do not match");
    std::string because;
    for (size_t i = 0; i < why.size(); ++i) because += (i ? " and also " : "") + why[i];
    diffs.push_back(fmt::format("{} has type {} but the corresponding output carry component "
                                "has type {}, so {}",
                                component(c.path), c.in.str_short(), c.out.str_short(), because));
    AxisNames missing;
    for (const auto& a : c.out.vma())
      if (!contains(c.in.vma(), a)) missing.push_back(a);
    if (!missing.empty())
      pvarys.push_back(fmt::format("applying `jax.lax.pvary(..., {})` to the initial carry value "
                                   "corresponding to {}",
                                   types::py_str_tuple(missing), component(c.path)));
  }
  if (diffs.empty()) return;
  std::string differences;
  if (diffs.size() == 1) {
    differences = diffs[0] + ".";
    differences[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(differences[0])));
  } else {
    for (size_t i = 0; i < diffs.size(); ++i)
      differences += fmt::format("  * {}{}", diffs[i], i + 1 < diffs.size() ? ";\n" : ".");
  }
  std::string pvary_msg;
  if (pvarys.size() == 1) {
    pvary_msg = fmt::format("This might be fixed by {}.\n", pvarys[0]);
  } else if (pvarys.size() > 1) {
    pvary_msg = "This might be fixed by:\n";
    for (size_t i = 0; i < pvarys.size(); ++i)
      pvary_msg += fmt::format("  * {}{}\n", pvarys[i], i + 1 < pvarys.size() ? ";" : ".");
  }
  if (!pvary_msg.empty())
    pvary_msg += "See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more "
                 "information.\n\n";
  throw_type_error(fmt::format(
      "{} function carry input and carry output must have equal types, but they differ:\n\n"
      "{}\n\n{}Revise the function so that all output types match the corresponding input "
      "types.",
      loop, differences, pvary_msg));
}

std::vector<AxisNames> implicit_pvary_axes(const RuleContext& ctx,
                                           const std::vector<ArrayType>& operands) {
  std::vector<AxisNames> out(operands.size());
  if (!ctx.check_vma) return out;
  AxisNames all;
  for (const auto& t : operands)
    for (const auto& a : t.vma())
      if (!contains(all, a)) all.push_back(a);
  all = ctx.mesh.order_wrt_mesh(all);
  for (size_t i = 0; i < operands.size(); ++i)
    for (const auto& a : all)
      if (!contains(operands[i].vma(), a)) out[i].push_back(a);
  return out;
}

}  // namespace shard::sharding
