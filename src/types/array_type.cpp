#include "types/array_type.hpp"

#include "types/jax_version.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace shard::types {

PartitionSpec explicit_only_spec(const PartitionSpec& spec, const AbstractMesh& mesh) {
  auto is_explicit = [&](const std::string& a) {
    return mesh.axis_type(a) == AxisType::Explicit;
  };
  std::vector<PartitionSpec::Entry> entries;
  entries.reserve(spec.size());
  for (const auto& e : spec.entries()) {
    PartitionSpec::Entry kept;
    for (const auto& a : e)
      if (is_explicit(a)) kept.push_back(a);
    entries.push_back(std::move(kept));
  }
  std::vector<std::string> unreduced, reduced;
  for (const auto& u : spec.unreduced())
    if (is_explicit(u)) unreduced.push_back(u);
  for (const auto& r : spec.reduced())
    if (is_explicit(r)) reduced.push_back(r);
  return PartitionSpec(std::move(entries), std::move(unreduced), std::move(reduced));
}

namespace {

// Mesh axes in mesh order, then names outside the mesh (e.g. vmap axes) sorted.
std::vector<std::string> canonical_vma(std::vector<std::string> vma, const AbstractMesh& mesh) {
  std::sort(vma.begin(), vma.end());
  vma.erase(std::unique(vma.begin(), vma.end()), vma.end());
  std::vector<std::string> out = mesh.order_wrt_mesh(vma);
  for (const auto& v : vma)
    if (!mesh.has_axis(v)) out.push_back(v);
  return out;
}

}  // namespace

ArrayType::ArrayType(DType dtype, Shape shape, AbstractMesh mesh, PartitionSpec spec,
                     std::vector<std::string> vma, bool weak_type)
    : dtype_(dtype), shape_(std::move(shape)), mesh_(std::move(mesh)), weak_type_(weak_type) {
  for (int64_t d : shape_)
    if (d < 0)
      throw_value_error(fmt::format("Shapes must be 1D sequences of concrete values of integer "
                                    "type, got {}.",
                                    py_int_tuple(shape_)));
  // Not the full check_pspec: a type may be formed from a tuple that mixes axis types (an
  // Explicit sharding seen inside auto_axes); its non-Explicit axes are simply dropped.
  check_unique_axes(spec, "NamedSharding spec");
  check_spec_axes_in_mesh(mesh_, spec);
  for (const auto& u : spec.unreduced()) mesh_.axis_position(u);  // unknown axis -> error
  for (const auto& r : spec.reduced()) mesh_.axis_position(r);
  PartitionSpec typed = explicit_only_spec(spec, mesh_);
  size_t rank = shape_.size();
  if (typed.size() > rank) {
    bool extra_none = true;
    for (size_t i = rank; i < typed.size(); ++i) extra_none = extra_none && typed.is_none(i);
    if (!extra_none)
      throw_value_error(fmt::format(
          "Length of sharding.spec ({}) must be equal to aval's ndim ({}). Got sharding.spec "
          "{}, aval.ndim {} and sharding {}",
          typed.size(), rank, typed.repr(), rank, NamedSharding(mesh_, typed).repr()));
    typed = typed.with_entries({typed.entries().begin(), typed.entries().begin() + rank});
  }
  spec_ = typed.normalized(rank);
  NamedSharding(mesh_, spec_).check_divisible(shape_);
  for (const auto& v : vma)
    if (mesh_.has_axis(v) && mesh_.axis_type(v) != AxisType::Manual)
      throw_value_error(fmt::format(
          "Axes mentioned in `vma` field of ShapedArray should be of type `Manual`. Got axis: "
          "{} of type AxisType.{}",
          v, axis_type_name(mesh_.axis_type(v))));
  vma_ = canonical_vma(std::move(vma), mesh_);
  compute_hash();
}

ArrayType ArrayType::from_sharding(DType dtype, Shape shape, const NamedSharding& sharding,
                                   std::vector<std::string> vma, bool weak_type) {
  return ArrayType(dtype, std::move(shape), sharding.abstract_mesh(), sharding.spec(),
                   std::move(vma), weak_type);
}

void ArrayType::compute_hash() {
  size_t h = static_cast<size_t>(dtype_);
  for (int64_t d : shape_) hash_combine(h, std::hash<int64_t>{}(d));
  hash_combine(h, mesh_.hash());
  hash_combine(h, spec_.hash());
  hash_combine(h, hash_strings(vma_));
  hash_combine(h, weak_type_);
  hash_ = h;
}

ArrayType ArrayType::with_dtype(DType d) const {
  ArrayType t = *this;
  t.dtype_ = d;
  t.compute_hash();
  return t;
}

ArrayType ArrayType::with_shape(Shape s, PartitionSpec spec) const {
  return ArrayType(dtype_, std::move(s), mesh_, std::move(spec), vma_, weak_type_);
}

ArrayType ArrayType::with_spec(PartitionSpec spec) const {
  return ArrayType(dtype_, shape_, mesh_, std::move(spec), vma_, weak_type_);
}

ArrayType ArrayType::with_mesh(AbstractMesh mesh, PartitionSpec spec) const {
  return ArrayType(dtype_, shape_, std::move(mesh), std::move(spec), vma_, weak_type_);
}

ArrayType ArrayType::with_vma(std::vector<std::string> vma) const {
  return ArrayType(dtype_, shape_, mesh_, spec_, std::move(vma), weak_type_);
}

ArrayType ArrayType::with_weak_type(bool w) const {
  ArrayType t = *this;
  t.weak_type_ = w;
  t.compute_hash();
  return t;
}

std::string ArrayType::str_short() const {
  std::string dims;
  for (size_t d = 0; d < shape_.size(); ++d) {
    if (d) dims += ',';
    dims += std::to_string(shape_[d]);
    const auto& e = spec_[d];
    if (e.size() == 1) {
      dims += "@" + e[0];
    } else if (e.size() > 1) {
      dims += "@(";
      for (size_t i = 0; i < e.size(); ++i) dims += (i ? "," : "") + e[i];
      dims += ")";
    }
  }
  std::vector<std::string> extras;  // {batch_dim}, {dp,mp}, {U:X}, {U:(X,Y)}, {R:X}
  if (!vma_.empty()) {
    std::string v;
    for (size_t i = 0; i < vma_.size(); ++i) v += (i ? "," : "") + vma_[i];
    extras.push_back(jax_version() == JaxVersion::Current ? "V:" + v : v);
  }
  auto axis_set = [&](const std::vector<std::string>& names, const char* prefix) {
    if (names.empty()) return;
    auto u = mesh_.order_wrt_mesh(names);
    std::string s;
    for (size_t i = 0; i < u.size(); ++i) s += (i ? "," : "") + u[i];
    extras.push_back(u.size() == 1 ? prefix + s : prefix + ("(" + s + ")"));
  };
  axis_set(spec_.unreduced(), "U:");
  axis_set(spec_.reduced(), "R:");
  std::string tail;
  for (size_t i = 0; i < extras.size(); ++i) tail += (i ? ", " : "") + extras[i];
  if (!tail.empty()) tail = "{" + tail + "}";
  return fmt::format("{}[{}]{}", dtype_name(dtype_), dims, tail);
}

std::string ArrayType::repr() const {
  if (jax_version() == JaxVersion::Current) return str_short();  // current JAX prints the type alone
  return fmt::format("ShapedArray({}{})", str_short(), weak_type_ ? ", weak_type=True" : "");
}

bool ArrayType::operator==(const ArrayType& o) const {
  return hash_ == o.hash_ && dtype_ == o.dtype_ && weak_type_ == o.weak_type_ &&
         shape_ == o.shape_ && spec_ == o.spec_ && vma_ == o.vma_ && mesh_ == o.mesh_;
}

ArrayType stacked_type(const ArrayType& t, int64_t n) {
  Shape shape = t.shape();
  shape.insert(shape.begin(), n);
  auto e = t.spec().normalized(t.rank()).entries();
  e.insert(e.begin(), PartitionSpec::Entry{});
  return t.with_shape(shape, PartitionSpec(e));
}

ArrayType unstacked_type(const ArrayType& t) {
  Shape shape(t.shape().begin() + 1, t.shape().end());
  auto e = t.spec().normalized(t.rank()).entries();
  e.erase(e.begin());
  return t.with_shape(shape, PartitionSpec(e));
}

}  // namespace shard::types
