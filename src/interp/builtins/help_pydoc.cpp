// pydoc's text pieces (help_text.hpp): cleaned docstrings, signatures, the comment block
// shown for an undocumented function.
#include <sstream>

#include <fmt/format.h>

#include "ast/source.hpp"
#include "interp/builtins/help_text.hpp"
#include "interp/builtins/support.hpp"
#include "interp/native_docs.hpp"

namespace shard::interp::bi::help {

namespace {

// inspect.cleandoc: the first line stripped, the others dedented by their common indent,
// leading and trailing blank lines dropped.
std::vector<std::string> clean_doc(const std::string& doc) {
  std::vector<std::string> lines;
  std::istringstream in(doc);
  for (std::string l; std::getline(in, l);) {
    for (auto& c : l)
      if (c == '\t') c = ' ';  // expandtabs is 8 columns; docstrings here use spaces
    lines.push_back(l);
  }
  if (lines.empty()) return lines;
  size_t indent = std::string::npos;
  for (size_t i = 1; i < lines.size(); ++i) {
    size_t first = lines[i].find_first_not_of(' ');
    if (first != std::string::npos) indent = std::min(indent, first);
  }
  auto strip_left = [](const std::string& s) {
    size_t f = s.find_first_not_of(' ');
    return f == std::string::npos ? std::string() : s.substr(f);
  };
  lines[0] = strip_left(lines[0]);
  for (size_t i = 1; i < lines.size(); ++i)
    lines[i] = indent == std::string::npos || lines[i].size() < indent ? strip_left(lines[i]) : lines[i].substr(indent);
  for (auto& l : lines)
    while (!l.empty() && l.back() == ' ') l.pop_back();
  while (!lines.empty() && lines.front().empty()) lines.erase(lines.begin());
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}


size_t indent_of(std::string_view line) {
  size_t n = 0;
  while (n < line.size() && line[n] == ' ') ++n;
  return n;
}

std::string_view lstrip(std::string_view s) {
  size_t n = indent_of(s);
  return s.substr(n);
}

// A function without a docstring shows the comment block right above its definition (its
// first decorator), as inspect.getcomments finds it: '#' lines of the same indentation, the
// lines that are a bare '#' trimmed from both ends.
std::string comments_above(const FunctionObj& fn) {
  if (!fn.def) return "";
  ast::Loc loc = fn.def->loc;
  for (auto& d : fn.def->decorators)
    if (d && d->loc.file == loc.file && d->loc.line && d->loc.line < loc.line) loc = d->loc;
  if (!loc.file || loc.line < 2) return "";
  const size_t indent = indent_of(ast::source_line(loc.file, loc.line));
  std::vector<std::string> lines;
  for (uint32_t l = loc.line - 1; l >= 1; --l) {
    std::string_view text = ast::source_line(loc.file, l);
    if (lstrip(text).substr(0, 1) != "#" || indent_of(text) != indent) break;
    lines.insert(lines.begin(), std::string(lstrip(text)));
  }
  auto bare = [](const std::string& c) { return c.find_first_not_of(" \t", 1) == std::string::npos; };
  while (!lines.empty() && bare(lines.front())) lines.erase(lines.begin());
  while (!lines.empty() && bare(lines.back())) lines.pop_back();
  std::string out;
  for (auto& l : lines) out += l + "\n";
  return out;
}

// pydoc's text of comments: as they are, trailing whitespace dropped, each line indented.
std::string indented_raw(const std::string& text, const std::string& prefix) {
  std::string out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    while (!l.empty() && (l.back() == ' ' || l.back() == '\t')) l.pop_back();
    out += prefix + l + "\n";
  }
  return out;
}

// The docstrings of object's (and type's) special methods, which pydoc shows for a method
// without a docstring of its own that overrides one of them (inspect's search up the MRO).
// These are CPython's texts: help() must print what CPython prints.
const char* object_method_doc(std::string_view name) {
  static const std::pair<const char*, const char*> docs[] = {
      {"__init__", "Initialize self.  See help(type(self)) for accurate signature."},
      {"__repr__", "Return repr(self)."},
      {"__str__", "Return str(self)."},
      {"__eq__", "Return self==value."},
      {"__ne__", "Return self!=value."},
      {"__lt__", "Return self<value."},
      {"__le__", "Return self<=value."},
      {"__gt__", "Return self>value."},
      {"__ge__", "Return self>=value."},
      {"__hash__", "Return hash(self)."},
      {"__format__", "Default object formatter."},
      {"__getattribute__", "Return getattr(self, name)."},
      {"__setattr__", "Implement setattr(self, name, value)."},
      {"__delattr__", "Implement delattr(self, name)."},
      {"__sizeof__", "Size of object in memory, in bytes."},
      {"__reduce__", "Helper for pickle."},
      {"__reduce_ex__", "Helper for pickle."},
      {"__dir__", "Default dir() implementation."},
      {"__call__", "Call self as a function."},  // found on type, through object
      {"__or__", "Return self|value."},
      {"__ror__", "Return value|self."},
  };
  for (auto& [n, d] : docs)
    if (name == n) return d;
  return nullptr;
}

std::string doc_string(const Value* v) { return v && *v && is(*v, ObjKind::Str) ? as<StrObj>(*v).v : ""; }

// The class a function was defined in, from its __qualname__ ("C.f", "Outer.C.f") through its
// module's globals; null for module-level and local functions.
ClassObj* defining_class(FunctionObj& fn) {
  if (!fn.globals) return nullptr;
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t dot = fn.qualname.find('.', start);
    if (dot == std::string::npos) break;
    parts.push_back(fn.qualname.substr(start, dot - start));
    start = dot + 1;
  }
  if (parts.empty()) return nullptr;
  Value* v = fn.globals->dict.find(parts[0]);
  for (size_t i = 1; v && *v && is(*v, ObjKind::Class) && i < parts.size(); ++i) v = as<ClassObj>(*v).dict.find(parts[i]);
  return v && *v && is(*v, ObjKind::Class) ? &as<ClassObj>(*v) : nullptr;
}

// What pydoc shows for a function without a docstring of its own (inspect's search): the
// docstring of the same name up the MRO of its class (the receiver's class for a bound
// method), then object's for a special method.
std::string inherited_doc(FunctionObj& fn, const Value& bound_to) {
  ClassObj* cls = bound_to ? (is(bound_to, ObjKind::Class) ? &as<ClassObj>(bound_to) : bound_to->cls.get()) : defining_class(fn);
  if (!cls) return "";
  std::vector<ClassObj*> mro = cls->mro;
  if (mro.empty())
    for (ClassObj* k = cls; k; k = k->bases.empty() ? nullptr : k->bases[0].get()) mro.push_back(k);
  for (ClassObj* k : mro)
    if (Value* v = k->dict.find(fn.name); v && *v) {
      const Value& f = is(*v, ObjKind::ClassMethod) || is(*v, ObjKind::StaticMethod) ? as<WrapperObj>(*v).fget : *v;
      if (is(f, ObjKind::Function))
        if (auto d = doc_string(as<FunctionObj>(f).dict.find("__doc__")); !d.empty()) return d;
    }
  const char* d = object_method_doc(fn.name);
  return d ? d : "";
}

}  // namespace

std::string indented(const std::string& doc, const std::string& prefix) {
  std::string out;
  for (auto& l : clean_doc(doc)) out += prefix + l + "\n";
  return out;
}

std::string str_attr(Interp& I, const Value& obj, const char* name) {
  auto v = I.try_getattr(obj, name);
  return v && is(*v, ObjKind::Str) ? as<StrObj>(*v).v : std::string();
}

// `f(a, b=1, *args, c, **kw)`; a lambda reads `<lambda> lambda a, b=1` (pydoc's form); a
// bound method leaves out its first parameter (`bound`).
std::string function_signature(Interp& I, FunctionObj& fn, bool bound) {
  std::vector<std::string> parts;
  if (fn.params) {
    const auto& ps = *fn.params;
    const size_t first_default = ps.positional.size() - fn.defaults.size();
    for (size_t i = bound ? 1 : 0; i < ps.positional.size(); ++i)
      parts.push_back(i >= first_default ? ps.positional[i].name + "=" + I.repr(fn.defaults[i - first_default])
                                         : ps.positional[i].name);
    if (ps.vararg) parts.push_back("*" + ps.vararg->name);
    else if (!ps.kwonly.empty()) parts.push_back("*");
    for (auto& p : ps.kwonly) {
      const Value* d = fn.kwdefaults.find(p.name);
      parts.push_back(d && *d ? p.name + "=" + I.repr(*d) : p.name);
    }
    if (ps.kwarg) parts.push_back("**" + ps.kwarg->name);
  }
  if (fn.lambda) return fmt::format("{} lambda {}", fn.name, fmt::join(parts, ", "));
  return fmt::format("{}({})", fn.name, fmt::join(parts, ", "));
}

// The signature line and docstring of a function or native (without the "Help on" title);
// `bound_to` is the receiver of a bound method (its class named after the signature).
std::string function_body(Interp& I, const Value& f, const std::string& prefix, const Value& bound_to) {
  if (is(f, ObjKind::Function)) {
    auto& fn = as<FunctionObj>(f);
    std::string signature = function_signature(I, fn, bound_to != nullptr);
    if (bound_to) {
      // pydoc names the receiver's class by module and __name__ (not __qualname__); a class
      // method's receiver is a class, an instance of its metaclass (CPython 3.11's wording).
      const ClassObj& owner = *bound_to->cls;
      signature += fmt::format(" method of {}.{} instance", owner.module, owner.name);
    }
    std::string out = prefix + signature + "\n";
    if (const Value* doc = fn.dict.find("__doc__"); doc && *doc && is(*doc, ObjKind::Str))
      out += indented(as<StrObj>(*doc).v, prefix + "    ");
    else if (auto inherited = inherited_doc(fn, bound_to); !inherited.empty())
      out += indented(inherited, prefix + "    ");
    else
      out += indented_raw(comments_above(fn), prefix + "    ");
    return out;
  }
  auto& b = as<BuiltinObj>(f);
  auto doc = b.self ? nullptr : native_doc(&b);
  std::string out = prefix + (doc && !doc->signature.empty() ? doc->signature : b.name + "(...)") + "\n";
  if (doc && !doc->text.empty()) out += indented(doc->text, prefix + "    ");
  return out;
}

bool is_callable_entry(const Value& v) { return is(v, ObjKind::Function) || is(v, ObjKind::Builtin); }

}  // namespace shard::interp::bi::help
