// Pytrees, as JAX defines them: tuples, lists, dicts (keys sorted, as JAX flattens them) and
// None are containers, as are namedtuples and the node types registered through
// jax.tree_util (register_pytree_node, register_pytree_node_class, register_pytree_with_keys,
// register_dataclass); everything else is a leaf. Every transform (jit, grad, vmap, scan,
// shard_map, ...) and jax.tree_util flatten through here.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "interp/interp.hpp"

namespace shard::api {

// A registered node type: how its instances flatten into children and are rebuilt.
struct PytreeNode {
  enum Source { Callables, NamedTuple, Dataclass } source = Callables;
  interp::ClassP type;
  // Callables: the user's functions (flatten_with_keys may be null, then flatten is set;
  // flatten may be null when flatten_with_keys is set).
  interp::Value flatten, flatten_with_keys, unflatten;
  // Dataclass: the fields that are children, and those that are static (aux data).
  std::vector<std::string> data_fields, meta_fields;
};

struct TreeDef {
  enum Kind { Leaf, None, Tuple, List, Dict, Key, Custom } kind = Leaf;  // Key: a typed PRNG key over children[0]
  std::vector<TreeDef> children;
  // Dict: the keys, sorted. Custom: each child's key-path entry (a DictKey, GetAttrKey,
  // SequenceKey or FlattenedIndexKey object, or the user's own key).
  std::vector<interp::Value> keys;
  std::shared_ptr<const PytreeNode> node;  // Custom: its node type
  interp::Value aux;                       // Custom: the node's auxiliary data
};

struct FlattenOptions {
  interp::Value is_leaf;              // a predicate: subtrees it holds true for are leaves
  bool key_arrays_as_leaves = false;  // jax.tree_util's view; transforms see the key data
};

// Appends the leaves of `v` to `leaves` and returns its structure.
TreeDef tree_flatten(interp::Interp& I, const interp::Value& v, std::vector<interp::Value>& leaves, const FlattenOptions& opts = {});
// Rebuilds a value of structure `def` from leaves[pos...] (advancing pos).
interp::Value tree_unflatten(interp::Interp& I, const TreeDef& def, const std::vector<interp::Value>& leaves, size_t& pos);
// A canonical text of the structure (part of jit's cache key).
std::string tree_signature(interp::Interp& I, const TreeDef& def);
size_t tree_num_leaves(const TreeDef& def);
// A tree prefix of `full` broadcast to full's leaves: `prefix` has full's structure down to
// some depth, where a leaf (a value is_prefix_leaf holds for, or a non-container) stands for
// the whole subtree of full below it (how jit's in_shardings / out_shardings and
// with_sharding_constraint's shardings are read). One value per leaf of full; a mismatch is
// a ValueError saying `what` must be a tree prefix of `whose`.
std::vector<interp::Value> broadcast_prefix(interp::Interp& I, const interp::Value& prefix, const TreeDef& full,
                                            const std::function<bool(const interp::Value&)>& is_prefix_leaf, const std::string& what,
                                            const std::string& whose);
// PyTreeDef(*), PyTreeDef((*, *)), PyTreeDef({'a': *}), PyTreeDef(CustomNode(Point[None], [*, *]))
// as JAX prints them.
std::string pytreedef_str(interp::Interp& I, const TreeDef& def);
// The subtrees of `v` at the leaves of `def` (v has def's structure down to def's leaves):
// how tree_map reads its extra trees. Raises JAX's ValueError when the structures differ.
std::vector<interp::Value> flatten_up_to(interp::Interp& I, const TreeDef& def, const interp::Value& v);

// ---- node registry (node_registry.cpp) ----
// The node type of v's exact class (namedtuple classes are nodes without registration), or null.
std::shared_ptr<const PytreeNode> find_pytree_node(interp::Interp& I, const interp::Value& v);
// Registers `node`; registering a type twice is JAX's ValueError.
void register_pytree_node(interp::Interp& I, PytreeNode node);
// Node `def`'s children (and their keys) from `v`, and the aux data.
void flatten_node(interp::Interp& I, const PytreeNode& node, const interp::Value& v, std::vector<interp::Value>& children,
                  std::vector<interp::Value>& keys, interp::Value& aux);
interp::Value unflatten_node(interp::Interp& I, const PytreeNode& node, const interp::Value& aux, std::vector<interp::Value> children);
std::string node_type_name(const PytreeNode& node);  // "Point", "namedtuple[Point]"

// ---- key paths (key_paths.cpp) ----
interp::Value dict_key(interp::Value key);
interp::Value sequence_key(int64_t idx);
interp::Value get_attr_key(const std::string& name);
interp::Value flattened_index_key(int64_t idx);
// jax.tree_util.keystr of one entry: ['a'], [0], .name
std::string key_str(interp::Interp& I, const interp::Value& key);
// keystr(..., simple=True) of one entry: a, 0, name
std::string key_simple_str(interp::Interp& I, const interp::Value& key);
// The key path of every leaf of `def` (tuples of key objects), in leaf order.
std::vector<interp::Value> leaf_key_paths(interp::Interp& I, const TreeDef& def);
// The same as text, each prefixed with `prefix`: x, x[0], x['key'], x.field.
std::vector<std::string> leaf_path_strings(interp::Interp& I, const TreeDef& def, const std::string& prefix = "");
// The classes of the key objects (for jax.tree_util's namespace).
interp::ClassP dict_key_class();
interp::ClassP sequence_key_class();
interp::ClassP get_attr_key_class();
interp::ClassP flattened_index_key_class();

}  // namespace shard::api
