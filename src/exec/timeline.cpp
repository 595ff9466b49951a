// The --trace timeline (see timeline.hpp). Each device thread appends to its own buffer
// (registered once under a lock), so recording a step takes no lock; the buffers are merged
// into Chrome-trace JSON ("traceEvents": "X" slices, one thread track per device, and the
// host track) when the recording is written.
#include "exec/timeline.hpp"

#include "runtime/process_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <iostream>
#include <memory>
#include <mutex>
#include <vector>

namespace shard::exec {

namespace {

struct Slice {
  std::string name;
  int64_t t0, t1;  // ns, timeline_now()
};

struct DeviceBuffer {
  int device = -1;
  std::vector<Slice> slices;
};

// The host track's id: before the devices' (0..N-1) in the viewer.
constexpr int kHostTrack = -1;

std::atomic<bool> enabled{false};
std::mutex buffers_mu;
std::vector<Slice> host_slices;  // under buffers_mu (host slices are few: one per compile)
std::string out_path;
int64_t start_ns = 0;
// Owned here, never freed while recording: device threads keep raw pointers to theirs.
std::vector<std::unique_ptr<DeviceBuffer>>& buffers() {
  static std::vector<std::unique_ptr<DeviceBuffer>> b;
  return b;
}

// The calling thread's buffer for `device`. A device thread records only its own device; a
// thread that runs several devices' steps (the host running a small program inline) keeps
// one buffer per device.
DeviceBuffer& buffer_for(int device) {
  thread_local std::vector<DeviceBuffer*> mine;
  const size_t d = static_cast<size_t>(device);
  if (d < mine.size() && mine[d]) return *mine[d];
  std::lock_guard<std::mutex> lock(buffers_mu);
  buffers().push_back(std::make_unique<DeviceBuffer>());
  if (d >= mine.size()) mine.resize(d + 1, nullptr);
  mine[d] = buffers().back().get();
  mine[d]->device = device;
  return *mine[d];
}

// JSON string body: quotes, backslashes and control characters escaped.
std::string json_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        else out += c;
    }
  }
  return out;
}

}  // namespace

bool timeline_enabled() { return enabled.load(std::memory_order_relaxed); }

bool timeline_start(const std::string& path) {
  std::lock_guard<std::mutex> lock(buffers_mu);
  if (enabled.load()) return false;
  out_path = path;
  start_ns = timeline_now();
  enabled.store(true, std::memory_order_relaxed);
  return true;
}

void timeline_record(int device, const std::string& name, int64_t t0_ns, int64_t t1_ns) {
  buffer_for(device).slices.push_back(Slice{name, t0_ns, t1_ns});
}

void timeline_record_host(const std::string& name, int64_t t0_ns, int64_t t1_ns) {
  std::lock_guard<std::mutex> lock(buffers_mu);
  host_slices.push_back(Slice{name, t0_ns, t1_ns});
}

std::string timeline_write() {
  if (!enabled.exchange(false)) return "";
  std::lock_guard<std::mutex> lock(buffers_mu);
  // Merge the per-thread buffers by device (a device's thread may have been looked up twice).
  std::vector<int> devices;
  for (auto& b : buffers())
    if (std::find(devices.begin(), devices.end(), b->device) == devices.end()) devices.push_back(b->device);
  std::sort(devices.begin(), devices.end());
  std::string json = "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  bool first = true;
  auto event = [&](const std::string& e) {
    json += first ? "  " : ",\n  ";
    json += e;
    first = false;
  };
  // With several processes each writes its own file (trace.json -> trace.p1.json), its pid the
  // process index, its tracks its devices' global ids: a viewer opening them together lines
  // the processes up.
  const auto& layout = runtime::process_layout();
  const int pid = layout.process_index;
  std::string path = out_path;
  if (layout.process_count > 1) {
    const auto dot = path.rfind('.');
    const auto slash = path.rfind('/');
    const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash);
    path = has_ext ? fmt::format("{}.p{}{}", path.substr(0, dot), pid, path.substr(dot)) : fmt::format("{}.p{}", path, pid);
  }
  event(fmt::format(R"({{"name": "process_name", "ph": "M", "pid": {}, "tid": 0, "args": {{"name": "{}"}}}})", pid,
                    layout.process_count > 1 ? fmt::format("shard process {}", pid) : std::string("shard")));
  event(fmt::format(R"({{"name": "thread_name", "ph": "M", "pid": {}, "tid": {}, "args": {{"name": "host: trace, compile"}}}})",
                    pid, kHostTrack));
  event(fmt::format(R"({{"name": "thread_sort_index", "ph": "M", "pid": {0}, "tid": {1}, "args": {{"sort_index": {1}}}}})", pid,
                    kHostTrack));
  auto slice = [&](const Slice& s, int tid, const char* cat) {
    event(fmt::format(R"({{"name": "{}", "cat": "{}", "ph": "X", "pid": {}, "tid": {}, "ts": {:.3f}, "dur": {:.3f}}})",
                      json_escape(s.name), cat, pid, tid, static_cast<double>(s.t0 - start_ns) / 1e3,
                      static_cast<double>(s.t1 - s.t0) / 1e3));
  };
  for (const Slice& s : host_slices) slice(s, kHostTrack, "host");
  for (int d : devices) {
    event(fmt::format(R"({{"name": "thread_name", "ph": "M", "pid": {1}, "tid": {0}, "args": {{"name": "device {0}"}}}})", d, pid));
    event(fmt::format(R"({{"name": "thread_sort_index", "ph": "M", "pid": {1}, "tid": {0}, "args": {{"sort_index": {0}}}}})", d, pid));
  }
  for (auto& b : buffers()) {
    for (const Slice& s : b->slices) slice(s, b->device, "step");
    b->slices.clear();  // the buffers stay registered: device threads hold pointers to them
  }
  host_slices.clear();
  json += "\n]}\n";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(json.data(), 1, json.size(), f) != json.size()) {
    std::cerr << "shard: cannot write trace file '" << path << "'\n";
    if (f) std::fclose(f);
    return "";
  }
  if (std::fclose(f) != 0) {
    std::cerr << "shard: cannot write trace file '" << path << "'\n";
    return "";
  }
  return path;
}

}  // namespace shard::exec
