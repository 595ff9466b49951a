// object, type and the singletons' types (None, NotImplemented, Ellipsis); init_object_types
// sets them up, then the callable types (callable_types.cpp).
#include <fmt/format.h>

#include "interp/builtins/support.hpp"

namespace shard::interp::bi {

namespace {

Value g_object_init;  // object.__init__, to tell whether a class overrides __init__

ClassP as_class(const Value& v) {
  return v && v->kind == ObjKind::Class ? std::static_pointer_cast<ClassObj>(v) : nullptr;
}

// The first built-in class in the MRO that constructs instances natively.
const ClassObj* native_constructor_class(ClassObj& c) {
  for (ClassObj* m : c.mro)
    if (is_native_layout(m) && m->native_new) return m;
  return T().object.get();
}

Value object_init(Interp& I, CallArgs& a) {
  if (a.args.empty()) I.raise("TypeError", "descriptor '__init__' of 'object' object needs an argument");
  if (a.args.size() == 1 && a.kwargs.empty()) return none();
  ClassObj& cls = *a.args[0]->cls;
  Value* init = cls.lookup("__init__");
  if (init && init->get() != g_object_init.get())
    I.raise("TypeError", "object.__init__() takes exactly one argument (the instance to initialize)");
  if (native_constructor_class(cls) == T().object.get())
    I.raise("TypeError", fmt::format("{}() takes no arguments", cls.name));
  return none();
}

std::string object_repr(const Value& self) {
  return fmt::format("<{} object at {}>", class_qualname(*self->cls), addr_of(self.get()));
}

Value object_ne(Interp& I, CallArgs& a) {
  method_nargs(I, a, "object.__ne__", 1, 1);
  Value* eq = a.args[0]->cls->lookup("__eq__");
  if (!eq) return not_implemented();
  Value r = I.call(*eq, std::vector<Value>{a.args[0], a.args[1]});
  if (r->kind == ObjKind::NotImplemented) return r;
  return make_bool(!I.truthy(r));
}

void init_object() {
  auto& o = T().object;
  o->native_new = [](Interp& I, const ClassP& cls, CallArgs& a) -> Value {
    if (cls.get() == T().object.get() && (!a.args.empty() || !a.kwargs.empty()))
      I.raise("TypeError", "object() takes no arguments");
    return std::make_shared<InstanceObj>(cls);
  };
  def(o, "__init__", object_init);
  g_object_init = *o->dict.find("__init__");
  def(o, "__repr__", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "object.__repr__", 0, 0);
    return make_str(object_repr(a.args[0]));
  });
  def(o, "__str__", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "object.__str__", 0, 0);
    return make_str(I.repr(a.args[0]));
  });
  def(o, "__eq__", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "object.__eq__", 1, 1);
    return a.args[0].get() == a.args[1].get() ? make_bool(true) : not_implemented();
  });
  def(o, "__ne__", object_ne);
  for (const char* op : {"__lt__", "__le__", "__gt__", "__ge__"})
    def(o, op, [](Interp&, CallArgs&) { return not_implemented(); });
  def(o, "__hash__", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "object.__hash__", 0, 0);
    auto p = reinterpret_cast<uintptr_t>(a.args[0].get());
    return make_int(int64_t((p >> 4) | (p << 60)) & INT64_MAX);
  });
  def(o, "__format__", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "object.__format__", 1, 1);
    const std::string& spec = str_arg(I, a.args[1], "format_spec");
    if (!spec.empty())
      I.raise("TypeError", fmt::format("unsupported format string passed to {}.__format__",
                                       a.args[0]->cls->name));
    return make_str(I.str(a.args[0]));
  });
  def(o, "__setattr__", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "object.__setattr__", 2, 2);
    const std::string& name = str_arg(I, a.args[1], "attribute name");
    if (a.args[0]->kind == ObjKind::Instance) static_cast<InstanceObj&>(*a.args[0]).dict.set(name, a.args[2]);
    else I.setattr(a.args[0], name, a.args[2]);
    return none();
  });
  def(o, "__delattr__", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "object.__delattr__", 1, 1);
    const std::string& name = str_arg(I, a.args[1], "attribute name");
    if (a.args[0]->kind == ObjKind::Instance) {
      if (!static_cast<InstanceObj&>(*a.args[0]).dict.erase(name))
        I.raise("AttributeError", fmt::format("'{}' object has no attribute '{}'", I.type_name(a.args[0]), name));
    } else {
      I.delattr(a.args[0], name);
    }
    return none();
  });
  def_classmethod(o, "__init_subclass__", [](Interp&, CallArgs&) { return none(); });
}

Value type_new(Interp& I, const ClassP&, CallArgs& a) {
  if (a.args.size() == 1 && a.kwargs.empty()) return a.args[0]->cls;
  if (a.args.size() != 3) I.raise("TypeError", "type() takes 1 or 3 arguments");
  const std::string& name = str_arg(I, a.args[0], "type.__new__() argument 1");
  auto* bases = unwrap<TupleObj>(a.args[1], ObjKind::Tuple);
  auto* ns = unwrap<DictObj>(a.args[2], ObjKind::Dict);
  if (!bases) I.raise("TypeError", fmt::format("type.__new__() argument 2 must be tuple, not {}", I.type_name(a.args[1])));
  if (!ns) I.raise("TypeError", fmt::format("type.__new__() argument 3 must be dict, not {}", I.type_name(a.args[2])));
  std::vector<ClassP> bs;
  for (auto& b : bases->items) {
    auto c = as_class(b);
    if (!c) I.raise("TypeError", "bases must be types");
    bs.push_back(c);
  }
  auto c = make_class(name, bs, "__main__");
  for (auto& [k, v] : ns->items())
    c->dict.set(str_arg(I, k, "attribute name"), v);
  return c;
}

ClassObj& self_class(Interp& I, CallArgs& a, const char* meth) {
  if (a.args.empty() || a.args[0]->kind != ObjKind::Class) bad_self(I, a, "type", meth);
  return static_cast<ClassObj&>(*a.args[0]);
}

void init_type() {
  auto& t = T().type;
  t->native_new = type_new;
  def(t, "__init__", [](Interp&, CallArgs&) { return none(); });
  def(t, "__repr__", [](Interp& I, CallArgs& a) {
    return make_str(fmt::format("<class '{}'>", class_qualname(self_class(I, a, "__repr__"))));
  });
  auto mro = [](Interp& I, CallArgs& a) {
    self_class(I, a, "mro");
    ClassP c = std::static_pointer_cast<ClassObj>(a.args[0]);
    std::vector<Value> out;
    for (ClassObj* m : c->mro) out.push_back(class_ptr(c, m));
    return out;
  };
  def(t, "mro", [mro](Interp& I, CallArgs& a) { return make_list(mro(I, a)); });
}

void init_singletons() {
  auto& t = T();
  t.none->native_new = [](Interp& I, const ClassP&, CallArgs& a) {
    if (!a.args.empty() || !a.kwargs.empty()) I.raise("TypeError", "NoneType takes no arguments");
    return none();
  };
  def(t.none, "__repr__", [](Interp&, CallArgs&) { return make_str("None"); });
  def(t.none, "__bool__", [](Interp&, CallArgs&) { return make_bool(false); });
  t.notimplemented->native_new = [](Interp&, const ClassP&, CallArgs&) { return not_implemented(); };
  def(t.notimplemented, "__repr__", [](Interp&, CallArgs&) { return make_str("NotImplemented"); });
  t.ellipsis->native_new = [](Interp&, const ClassP&, CallArgs&) { return ellipsis(); };
  def(t.ellipsis, "__repr__", [](Interp&, CallArgs&) { return make_str("Ellipsis"); });
}

}  // namespace

void init_callable_types();  // callable_types.cpp

void init_object_types() {
  init_object();
  init_type();
  init_singletons();
  init_callable_types();
}

}  // namespace shard::interp::bi
