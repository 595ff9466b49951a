// Attribute access: instance dicts, class MRO lookup with binding (functions -> bound
// methods, natives -> copies with `self`), property/staticmethod/classmethod, super(),
// modules; setattr/delattr. Special attributes are in attr_special.cpp, the per-node
// inline caches in attr_cache.cpp.
#include <fmt/format.h>

#include "interp/interp_impl.hpp"
#include "interp/missing_attribute_hint.hpp"

namespace shard::interp {

using Kwargs = std::vector<std::pair<std::string, Value>>;

// User classes (from `class` statements) record __qualname__ in their dict; built-in and
// native classes do not. Natives stored on user classes are plain functions, not methods.
bool is_user_class(const ClassObj* c) {
  Value* q = const_cast<ClassObj*>(c)->dict.find("__qualname__");
  return q && *q;
}

std::string class_display_name(const ClassObj& c) {
  std::string qual = c.name;
  if (Value* q = const_cast<ClassObj&>(c).dict.find("__qualname__"); q && *q && is(*q, ObjKind::Str))
    qual = as<StrObj>(*q).v;
  if (c.module.empty() || c.module == "builtins" || c.module == "__main__") return qual;
  return c.module + "." + qual;
}

std::string qualified_class_name(const ClassObj& c) {
  std::string qual = c.name;
  if (Value* q = const_cast<ClassObj&>(c).dict.find("__qualname__"); q && *q && is(*q, ObjKind::Str))
    qual = as<StrObj>(*q).v;
  if (c.module.empty() || c.module == "builtins") return qual;
  return c.module + "." + qual;
}

Value* Interp::Impl::lookup_type(const ClassObj* cls, std::string_view name, ClassObj** owner) {
  if (!cls) return nullptr;
  if (cls->mro.empty()) {
    for (const ClassObj* k = cls; k; k = k->bases.empty() ? nullptr : k->bases[0].get()) {
      Value* v = const_cast<ClassObj*>(k)->dict.find(name);
      if (v && *v) {
        if (owner) *owner = const_cast<ClassObj*>(k);
        return v;
      }
    }
    return nullptr;
  }
  for (ClassObj* k : cls->mro) {
    Value* v = k->dict.find(name);
    if (v && *v) {
      if (owner) *owner = k;
      return v;
    }
  }
  return nullptr;
}

Value* Interp::Impl::lookup_type_no_object(const ClassObj* cls, std::string_view name) {
  ClassObj* owner = nullptr;
  Value* v = lookup_type(cls, name, &owner);
  if (v && owner == T().object.get()) return nullptr;
  return v;
}

Value Interp::Impl::bind(const Value& attr, const Value& obj, ClassObj* owner) {
  switch (attr->kind) {
    case ObjKind::Function:
      return std::make_shared<BoundMethodObj>(T().method, obj, attr);
    case ObjKind::Builtin: {
      auto& b = as<BuiltinObj>(attr);
      if (b.self || (owner && is_user_class(owner))) return attr;
      auto copy = std::make_shared<BuiltinObj>(b);
      copy->self = obj;
      return copy;
    }
    case ObjKind::StaticMethod:
      return as<WrapperObj>(attr).fget;
    case ObjKind::ClassMethod: {
      Value cls = is(obj, ObjKind::Class) ? obj : Value(obj->cls);
      return std::make_shared<BoundMethodObj>(T().method, cls, as<WrapperObj>(attr).fget);
    }
    default:
      return attr;
  }
}

Value property_get(Interp& I, const Value& prop, const Value& obj, std::string_view name) {
  auto& w = as<WrapperObj>(prop);
  if (!w.fget)
    I.raise("AttributeError", fmt::format("property '{}' of '{}' object has no getter", name, I.type_name(obj)));
  return I.call(w.fget, std::vector<Value>{obj});
}

std::optional<Value> Interp::Impl::getattr_opt(const Value& obj, std::string_view name) {
  switch (obj->kind) {
    case ObjKind::Instance: {
      auto& inst = as<InstanceObj>(obj);
      ClassObj* owner = nullptr;
      Value* ca = lookup_type(obj->cls.get(), name, &owner);
      if (ca && is(*ca, ObjKind::Property)) return property_get(I, *ca, obj, name);
      if (Value* v = inst.dict.find(name); v && *v) return *v;
      if (ca) return bind(*ca, obj, owner);
      if (auto sp = special_attr(obj, name)) return sp;
      if (Value* fb = object_fallback(name)) return bind(*fb, obj, nullptr);
      if (Value* ga = lookup_type(obj->cls.get(), "__getattr__"))
        return call_unbound(*ga, obj, {make_str(std::string(name))});
      return std::nullopt;
    }
    case ObjKind::Class: {
      auto& c = as<ClassObj>(obj);
      ClassObj* owner = nullptr;
      if (Value* ca = lookup_type(&c, name, &owner)) {
        if (is(*ca, ObjKind::StaticMethod)) return as<WrapperObj>(*ca).fget;
        if (is(*ca, ObjKind::ClassMethod))
          return Value(std::make_shared<BoundMethodObj>(T().method, obj, as<WrapperObj>(*ca).fget));
        return *ca;
      }
      if (auto sp = special_attr(obj, name)) return sp;
      // Attributes of the metaclass (e.g. type.mro, EnumType.__members__), bound to the class.
      if (Value* ma = lookup_type(obj->cls.get(), name, &owner)) {
        if (is(*ma, ObjKind::Property)) return property_get(I, *ma, obj, name);
        if (owner != T().object.get()) return bind(*ma, obj, owner);
      }
      if (Value* fb = object_fallback(name)) return *fb;
      if (obj->cls.get() != T().type.get())  // a metaclass's __getattr__ (enum.EnumType)
        if (Value* ga = lookup_type(obj->cls.get(), "__getattr__"))
          return call_unbound(*ga, obj, {make_str(std::string(name))});
      return std::nullopt;
    }
    case ObjKind::Module: {
      auto& m = as<ModuleObj>(obj);
      if (Value* v = m.dict.find(name); v && *v) return *v;
      if (auto sp = special_attr(obj, name)) return sp;
      if (Value* ga = m.dict.find("__getattr__"); ga && *ga)
        return I.call(*ga, std::vector<Value>{make_str(std::string(name))});
      return std::nullopt;
    }
    case ObjKind::Super: {
      auto& s = as<SuperObj>(obj);
      const ClassObj* type = is(s.self, ObjKind::Class) ? &as<ClassObj>(s.self) : s.self->cls.get();
      bool after = false;
      std::vector<ClassObj*> chain;
      if (type->mro.empty()) {
        for (const ClassObj* k = type; k; k = k->bases.empty() ? nullptr : k->bases[0].get())
          chain.push_back(const_cast<ClassObj*>(k));
      }
      const std::vector<ClassObj*>& mro = type->mro.empty() ? chain : type->mro;
      for (ClassObj* k : mro) {
        if (!after) {
          after = k == s.start.get();
          continue;
        }
        Value* v = k->dict.find(name);
        if (!v || !*v) continue;
        if (is(*v, ObjKind::Property)) return property_get(I, *v, s.self, name);
        if (is(*v, ObjKind::ClassMethod)) {
          Value cls = is(s.self, ObjKind::Class) ? s.self : Value(s.self->cls);
          return Value(std::make_shared<BoundMethodObj>(T().method, cls, as<WrapperObj>(*v).fget));
        }
        if (is(s.self, ObjKind::Class) && is(*v, ObjKind::Function)) return *v;  // super() in a classmethod
        return bind(*v, s.self, k);
      }
      if (auto sp = special_attr(obj, name)) return sp;
      // object.__new__ is a static method: super().__new__(cls, ...) passes cls itself.
      if (Value* fb = object_fallback(name)) return name == "__new__" ? *fb : bind(*fb, s.self, nullptr);
      return std::nullopt;
    }
    default:
      break;
  }
  ClassObj* owner = nullptr;
  if (Value* ca = lookup_type(obj->cls.get(), name, &owner)) {
    if (is(*ca, ObjKind::Property)) return property_get(I, *ca, obj, name);
    return bind(*ca, obj, owner);
  }
  if (is(obj, ObjKind::Function)) {
    if (Value* v = as<FunctionObj>(obj).dict.find(name); v && *v) return *v;
  }
  if (auto sp = special_attr(obj, name)) return sp;
  if (Value* ga = lookup_type(obj->cls.get(), "__getattr__"))
    return call_unbound(*ga, obj, {make_str(std::string(name))});
  return std::nullopt;
}

Value Interp::getattr(const Value& obj, std::string_view name) {
  if (auto v = impl_->getattr_opt(obj, name)) return *v;
  std::string msg;
  if (is(obj, ObjKind::Module)) {
    auto& m = as<ModuleObj>(obj);
    if (auto unsupported = missing_attribute_hint(m.name, name)) raise("AttributeError", *unsupported);
    bool partial = false;
    for (auto& n : impl_->initializing) partial = partial || n == m.name;
    msg = partial ? fmt::format("partially initialized module '{}' has no attribute '{}' (most likely due to a "
                                "circular import)", m.name, name)
                  : fmt::format("module '{}' has no attribute '{}'", m.name, name);
  } else if (is(obj, ObjKind::Class)) {
    msg = fmt::format("type object '{}' has no attribute '{}'", as<ClassObj>(obj).name, name);
  } else {
    msg = fmt::format("'{}' object has no attribute '{}'", type_name(obj), name);
  }
  Value exc = make_exception("AttributeError", msg);
  if (is(exc, ObjKind::Instance)) {
    as<InstanceObj>(exc).dict.set("name", make_str(std::string(name)));
    as<InstanceObj>(exc).dict.set("obj", obj);
  }
  throw PyError{exc};
}

std::optional<Value> Interp::try_getattr(const Value& obj, std::string_view name) {
  try {
    return impl_->getattr_opt(obj, name);
  } catch (PyError& e) {
    ClassP attr_error = builtin_class("AttributeError");
    if (attr_error && e.exc && e.exc->cls->is_subclass_of(attr_error.get())) return std::nullopt;
    throw;
  }
}

Value Interp::Impl::load_method(const Value& obj, const std::string& name, bool& prepend_self) {
  prepend_self = false;
  switch (obj->kind) {
    case ObjKind::Instance: {
      ClassObj* owner = nullptr;
      Value* ca = lookup_type(obj->cls.get(), name, &owner);
      if (ca && (is(*ca, ObjKind::Function) || (is(*ca, ObjKind::Builtin) && !as<BuiltinObj>(*ca).self &&
                                               !is_user_class(owner)))) {
        Value* own = as<InstanceObj>(obj).dict.find(name);
        if (own && *own) return *own;
        prepend_self = true;
        return *ca;
      }
      break;
    }
    case ObjKind::Class:
    case ObjKind::Module:
    case ObjKind::Super:
    case ObjKind::Function:
      break;
    default: {
      ClassObj* owner = nullptr;
      Value* ca = lookup_type(obj->cls.get(), name, &owner);
      if (ca && is(*ca, ObjKind::Builtin) && !as<BuiltinObj>(*ca).self && !is_user_class(owner)) {
        prepend_self = true;
        return *ca;
      }
      break;
    }
  }
  return I.getattr(obj, name);
}

std::optional<Value> Interp::call_method(const Value& obj, std::string_view name, std::vector<Value> args) {
  ClassObj* owner = nullptr;
  Value* m = impl_->lookup_type(obj->cls.get(), name, &owner);
  if (!m || is(*m, ObjKind::None)) return std::nullopt;
  return impl_->call_unbound(*m, obj, std::move(args));
}

// ---------------------------------------------------------------- setattr / delattr

// Stores without consulting a user __setattr__ (object.__setattr__).
void generic_setattr(Interp& I, const Value& obj, const std::string& name, Value v) {
  switch (obj->kind) {
    case ObjKind::Instance: {
      auto& inst = as<InstanceObj>(obj);
      ClassObj* cls = obj->cls.get();
      Value* ca = nullptr;
      for (ClassObj* k : cls->mro) {
        Value* x = k->dict.find(name);
        if (x && *x) {
          ca = x;
          break;
        }
      }
      if (ca && is(*ca, ObjKind::Property)) {
        auto& w = as<WrapperObj>(*ca);
        if (!w.fset)
          I.raise("AttributeError", fmt::format("property '{}' of '{}' object has no setter", name, I.type_name(obj)));
        I.call(w.fset, std::vector<Value>{obj, std::move(v)});
        return;
      }
      if (inst.exc || cls->is_subclass_of(T().base_exception.get())) {
        if (name == "__cause__" || name == "__context__") {
          if (!inst.exc) inst.exc = std::make_shared<ExcInfo>();
          (name == "__cause__" ? inst.exc->cause : inst.exc->context) = v;
          return;
        }
        if (name == "__traceback__" || name == "__suppress_context__") return;
      }
      inst.dict.set(name, std::move(v));
      return;
    }
    case ObjKind::Class: {
      auto& c = as<ClassObj>(obj);
      if (name == "__name__" && is(v, ObjKind::Str)) {
        c.name = as<StrObj>(v).v;
        return;
      }
      c.dict.set(name, std::move(v));
      return;
    }
    case ObjKind::Module:
      as<ModuleObj>(obj).dict.set(name, std::move(v));
      return;
    case ObjKind::Function: {
      auto& fn = as<FunctionObj>(obj);
      if (name == "__name__" && is(v, ObjKind::Str)) {
        fn.name = as<StrObj>(v).v;
        return;
      }
      if (name == "__qualname__" && is(v, ObjKind::Str)) {
        fn.qualname = as<StrObj>(v).v;
        return;
      }
      if (name == "__defaults__") {
        if (is(v, ObjKind::None)) fn.defaults.clear();
        else if (is(v, ObjKind::Tuple)) fn.defaults = as<TupleObj>(v).items;
        else I.raise("TypeError", "__defaults__ must be set to a tuple object");
        return;
      }
      fn.dict.set(name, std::move(v));
      return;
    }
    default: {
      // Natives (arrays, ...) may define a property setter on their class.
      if (obj->cls) {
        for (ClassObj* k : obj->cls->mro) {
          Value* x = k->dict.find(name);
          if (x && *x && is(*x, ObjKind::Property) && as<WrapperObj>(*x).fset) {
            I.call(as<WrapperObj>(*x).fset, std::vector<Value>{obj, std::move(v)});
            return;
          }
        }
      }
      I.raise("AttributeError", fmt::format("'{}' object has no attribute '{}'", I.type_name(obj), name));
    }
  }
}


void Interp::setattr(const Value& obj, const std::string& name, Value v) {
  if (is(obj, ObjKind::Module)) ++impl_->globals_epoch;  // may shadow a cached builtin
  if (is(obj, ObjKind::Class)) ++impl_->class_epoch;     // invalidates attribute caches
  if (is(obj, ObjKind::Instance)) {
    if (Value* sa = impl_->lookup_type_no_object(obj->cls.get(), "__setattr__"); sa && is(*sa, ObjKind::Function)) {
      impl_->call_unbound(*sa, obj, {make_str(name), std::move(v)});
      return;
    }
  }
  generic_setattr(*this, obj, name, std::move(v));
}

void Interp::delattr(const Value& obj, const std::string& name) {
  auto missing = [&] {
    if (is(obj, ObjKind::Module))
      raise("AttributeError", fmt::format("module '{}' has no attribute '{}'", as<ModuleObj>(obj).name, name));
    if (is(obj, ObjKind::Class))
      raise("AttributeError", fmt::format("type object '{}' has no attribute '{}'", as<ClassObj>(obj).name, name));
    raise("AttributeError", fmt::format("'{}' object has no attribute '{}'", type_name(obj), name));
  };
  switch (obj->kind) {
    case ObjKind::Instance: {
      if (Value* da = impl_->lookup_type_no_object(obj->cls.get(), "__delattr__"); da && is(*da, ObjKind::Function)) {
        impl_->call_unbound(*da, obj, {make_str(name)});
        return;
      }
      if (!as<InstanceObj>(obj).dict.erase(name)) missing();
      return;
    }
    case ObjKind::Class:
      ++impl_->class_epoch;
      if (!as<ClassObj>(obj).dict.erase(name)) missing();
      return;
    case ObjKind::Module:
      ++impl_->globals_epoch;
      if (!as<ModuleObj>(obj).dict.erase(name)) missing();
      return;
    case ObjKind::Function:
      if (!as<FunctionObj>(obj).dict.erase(name)) missing();
      return;
    default:
      missing();
  }
}

}  // namespace shard::interp
