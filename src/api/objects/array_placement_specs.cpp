#include "api/objects/array_placement_specs.hpp"

namespace shard::api {

namespace {

bool names_auto_axis(const types::PartitionSpec& spec, const types::Mesh& mesh) {
  for (const auto& entry : spec.entries())
    for (const auto& axis : entry)
      if (mesh.axis_type(axis) == types::AxisType::Auto) return true;
  return false;
}

}  // namespace

std::optional<WrittenSharding> first_committed_sharding(const std::vector<exec::ArrayRef>& inputs) {
  for (const auto& in : inputs)
    if (in && !in->single_device && in->sharding.is_concrete()) return WrittenSharding{in->sharding, in->type.rank()};
  return std::nullopt;
}

types::PartitionSpec without_trailing_none(const types::PartitionSpec& spec) {
  auto entries = spec.entries();
  while (!entries.empty() && entries.back().empty()) entries.pop_back();
  return spec.with_entries(std::move(entries));
}

types::PartitionSpec reported_spec(const exec::Array& out, const std::optional<WrittenSharding>& first_input) {
  const auto& layout = out.sharding.spec();
  if (out.single_device || !out.sharding.is_concrete()) return layout;
  const auto& mesh = out.sharding.mesh();
  const size_t rank = out.type.rank();
  const auto full = layout.normalized(rank);
  // A mesh with Explicit axes: JAX lays the output out by its type (pxla's
  // _concretize_abstract_out_shardings), full rank, unless the compiler used Auto axes too.
  const bool typed = !mesh.empty() && !mesh.abstract_mesh().any_axis_is(types::AxisType::Auto);
  const bool mixed = !mesh.empty() && !typed && mesh.abstract_mesh().any_axis_is(types::AxisType::Explicit);
  if (typed || (mixed && !names_auto_axis(full, mesh))) return full;
  if (!mixed && first_input && first_input->rank == rank && first_input->sharding.is_concrete() &&
      first_input->sharding.mesh() == mesh && first_input->sharding.spec().normalized(rank) == full)
    return first_input->sharding.spec();
  return without_trailing_none(full);
}

exec::ArrayRef with_reported_spec(const exec::ArrayRef& a, const types::PartitionSpec& spec) {
  if (a->single_device || !a->sharding.is_concrete() || a->sharding.spec() == spec) return a;
  auto copy = std::make_shared<exec::Array>(*a);
  copy->sharding = a->sharding.with_spec(spec);
  return copy;
}

void report_output_specs(std::vector<exec::ArrayRef>& outs, const std::optional<WrittenSharding>& first_input,
                         const std::vector<std::optional<types::PartitionSpec>>& given) {
  for (size_t k = 0; k < outs.size(); ++k) {
    const bool has_given = k < given.size() && given[k];
    outs[k] = with_reported_spec(outs[k], has_given ? *given[k] : reported_spec(*outs[k], first_input));
  }
}

}  // namespace shard::api
