// The callable types: functions, builtins and bound methods (with the reprs of modules and
// cells), the property/staticmethod/classmethod wrappers and super; init_object_types
// (object_types.cpp) sets them up after object and type.
#include <fmt/format.h>

#include "interp/builtins/support.hpp"

namespace shard::interp::bi {

namespace {

template <class O>
O& self_kind(Interp& I, CallArgs& a, ObjKind k, const char* type, const char* meth) {
  if (a.args.empty() || a.args[0]->kind != k) bad_self(I, a, type, meth);
  return static_cast<O&>(*a.args[0]);
}

// The names of functions, builtins and methods (__name__, __qualname__, __module__, ...)
// are answered by the interpreter's attribute lookup, not by properties here: a property
// in these class dicts would shadow the class's own __name__.
std::string function_qualname(const FunctionObj& f) {
  return f.qualname.empty() ? f.name : f.qualname;
}

void init_functions() {
  auto& t = T();
  def(t.function, "__repr__", [](Interp& I, CallArgs& a) {
    auto& f = self_kind<FunctionObj>(I, a, ObjKind::Function, "function", "__repr__");
    return make_str(fmt::format("<function {} at {}>", function_qualname(f), addr_of(&f)));
  });
  def(t.builtin_function, "__repr__", [](Interp& I, CallArgs& a) {
    auto& b = self_kind<BuiltinObj>(I, a, ObjKind::Builtin, "builtin_function_or_method", "__repr__");
    if (!b.self || b.self->kind == ObjKind::Module)
      return make_str(fmt::format("<built-in function {}>", b.name));
    return make_str(fmt::format("<built-in method {} of {} object at {}>", b.name, I.type_name(b.self),
                                addr_of(b.self.get())));
  });
  def(t.method, "__repr__", [](Interp& I, CallArgs& a) {
    auto& m = self_kind<BoundMethodObj>(I, a, ObjKind::BoundMethod, "method", "__repr__");
    std::string name = "?";
    if (auto q = I.try_getattr(m.func, "__qualname__")) {
      if (auto* s = str_of(*q)) name = s->v;
    } else if (auto n = I.try_getattr(m.func, "__name__")) {
      if (auto* s = str_of(*n)) name = s->v;
    }
    return make_str(fmt::format("<bound method {} of {}>", name, I.repr(m.self)));
  });
  def(t.module, "__repr__", [](Interp& I, CallArgs& a) {
    auto& m = self_kind<ModuleObj>(I, a, ObjKind::Module, "module", "__repr__");
    if (m.file.empty()) return make_str(fmt::format("<module '{}' (built-in)>", m.name));
    return make_str(fmt::format("<module '{}' from '{}'>", m.name, m.file));
  });
  def(t.cell, "__repr__", [](Interp& I, CallArgs& a) {
    auto& c = self_kind<CellObj>(I, a, ObjKind::Cell, "cell", "__repr__");
    if (!c.v) return make_str(fmt::format("<cell at {}: empty>", addr_of(&c)));
    return make_str(fmt::format("<cell at {}: {} object at {}>", addr_of(&c), I.type_name(c.v), addr_of(c.v.get())));
  });
}

// property(fget=None, fset=None, fdel=None, doc=None)
void init_wrappers() {
  auto& t = T();
  t.property->native_new = [](Interp& I, const ClassP& cls, CallArgs& a) -> Value {
    ArgParser p(I, a, "property", {"fget=", "fset=", "fdel=", "doc="});
    Value get = p.get("fget"), set = p.get("fset");
    auto w = std::make_shared<WrapperObj>(ObjKind::Property, T().property,
                                          get && get->kind != ObjKind::None ? get : nullptr);
    if (set && set->kind != ObjKind::None) w->fset = set;
    return wrap_for_class(cls, w);
  };
  auto prop_of = [](Interp& I, CallArgs& a, const char* meth) -> WrapperObj& {
    return self_as<WrapperObj>(I, a, ObjKind::Property, "property", meth);
  };
  def(t.property, "setter", [prop_of](Interp& I, CallArgs& a) -> Value {
    method_nargs(I, a, "property.setter", 1, 1);
    auto& p = prop_of(I, a, "setter");
    auto w = std::make_shared<WrapperObj>(ObjKind::Property, T().property, p.fget);
    w->fset = a.args[1];
    return w;
  });
  def(t.property, "getter", [prop_of](Interp& I, CallArgs& a) -> Value {
    method_nargs(I, a, "property.getter", 1, 1);
    auto& p = prop_of(I, a, "getter");
    auto w = std::make_shared<WrapperObj>(ObjKind::Property, T().property, a.args[1]);
    w->fset = p.fset;
    return w;
  });
  def(t.property, "deleter", [prop_of](Interp& I, CallArgs& a) -> Value {
    method_nargs(I, a, "property.deleter", 1, 1);
    auto& p = prop_of(I, a, "deleter");
    auto w = std::make_shared<WrapperObj>(ObjKind::Property, T().property, p.fget);
    w->fset = p.fset;
    return w;
  });
  def_property(t.property, "fget", [prop_of](Interp& I, CallArgs& a) -> Value {
    auto& p = prop_of(I, a, "fget");
    return p.fget ? p.fget : none();
  });
  def_property(t.property, "fset", [prop_of](Interp& I, CallArgs& a) -> Value {
    auto& p = prop_of(I, a, "fset");
    return p.fset ? p.fset : none();
  });
  auto wrapper_new = [](ObjKind k, const char* name) {
    return [k, name](Interp& I, const ClassP& cls, CallArgs& a) -> Value {
      func_nargs(I, a, name, 1, 1);
      return wrap_for_class(cls, std::make_shared<WrapperObj>(k, k == ObjKind::StaticMethod ? T().staticmethod : T().classmethod, a.args[0]));
    };
  };
  t.staticmethod->native_new = wrapper_new(ObjKind::StaticMethod, "staticmethod");
  t.classmethod->native_new = wrapper_new(ObjKind::ClassMethod, "classmethod");
  for (auto [cls, kind, name] : {std::tuple{t.staticmethod, ObjKind::StaticMethod, "staticmethod"},
                                  std::tuple{t.classmethod, ObjKind::ClassMethod, "classmethod"}}) {
    def_property(cls, "__func__", [kind, name](Interp& I, CallArgs& a) {
      return self_as<WrapperObj>(I, a, kind, name, "__func__").fget;
    });
    def(cls, "__repr__", [kind, name](Interp& I, CallArgs& a) {
      auto& w = self_as<WrapperObj>(I, a, kind, name, "__repr__");
      return make_str(fmt::format("<{} object at {}>", name, addr_of(&w)));
    });
  }
}

void init_super() {
  auto& t = T();
  t.super_->native_new = [](Interp& I, const ClassP&, CallArgs& a) -> Value {
    no_kwargs(I, a, "super");
    if (a.args.empty()) I.raise("RuntimeError", "super(): no arguments");
    if (a.args.size() > 2) I.raise("TypeError", fmt::format("super() takes at most 2 arguments ({} given)", a.args.size()));
    if (a.args[0]->kind != ObjKind::Class)
      I.raise("TypeError", fmt::format("super() argument 1 must be a type, not {}", I.type_name(a.args[0])));
    auto start = std::static_pointer_cast<ClassObj>(a.args[0]);
    if (a.args.size() == 1) return std::make_shared<SuperObj>(T().super_, start, nullptr);
    const Value& obj = a.args[1];
    bool ok = obj->cls->is_subclass_of(start.get()) ||
              (obj->kind == ObjKind::Class && static_cast<ClassObj&>(*obj).is_subclass_of(start.get()));
    if (!ok) I.raise("TypeError", "super(type, obj): obj must be an instance or subtype of type");
    return std::make_shared<SuperObj>(T().super_, start, obj);
  };
  def(t.super_, "__repr__", [](Interp& I, CallArgs& a) {
    auto& s = self_as<SuperObj>(I, a, ObjKind::Super, "super", "__repr__");
    std::string cls = fmt::format("<class '{}'>", class_qualname(*s.start));
    if (!s.self) return make_str(fmt::format("<super: {}, NULL>", cls));
    return make_str(fmt::format("<super: {}, <{} object>>", cls, class_qualname(*s.self->cls)));
  });
  def(t.super_, "__init__", [](Interp&, CallArgs&) { return none(); });
}

}  // namespace

void init_callable_types() {
  init_functions();
  init_wrappers();
  init_super();
}

}  // namespace shard::interp::bi
