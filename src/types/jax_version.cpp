#include "types/jax_version.hpp"

#include <atomic>
#include <cstdlib>

namespace shard::types {

namespace {
// Unset until first read: then SHARD_JAX_VERSION, else 0.6.
std::atomic<int> g_version{-1};
}  // namespace

std::optional<JaxVersion> parse_jax_version(std::string_view s) {
  if (s == "0.6" || s == "0.6.0") return JaxVersion::V0_6;
  if (s == "current" || s == "latest" || s == "0.10" || s == "0.10.0") return JaxVersion::Current;
  return std::nullopt;
}

JaxVersion jax_version() {
  int v = g_version.load();
  if (v < 0) {
    const char* env = std::getenv("SHARD_JAX_VERSION");
    auto parsed = env ? parse_jax_version(env) : std::nullopt;
    v = static_cast<int>(parsed.value_or(JaxVersion::V0_6));
    g_version.store(v);
  }
  return static_cast<JaxVersion>(v);
}

void set_jax_version(JaxVersion v) { g_version.store(static_cast<int>(v)); }

const char* jax_version_string(JaxVersion v) { return v == JaxVersion::Current ? "0.10.0" : "0.6.0"; }

}  // namespace shard::types
