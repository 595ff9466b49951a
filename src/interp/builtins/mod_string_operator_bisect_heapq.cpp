// Small pure-Python-library modules: `string` (constants), `operator`, `bisect` and
// `heapq` (CPython's exact sift algorithms, so printed heaps match).
#include <fmt/format.h>

#include "interp/builtins/support.hpp"

namespace shard::interp::bi {

namespace {

void fill_string(Interp&, ModuleObj& m) {
  m.dict.set("ascii_lowercase", make_str("abcdefghijklmnopqrstuvwxyz"));
  m.dict.set("ascii_uppercase", make_str("ABCDEFGHIJKLMNOPQRSTUVWXYZ"));
  m.dict.set("ascii_letters", make_str("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"));
  m.dict.set("digits", make_str("0123456789"));
  m.dict.set("hexdigits", make_str("0123456789abcdefABCDEF"));
  m.dict.set("octdigits", make_str("01234567"));
  m.dict.set("punctuation", make_str("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"));
  m.dict.set("whitespace", make_str(" \t\n\r\x0b\x0c"));
  m.dict.set("printable", make_str("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ \t\n\r\x0b\x0c"));
  m.dict.set("capwords", make_builtin("capwords", [](Interp& I, CallArgs& a) {
               func_nargs(I, a, "capwords", 1, 2);
               Value parts = I.call(I.getattr(a.args[0], "split"),
                                    a.args.size() > 1 ? std::vector<Value>{a.args[1]} : std::vector<Value>{});
               std::vector<Value> caps;
               for (auto& w : collect(I, parts)) caps.push_back(I.call(I.getattr(w, "capitalize"), std::vector<Value>{}));
               Value sep = a.args.size() > 1 && a.args[1]->kind != ObjKind::None ? a.args[1] : make_str(" ");
               return I.call(I.getattr(sep, "join"), std::vector<Value>{make_list(caps)});
             }));
}

// ---- operator ----

struct GetterObj : NativeObj {
  std::vector<Value> keys;
  bool attr = false;
  using NativeObj::NativeObj;
};

ClassP g_itemgetter, g_attrgetter;

GetterObj& self_getter(Interp& I, CallArgs& a, const char* meth) {
  bool ok = !a.args.empty() && a.args[0]->kind == ObjKind::Native &&
            (a.args[0]->cls.get() == g_itemgetter.get() || a.args[0]->cls.get() == g_attrgetter.get());
  if (!ok) bad_self(I, a, "operator.itemgetter", meth);
  return static_cast<GetterObj&>(*a.args[0]);
}

Value get_path(Interp& I, Value obj, const Value& key, bool attr) {
  if (!attr) return I.getitem(obj, key);
  const std::string& path = str_arg(I, key, "attribute name");
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    obj = I.getattr(obj, path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) return obj;
    start = dot + 1;
  }
}

ClassP make_getter_class(const char* name, bool attr) {
  auto c = native_class(name, nullptr, "operator", ObjKind::Native);
  c->native_new = [attr](Interp& I, const ClassP& cls, CallArgs& a) -> Value {
    no_kwargs(I, a, attr ? "attrgetter" : "itemgetter");
    if (a.args.empty())
      I.raise("TypeError", fmt::format("{} expected 1 argument, got 0", attr ? "attrgetter" : "itemgetter"));
    auto g = std::make_shared<GetterObj>(cls);
    g->keys = a.args;
    g->attr = attr;
    if (attr)
      for (auto& k : a.args) str_arg(I, k, "attribute name");
    return g;
  };
  def(c, "__init__", [](Interp&, CallArgs&) { return none(); });
  def(c, "__call__", [](Interp& I, CallArgs& a) -> Value {
    method_nargs(I, a, "__call__", 1, 1);
    auto& g = self_getter(I, a, "__call__");
    if (g.keys.size() == 1) return get_path(I, a.args[1], g.keys[0], g.attr);
    std::vector<Value> out;
    for (auto& k : g.keys) out.push_back(get_path(I, a.args[1], k, g.attr));
    return make_tuple(std::move(out));
  });
  def(c, "__repr__", [name](Interp& I, CallArgs& a) {
    auto& g = self_getter(I, a, "__repr__");
    std::string out = std::string("operator.") + name + "(";
    for (size_t i = 0; i < g.keys.size(); ++i) out += (i ? ", " : "") + I.repr(g.keys[i]);
    return make_str(out + ")");
  });
  return c;
}

void fill_operator(Interp&, ModuleObj& m) {
  if (!g_itemgetter) {
    g_itemgetter = make_getter_class("itemgetter", false);
    g_attrgetter = make_getter_class("attrgetter", true);
  }
  m.dict.set("itemgetter", g_itemgetter);
  m.dict.set("attrgetter", g_attrgetter);
  using ast::BinOpKind;
  struct Bin {
    const char* name;
    BinOpKind op;
  };
  static const Bin bins[] = {{"add", BinOpKind::Add},       {"sub", BinOpKind::Sub},         {"mul", BinOpKind::Mul},
                             {"truediv", BinOpKind::Div},   {"floordiv", BinOpKind::FloorDiv}, {"mod", BinOpKind::Mod},
                             {"pow", BinOpKind::Pow},       {"matmul", BinOpKind::MatMul},   {"lshift", BinOpKind::LShift},
                             {"rshift", BinOpKind::RShift}, {"or_", BinOpKind::BitOr},       {"xor", BinOpKind::BitXor},
                             {"and_", BinOpKind::BitAnd}};
  for (const Bin& b : bins) {
    BinOpKind op = b.op;
    const char* name = b.name;
    m.dict.set(name, make_builtin(name, [op, name](Interp& I, CallArgs& a) {
                 func_nargs(I, a, name, 2, 2);
                 return I.binary_op(op, a.args[0], a.args[1]);
               }));
  }
  using ast::CmpOpKind;
  struct Cmp {
    const char* name;
    CmpOpKind op;
  };
  static const Cmp cmps[] = {{"eq", CmpOpKind::Eq}, {"ne", CmpOpKind::NotEq}, {"lt", CmpOpKind::Lt},
                             {"le", CmpOpKind::LtE}, {"gt", CmpOpKind::Gt}, {"ge", CmpOpKind::GtE}};
  for (const Cmp& c : cmps) {
    CmpOpKind op = c.op;
    const char* name = c.name;
    m.dict.set(name, make_builtin(name, [op, name](Interp& I, CallArgs& a) {
                 func_nargs(I, a, name, 2, 2);
                 return I.compare(op, a.args[0], a.args[1]);
               }));
  }
  auto add = [&](const char* name, NativeFn fn) { m.dict.set(name, make_builtin(name, std::move(fn))); };
  add("neg", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "neg", 1, 1);
    return I.unary_op(ast::UnaryOpKind::Neg, a.args[0]);
  });
  add("pos", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "pos", 1, 1);
    return I.unary_op(ast::UnaryOpKind::Pos, a.args[0]);
  });
  add("invert", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "invert", 1, 1);
    return I.unary_op(ast::UnaryOpKind::Invert, a.args[0]);
  });
  add("not_", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "not_", 1, 1);
    return make_bool(!I.truthy(a.args[0]));
  });
  add("truth", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "truth", 1, 1);
    return make_bool(I.truthy(a.args[0]));
  });
  add("is_", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "is_", 2, 2);
    return make_bool(a.args[0].get() == a.args[1].get());
  });
  add("is_not", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "is_not", 2, 2);
    return make_bool(a.args[0].get() != a.args[1].get());
  });
  add("getitem", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "getitem", 2, 2);
    return I.getitem(a.args[0], a.args[1]);
  });
  add("contains", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "contains", 2, 2);
    return make_bool(I.contains(a.args[0], a.args[1]));
  });
  add("index", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "index", 1, 1);
    return make_int(index_of(I, a.args[0], ""));
  });
}

// ---- bisect ----

int64_t bisect_impl(Interp& I, CallArgs& a, const char* name, bool right) {
  ArgParser p(I, a, name, {"a", "x", "lo=", "hi=", "*", "key="});
  Value seq = p.get("a"), x = p.get("x"), key = p.get("key");
  if (key && key->kind == ObjKind::None) key = nullptr;
  int64_t lo = p.has("lo") ? index_of(I, p.get("lo"), "") : 0;
  if (lo < 0) I.raise("ValueError", "lo must be non-negative");
  int64_t hi = p.has("hi") && p.get("hi")->kind != ObjKind::None ? index_of(I, p.get("hi"), "") : I.len(seq);
  while (lo < hi) {
    int64_t mid = (lo + hi) / 2;
    Value item = I.getitem(seq, make_int(mid));
    if (key) item = I.call(key, std::vector<Value>{item});
    bool go_left = right ? lt_fast(I, x, item) : !lt_fast(I, item, x);
    if (go_left) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

void fill_bisect(Interp&, ModuleObj& m) {
  auto add = [&](const char* name, NativeFn fn) { m.dict.set(name, make_builtin(name, std::move(fn))); };
  add("bisect_left", [](Interp& I, CallArgs& a) { return make_int(bisect_impl(I, a, "bisect_left", false)); });
  add("bisect_right", [](Interp& I, CallArgs& a) { return make_int(bisect_impl(I, a, "bisect_right", true)); });
  m.dict.set("bisect", *m.dict.find("bisect_right"));
  for (auto [name, right] : {std::pair{"insort_left", false}, std::pair{"insort_right", true}}) {
    add(name, [name, right](Interp& I, CallArgs& a) {
      CallArgs b = a;
      Value key;
      for (auto& [k, v] : a.kwargs)
        if (k == "key") key = v;
      if (key && key->kind != ObjKind::None && a.args.size() >= 2) b.args[1] = I.call(key, std::vector<Value>{a.args[1]});
      int64_t i = bisect_impl(I, b, name, right);
      I.call(I.getattr(a.args.at(0), "insert"), std::vector<Value>{make_int(i), a.args.at(1)});
      return none();
    });
  }
  m.dict.set("insort", *m.dict.find("insort_right"));
}

// ---- heapq (Lib/heapq.py) ----

ListObj& heap_arg(Interp& I, const Value& v, const char* fname) {
  auto* l = unwrap<ListObj>(v, ObjKind::List);
  if (!l) I.raise("TypeError", fmt::format("{}() argument 1 must be list, not {}", fname, I.type_name(v)));
  return *l;
}

void siftdown(Interp& I, std::vector<Value>& heap, size_t startpos, size_t pos) {
  Value newitem = heap[pos];
  while (pos > startpos) {
    size_t parentpos = (pos - 1) >> 1;
    Value parent = heap[parentpos];
    if (lt_fast(I, newitem, parent)) {
      heap[pos] = parent;
      pos = parentpos;
      continue;
    }
    break;
  }
  heap[pos] = newitem;
}

void siftup(Interp& I, std::vector<Value>& heap, size_t pos) {
  size_t endpos = heap.size(), startpos = pos;
  Value newitem = heap[pos];
  size_t childpos = 2 * pos + 1;
  while (childpos < endpos) {
    size_t rightpos = childpos + 1;
    if (rightpos < endpos && !lt_fast(I, heap[childpos], heap[rightpos])) childpos = rightpos;
    heap[pos] = heap[childpos];
    pos = childpos;
    childpos = 2 * pos + 1;
  }
  heap[pos] = newitem;
  siftdown(I, heap, startpos, pos);
}

Value heappop_impl(Interp& I, std::vector<Value>& heap) {
  if (heap.empty()) I.raise("IndexError", "index out of range");
  Value last = heap.back();
  heap.pop_back();
  if (heap.empty()) return last;
  Value ret = heap[0];
  heap[0] = last;
  siftup(I, heap, 0);
  return ret;
}

Value n_best(Interp& I, CallArgs& a, bool largest) {
  const char* name = largest ? "nlargest" : "nsmallest";
  ArgParser p(I, a, name, {"n", "iterable", "key="});
  int64_t n = index_of(I, p.get("n"), "");
  std::vector<Value> items = collect(I, p.get("iterable"));
  Value key = p.get("key");
  std::vector<Value> keys;
  if (key && key->kind != ObjKind::None)
    for (auto& x : items) keys.push_back(I.call(key, std::vector<Value>{x}));
  stable_sort(I, items, keys.empty() ? nullptr : &keys, largest);
  if (n < 0) n = 0;
  if (size_t(n) < items.size()) items.resize(size_t(n));
  return make_list(std::move(items));
}

void fill_heapq(Interp&, ModuleObj& m) {
  auto add = [&](const char* name, NativeFn fn) { m.dict.set(name, make_builtin(name, std::move(fn))); };
  add("heappush", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "heappush", 2, 2);
    auto& h = heap_arg(I, a.args[0], "heappush");
    h.items.push_back(a.args[1]);
    siftdown(I, h.items, 0, h.items.size() - 1);
    return none();
  });
  add("heappop", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "heappop", 1, 1);
    return heappop_impl(I, heap_arg(I, a.args[0], "heappop").items);
  });
  add("heapify", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "heapify", 1, 1);
    auto& h = heap_arg(I, a.args[0], "heapify");
    for (size_t i = h.items.size() / 2; i-- > 0;) siftup(I, h.items, i);
    return none();
  });
  add("heappushpop", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "heappushpop", 2, 2);
    auto& h = heap_arg(I, a.args[0], "heappushpop");
    Value item = a.args[1];
    if (!h.items.empty() && lt_fast(I, h.items[0], item)) {
      std::swap(item, h.items[0]);
      siftup(I, h.items, 0);
    }
    return item;
  });
  add("heapreplace", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "heapreplace", 2, 2);
    auto& h = heap_arg(I, a.args[0], "heapreplace");
    if (h.items.empty()) I.raise("IndexError", "index out of range");
    Value ret = h.items[0];
    h.items[0] = a.args[1];
    siftup(I, h.items, 0);
    return ret;
  });
  add("nlargest", [](Interp& I, CallArgs& a) { return n_best(I, a, true); });
  add("nsmallest", [](Interp& I, CallArgs& a) { return n_best(I, a, false); });
}

}  // namespace

void register_string_operator_bisect_heapq_modules() {
  Interp::register_builtin_module("string", fill_string);
  Interp::register_builtin_module("operator", fill_operator);
  Interp::register_builtin_module("bisect", fill_bisect);
  Interp::register_builtin_module("heapq", fill_heapq);
}

}  // namespace shard::interp::bi
