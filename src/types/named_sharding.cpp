// NamedSharding construction, checks and printing (geometry is in shard_geometry.cpp).
#include "types/named_sharding.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace shard::types {

namespace {

// JAX's mesh_lib.show_axes: sorted, back-quoted, comma-joined.
std::string show_axes(const std::vector<std::string>& axes) {
  std::vector<std::string> quoted;
  for (const auto& a : axes) quoted.push_back("`" + a + "`");
  std::sort(quoted.begin(), quoted.end());
  std::string out;
  for (size_t i = 0; i < quoted.size(); ++i) out += (i ? ", " : "") + quoted[i];
  return out;
}

std::string frozenset_repr(const std::vector<std::string>& names) {
  if (names.empty()) return "frozenset()";
  std::string out = "frozenset({";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + py_str_repr(names[i]);
  return out + "})";
}

}  // namespace

void check_unique_axes(const PartitionSpec& spec, const std::string& arg_name) {
  auto dups = spec.duplicate_axes();
  if (dups.empty()) return;
  throw_value_error(fmt::format(
      "A single {} specification can map every mesh axis to at most one positional "
      "dimension, but {} has duplicate entries for {}",
      arg_name, spec.repr(), show_axes(dups)));
}

void check_spec_axes_in_mesh(const AbstractMesh& mesh, const PartitionSpec& spec) {
  for (const auto& entry : spec.entries()) {
    for (const auto& axis : entry)
      if (!mesh.has_axis(axis))
        throw_value_error(fmt::format("Resource axis: {} of {} is not found in mesh: {}.", axis,
                                      spec.repr(), py_str_tuple(mesh.axis_names())));
  }
}

void check_pspec(const AbstractMesh& mesh, const PartitionSpec& spec,
                 const std::string& mesh_repr) {
  check_unique_axes(spec, "NamedSharding spec");
  for (const auto& entry : spec.entries()) {
    for (const auto& axis : entry)
      if (!mesh.has_axis(axis))
        throw_value_error(fmt::format("Resource axis: {} of {} is not found in mesh: {}.", axis,
                                      spec.repr(), py_str_tuple(mesh.axis_names())));
    bool mixed = std::any_of(entry.begin(), entry.end(), [&](const std::string& a) {
      return mesh.axis_type(a) != mesh.axis_type(entry[0]);
    });
    if (mixed) {
      std::string types;
      for (size_t i = 0; i < entry.size(); ++i)  // str(AxisType.X) is "AxisType.X"
        types += fmt::format("{}AxisType.{}", i ? ", " : "", axis_type_name(mesh.axis_type(entry[i])));
      throw_value_error(fmt::format(
          "AxisTypes should be the same in a tuple subset of PartitionSpec: {}. Got subset {} "
          "with axis types: ({})",
          spec.repr(), py_str_tuple(entry), types));
    }
  }
  // JAX checks the unreduced and the reduced axes alike, naming which set: "Unreduced axes
  // ..." / "Reduced axes ...".
  auto check_axis_set = [&](const std::vector<std::string>& names, const char* Name, const char* name) {
    for (const auto& a : names) {
      if (!mesh.has_axis(a))
        throw_value_error(fmt::format("{} axes {} is not found in mesh.axis_names={}. Got pspec={}", Name, a,
                                      py_str_tuple(mesh.axis_names()), spec.repr()));
      if (mesh.axis_type(a) != AxisType::Explicit)
        throw_value_error(fmt::format("{} axes can only refer to mesh axes that is of type `Explicit`. Got {} axes: {} and mesh: {}",
                                      Name, name, frozenset_repr(names), mesh_repr));
    }
  };
  check_axis_set(spec.unreduced(), "Unreduced", "unreduced");
  check_axis_set(spec.reduced(), "Reduced", "reduced");
}

NamedSharding::NamedSharding(Mesh mesh, PartitionSpec spec,
                             std::optional<std::string> memory_kind)
    : concrete_(std::move(mesh)),
      abstract_(concrete_->abstract_mesh()),
      spec_(std::move(spec)),
      memory_kind_(std::move(memory_kind)) {
  check_pspec(abstract_, spec_, concrete_->repr());
}

NamedSharding::NamedSharding(AbstractMesh mesh, PartitionSpec spec,
                             std::optional<std::string> memory_kind)
    : abstract_(std::move(mesh)), spec_(std::move(spec)), memory_kind_(std::move(memory_kind)) {
  check_pspec(abstract_, spec_, abstract_.repr());
}

const Mesh& NamedSharding::mesh() const {
  if (!concrete_)
    throw_value_error("A NamedSharding over a `jax.sharding.AbstractMesh` has no devices.");
  return *concrete_;
}

NamedSharding NamedSharding::with_spec(PartitionSpec spec) const {
  if (concrete_) return NamedSharding(*concrete_, std::move(spec), memory_kind_);
  return NamedSharding(abstract_, std::move(spec), memory_kind_);
}

std::string NamedSharding::mesh_repr() const {
  return concrete_ ? concrete_->repr() : abstract_.repr();
}

std::string NamedSharding::repr() const {
  std::string mem = memory_kind_ ? ", memory_kind=" + *memory_kind_ : "";
  return fmt::format("NamedSharding(mesh={}, spec={}{})", mesh_repr(), spec_.repr(), mem);
}

void NamedSharding::check_rank(size_t rank) const {
  if (rank >= spec_.size()) return;
  throw_value_error(fmt::format(
      "Sharding {} is only valid for values of rank at least {}, but was applied to a value "
      "of rank {}.{}",
      repr(), spec_.size(), rank, rank == 0 ? " For scalars the PartitionSpec should be P()" : ""));
}

void NamedSharding::check_divisible(const Shape& shape) const {
  for (size_t dim = 0; dim < spec_.size() && dim < shape.size(); ++dim) {
    const auto& entry = spec_[dim];
    if (entry.empty()) continue;
    int64_t parts = abstract_.axes_size(entry);
    if (shape[dim] % parts != 0)
      throw_value_error(fmt::format(
          "Sharding spec {} implies that array axis {} is partitioned {} times, but does not "
          "evenly divide the dimension size {}. Got shape: {}",
          PartitionSpec::entry_tuple_repr(entry), dim, parts, shape[dim], py_int_tuple(shape)));
  }
}

void NamedSharding::check_shape(const Shape& shape) const {
  check_rank(shape.size());
  check_divisible(shape);
}

size_t NamedSharding::hash() const {
  size_t h = concrete_ ? concrete_->hash() : abstract_.hash();
  hash_combine(h, concrete_.has_value());
  hash_combine(h, spec_.hash());
  hash_combine(h, memory_kind_ ? std::hash<std::string>{}(*memory_kind_) : 0);
  return h;
}

bool NamedSharding::operator==(const NamedSharding& o) const {
  if (concrete_.has_value() != o.concrete_.has_value()) return false;
  if (spec_ != o.spec_ || memory_kind_ != o.memory_kind_) return false;
  return concrete_ ? *concrete_ == *o.concrete_ : abstract_ == o.abstract_;
}

}  // namespace shard::types
