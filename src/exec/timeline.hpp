// The execution timeline behind `--trace FILE.json` and jax.profiler: every step a device
// thread runs (kernel, GEMM, collective) becomes a slice on that device's track, named after
// its IR op; the host track holds tracing and compiling. Recording is off unless a file was
// asked for; when on, it costs two clock reads per step.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>

namespace shard::exec {

bool timeline_enabled();
// Starts recording; the Chrome-trace JSON is written to `path` by timeline_write(). False
// (and nothing changes) when a recording is already running (--trace, jax.profiler).
bool timeline_start(const std::string& path);
// One slice on `device`'s track, times from timeline_now().
void timeline_record(int device, const std::string& name, int64_t t0_ns, int64_t t1_ns);
// One slice on the host track: work of the interpreter thread that is not a device step
// (tracing and compiling a jitted function, compiling an eager op), so it is not mistaken
// for the kernels after it.
void timeline_record_host(const std::string& name, int64_t t0_ns, int64_t t1_ns);
// Writes the file and stops recording (the slices are dropped, a new recording may start).
// Returns the path written ("" if none was recording or the file could not be written;
// errors are reported on stderr). The CLI calls it at exit; jax.profiler at stop_trace.
std::string timeline_write();

inline int64_t timeline_now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Records the lifetime of the scope as a host slice (nothing when no recording runs).
class HostSlice {
 public:
  explicit HostSlice(std::string name) : name_(std::move(name)), t0_(timeline_enabled() ? timeline_now() : 0) {}
  ~HostSlice() {
    if (t0_ && timeline_enabled()) timeline_record_host(name_, t0_, timeline_now());
  }
  HostSlice(const HostSlice&) = delete;
  HostSlice& operator=(const HostSlice&) = delete;

 private:
  std::string name_;
  int64_t t0_;
};

}  // namespace shard::exec
