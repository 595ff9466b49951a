// enum.EnumType, the metaclass of enum classes (see enum_common.hpp): its class-creation
// hook turns the plain attributes of a class body into members (auto() values, aliases,
// a data type such as int or str, a user __new__ / __init__), and its methods make the
// class a container of its members: iter / reversed / len / in, Color['RED'] by name,
// Color(1) by value (or the functional API Enum('Color', 'RED GREEN')), __members__.
#include <fmt/format.h>

#include "interp/builtins/dict_common.hpp"
#include "interp/builtins/enum_common.hpp"

namespace shard::interp::bi::enums {

namespace {

bool is_dunder(const std::string& n) {
  return n.size() > 4 && n.compare(0, 2, "__") == 0 && n.compare(n.size() - 2, 2, "__") == 0;
}

bool is_sunder(const std::string& n) {
  return n.size() > 2 && n.front() == '_' && n.back() == '_' && n[1] != '_' && n[n.size() - 2] != '_';
}

// `_Color__x` (CPython's mangled `__x`) and `__x` (shard does not mangle): not members.
bool is_private(const std::string& cls_name, const std::string& n) {
  if (n.size() > 2 && n.compare(0, 2, "__") == 0 && !is_dunder(n)) return true;
  std::string prefix = "_" + cls_name + "__";
  return n.size() > prefix.size() && n.compare(0, prefix.size(), prefix) == 0 &&
         n.compare(n.size() - 2, 2, "__") != 0;
}

// Functions, properties and objects with __get__/__set__/__delete__ stay class attributes.
bool is_descriptor(const Value& v) {
  switch (v->kind) {
    case ObjKind::Function:
    case ObjKind::Builtin:
    case ObjKind::Property:
    case ObjKind::StaticMethod:
    case ObjKind::ClassMethod:
      return true;
    default:
      return v->cls->lookup("__get__") || v->cls->lookup("__set__") || v->cls->lookup("__delete__");
  }
}

Value* own(ClassObj& cls, std::string_view name) {
  Value* v = cls.dict.find(name);
  return v && *v ? v : nullptr;
}

ClassObj& self_enum_class(Interp& I, CallArgs& a, const char* meth) {
  if (a.args.empty() || a.args[0]->kind != ObjKind::Class || !is_enum_class(&static_cast<ClassObj&>(*a.args[0])))
    bad_self(I, a, "EnumType", meth);
  return static_cast<ClassObj&>(*a.args[0]);
}

std::vector<std::string> member_names(ClassObj& cls) {
  std::vector<std::string> out;
  Value* names = own(cls, "_member_names_");
  if (!names || (*names)->kind != ObjKind::List) return out;
  for (auto& n : static_cast<ListObj&>(**names).items)
    if (n->kind == ObjKind::Str) out.push_back(static_cast<StrObj&>(*n).v);
  return out;
}

// The data type of the members (CPython's _find_data_type_): the first base, along each
// base's MRO, that constructs values natively or defines __new__ / __init__ (a mixin
// without either counts only through the data type after it); `object` when none does.
ClassP find_member_type(Interp& I, const ClassP& cls) {
  std::vector<ClassP> found;
  for (auto& base : cls->bases) {
    ClassObj* candidate = nullptr;
    for (ClassObj* k : base->mro) {
      if (k == T().object.get()) continue;
      ClassP data;
      if (is_enum_class(k)) {
        Value* mt = own(*k, "_member_type_");
        if (!mt || (*mt)->kind != ObjKind::Class || mt->get() == T().object.get()) continue;
        data = std::static_pointer_cast<ClassObj>(*mt);
      } else if (k->native_new || own(*k, "__new__") || own(*k, "__init__")) {
        data = class_ptr(base, candidate ? candidate : k);
      } else {
        if (!candidate) candidate = k;
        continue;
      }
      if (data && std::find(found.begin(), found.end(), data) == found.end()) found.push_back(data);
      break;
    }
  }
  if (found.size() > 1) {
    std::string names;
    for (auto& c : found) names += (names.empty() ? "" : ", ") + I.repr(c);
    I.raise("TypeError", fmt::format("too many data types for {}: {{{}}}", str_repr(cls->name), names));
  }
  return found.empty() ? T().object : found[0];
}

// A class whose base enum already has members cannot be defined.
void check_extensible(Interp& I, const ClassP& cls) {
  for (auto& base : cls->bases)
    for (ClassObj* k : base->mro)
      if (is_enum_class(k) && !member_names(*k).empty()) {
        ClassP extended = class_ptr(base, k);
        I.raise("TypeError", fmt::format("<enum {}> cannot extend {}", str_repr(cls->name),
                                         extended ? I.repr(extended) : "<enum " + str_repr(k->name) + ">"));
      }
}

// The value auto() stands for: the class's _generate_next_value_(name, start, count,
// last_values) (start is 1 in class bodies).
Value next_auto_value(Interp& I, const ClassP& cls, const std::string& name, int64_t start, size_t count,
                      const std::vector<Value>& last_values) {
  Value* gen = cls->lookup("_generate_next_value_");
  if (!gen) return make_int(start + int64_t(count));
  Value fn = *gen;
  if (fn->kind == ObjKind::StaticMethod || fn->kind == ObjKind::ClassMethod) fn = static_cast<WrapperObj&>(*fn).fget;
  return I.call(fn, std::vector<Value>{make_str(name), make_int(start), make_int(int64_t(count)), make_list(last_values)});
}

// A member object of `cls` built from the arguments of its value (CPython's
// _proto_member.__set_name__): a user __new__, the data type's constructor, or a plain
// instance; then _value_ (unless __new__ set it) and __init__.
Value make_member(Interp& I, const ClassP& cls, const ClassP& member_type, const std::string& name,
                  const Value& value) {
  std::vector<Value> args;
  if (value->kind == ObjKind::Tuple && value->cls.get() == T().tuple.get()) args = static_cast<TupleObj&>(*value).items;
  else args.push_back(value);
  if (cls->is_subclass_of(classes().str_enum.get())) {
    if (args.size() > 3) I.raise("TypeError", "too many arguments for str(): " + I.repr(make_tuple(args)));
    if (args.size() == 1 && !str_of(args[0])) I.raise("TypeError", I.repr(args[0]) + " is not a string");
  }
  Value member;
  Value* user_new = own(*cls, "__new__");
  if (user_new) {
    Value fn = (*user_new)->kind == ObjKind::StaticMethod ? static_cast<WrapperObj&>(**user_new).fget : *user_new;
    std::vector<Value> new_args{cls};
    new_args.insert(new_args.end(), args.begin(), args.end());
    member = I.call(fn, new_args);
  } else {
    ClassObj* maker = nullptr;
    for (ClassObj* k : member_type->mro)
      if (k != T().object.get() && k->native_new) {
        maker = k;
        break;
      }
    if (maker) {
      CallArgs ca;
      ca.args = args;
      ca.loc = I.current_loc();
      member = maker->native_new(I, cls, ca);
    } else {
      member = std::make_shared<InstanceObj>(cls);
    }
  }
  if (!member || member->kind != ObjKind::Instance || member->cls.get() != cls.get())
    I.raise("TypeError", fmt::format("enum member {} of {} must be an instance of that class, not {}", name,
                                     str_repr(cls->name), I.type_name(member)));
  auto& inst = static_cast<InstanceObj&>(*member);
  if (!inst.dict.find("_value_"))
    inst.dict.set("_value_", member_type.get() == T().object.get() ? value : I.call(member_type, args));
  inst.dict.set("_name_", make_str(name));
  if (Value* init = cls->lookup("__init__"); init && (*init)->kind == ObjKind::Function) {
    std::vector<Value> init_args{member};
    init_args.insert(init_args.end(), args.begin(), args.end());
    I.call(*init, init_args);
  }
  return member;
}

// The member already defined with an equal value, if any (this name is then an alias).
Value find_canonical(Interp& I, const std::vector<Value>& members, const Value& value) {
  for (auto& m : members)
    if (eq_fast(I, member_value(I, m), value)) return m;
  return nullptr;
}

// repr(), str() and format() of members are Enum's unless the class body (or an enum base)
// defines them: the data type's versions (int.__repr__ ...) are replaced, as in CPython.
void use_enum_dunders(const ClassP& cls) {
  ClassObj* first_enum = nullptr;
  for (auto& b : cls->bases)
    if (is_enum_class(b.get())) first_enum = b.get();
  if (!first_enum) return;
  for (const char* name : {"__repr__", "__str__", "__format__"}) {
    if (own(*cls, name)) continue;
    ClassObj* owner = nullptr;
    for (ClassObj* k : cls->mro)
      if (own(*k, name)) {
        owner = k;
        break;
      }
    if (owner && is_enum_class(owner)) continue;
    if (Value* m = first_enum->lookup(name)) cls->dict.set(name, *m);
  }
}

// EnumType's class-creation hook: members from the class body, in definition order.
ClassP create_members(Interp& I, const ClassP& cls) {
  check_extensible(I, cls);
  ClassP member_type = find_member_type(I, cls);
  std::vector<std::string> ignored;
  if (Value* ig = own(*cls, "_ignore_")) {
    if (auto* s = str_of(*ig)) {
      std::string t = s->v;
      for (char& c : t)
        if (c == ',') c = ' ';
      size_t i = 0;
      while (i < t.size()) {
        size_t j = t.find(' ', i);
        if (j == std::string::npos) j = t.size();
        if (j > i) ignored.push_back(t.substr(i, j - i));
        i = j + 1;
      }
    } else {
      for (auto& x : collect(I, *ig))
        if (auto* n = str_of(x)) ignored.push_back(n->v);
    }
    cls->dict.erase("_ignore_");
    for (auto& n : ignored) cls->dict.erase(n);
  }
  std::vector<std::pair<std::string, Value>> candidates;
  for (auto& [name, v] : cls->dict.entries) {
    if (!v || is_dunder(name) || is_sunder(name) || is_private(cls->name, name) || is_descriptor(v)) continue;
    candidates.emplace_back(name, v);
  }

  auto names = make_list({});
  auto map = make_dict();
  auto by_value = make_dict();
  cls->dict.set("_member_names_", names);
  cls->dict.set("_member_map_", map);
  cls->dict.set("_value2member_map_", by_value);
  cls->dict.set("_member_type_", member_type);
  use_enum_dunders(cls);

  std::vector<Value> members, last_values;
  for (auto& [name, raw] : candidates) {
    Value value = raw;
    if (raw->kind == ObjKind::Native && raw->cls->is_subclass_of(classes().auto_.get())) {
      auto& a = static_cast<AutoObj&>(*raw);
      value = a.value ? a.value : next_auto_value(I, cls, name, 1, members.size(), last_values);
    }
    last_values.push_back(value);
    Value member = make_member(I, cls, member_type, name, value);
    if (Value canonical = find_canonical(I, members, member_value(I, member))) {
      member = canonical;
    } else {
      members.push_back(member);
      static_cast<ListObj&>(*names).items.push_back(make_str(name));
      try {
        Value v = member_value(I, member);
        if (!by_value->find(I, v)) by_value->set(I, v, member);
      } catch (PyError& e) {
        if (!exc_is(e, "TypeError")) throw;  // unhashable values are found by a scan
      }
    }
    map->set(I, make_str(name), member);
    cls->dict.set(name, member);
  }
  return cls;
}

// Color(value): the member with that value, else what _missing_ returns, else ValueError.
Value lookup_by_value(Interp& I, const ClassP& cls, const Value& value) {
  if (value->cls.get() == cls.get()) return value;
  if (Value* m = own(*cls, "_value2member_map_"); m && (*m)->kind == ObjKind::Dict) {
    try {
      if (Value* hit = static_cast<DictObj&>(**m).find(I, value)) return *hit;
    } catch (PyError& e) {
      if (!exc_is(e, "TypeError")) throw;
    }
  }
  for (auto& member : members_of(I, *cls))
    if (eq_fast(I, member_value(I, member), value)) return member;
  if (Value* missing = cls->lookup("_missing_")) {
    Value fn = *missing;
    Value r;
    if (fn->kind == ObjKind::ClassMethod) r = I.call(static_cast<WrapperObj&>(*fn).fget, std::vector<Value>{cls, value});
    else if (fn->kind == ObjKind::StaticMethod) r = I.call(static_cast<WrapperObj&>(*fn).fget, std::vector<Value>{value});
    else r = I.call(fn, std::vector<Value>{value});
    if (r && r->cls.get() == cls.get()) return r;
    if (r && r->kind != ObjKind::None)
      I.raise("TypeError", fmt::format("error in {}._missing_: returned {} instead of None or a valid member",
                                       cls->name, I.repr(r)));
  }
  std::string qual = cls->name;
  if (Value* q = own(*cls, "__qualname__"); q && (*q)->kind == ObjKind::Str) qual = static_cast<StrObj&>(**q).v;
  I.raise("ValueError", fmt::format("{} is not a valid {}", I.repr(value), qual));
}

Value enum_call(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "EnumType.__call__", {"cls", "value", "names=", "*", "module=", "qualname=", "type=", "start="});
  self_enum_class(I, a, "__call__");
  ClassP cls = std::static_pointer_cast<ClassObj>(a.args[0]);
  if (!p.has("names") || p.get("names")->kind == ObjKind::None) return lookup_by_value(I, cls, p.get("value"));
  return create_enum(I, cls, p.get("value"), p.get("names"), a);
}

Value make_member_iterator(std::vector<Value> members) {
  static const ClassP iter_cls = iter_class("generator");
  return make_iterator(iter_cls, [members = std::move(members), i = size_t(0)]() mutable -> std::optional<Value> {
    if (i >= members.size()) return std::nullopt;
    return members[i++];
  });
}

}  // namespace

void init_enum_type(const ClassP& meta) {
  meta->native_class_new = create_members;
  def(meta, "__call__", enum_call);
  def(meta, "__getitem__", [](Interp& I, CallArgs& a) -> Value {
    method_nargs(I, a, "__getitem__", 1, 1);
    auto& cls = self_enum_class(I, a, "__getitem__");
    if (DictObj* map = member_map(cls))
      if (Value* m = map->find(I, a.args[1])) return *m;
    raise_key_error(I, a.args[1]);
  });
  // Color.PINK: AttributeError('PINK'), as EnumType.__getattr__ says it.
  def(meta, "__getattr__", [](Interp& I, CallArgs& a) -> Value {
    method_nargs(I, a, "__getattr__", 1, 1);
    auto& cls = self_enum_class(I, a, "__getattr__");
    const std::string& name = str_arg(I, a.args[1], "attribute name");
    if (!is_dunder(name))
      if (DictObj* map = member_map(cls))
        if (Value* m = map->find(I, a.args[1])) return *m;
    I.raise("AttributeError", name);
  });
  def(meta, "__iter__", [](Interp& I, CallArgs& a) {
    return make_member_iterator(members_of(I, self_enum_class(I, a, "__iter__")));
  });
  def(meta, "__reversed__", [](Interp& I, CallArgs& a) {
    auto members = members_of(I, self_enum_class(I, a, "__reversed__"));
    std::reverse(members.begin(), members.end());
    return make_member_iterator(std::move(members));
  });
  def(meta, "__len__", [](Interp& I, CallArgs& a) {
    return make_int(int64_t(member_names(self_enum_class(I, a, "__len__")).size()));
  });
  def(meta, "__bool__", [](Interp&, CallArgs&) { return make_bool(true); });
  def(meta, "__contains__", [](Interp& I, CallArgs& a) -> Value {
    method_nargs(I, a, "__contains__", 1, 1);
    auto& cls = self_enum_class(I, a, "__contains__");
    const Value& x = a.args[1];
    if (!x->cls->is_subclass_of(classes().enum_.get()))
      I.raise("TypeError", fmt::format("unsupported operand type(s) for 'in': '{}' and '{}'", I.type_name(x),
                                       cls.cls->name));
    if (!x->cls->is_subclass_of(&cls)) return make_bool(false);
    DictObj* map = member_map(cls);
    return make_bool(map && map->find(I, member_name(I, x)));
  });
  def(meta, "__repr__", [](Interp& I, CallArgs& a) {
    return make_str(fmt::format("<enum {}>", str_repr(self_enum_class(I, a, "__repr__").name)));
  });
  def_property(meta, "__members__", [](Interp& I, CallArgs& a) -> Value {
    auto copy = make_dict();
    if (DictObj* map = member_map(self_enum_class(I, a, "__members__")))
      for (auto& [k, v] : map->items()) copy->set(I, k, v);
    return copy;
  });
}

Value create_enum(Interp& I, const ClassP& base, const Value& name, const Value& names, const CallArgs& options) {
  std::string cls_name = str_arg(I, name, "enum name");
  std::string module = "__main__";
  if (const Value* m = find_kwarg(options, "module"); m && (*m)->kind != ObjKind::None) module = str_of_value(I, *m);
  std::vector<ClassP> bases;
  if (const Value* t = find_kwarg(options, "type"); t && (*t)->kind == ObjKind::Class)
    bases.push_back(std::static_pointer_cast<ClassObj>(*t));
  bases.push_back(base);
  ClassP cls = make_class(cls_name, bases, module);
  check_extensible(I, cls);
  cls->dict.set("__module__", make_str(module));
  std::string qual = cls_name;
  if (const Value* q = find_kwarg(options, "qualname"); q && (*q)->kind != ObjKind::None) qual = str_of_value(I, *q);
  cls->dict.set("__qualname__", make_str(qual));
  int64_t start = 1;
  if (const Value* s = find_kwarg(options, "start"); s && (*s)->kind != ObjKind::None)
    start = index_of(I, *s, "start must be an integer");

  // 'RED GREEN' / 'RED,GREEN' / ['RED', ...]: auto values from `start`; pairs or a mapping: given.
  std::vector<Value> items;
  if (auto* s = str_of(names)) {
    std::string t = s->v;
    for (char& c : t)
      if (c == ',') c = ' ';
    size_t i = 0;
    while (i < t.size()) {
      size_t j = t.find(' ', i);
      if (j == std::string::npos) j = t.size();
      if (j > i) items.push_back(make_str(t.substr(i, j - i)));
      i = j + 1;
    }
  } else if (auto* d = unwrap<DictObj>(names, ObjKind::Dict)) {
    for (auto& [k, v] : d->items()) items.push_back(make_tuple({k, v}));
  } else {
    items = collect(I, names);
  }
  std::vector<Value> values;
  for (auto& item : items) {
    if (auto* n = str_of(item)) {
      values.push_back(next_auto_value(I, cls, n->v, start, values.size(), values));
      cls->dict.set(n->v, values.back());
      continue;
    }
    auto pair = collect(I, item);
    if (pair.size() != 2 || !str_of(pair[0]))
      I.raise("TypeError", "enum members must be given as names or (name, value) pairs, not " + I.repr(item));
    values.push_back(pair[1]);
    cls->dict.set(str_of(pair[0])->v, pair[1]);
  }
  return create_members(I, cls);
}

}  // namespace shard::interp::bi::enums
