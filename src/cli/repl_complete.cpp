#include "cli/repl_complete.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>
#include <set>
#include <string_view>

#include "interp/module_names.hpp"

namespace shard::cli {
using interp::Value;

const char* const kCompletionWordBreaks = " \t\n\"'`@$><=;|&{}()[],+-*/%^~!";

namespace {

constexpr std::string_view kKeywords[] = {
    "False", "None", "True", "and", "as", "assert", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is",
    "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with"};

constexpr std::string_view kCommands[] = {":devices", ":help", ":ir", ":ledger", ":load",
                                          ":quit", ":reset", ":time", ":type"};

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80;
  });
}

void add_table(const interp::AttrTable& t, std::string_view prefix, std::set<std::string>& out) {
  for (const auto& [name, v] : t.entries)
    if (v && starts_with(name, prefix)) out.insert(name);
}

Value* lookup_global(interp::Interp& I, const std::string& name) {
  if (Value* v = I.main_module()->dict.find(name); v && *v) return v;
  if (Value* v = I.builtins()->dict.find(name); v && *v) return v;
  return nullptr;
}

// dir(obj) as strings; empty if dir() fails.
std::vector<std::string> dir_of(interp::Interp& I, const Value& obj) {
  std::vector<std::string> names;
  Value* dir = I.builtins()->dict.find("dir");
  if (!dir || !*dir) return names;
  for (const Value& n : I.to_vector(I.call(*dir, std::vector<Value>{obj})))
    if (interp::is(n, interp::ObjKind::Str)) names.push_back(interp::as<interp::StrObj>(n).v);
  return names;
}

std::vector<std::string> attribute_completions(interp::Interp& I, const std::string& word) {
  const size_t dot = word.rfind('.');
  const std::string base = word.substr(0, dot), prefix = word.substr(dot + 1);
  // Only plain dotted names are evaluated: completing must not call functions or index.
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t next = base.find('.', start);
    parts.push_back(base.substr(start, next == std::string::npos ? std::string::npos : next - start));
    if (next == std::string::npos) break;
    start = next + 1;
  }
  if (!std::all_of(parts.begin(), parts.end(), [](const std::string& p) { return is_identifier(p); })) return {};
  Value* root = lookup_global(I, parts[0]);
  if (!root) return {};
  Value obj = *root;
  for (size_t i = 1; i < parts.size(); ++i) {
    auto next = I.try_getattr(obj, parts[i]);
    if (!next) return {};
    obj = *next;
  }
  std::set<std::string> found;
  for (auto& name : dir_of(I, obj)) {
    if (!starts_with(name, prefix)) continue;
    // Private names only when asked for (rlcompleter's rule).
    if (!name.empty() && name[0] == '_' && (prefix.empty() || prefix[0] != '_')) continue;
    found.insert(base + "." + name);
  }
  return {found.begin(), found.end()};
}

// Every importable module name: the built-in ones and the .shard files / packages in the
// module path (the script directory first, then stdlib/).
std::set<std::string> module_names(interp::Interp& I) {
  std::set<std::string> names;
  for (auto& n : interp::builtin_module_names()) names.insert(n);
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const auto& dir : I.options().module_path) {
    // Two levels: top-level modules and packages, and the modules inside a package.
    auto scan = [&](const fs::path& d, const std::string& prefix, auto& self, int depth) -> void {
      for (fs::directory_iterator it(d.empty() ? fs::path(".") : d, ec), end; !ec && it != end; it.increment(ec)) {
        const fs::path& p = it->path();
        const std::string stem = p.stem().string();
        if (!is_identifier(stem)) continue;
        if (it->is_regular_file(ec) && p.extension() == ".shard" && stem != "__init__") {
          names.insert(prefix + stem);
        } else if (it->is_directory(ec) && fs::is_regular_file(p / "__init__.shard", ec)) {
          names.insert(prefix + stem);
          if (depth == 0) self(p, prefix + stem + ".", self, depth + 1);
        }
      }
      ec.clear();
    };
    scan(fs::path(dir), "", scan, 0);
  }
  return names;
}

// `import jax.nu` -> jax.numpy: the module names extending `word` by one component.
std::vector<std::string> module_completions(interp::Interp& I, const std::string& word) {
  std::set<std::string> found;
  for (const auto& name : module_names(I)) {
    if (!starts_with(name, word)) continue;
    const size_t dot = name.find('.', word.size());
    found.insert(dot == std::string::npos ? name : name.substr(0, dot));
  }
  return {found.begin(), found.end()};
}

// `from jax.sharding import Na` -> NamedSharding: the module's public names and submodules.
// Only a built-in module or one already imported is looked into (importing a file module
// would run it while completing).
std::vector<std::string> from_import_completions(interp::Interp& I, const std::string& module, const std::string& word) {
  const auto all = module_names(I);
  std::set<std::string> found;
  for (const auto& name : all)
    if (starts_with(name, module + ".")) {
      std::string sub = name.substr(module.size() + 1);
      sub = sub.substr(0, sub.find('.'));
      if (starts_with(sub, word)) found.insert(sub);
    }
  const auto builtin = interp::builtin_module_names();
  // A built-in module, or the parent package of some (jax for jax.numpy), imports cheaply.
  bool loaded = std::any_of(builtin.begin(), builtin.end(),
                            [&](const std::string& b) { return b == module || starts_with(b, module + "."); });
  if (!loaded) {
    Value sys = I.import_module("sys", ast::Loc{});
    loaded = I.contains(I.getattr(sys, "modules"), interp::make_str(module));
  }
  if (loaded) {
    Value m = I.import_module(module, ast::Loc{});
    for (auto& name : dir_of(I, m))
      if (starts_with(name, word) && (name.empty() || name[0] != '_' || starts_with(word, "_"))) found.insert(name);
  }
  return {found.begin(), found.end()};
}

}  // namespace

std::vector<std::string> repl_completions(interp::Interp& I, const std::string& word, const std::string& before) {
  const bool line_start = before.find_first_not_of(" \t") == std::string::npos;
  // The module of an import statement: `import a, b.c` / `from a.b`.
  static const std::regex import_module_position(R"(^\s*(import\s+([\w.]+\s*(as\s+\w+\s*)?,\s*)*|from\s+)$)");
  // The imported names: `from a.b import x, (y`.
  static const std::regex from_import_position(R"(^\s*from\s+([\w.]+)\s+import\s+\(?\s*(\w+\s*(as\s+\w+\s*)?,\s*)*$)");
  std::smatch m;
  try {
    if (std::regex_match(before, import_module_position)) return module_completions(I, word);
    if (std::regex_match(before, m, from_import_position)) return from_import_completions(I, m[1].str(), word);
  } catch (const interp::PyError&) {
    return {};  // the module failed to import: nothing to offer
  }
  if (line_start && starts_with(word, ":")) {
    std::vector<std::string> out;
    for (auto c : kCommands)
      if (starts_with(c, word)) out.emplace_back(c);
    return out;
  }
  try {
    if (word.find('.') != std::string::npos) return attribute_completions(I, word);
    if (!word.empty() && !is_identifier(word)) return {};
    std::set<std::string> found;
    add_table(I.main_module()->dict, word, found);
    add_table(I.builtins()->dict, word, found);
    for (auto k : kKeywords)
      if (starts_with(k, word)) found.emplace(k);
    // Dunders only when asked for.
    if (!starts_with(word, "_"))
      for (auto it = found.begin(); it != found.end();) it = starts_with(*it, "_") ? found.erase(it) : std::next(it);
    return {found.begin(), found.end()};
  } catch (const interp::PyError&) {
    return {};  // a property that raised while completing: no completions
  }
}

}  // namespace shard::cli
