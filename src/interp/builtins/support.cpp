// Helpers for defining native classes and functions (see support.hpp): class registration,
// the exception registry, argument checks with CPython's messages and unwrapping of receivers.
// Helpers for values are in support_values.cpp, for sequences in support_sequences.cpp.
#include "interp/builtins/support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <unordered_set>

namespace shard::interp::bi {

// ---- classes ----

namespace {
std::unordered_set<const ClassObj*>& native_layouts() {
  static std::unordered_set<const ClassObj*> s;
  return s;
}
std::map<std::string, ClassP, std::less<>>& exc_registry() {
  static std::map<std::string, ClassP, std::less<>> m;
  return m;
}
}  // namespace

// Classes may be created at run time (namedtuple) while other threads query the set.
std::shared_mutex g_layout_mutex;

void mark_native_layout(const ClassObj* c) {
  std::unique_lock lock(g_layout_mutex);
  native_layouts().insert(c);
}

bool is_native_layout(const ClassObj* c) {
  std::shared_lock lock(g_layout_mutex);
  return native_layouts().count(c) != 0;
}

ClassP native_class(std::string name, ClassP base, std::string module, ObjKind instance_kind) {
  auto c = make_class(std::move(name), {base ? base : T().object}, std::move(module));
  c->instance_kind = instance_kind;
  mark_native_layout(c.get());
  return c;
}

void def(const ClassP& cls, const std::string& name, NativeFn fn) {
  cls->dict.set(name, make_builtin(name, std::move(fn)));
}

void def_property(const ClassP& cls, const std::string& name, NativeFn get, NativeFn set) {
  auto p = std::make_shared<WrapperObj>(ObjKind::Property, T().property, make_builtin(name, std::move(get)));
  if (set) p->fset = make_builtin(name, std::move(set));
  cls->dict.set(name, p);
}

void def_classmethod(const ClassP& cls, const std::string& name, NativeFn fn) {
  cls->dict.set(name, std::make_shared<WrapperObj>(ObjKind::ClassMethod, T().classmethod,
                                                   make_builtin(name, std::move(fn))));
}

void def_staticmethod(const ClassP& cls, const std::string& name, NativeFn fn) {
  cls->dict.set(name, std::make_shared<WrapperObj>(ObjKind::StaticMethod, T().staticmethod,
                                                   make_builtin(name, std::move(fn))));
}

ClassP class_ptr(const ClassP& root, const ClassObj* target) {
  if (root.get() == target) return root;
  for (auto& b : root->bases)
    if (auto p = class_ptr(b, target)) return p;
  return nullptr;
}

Value wrap_for_class(const ClassP& cls, Value v) {
  if (!cls || is_native_layout(cls.get())) {
    if (cls && v->cls != cls) v->cls = cls;
    return v;
  }
  auto inst = std::make_shared<InstanceObj>(cls);
  inst->native = std::move(v);
  return inst;
}

// ---- exceptions ----

ClassP exc_class(std::string_view name) {
  auto& m = exc_registry();
  auto it = m.find(name);
  return it == m.end() ? T().exception : it->second;
}

void register_exc_class(const ClassP& c) { exc_registry()[c->name] = c; }

bool exc_is(const PyError& e, std::string_view type) {
  if (!e.exc || !e.exc->cls) return false;
  ClassP c = exc_class(type);
  return e.exc->cls->is_subclass_of(c.get());
}

[[noreturn]] void raise_format_error(Interp& I, const numfmt::FormatError& e) { I.raise(e.type, e.msg); }

// ---- arguments ----

void no_kwargs(Interp& I, const CallArgs& a, std::string_view fname) {
  if (!a.kwargs.empty()) I.raise("TypeError", fmt::format("{}() takes no keyword arguments", fname));
}

namespace {
std::string short_name(std::string_view f) {
  auto dot = f.rfind('.');
  return std::string(dot == std::string_view::npos ? f : f.substr(dot + 1));
}
void check_count(Interp& I, std::string_view fname, size_t n, size_t min, size_t max) {
  if (n >= min && n <= max) return;
  std::string sn0 = short_name(fname);
  if (min == max && sn0.size() > 4 && sn0.rfind("__", 0) == 0 && sn0.compare(sn0.size() - 2, 2, "__") == 0)
    I.raise("TypeError", fmt::format("expected {} argument{}, got {}", min, min == 1 ? "" : "s", n));  // slot wrappers
  if (max == 0) I.raise("TypeError", fmt::format("{}() takes no arguments ({} given)", fname, n));
  if (min == 1 && max == 1)
    I.raise("TypeError", fmt::format("{}() takes exactly one argument ({} given)", fname, n));
  std::string sn = short_name(fname);
  if (min == max)
    I.raise("TypeError", fmt::format("{} expected {} argument{}, got {}", sn, min, min == 1 ? "" : "s", n));
  if (n < min)
    I.raise("TypeError", fmt::format("{} expected at least {} argument{}, got {}", sn, min, min == 1 ? "" : "s", n));
  I.raise("TypeError", fmt::format("{} expected at most {} argument{}, got {}", sn, max, max == 1 ? "" : "s", n));
}
}  // namespace

namespace {
[[noreturn]] void missing_self(Interp& I, std::string_view fname) {
  auto dot = fname.rfind('.');
  std::string_view meth = dot == std::string_view::npos ? fname : fname.substr(dot + 1);
  bool dunder = meth.size() > 4 && meth.substr(0, 2) == "__";
  if (dot == std::string_view::npos || !dunder)
    I.raise("TypeError", fmt::format("unbound method {}() needs an argument", fname));
  I.raise("TypeError", fmt::format("descriptor '{}' of '{}' object needs an argument", fname.substr(dot + 1),
                                   fname.substr(0, dot)));
}
}  // namespace

void method_nargs(Interp& I, const CallArgs& a, std::string_view fname, size_t min, size_t max) {
  if (a.args.empty()) missing_self(I, fname);
  no_kwargs(I, a, fname);
  check_count(I, fname, a.args.empty() ? 0 : a.args.size() - 1, min, max);
}

void method_nargs_old(Interp& I, const CallArgs& a, std::string_view fname, size_t min, size_t max) {
  if (a.args.empty()) missing_self(I, fname);
  no_kwargs(I, a, fname);
  size_t n = a.args.empty() ? 0 : a.args.size() - 1;
  if (n < min)
    I.raise("TypeError", fmt::format("{}() takes at least {} argument{} ({} given)", fname, min, min == 1 ? "" : "s", n));
  if (n > max)
    I.raise("TypeError", fmt::format("{}() takes at most {} argument{} ({} given)", fname, max, max == 1 ? "" : "s", n));
}

void func_nargs(Interp& I, const CallArgs& a, std::string_view fname, size_t min, size_t max) {
  no_kwargs(I, a, fname);
  check_count(I, fname, a.args.size(), min, max);
}

const Value* find_kwarg(const CallArgs& a, std::string_view name) {
  for (auto& [k, v] : a.kwargs)
    if (k == name) return &v;
  return nullptr;
}

CallArgs args_after(const CallArgs& a, size_t n) {
  CallArgs out;
  out.args.assign(a.args.begin() + std::min(n, a.args.size()), a.args.end());
  out.kwargs = a.kwargs;
  out.loc = a.loc;
  return out;
}

// ---- small tuples ----

Value int_tuple(const std::vector<int64_t>& xs) {
  std::vector<Value> items;
  items.reserve(xs.size());
  for (int64_t x : xs) items.push_back(make_int(x));
  return make_tuple(std::move(items));
}

Value str_tuple(const std::vector<std::string>& xs) {
  std::vector<Value> items;
  items.reserve(xs.size());
  for (const auto& x : xs) items.push_back(make_str(x));
  return make_tuple(std::move(items));
}

// ---- unwrapping ----

const Value& native_of(const Value& v) {
  if (v && v->kind == ObjKind::Instance) {
    auto& inst = static_cast<InstanceObj&>(*v);
    if (inst.native) return inst.native;
  }
  return v;
}

std::optional<int64_t> int_of(const Value& v) {
  const Value& n = native_of(v);
  if (!n) return std::nullopt;
  if (n->kind == ObjKind::Int) return static_cast<IntObj&>(*n).v;
  if (n->kind == ObjKind::Bool) return static_cast<BoolObj&>(*n).v ? 1 : 0;
  return std::nullopt;
}

std::optional<double> real_of(const Value& v) {
  const Value& n = native_of(v);
  if (!n) return std::nullopt;
  if (n->kind == ObjKind::Float) return static_cast<FloatObj&>(*n).v;
  if (n->kind == ObjKind::Int) return double(static_cast<IntObj&>(*n).v);
  if (n->kind == ObjKind::Bool) return static_cast<BoolObj&>(*n).v ? 1.0 : 0.0;
  return std::nullopt;
}

StrObj* str_of(const Value& v) { return unwrap<StrObj>(v, ObjKind::Str); }

void bad_self(Interp& I, const CallArgs& a, std::string_view type, std::string_view meth) {
  if (a.args.empty())
    I.raise("TypeError", fmt::format("unbound method {}.{}() needs an argument", type, meth));
  I.raise("TypeError", fmt::format("descriptor '{}' for '{}' objects doesn't apply to a '{}' object",
                                   meth, type, I.type_name(a.args[0])));
}

std::optional<int64_t> try_index(Interp& I, const Value& v) {
  if (auto i = int_of(v)) return i;
  if (!v || (v->kind != ObjKind::Instance && v->kind != ObjKind::Native)) return std::nullopt;
  if (!v->cls->lookup("__index__")) return std::nullopt;
  auto r = I.call_method(v, "__index__", {});
  if (!r) return std::nullopt;
  if (auto i = int_of(*r)) return i;
  I.raise("TypeError", fmt::format("__index__ returned non-int (type {})", I.type_name(*r)));
}

int64_t index_of(Interp& I, const Value& v, const std::string& msg) {
  if (auto i = try_index(I, v)) return *i;
  std::string m = msg.empty() ? "'{}' object cannot be interpreted as an integer" : msg;
  I.raise("TypeError", fmt::format(fmt::runtime(m), I.type_name(v)));
}

const std::string& str_arg(Interp& I, const Value& v, std::string_view what) {
  if (auto* s = str_of(v)) return s->v;
  I.raise("TypeError", fmt::format("{} must be str, not {}", what, I.type_name(v)));
}

}  // namespace shard::interp::bi
