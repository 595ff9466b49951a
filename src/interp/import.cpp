// Imports: built-in modules from the static registry (dotted names; parents created on
// demand), then NAME.shard / NAME/__init__.shard files in Options::module_path, cached
// in the interpreter's module table. Circular imports see the partially run module.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ast/source.hpp"
#include "interp/interp_impl.hpp"
#include "interp/missing_attribute_hint.hpp"
#include "interp/native_docs.hpp"

namespace shard::interp {

namespace fs = std::filesystem;

// interp.cpp
const Interp::ModuleInit* find_builtin_module(const std::string& dotted);
bool builtin_module_has_children(const std::string& dotted);
std::pair<std::shared_ptr<ast::Module>, CodeP> compile_for_import(Interp& I, Interp::Impl& P, uint32_t file);

namespace {

[[noreturn]] void module_not_found(Interp& I, const std::string& name) {
  std::string msg = "No module named '" + name + "'";
  if (auto dot = name.rfind('.'); dot != std::string::npos)
    if (auto unsupported = missing_attribute_hint(name.substr(0, dot), name.substr(dot + 1)))
      msg += ": " + *unsupported;
  Value exc = I.make_exception("ModuleNotFoundError", msg);
  if (is(exc, ObjKind::Instance)) as<InstanceObj>(exc).dict.set("name", make_str(name));
  throw PyError{exc};
}

std::shared_ptr<ModuleObj> new_module(const std::string& name) {
  auto m = std::make_shared<ModuleObj>(T().module, name);
  m->dict.set("__name__", make_str(name));
  m->dict.set("__doc__", none());
  auto dot = name.rfind('.');
  m->dict.set("__package__", make_str(dot == std::string::npos ? "" : name.substr(0, dot)));
  return m;
}

std::string display_path(const fs::path& p) {
  fs::path n = p.lexically_normal();
  return n.string();
}

}  // namespace

std::shared_ptr<ModuleObj> Interp::Impl::load_file_module(const std::string& name, const std::string& path,
                                                          bool package) {
  std::ifstream in(path, std::ios::binary);
  if (!in) I.raise("ImportError", "cannot read '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (auto bad = ast::non_utf8_error(ss.str(), path); !bad.empty()) I.raise("SyntaxError", bad);
  uint32_t file = ast::add_source(path, ss.str());
  auto [tree, code] = compile_for_import(I, *this, file);
  auto m = new_module(name);
  m->file = path;
  m->dict.set("__file__", make_str(path));
  if (package) {
    m->dict.set("__path__", make_list({make_str(fs::path(path).parent_path().string())}));
    m->dict.set("__package__", make_str(name));
  }
  if (!tree->body.empty() && tree->body[0]->kind == ast::StmtKind::ExprStmt &&
      tree->body[0]->value->kind == ast::ExprKind::Str)
    m->dict.set("__doc__", make_str(tree->body[0]->value->str_value));
  modules[name] = m;
  initializing.push_back(name);
  try {
    exec_module_body(*tree, modules[name], *code, false, nullptr);
  } catch (...) {
    modules.erase(name);
    initializing.pop_back();
    throw;
  }
  initializing.pop_back();
  return m;
}

std::shared_ptr<ModuleObj> Interp::Impl::load_module(const std::string& name, const ast::Loc& loc) {
  if (const ModuleInit* init = find_builtin_module(name)) {
    auto m = new_module(name);
    modules[name] = m;
    try {
      (*init)(I, *m);
      run_builtin_module_hooks(I, *m);
    } catch (...) {
      modules.erase(name);
      throw;
    }
    return m;
  }
  // Files: the parent package's directory for submodules, else the module path.
  std::vector<fs::path> dirs;
  auto dot = name.rfind('.');
  std::string leaf = dot == std::string::npos ? name : name.substr(dot + 1);
  if (dot != std::string::npos) {
    auto parent = modules.find(name.substr(0, dot));
    if (parent != modules.end())
      if (Value* p = parent->second->dict.find("__path__"); p && *p && is(*p, ObjKind::List))
        for (auto& d : as<ListObj>(*p).items)
          if (is(d, ObjKind::Str)) dirs.push_back(as<StrObj>(d).v);
  }
  if (dirs.empty()) {
    std::string rel = name;
    for (auto& c : rel)
      if (c == '.') c = '/';
    for (auto& d : I.options().module_path) {
      fs::path base = (d.empty() || d == ".") ? fs::path(rel) : fs::path(d) / rel;
      dirs.push_back(base.parent_path());
    }
  }
  std::error_code ec;
  for (auto& dir : dirs) {
    fs::path file = dir.empty() ? fs::path(leaf + ".shard") : dir / (leaf + ".shard");
    if (fs::is_regular_file(file, ec)) return load_file_module(name, display_path(file), false);
    fs::path pkg = dir.empty() ? fs::path(leaf) : dir / leaf;
    if (fs::is_regular_file(pkg / "__init__.shard", ec))
      return load_file_module(name, display_path(pkg / "__init__.shard"), true);
    if (fs::is_directory(pkg, ec)) {  // a namespace package
      auto m = new_module(name);
      m->dict.set("__path__", make_list({make_str(display_path(pkg))}));
      m->dict.set("__package__", make_str(name));
      modules[name] = m;
      return m;
    }
  }
  if (builtin_module_has_children(name)) {  // e.g. "jax" when only "jax.numpy" is registered
    auto m = new_module(name);
    m->dict.set("__package__", make_str(name));
    modules[name] = m;
    return m;
  }
  module_not_found(I, name);
}

std::shared_ptr<ModuleObj> Interp::Impl::import_dotted(const std::string& dotted, const ast::Loc& loc) {
  if (auto it = modules.find(dotted); it != modules.end()) return it->second;
  if (dotted.empty()) module_not_found(I, dotted);
  std::shared_ptr<ModuleObj> parent;
  std::string prefix;
  size_t start = 0;
  while (true) {
    size_t dot = dotted.find('.', start);
    std::string part = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    std::string name = prefix.empty() ? part : prefix + "." + part;
    std::shared_ptr<ModuleObj> cur;
    if (auto it = modules.find(name); it != modules.end()) {
      cur = it->second;
    } else if (Value* attr = parent ? parent->dict.find(part) : nullptr; attr && *attr && is(*attr, ObjKind::Module)) {
      // A module its parent binds under another name (jax.nn.initializers is the stdlib's
      // jax_nn_initializers): importable by the dotted name, as the parent presents it.
      cur = std::static_pointer_cast<ModuleObj>(*attr);
      modules[name] = cur;
    } else {
      cur = load_module(name, loc);
      if (parent) parent->dict.set(part, cur);
    }
    if (parent && !parent->dict.find(part)) parent->dict.set(part, cur);
    ++globals_epoch;
    parent = cur;
    prefix = name;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parent;
}

std::string Interp::Impl::resolve_relative(const std::string& module, int level, Frame& f, const ast::Loc& loc) {
  std::string package;
  if (Value* p = f.globals->dict.find("__package__"); p && *p && is(*p, ObjKind::Str)) package = as<StrObj>(*p).v;
  if (package.empty() && !f.globals->dict.find("__path__")) {
    std::string name = f.globals->name;
    auto dot = name.rfind('.');
    if (dot != std::string::npos) package = name.substr(0, dot);
  }
  if (package.empty() || package == "__main__")
    I.raise("ImportError", "attempted relative import with no known parent package");
  for (int i = 1; i < level; ++i) {
    auto dot = package.rfind('.');
    if (dot == std::string::npos) I.raise("ImportError", "attempted relative import beyond top-level package");
    package = package.substr(0, dot);
  }
  return module.empty() ? package : package + "." + module;
}

void Interp::Impl::exec_import(const ast::Stmt& s, Frame& f) {
  for (auto& a : s.aliases) {
    at(a.loc.line ? a.loc : s.loc);
    auto leaf = import_dotted(a.name, s.loc);
    if (!a.asname.empty()) {
      assign_name(a.asname, leaf, f);
    } else {
      std::string top = a.name.substr(0, a.name.find('.'));
      assign_name(top, modules[top] ? Value(modules[top]) : Value(leaf), f);
    }
  }
}

void Interp::Impl::exec_import_from(const ast::Stmt& s, Frame& f) {
  at(s.loc);
  std::string modname = s.level > 0 ? resolve_relative(s.name, s.level, f, s.loc) : s.name;
  auto m = import_dotted(modname, s.loc);
  Value mv = m;
  for (auto& a : s.aliases) {
    at(a.loc.line ? a.loc : s.loc);
    if (a.name == "*") {
      std::vector<std::string> names;
      if (Value* all = m->dict.find("__all__"); all && *all) {
        for (auto& n : I.to_vector(*all))
          if (is(n, ObjKind::Str)) names.push_back(as<StrObj>(n).v);
      } else {
        for (auto& [k, v] : m->dict.entries)
          if (v && !k.empty() && k[0] != '_') names.push_back(k);
      }
      for (auto& n : names) assign_name(n, I.getattr(mv, n), f);
      continue;
    }
    std::optional<Value> v;
    if (Value* x = m->dict.find(a.name); x && *x) v = *x;
    if (!v) {
      try {
        v = Value(import_dotted(modname + "." + a.name, s.loc));
      } catch (PyError& e) {
        ClassP mnf = I.builtin_class("ModuleNotFoundError");
        if (!mnf || !I.isinstance(e.exc, *mnf)) throw;
      }
    }
    if (!v) v = I.try_getattr(mv, a.name);
    if (!v) {
      bool partial = false;
      for (auto& n : initializing) partial = partial || n == modname;
      std::string where = m->file.empty() ? "unknown location" : m->file;
      std::string msg = partial ? "cannot import name '" + a.name + "' from partially initialized module '" + modname +
                                      "' (most likely due to a circular import) (" + where + ")"
                                : "cannot import name '" + a.name + "' from '" + modname + "' (" + where + ")";
      if (auto unsupported = missing_attribute_hint(modname, a.name)) msg += ": " + *unsupported;
      Value exc = I.make_exception("ImportError", msg);
      if (is(exc, ObjKind::Instance)) {
        as<InstanceObj>(exc).dict.set("name", make_str(modname));
      }
      throw PyError{exc};
    }
    assign_name(a.asname.empty() ? a.name : a.asname, *v, f);
  }
}

}  // namespace shard::interp
