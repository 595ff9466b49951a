// Pytrees for jit: tuples, lists, dicts (keys sorted, as JAX flattens them) and None are
// containers; everything else is a leaf.
#pragma once
#include <string>
#include <vector>

#include "interp/interp.hpp"

namespace shard::api {

struct TreeDef {
  enum Kind { Leaf, None, Tuple, List, Dict, Key } kind = Leaf;  // Key: a typed PRNG key over children[0]
  std::vector<TreeDef> children;
  std::vector<interp::Value> keys;  // Dict: the keys, sorted
};

// Appends the leaves of `v` to `leaves` and returns its structure.
TreeDef tree_flatten(interp::Interp& I, const interp::Value& v, std::vector<interp::Value>& leaves, int depth = 0);
// Rebuilds a value of structure `def` from leaves[pos...] (advancing pos).
interp::Value tree_unflatten(interp::Interp& I, const TreeDef& def, const std::vector<interp::Value>& leaves, size_t& pos);
// A canonical text of the structure (part of jit's cache key).
std::string tree_signature(interp::Interp& I, const TreeDef& def);

}  // namespace shard::api
