#include "types/partition_spec.hpp"

#include "types/jax_version.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace shard::types {

namespace {

std::vector<std::string> sorted_unique(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// Python's repr of a set of str (sorted here; Python's order is the hash order).
std::string set_repr(const std::vector<std::string>& names) {
  std::string out = "{";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += ", ";
    out += py_str_repr(names[i]);
  }
  return out + "}";
}

}  // namespace

PartitionSpec::PartitionSpec(std::vector<Entry> entries, std::vector<std::string> unreduced,
                             std::vector<std::string> reduced)
    : entries_(std::move(entries)),
      unreduced_(sorted_unique(std::move(unreduced))),
      reduced_(sorted_unique(std::move(reduced))) {
  // JAX's CheckPartitionSpec, in its order: the two sets first, then each partition.
  std::vector<std::string> both;
  std::set_intersection(unreduced_.begin(), unreduced_.end(), reduced_.begin(), reduced_.end(),
                        std::back_inserter(both));
  if (!both.empty())
    throw_value_error(fmt::format(
        "`unreduced` and `reduced` argument to PartitionSpec cannot overlap. Got unreduced: "
        "frozenset({}) and reduced: frozenset({})",
        set_repr(unreduced_), set_repr(reduced_)));
  for (const auto& e : entries_)
    for (const auto& a : e) {
      if (std::binary_search(unreduced_.begin(), unreduced_.end(), a))
        throw_value_error(fmt::format(
            "partitions cannot overlap with unreduced axes passed to PartitionSpec. Got "
            "partitions: {} and unreduced axes: frozenset({})",
            entries_tuple_repr(), set_repr(unreduced_)));
      if (std::binary_search(reduced_.begin(), reduced_.end(), a))
        throw_value_error(fmt::format(
            "partitions cannot overlap with reduced axes passed to PartitionSpec. Got "
            "partitions: {} and reduced axes: frozenset({})",
            entries_tuple_repr(), set_repr(reduced_)));
    }
}

PartitionSpec PartitionSpec::replicated(size_t rank) {
  return PartitionSpec(std::vector<Entry>(rank));
}

bool PartitionSpec::all_none() const {
  return std::all_of(entries_.begin(), entries_.end(), [](const Entry& e) { return e.empty(); });
}

std::vector<std::string> PartitionSpec::used_axes() const {
  std::vector<std::string> out;
  for (const auto& e : entries_) out.insert(out.end(), e.begin(), e.end());
  return out;
}

std::vector<std::string> PartitionSpec::duplicate_axes() const {
  std::vector<std::string> seen, dups;
  for (const auto& a : used_axes()) {
    if (std::find(seen.begin(), seen.end(), a) == seen.end())
      seen.push_back(a);
    else if (std::find(dups.begin(), dups.end(), a) == dups.end())
      dups.push_back(a);
  }
  std::sort(dups.begin(), dups.end());
  return dups;
}

PartitionSpec PartitionSpec::normalized(size_t rank) const {
  PartitionSpec out = *this;
  if (out.entries_.size() < rank) out.entries_.resize(rank);
  return out;
}

PartitionSpec PartitionSpec::with_entries(std::vector<Entry> entries) const {
  return PartitionSpec(std::move(entries), unreduced_, reduced_);
}

PartitionSpec PartitionSpec::with_unreduced(std::vector<std::string> unreduced) const {
  return PartitionSpec(entries_, std::move(unreduced), reduced_);
}

PartitionSpec PartitionSpec::with_reduced(std::vector<std::string> reduced) const {
  return PartitionSpec(entries_, unreduced_, std::move(reduced));
}

PartitionSpec PartitionSpec::cotangent_spec() const {
  return PartitionSpec(entries_, reduced_, unreduced_);
}

std::string PartitionSpec::entry_repr(const Entry& e) {
  if (e.empty()) return "None";
  if (e.size() == 1) return py_str_repr(e[0]);
  return py_str_tuple(e);
}

std::string PartitionSpec::entries_tuple_repr() const {
  std::string out = "(";
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (i) out += ", ";
    out += entry_repr(entries_[i]);
  }
  if (entries_.size() == 1) out += ',';
  return out + ")";
}

std::string PartitionSpec::repr() const {
  std::string pr = entries_tuple_repr();
  pr = pr.substr(1, pr.size() - 2);  // repr(tuple)[1:-1], as JAX builds it
  // JAX prints `P(...)` since early 2026 (0.10 here), `PartitionSpec(...)` before.
  const std::string name = jax_version() == JaxVersion::Current ? "P(" : "PartitionSpec(";
  if (unreduced_.empty() && reduced_.empty()) return name + pr + ")";
  if (!pr.empty()) pr += pr.back() == ',' ? " " : ", ";
  std::string sets;  // JAX's _get_ur_str
  if (!unreduced_.empty()) sets = "unreduced=" + set_repr(unreduced_);
  if (!reduced_.empty()) sets += (sets.empty() ? "" : ", ") + std::string("reduced=") + set_repr(reduced_);
  return name + pr + sets + ")";
}

size_t PartitionSpec::hash() const {
  size_t h = entries_.size();
  for (const auto& e : entries_) hash_combine(h, hash_strings(e));
  hash_combine(h, hash_strings(unreduced_));
  hash_combine(h, hash_strings(reduced_));
  return h;
}

}  // namespace shard::types
