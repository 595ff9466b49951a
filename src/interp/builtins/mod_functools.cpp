// The `functools` module: partial (callable object, usable as a decorator factory such as
// `@partial(jax.jit, static_argnums=(1,))`), reduce, wraps/update_wrapper, lru_cache/cache,
// cmp_to_key and total_ordering.
#include <fmt/format.h>

#include "interp/builtins/support.hpp"

namespace shard::interp::bi {

namespace {

struct PartialObj : NativeObj {
  Value func;
  std::vector<Value> args;
  std::vector<std::pair<std::string, Value>> kwargs;
  explicit PartialObj(ClassP c) : NativeObj(std::move(c), gc_tracked) {}
  void gc_traverse(GcVisitor& visit) const override {
    visit(func);
    for (auto& v : args) visit(v);
    for (auto& [k, v] : kwargs) visit(v);
  }
  void gc_clear() override {
    func.reset();
    args.clear();
    kwargs.clear();
  }
};

ClassP g_partial, g_cached, g_cmpkey;

PartialObj& self_partial(Interp& I, CallArgs& a, const char* meth) {
  if (a.args.empty() || a.args[0]->kind != ObjKind::Native || !a.args[0]->cls->is_subclass_of(g_partial.get()))
    bad_self(I, a, "functools.partial", meth);
  return static_cast<PartialObj&>(*a.args[0]);
}

Value partial_new(Interp& I, const ClassP& cls, CallArgs& a) {
  if (a.args.empty()) I.raise("TypeError", "type 'partial' takes at least one argument");
  auto p = std::make_shared<PartialObj>(cls);
  Value func = a.args[0];
  std::vector<Value> args(a.args.begin() + 1, a.args.end());
  std::vector<std::pair<std::string, Value>> kwargs;
  if (func->kind == ObjKind::Native && func->cls.get() == g_partial.get()) {
    auto& inner = static_cast<PartialObj&>(*func);
    args.insert(args.begin(), inner.args.begin(), inner.args.end());
    kwargs = inner.kwargs;
    func = inner.func;
  }
  bool callable = func->kind == ObjKind::Function || func->kind == ObjKind::Builtin ||
                  func->kind == ObjKind::BoundMethod || func->kind == ObjKind::Class || func->cls->lookup("__call__");
  if (!callable) I.raise("TypeError", "the first argument must be callable");
  for (auto& [k, v] : a.kwargs) {
    bool replaced = false;
    for (auto& kv : kwargs)
      if (kv.first == k) {
        kv.second = v;
        replaced = true;
      }
    if (!replaced) kwargs.emplace_back(k, v);
  }
  p->func = func;
  p->args = std::move(args);
  p->kwargs = std::move(kwargs);
  return p;
}

Value partial_call(Interp& I, CallArgs& a) {
  auto& p = self_partial(I, a, "__call__");
  CallArgs call;
  call.loc = a.loc;
  call.args = p.args;
  call.args.insert(call.args.end(), a.args.begin() + 1, a.args.end());
  call.kwargs = p.kwargs;
  for (auto& [k, v] : a.kwargs) {
    bool replaced = false;
    for (auto& kv : call.kwargs)
      if (kv.first == k) {
        kv.second = v;
        replaced = true;
      }
    if (!replaced) call.kwargs.emplace_back(k, v);
  }
  Value fn = p.func;
  return I.call(fn, call);
}

void init_partial() {
  g_partial = native_class("partial", nullptr, "functools", ObjKind::Native);
  g_partial->native_new = partial_new;
  def(g_partial, "__init__", [](Interp&, CallArgs&) { return none(); });
  def(g_partial, "__call__", partial_call);
  def(g_partial, "__repr__", [](Interp& I, CallArgs& a) {
    auto& p = self_partial(I, a, "__repr__");
    ReprGuard guard(I, &p);
    if (guard.active()) return make_str("...");
    std::string out = "functools.partial(" + I.repr(p.func);
    for (auto& x : p.args) out += ", " + I.repr(x);
    for (auto& [k, v] : p.kwargs) out += ", " + k + "=" + I.repr(v);
    return make_str(out + ")");
  });
  def_property(g_partial, "func", [](Interp& I, CallArgs& a) { return self_partial(I, a, "func").func; });
  def_property(g_partial, "args", [](Interp& I, CallArgs& a) { return make_tuple(self_partial(I, a, "args").args); });
  def_property(g_partial, "keywords", [](Interp& I, CallArgs& a) -> Value {
    auto& p = self_partial(I, a, "keywords");
    auto d = make_dict();
    for (auto& [k, v] : p.kwargs) d->set(I, make_str(k), v);
    return d;
  });
}

// ---- lru_cache / cache ----

struct CachedObj : NativeObj {
  Value func;
  std::shared_ptr<DictObj> cache;
  int64_t hits = 0, misses = 0;
  Value maxsize;  // None = unbounded
  AttrTable attrs;  // __wrapped__, __name__, ...
  explicit CachedObj(ClassP c) : NativeObj(std::move(c), gc_tracked) {}
  void gc_traverse(GcVisitor& visit) const override {
    visit(func);
    if (cache) visit(cache.get());
    visit(maxsize);
    for (auto& [name, v] : attrs.entries) visit(v);
  }
  void gc_clear() override {
    func.reset();
    cache = make_dict();
    attrs.entries.clear();
    attrs.index.clear();
  }
};

CachedObj& self_cached(Interp& I, CallArgs& a, const char* meth) {
  if (a.args.empty() || a.args[0]->cls.get() != g_cached.get()) bad_self(I, a, "functools._lru_cache_wrapper", meth);
  return static_cast<CachedObj&>(*a.args[0]);
}

Value make_cached(Interp& I, const Value& func, Value maxsize) {
  auto c = std::make_shared<CachedObj>(g_cached);
  c->func = func;
  c->cache = make_dict();
  c->maxsize = std::move(maxsize);
  return c;
}

Value cached_call(Interp& I, CallArgs& a) {
  auto& c = self_cached(I, a, "__call__");
  std::vector<Value> key_items(a.args.begin() + 1, a.args.end());
  if (!a.kwargs.empty()) {
    key_items.push_back(g_cached);  // separator (a unique object)
    for (auto& [k, v] : a.kwargs) {
      key_items.push_back(make_str(k));
      key_items.push_back(v);
    }
  }
  Value key = make_tuple(std::move(key_items));
  bool caching = !(c.maxsize && int_of(c.maxsize) && *int_of(c.maxsize) == 0);
  if (caching)
    if (Value* v = c.cache->find(I, key)) {
      ++c.hits;
      return *v;
    }
  ++c.misses;
  CallArgs call = args_without_self(a);
  Value fn = c.func;
  Value r = I.call(fn, call);
  if (caching) c.cache->set(I, key, r);
  return r;
}

void init_cached() {
  g_cached = native_class("_lru_cache_wrapper", nullptr, "functools", ObjKind::Native);
  def(g_cached, "__call__", cached_call);
  def(g_cached, "__get__", [](Interp& I, CallArgs& a) -> Value {
    method_nargs(I, a, "__get__", 1, 2);
    self_cached(I, a, "__get__");
    if (a.args[1]->kind == ObjKind::None) return a.args[0];
    return std::make_shared<BoundMethodObj>(T().method, a.args[1], a.args[0]);
  });
  def(g_cached, "cache_clear", [](Interp& I, CallArgs& a) {
    auto& c = self_cached(I, a, "cache_clear");
    c.cache = make_dict();
    c.hits = c.misses = 0;
    return none();
  });
  def(g_cached, "cache_info", [](Interp& I, CallArgs& a) {
    auto& c = self_cached(I, a, "cache_info");
    return make_str(fmt::format("CacheInfo(hits={}, misses={}, maxsize={}, currsize={})", c.hits, c.misses,
                                c.maxsize ? I.repr(c.maxsize) : "None", c.cache->live));
  });
  def(g_cached, "__repr__", [](Interp& I, CallArgs& a) {
    auto& c = self_cached(I, a, "__repr__");
    return make_str(fmt::format("<functools._lru_cache_wrapper object at {}>", addr_of(&c)));
  });
  def(g_cached, "__getattr__", [](Interp& I, CallArgs& a) -> Value {
    method_nargs(I, a, "__getattr__", 1, 1);
    auto& c = self_cached(I, a, "__getattr__");
    const std::string& name = str_arg(I, a.args[1], "attribute name");
    if (name == "__wrapped__") return c.func;
    if (Value* v = c.attrs.find(name)) return *v;
    return I.getattr(c.func, name);
  });
}

Value lru_cache(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "lru_cache", {"maxsize=", "typed="});
  Value first = p.get("maxsize");
  bool is_func = first && (first->kind == ObjKind::Function || first->kind == ObjKind::Builtin ||
                           first->kind == ObjKind::BoundMethod);
  if (is_func) return make_cached(I, first, make_int(128));
  Value maxsize = first ? first : make_int(128);
  if (maxsize->kind == ObjKind::None) maxsize = nullptr;
  else if (!int_of(maxsize)) I.raise("TypeError", "Expected first argument to be an integer, a callable, or None");
  return make_builtin("decorating_function", [maxsize](Interp& I, CallArgs& b) {
    func_nargs(I, b, "decorating_function", 1, 1);
    return make_cached(I, b.args[0], maxsize);
  });
}

// ---- wraps ----

void copy_wrapper_attrs(Interp& I, const Value& wrapper, const Value& wrapped) {
  for (const char* attr : {"__module__", "__name__", "__qualname__", "__doc__"}) {
    auto v = I.try_getattr(wrapped, attr);
    if (!v) continue;
    try {
      I.setattr(wrapper, attr, *v);
    } catch (PyError& e) {
      if (!exc_is(e, "AttributeError") && !exc_is(e, "TypeError")) throw;
    }
  }
  try {
    if (wrapper->kind == ObjKind::Function && wrapped->kind == ObjKind::Function) {
      auto& dst = static_cast<FunctionObj&>(*wrapper).dict;
      for (auto& [k, v] : static_cast<FunctionObj&>(*wrapped).dict.entries)
        if (v) dst.set(k, v);
    }
    I.setattr(wrapper, "__wrapped__", wrapped);
  } catch (PyError& e) {
    if (!exc_is(e, "AttributeError") && !exc_is(e, "TypeError")) throw;
  }
}

// ---- cmp_to_key ----

struct CmpKeyObj : NativeObj {
  Value cmp, obj;
  using NativeObj::NativeObj;
};

void init_cmp_key() {
  g_cmpkey = native_class("KeyWrapper", nullptr, "functools", ObjKind::Native);
  struct Cmp {
    const char* name;
    bool (*test)(int64_t);
  };
  static const Cmp cmps[] = {{"__lt__", [](int64_t r) { return r < 0; }}, {"__le__", [](int64_t r) { return r <= 0; }},
                             {"__gt__", [](int64_t r) { return r > 0; }}, {"__ge__", [](int64_t r) { return r >= 0; }},
                             {"__eq__", [](int64_t r) { return r == 0; }}, {"__ne__", [](int64_t r) { return r != 0; }}};
  for (const Cmp& c : cmps) {
    auto test = c.test;
    const char* name = c.name;
    def(g_cmpkey, name, [test, name](Interp& I, CallArgs& a) -> Value {
      method_nargs(I, a, name, 1, 1);
      if (a.args[0]->cls.get() != g_cmpkey.get()) bad_self(I, a, "functools.KeyWrapper", name);
      if (a.args[1]->cls.get() != g_cmpkey.get()) I.raise("TypeError", "other argument must be K instance");
      auto& x = static_cast<CmpKeyObj&>(*a.args[0]);
      auto& y = static_cast<CmpKeyObj&>(*a.args[1]);
      Value r = I.call(x.cmp, std::vector<Value>{x.obj, y.obj});
      auto i = int_of(r);
      if (!i) {
        if (auto d = real_of(r)) return make_bool(test(*d < 0 ? -1 : *d > 0 ? 1 : 0));
        I.raise("TypeError", "comparison function must return int");
      }
      return make_bool(test(*i));
    });
  }
  g_cmpkey->dict.set("__hash__", none());
}

// ---- total_ordering ----

Value total_ordering(Interp& I, CallArgs& a) {
  func_nargs(I, a, "total_ordering", 1, 1);
  if (a.args[0]->kind != ObjKind::Class) I.raise("TypeError", "total_ordering expects a class");
  auto& cls = static_cast<ClassObj&>(*a.args[0]);
  const char* order[] = {"__lt__", "__le__", "__gt__", "__ge__"};
  const char* root = nullptr;
  for (const char* n : order) {
    Value* v = cls.lookup(n);
    if (v && (*v)->kind != ObjKind::Builtin) {  // user-defined, not object's default
      root = n;
      break;
    }
  }
  if (!root) I.raise("ValueError", "must define at least one ordering operation: < > <= >=");
  std::string r = root;
  using ast::CmpOpKind;
  auto cmp = [](Interp& I, const Value& x, const Value& y, CmpOpKind k) { return I.truthy(I.compare(k, x, y)); };
  auto add = [&](const char* name, std::function<bool(Interp&, const Value&, const Value&)> f) {
    Value* existing = cls.dict.find(name);
    if (existing && (*existing)->kind != ObjKind::Builtin) return;
    if (cls.lookup(name) && (*cls.lookup(name))->kind != ObjKind::Builtin) return;
    cls.dict.set(name, make_builtin(name, [f](Interp& I, CallArgs& b) -> Value {
                   return make_bool(f(I, b.args.at(0), b.args.at(1)));
                 }));
  };
  if (r == "__lt__") {
    add("__gt__", [cmp](Interp& I, const Value& x, const Value& y) { return !cmp(I, x, y, CmpOpKind::Lt) && !cmp(I, x, y, CmpOpKind::Eq); });
    add("__le__", [cmp](Interp& I, const Value& x, const Value& y) { return cmp(I, x, y, CmpOpKind::Lt) || cmp(I, x, y, CmpOpKind::Eq); });
    add("__ge__", [cmp](Interp& I, const Value& x, const Value& y) { return !cmp(I, x, y, CmpOpKind::Lt); });
  } else if (r == "__le__") {
    add("__ge__", [cmp](Interp& I, const Value& x, const Value& y) { return !cmp(I, x, y, CmpOpKind::LtE) || cmp(I, x, y, CmpOpKind::Eq); });
    add("__lt__", [cmp](Interp& I, const Value& x, const Value& y) { return cmp(I, x, y, CmpOpKind::LtE) && !cmp(I, x, y, CmpOpKind::Eq); });
    add("__gt__", [cmp](Interp& I, const Value& x, const Value& y) { return !cmp(I, x, y, CmpOpKind::LtE); });
  } else if (r == "__gt__") {
    add("__lt__", [cmp](Interp& I, const Value& x, const Value& y) { return !cmp(I, x, y, CmpOpKind::Gt) && !cmp(I, x, y, CmpOpKind::Eq); });
    add("__ge__", [cmp](Interp& I, const Value& x, const Value& y) { return cmp(I, x, y, CmpOpKind::Gt) || cmp(I, x, y, CmpOpKind::Eq); });
    add("__le__", [cmp](Interp& I, const Value& x, const Value& y) { return !cmp(I, x, y, CmpOpKind::Gt); });
  } else {
    add("__le__", [cmp](Interp& I, const Value& x, const Value& y) { return !cmp(I, x, y, CmpOpKind::GtE) || cmp(I, x, y, CmpOpKind::Eq); });
    add("__gt__", [cmp](Interp& I, const Value& x, const Value& y) { return cmp(I, x, y, CmpOpKind::GtE) && !cmp(I, x, y, CmpOpKind::Eq); });
    add("__lt__", [cmp](Interp& I, const Value& x, const Value& y) { return !cmp(I, x, y, CmpOpKind::GtE); });
  }
  return a.args[0];
}

void fill_functools(Interp& I, ModuleObj& m) {
  if (!g_partial) {
    init_partial();
    init_cached();
    init_cmp_key();
  }
  auto add = [&](const char* name, NativeFn fn) { m.dict.set(name, make_builtin(name, std::move(fn))); };
  m.dict.set("partial", g_partial);
  add("reduce", [](Interp& I, CallArgs& a) -> Value {
    func_nargs(I, a, "reduce", 2, 3);
    Value fn = a.args[0];
    Value it = I.iter(a.args[1]);
    Value acc;
    if (a.args.size() == 3) acc = a.args[2];
    else {
      auto first = I.next(it);
      if (!first) I.raise("TypeError", "reduce() of empty iterable with no initial value");
      acc = *first;
    }
    while (auto v = I.next(it)) acc = I.call(fn, std::vector<Value>{acc, *v});
    return acc;
  });
  add("lru_cache", lru_cache);
  add("cache", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "cache", 1, 1);
    return make_cached(I, a.args[0], nullptr);
  });
  add("update_wrapper", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "update_wrapper", {"wrapper", "wrapped", "assigned=", "updated="});
    copy_wrapper_attrs(I, p.get("wrapper"), p.get("wrapped"));
    return p.get("wrapper");
  });
  add("wraps", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "wraps", {"wrapped", "assigned=", "updated="});
    Value wrapped = p.get("wrapped");
    return make_builtin("decorator", [wrapped](Interp& I, CallArgs& b) {
      func_nargs(I, b, "decorator", 1, 1);
      copy_wrapper_attrs(I, b.args[0], wrapped);
      return b.args[0];
    });
  });
  add("cmp_to_key", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "cmp_to_key", 1, 1);
    Value cmp = a.args[0];
    return make_builtin("K", [cmp](Interp& I, CallArgs& b) -> Value {
      func_nargs(I, b, "K", 1, 1);
      auto k = std::make_shared<CmpKeyObj>(g_cmpkey);
      k->cmp = cmp;
      k->obj = b.args[0];
      return k;
    });
  });
  add("total_ordering", total_ordering);
}

}  // namespace

void register_functools_module() { Interp::register_builtin_module("functools", fill_functools); }

}  // namespace shard::interp::bi
