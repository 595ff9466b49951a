#include "cli/repl_complete.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>

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

}  // namespace

std::vector<std::string> repl_completions(interp::Interp& I, const std::string& word, bool line_start) {
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
