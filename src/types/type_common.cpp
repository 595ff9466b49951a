#include "types/type_common.hpp"

#include <fmt/format.h>

namespace shard::types {

void throw_value_error(const std::string& message) { throw ShardingError("ValueError", message); }
void throw_type_error(const std::string& message) { throw ShardingError("TypeError", message); }

size_t hash_strings(const std::vector<std::string>& v) {
  size_t h = v.size();
  for (const auto& s : v) hash_combine(h, std::hash<std::string>{}(s));
  return h;
}

std::string py_str_repr(std::string_view s) {
  bool has_single = s.find('\'') != std::string_view::npos;
  bool has_double = s.find('"') != std::string_view::npos;
  char quote = (has_single && !has_double) ? '"' : '\'';
  std::string out(1, quote);
  for (unsigned char c : s) {
    if (c == quote || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);  // UTF-8 bytes pass through, as Python prints them
    }
  }
  out += quote;
  return out;
}

namespace {
template <class T, class F>
std::string py_tuple(const std::vector<T>& items, F&& item_repr) {
  std::string out = "(";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += item_repr(items[i]);
  }
  if (items.size() == 1) out += ',';
  out += ')';
  return out;
}
}  // namespace

std::string py_str_tuple(const std::vector<std::string>& names) {
  return py_tuple(names, [](const std::string& s) { return py_str_repr(s); });
}

std::string py_int_tuple(const std::vector<int64_t>& values) {
  return py_tuple(values, [](int64_t v) { return std::to_string(v); });
}

int64_t shape_product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v)
    if (__builtin_mul_overflow(p, x, &p))
      throw ShardingError("ValueError", fmt::format("array is too big: the shape {} has more elements than fit in 64 bits", py_int_tuple(v)));
  return p;
}

}  // namespace shard::types
