#include "api/device_count.hpp"

#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "runtime/device_runtime.hpp"
#include "runtime/process_layout.hpp"
#include "types/type_common.hpp"

namespace shard::api {

namespace {

constexpr int kMaxDevices = 1024;  // each device is a thread; the runtime's bound
int g_forced = 0;
int g_config = 0;

// A positive decimal count within bounds, else 0.
int parse_count(std::string_view s) {
  if (s.empty() || s.size() > 6) return 0;
  int n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return 0;
    n = n * 10 + (c - '0');
  }
  return n >= 1 && n <= kMaxDevices ? n : 0;
}

int env_count(const char* name) {
  const char* v = std::getenv(name);
  return v ? parse_count(v) : 0;
}

// The value of --xla_force_host_platform_device_count=N in XLA_FLAGS (last one wins, as
// absl flags do), else 0.
int xla_flags_count() {
  const char* flags = std::getenv("XLA_FLAGS");
  if (!flags) return 0;
  static constexpr std::string_view kFlag = "--xla_force_host_platform_device_count=";
  std::string_view s(flags);
  int found = 0;
  for (size_t pos = s.find(kFlag); pos != std::string_view::npos; pos = s.find(kFlag, pos + 1)) {
    size_t start = pos + kFlag.size();
    size_t end = s.find_first_of(" \t\n", start);
    const auto text = s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    const int n = parse_count(text);
    if (!n)  // a flag given but unusable is said, not ignored
      throw types::ShardingError("ValueError", "XLA_FLAGS --xla_force_host_platform_device_count=" + std::string(text) +
                                                   ": the device count must be a number between 1 and " + std::to_string(kMaxDevices));
    found = n;
  }
  return found;
}

}  // namespace

void set_forced_device_count(int n) { g_forced = n >= 1 && n <= kMaxDevices ? n : 0; }
void set_config_device_count(int n) { g_config = n >= 1 && n <= kMaxDevices ? n : 0; }
bool device_count_forced() { return g_forced != 0 || env_count("SHARD_DEVICES_FORCED") != 0; }

int resolve_device_count() {
  if (runtime::global_runtime_started()) return runtime::global_runtime().size();
  if (g_forced) return g_forced;
  if (int n = env_count("SHARD_DEVICES_FORCED")) return n;
  if (g_config) return g_config;
  if (int n = xla_flags_count()) return n;
  if (int n = env_count("SHARD_DEVICES")) return n;
  return 8;
}

runtime::DeviceRuntime& ensure_device_runtime() {
  if (runtime::global_runtime_started()) return runtime::global_runtime();
  return runtime::global_runtime(resolve_device_count());
}

int device_count() { return ensure_device_runtime().size(); }
int local_device_count() { return ensure_device_runtime().local_size(); }

std::vector<int> local_device_ids() {
  auto& rt = ensure_device_runtime();
  std::vector<int> ids;
  for (int i = 0; i < rt.local_size(); ++i) ids.push_back(rt.first_device() + i);
  return ids;
}

bool is_local_device(int id) { return ensure_device_runtime().is_local(id); }
int process_index() { return runtime::process_layout().process_index; }
int process_count() { return runtime::process_layout().process_count; }

}  // namespace shard::api
