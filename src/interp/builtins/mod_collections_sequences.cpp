// The sequence types of the `collections` module (mod_collections.cpp): namedtuple (classes
// deriving from tuple whose instances are TupleObjs) and deque (a ListObj with an optional
// maxlen).
#include <fmt/format.h>

#include <set>

#include "interp/builtins/seq_common.hpp"
#include "interp/builtins/str_util.hpp"

namespace shard::interp::bi {

namespace {

// ---- namedtuple ----

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

Value namedtuple(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "namedtuple", {"typename", "field_names", "*", "rename=", "defaults=", "module="});
  std::string tname = str_arg(I, p.get("typename"), "namedtuple() typename");
  std::vector<std::string> fields;
  if (auto* s = str_of(p.get("field_names"))) {
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
    for (auto& f : collect(I, p.get("field_names"))) fields.push_back(str_of_value(I, f));
  }
  bool rename = p.has("rename") && I.truthy(p.get("rename"));
  std::set<std::string> seen;
  for (size_t i = 0; i < fields.size(); ++i) {
    std::string& f = fields[i];
    if (rename && (!is_identifier(f) || is_keyword(f) || f[0] == '_' || seen.count(f))) f = "_" + std::to_string(i);
    seen.insert(f);
  }
  for (const std::string& n : std::vector<std::string>{tname}) {
    if (!is_identifier(n) || is_keyword(n))
      I.raise("ValueError", fmt::format("Type names and field names must be valid identifiers: {}", str_repr(n)));
  }
  std::set<std::string> dup;
  for (auto& f : fields) {
    if (!is_identifier(f) || is_keyword(f))
      I.raise("ValueError", fmt::format("Type names and field names must be valid identifiers: {}", str_repr(f)));
    if (f[0] == '_' && !rename)
      I.raise("ValueError", fmt::format("Field names cannot start with an underscore: {}", str_repr(f)));
    if (dup.count(f)) I.raise("ValueError", fmt::format("Encountered duplicate field name: {}", str_repr(f)));
    dup.insert(f);
  }
  auto info = std::make_shared<NamedTupleInfo>();
  info->fields = fields;
  if (p.has("defaults") && p.get("defaults")->kind != ObjKind::None) {
    info->defaults = collect(I, p.get("defaults"));
    if (info->defaults.size() > fields.size()) I.raise("TypeError", "Got more default values than field names");
  }
  std::string module = "__main__";
  if (p.has("module") && p.get("module")->kind != ObjKind::None) module = str_of_value(I, p.get("module"));
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
    ClassP own = weak.lock();
    auto t = std::make_shared<TupleObj>(own, std::move(items));
    if (c.get() == own.get()) return t;
    return wrap_for_class(c, t);
  };
  std::vector<Value> field_strs;
  for (auto& f : fields) field_strs.push_back(make_str(f));
  cls->dict.set("_fields", make_tuple(field_strs));
  cls->dict.set("__match_args__", make_tuple(field_strs));
  auto fd = make_dict();
  for (size_t i = 0; i < info->defaults.size(); ++i)
    fd->set(I, field_strs[fields.size() - info->defaults.size() + i], info->defaults[i]);
  cls->dict.set("_field_defaults", fd);
  for (size_t i = 0; i < fields.size(); ++i) {
    def_property(cls, fields[i], [i](Interp& I, CallArgs& a) { return nt_self(I, a, "field").items.at(i); });
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
    std::vector<Value> items = t.items;
    for (auto& [k, v] : a.kwargs) {
      auto it = std::find(info->fields.begin(), info->fields.end(), k);
      if (it == info->fields.end()) I.raise("ValueError", fmt::format("Got unexpected field names: ['{}']", k));
      items[size_t(it - info->fields.begin())] = v;
    }
    Value cls_v = a.args[0]->cls;
    return I.call(cls_v, items);
  });
  def_classmethod(cls, "_make", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "_make", 1, 1);
    return I.call(a.args[0], collect(I, a.args[1]));
  });
  def(cls, "__getnewargs__", [](Interp& I, CallArgs& a) { return make_tuple(nt_self(I, a, "__getnewargs__").items); });
  return cls;
}

// ---- deque ----

ClassP g_deque;

struct DequeObj : ListObj {
  int64_t maxlen = -1;
  explicit DequeObj(ClassP c) : ListObj(std::move(c), {}) {}
};

DequeObj& self_deque(Interp& I, CallArgs& a, const char* meth) {
  auto* l = a.args.empty() ? nullptr : unwrap<ListObj>(a.args[0], ObjKind::List);
  if (!l || !l->cls->is_subclass_of(g_deque.get())) bad_self(I, a, "collections.deque", meth);
  return static_cast<DequeObj&>(*l);
}

void push_back(DequeObj& d, Value v) {
  if (d.maxlen == 0) return;
  d.items.push_back(std::move(v));
  if (d.maxlen > 0 && int64_t(d.items.size()) > d.maxlen) d.items.erase(d.items.begin());
}

void push_front(DequeObj& d, Value v) {
  if (d.maxlen == 0) return;
  d.items.insert(d.items.begin(), std::move(v));
  if (d.maxlen > 0 && int64_t(d.items.size()) > d.maxlen) d.items.pop_back();
}

Value deque_new(Interp& I, const ClassP& cls, CallArgs& a) {
  ArgParser p(I, a, "deque", {"iterable=", "maxlen="});
  auto d = std::make_shared<DequeObj>(g_deque);
  if (p.has("maxlen") && p.get("maxlen")->kind != ObjKind::None) {
    d->maxlen = index_of(I, p.get("maxlen"), "an integer is required");
    if (d->maxlen < 0) I.raise("ValueError", "maxlen must be non-negative");
  }
  if (p.has("iterable"))
    for (auto& x : collect(I, p.get("iterable"))) push_back(*d, x);
  if (cls.get() != g_deque.get()) return wrap_for_class(cls, d);
  return d;
}

void init_deque_class() {
  g_deque = native_class("deque", nullptr, "collections", ObjKind::List);
  g_deque->native_new = deque_new;
  def(g_deque, "__init__", [](Interp&, CallArgs&) { return none(); });
  for (const char* n : {"__len__", "__getitem__", "__setitem__", "__delitem__", "__iter__", "__reversed__",
                        "__contains__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "count", "index",
                        "remove", "reverse", "clear"})
    if (Value* v = T().list->dict.find(n)) g_deque->dict.set(n, *v);
  g_deque->dict.set("__hash__", none());
  def(g_deque, "append", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "deque.append", 1, 1);
    push_back(self_deque(I, a, "append"), a.args[1]);
    return none();
  });
  def(g_deque, "appendleft", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "deque.appendleft", 1, 1);
    push_front(self_deque(I, a, "appendleft"), a.args[1]);
    return none();
  });
  def(g_deque, "extend", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "deque.extend", 1, 1);
    auto& d = self_deque(I, a, "extend");
    for (auto& x : collect(I, a.args[1])) push_back(d, x);
    return none();
  });
  def(g_deque, "extendleft", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "deque.extendleft", 1, 1);
    auto& d = self_deque(I, a, "extendleft");
    for (auto& x : collect(I, a.args[1])) push_front(d, x);
    return none();
  });
  def(g_deque, "pop", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "deque.pop", 0, 0);
    auto& d = self_deque(I, a, "pop");
    if (d.items.empty()) I.raise("IndexError", "pop from an empty deque");
    Value v = d.items.back();
    d.items.pop_back();
    return v;
  });
  def(g_deque, "popleft", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "deque.popleft", 0, 0);
    auto& d = self_deque(I, a, "popleft");
    if (d.items.empty()) I.raise("IndexError", "pop from an empty deque");
    Value v = d.items.front();
    d.items.erase(d.items.begin());
    return v;
  });
  def(g_deque, "insert", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "deque.insert", 2, 2);
    auto& d = self_deque(I, a, "insert");
    if (d.maxlen >= 0 && int64_t(d.items.size()) >= d.maxlen) I.raise("IndexError", "deque already at its maximum size");
    int64_t n = int64_t(d.items.size()), i = index_of(I, a.args[1], "");
    if (i < 0) i = std::max<int64_t>(0, i + n);
    d.items.insert(d.items.begin() + std::min(i, n), a.args[2]);
    return none();
  });
  def(g_deque, "rotate", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "deque.rotate", 0, 1);
    auto& d = self_deque(I, a, "rotate");
    int64_t n = a.args.size() > 1 ? index_of(I, a.args[1], "") : 1;
    int64_t len = int64_t(d.items.size());
    if (len == 0) return none();
    n = ((n % len) + len) % len;
    std::rotate(d.items.begin(), d.items.begin() + (len - n), d.items.end());
    return none();
  });
  def(g_deque, "copy", [](Interp& I, CallArgs& a) -> Value {
    auto& d = self_deque(I, a, "copy");
    auto r = std::make_shared<DequeObj>(g_deque);
    r->maxlen = d.maxlen;
    r->items = d.items;
    return r;
  });
  def_property(g_deque, "maxlen", [](Interp& I, CallArgs& a) {
    auto& d = self_deque(I, a, "maxlen");
    return d.maxlen < 0 ? none() : make_int(d.maxlen);
  });
  def(g_deque, "__repr__", [](Interp& I, CallArgs& a) {
    auto& d = self_deque(I, a, "__repr__");
    std::string body = seq_repr(I, &d, d.items, '[', ']');
    if (d.maxlen >= 0) return make_str(fmt::format("{}({}, maxlen={})", a.args[0]->cls->name, body, d.maxlen));
    return make_str(fmt::format("{}({})", a.args[0]->cls->name, body));
  });
}

}  // namespace

void init_namedtuple(ModuleObj& m) { m.dict.set("namedtuple", make_builtin("namedtuple", namedtuple)); }

void init_deque(ModuleObj& m) {
  if (!g_deque) init_deque_class();
  m.dict.set("deque", g_deque);
}

}  // namespace shard::interp::bi
