#include "types/x64_mode.hpp"

#include <atomic>
#include <cstdlib>
#include <string>

namespace shard::types {

namespace {
// Unset until first read: then JAX_ENABLE_X64, else off.
std::atomic<int> g_x64{-1};
}  // namespace

std::optional<bool> parse_bool_flag(std::string_view s) {
  std::string v;
  for (char c : s) v += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (v == "1" || v == "true" || v == "yes" || v == "on" || v == "t" || v == "y") return true;
  if (v == "0" || v == "false" || v == "no" || v == "off" || v == "f" || v == "n" || v.empty()) return false;
  return std::nullopt;
}

bool x64_enabled() {
  int v = g_x64.load(std::memory_order_relaxed);
  if (v < 0) {
    const char* env = std::getenv("JAX_ENABLE_X64");
    v = env && parse_bool_flag(env).value_or(false) ? 1 : 0;
    g_x64.store(v);
  }
  return v == 1;
}

void set_x64_enabled(bool on) { g_x64.store(on ? 1 : 0); }

}  // namespace shard::types
