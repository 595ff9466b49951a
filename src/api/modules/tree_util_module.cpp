// jax.tree_util: tree_leaves, tree_structure, tree_flatten, tree_unflatten, tree_map, tree_all
// over the containers JAX knows without registration (tuple, list, dict with keys sorted,
// None as an empty subtree). Every other value — arrays, typed PRNG keys, numbers — is a leaf.
#include <fmt/format.h>

#include "api/transforms/jit_tree.hpp"
#include "api/transforms/region_trace.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using interp::CallArgs;
using interp::ClassP;
using interp::Interp;
using interp::ObjKind;
using interp::Value;
namespace bi = interp::bi;

namespace {

// Like jit's flatten, but leaves are whatever JAX calls leaves (a key array is one leaf).
TreeDef flatten(Interp& I, const Value& v, std::vector<Value>& leaves, int depth = 0) {
  if (depth > 200) I.raise("RecursionError", "maximum recursion depth exceeded while flattening a pytree");
  TreeDef d;
  const bool exact = v->cls.get() == interp::T().tuple.get() || v->cls.get() == interp::T().list.get() ||
                     v->cls.get() == interp::T().dict.get();
  if (v->kind == ObjKind::None) {
    d.kind = TreeDef::None;
  } else if (exact && (v->kind == ObjKind::Tuple || v->kind == ObjKind::List)) {
    d.kind = v->kind == ObjKind::Tuple ? TreeDef::Tuple : TreeDef::List;
    for (auto& x : I.to_vector(v)) d.children.push_back(flatten(I, x, leaves, depth + 1));
  } else if (exact && v->kind == ObjKind::Dict) {
    d.kind = TreeDef::Dict;
    auto items = static_cast<interp::DictObj&>(*v).items();
    std::stable_sort(items.begin(), items.end(), [&](const auto& a, const auto& b) { return bi::lt_fast(I, a.first, b.first); });
    for (auto& [k, x] : items) {
      d.keys.push_back(k);
      d.children.push_back(flatten(I, x, leaves, depth + 1));
    }
  } else {
    leaves.push_back(v);
  }
  return d;
}

size_t num_leaves(const TreeDef& d) {
  if (d.kind == TreeDef::Leaf) return 1;
  size_t n = 0;
  for (auto& c : d.children) n += num_leaves(c);
  return n;
}

struct TreeDefObj : interp::NativeObj {
  TreeDef def;
  TreeDefObj(ClassP c, TreeDef d) : NativeObj(std::move(c)), def(std::move(d)) {}
};

ClassP treedef_class() {
  static ClassP c = [] {
    auto k = interp::make_class("PyTreeDef", {interp::T().object}, "jaxlib.xla_extension.pytree");
    auto self = [k](Interp& I, const CallArgs& a, const char* m) -> TreeDefObj& { return bi::native_self<TreeDefObj>(I, a, k, "PyTreeDef", m); };
    bi::def(k, "__repr__", [self](Interp& I, CallArgs& a) -> Value { return interp::make_str(pytreedef_str(I, self(I, a, "__repr__").def)); });
    bi::def(k, "__eq__", [self](Interp& I, CallArgs& a) -> Value {
      auto& x = self(I, a, "__eq__");
      auto* y = a.args.size() > 1 ? dynamic_cast<TreeDefObj*>(a.args[1].get()) : nullptr;
      return interp::make_bool(y && tree_signature(I, x.def) == tree_signature(I, y->def));
    });
    bi::def_property(k, "num_leaves", [self](Interp& I, CallArgs& a) -> Value {
      return interp::make_int(static_cast<int64_t>(num_leaves(self(I, a, "num_leaves").def)));
    });
    return k;
  }();
  return c;
}

TreeDef& treedef_arg(Interp& I, const Value& v, const char* fname) {
  auto* t = dynamic_cast<TreeDefObj*>(v.get());
  if (!t) I.raise("TypeError", fmt::format("{}: expected a PyTreeDef, got {}", fname, I.type_name(v)));
  return t->def;
}

Value tree_map(Interp& I, CallArgs& a) {
  if (a.args.size() < 2) I.raise("TypeError", "tree_map() missing required arguments: 'f' and 'tree'");
  std::vector<Value> leaves;
  TreeDef def = flatten(I, a.args[1], leaves);
  std::vector<std::vector<Value>> rest;
  for (size_t r = 2; r < a.args.size(); ++r) {
    std::vector<Value> other;
    TreeDef od = flatten(I, a.args[r], other);
    if (tree_signature(I, od) != tree_signature(I, def))
      I.raise("ValueError", fmt::format("Tree structures did not match: {} vs {}", pytreedef_str(I, def), pytreedef_str(I, od)));
    rest.push_back(std::move(other));
  }
  std::vector<Value> out;
  for (size_t i = 0; i < leaves.size(); ++i) {
    std::vector<Value> args{leaves[i]};
    for (auto& o : rest) args.push_back(o[i]);
    out.push_back(I.call(a.args[0], args));
  }
  size_t pos = 0;
  return tree_unflatten(I, def, out, pos);
}

void fill_tree_util(Interp&, interp::ModuleObj& m) {
  auto add = [&](const char* name, interp::NativeFn fn) { m.dict.set(name, interp::make_builtin(name, std::move(fn))); };
  add("tree_leaves", [](Interp& I, CallArgs& a) -> Value {
    interp::ArgParser p(I, a, "tree_leaves", {"tree", "is_leaf="});
    std::vector<Value> leaves;
    flatten(I, p.get("tree"), leaves);
    return interp::make_list(std::move(leaves));
  });
  add("tree_structure", [](Interp& I, CallArgs& a) -> Value {
    interp::ArgParser p(I, a, "tree_structure", {"tree", "is_leaf="});
    std::vector<Value> leaves;
    return std::make_shared<TreeDefObj>(treedef_class(), flatten(I, p.get("tree"), leaves));
  });
  add("tree_flatten", [](Interp& I, CallArgs& a) -> Value {
    interp::ArgParser p(I, a, "tree_flatten", {"tree", "is_leaf="});
    std::vector<Value> leaves;
    TreeDef def = flatten(I, p.get("tree"), leaves);
    return interp::make_tuple({interp::make_list(std::move(leaves)), std::make_shared<TreeDefObj>(treedef_class(), std::move(def))});
  });
  add("tree_unflatten", [](Interp& I, CallArgs& a) -> Value {
    interp::ArgParser p(I, a, "tree_unflatten", {"treedef", "leaves"});
    const TreeDef& def = treedef_arg(I, p.get("treedef"), "tree_unflatten");
    auto leaves = I.to_vector(p.get("leaves"));
    if (leaves.size() != num_leaves(def))
      I.raise("ValueError", fmt::format("Too {} leaves for PyTreeDef; expected {}, got {}.", leaves.size() < num_leaves(def) ? "few" : "many",
                                        num_leaves(def), leaves.size()));
    size_t pos = 0;
    return tree_unflatten(I, def, leaves, pos);
  });
  add("tree_map", tree_map);
  add("tree_all", [](Interp& I, CallArgs& a) -> Value {
    interp::ArgParser p(I, a, "tree_all", {"tree", "is_leaf="});
    std::vector<Value> leaves;
    flatten(I, p.get("tree"), leaves);
    for (auto& l : leaves)
      if (!I.truthy(l)) return interp::make_bool(false);
    return interp::make_bool(true);
  });
}

}  // namespace

void register_tree_util_module() { Interp::register_builtin_module("jax.tree_util", fill_tree_util); }

}  // namespace shard::api
