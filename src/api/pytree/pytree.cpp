// Flatten / unflatten of pytrees (see pytree.hpp).
#include "api/pytree/pytree.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "api/modules/random_keys.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using interp::ObjKind;
using interp::Value;
namespace bi = interp::bi;

namespace {

TreeDef flatten_at(interp::Interp& I, const Value& v, std::vector<Value>& leaves, const FlattenOptions& opts, int depth) {
  if (depth > 200) I.raise("RecursionError", "maximum recursion depth exceeded while flattening a pytree");
  TreeDef d;
  if (opts.is_leaf && opts.is_leaf->kind != ObjKind::None && I.truthy(I.call(opts.is_leaf, {v}))) {
    leaves.push_back(v);
    return d;
  }
  if (is_key_array(v)) {
    if (opts.key_arrays_as_leaves) {
      leaves.push_back(v);
      return d;
    }
    d.kind = TreeDef::Key;  // transforms carry typed keys as their uint32 key data
    d.children.push_back(flatten_at(I, key_array_data(v), leaves, opts, depth + 1));
    return d;
  }
  switch (v->kind) {
    case ObjKind::None: d.kind = TreeDef::None; return d;
    case ObjKind::Tuple:
    case ObjKind::List: {
      const bool tuple = v->kind == ObjKind::Tuple;
      if (v->cls.get() != (tuple ? interp::T().tuple : interp::T().list).get()) break;  // namedtuples: nodes, below
      d.kind = tuple ? TreeDef::Tuple : TreeDef::List;
      const auto& items = tuple ? static_cast<interp::TupleObj&>(*v).items : static_cast<interp::ListObj&>(*v).items;
      for (auto& x : std::vector<Value>(items)) d.children.push_back(flatten_at(I, x, leaves, opts, depth + 1));
      return d;
    }
    case ObjKind::Dict: {
      if (v->cls.get() != interp::T().dict.get()) break;
      d.kind = TreeDef::Dict;
      auto items = static_cast<interp::DictObj&>(*v).items();
      std::stable_sort(items.begin(), items.end(), [&](const auto& a, const auto& b) { return bi::lt_fast(I, a.first, b.first); });
      for (auto& [k, x] : items) {
        d.keys.push_back(k);
        d.children.push_back(flatten_at(I, x, leaves, opts, depth + 1));
      }
      return d;
    }
    default: break;
  }
  if (auto node = find_pytree_node(I, v)) {
    std::vector<Value> children;
    d.kind = TreeDef::Custom;
    flatten_node(I, *node, v, children, d.keys, d.aux);
    d.node = std::move(node);
    for (auto& c : children) d.children.push_back(flatten_at(I, c, leaves, opts, depth + 1));
    return d;
  }
  leaves.push_back(v);
  return d;
}

}  // namespace

TreeDef tree_flatten(interp::Interp& I, const Value& v, std::vector<Value>& leaves, const FlattenOptions& opts) {
  return flatten_at(I, v, leaves, opts, 0);
}

Value tree_unflatten(interp::Interp& I, const TreeDef& def, const std::vector<Value>& leaves, size_t& pos) {
  switch (def.kind) {
    case TreeDef::Leaf: return leaves.at(pos++);
    case TreeDef::None: return interp::none();
    case TreeDef::Key: return make_key_array(tree_unflatten(I, def.children.at(0), leaves, pos));
    case TreeDef::Tuple:
    case TreeDef::List:
    case TreeDef::Custom: {
      std::vector<Value> items;
      for (auto& c : def.children) items.push_back(tree_unflatten(I, c, leaves, pos));
      if (def.kind == TreeDef::Custom) return unflatten_node(I, *def.node, def.aux, std::move(items));
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
  std::string s;
  if (def.kind == TreeDef::Custom)  // the node type by identity, its aux data by value
    s = "<" + node_type_name(*def.node) + "@" + std::to_string(reinterpret_cast<uintptr_t>(def.node->type.get())) + "[" +
        bi::repr_of(I, def.aux) + "]";
  s += def.kind == TreeDef::Tuple ? "(" : def.kind == TreeDef::List ? "[" : "{";
  for (size_t i = 0; i < def.children.size(); ++i) {
    if (i) s += ",";
    if (def.kind == TreeDef::Dict) s += bi::repr_of(I, def.keys[i]) + ":";
    s += tree_signature(I, def.children[i]);
  }
  s += def.kind == TreeDef::Tuple ? ")" : def.kind == TreeDef::List ? "]" : "}";
  return s;
}

namespace {
std::string tree_text(interp::Interp& I, const TreeDef& d) {
  std::vector<std::string> parts;
  switch (d.kind) {
    case TreeDef::Leaf: case TreeDef::Key: return "*";
    case TreeDef::None: return "None";
    case TreeDef::Tuple:
      for (auto& c : d.children) parts.push_back(tree_text(I, c));
      return parts.size() == 1 ? fmt::format("({},)", parts[0]) : fmt::format("({})", fmt::join(parts, ", "));
    case TreeDef::List:
      for (auto& c : d.children) parts.push_back(tree_text(I, c));
      return fmt::format("[{}]", fmt::join(parts, ", "));
    case TreeDef::Dict:
      for (size_t i = 0; i < d.children.size(); ++i) parts.push_back(fmt::format("{}: {}", I.repr(d.keys[i]), tree_text(I, d.children[i])));
      return fmt::format("{{{}}}", fmt::join(parts, ", "));
    case TreeDef::Custom:
      for (auto& c : d.children) parts.push_back(tree_text(I, c));
      if (d.node->source == PytreeNode::NamedTuple) return fmt::format("CustomNode(namedtuple[{}], [{}])", d.node->type->name, fmt::join(parts, ", "));
      return fmt::format("CustomNode({}[{}], [{}])", d.node->type->name, I.str(d.aux), fmt::join(parts, ", "));
  }
  return "*";
}

// The messages are JAX's (PyTreeDef.flatten_up_to).
void up_to(interp::Interp& I, const TreeDef& d, const Value& v, std::vector<Value>& out) {
  auto fail = [&](const std::string& msg) { I.raise("ValueError", msg); };
  switch (d.kind) {
    case TreeDef::Leaf: out.push_back(v); return;
    case TreeDef::None: return;  // as JAX: whatever the other tree holds there is dropped
    case TreeDef::Key:
      if (!is_key_array(v)) fail(fmt::format("Expected a key array, got {}.", I.repr(v)));
      up_to(I, d.children.at(0), key_array_data(v), out);
      return;
    case TreeDef::Tuple:
    case TreeDef::List: {
      const bool tuple = d.kind == TreeDef::Tuple;
      const char* what = tuple ? "tuple" : "list";
      if (v->cls.get() != (tuple ? interp::T().tuple : interp::T().list).get()) fail(fmt::format("Expected {}, got {}.", what, I.repr(v)));
      auto items = I.to_vector(v);
      if (items.size() != d.children.size())
        fail(fmt::format("{} arity mismatch: {} != {}; {}: {}.", tuple ? "Tuple" : "List", items.size(), d.children.size(), what, I.repr(v)));
      for (size_t i = 0; i < items.size(); ++i) up_to(I, d.children[i], items[i], out);
      return;
    }
    case TreeDef::Dict: {
      if (v->cls.get() != interp::T().dict.get()) fail(fmt::format("Expected dict, got {}.", I.repr(v)));
      auto& dict = static_cast<interp::DictObj&>(*v);
      bool same = dict.items().size() == d.keys.size();
      for (size_t i = 0; same && i < d.keys.size(); ++i) same = dict.find(I, d.keys[i]) != nullptr;
      if (!same) fail(fmt::format("Dict key mismatch; expected keys: {}; dict: {}.", I.repr(interp::make_list(d.keys)), I.repr(v)));
      for (size_t i = 0; i < d.keys.size(); ++i) up_to(I, d.children[i], *dict.find(I, d.keys[i]), out);
      return;
    }
    case TreeDef::Custom: {
      auto node = find_pytree_node(I, v);
      const bool named = d.node->source == PytreeNode::NamedTuple;
      if (named && (!node || node->source != PytreeNode::NamedTuple)) fail(fmt::format("Expected named tuple, got {}.", I.repr(v)));
      if (!node || node->type != d.node->type) {
        if (named) fail(fmt::format("Named tuple type mismatch: expected type: {}, tuple: {}.", I.repr(d.node->type), I.repr(v)));
        fail(fmt::format("Custom node type mismatch: expected type: {}, value: {}.", I.repr(d.node->type), I.repr(v)));
      }
      std::vector<Value> children, keys;
      Value aux;
      flatten_node(I, *node, v, children, keys, aux);
      if (!named && !I.eq(aux, d.aux))
        fail(fmt::format("Mismatch custom node data: {} != {}; value: {}.", I.repr(d.aux), I.repr(aux), I.repr(v)));
      if (children.size() != d.children.size())
        fail(fmt::format("{} arity mismatch: {} != {}; {}: {}.", named ? "Named tuple" : "Custom type", children.size(), d.children.size(),
                         named ? "tuple" : "value", I.repr(v)));
      for (size_t i = 0; i < children.size(); ++i) up_to(I, d.children[i], children[i], out);
      return;
    }
  }
}
}  // namespace

std::string pytreedef_str(interp::Interp& I, const TreeDef& def) { return fmt::format("PyTreeDef({})", tree_text(I, def)); }

std::vector<Value> flatten_up_to(interp::Interp& I, const TreeDef& def, const Value& v) {
  std::vector<Value> out;
  up_to(I, def, v, out);
  return out;
}

namespace {
void broadcast_into(interp::Interp& I, const Value& p, const TreeDef& d, const std::function<bool(const Value&)>& is_prefix_leaf,
                    std::vector<Value>& out, const std::string& where, const std::string& what, const std::string& whose) {
  auto mismatch = [&](const std::string& detail) {
    I.raise("ValueError", fmt::format("{} must be a tree prefix of {}; at {}: {}", what, whose, where.empty() ? "the root" : where, detail));
  };
  const bool container = (p->kind == ObjKind::Tuple || p->kind == ObjKind::List || p->kind == ObjKind::Dict) || find_pytree_node(I, p);
  if (!container || is_prefix_leaf(p)) {
    out.insert(out.end(), tree_num_leaves(d), p);
    return;
  }
  std::vector<Value> children;
  if (d.kind == TreeDef::Tuple || d.kind == TreeDef::List) {
    const bool tuple = d.kind == TreeDef::Tuple;
    if (p->cls.get() != (tuple ? interp::T().tuple : interp::T().list).get())
      mismatch(fmt::format("expected a {} of {} entries, got {}", tuple ? "tuple" : "list", d.children.size(), I.repr(p)));
    children = I.to_vector(p);
    if (children.size() != d.children.size())
      mismatch(fmt::format("a {} of length {} where the value has length {}", tuple ? "tuple" : "list", children.size(), d.children.size()));
  } else if (d.kind == TreeDef::Dict) {
    if (p->cls.get() != interp::T().dict.get()) mismatch(fmt::format("expected a dict, got {}", I.repr(p)));
    auto& dict = static_cast<interp::DictObj&>(*p);
    if (dict.items().size() != d.keys.size()) mismatch(fmt::format("dict keys differ from {}", I.repr(interp::make_list(d.keys))));
    for (auto& k : d.keys) {
      const Value* x = dict.find(I, k);
      if (!x) mismatch(fmt::format("dict keys differ from {}", I.repr(interp::make_list(d.keys))));
      children.push_back(*x);
    }
  } else if (d.kind == TreeDef::Custom) {
    auto node = find_pytree_node(I, p);
    if (!node || node->type != d.node->type) mismatch(fmt::format("expected a {}, got {}", d.node->type->name, I.repr(p)));
    std::vector<Value> keys;
    Value aux;
    flatten_node(I, *node, p, children, keys, aux);
    if (children.size() != d.children.size()) mismatch(fmt::format("{} children where the value has {}", children.size(), d.children.size()));
  } else {
    mismatch(fmt::format("{} where the value is {}", I.repr(p), pytreedef_str(I, d)));
  }
  for (size_t i = 0; i < children.size(); ++i) {
    std::string step = d.kind == TreeDef::Dict ? "[" + I.repr(d.keys[i]) + "]" : "[" + std::to_string(i) + "]";
    broadcast_into(I, children[i], d.children[i], is_prefix_leaf, out, where + step, what, whose);
  }
}
}  // namespace

std::vector<Value> broadcast_prefix(interp::Interp& I, const Value& prefix, const TreeDef& full,
                                    const std::function<bool(const Value&)>& is_prefix_leaf, const std::string& what, const std::string& whose) {
  std::vector<Value> out;
  broadcast_into(I, prefix, full, is_prefix_leaf, out, "", what, whose);
  return out;
}

size_t tree_num_leaves(const TreeDef& def) {
  if (def.kind == TreeDef::Leaf) return 1;
  size_t n = 0;
  for (auto& c : def.children) n += tree_num_leaves(c);
  return n;
}

}  // namespace shard::api
