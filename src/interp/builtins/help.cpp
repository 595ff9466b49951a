// help(obj): prints an object's documentation as CPython's pydoc does on a plain (non-tty)
// stdout: "Help on function f in module m:", the signature line, the docstring indented.
// Functions of the host interpreter are shown from their definition; natives from the
// docstring attached to them (interp/native_docs.hpp); modules list their documented
// functions; classes their methods. There is no interactive help (help() says so).
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "ast/source.hpp"
#include "interp/builtins/support.hpp"
#include "interp/native_docs.hpp"

namespace shard::interp::bi {

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

// Each docstring line after `prefix` (blank lines keep the prefix, as pydoc's do).
std::string indented(const std::string& doc, const std::string& prefix) {
  std::string out;
  for (auto& l : clean_doc(doc)) out += prefix + l + "\n";
  return out;
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

std::string str_attr(Interp& I, const Value& obj, const char* name) {
  auto v = I.try_getattr(obj, name);
  return v && is(*v, ObjKind::Str) ? as<StrObj>(*v).v : std::string();
}

std::string function_signature(Interp& I, FunctionObj& fn) {
  std::vector<std::string> parts;
  if (fn.params) {
    const auto& ps = *fn.params;
    const size_t first_default = ps.positional.size() - fn.defaults.size();
    for (size_t i = 0; i < ps.positional.size(); ++i)
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
  return fmt::format("{}({})", fn.name, fmt::join(parts, ", "));
}

// The signature line and docstring of a function or native (without the "Help on" title).
std::string function_body(Interp& I, const Value& f, const std::string& prefix) {
  if (is(f, ObjKind::Function)) {
    auto& fn = as<FunctionObj>(f);
    std::string out = prefix + function_signature(I, fn) + "\n";
    if (const Value* doc = fn.dict.find("__doc__"); doc && *doc && is(*doc, ObjKind::Str))
      out += indented(as<StrObj>(*doc).v, prefix + "    ");
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

std::string function_help(Interp& I, const Value& f) {
  std::string kind = "function", name, module;
  if (is(f, ObjKind::Function)) {
    name = as<FunctionObj>(f).name;
    module = str_attr(I, f, "__module__");
  } else {
    auto& b = as<BuiltinObj>(f);
    name = b.name;
    auto doc = b.self ? nullptr : native_doc(&b);
    kind = doc && !doc->kind.empty() ? doc->kind : "built-in function";
    module = doc ? doc->module : b.self ? std::string() : std::string("builtins");
  }
  std::string title = module.empty() ? fmt::format("Help on {} {}:\n\n", kind, name)
                                     : fmt::format("Help on {} {} in module {}:\n\n", kind, name, module);
  return title + function_body(I, f, "") + "\n";
}

bool is_callable_entry(const Value& v) { return is(v, ObjKind::Function) || is(v, ObjKind::Builtin); }

std::string class_help(Interp& I, const Value& c) {
  auto& cls = as<ClassObj>(c);
  std::vector<std::string> bases;
  for (auto& b : cls.bases) bases.push_back(b->module == "builtins" ? "builtins." + b->name : b->name);
  if (bases.empty()) bases.push_back("builtins.object");
  std::string out = fmt::format("Help on class {} in module {}:\n\nclass {}({})\n", cls.name, cls.module, cls.name,
                                fmt::join(bases, ", "));
  if (const Value* doc = cls.dict.find("__doc__"); doc && *doc && is(*doc, ObjKind::Str)) out += indented(as<StrObj>(*doc).v, " |  ");
  std::string methods;
  for (const auto& [name, v] : cls.dict.entries)
    if (v && is_callable_entry(v) && (name.size() < 2 || name.compare(0, 2, "__") != 0 || name == "__init__"))
      methods += " |  \n" + function_body(I, v, " |  ");
  if (!methods.empty()) out += " |  \n |  Methods defined here:\n" + methods;
  return out + "\n";
}

std::string module_help(Interp& I, const Value& m) {
  auto& mod = as<ModuleObj>(m);
  std::string out = fmt::format("Help on module {}:\n\nNAME\n    {}\n\n", mod.name, mod.name);
  if (const Value* doc = mod.dict.find("__doc__"); doc && *doc && is(*doc, ObjKind::Str))
    out += "DESCRIPTION\n" + indented(as<StrObj>(*doc).v, "    ") + "\n";
  // The documented functions, in name order; the rest by name only.
  std::vector<std::pair<std::string, Value>> entries;
  for (const auto& [name, v] : mod.dict.entries)
    if (v && is_callable_entry(v) && !name.empty() && name[0] != '_') entries.emplace_back(name, v);
  std::sort(entries.begin(), entries.end(), [](auto& a, auto& b) { return a.first < b.first; });
  std::string documented, others;
  for (auto& [name, v] : entries) {
    const bool has_doc = is(v, ObjKind::Function) ? as<FunctionObj>(v).dict.find("__doc__") != nullptr
                                                  : native_doc(v.get()) && !native_doc(v.get())->text.empty();
    if (has_doc) documented += function_body(I, v, "    ") + "\n";
    else others += (others.empty() ? "    " : ", ") + name;
  }
  if (!documented.empty()) out += "FUNCTIONS\n" + documented;
  if (!others.empty()) out += "OTHER FUNCTIONS (undocumented)\n" + others + "\n\n";
  return out;
}

// help("jax.numpy.sum"): the longest importable module prefix, then attributes.
std::optional<Value> locate(Interp& I, const std::string& path) {
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  for (size_t n = parts.size(); n >= 1; --n) {
    std::string module = parts[0];
    for (size_t i = 1; i < n; ++i) module += "." + parts[i];
    Value obj;
    try {
      obj = I.import_module(module, I.current_loc());
    } catch (const PyError&) {
      continue;
    }
    for (size_t i = n; i < parts.size() && obj; ++i) {
      auto next = I.try_getattr(obj, parts[i]);
      if (!next) return std::nullopt;
      obj = *next;
    }
    return obj;
  }
  if (parts.size() == 1)
    if (Value* v = I.builtins()->dict.find(parts[0]); v && *v) return *v;
  return std::nullopt;
}

std::string help_text(Interp& I, const Value& obj) {
  if (is(obj, ObjKind::Function) || is(obj, ObjKind::Builtin)) return function_help(I, obj);
  if (is(obj, ObjKind::Module)) return module_help(I, obj);
  if (is(obj, ObjKind::Class)) return class_help(I, obj);
  if (is(obj, ObjKind::BoundMethod)) return help_text(I, as<BoundMethodObj>(obj).func);
  return class_help(I, obj->cls);  // an instance: its class, as pydoc does
}

Value builtin_help(Interp& I, CallArgs& a) {
  func_nargs(I, a, "help", 0, 1);
  no_kwargs(I, a, "help");
  std::string text;
  if (a.args.empty()) {
    text = "help(obj) prints the documentation of a function, class or module; help('jax.numpy.sum') looks a\n"
           "name up. (shard has no interactive help utility.)\n";
  } else if (is(a.args[0], ObjKind::Str)) {
    const std::string& name = as<StrObj>(a.args[0]).v;
    auto found = locate(I, name);
    text = found ? help_text(I, *found)
                 : fmt::format("No Python documentation found for {}.\nUse help() to get the interactive help utility.\n"
                               "Use help(str) for help on the str class.\n",
                               str_repr(name));
  } else {
    text = help_text(I, a.args[0]);
  }
  std::cout << text;
  std::cout.flush();
  return none();
}

}  // namespace

void add_help_function(ModuleObj& m) { m.dict.set("help", make_builtin("help", builtin_help)); }

}  // namespace shard::interp::bi
