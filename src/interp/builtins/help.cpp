// help(obj): prints an object's documentation as CPython's pydoc does on a plain (non-tty)
// stdout: "Help on function f in module m:", the signature line, the docstring indented.
// Functions of the host interpreter are shown from their definition; natives from the
// docstring attached to them (interp/native_docs.hpp); modules list their documented
// functions; classes (help_class.cpp) their methods and attributes. There is no
// interactive help (help() says so).
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "interp/builtins/help_text.hpp"
#include "interp/builtins/support.hpp"
#include "interp/native_docs.hpp"

namespace shard::interp::bi {

namespace {

using namespace help;

// "in module M", or for help('a.b.c') "in a.b" (pydoc names where it looked).
std::string where(const std::string& module, const std::string& requested) {
  if (auto dot = requested.rfind('.'); dot != std::string::npos) return " in " + requested.substr(0, dot);
  return module.empty() ? "" : " in module " + module;
}

// help('a.b.c') shows the object under the name it was asked by: "a.b.c = c(x)".
std::string alias(const std::string& requested) {
  return requested.find('.') != std::string::npos ? requested + " = " : "";
}

std::string function_help(Interp& I, const Value& f, const Value& bound_to, const std::string& requested) {
  std::string kind = bound_to ? "method" : "function", name, module;
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
  return fmt::format("Help on {} {}{}:\n\n", kind, name, where(module, requested)) + alias(requested) +
         function_body(I, f, "", bound_to) + "\n";
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

// `requested`: the name help() was given as a string, else "".
std::string help_text(Interp& I, const Value& obj, const std::string& requested) {
  if (is(obj, ObjKind::Function) || is(obj, ObjKind::Builtin)) return function_help(I, obj, nullptr, requested);
  if (is(obj, ObjKind::Module)) return module_help(I, obj);
  if (is(obj, ObjKind::Class)) {
    auto& cls = as<ClassObj>(obj);
    return fmt::format("Help on class {}{}:\n\n", cls.name, where(cls.module, requested)) + alias(requested) +
           class_page(I, obj);
  }
  if (is(obj, ObjKind::BoundMethod)) {
    auto& bm = as<BoundMethodObj>(obj);
    if (is(bm.func, ObjKind::Function)) return function_help(I, bm.func, bm.self, requested);
    return help_text(I, bm.func, requested);
  }
  // A wrapper of a function (jax.jit(f), functools.wraps): the wrapped function's signature
  // and docstring under the wrapper's type.
  if (auto wrapped = I.try_getattr(obj, "__wrapped__"); wrapped && is(*wrapped, ObjKind::Function)) {
    const std::string module = str_attr(I, *wrapped, "__module__");
    return fmt::format("Help on {} in module {}:\n\n", obj->cls->name, module) + function_body(I, *wrapped, "") + "\n";
  }
  // An instance: its class's page, as pydoc does.
  const ClassObj& cls = *obj->cls;
  return fmt::format("Help on {}{} object:\n\n", cls.name, cls.module == "builtins" ? "" : " in module " + cls.module) +
         class_page(I, Value(obj->cls));
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
    text = found ? help_text(I, *found, name)
                 : fmt::format("No Python documentation found for {}.\nUse help() to get the interactive help utility.\n"
                               "Use help(str) for help on the str class.\n",
                               str_repr(name));
  } else {
    text = help_text(I, a.args[0], "");
  }
  std::cout << text;
  std::cout.flush();
  return none();
}

}  // namespace

void add_help_function(ModuleObj& m) {
  Value help = make_builtin("help", builtin_help);
  set_native_doc(help, std::make_shared<NativeDoc>(NativeDoc{
                           "builtins", "built-in function", "help(obj)",
                           "Print the documentation of a function, class, module or object (its class);\n"
                           "help('a.b.c') imports the module a.b (or a) and looks c up in it. shard has no\n"
                           "interactive help: help() without an argument says how to call it."}));
  m.dict.set("help", help);
}

}  // namespace shard::interp::bi
