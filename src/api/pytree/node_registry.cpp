// The registry of pytree node types (jax.tree_util.register_pytree_node and friends), and
// namedtuples, which JAX treats as nodes without registration. A node type is looked up by
// the value's exact class, as JAX does: a subclass of a registered type is a leaf.
#include <fmt/format.h>

#include <mutex>
#include <unordered_map>

#include "api/pytree/pytree.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using interp::ObjKind;
using interp::Value;

namespace {

struct Registry {
  std::mutex mu;
  std::unordered_map<const interp::ClassObj*, std::shared_ptr<const PytreeNode>> nodes;       // registered
  std::unordered_map<const interp::ClassObj*, std::shared_ptr<const PytreeNode>> namedtuples;  // found on first use
};
Registry& registry() {
  static Registry r;
  return r;
}

// The field names of a namedtuple class (its `_fields`, a tuple of str), or nothing.
std::optional<std::vector<std::string>> namedtuple_fields(interp::Interp& I, const Value& v) {
  const bool tuple_like = v->kind == ObjKind::Tuple ||
                          (v->kind == ObjKind::Instance && static_cast<interp::InstanceObj&>(*v).native &&
                           static_cast<interp::InstanceObj&>(*v).native->kind == ObjKind::Tuple);
  if (!tuple_like) return std::nullopt;
  Value* fields = v->cls->lookup("_fields");
  if (!fields || (*fields)->kind != ObjKind::Tuple) return std::nullopt;
  std::vector<std::string> names;
  for (auto& f : static_cast<interp::TupleObj&>(**fields).items) {
    if (f->kind != ObjKind::Str) return std::nullopt;
    names.push_back(I.str(f));
  }
  return names;
}

// A (children, aux) pair returned by a user's flatten function.
std::pair<Value, Value> children_and_aux(interp::Interp& I, const Value& r, const std::string& what) {
  if (r->kind != ObjKind::Tuple || static_cast<interp::TupleObj&>(*r).items.size() != 2)
    I.raise("ValueError", fmt::format("{} must return a pair (children, aux_data), got {}", what, I.repr(r)));
  auto& items = static_cast<interp::TupleObj&>(*r).items;
  return {items[0], items[1]};
}

}  // namespace

std::shared_ptr<const PytreeNode> find_pytree_node(interp::Interp& I, const Value& v) {
  auto& r = registry();
  const interp::ClassObj* cls = v->cls.get();
  {
    std::lock_guard<std::mutex> lock(r.mu);
    if (auto it = r.nodes.find(cls); it != r.nodes.end()) return it->second;
    if (auto it = r.namedtuples.find(cls); it != r.namedtuples.end()) return it->second;
  }
  auto fields = namedtuple_fields(I, v);
  if (!fields) return nullptr;
  auto node = std::make_shared<PytreeNode>();
  node->source = PytreeNode::NamedTuple;
  node->type = v->cls;
  node->data_fields = std::move(*fields);
  std::lock_guard<std::mutex> lock(r.mu);
  return r.namedtuples.emplace(cls, std::move(node)).first->second;
}

void register_pytree_node(interp::Interp& I, PytreeNode node) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  const interp::ClassObj* cls = node.type.get();
  if (r.nodes.count(cls))
    I.raise("ValueError", fmt::format("Duplicate custom PyTreeDef type registration for {}.", I.repr(node.type)));
  r.nodes.emplace(cls, std::make_shared<const PytreeNode>(std::move(node)));
}

void flatten_node(interp::Interp& I, const PytreeNode& node, const Value& v, std::vector<Value>& children, std::vector<Value>& keys,
                  Value& aux) {
  switch (node.source) {
    case PytreeNode::NamedTuple:
      children = I.to_vector(v);
      for (auto& f : node.data_fields) keys.push_back(get_attr_key(f));
      aux = interp::none();
      return;
    case PytreeNode::Dataclass: {
      for (auto& f : node.data_fields) {
        children.push_back(I.getattr(v, f));
        keys.push_back(get_attr_key(f));
      }
      std::vector<Value> meta;
      for (auto& f : node.meta_fields) meta.push_back(I.getattr(v, f));
      aux = interp::make_tuple(std::move(meta));
      return;
    }
    case PytreeNode::Callables:
      if (node.flatten_with_keys) {
        auto [pairs, a] = children_and_aux(I, I.call(node.flatten_with_keys, {v}), "flatten_with_keys");
        for (auto& kc : I.to_vector(pairs)) {
          auto pair = I.to_vector(kc);
          if (pair.size() != 2) I.raise("ValueError", fmt::format("flatten_with_keys must give (key, child) pairs, got {}", I.repr(kc)));
          keys.push_back(pair[0]);
          children.push_back(pair[1]);
        }
        aux = a;
        return;
      }
      auto [cs, a] = children_and_aux(I, I.call(node.flatten, {v}), "flatten_func");
      children = I.to_vector(cs);
      for (size_t i = 0; i < children.size(); ++i) keys.push_back(flattened_index_key(static_cast<int64_t>(i)));
      aux = a;
      return;
  }
}

Value unflatten_node(interp::Interp& I, const PytreeNode& node, const Value& aux, std::vector<Value> children) {
  switch (node.source) {
    case PytreeNode::NamedTuple: return I.call(node.type, std::move(children));
    case PytreeNode::Dataclass: {
      interp::CallArgs a;
      for (size_t i = 0; i < node.data_fields.size(); ++i) a.kwargs.emplace_back(node.data_fields[i], children.at(i));
      auto meta = I.to_vector(aux);
      for (size_t i = 0; i < node.meta_fields.size(); ++i) a.kwargs.emplace_back(node.meta_fields[i], meta.at(i));
      a.loc = I.current_loc();
      return I.call(node.type, a);
    }
    case PytreeNode::Callables: return I.call(node.unflatten, {aux, interp::make_tuple(std::move(children))});
  }
  return interp::none();
}

std::string node_type_name(const PytreeNode& node) {
  return node.source == PytreeNode::NamedTuple ? "namedtuple[" + node.type->name + "]" : node.type->name;
}

}  // namespace shard::api
