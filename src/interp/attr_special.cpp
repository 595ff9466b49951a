// Special attributes answered by the interpreter (__class__, __name__, __dict__, __mro__,
// exception chaining, slice/range fields, ...) and object's default methods when the
// `object` class does not define them (super().__init__(), object.__setattr__ ...).
#include <fmt/format.h>

#include "interp/interp_impl.hpp"
#include "interp/native_docs.hpp"

namespace shard::interp {

namespace {

std::shared_ptr<DictObj> table_to_dict(Interp& I, AttrTable& t) {
  auto d = make_dict();
  for (auto& [k, v] : t.entries)
    if (v && k.rfind("__shard_", 0) != 0) d->set(I, make_str(k), v);
  return d;
}

// Finds the shared owner of a class in the MRO (which holds raw pointers).
ClassP class_ptr(const ClassP& root, const ClassObj* raw) {
  if (root.get() == raw) return root;
  for (auto& b : root->bases)
    if (ClassP p = class_ptr(b, raw)) return p;
  return nullptr;
}

}  // namespace

// object's default methods, used when the `object` class itself does not define them
// (e.g. super().__init__(), object.__setattr__(self, k, v)).
Value* object_fallback(std::string_view name) {
  static AttrTable table;
  static bool ready = false;
  if (!ready) {
    ready = true;
    table.set("__init__", make_builtin("__init__", [](Interp&, CallArgs&) { return none(); }));
    table.set("__new__", make_builtin("__new__", [](Interp& I, CallArgs& a) -> Value {
                if (a.args.empty() || !is(a.args[0], ObjKind::Class))
                  I.raise("TypeError", "object.__new__(X): X is not a type object");
                auto cls = std::static_pointer_cast<ClassObj>(a.args[0]);
                check_not_abstract(I, *cls);
                // int.__new__(cls, 5) and super().__new__(cls, ...) under a built-in base:
                // the constructor of the first built-in class in cls's MRO makes the object.
                for (ClassObj* k : cls->mro) {
                  if (!k->native_new || k == T().object.get()) continue;
                  CallArgs rest;
                  rest.args.assign(a.args.begin() + 1, a.args.end());
                  rest.kwargs = a.kwargs;
                  rest.loc = a.loc;
                  return k->native_new(I, cls, rest);
                }
                return std::make_shared<InstanceObj>(cls);
              }));
    table.set("__setattr__", make_builtin("__setattr__", [](Interp& I, CallArgs& a) -> Value {
                if (a.args.size() != 3 || !is(a.args[1], ObjKind::Str)) I.raise("TypeError", "expected 2 arguments");
                generic_setattr(I, a.args[0], as<StrObj>(a.args[1]).v, a.args[2]);
                return none();
              }));
    table.set("__getattribute__", make_builtin("__getattribute__", [](Interp& I, CallArgs& a) -> Value {
                if (a.args.size() != 2 || !is(a.args[1], ObjKind::Str))
                  I.raise("TypeError", "expected 1 argument");
                return I.getattr(a.args[0], as<StrObj>(a.args[1]).v);
              }));
    table.set("__delattr__", make_builtin("__delattr__", [](Interp& I, CallArgs& a) -> Value {
                if (a.args.size() != 2 || !is(a.args[1], ObjKind::Str))
                  I.raise("TypeError", "expected 1 argument");
                const std::string& n = as<StrObj>(a.args[1]).v;
                if (is(a.args[0], ObjKind::Instance) && as<InstanceObj>(a.args[0]).dict.erase(n)) return none();
                I.raise("AttributeError", "'" + I.type_name(a.args[0]) + "' object has no attribute '" + n + "'");
              }));
    table.set("__repr__", make_builtin("__repr__", [](Interp& I, CallArgs& a) -> Value {
                if (a.args.empty()) I.raise("TypeError", "expected 1 argument");
                const Value& v = a.args[0];
                return make_str(fmt::format("<{} object at {:#x}>", qualified_class_name(*v->cls),
                                            reinterpret_cast<uintptr_t>(v.get())));
              }));
    table.set("__str__", make_builtin("__str__", [](Interp& I, CallArgs& a) -> Value {
                if (a.args.empty()) I.raise("TypeError", "expected 1 argument");
                return make_str(I.repr(a.args[0]));
              }));
    table.set("__eq__", make_builtin("__eq__", [](Interp& I, CallArgs& a) -> Value {
                if (a.args.size() != 2) I.raise("TypeError", "expected 1 argument");
                return a.args[0] == a.args[1] ? make_bool(true) : not_implemented();
              }));
    table.set("__ne__", make_builtin("__ne__", [](Interp& I, CallArgs& a) -> Value {
                if (a.args.size() != 2) I.raise("TypeError", "expected 1 argument");
                return a.args[0] == a.args[1] ? make_bool(false) : not_implemented();
              }));
    table.set("__hash__", make_builtin("__hash__", [](Interp& I, CallArgs& a) -> Value {
                if (a.args.empty()) I.raise("TypeError", "expected 1 argument");
                uintptr_t p = reinterpret_cast<uintptr_t>(a.args[0].get());
                return make_int(int64_t((p >> 4) | (p << 60)) & INT64_MAX);
              }));
    table.set("__format__", make_builtin("__format__", [](Interp& I, CallArgs& a) -> Value {
                if (a.args.size() != 2 || !is(a.args[1], ObjKind::Str)) I.raise("TypeError", "expected 1 argument");
                if (!as<StrObj>(a.args[1]).v.empty())
                  I.raise("TypeError", "unsupported format string passed to " + I.type_name(a.args[0]) + ".__format__");
                return make_str(I.str(a.args[0]));
              }));
    table.set("__init_subclass__", make_builtin("__init_subclass__", [](Interp&, CallArgs&) { return none(); }));
  }
  Value* v = table.find(name);
  return (v && *v) ? v : nullptr;
}

std::optional<Value> Interp::Impl::special_attr(const Value& obj, std::string_view name) {
  if (name == "__class__") return Value(obj->cls);
  switch (obj->kind) {
    case ObjKind::Instance: {
      auto& inst = as<InstanceObj>(obj);
      if (name == "__dict__") return Value(table_to_dict(I, inst.dict));
      if (inst.exc || obj->cls->is_subclass_of(T().base_exception.get())) {
        ExcInfo& info = exc_info(obj);
        if (name == "__cause__") return info.cause && !is(info.cause, ObjKind::None) ? info.cause : none();
        if (name == "__context__") return info.context ? info.context : none();
        if (name == "__suppress_context__") return make_bool(info.cause != nullptr);
        if (name == "__traceback__") return none();
      }
      if (name == "__doc__") return none();
      break;
    }
    case ObjKind::Class: {
      auto& c = as<ClassObj>(obj);
      if (name == "__name__") return make_str(c.name);
      if (name == "__qualname__") {
        if (Value* q = c.dict.find("__qualname__"); q && *q) return *q;
        return make_str(c.name);
      }
      if (name == "__module__") return make_str(c.module);
      if (name == "__doc__") return none();
      if (name == "__dict__") return Value(table_to_dict(I, c.dict));
      if (name == "__bases__") {
        std::vector<Value> bs(c.bases.begin(), c.bases.end());
        return make_tuple(std::move(bs));
      }
      if (name == "__base__") return c.bases.empty() ? none() : Value(c.bases[0]);
      if (name == "__mro__") {
        ClassP self = std::static_pointer_cast<ClassObj>(obj);
        std::vector<Value> items;
        if (c.mro.empty()) {
          for (ClassP k = self; k; k = k->bases.empty() ? nullptr : k->bases[0]) items.push_back(k);
        } else {
          for (ClassObj* k : c.mro)
            if (ClassP p = class_ptr(self, k)) items.push_back(p);
        }
        return make_tuple(std::move(items));
      }
      break;
    }
    case ObjKind::Function: {
      auto& fn = as<FunctionObj>(obj);
      if (name == "__name__") return make_str(fn.name);
      if (name == "__qualname__") return make_str(fn.qualname);
      if (name == "__module__") {
        if (fn.globals)
          if (Value* n = fn.globals->dict.find("__name__"); n && *n) return *n;
        return none();
      }
      if (name == "__doc__") return none();
      if (name == "__dict__") return Value(table_to_dict(I, fn.dict));
      if (name == "__defaults__") return fn.defaults.empty() ? none() : make_tuple(fn.defaults);
      if (name == "__kwdefaults__") return fn.kwdefaults.entries.empty() ? none() : Value(table_to_dict(I, fn.kwdefaults));
      if (name == "__globals__" && fn.globals) return Value(table_to_dict(I, fn.globals->dict));
      break;
    }
    case ObjKind::BoundMethod: {
      auto& bm = as<BoundMethodObj>(obj);
      if (name == "__self__") return bm.self;
      if (name == "__func__") return bm.func;
      return I.try_getattr(bm.func, name);
    }
    case ObjKind::Builtin: {
      auto& b = as<BuiltinObj>(obj);
      if (name == "__name__" || name == "__qualname__") return make_str(b.name);
      if (name == "__self__") return b.self ? b.self : none();
      if (name == "__doc__" || name == "__module__") {
        auto doc = b.self ? nullptr : native_doc(&b);
        if (name == "__doc__") return doc && !doc->text.empty() ? make_str(doc->text) : none();
        return doc ? make_str(doc->module) : b.self ? none() : make_str("builtins");
      }
      break;
    }
    case ObjKind::Module: {
      auto& m = as<ModuleObj>(obj);
      if (name == "__dict__") return Value(table_to_dict(I, m.dict));
      if (name == "__name__") return make_str(m.name);
      if (name == "__file__" && !m.file.empty()) return make_str(m.file);
      break;
    }
    case ObjKind::Slice: {
      auto& s = as<SliceObj>(obj);
      if (name == "start") return s.start ? s.start : none();
      if (name == "stop") return s.stop ? s.stop : none();
      if (name == "step") return s.step ? s.step : none();
      break;
    }
    case ObjKind::Range: {
      auto& r = as<RangeObj>(obj);
      if (name == "start") return make_int(r.start);
      if (name == "stop") return make_int(r.stop);
      if (name == "step") return make_int(r.step);
      break;
    }
    case ObjKind::Property:
    case ObjKind::StaticMethod:
    case ObjKind::ClassMethod: {
      auto& w = as<WrapperObj>(obj);
      if (name == "fget" || name == "__func__" || name == "__wrapped__") return w.fget ? w.fget : none();
      if (name == "fset") return w.fset ? w.fset : none();
      break;
    }
    case ObjKind::Super: {
      if (name == "__thisclass__") return Value(as<SuperObj>(obj).start);
      if (name == "__self__") return as<SuperObj>(obj).self;
      break;
    }
    default:
      break;
  }
  if (name == "__doc__") return none();
  return std::nullopt;
}

}  // namespace shard::interp
