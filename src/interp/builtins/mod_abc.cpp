// The `abc` module: ABCMeta (a metaclass defined in C++) records each class's
// __abstractmethods__ when its class statement runs, as CPython's ABCMeta.__new__ does;
// instantiating a class whose set is not empty raises CPython's TypeError (the check is
// object.__new__'s, in the interpreter's instantiate). ABC is the class with metaclass
// ABCMeta; abstractmethod marks functions. Virtual subclasses (register) are not supported.
#include <fmt/format.h>

#include <set>

#include "interp/builtins/support.hpp"

namespace shard::interp::bi {

namespace {

// value.__isabstractmethod__, for the kinds that carry it (functions, and the property /
// staticmethod / classmethod wrapping one; other objects through their attribute).
bool is_abstract(Interp& I, const Value& v) {
  switch (v->kind) {
    case ObjKind::Function: {
      Value* flag = static_cast<FunctionObj&>(*v).dict.find("__isabstractmethod__");
      return flag && *flag && I.truthy(*flag);
    }
    case ObjKind::Property: {
      auto& w = static_cast<WrapperObj&>(*v);
      return (w.fget && is_abstract(I, w.fget)) || (w.fset && is_abstract(I, w.fset));
    }
    case ObjKind::StaticMethod:
    case ObjKind::ClassMethod: {
      auto& w = static_cast<WrapperObj&>(*v);
      return w.fget && is_abstract(I, w.fget);
    }
    case ObjKind::Instance: {
      auto flag = I.try_getattr(v, "__isabstractmethod__");
      return flag && I.truthy(*flag);
    }
    default:
      return false;
  }
}

// The names abstract in `cls`: its own abstract attributes, and its bases' abstract names
// that it still resolves to an abstract attribute.
std::set<std::string> abstract_names(Interp& I, ClassObj& cls) {
  std::set<std::string> names;
  for (auto& [name, v] : cls.dict.entries)
    if (v && is_abstract(I, v)) names.insert(name);
  for (auto& base : cls.bases) {
    Value* inherited = base->lookup("__abstractmethods__");
    if (!inherited || !*inherited || ((*inherited)->kind != ObjKind::FrozenSet && (*inherited)->kind != ObjKind::Set))
      continue;
    for (auto& n : set_ordered_keys(static_cast<SetObj&>(**inherited))) {
      auto* s = str_of(n);
      if (!s) continue;
      Value* now = cls.lookup(s->v);
      if (now && *now && is_abstract(I, *now)) names.insert(s->v);
    }
  }
  return names;
}

void update_abstract_methods(Interp& I, ClassObj& cls) {
  auto set = make_set(true);
  for (auto& n : abstract_names(I, cls)) set->set(I, make_str(n), none());
  cls.dict.set("__abstractmethods__", set);
}

// issubclass(sub, cls) for an ABC: a real subclass, what cls.__subclasshook__ says, or a
// subclass of a class registered with cls.
bool abc_subclass(Interp& I, const Value& cls_value, const Value& sub, int depth) {
  if (depth > 100) I.raise("RecursionError", "maximum recursion depth exceeded in __subclasscheck__");
  if (!sub || sub->kind != ObjKind::Class) I.raise("TypeError", "issubclass() arg 1 must be a class");
  auto& cls = static_cast<ClassObj&>(*cls_value);
  auto& sc = static_cast<ClassObj&>(*sub);
  if (sc.is_subclass_of(&cls)) return true;
  if (cls.lookup("__subclasshook__")) {
    Value r = I.call(I.getattr(cls_value, "__subclasshook__"), {sub});
    if (r->kind == ObjKind::Bool) return I.truthy(r);
  }
  if (Value* reg = cls.dict.find("_abc_registry"))
    for (auto& r : std::vector<Value>(static_cast<ListObj&>(**reg).items)) {
      if (sc.is_subclass_of(static_cast<ClassObj*>(r.get()))) return true;
      if (r->cls && r->cls->lookup("__subclasscheck__") && abc_subclass(I, r, sub, depth + 1)) return true;
    }
  return false;
}

struct AbcClasses {
  ClassP meta, abc;
};

const AbcClasses& abc_classes() {
  static const AbcClasses k = [] {
    AbcClasses c;
    c.meta = make_class("ABCMeta", {T().type}, "abc");
    c.meta->instance_kind = ObjKind::Class;
    c.meta->native_class_new = [](Interp& I, const ClassP& cls) {
      update_abstract_methods(I, *cls);
      return cls;
    };
    // Virtual subclasses (register) and __subclasshook__, as CPython's ABCMeta: isinstance
    // and issubclass call these for classes whose metaclass is ABCMeta.
    def(c.meta, "register", [](Interp& I, CallArgs& a) -> Value {
      method_nargs(I, a, "register", 1, 1);
      if (a.args[1]->kind != ObjKind::Class) I.raise("TypeError", "Can only register classes");
      // Recorded with the ABC and each ABC above it, so issubclass(list, Sequence) holds once
      // list is registered with MutableSequence (CPython finds it through __subclasses__).
      for (ClassObj* c : static_cast<ClassObj&>(*a.args[0]).mro) {
        if (!c->cls || !c->cls->lookup("register")) continue;
        Value* reg = c->dict.find("_abc_registry");
        if (!reg) {
          c->dict.set("_abc_registry", make_list({}));
          reg = c->dict.find("_abc_registry");
        }
        static_cast<ListObj&>(**reg).items.push_back(a.args[1]);
      }
      return a.args[1];
    });
    def(c.meta, "__subclasscheck__", [](Interp& I, CallArgs& a) -> Value {
      method_nargs(I, a, "__subclasscheck__", 1, 1);
      return make_bool(abc_subclass(I, a.args[0], a.args[1], 0));
    });
    def(c.meta, "__instancecheck__", [](Interp& I, CallArgs& a) -> Value {
      method_nargs(I, a, "__instancecheck__", 1, 1);
      return make_bool(abc_subclass(I, a.args[0], a.args[1]->cls, 0));
    });
    c.abc = make_class("ABC", {T().object}, "abc");
    c.abc->cls = c.meta;
    c.abc->dict.set("__abstractmethods__", make_set(true));
    return c;
  }();
  return k;
}

void fill_abc(Interp& I, ModuleObj& m) {
  const AbcClasses& k = abc_classes();
  m.dict.set("ABC", k.abc);
  m.dict.set("ABCMeta", k.meta);
  m.dict.set("abstractmethod", make_builtin("abstractmethod", [](Interp& I, CallArgs& a) {
               func_nargs(I, a, "abstractmethod", 1, 1);
               I.setattr(a.args[0], "__isabstractmethod__", make_bool(true));
               return a.args[0];
             }));
  m.dict.set("update_abstractmethods", make_builtin("update_abstractmethods", [](Interp& I, CallArgs& a) {
               func_nargs(I, a, "update_abstractmethods", 1, 1);
               const Value& cls = a.args[0];
               // As CPython: only classes that already track abstract methods are updated.
               if (cls->kind == ObjKind::Class && static_cast<ClassObj&>(*cls).lookup("__abstractmethods__")) {
                 I.setattr(cls, "__abstractmethods__", make_set(true));  // invalidates cached plans
                 update_abstract_methods(I, static_cast<ClassObj&>(*cls));
               }
               return cls;
             }));
}

}  // namespace

void register_abc_module() { Interp::register_builtin_module("abc", fill_abc); }

}  // namespace shard::interp::bi
