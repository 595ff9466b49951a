// The execution timeline behind `--trace FILE.json`: every step a device thread runs (kernel,
// GEMM, collective) becomes a slice on that device's track, named after its IR op. Recording
// is off unless a file was asked for; when on, it costs two clock reads per step.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>

namespace shard::exec {

bool timeline_enabled();
// Starts recording; the Chrome-trace JSON is written to `path` by timeline_write().
void timeline_start(const std::string& path);
// One slice on `device`'s track, times from timeline_now().
void timeline_record(int device, const std::string& name, int64_t t0_ns, int64_t t1_ns);
// Writes the file (called once at exit by the CLI); errors are reported on stderr.
void timeline_write();

inline int64_t timeline_now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace shard::exec
