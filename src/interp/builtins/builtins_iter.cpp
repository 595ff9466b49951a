// Builtins over iterables: the lazy iterator classes enumerate/zip/map/filter/reversed,
// and sorted, sum, min, max, any, all.
#include <fmt/format.h>

#include "interp/builtins/numbers.hpp"

namespace shard::interp::bi {

namespace {

ClassP g_enumerate, g_zip, g_map, g_filter, g_reversed;

Value enumerate_new(Interp& I, const ClassP& cls, CallArgs& a) {
  ArgParser p(I, a, "enumerate", {"$clinic", "iterable", "start="});
  Value it = I.iter(p.get("iterable"));
  int64_t i = p.has("start") ? index_of(I, p.get("start"), "") : 0;
  Interp* ip = &I;
  return make_iterator(cls, [ip, it, i]() mutable -> std::optional<Value> {
    auto v = ip->next(it);
    if (!v) return std::nullopt;
    return make_tuple({make_int(i++), *v});
  });
}

Value zip_new(Interp& I, const ClassP& cls, CallArgs& a) {
  bool strict = false;
  for (auto& [k, v] : a.kwargs) {
    if (k != "strict") I.raise("TypeError", fmt::format("zip() got an unexpected keyword argument '{}'", k));
    strict = I.truthy(v);
  }
  std::vector<Value> its;
  for (auto& x : a.args) its.push_back(I.iter(x));
  Interp* ip = &I;
  bool done = its.empty();
  return make_iterator(cls, [ip, its, strict, done]() mutable -> std::optional<Value> {
    if (done) return std::nullopt;
    std::vector<Value> row;
    row.reserve(its.size());
    for (size_t i = 0; i < its.size(); ++i) {
      auto v = ip->next(its[i]);
      if (!v) {
        done = true;
        if (strict) {
          if (i > 0)
            ip->raise("ValueError", fmt::format("zip() argument {} is shorter than argument{} {}", i + 1,
                                                i == 1 ? "" : "s", i == 1 ? "1" : fmt::format("1-{}", i)));
          for (size_t j = 1; j < its.size(); ++j)
            if (ip->next(its[j]))
              ip->raise("ValueError", fmt::format("zip() argument {} is longer than argument{} {}", j + 1,
                                                  j == 1 ? "" : "s", j == 1 ? "1" : fmt::format("1-{}", j)));
        }
        return std::nullopt;
      }
      row.push_back(*v);
    }
    return make_tuple(std::move(row));
  });
}

Value map_new(Interp& I, const ClassP& cls, CallArgs& a) {
  no_kwargs(I, a, "map");
  if (a.args.size() < 2) I.raise("TypeError", "map() must have at least two arguments.");
  Value fn = a.args[0];
  std::vector<Value> its;
  for (size_t i = 1; i < a.args.size(); ++i) its.push_back(I.iter(a.args[i]));
  Interp* ip = &I;
  return make_iterator(cls, [ip, fn, its]() mutable -> std::optional<Value> {
    std::vector<Value> args;
    for (auto& it : its) {
      auto v = ip->next(it);
      if (!v) return std::nullopt;
      args.push_back(*v);
    }
    return ip->call(fn, std::move(args));
  });
}

Value filter_new(Interp& I, const ClassP& cls, CallArgs& a) {
  no_kwargs(I, a, "filter");
  if (a.args.size() != 2) I.raise("TypeError", fmt::format("filter expected 2 arguments, got {}", a.args.size()));
  Value fn = a.args[0];
  Value it = I.iter(a.args[1]);
  Interp* ip = &I;
  return make_iterator(cls, [ip, fn, it]() mutable -> std::optional<Value> {
    while (true) {
      auto v = ip->next(it);
      if (!v) return std::nullopt;
      bool keep = fn->kind == ObjKind::None ? ip->truthy(*v) : ip->truthy(ip->call(fn, std::vector<Value>{*v}));
      if (keep) return v;
    }
  });
}

Value reversed_new(Interp& I, const ClassP& cls, CallArgs& a) {
  no_kwargs(I, a, "reversed");
  if (a.args.size() != 1) I.raise("TypeError", fmt::format("reversed expected 1 argument, got {}", a.args.size()));
  const Value& seq = a.args[0];
  if (seq->cls->lookup("__reversed__")) {
    Value* r = seq->cls->lookup("__reversed__");
    if ((*r)->kind != ObjKind::None) return *I.call_method(seq, "__reversed__", {});
  }
  if (!seq->cls->lookup("__len__") || !seq->cls->lookup("__getitem__") || seq->kind == ObjKind::Dict)
    I.raise("TypeError", fmt::format("'{}' object is not reversible", I.type_name(seq)));
  int64_t i = I.len(seq) - 1;
  Interp* ip = &I;
  return make_iterator(cls, [ip, seq, i]() mutable -> std::optional<Value> {
    if (i < 0) return std::nullopt;
    try {
      return ip->getitem(seq, make_int(i--));
    } catch (PyError& e) {
      if (exc_is(e, "IndexError") || exc_is(e, "StopIteration")) {
        i = -1;
        return std::nullopt;
      }
      throw;
    }
  });
}

Value builtin_sorted(Interp& I, CallArgs& a) {
  if (a.args.size() != 1) {
    if (a.args.empty()) I.raise("TypeError", "sorted expected 1 argument, got 0");
    I.raise("TypeError", fmt::format("sorted expected 1 argument, got {}", a.args.size()));
  }
  ArgParser p(I, a, "sort", {"$clinic", "iterable", "/", "*", "key=", "reverse="});
  auto out = std::make_shared<ListObj>(T().list, collect(I, p.get("iterable")));
  Value key = p.get("key");
  bool reverse = p.has("reverse") && I.truthy(p.get("reverse"));
  if (key && key->kind != ObjKind::None) {
    std::vector<Value> keys;
    keys.reserve(out->items.size());
    for (auto& x : out->items) keys.push_back(I.call(key, std::vector<Value>{x}));
    stable_sort(I, out->items, &keys, reverse);
  } else {
    stable_sort(I, out->items, nullptr, reverse);
  }
  return out;
}

Value builtin_sum(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "sum", {"$clinic", "iterable", "/", "start="});
  Value acc = p.has("start") ? p.get("start") : make_int(0);
  if (str_of(acc)) I.raise("TypeError", "sum() can't sum strings [use ''.join(seq) instead]");
  if (acc->kind == ObjKind::Native || acc->kind == ObjKind::Instance) {
    // bytes/bytearray do not exist here; user types go through __add__
  }
  std::vector<Value> items = collect(I, p.get("iterable"));
  size_t i = 0;
  // fast paths: exact ints (checked) and floats, as CPython's sum does
  if (acc->kind == ObjKind::Int || acc->kind == ObjKind::Bool) {
    int64_t s = *int_of(acc);
    for (; i < items.size(); ++i) {
      const Value& x = items[i];
      if (x->kind != ObjKind::Int && x->kind != ObjKind::Bool) break;
      s = checked_add(I, s, *int_of(x));
    }
    acc = make_int(s);
  }
  if (i < items.size() && (acc->kind == ObjKind::Float || (acc->kind == ObjKind::Int && items[i]->kind == ObjKind::Float))) {
    double s = *real_of(acc);
    for (; i < items.size(); ++i) {
      const Value& x = items[i];
      if (x->kind == ObjKind::Float) s += static_cast<FloatObj&>(*x).v;
      else if (x->kind == ObjKind::Int || x->kind == ObjKind::Bool) s += double(*int_of(x));
      else break;
    }
    acc = make_float(s);
  }
  for (; i < items.size(); ++i) acc = I.binary_op(ast::BinOpKind::Add, acc, items[i]);
  return acc;
}

// min/max: one iterable (with default=) or several positional arguments; key=.
bool gt_for_max(Interp& I, const Value& x, const Value& y) {
  auto num = [](ObjKind k) { return k == ObjKind::Int || k == ObjKind::Float || k == ObjKind::Bool; };
  const ObjKind kx = x->kind, ky = y->kind;
  if ((kx == ObjKind::Str && ky == ObjKind::Str) || (num(kx) && num(ky))) return lt_fast(I, y, x);
  return I.truthy(I.compare(ast::CmpOpKind::Gt, x, y));
}

Value min_max(Interp& I, CallArgs& a, bool is_max) {
  const char* name = is_max ? "max" : "min";
  Value key, dflt;
  for (auto& [k, v] : a.kwargs) {
    if (k == "key") key = v;
    else if (k == "default") dflt = v;
    else I.raise("TypeError", fmt::format("{}() got an unexpected keyword argument '{}'", name, k));
  }
  if (a.args.empty()) I.raise("TypeError", fmt::format("{} expected at least 1 argument, got 0", name));
  std::vector<Value> items;
  if (a.args.size() == 1) {
    items = collect(I, a.args[0]);
  } else {
    if (dflt)
      I.raise("TypeError", fmt::format("Cannot specify a default for {}() with multiple positional arguments", name));
    items = a.args;
  }
  if (key && key->kind == ObjKind::None) key = nullptr;
  if (items.empty()) {
    if (dflt) return dflt;
    I.raise("ValueError", fmt::format("{}() arg is an empty sequence", name));
  }
  Value best = items[0];
  Value best_key = key ? I.call(key, std::vector<Value>{best}) : best;
  for (size_t i = 1; i < items.size(); ++i) {
    Value k = key ? I.call(key, std::vector<Value>{items[i]}) : items[i];
    // CPython asks item > best for max (so its TypeError names '>') and item < best for min.
    bool better = is_max ? gt_for_max(I, k, best_key) : lt_fast(I, k, best_key);
    if (better) {
      best = items[i];
      best_key = k;
    }
  }
  return best;
}

}  // namespace

void add_iter_functions(Interp& I, ModuleObj& m) {
  if (!g_enumerate) {
    g_enumerate = native_class("enumerate", T().iterator, "builtins", ObjKind::Iterator);
    g_enumerate->native_new = enumerate_new;
    g_zip = native_class("zip", T().iterator, "builtins", ObjKind::Iterator);
    g_zip->native_new = zip_new;
    g_map = native_class("map", T().iterator, "builtins", ObjKind::Iterator);
    g_map->native_new = map_new;
    g_filter = native_class("filter", T().iterator, "builtins", ObjKind::Iterator);
    g_filter->native_new = filter_new;
    g_reversed = native_class("reversed", T().iterator, "builtins", ObjKind::Iterator);
    g_reversed->native_new = reversed_new;
    for (auto& c : {g_enumerate, g_zip, g_map, g_filter, g_reversed})
      def(c, "__init__", [](Interp&, CallArgs&) { return none(); });
  }
  for (auto& c : {g_enumerate, g_zip, g_map, g_filter, g_reversed}) m.dict.set(c->name, c);
  auto add = [&](const char* name, NativeFn fn) { m.dict.set(name, make_builtin(name, std::move(fn))); };
  add("sorted", builtin_sorted);
  add("sum", builtin_sum);
  add("max", [](Interp& I, CallArgs& a) { return min_max(I, a, true); });
  add("min", [](Interp& I, CallArgs& a) { return min_max(I, a, false); });
  add("any", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "any", 1, 1);
    bool r = false;
    I.for_each(a.args[0], [&](const Value& v) {
      if (I.truthy(v)) r = true;
      return !r;
    });
    return make_bool(r);
  });
  add("all", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "all", 1, 1);
    bool r = true;
    I.for_each(a.args[0], [&](const Value& v) {
      if (!I.truthy(v)) r = false;
      return r;
    });
    return make_bool(r);
  });
}

}  // namespace shard::interp::bi
