// Type-hint support: `list[int]`-style aliases (type.__getitem__), `int | None` unions
// (type.__or__), and the `typing` module (its NamedTuple is in namedtuple_type.cpp). These
// objects exist so that code which imports and builds them runs and prints as in CPython;
// annotations themselves only end up in __annotations__.
#include <fmt/format.h>

#include <set>

#include "interp/builtins/support.hpp"

namespace shard::interp::bi {

namespace {

// list[int], typing.List[int], typing.Optional[int], ...
struct AliasObj : NativeObj {
  Value origin;             // the class for builtin aliases (or null for typing forms)
  Value form;               // typing.ClassVar for ClassVar[int] (what __origin__ shows without a class)
  std::string name;         // "list" / "typing.List"
  std::vector<Value> args;  // subscription arguments
  bool callable_list = false;
  using NativeObj::NativeObj;
};

// typing.Any, typing.Optional, ... (subscriptable special forms)
struct FormObj : NativeObj {
  std::string name;  // "Optional"
  using NativeObj::NativeObj;
};

// int | None
struct UnionObj : NativeObj {
  std::vector<Value> args;
  using NativeObj::NativeObj;
};

struct TypeVarObj : NativeObj {
  std::string name;
  using NativeObj::NativeObj;
};

ClassP g_alias_cls, g_form_cls, g_union_cls, g_typevar_cls, g_generic, g_protocol;

std::string type_repr(Interp& I, const Value& v) {
  if (v->kind == ObjKind::Class) {
    auto& c = static_cast<ClassObj&>(*v);
    return class_qualname(c);
  }
  if (v->kind == ObjKind::Ellipsis) return "...";
  if (v->kind == ObjKind::None) return "None";
  if (auto* l = unwrap<ListObj>(v, ObjKind::List)) {
    std::string out = "[";
    for (size_t i = 0; i < l->items.size(); ++i) out += (i ? ", " : "") + type_repr(I, l->items[i]);
    return out + "]";
  }
  return I.repr(v);
}

std::vector<Value> subscript_args(const Value& key) {
  if (key->kind == ObjKind::Tuple) {
    auto& t = static_cast<TupleObj&>(*key);
    return t.items;
  }
  return {key};
}

Value make_alias(const Value& origin, std::string name, std::vector<Value> args) {
  auto a = std::make_shared<AliasObj>(g_alias_cls);
  a->origin = origin;
  a->name = std::move(name);
  a->args = std::move(args);
  return a;
}

Value make_union(std::vector<Value> parts) {
  auto u = std::make_shared<UnionObj>(g_union_cls);
  for (auto& p : parts) {
    if (p->cls.get() == g_union_cls.get()) {
      for (auto& x : static_cast<UnionObj&>(*p).args) u->args.push_back(x);
    } else {
      u->args.push_back(p->kind == ObjKind::None ? Value(T().none) : p);
    }
  }
  return u;
}

bool is_type_like(const Value& v) {
  return v->kind == ObjKind::Class || v->kind == ObjKind::None || v->cls.get() == g_alias_cls.get() ||
         v->cls.get() == g_union_cls.get() || v->cls.get() == g_form_cls.get() || v->cls.get() == g_typevar_cls.get();
}

const std::set<std::string> kBuiltinGenerics = {"list", "dict", "set", "frozenset", "tuple", "type", "deque",
                                                "defaultdict", "OrderedDict", "Counter", "enumerate", "zip",
                                                "map", "filter", "reversed", "range"};

void init_alias_classes() {
  g_alias_cls = native_class("GenericAlias", nullptr, "types", ObjKind::Native);
  def(g_alias_cls, "__repr__", [](Interp& I, CallArgs& a) {
    auto& al = native_self<AliasObj>(I, a, g_alias_cls, "GenericAlias", "method");
    std::string out = al.name + "[";
    if (al.args.empty()) out += "()";
    for (size_t i = 0; i < al.args.size(); ++i) out += (i ? ", " : "") + type_repr(I, al.args[i]);
    return make_str(out + "]");
  });
  def(g_alias_cls, "__call__", [](Interp& I, CallArgs& a) -> Value {
    auto& al = native_self<AliasObj>(I, a, g_alias_cls, "GenericAlias", "method");
    if (!al.origin) I.raise("TypeError", fmt::format("Type {} cannot be instantiated", al.name));
    CallArgs b = args_without_self(a);
    return I.call(al.origin, b);
  });
  def(g_alias_cls, "__getitem__", [](Interp& I, CallArgs& a) -> Value {
    auto& al = native_self<AliasObj>(I, a, g_alias_cls, "GenericAlias", "method");
    bool has_typevar = false;
    for (auto& x : al.args)
      if (x->cls.get() == g_typevar_cls.get()) has_typevar = true;
    if (!has_typevar) {
      std::string shown = I.repr(a.args[0]);
      if (al.name.rfind("typing.", 0) == 0) I.raise("TypeError", shown + " is not a generic class");
      I.raise("TypeError", "There are no type variables left in " + shown);
    }
    return make_alias(al.origin, al.name, subscript_args(a.args.at(1)));
  });
  def(g_alias_cls, "__or__", [](Interp& I, CallArgs& a) { return make_union({a.args.at(0), a.args.at(1)}); });
  def(g_alias_cls, "__ror__", [](Interp& I, CallArgs& a) { return make_union({a.args.at(1), a.args.at(0)}); });
  def_property(g_alias_cls, "__origin__", [](Interp& I, CallArgs& a) -> Value {
    auto& al = native_self<AliasObj>(I, a, g_alias_cls, "GenericAlias", "method");
    return al.origin ? al.origin : al.form ? al.form : none();
  });
  def_property(g_alias_cls, "__args__", [](Interp& I, CallArgs& a) {
    return make_tuple(native_self<AliasObj>(I, a, g_alias_cls, "GenericAlias", "method").args);
  });
  def(g_alias_cls, "__eq__", [](Interp& I, CallArgs& a) -> Value {
    if (a.args.at(1)->cls.get() != g_alias_cls.get()) return not_implemented();
    auto& x = native_self<AliasObj>(I, a, g_alias_cls, "GenericAlias", "method");
    auto& y = static_cast<AliasObj&>(*a.args.at(1));
    if (x.name != y.name || x.args.size() != y.args.size()) return make_bool(false);
    for (size_t i = 0; i < x.args.size(); ++i)
      if (!eq_fast(I, x.args[i], y.args[i])) return make_bool(false);
    return make_bool(true);
  });
  def(g_alias_cls, "__hash__", [](Interp& I, CallArgs& a) {
    auto& x = native_self<AliasObj>(I, a, g_alias_cls, "GenericAlias", "method");
    return make_int(int64_t(numfmt::hash_bytes(x.name) ^ x.args.size()));
  });

  g_union_cls = native_class("UnionType", nullptr, "types", ObjKind::Native);
  def(g_union_cls, "__repr__", [](Interp& I, CallArgs& a) {
    auto& u = native_self<UnionObj>(I, a, g_union_cls, "UnionType", "method");
    std::string out;
    for (size_t i = 0; i < u.args.size(); ++i) {
      const Value& x = u.args[i];
      out += (i ? " | " : "") + (x.get() == T().none.get() ? std::string("None") : type_repr(I, x));
    }
    return make_str(out);
  });
  def(g_union_cls, "__or__", [](Interp& I, CallArgs& a) { return make_union({a.args.at(0), a.args.at(1)}); });
  def(g_union_cls, "__ror__", [](Interp& I, CallArgs& a) { return make_union({a.args.at(1), a.args.at(0)}); });
  def_property(g_union_cls, "__args__", [](Interp& I, CallArgs& a) {
    return make_tuple(native_self<UnionObj>(I, a, g_union_cls, "UnionType", "method").args);
  });

  // list[int]: only generic builtin classes (and Generic subclasses) are subscriptable
  def(T().type, "__getitem__", [](Interp& I, CallArgs& a) -> Value {
    method_nargs(I, a, "type.__getitem__", 1, 1);
    if (a.args[0]->kind != ObjKind::Class) bad_self(I, a, "type", "__getitem__");
    auto cls = std::static_pointer_cast<ClassObj>(a.args[0]);
    if (Value* cg = cls->lookup("__class_getitem__")) {
      Value f = *cg;
      if (f->kind == ObjKind::ClassMethod) f = static_cast<WrapperObj&>(*f).fget;
      return I.call(f, std::vector<Value>{cls, a.args[1]});
    }
    if (g_generic && (cls.get() == g_generic.get() || cls.get() == g_protocol.get())) return cls;
    bool generic = (is_native_layout(cls.get()) && kBuiltinGenerics.count(cls->name)) ||
                   (g_generic && cls->is_subclass_of(g_generic.get()));
    if (!generic) I.raise("TypeError", fmt::format("type '{}' is not subscriptable", cls->name));
    return make_alias(cls, class_qualname(*cls), subscript_args(a.args[1]));
  });
  def(T().type, "__or__", [](Interp& I, CallArgs& a) -> Value {
    if (!is_type_like(a.args.at(1))) return not_implemented();
    return make_union({a.args[0], a.args[1]});
  });
  def(T().type, "__ror__", [](Interp& I, CallArgs& a) -> Value {
    if (!is_type_like(a.args.at(1))) return not_implemented();
    return make_union({a.args[1], a.args[0]});
  });
}

// ---- typing ----

std::string form_alias_name(Interp& I, const std::string& form, const std::vector<Value>& args) {
  if (form == "Union") {
    std::vector<Value> flat;
    bool has_none = false;
    for (auto& x : args) {
      if (x->kind == ObjKind::None || x.get() == T().none.get()) has_none = true;
      else flat.push_back(x);
    }
    if (has_none && flat.size() == 1) return "typing.Optional";
  }
  return "typing." + form;
}

Value form_getitem(Interp& I, CallArgs& a) {
  auto& f = native_self<FormObj>(I, a, g_form_cls, "_SpecialForm", "method");
  std::vector<Value> args = subscript_args(a.args.at(1));
  if (f.name == "Any" || f.name == "NoReturn" || f.name == "Never")
    I.raise("TypeError", fmt::format("typing.{} is not subscriptable", f.name));
  std::string name = form_alias_name(I, f.name, args);
  if (name == "typing.Optional" && f.name == "Union") {
    std::vector<Value> kept;
    for (auto& x : args)
      if (x->kind != ObjKind::None) kept.push_back(x);
    args = kept;
  }
  Value origin;
  if (f.name == "List") origin = T().list;
  else if (f.name == "Dict") origin = T().dict;
  else if (f.name == "Set") origin = T().set;
  else if (f.name == "FrozenSet") origin = T().frozenset;
  else if (f.name == "Tuple") origin = T().tuple;
  else if (f.name == "Type") origin = T().type;
  Value alias = make_alias(origin, name, std::move(args));
  // (Optional[X]'s origin is typing.Union, which this form does not know: left unset.)
  if (f.name != "Optional") static_cast<AliasObj&>(*alias).form = a.args[0];
  return alias;
}

Value make_form(const std::string& name) {
  auto f = std::make_shared<FormObj>(g_form_cls);
  f->name = name;
  return f;
}

Value identity_builtin(const char* name) {
  return make_builtin(name, [name](Interp& I, CallArgs& a) {
    func_nargs(I, a, name, 1, 1);
    return a.args[0];
  });
}

}  // namespace

void init_typing_namedtuple(ModuleObj& m);  // namedtuple_type.cpp

namespace {

void fill_typing(Interp& I, ModuleObj& m) {
  if (!g_form_cls) {
    g_form_cls = native_class("_SpecialForm", nullptr, "typing", ObjKind::Native);
    def(g_form_cls, "__repr__", [](Interp& I, CallArgs& a) {
      return make_str("typing." + native_self<FormObj>(I, a, g_form_cls, "_SpecialForm", "method").name);
    });
    def(g_form_cls, "__getitem__", form_getitem);
    def(g_form_cls, "__or__", [](Interp& I, CallArgs& a) { return make_union({a.args.at(0), a.args.at(1)}); });
    def(g_form_cls, "__ror__", [](Interp& I, CallArgs& a) { return make_union({a.args.at(1), a.args.at(0)}); });
    g_typevar_cls = native_class("TypeVar", nullptr, "typing", ObjKind::Native);
    g_typevar_cls->native_new = [](Interp& I, const ClassP&, CallArgs& a) -> Value {
      if (a.args.empty()) I.raise("TypeError", "TypeVar() missing 1 required positional argument: 'name'");
      auto t = std::make_shared<TypeVarObj>(g_typevar_cls);
      t->name = str_arg(I, a.args[0], "TypeVar name");
      return t;
    };
    def(g_typevar_cls, "__init__", [](Interp&, CallArgs&) { return none(); });
    def(g_typevar_cls, "__repr__", [](Interp& I, CallArgs& a) {
      return make_str("~" + native_self<TypeVarObj>(I, a, g_typevar_cls, "TypeVar", "method").name);
    });
    def_property(g_typevar_cls, "__name__", [](Interp& I, CallArgs& a) {
      return make_str(native_self<TypeVarObj>(I, a, g_typevar_cls, "TypeVar", "method").name);
    });
    def(g_typevar_cls, "__or__", [](Interp& I, CallArgs& a) { return make_union({a.args.at(0), a.args.at(1)}); });
    g_generic = native_class("Generic", nullptr, "typing");
    g_protocol = native_class("Protocol", g_generic, "typing");
  }
  for (const char* n : {"Any", "Union", "Optional", "List", "Dict", "Tuple", "Set", "FrozenSet", "Callable", "Type",
                        "Sequence", "MutableSequence", "Mapping", "MutableMapping", "Iterable", "Iterator",
                        "Generator", "Literal", "Final", "ClassVar", "NoReturn", "Never", "Hashable", "Sized",
                        "Collection", "Container", "Annotated", "Self", "TypeAlias", "Deque", "DefaultDict",
                        "OrderedDict", "Counter", "AbstractSet", "MutableSet", "Reversible", "SupportsInt",
                        "SupportsFloat", "SupportsIndex", "Awaitable", "Coroutine", "AsyncIterator", "ChainMap",
                        "Pattern", "Match", "Text", "ByteString", "KeysView", "ValuesView", "ItemsView"})
    m.dict.set(n, make_form(n));
  m.dict.set("Text", T().str);
  m.dict.set("TypeVar", g_typevar_cls);
  m.dict.set("Generic", g_generic);
  m.dict.set("Protocol", g_protocol);
  init_typing_namedtuple(m);
  m.dict.set("TYPE_CHECKING", make_bool(false));
  for (const char* n : {"overload", "final", "no_type_check", "runtime_checkable", "type_check_only"})
    m.dict.set(n, identity_builtin(n));
  m.dict.set("cast", make_builtin("cast", [](Interp& I, CallArgs& a) {
               ArgParser p(I, a, "cast", {"typ", "val"});
               return p.get("val");
             }));
  m.dict.set("get_type_hints", make_builtin("get_type_hints", [](Interp&, CallArgs&) -> Value { return make_dict(); }));
  m.dict.set("NewType", make_builtin("NewType", [](Interp& I, CallArgs& a) {
               ArgParser p(I, a, "NewType", {"name", "tp"});
               std::string name = str_arg(I, p.get("name"), "NewType name");
               return make_builtin(name, [](Interp& I, CallArgs& b) {
                 func_nargs(I, b, "NewType", 1, 1);
                 return b.args[0];
               });
             }));
}

}  // namespace

void init_typing_support() { init_alias_classes(); }

void register_typing_modules() {
  Interp::register_builtin_module("typing", fill_typing);
}

// isinstance(x, int | str)
bool union_members(const Value& spec, std::vector<Value>& out) {
  if (!spec || spec->cls.get() != g_union_cls.get()) return false;
  out = static_cast<UnionObj&>(*spec).args;
  return true;
}

}  // namespace shard::interp::bi
