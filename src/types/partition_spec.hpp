// PartitionSpec: for each array dimension, the mesh axes it is split over. An entry is
// None (no axes), one axis name, or a tuple of names (major to minor), stored canonically
// as a list of names as JAX canonicalises them: () -> None and ('dp',) -> 'dp'. A spec does
// not know its mesh; NamedSharding checks it against one.
#pragma once
#include <string>
#include <vector>

#include "types/type_common.hpp"

namespace shard::types {

class PartitionSpec {
 public:
  using Entry = std::vector<std::string>;  // {} None, {"dp"} 'dp', {"dp","mp"} ('dp', 'mp')

  PartitionSpec() = default;  // PartitionSpec()
  // `unreduced` and `reduced` are sets (stored sorted). Throws ShardingError(ValueError) when
  // an axis is both in an entry and unreduced or reduced, or both unreduced and reduced, as
  // JAX does. Unreduced axes: the devices along them hold partial sums of the value. Reduced
  // axes: the value is replicated along them, and its cotangent is unreduced there (JAX's
  // to_ct_spec swaps the two sets).
  explicit PartitionSpec(std::vector<Entry> entries, std::vector<std::string> unreduced = {},
                         std::vector<std::string> reduced = {});
  static PartitionSpec replicated(size_t rank);  // PartitionSpec(None, ..., None)

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const Entry& operator[](size_t i) const { return entries_[i]; }
  const std::vector<Entry>& entries() const { return entries_; }
  const std::vector<std::string>& unreduced() const { return unreduced_; }
  const std::vector<std::string>& reduced() const { return reduced_; }
  bool is_none(size_t i) const { return entries_[i].empty(); }
  bool all_none() const;  // no dimension is sharded (true for PartitionSpec())
  // Every axis named by an entry, in order of appearance (repeats kept).
  std::vector<std::string> used_axes() const;
  // Axes named by more than one entry (or twice in one), sorted; empty when the spec is legal.
  std::vector<std::string> duplicate_axes() const;

  // Padded with None to `rank` entries (never truncated): JAX's _normalized_spec_for_aval.
  PartitionSpec normalized(size_t rank) const;
  PartitionSpec with_entries(std::vector<Entry> entries) const;
  PartitionSpec with_unreduced(std::vector<std::string> unreduced) const;
  PartitionSpec with_reduced(std::vector<std::string> reduced) const;
  // The cotangent's spec: unreduced and reduced swapped (JAX's to_ct_spec).
  PartitionSpec cotangent_spec() const;

  // PartitionSpec('dp', None), PartitionSpec(('dp', 'mp'),), PartitionSpec(),
  // PartitionSpec(None, unreduced={'X'}), PartitionSpec(reduced={'X'})
  std::string repr() const;
  // One entry as Python prints it inside the spec: None, 'dp', ('dp', 'mp').
  static std::string entry_repr(const Entry& e);
  // One entry as a tuple (JAX's divisibility message): ('dp',), ('dp', 'mp').
  static std::string entry_tuple_repr(const Entry& e) { return py_str_tuple(e); }
  // The entries as a Python tuple: ('dp', None).
  std::string entries_tuple_repr() const;

  size_t hash() const;
  bool operator==(const PartitionSpec& o) const {
    return entries_ == o.entries_ && unreduced_ == o.unreduced_ && reduced_ == o.reduced_;
  }
  bool operator!=(const PartitionSpec& o) const { return !(*this == o); }

 private:
  std::vector<Entry> entries_;
  std::vector<std::string> unreduced_;
  std::vector<std::string> reduced_;
};

}  // namespace shard::types

template <>
struct std::hash<shard::types::PartitionSpec> {
  size_t operator()(const shard::types::PartitionSpec& p) const { return p.hash(); }
};
