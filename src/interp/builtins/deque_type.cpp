// collections.deque (mod_collections.cpp): a ListObj with an optional maxlen.
#include <fmt/format.h>

#include <algorithm>

#include "interp/builtins/seq_common.hpp"

namespace shard::interp::bi {

namespace {

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

void init_deque(ModuleObj& m) {
  if (!g_deque) init_deque_class();
  m.dict.set("deque", g_deque);
}

}  // namespace shard::interp::bi
