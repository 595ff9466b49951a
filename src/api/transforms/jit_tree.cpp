// Pytree flatten/unflatten for jit (see jit_tree.hpp).
#include "api/transforms/jit_tree.hpp"

#include <algorithm>

#include "api/modules/random_keys.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using interp::ObjKind;
using interp::Value;
namespace bi = interp::bi;

TreeDef tree_flatten(interp::Interp& I, const Value& v, std::vector<Value>& leaves, int depth) {
  if (depth > 200) I.raise("RecursionError", "maximum recursion depth exceeded while flattening a pytree");
  TreeDef d;
  if (is_key_array(v)) {  // typed keys travel as their uint32 key data
    d.kind = TreeDef::Key;
    d.children.push_back(tree_flatten(I, key_array_data(v), leaves, depth + 1));
    return d;
  }
  switch (v->kind) {
    case ObjKind::None: d.kind = TreeDef::None; return d;
    case ObjKind::Tuple:
    case ObjKind::List: {
      // Only the exact built-in types: subclasses (namedtuples, ...) are leaves for now.
      const bool tuple = v->kind == ObjKind::Tuple;
      if (v->cls.get() != (tuple ? interp::T().tuple : interp::T().list).get()) break;
      d.kind = tuple ? TreeDef::Tuple : TreeDef::List;
      const auto& items = tuple ? static_cast<interp::TupleObj&>(*v).items : static_cast<interp::ListObj&>(*v).items;
      for (auto& x : std::vector<Value>(items)) d.children.push_back(tree_flatten(I, x, leaves, depth + 1));
      return d;
    }
    case ObjKind::Dict: {
      if (v->cls.get() != interp::T().dict.get()) break;
      d.kind = TreeDef::Dict;
      auto items = static_cast<interp::DictObj&>(*v).items();
      std::stable_sort(items.begin(), items.end(), [&](const auto& a, const auto& b) { return bi::lt_fast(I, a.first, b.first); });
      for (auto& [k, x] : items) {
        d.keys.push_back(k);
        d.children.push_back(tree_flatten(I, x, leaves, depth + 1));
      }
      return d;
    }
    default: break;
  }
  leaves.push_back(v);
  return d;
}

Value tree_unflatten(interp::Interp& I, const TreeDef& def, const std::vector<Value>& leaves, size_t& pos) {
  switch (def.kind) {
    case TreeDef::Leaf: return leaves.at(pos++);
    case TreeDef::None: return interp::none();
    case TreeDef::Key: return make_key_array(tree_unflatten(I, def.children.at(0), leaves, pos));
    case TreeDef::Tuple:
    case TreeDef::List: {
      std::vector<Value> items;
      for (auto& c : def.children) items.push_back(tree_unflatten(I, c, leaves, pos));
      return def.kind == TreeDef::Tuple ? interp::make_tuple(std::move(items)) : interp::make_list(std::move(items));
    }
    case TreeDef::Dict: {
      auto d = interp::make_dict();
      for (size_t i = 0; i < def.children.size(); ++i) d->set(I, def.keys[i], tree_unflatten(I, def.children[i], leaves, pos));
      return d;
    }
  }
  return interp::none();
}

std::string tree_signature(interp::Interp& I, const TreeDef& def) {
  switch (def.kind) {
    case TreeDef::Leaf: return "*";
    case TreeDef::None: return "None";
    case TreeDef::Key: return "key(" + tree_signature(I, def.children.at(0)) + ")";
    default: break;
  }
  std::string s = def.kind == TreeDef::Tuple ? "(" : def.kind == TreeDef::List ? "[" : "{";
  for (size_t i = 0; i < def.children.size(); ++i) {
    if (i) s += ",";
    if (def.kind == TreeDef::Dict) s += bi::repr_of(I, def.keys[i]) + ":";
    s += tree_signature(I, def.children[i]);
  }
  s += def.kind == TreeDef::Tuple ? ")" : def.kind == TreeDef::List ? "]" : "}";
  return s;
}

}  // namespace shard::api
