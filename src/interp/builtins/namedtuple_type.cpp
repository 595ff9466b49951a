// Named tuples: classes deriving from tuple whose instances are TupleObjs, with a property
// per field, CPython's repr / _asdict / _replace / _make / _fields / _field_defaults.
// Made by collections.namedtuple(name, fields) and by typing.NamedTuple, either called
// (NamedTuple('P', [('x', int)])) or as a base class: its metaclass turns the class body's
// annotations into fields (defaults from their values) and keeps its methods.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "interp/builtins/str_util.hpp"
#include "interp/builtins/support.hpp"

namespace shard::interp::bi {

namespace {

struct NamedTupleInfo {
  std::vector<std::string> fields;
  std::vector<Value> defaults;  // for the last defaults.size() fields
};

bool is_identifier(const std::string& s) {
  if (s.empty()) return false;
  std::u32string u = to_u32(s);
  if (!(cp_is_alpha(u[0]) || u[0] == '_')) return false;
  for (char32_t c : u)
    if (!(cp_is_alpha(c) || cp_is_digit(c) || c == '_')) return false;
  return true;
}

bool is_keyword(const std::string& s) {
  static const std::set<std::string> kw = {"False", "None", "True", "and", "as", "assert", "async", "await",
                                           "break", "class", "continue", "def", "del", "elif", "else", "except",
                                           "finally", "for", "from", "global", "if", "import", "in", "is",
                                           "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
                                           "while", "with", "yield"};
  return kw.count(s) != 0;
}

TupleObj& nt_self(Interp& I, CallArgs& a, const char* meth) {
  return self_as<TupleObj>(I, a, ObjKind::Tuple, "tuple", meth);
}

// Field names as namedtuple() accepts them: "x y", "x, y" or an iterable of strings.
std::vector<std::string> parse_field_names(Interp& I, const Value& spec) {
  std::vector<std::string> fields;
  if (auto* s = str_of(spec)) {
    std::string t = s->v;
    for (char& c : t)
      if (c == ',') c = ' ';
    size_t i = 0;
    while (i < t.size()) {
      while (i < t.size() && cp_is_space(static_cast<unsigned char>(t[i]))) ++i;
      size_t j = i;
      while (j < t.size() && !cp_is_space(static_cast<unsigned char>(t[j]))) ++j;
      if (j > i) fields.push_back(t.substr(i, j - i));
      i = j;
    }
  } else {
    for (auto& f : collect(I, spec)) fields.push_back(str_of_value(I, f));
  }
  return fields;
}

void check_names(Interp& I, const std::string& tname, std::vector<std::string>& fields, bool rename) {
  std::set<std::string> seen;
  for (size_t i = 0; i < fields.size(); ++i) {
    std::string& f = fields[i];
    if (rename && (!is_identifier(f) || is_keyword(f) || f[0] == '_' || seen.count(f))) f = "_" + std::to_string(i);
    seen.insert(f);
  }
  auto check_name = [&](const std::string& n) {
    if (!is_identifier(n))
      I.raise("ValueError", fmt::format("Type names and field names must be valid identifiers: {}", str_repr(n)));
    if (is_keyword(n))
      I.raise("ValueError", fmt::format("Type names and field names cannot be a keyword: {}", str_repr(n)));
  };
  check_name(tname);
  for (auto& f : fields) check_name(f);
  std::set<std::string> dup;
  for (auto& f : fields) {
    if (f[0] == '_' && !rename)
      I.raise("ValueError", fmt::format("Field names cannot start with an underscore: {}", str_repr(f)));
    if (dup.count(f)) I.raise("ValueError", fmt::format("Encountered duplicate field name: {}", str_repr(f)));
    dup.insert(f);
  }
}

void add_methods(const ClassP& cls, const std::shared_ptr<NamedTupleInfo>& info) {
  for (size_t i = 0; i < info->fields.size(); ++i) {
    def_property(
        cls, info->fields[i], [i](Interp& I, CallArgs& a) { return nt_self(I, a, "field").items.at(i); },
        [](Interp& I, CallArgs&) -> Value { I.raise("AttributeError", "can't set attribute"); });
  }
  def(cls, "__repr__", [info](Interp& I, CallArgs& a) {
    auto& t = nt_self(I, a, "__repr__");
    ReprGuard guard(I, &t);
    if (guard.active()) return make_str("...");
    std::string out = a.args[0]->cls->name + "(";
    for (size_t i = 0; i < t.items.size() && i < info->fields.size(); ++i) {
      if (i) out += ", ";
      out += info->fields[i] + "=" + repr_of(I, t.items[i]);
    }
    return make_str(out + ")");
  });
  def(cls, "_asdict", [info](Interp& I, CallArgs& a) -> Value {
    auto& t = nt_self(I, a, "_asdict");
    auto d = make_dict();
    for (size_t i = 0; i < t.items.size() && i < info->fields.size(); ++i) d->set(I, make_str(info->fields[i]), t.items[i]);
    return d;
  });
  def(cls, "_replace", [info](Interp& I, CallArgs& a) -> Value {
    auto& t = nt_self(I, a, "_replace");
    if (a.args.size() != 1)
      I.raise("TypeError", fmt::format("{}._replace() takes 1 positional argument but {} were given",
                                       a.args.empty() ? "namedtuple" : I.type_name(a.args[0]), a.args.size()));
    std::vector<Value> items = t.items;
    std::vector<Value> unexpected;
    for (auto& [k, v] : a.kwargs) {
      auto it = std::find(info->fields.begin(), info->fields.end(), k);
      if (it == info->fields.end()) unexpected.push_back(make_str(k));
      else if (size_t(it - info->fields.begin()) < items.size()) items[size_t(it - info->fields.begin())] = v;
    }
    if (!unexpected.empty()) I.raise("ValueError", "Got unexpected field names: " + I.repr(make_list(unexpected)));
    return I.call(Value(a.args[0]->cls), items);
  });
  def_classmethod(cls, "_make", [info](Interp& I, CallArgs& a) {
    method_nargs(I, a, "_make", 1, 1);
    std::vector<Value> items = collect(I, a.args[1]);
    if (items.size() != info->fields.size())
      I.raise("TypeError", fmt::format("Expected {} arguments, got {}", info->fields.size(), items.size()));
    return I.call(a.args[0], items);
  });
  def(cls, "__getnewargs__", [](Interp& I, CallArgs& a) { return make_tuple(nt_self(I, a, "__getnewargs__").items); });
}

// The class: a tuple subclass built natively (instances are TupleObjs of this class).
ClassP make_namedtuple_class(Interp& I, const std::string& tname, std::vector<std::string> fields,
                             std::vector<Value> defaults, const std::string& module) {
  auto info = std::make_shared<NamedTupleInfo>();
  info->fields = std::move(fields);
  info->defaults = std::move(defaults);
  if (info->defaults.size() > info->fields.size()) I.raise("TypeError", "Got more default values than field names");
  ClassP cls = native_class(tname, T().tuple, module, ObjKind::Tuple);
  std::weak_ptr<ClassObj> weak = cls;
  cls->native_new = [info, weak, tname](Interp& I, const ClassP& c, CallArgs& a) -> Value {
    std::vector<std::string> sig{"_cls"};
    size_t nd = info->defaults.size(), nf = info->fields.size();
    for (size_t i = 0; i < nf; ++i) sig.push_back(info->fields[i] + (i >= nf - nd ? "=" : ""));
    CallArgs b;
    b.args.reserve(a.args.size() + 1);
    b.args.push_back(none());
    b.args.insert(b.args.end(), a.args.begin(), a.args.end());
    b.kwargs = a.kwargs;
    ArgParser p(I, b, tname + ".__new__", sig);
    std::vector<Value> items;
    for (size_t i = 0; i < nf; ++i) {
      Value v = p.get(info->fields[i]);
      items.push_back(v ? v : info->defaults[i - (nf - nd)]);
    }
    ClassP self_cls = weak.lock();
    auto t = std::make_shared<TupleObj>(self_cls, std::move(items));
    if (c.get() == self_cls.get()) return t;
    return wrap_for_class(c, t);
  };
  std::vector<Value> field_strs;
  for (auto& f : info->fields) field_strs.push_back(make_str(f));
  cls->dict.set("_fields", make_tuple(field_strs));
  cls->dict.set("__match_args__", make_tuple(field_strs));
  auto fd = make_dict();
  for (size_t i = 0; i < info->defaults.size(); ++i)
    fd->set(I, field_strs[info->fields.size() - info->defaults.size() + i], info->defaults[i]);
  cls->dict.set("_field_defaults", fd);
  add_methods(cls, info);
  return cls;
}

Value namedtuple(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "namedtuple", {"typename", "field_names", "*", "rename=", "defaults=", "module="});
  std::string tname = str_arg(I, p.get("typename"), "namedtuple() typename");
  std::vector<std::string> fields = parse_field_names(I, p.get("field_names"));
  check_names(I, tname, fields, p.has("rename") && I.truthy(p.get("rename")));
  std::vector<Value> defaults;
  if (p.has("defaults") && p.get("defaults")->kind != ObjKind::None) defaults = collect(I, p.get("defaults"));
  std::string module = "__main__";
  if (p.has("module") && p.get("module")->kind != ObjKind::None) module = str_of_value(I, p.get("module"));
  return make_namedtuple_class(I, tname, std::move(fields), std::move(defaults), module);
}

// ---- typing.NamedTuple ----

// class P(NamedTuple): the fields are the body's annotated names, in order; a name the body
// also assigns has that default. The namedtuple class replaces the class and receives the
// rest of the body (methods, docstring), as CPython's NamedTupleMeta does.
ClassP namedtuple_from_class(Interp& I, const ClassP& cls) {
  std::vector<std::string> fields, default_names;
  std::vector<Value> defaults;
  Value annotations = make_dict();
  if (Value* ann = cls->dict.find("__annotations__"); ann && *ann && (*ann)->kind == ObjKind::Dict) annotations = *ann;
  for (auto& [k, type] : static_cast<DictObj&>(*annotations).items()) {
    std::string name = str_arg(I, k, "field name");
    if (Value* d = cls->dict.find(name); d && *d) {
      default_names.push_back(name);
      defaults.push_back(*d);
    } else if (!default_names.empty()) {
      std::string names;
      for (auto& n : default_names) names += (names.empty() ? "" : ", ") + n;
      I.raise("TypeError", fmt::format("Non-default namedtuple field {} cannot follow default field{} {}", name,
                                       default_names.size() > 1 ? "s" : "", names));
    }
    fields.push_back(name);
  }
  check_names(I, cls->name, fields, false);
  ClassP nt = make_namedtuple_class(I, cls->name, fields, std::move(defaults), cls->module);
  nt->dict.set("__annotations__", annotations);
  static const std::set<std::string> prohibited = {"__new__",  "__init__", "__slots__", "__getnewargs__",
                                                   "_fields",  "_field_defaults", "_make", "_replace",
                                                   "_asdict",  "_source"};
  // __qualname__ stays out: classes with one are user classes, whose natives would not bind.
  static const std::set<std::string> special = {"__module__", "__name__", "__annotations__", "__qualname__"};
  for (auto& [key, v] : cls->dict.entries) {
    if (!v) continue;
    if (prohibited.count(key)) I.raise("AttributeError", "Cannot overwrite NamedTuple attribute " + key);
    if (special.count(key) || std::find(fields.begin(), fields.end(), key) != fields.end()) continue;
    nt->dict.set(key, v);
  }
  return nt;
}

struct TypingNamedTuple {
  ClassP meta, base;
};

const TypingNamedTuple& typing_namedtuple() {
  static const TypingNamedTuple k = [] {
    TypingNamedTuple t;
    t.meta = make_class("NamedTupleMeta", {T().type}, "typing");
    t.meta->instance_kind = ObjKind::Class;
    t.meta->native_class_new = namedtuple_from_class;
    t.base = make_class("NamedTuple", {T().object}, "typing");
    t.base->cls = t.meta;
    // NamedTuple('P', [('x', int), ('y', int)])
    t.base->native_new = [](Interp& I, const ClassP&, CallArgs& a) -> Value {
      ArgParser p(I, a, "NamedTuple", {"typename", "fields="});
      std::string tname = str_arg(I, p.get("typename"), "NamedTuple() typename");
      std::vector<std::string> fields;
      auto annotations = make_dict();
      if (p.has("fields") && p.get("fields")->kind != ObjKind::None) {
        for (auto& pair : collect(I, p.get("fields"))) {
          auto parts = collect(I, pair);
          if (parts.size() != 2) I.raise("TypeError", "NamedTuple fields must be (name, type) pairs");
          fields.push_back(str_arg(I, parts[0], "field name"));
          annotations->set(I, parts[0], parts[1]);
        }
      }
      check_names(I, tname, fields, false);
      ClassP nt = make_namedtuple_class(I, tname, std::move(fields), {}, "__main__");
      nt->dict.set("__annotations__", annotations);
      return nt;
    };
    return t;
  }();
  return k;
}

}  // namespace

void init_namedtuple(ModuleObj& m) { m.dict.set("namedtuple", make_builtin("namedtuple", namedtuple)); }

void init_typing_namedtuple(ModuleObj& m) { m.dict.set("NamedTuple", typing_namedtuple().base); }

}  // namespace shard::interp::bi
