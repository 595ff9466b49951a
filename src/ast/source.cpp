// The process-wide table of source files. Ids start at 1 (0 means "unknown").
// Entries are never removed, and a deque keeps references stable while others are added.
#include "ast/source.hpp"

#include <cstdio>

#include <deque>
#include <mutex>

#include <fmt/format.h>

namespace shard::ast {
namespace {

std::mutex& table_mutex() {
  static std::mutex m;
  return m;
}
std::deque<SourceFile>& table() {
  static std::deque<SourceFile> files;
  return files;
}
const SourceFile& unknown_file() {
  static const SourceFile f{"<unknown>", ""};
  return f;
}

}  // namespace

uint32_t add_source(std::string name, std::string text) {
  std::lock_guard<std::mutex> lock(table_mutex());
  table().push_back(SourceFile{std::move(name), std::move(text)});
  return static_cast<uint32_t>(table().size());
}

const SourceFile& source(uint32_t id) {
  std::lock_guard<std::mutex> lock(table_mutex());
  if (id == 0 || id > table().size()) return unknown_file();
  return table()[id - 1];
}

std::string_view source_line(uint32_t id, uint32_t line) {
  if (line == 0) return {};
  std::string_view text = source(id).text;
  size_t pos = 0;
  for (uint32_t l = 1; l < line; ++l) {
    size_t nl = text.find_first_of("\r\n", pos);
    if (nl == std::string_view::npos) return {};
    pos = nl + ((text[nl] == '\r' && nl + 1 < text.size() && text[nl + 1] == '\n') ? 2 : 1);
  }
  if (pos > text.size()) return {};
  size_t end = text.find_first_of("\r\n", pos);
  if (end == std::string_view::npos) end = text.size();
  return text.substr(pos, end - pos);
}

std::string format_loc(Loc loc) {
  return fmt::format("{}:{}:{}", source(loc.file).name, loc.line, loc.col);
}

std::string non_utf8_error(const std::string& text, const std::string& path) {
  size_t i = 0;
  int line = 1;
  const auto n = text.size();
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  while (i < n) {
    const unsigned char c = byte(i);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) ok = (byte(i + k) & 0xC0) == 0x80;
    if (ok && len == 2) ok = c >= 0xC2;                                   // no overlong forms
    if (ok && len == 3) ok = !(c == 0xE0 && byte(i + 1) < 0xA0) && !(c == 0xED && byte(i + 1) >= 0xA0);  // no surrogates
    if (ok && len == 4) ok = c <= 0xF4 && !(c == 0xF0 && byte(i + 1) < 0x90) && !(c == 0xF4 && byte(i + 1) >= 0x90);
    if (!ok) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      return "Non-UTF-8 code starting with '" + std::string(hex) + "' in file " + path + " on line " + std::to_string(line) +
             ", but no encoding declared; see https://peps.python.org/pep-0263/ for details";
    }
    if (c == '\n') ++line;
    i += len;
  }
  return "";
}

}  // namespace shard::ast
