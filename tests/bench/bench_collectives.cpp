// Collective bandwidth over 8 device threads next to a single-thread memcpy of the same bytes
// (the machine is noisy and shared, so the ratio is the figure to compare). Best of 5. psum
// is also set against its memory bound: every device's input read once and one output
// written, each device thread summing its eighth of the elements (a psum with a shared output
// can do no less).
//   bench_collectives [MiB ...]        default: 1 64
// Bytes are per device and count the output: psum f32 in = out = X; all_gather in = X/8,
// out = X; all_to_all in = out = X.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "runtime/collectives.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/device_runtime.hpp"

using namespace shard::runtime;
using shard::types::DType;

namespace {

constexpr int kDevices = 8;
constexpr int kRepeats = 5;

double best_ms(const std::function<void()>& fn) {
  double best = 1e300;
  for (int i = 0; i < kRepeats; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return best;
}

std::vector<BufferRef> buffers(size_t bytes) {
  std::vector<BufferRef> v;
  for (int d = 0; d < kDevices; ++d) v.push_back(DeviceBuffer::allocate(d, bytes, true));  // pages touched
  return v;
}

void report(const char* what, size_t bytes, double ms, double memcpy_ms) {
  fmt::print("  {:<34} {:9.3f} ms  {:6.2f}x memcpy  {:7.2f} GB/s out per device, {:6.2f} GB/s all devices\n", what,
             ms, ms / memcpy_ms, bytes / ms / 1e6, kDevices * bytes / ms / 1e6);
}

void bench_size(DeviceRuntime& rt, CollectiveGroup& group, size_t mib) {
  const size_t bytes = mib << 20, n = bytes / sizeof(float);
  fmt::print("{} MiB per device, {} devices\n", mib, kDevices);
  double memcpy_ms;
  {
    BufferRef a = DeviceBuffer::allocate(0, bytes, true), b = DeviceBuffer::allocate(0, bytes, true);
    std::memset(a->data(), 1, bytes);
    memcpy_ms = best_ms([&] { std::memcpy(b->data(), a->data(), bytes); });
    fmt::print("  {:<34} {:9.3f} ms  {:6.2f}x memcpy  {:7.2f} GB/s\n", "memcpy, 1 thread", memcpy_ms, 1.0,
               bytes / memcpy_ms / 1e6);
  }
  {
    auto in = buffers(bytes), out = buffers(bytes);
    double ms = best_ms([&] {
      rt.launch_all([&](int d) { all_reduce(group, d, ReduceKind::Sum, DType::F32, in[d]->data(), out[d]->data(), n); });
    });
    report("psum f32", bytes, ms, memcpy_ms);
    ms = best_ms([&] {
      rt.launch_all([&](int d) { all_reduce(group, d, ReduceKind::Sum, DType::F32, in[d]->data(), in[d]->data(), n); });
    });
    report("psum f32, in place", bytes, ms, memcpy_ms);
    ms = best_ms([&] {
      rt.launch_all([&](int d) { (void)all_reduce_shared(group, d, ReduceKind::Sum, DType::F32, in[d]->data(), n); });
    });
    report("psum f32, shared output", bytes, ms, memcpy_ms);
    const double bound = best_ms([&] {
      static_assert(kDevices == 8);
      auto part = [&](size_t lo, size_t hi) {
        const float* __restrict p0 = in[0]->as<float>();
        const float* __restrict p1 = in[1]->as<float>();
        const float* __restrict p2 = in[2]->as<float>();
        const float* __restrict p3 = in[3]->as<float>();
        const float* __restrict p4 = in[4]->as<float>();
        const float* __restrict p5 = in[5]->as<float>();
        const float* __restrict p6 = in[6]->as<float>();
        const float* __restrict p7 = in[7]->as<float>();
        float* __restrict o = out[0]->as<float>();
        for (size_t i = lo; i < hi; ++i) o[i] = ((p0[i] + p1[i]) + (p2[i] + p3[i])) + ((p4[i] + p5[i]) + (p6[i] + p7[i]));
      };
      rt.launch_all([&](int d) { part(n * d / kDevices, n * (d + 1) / kDevices); });
    });
    fmt::print("  {:<34} {:9.3f} ms  {:6.2f}x memcpy  ({} reads and 1 write of {} MiB, the device threads)\n", "psum memory bound",
               bound, bound / memcpy_ms, kDevices, mib);
    fmt::print("  {:<34} {:9.2f}x the bound\n", "psum f32, shared output", ms / bound);
  }
  {
    auto in = buffers(bytes / kDevices), out = buffers(bytes);
    double ms = best_ms([&] {
      rt.launch_all([&](int d) { all_gather(group, d, DType::F32, in[d]->data(), out[d]->data(), 1, n / kDevices); });
    });
    report("all_gather f32", bytes, ms, memcpy_ms);
  }
  {
    auto in = buffers(bytes), out = buffers(bytes);
    AllToAllGeometry contiguous{{size_t(kDevices), n / kDevices}, 0, 0};
    AllToAllGeometry strided{{64, n / 64}, 1, 0};
    double ms = best_ms([&] {
      rt.launch_all([&](int d) { all_to_all(group, d, DType::F32, in[d]->data(), out[d]->data(), contiguous); });
    });
    report("all_to_all f32 (split 0, concat 0)", bytes, ms, memcpy_ms);
    ms = best_ms([&] {
      rt.launch_all([&](int d) { all_to_all(group, d, DType::F32, in[d]->data(), out[d]->data(), strided); });
    });
    report("all_to_all f32 [64,n/64] split 1 cat 0", bytes, ms, memcpy_ms);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<size_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoul(argv[i], nullptr, 10));
  if (sizes.empty()) sizes = {1, 64};
  DeviceRuntime rt(kDevices);
  std::vector<int> all(kDevices);
  for (int d = 0; d < kDevices; ++d) all[d] = d;
  CollectiveGroup group(all);
  for (size_t mib : sizes)
    if (mib > 0) bench_size(rt, group, mib);
  return 0;
}
