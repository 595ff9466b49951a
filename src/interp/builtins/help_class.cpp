// help(cls): pydoc's page for a class. The class line with its bases, the constructor's
// signature, the docstring, the method resolution order when there are bases besides object,
// then per class of the MRO (itself: "defined here", each base: "inherited from B") its
// methods, class methods, static methods, read-only properties, data descriptors and other
// attributes, each kind sorted by name. Classes written in Python print what CPython 3.11
// prints; native classes (jax.Array, NamedSharding, ...) use the same layout with `name(...)`
// for their methods.
#include <algorithm>

#include <fmt/format.h>

#include "interp/builtins/help_text.hpp"
#include "interp/builtins/support.hpp"

namespace shard::interp::bi::help {

namespace {

bool is_dunder(const std::string& n) {
  return n.size() > 4 && n.compare(0, 2, "__") == 0 && n.compare(n.size() - 2, 2, "__") == 0;
}

// pydoc's visiblename for class attributes: private names hidden, special names shown
// except the bookkeeping ones.
bool visible(const std::string& n) {
  static const char* hidden[] = {"__author__", "__builtins__", "__cached__", "__credits__", "__date__", "__doc__",
                                 "__file__",   "__spec__",     "__loader__", "__module__",  "__name__", "__package__",
                                 "__path__",   "__qualname__", "__slots__",  "__version__"};
  for (const char* h : hidden)
    if (n == h) return false;
  return !n.empty() && (n[0] != '_' || is_dunder(n));
}

// A class from a `class` statement (its namespace got __qualname__), not a native one.
bool is_python_class(ClassObj& c) { return c.dict.find("__qualname__") != nullptr; }

std::vector<ClassObj*> mro_of(ClassObj& c) {
  if (!c.mro.empty()) return c.mro;
  std::vector<ClassObj*> chain;
  for (ClassObj* k = &c; k; k = k->bases.empty() ? nullptr : k->bases[0].get()) chain.push_back(k);
  return chain;
}

// How pydoc names a class seen from `module`: bare when it is defined there.
std::string class_name(const ClassObj& c, const std::string& module) {
  return c.module == module ? c.name : c.module + "." + c.name;
}

std::string str_of_doc(const Value* v) { return v && *v && is(*v, ObjKind::Str) ? as<StrObj>(*v).v : ""; }

std::string doc_of(const Value& fn) {
  return is(fn, ObjKind::Function) ? str_of_doc(as<FunctionObj>(fn).dict.find("__doc__")) : "";
}

enum class Kind { Method, ClassMethod, StaticMethod, ReadonlyProperty, DataDescriptor, Data };
constexpr Kind kKinds[] = {Kind::Method, Kind::ClassMethod, Kind::StaticMethod, Kind::ReadonlyProperty,
                           Kind::DataDescriptor, Kind::Data};
const char* kind_title(Kind k) {
  switch (k) {
    case Kind::Method: return "Methods";
    case Kind::ClassMethod: return "Class methods";
    case Kind::StaticMethod: return "Static methods";
    case Kind::ReadonlyProperty: return "Readonly properties";
    case Kind::DataDescriptor: return "Data descriptors";
    case Kind::Data: return "Data and other attributes";
  }
  return "";
}

Kind kind_of(const Value& v) {
  if (is(v, ObjKind::Function) || is(v, ObjKind::Builtin)) return Kind::Method;
  if (is(v, ObjKind::ClassMethod)) return Kind::ClassMethod;
  if (is(v, ObjKind::StaticMethod)) return Kind::StaticMethod;
  if (is(v, ObjKind::Property)) return as<WrapperObj>(v).fset ? Kind::DataDescriptor : Kind::ReadonlyProperty;
  return Kind::Data;
}

struct Attr {
  std::string name;
  Kind kind;
  Value value;  // null for __dict__ / __weakref__
};

// One entry's lines (each after " |  "), ending with the blank line pydoc leaves after it.
std::string entry_text(Interp& I, const Attr& a, const ClassObj& cls) {
  const std::string p = " |  ";
  std::string out;
  switch (a.kind) {
    case Kind::Method:
      out = function_body(I, a.value, p);
      break;
    case Kind::ClassMethod: {
      const Value& f = as<WrapperObj>(a.value).fget;
      if (is(f, ObjKind::Function)) {
        out = p + function_signature(I, as<FunctionObj>(f), true) + " from " + class_name(*cls.cls, "") + "\n";
        if (auto d = doc_of(f); !d.empty()) out += indented(d, p + "    ");
      } else {
        out = function_body(I, f, p);
      }
      break;
    }
    case Kind::StaticMethod:
      out = function_body(I, as<WrapperObj>(a.value).fget, p);
      break;
    case Kind::ReadonlyProperty:
    case Kind::DataDescriptor: {
      out = p + a.name + "\n";
      if (a.name == "__dict__" && !a.value) out += p + "    dictionary for instance variables (if defined)\n";
      else if (a.name == "__weakref__" && !a.value) out += p + "    list of weak references to the object (if defined)\n";
      else if (auto d = doc_of(as<WrapperObj>(a.value).fget); !d.empty()) out += indented(d, p + "    ");
      break;
    }
    case Kind::Data:
      out = p + a.name + " = " + I.repr(a.value) + "\n";
      break;
  }
  return out + p + "\n";
}

}  // namespace

std::string class_page(Interp& I, const Value& c) {
  auto& cls = as<ClassObj>(c);
  const std::string p = " |  ";
  std::vector<std::string> bases;
  for (auto& b : cls.bases) bases.push_back(class_name(*b, cls.module));
  if (bases.empty()) bases.push_back(class_name(*T().object, cls.module));
  std::string head = fmt::format("class {}({})\n", cls.name, fmt::join(bases, ", "));
  std::string body;
  // The constructor's signature, from __init__ (when a Python class defines or inherits one).
  if (Value* init = cls.lookup("__init__"); init && *init && is(*init, ObjKind::Function)) {
    std::string sig = function_signature(I, as<FunctionObj>(*init), true);
    sig = sig.substr(sig.find('('));
    if (sig != "()") body += p + cls.name + sig + "\n" + p + "\n";
  }
  if (auto d = str_of_doc(cls.dict.find("__doc__")); !d.empty()) body += indented(d, p) + p + "\n";
  auto mro = mro_of(cls);
  if (mro.size() > 2) {
    body += p + "Method resolution order:\n";
    for (ClassObj* k : mro) body += p + "    " + (k == &cls ? k->name : class_name(*k, cls.module)) + "\n";
    body += p + "\n";
  }
  // Each attribute once, under the first class of the MRO that has it; object's are left out.
  std::vector<std::string> seen;
  bool first_section = true;
  for (ClassObj* k : mro) {
    if (k == T().object.get()) continue;
    std::vector<Attr> attrs;
    for (const auto& [name, v] : k->dict.entries) {
      if (!v || !visible(name) || std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
      seen.push_back(name);
      attrs.push_back(Attr{name, kind_of(v), v});
    }
    // A Python class whose bases are all native adds the instance __dict__ and __weakref__.
    if (is_python_class(*k) && std::none_of(k->bases.begin(), k->bases.end(), [](const ClassP& b) { return is_python_class(*b); }))
      for (const char* name : {"__dict__", "__weakref__"})
        if (std::find(seen.begin(), seen.end(), name) == seen.end()) {
          seen.push_back(name);
          attrs.push_back(Attr{name, Kind::DataDescriptor, nullptr});
        }
    std::sort(attrs.begin(), attrs.end(), [](const Attr& a, const Attr& b) { return a.name < b.name; });
    const std::string where = k == &cls ? "defined here" : "inherited from " + class_name(*k, cls.module);
    for (Kind kind : kKinds) {
      std::string entries;
      for (const Attr& a : attrs)
        if (a.kind == kind) entries += entry_text(I, a, cls);
      if (entries.empty()) continue;
      if (!first_section) body += p + std::string(70, '-') + "\n";
      first_section = false;
      body += p + kind_title(kind) + " " + where + ":\n" + p + "\n" + entries;
    }
  }
  // pydoc strips the page's trailing blank lines.
  while (body.size() >= p.size() + 1 && body.compare(body.size() - p.size() - 1, p.size() + 1, p + "\n") == 0)
    body.erase(body.size() - p.size() - 1);
  return head + body + "\n";
}

}  // namespace shard::interp::bi::help
