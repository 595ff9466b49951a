// DeviceBuffer: one allocation owned by one simulated device. Memory is 64-byte aligned (a
// cache line, and enough for any vector load), so device threads writing neighbouring buffers
// never share a line. Live and peak bytes are counted per device for `--stats`.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

namespace shard::runtime {

class DeviceBuffer;
using BufferRef = std::shared_ptr<DeviceBuffer>;

class DeviceBuffer {
 public:
  static constexpr size_t kAlignment = 64;

  // A buffer of `bytes` bytes on `device` (0 bytes is allowed and still gives a distinct,
  // aligned, non-null data pointer). `zero_fill` clears it; otherwise the contents are
  // unspecified. Throws std::bad_alloc when memory runs out, std::out_of_range for a device
  // id outside [0, kMaxDevices).
  static BufferRef allocate(int device, size_t bytes, bool zero_fill = false);
  // `bytes` of `parent` from `offset` (a slice of contiguous rows): no copy, no allocation; it
  // keeps the parent alive. Buffers are immutable, so sharing bytes is safe.
  static BufferRef view(const BufferRef& parent, size_t offset, size_t bytes);

  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  int device() const { return device_; }
  size_t bytes() const { return bytes_; }
  void* data() { return data_; }
  const void* data() const { return data_; }
  template <class T>
  T* as() { return static_cast<T*>(data_); }
  template <class T>
  const T* as() const { return static_cast<const T*>(data_); }

 private:
  DeviceBuffer(int device, size_t bytes, void* data) : device_(device), bytes_(bytes), data_(data) {}
  int device_;
  size_t bytes_;
  void* data_;
  BufferRef parent_;  // set for a view: the owner of data_
};

// Per-device memory accounting (all counters are for buffers allocated through DeviceBuffer).
struct DeviceMemoryStats {
  int64_t live_bytes = 0;     // bytes of buffers alive now
  int64_t peak_bytes = 0;     // highest live_bytes since start or the last reset_peak_bytes()
  int64_t live_buffers = 0;   // buffers alive now
  int64_t allocations = 0;    // buffers ever allocated
};
constexpr int kMaxDevices = 1024;  // same bound as DeviceRuntime's device count
DeviceMemoryStats device_memory_stats(int device);
void reset_peak_bytes(int device);

}  // namespace shard::runtime
