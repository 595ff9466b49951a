// The `collections` module and its dict subclasses OrderedDict, defaultdict and Counter
// (whose instances are DictObjs). Its sequence types are in namedtuple_type.cpp and
// deque_type.cpp.
#include <fmt/format.h>

#include "interp/builtins/dict_common.hpp"
#include "interp/builtins/seq_common.hpp"

namespace shard::interp::bi {

namespace {

ClassP g_odict, g_ddict, g_counter;

struct DefaultDictObj : DictObj {
  Value factory;
  explicit DefaultDictObj(ClassP c) : DictObj(std::move(c)) {}
};

std::string type_name_of(const Value& v) { return v->cls->name; }

// ---- OrderedDict ----

Value odict_new(Interp& I, const ClassP& cls, CallArgs& a) {
  auto d = std::make_shared<DictObj>(g_odict);
  bool exact = cls.get() == g_odict.get();
  if (!exact && user_init(cls)) return wrap_for_class(cls, d);
  dict_from_args(I, d, a, 0, "OrderedDict");
  return exact ? Value(d) : wrap_for_class(cls, d);
}

std::string items_list_repr(Interp& I, DictObj& d) {
  std::string out = "[";
  bool first = true;
  for (auto& [k, v] : d.items()) {
    if (!first) out += ", ";
    first = false;
    out += "(" + repr_of(I, k) + ", " + repr_of(I, v) + ")";
  }
  return out + "]";
}

void init_odict() {
  g_odict = native_class("OrderedDict", T().dict, "collections", ObjKind::Dict);
  g_odict->native_new = odict_new;
  def(g_odict, "__repr__", [](Interp& I, CallArgs& a) {
    auto& d = self_dict(I, a, "__repr__");
    ReprGuard guard(I, &d);
    if (guard.active()) return make_str("...");
    if (d.live == 0) return make_str(type_name_of(a.args[0]) + "()");
    return make_str(type_name_of(a.args[0]) + "(" + items_list_repr(I, d) + ")");
  });
  for (auto [name, ne] : {std::pair{"__eq__", false}, std::pair{"__ne__", true}}) {
    def(g_odict, name, [name, ne](Interp& I, CallArgs& a) -> Value {
      method_nargs(I, a, name, 1, 1);
      auto& d = self_dict(I, a, name);
      auto* o = unwrap<DictObj>(a.args[1], ObjKind::Dict);
      if (!o) return not_implemented();
      bool eq = dict_equal(I, d, *o);
      if (eq && a.args[1]->cls->is_subclass_of(g_odict.get())) {
        auto x = d.items(), y = o->items();
        for (size_t i = 0; i < x.size() && eq; ++i) eq = eq_fast(I, x[i].first, y[i].first);
      }
      return make_bool(eq != ne);
    });
  }
  def(g_odict, "move_to_end", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "move_to_end", {"$self", "key", "last="});
    auto& d = self_dict(I, a, "move_to_end");
    Value key = p.get("key");
    bool last = !p.has("last") || I.truthy(p.get("last"));
    Value* v = d.find(I, key);
    if (!v) raise_key_error(I, key);
    Value val = *v;
    Value k;
    for (auto& e : d.entries)
      if (e.first && eq_fast(I, e.first, key)) k = e.first;
    d.erase(I, key);
    if (last) {
      d.set(I, k, val);
    } else {
      auto items = d.items();
      d.entries.clear();
      d.index.clear();
      d.live = 0;
      d.set(I, k, val);
      for (auto& [kk, vv] : items) d.set(I, kk, vv);
    }
    return none();
  });
  def(g_odict, "popitem", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "popitem", {"$self", "last="});
    auto& d = self_dict(I, a, "popitem");
    bool last = !p.has("last") || I.truthy(p.get("last"));
    if (d.live == 0) I.raise("KeyError", "dictionary is empty");
    auto items = d.items();
    auto kv = last ? items.back() : items.front();
    d.erase(I, kv.first);
    return make_tuple({kv.first, kv.second});
  });
  def(g_odict, "copy", [](Interp& I, CallArgs& a) -> Value {
    auto& d = self_dict(I, a, "copy");
    auto r = std::make_shared<DictObj>(g_odict);
    for (auto& [k, v] : d.items()) r->set(I, k, v);
    return r;
  });
}

// ---- defaultdict ----

DefaultDictObj* as_ddict(const Value& v) {
  auto* d = unwrap<DictObj>(v, ObjKind::Dict);
  if (!d || !d->cls->is_subclass_of(g_ddict.get())) return nullptr;
  return static_cast<DefaultDictObj*>(d);
}

DefaultDictObj& self_ddict(Interp& I, CallArgs& a, const char* meth) {
  DefaultDictObj* d = a.args.empty() ? nullptr : as_ddict(a.args[0]);
  if (!d) bad_self(I, a, "collections.defaultdict", meth);
  return *d;
}

Value ddict_new(Interp& I, const ClassP& cls, CallArgs& a) {
  auto d = std::make_shared<DefaultDictObj>(g_ddict);
  d->factory = none();
  bool exact = cls.get() == g_ddict.get();
  if (!exact && user_init(cls)) return wrap_for_class(cls, d);
  if (!a.args.empty()) {
    const Value& f = a.args[0];
    bool callable = f->kind == ObjKind::None || f->kind == ObjKind::Function || f->kind == ObjKind::Builtin ||
                    f->kind == ObjKind::Class || f->kind == ObjKind::BoundMethod || f->cls->lookup("__call__");
    if (!callable) I.raise("TypeError", "first argument must be callable or None");
    d->factory = f;
  }
  dict_from_args(I, d, a, 1, "defaultdict");
  return exact ? Value(d) : wrap_for_class(cls, d);
}

void init_ddict() {
  g_ddict = native_class("defaultdict", T().dict, "collections", ObjKind::Dict);
  g_ddict->native_new = ddict_new;
  def(g_ddict, "__init__", [](Interp& I, CallArgs& a) {
    auto& d = self_ddict(I, a, "__init__");
    if (a.args.size() > 1) d.factory = a.args[1];
    CallArgs b = args_after(a, 2);  // after self and the factory
    auto tmp = make_dict();
    dict_from_args(I, tmp, b, 0, "defaultdict");
    for (auto& [k, v] : tmp->items()) d.set(I, k, v);
    return none();
  });
  def(g_ddict, "__missing__", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "__missing__", 1, 1);
    auto& d = self_ddict(I, a, "__missing__");
    if (!d.factory || d.factory->kind == ObjKind::None) raise_key_error(I, a.args[1]);
    Value v = I.call(d.factory, std::vector<Value>{});
    I.setitem(a.args[0], a.args[1], v);
    return v;
  });
  def(g_ddict, "__repr__", [](Interp& I, CallArgs& a) {
    auto& d = self_ddict(I, a, "__repr__");
    ReprGuard guard(I, &d);
    if (guard.active()) return make_str("...");
    std::string f = d.factory ? repr_of(I, d.factory) : "None";
    return make_str(fmt::format("{}({}, {})", type_name_of(a.args[0]), f, dict_repr(I, nullptr, d)));
  });
  def_property(g_ddict, "default_factory",
               [](Interp& I, CallArgs& a) -> Value {
                 auto& d = self_ddict(I, a, "default_factory");
                 return d.factory ? d.factory : none();
               },
               [](Interp& I, CallArgs& a) {
                 self_ddict(I, a, "default_factory").factory = a.args.at(1);
                 return none();
               });
  def(g_ddict, "copy", [](Interp& I, CallArgs& a) -> Value {
    auto& d = self_ddict(I, a, "copy");
    auto r = std::make_shared<DefaultDictObj>(g_ddict);
    r->factory = d.factory;
    for (auto& [k, v] : d.items()) r->set(I, k, v);
    return r;
  });
}

// ---- Counter ----

void counter_add(Interp& I, DictObj& d, const Value& src, int sign) {
  auto bump = [&](const Value& k, const Value& n) {
    Value* cur = d.find(I, k);
    Value base = cur ? *cur : make_int(0);
    Value delta = n;
    if (sign < 0) delta = I.unary_op(ast::UnaryOpKind::Neg, n);
    d.set(I, k, I.binary_op(ast::BinOpKind::Add, base, delta));
  };
  if (auto* sd = unwrap<DictObj>(src, ObjKind::Dict)) {
    for (auto& [k, v] : sd->items()) bump(k, v);
    return;
  }
  for (auto& x : collect(I, src)) bump(x, make_int(1));
}

std::vector<std::pair<Value, Value>> most_common(Interp& I, DictObj& d) {
  auto items = d.items();
  std::vector<Value> rows, keys;
  for (auto& [k, v] : items) {
    rows.push_back(make_tuple({k, v}));
    keys.push_back(v);
  }
  stable_sort(I, rows, &keys, true);
  std::vector<std::pair<Value, Value>> out;
  for (auto& r : rows) {
    auto& t = static_cast<TupleObj&>(*r);
    out.emplace_back(t.items[0], t.items[1]);
  }
  return out;
}

Value counter_new(Interp& I, const ClassP& cls, CallArgs& a) {
  auto d = std::make_shared<DictObj>(g_counter);
  bool exact = cls.get() == g_counter.get();
  if (!exact && user_init(cls)) return wrap_for_class(cls, d);
  if (a.args.size() > 1) I.raise("TypeError", fmt::format("expected at most 1 argument, got {}", a.args.size()));
  if (!a.args.empty()) counter_add(I, *d, a.args[0], 1);
  for (auto& [k, v] : a.kwargs) counter_add(I, *d, [&] {
      auto m = make_dict();
      m->set(I, make_str(k), v);
      return Value(m);
    }(), 1);
  return exact ? Value(d) : wrap_for_class(cls, d);
}

Value counter_binop(Interp& I, CallArgs& a, int kind) {
  method_nargs(I, a, "Counter op", 1, 1);
  auto& x = self_dict(I, a, "__add__");
  auto* y = unwrap<DictObj>(a.args[1], ObjKind::Dict);
  if (!y || !a.args[1]->cls->is_subclass_of(g_counter.get())) return not_implemented();
  auto r = std::make_shared<DictObj>(g_counter);
  auto get = [&](DictObj& d, const Value& k) -> Value {
    Value* v = d.find(I, k);
    return v ? *v : make_int(0);
  };
  std::vector<Value> keys;
  for (auto& [k, v] : x.items()) keys.push_back(k);
  for (auto& [k, v] : y->items())
    if (!x.find(I, k)) keys.push_back(k);
  for (auto& k : keys) {
    Value p = get(x, k), q = get(*y, k), n;
    switch (kind) {
      case 0: n = I.binary_op(ast::BinOpKind::Add, p, q); break;
      case 1: n = I.binary_op(ast::BinOpKind::Sub, p, q); break;
      case 2: n = lt_fast(I, p, q) ? q : p; break;
      default: n = lt_fast(I, p, q) ? p : q; break;
    }
    if (lt_fast(I, make_int(0), n)) r->set(I, k, n);
  }
  return r;
}

void init_counter() {
  g_counter = native_class("Counter", T().dict, "collections", ObjKind::Dict);
  g_counter->native_new = counter_new;
  def(g_counter, "__init__", [](Interp& I, CallArgs& a) {
    auto& d = self_dict(I, a, "__init__");
    if (a.args.size() > 1) counter_add(I, d, a.args[1], 1);
    for (auto& [k, v] : a.kwargs) d.set(I, make_str(k), v);
    return none();
  });
  def(g_counter, "__missing__", [](Interp&, CallArgs&) { return make_int(0); });
  def(g_counter, "__repr__", [](Interp& I, CallArgs& a) {
    auto& d = self_dict(I, a, "__repr__");
    if (d.live == 0) return make_str(type_name_of(a.args[0]) + "()");
    ReprGuard guard(I, &d);
    if (guard.active()) return make_str("...");
    std::string out = type_name_of(a.args[0]) + "({";
    bool first = true;
    for (auto& [k, v] : most_common(I, d)) {
      if (!first) out += ", ";
      first = false;
      out += repr_of(I, k) + ": " + repr_of(I, v);
    }
    return make_str(out + "})");
  });
  def(g_counter, "most_common", [](Interp& I, CallArgs& a) {
    method_nargs(I, a, "most_common", 0, 1);
    auto& d = self_dict(I, a, "most_common");
    auto mc = most_common(I, d);
    size_t n = mc.size();
    if (a.args.size() > 1 && a.args[1]->kind != ObjKind::None)
      n = size_t(std::clamp<int64_t>(index_of(I, a.args[1], ""), 0, int64_t(mc.size())));
    std::vector<Value> out;
    for (size_t i = 0; i < n; ++i) out.push_back(make_tuple({mc[i].first, mc[i].second}));
    return make_list(std::move(out));
  });
  def(g_counter, "update", [](Interp& I, CallArgs& a) {
    auto& d = self_dict(I, a, "update");
    if (a.args.size() > 1) counter_add(I, d, a.args[1], 1);
    for (auto& [k, v] : a.kwargs) {
      auto m = make_dict();
      m->set(I, make_str(k), v);
      counter_add(I, d, m, 1);
    }
    return none();
  });
  def(g_counter, "subtract", [](Interp& I, CallArgs& a) {
    auto& d = self_dict(I, a, "subtract");
    if (a.args.size() > 1) counter_add(I, d, a.args[1], -1);
    return none();
  });
  def(g_counter, "total", [](Interp& I, CallArgs& a) {
    auto& d = self_dict(I, a, "total");
    Value acc = make_int(0);
    for (auto& [k, v] : d.items()) acc = I.binary_op(ast::BinOpKind::Add, acc, v);
    return acc;
  });
  def(g_counter, "elements", [](Interp& I, CallArgs& a) {
    auto& d = self_dict(I, a, "elements");
    std::vector<Value> out;
    for (auto& [k, v] : d.items()) {
      auto n = int_of(v);
      if (n) check_alloc(I, int64_t(out.size()) + *n);
      for (int64_t i = 0; n && i < *n; ++i) out.push_back(k);
    }
    size_t i = 0;
    return make_iterator(nullptr, [out, i]() mutable -> std::optional<Value> {
      if (i >= out.size()) return std::nullopt;
      return out[i++];
    });
  });
  def(g_counter, "copy", [](Interp& I, CallArgs& a) -> Value {
    auto& d = self_dict(I, a, "copy");
    auto r = std::make_shared<DictObj>(g_counter);
    for (auto& [k, v] : d.items()) r->set(I, k, v);
    return r;
  });
  def(g_counter, "__add__", [](Interp& I, CallArgs& a) { return counter_binop(I, a, 0); });
  def(g_counter, "__sub__", [](Interp& I, CallArgs& a) { return counter_binop(I, a, 1); });
  def(g_counter, "__or__", [](Interp& I, CallArgs& a) { return counter_binop(I, a, 2); });
  def(g_counter, "__and__", [](Interp& I, CallArgs& a) { return counter_binop(I, a, 3); });
}

}  // namespace

void init_namedtuple(ModuleObj& m);  // namedtuple_type.cpp
void init_deque(ModuleObj& m);       // deque_type.cpp

namespace {
void fill_collections(Interp& I, ModuleObj& m) {
  if (!g_odict) {
    init_odict();
    init_ddict();
    init_counter();
  }
  m.dict.set("OrderedDict", g_odict);
  m.dict.set("defaultdict", g_ddict);
  m.dict.set("Counter", g_counter);
  init_namedtuple(m);
  init_deque(m);
}
}  // namespace

// collections.abc is written in shard (stdlib/_collections_abc.shard); this module is its
// public name, as CPython's collections.abc re-exports _collections_abc.
void fill_collections_abc(Interp& I, ModuleObj& m) {
  Value impl = I.import_module("_collections_abc", I.current_loc());
  for (auto& [k, v] : static_cast<ModuleObj&>(*impl).dict.entries)
    if (v && !k.empty() && k[0] != '_') m.dict.set(k, v);
}

void register_collections_module() {
  Interp::register_builtin_module("collections", fill_collections);
  Interp::register_builtin_module("collections.abc", fill_collections_abc);
}

}  // namespace shard::interp::bi
