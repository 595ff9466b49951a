// Key paths (jax.tree_util.tree_flatten_with_path and friends): each step from a node to a
// child is a key object. Its repr is the dataclass-like `DictKey(key='a')`; its str is the
// step as keystr shows it: ['a'] for a dict key, [0] for a sequence index, .name for an
// attribute (namedtuple and dataclass fields), [0] for a registered node's flattened index.
#include <fmt/format.h>

#include "api/pytree/pytree.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using interp::CallArgs;
using interp::ClassP;
using interp::Interp;
using interp::ObjKind;
using interp::Value;
namespace bi = interp::bi;

namespace {

enum class KeyKind { Dict, Sequence, GetAttr, FlattenedIndex };

struct KeyObj : interp::NativeObj {
  KeyKind kind;
  Value v;  // the dict key, the index (int), or the attribute name (str)
  KeyObj(ClassP c, KeyKind k, Value x) : NativeObj(std::move(c)), kind(k), v(std::move(x)) {}
};

struct KeyClassInfo {
  const char* name;
  const char* field;  // the attribute holding the key
};
constexpr KeyClassInfo kKeyClasses[] = {
    {"DictKey", "key"}, {"SequenceKey", "idx"}, {"GetAttrKey", "name"}, {"FlattenedIndexKey", "key"}};

ClassP key_class(KeyKind kind);

KeyObj& key_self(Interp& I, const CallArgs& a, KeyKind kind, const char* meth) {
  return bi::native_self<KeyObj>(I, a, key_class(kind), kKeyClasses[static_cast<int>(kind)].name, meth);
}

ClassP make_key_class(KeyKind kind) {
  const auto& info = kKeyClasses[static_cast<int>(kind)];
  auto c = bi::native_class(info.name, interp::T().object, "jax.tree_util");
  c->native_new = [kind](Interp& I, const ClassP& cls, CallArgs& a) -> Value {
    const auto& info = kKeyClasses[static_cast<int>(kind)];
    interp::ArgParser p(I, a, info.name, {info.field});
    Value x = p.get(info.field);
    if (kind == KeyKind::GetAttr && x->kind != ObjKind::Str) I.raise("TypeError", fmt::format("GetAttrKey name must be a str, got {}", I.repr(x)));
    if ((kind == KeyKind::Sequence || kind == KeyKind::FlattenedIndex) && x->kind != ObjKind::Int)
      I.raise("TypeError", fmt::format("{} {} must be an int, got {}", info.name, info.field, I.repr(x)));
    return std::make_shared<KeyObj>(cls, kind, x);
  };
  bi::def_property(c, info.field, [kind](Interp& I, CallArgs& a) -> Value { return key_self(I, a, kind, kKeyClasses[static_cast<int>(kind)].field).v; });
  bi::def(c, "__repr__", [kind](Interp& I, CallArgs& a) -> Value {
    auto& k = key_self(I, a, kind, "__repr__");
    const auto& info = kKeyClasses[static_cast<int>(kind)];
    return interp::make_str(fmt::format("{}({}={})", info.name, info.field, I.repr(k.v)));
  });
  bi::def(c, "__str__", [](Interp& I, CallArgs& a) -> Value { return interp::make_str(key_str(I, a.args.at(0))); });
  bi::def(c, "__eq__", [kind](Interp& I, CallArgs& a) -> Value {
    auto& k = key_self(I, a, kind, "__eq__");
    auto* o = a.args.size() > 1 ? dynamic_cast<KeyObj*>(a.args[1].get()) : nullptr;
    if (!o) return interp::make_bool(false);
    return interp::make_bool(o->kind == k.kind && I.eq(o->v, k.v));
  });
  bi::def(c, "__hash__", [kind](Interp& I, CallArgs& a) -> Value {
    auto& k = key_self(I, a, kind, "__hash__");
    return interp::make_int(static_cast<int64_t>(I.hash(k.v) * 31 + static_cast<size_t>(kind)));
  });
  return c;
}

ClassP key_class(KeyKind kind) {
  static const ClassP classes[] = {make_key_class(KeyKind::Dict), make_key_class(KeyKind::Sequence), make_key_class(KeyKind::GetAttr),
                                   make_key_class(KeyKind::FlattenedIndex)};
  return classes[static_cast<int>(kind)];
}

Value make_key(KeyKind kind, Value v) { return std::make_shared<KeyObj>(key_class(kind), kind, std::move(v)); }

void key_paths_into(Interp& I, const TreeDef& d, std::vector<Value>& prefix, std::vector<Value>& out) {
  auto child = [&](size_t i, Value key) {
    prefix.push_back(std::move(key));
    key_paths_into(I, d.children[i], prefix, out);
    prefix.pop_back();
  };
  switch (d.kind) {
    case TreeDef::Leaf: out.push_back(interp::make_tuple(prefix)); return;
    case TreeDef::None: return;
    case TreeDef::Key: key_paths_into(I, d.children.at(0), prefix, out); return;
    case TreeDef::Tuple:
    case TreeDef::List:
      for (size_t i = 0; i < d.children.size(); ++i) child(i, sequence_key(static_cast<int64_t>(i)));
      return;
    case TreeDef::Dict:
      for (size_t i = 0; i < d.children.size(); ++i) child(i, dict_key(d.keys[i]));
      return;
    case TreeDef::Custom:
      for (size_t i = 0; i < d.children.size(); ++i) child(i, d.keys.at(i));
      return;
  }
}

}  // namespace

Value dict_key(Value key) { return make_key(KeyKind::Dict, std::move(key)); }
Value sequence_key(int64_t idx) { return make_key(KeyKind::Sequence, interp::make_int(idx)); }
Value get_attr_key(const std::string& name) { return make_key(KeyKind::GetAttr, interp::make_str(name)); }
Value flattened_index_key(int64_t idx) { return make_key(KeyKind::FlattenedIndex, interp::make_int(idx)); }
ClassP dict_key_class() { return key_class(KeyKind::Dict); }
ClassP sequence_key_class() { return key_class(KeyKind::Sequence); }
ClassP get_attr_key_class() { return key_class(KeyKind::GetAttr); }
ClassP flattened_index_key_class() { return key_class(KeyKind::FlattenedIndex); }

std::string key_str(Interp& I, const Value& key) {
  auto* k = dynamic_cast<KeyObj*>(key.get());
  if (!k) return I.str(key);  // a user's own key object: its str
  switch (k->kind) {
    case KeyKind::Dict: return "[" + I.repr(k->v) + "]";
    case KeyKind::GetAttr: return "." + I.str(k->v);
    case KeyKind::Sequence:
    case KeyKind::FlattenedIndex: return "[" + I.repr(k->v) + "]";
  }
  return I.str(key);
}

std::string key_simple_str(Interp& I, const Value& key) {
  auto* k = dynamic_cast<KeyObj*>(key.get());
  return k ? I.str(k->v) : I.str(key);
}

std::vector<Value> leaf_key_paths(Interp& I, const TreeDef& def) {
  std::vector<Value> prefix, out;
  key_paths_into(I, def, prefix, out);
  return out;
}

std::vector<std::string> leaf_path_strings(Interp& I, const TreeDef& def, const std::string& prefix) {
  std::vector<std::string> out;
  for (auto& path : leaf_key_paths(I, def)) {
    std::string s = prefix;
    for (auto& k : static_cast<interp::TupleObj&>(*path).items) s += key_str(I, k);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace shard::api
