// The `enum` module (see enum_common.hpp): Enum and its members' behaviour (name, value,
// repr <Color.RED: 1>, str Color.RED, hash by name, identity equality), ReprEnum, IntEnum
// and StrEnum (members are ints / strs that print as such), auto(), unique().
#include <fmt/format.h>

#include "interp/builtins/enum_common.hpp"

namespace shard::interp::bi::enums {

namespace {

InstanceObj* member_inst(const Value& v) {
  if (!v || v->kind != ObjKind::Instance || !is_enum_class(v->cls.get())) return nullptr;
  return static_cast<InstanceObj*>(v.get());
}

Value member_field(Interp& I, const Value& v, const char* field) {
  InstanceObj* inst = member_inst(v);
  if (!inst) I.raise("TypeError", fmt::format("expected an enum member, not '{}'", I.type_name(v)));
  Value* f = inst->dict.find(field);
  if (!f || !*f) I.raise("AttributeError", fmt::format("'{}' object has no attribute '{}'", I.type_name(v), field));
  return *f;
}

// The member a method was called on (a TypeError, not a bad cast, for anything else).
const Value& self_member(Interp& I, CallArgs& a, const char* meth) {
  if (a.args.empty() || !member_inst(a.args[0])) bad_self(I, a, "Enum", meth);
  return a.args[0];
}

std::string member_str(Interp& I, const Value& v) {
  return v->cls->name + "." + str_of_value(I, member_name(I, v));
}

// Enum._generate_next_value_: one more than the last value that supports + 1, else start.
Value generate_next_value(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "_generate_next_value_", {"name", "start", "count", "last_values"});
  std::vector<Value> last = collect(I, p.get("last_values"));
  for (size_t i = last.size(); i-- > 0;) {
    try {
      return I.binary_op(ast::BinOpKind::Add, last[i], make_int(1));
    } catch (PyError& e) {
      if (!exc_is(e, "TypeError")) throw;
    }
  }
  return p.get("start");
}

void init_enum_class(const ClassP& e) {
  def(e, "__repr__", [](Interp& I, CallArgs& a) {
    const Value& v = self_member(I, a, "__repr__");
    return make_str(fmt::format("<{}: {}>", member_str(I, v), I.repr(member_value(I, v))));
  });
  def(e, "__str__", [](Interp& I, CallArgs& a) { return make_str(member_str(I, self_member(I, a, "__str__"))); });
  def(e, "__format__", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "__format__", 1, 1);
    return make_str(I.format(make_str(I.str(a.args[0])), str_arg(I, a.args[1], "format() argument 2")));
  });
  def(e, "__hash__", [](Interp& I, CallArgs& a) {
    return make_int(int64_t(I.hash(member_name(I, self_member(I, a, "__hash__")))));
  });
  // Members are singletons: copies are the member itself.
  def(e, "__copy__", [](Interp& I, CallArgs& a) { return self_member(I, a, "__copy__"); });
  def(e, "__deepcopy__", [](Interp& I, CallArgs& a) { return self_member(I, a, "__deepcopy__"); });
  def_property(e, "name", [](Interp& I, CallArgs& a) { return member_name(I, self_member(I, a, "name")); });
  def_property(e, "value", [](Interp& I, CallArgs& a) { return member_value(I, self_member(I, a, "value")); });
  def_staticmethod(e, "_generate_next_value_", generate_next_value);
  def_classmethod(e, "_missing_", [](Interp&, CallArgs&) { return none(); });
}

// A native enum base: an enum class without members whose members are `member_type`s.
ClassP enum_base(const char* name, std::vector<ClassP> bases, const ClassP& member_type) {
  ClassP c = make_class(name, std::move(bases), "enum");
  c->dict.set("_member_names_", make_list({}));
  c->dict.set("_member_map_", make_dict());
  c->dict.set("_value2member_map_", make_dict());
  c->dict.set("_member_type_", member_type);
  return c;
}

// ReprEnum's subclasses print their members as the data type does (str(IntEnum.A) == "1").
void use_data_type_str(const ClassP& c, const ClassP& data, const ClassP& enum_) {
  c->dict.set("__repr__", *enum_->dict.find("__repr__"));
  Value* s = data->dict.find("__str__");
  c->dict.set("__str__", s && *s ? *s : *data->dict.find("__repr__"));
  if (Value* f = data->dict.find("__format__"); f && *f) c->dict.set("__format__", *f);
}

EnumClasses make_classes() {
  EnumClasses k;
  k.type = make_class("EnumType", {T().type}, "enum");
  k.type->instance_kind = ObjKind::Class;
  k.enum_ = enum_base("Enum", {T().object}, T().object);
  k.enum_->cls = k.type;
  init_enum_class(k.enum_);
  init_enum_type(k.type);
  k.repr_enum = enum_base("ReprEnum", {k.enum_}, T().object);
  k.int_enum = enum_base("IntEnum", {T().int_, k.repr_enum}, T().int_);
  use_data_type_str(k.int_enum, T().int_, k.enum_);
  k.str_enum = enum_base("StrEnum", {T().str, k.repr_enum}, T().str);
  use_data_type_str(k.str_enum, T().str, k.enum_);
  def_staticmethod(k.str_enum, "_generate_next_value_", [](Interp& I, CallArgs& a) -> Value {
    ArgParser p(I, a, "_generate_next_value_", {"name", "start", "count", "last_values"});
    auto r = I.call_method(p.get("name"), "lower", {});
    return r ? *r : p.get("name");
  });

  k.auto_ = native_class("auto", nullptr, "enum", ObjKind::Native);
  k.auto_->native_new = [](Interp& I, const ClassP& cls, CallArgs& a) -> Value {
    ArgParser p(I, a, "auto", {"value="});
    auto obj = std::make_shared<AutoObj>(cls);
    if (p.has("value")) obj->value = p.get("value");
    return obj;
  };
  def(k.auto_, "__repr__", [](Interp& I, CallArgs& a) -> Value {
    auto& obj = native_self<AutoObj>(I, a, classes().auto_, "auto", "__repr__");
    return make_str("auto(" + (obj.value ? I.repr(obj.value) : std::string("...")) + ")");
  });
  return k;
}

// @unique: ValueError naming every alias, as "duplicate values found in <enum 'M'>: B -> A".
Value unique(Interp& I, CallArgs& a) {
  func_nargs(I, a, "unique", 1, 1);
  const Value& cls = a.args[0];
  if (cls->kind != ObjKind::Class || !is_enum_class(&static_cast<ClassObj&>(*cls)))
    I.raise("TypeError", "unique() expects an enum class, not " + I.repr(cls));
  std::string aliases;
  if (DictObj* map = member_map(static_cast<ClassObj&>(*cls)))
    for (auto& [name, member] : map->items()) {
      std::string canonical = str_of_value(I, member_name(I, member));
      std::string n = str_of_value(I, name);
      if (n != canonical) aliases += (aliases.empty() ? "" : ", ") + n + " -> " + canonical;
    }
  if (!aliases.empty()) I.raise("ValueError", fmt::format("duplicate values found in {}: {}", I.repr(cls), aliases));
  return cls;
}

void fill_enum(Interp& I, ModuleObj& m) {
  const EnumClasses& k = classes();
  m.dict.set("EnumType", k.type);
  m.dict.set("EnumMeta", k.type);
  m.dict.set("Enum", k.enum_);
  m.dict.set("ReprEnum", k.repr_enum);
  m.dict.set("IntEnum", k.int_enum);
  m.dict.set("StrEnum", k.str_enum);
  m.dict.set("auto", k.auto_);
  m.dict.set("unique", make_builtin("unique", unique));
}

}  // namespace

const EnumClasses& classes() {
  static const EnumClasses k = make_classes();
  return k;
}

bool is_enum_class(const ClassObj* c) { return c && c->is_subclass_of(classes().enum_.get()); }

DictObj* member_map(ClassObj& cls) {
  Value* m = cls.dict.find("_member_map_");
  return m && *m && (*m)->kind == ObjKind::Dict ? static_cast<DictObj*>(m->get()) : nullptr;
}

std::vector<Value> members_of(Interp& I, ClassObj& cls) {
  std::vector<Value> out;
  Value* names = cls.dict.find("_member_names_");
  DictObj* map = member_map(cls);
  if (!names || !*names || (*names)->kind != ObjKind::List || !map) return out;
  for (auto& n : static_cast<ListObj&>(**names).items)
    if (Value* m = map->find(I, n)) out.push_back(*m);
  return out;
}

Value member_name(Interp& I, const Value& v) { return member_field(I, v, "_name_"); }
Value member_value(Interp& I, const Value& v) { return member_field(I, v, "_value_"); }

}  // namespace shard::interp::bi::enums

namespace shard::interp::bi {
void register_enum_module() { Interp::register_builtin_module("enum", enums::fill_enum); }
}  // namespace shard::interp::bi
