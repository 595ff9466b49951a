// jax.tree_util and jax.tree: flattening, mapping and reducing pytrees (api/pytree/), key
// paths, and the registration of node types. Leaves are what JAX calls leaves: a typed PRNG
// key array is one leaf here.
#include <fmt/format.h>

#include "api/pytree/pytree.hpp"
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

TreeDef flatten(Interp& I, const Value& tree, std::vector<Value>& leaves, const Value& is_leaf = nullptr) {
  FlattenOptions opts;
  opts.is_leaf = is_leaf;
  opts.key_arrays_as_leaves = true;
  return tree_flatten(I, tree, leaves, opts);
}

struct TreeDefObj : interp::NativeObj {
  TreeDef def;
  TreeDefObj(ClassP c, TreeDef d) : NativeObj(std::move(c)), def(std::move(d)) {}
};

Value unflatten_checked(Interp& I, const TreeDef& def, const Value& leaves_arg) {
  auto leaves = I.to_vector(leaves_arg);
  const size_t n = tree_num_leaves(def);
  // jaxlib's messages (the second really has no count of what it got).
  if (leaves.size() < n) I.raise("ValueError", fmt::format("Too few leaves for PyTreeDef; expected {}, got {}", n, leaves.size()));
  if (leaves.size() > n) I.raise("ValueError", fmt::format("Too many leaves for PyTreeDef; expected {}.", n));
  size_t pos = 0;
  return tree_unflatten(I, def, leaves, pos);
}

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
      return interp::make_int(static_cast<int64_t>(tree_num_leaves(self(I, a, "num_leaves").def)));
    });
    bi::def(k, "unflatten", [self](Interp& I, CallArgs& a) -> Value {
      interp::ArgParser p(I, a, "unflatten", {"$self", "leaves"});
      return unflatten_checked(I, self(I, a, "unflatten").def, p.get("leaves"));
    });
    return k;
  }();
  return c;
}

Value treedef_value(TreeDef def) { return std::make_shared<TreeDefObj>(treedef_class(), std::move(def)); }

TreeDef& treedef_arg(Interp& I, const Value& v, const char* fname) {
  auto* t = dynamic_cast<TreeDefObj*>(v.get());
  if (!t) I.raise("TypeError", fmt::format("{}: expected a PyTreeDef, got {}", fname, I.type_name(v)));
  return t->def;
}

// tree_map(f, tree, *rest, is_leaf=None) and tree_map_with_path: f gets each leaf of `tree`
// (after its key path) and the corresponding subtrees of `rest`, which must have tree's
// structure at least down to its leaves.
Value map_impl(Interp& I, CallArgs& a, const char* fname, bool with_path) {
  if (a.args.size() < 2) I.raise("TypeError", fmt::format("{}() missing required arguments: 'f' and 'tree'", fname));
  Value is_leaf;
  for (auto& [k, v] : a.kwargs) {
    if (k != "is_leaf") I.raise("TypeError", fmt::format("{}() got an unexpected keyword argument '{}'", fname, k));
    is_leaf = v;
  }
  std::vector<Value> leaves;
  TreeDef def = flatten(I, a.args[1], leaves, is_leaf);
  std::vector<std::vector<Value>> rest;
  for (size_t r = 2; r < a.args.size(); ++r) rest.push_back(flatten_up_to(I, def, a.args[r]));
  std::vector<Value> paths;
  if (with_path) paths = leaf_key_paths(I, def);
  std::vector<Value> out;
  for (size_t i = 0; i < leaves.size(); ++i) {
    std::vector<Value> args;
    if (with_path) args.push_back(paths[i]);
    args.push_back(leaves[i]);
    for (auto& o : rest) args.push_back(o[i]);
    out.push_back(I.call(a.args[0], args));
  }
  size_t pos = 0;
  return tree_unflatten(I, def, out, pos);
}

Value tree_map(Interp& I, CallArgs& a) { return map_impl(I, a, "tree_map", false); }
Value tree_map_with_path(Interp& I, CallArgs& a) { return map_impl(I, a, "tree_map_with_path", true); }

Value leaves_fn(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "tree_leaves", {"tree", "is_leaf="});
  std::vector<Value> leaves;
  flatten(I, p.get("tree"), leaves, p.get("is_leaf"));
  return interp::make_list(std::move(leaves));
}
Value structure_fn(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "tree_structure", {"tree", "is_leaf="});
  std::vector<Value> leaves;
  return treedef_value(flatten(I, p.get("tree"), leaves, p.get("is_leaf")));
}
Value flatten_fn(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "tree_flatten", {"tree", "is_leaf="});
  std::vector<Value> leaves;
  TreeDef def = flatten(I, p.get("tree"), leaves, p.get("is_leaf"));
  return interp::make_tuple({interp::make_list(std::move(leaves)), treedef_value(std::move(def))});
}
Value unflatten_fn(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "tree_unflatten", {"treedef", "leaves"});
  return unflatten_checked(I, treedef_arg(I, p.get("treedef"), "tree_unflatten"), p.get("leaves"));
}
Value all_fn(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "tree_all", {"tree", "*", "is_leaf="});
  std::vector<Value> leaves;
  flatten(I, p.get("tree"), leaves, p.get("is_leaf"));
  for (auto& l : leaves)
    if (!I.truthy(l)) return interp::make_bool(false);
  return interp::make_bool(true);
}
// tree_reduce(function, tree, initializer=<none>, is_leaf=None): functools.reduce over the leaves.
Value reduce_fn(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "tree_reduce", {"function", "tree", "initializer=", "is_leaf="});
  std::vector<Value> leaves;
  flatten(I, p.get("tree"), leaves, p.get("is_leaf"));
  Value acc = p.get("initializer");
  size_t i = 0;
  if (!acc) {
    if (leaves.empty()) I.raise("TypeError", "reduce() of empty iterable with no initial value");
    acc = leaves[i++];
  }
  for (; i < leaves.size(); ++i) acc = I.call(p.get("function"), {acc, leaves[i]});
  return acc;
}
// The list of (key path, leaf) pairs of `def`'s leaves.
Value path_leaf_pairs(Interp& I, const TreeDef& def, const std::vector<Value>& leaves) {
  auto paths = leaf_key_paths(I, def);
  std::vector<Value> pairs;
  for (size_t i = 0; i < leaves.size(); ++i) pairs.push_back(interp::make_tuple({paths[i], leaves[i]}));
  return interp::make_list(std::move(pairs));
}
Value flatten_with_path_fn(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "tree_flatten_with_path", {"tree", "is_leaf="});
  std::vector<Value> leaves;
  TreeDef def = flatten(I, p.get("tree"), leaves, p.get("is_leaf"));
  Value pairs = path_leaf_pairs(I, def, leaves);
  return interp::make_tuple({pairs, treedef_value(std::move(def))});
}
Value leaves_with_path_fn(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "tree_leaves_with_path", {"tree", "is_leaf="});
  std::vector<Value> leaves;
  TreeDef def = flatten(I, p.get("tree"), leaves, p.get("is_leaf"));
  return path_leaf_pairs(I, def, leaves);
}
// keystr(keys, *, simple=False, separator=''): "['a'][0].b", or with simple=True the bare
// keys joined by separator ("a/0/b" with separator='/').
Value keystr_fn(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "keystr", {"keys", "*", "simple=", "separator="});
  const bool simple = p.get("simple") && I.truthy(p.get("simple"));
  const std::string sep = p.get("separator") ? bi::str_arg(I, p.get("separator"), "separator") : "";
  std::vector<std::string> parts;
  for (auto& k : I.to_vector(p.get("keys"))) parts.push_back(simple ? key_simple_str(I, k) : key_str(I, k));
  return interp::make_str(fmt::format("{}", fmt::join(parts, sep)));
}

ClassP class_arg(Interp& I, const Value& v, const char* fname) {
  if (v->kind != ObjKind::Class) I.raise("TypeError", fmt::format("{}: expected a class, got {}", fname, I.repr(v)));
  return std::static_pointer_cast<interp::ClassObj>(v);
}

void fill_registration(interp::ModuleObj& m) {
  auto add = [&](const char* name, interp::NativeFn fn) { m.dict.set(name, interp::make_builtin(name, std::move(fn))); };
  add("register_pytree_node", [](Interp& I, CallArgs& a) -> Value {
    interp::ArgParser p(I, a, "register_pytree_node", {"nodetype", "flatten_func", "unflatten_func", "flatten_with_keys_func="});
    PytreeNode n;
    n.type = class_arg(I, p.get("nodetype"), "register_pytree_node");
    n.flatten = p.get("flatten_func");
    n.unflatten = p.get("unflatten_func");
    if (Value k = p.get("flatten_with_keys_func"); k && k->kind != ObjKind::None) n.flatten_with_keys = k;
    register_pytree_node(I, std::move(n));
    return interp::none();
  });
  add("register_pytree_with_keys", [](Interp& I, CallArgs& a) -> Value {
    interp::ArgParser p(I, a, "register_pytree_with_keys", {"nodetype", "flatten_with_keys", "unflatten_func", "flatten_func="});
    PytreeNode n;
    n.type = class_arg(I, p.get("nodetype"), "register_pytree_with_keys");
    n.flatten_with_keys = p.get("flatten_with_keys");
    n.unflatten = p.get("unflatten_func");
    if (Value f = p.get("flatten_func"); f && f->kind != ObjKind::None) n.flatten = f;
    register_pytree_node(I, std::move(n));
    return interp::none();
  });
  // The class decorators: the class's tree_flatten (or tree_flatten_with_keys) method and
  // its tree_unflatten classmethod.
  add("register_pytree_node_class", [](Interp& I, CallArgs& a) -> Value {
    interp::ArgParser p(I, a, "register_pytree_node_class", {"cls"});
    PytreeNode n;
    n.type = class_arg(I, p.get("cls"), "register_pytree_node_class");
    n.flatten = I.getattr(n.type, "tree_flatten");
    n.unflatten = I.getattr(n.type, "tree_unflatten");
    register_pytree_node(I, std::move(n));
    return p.get("cls");
  });
  add("register_pytree_with_keys_class", [](Interp& I, CallArgs& a) -> Value {
    interp::ArgParser p(I, a, "register_pytree_with_keys_class", {"cls"});
    PytreeNode n;
    n.type = class_arg(I, p.get("cls"), "register_pytree_with_keys_class");
    n.flatten_with_keys = I.getattr(n.type, "tree_flatten_with_keys");
    n.unflatten = I.getattr(n.type, "tree_unflatten");
    if (auto f = I.try_getattr(n.type, "tree_flatten")) n.flatten = *f;
    register_pytree_node(I, std::move(n));
    return p.get("cls");
  });
  // register_dataclass(nodetype, data_fields=None, meta_fields=None, drop_fields=()): without
  // field lists, the dataclass's fields are data unless their metadata says static=True.
  add("register_dataclass", [](Interp& I, CallArgs& a) -> Value {
    interp::ArgParser p(I, a, "register_dataclass", {"nodetype", "data_fields=", "meta_fields=", "drop_fields="});
    PytreeNode n;
    n.source = PytreeNode::Dataclass;
    n.type = class_arg(I, p.get("nodetype"), "register_dataclass");
    Value data = p.get("data_fields"), meta = p.get("meta_fields");
    const bool given = data && data->kind != ObjKind::None;
    if (given != (meta && meta->kind != ObjKind::None))
      I.raise("TypeError", "register_dataclass: data_fields and meta_fields must both be specified when either is specified.");
    if (given) {
      for (auto& f : I.to_vector(data)) n.data_fields.push_back(bi::str_arg(I, f, "data_fields"));
      for (auto& f : I.to_vector(meta)) n.meta_fields.push_back(bi::str_arg(I, f, "meta_fields"));
    } else {
      Value dataclasses = I.import_module("dataclasses", I.current_loc());
      if (!I.truthy(I.call(I.getattr(dataclasses, "is_dataclass"), {p.get("nodetype")})))
        I.raise("TypeError", "register_dataclass: data_fields and meta_fields are required when nodetype is not a dataclass. Got "
                             "nodetype=" + I.repr(p.get("nodetype")) + ".");
      for (auto& f : I.to_vector(I.call(I.getattr(dataclasses, "fields"), {p.get("nodetype")}))) {
        std::string name = bi::str_arg(I, I.getattr(f, "name"), "field name");
        Value md = I.getattr(f, "metadata");
        bool is_static = false;
        if (auto s = I.call_method(md, "get", {interp::make_str("static"), interp::make_bool(false)})) is_static = I.truthy(*s);
        (is_static ? n.meta_fields : n.data_fields).push_back(std::move(name));
      }
    }
    register_pytree_node(I, std::move(n));
    return p.get("nodetype");
  });
  m.dict.set("DictKey", dict_key_class());
  m.dict.set("SequenceKey", sequence_key_class());
  m.dict.set("GetAttrKey", get_attr_key_class());
  m.dict.set("FlattenedIndexKey", flattened_index_key_class());
  add("keystr", keystr_fn);
}

void fill_tree_util(Interp&, interp::ModuleObj& m) {
  auto add = [&](const char* name, interp::NativeFn fn) { m.dict.set(name, interp::make_builtin(name, std::move(fn))); };
  add("tree_leaves", leaves_fn);
  add("tree_structure", structure_fn);
  add("tree_flatten", flatten_fn);
  add("tree_unflatten", unflatten_fn);
  add("tree_map", tree_map);
  add("tree_all", all_fn);
  add("tree_reduce", reduce_fn);
  add("tree_flatten_with_path", flatten_with_path_fn);
  add("tree_leaves_with_path", leaves_with_path_fn);
  add("tree_map_with_path", tree_map_with_path);
  fill_registration(m);
  m.dict.set("PyTreeDef", treedef_class());
}

// jax.tree: the same functions under their short names.
void fill_tree(Interp&, interp::ModuleObj& m) {
  auto add = [&](const char* name, interp::NativeFn fn) { m.dict.set(name, interp::make_builtin(name, std::move(fn))); };
  add("leaves", leaves_fn);
  add("structure", structure_fn);
  add("flatten", flatten_fn);
  add("unflatten", unflatten_fn);
  add("map", tree_map);
  add("all", all_fn);
  add("reduce", reduce_fn);
  add("flatten_with_path", flatten_with_path_fn);
  add("leaves_with_path", leaves_with_path_fn);
  add("map_with_path", tree_map_with_path);
}

}  // namespace

void register_tree_util_module() {
  Interp::register_builtin_module("jax.tree_util", fill_tree_util);
  Interp::register_builtin_module("jax.tree", fill_tree);
}

}  // namespace shard::api
