#include "runtime/device_buffer.hpp"

#include <sys/mman.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

namespace shard::runtime {

namespace {
// Fixed table: counters are updated from device threads without a lock.
struct Counters {
  std::atomic<int64_t> live_bytes{0};
  std::atomic<int64_t> peak_bytes{0};
  std::atomic<int64_t> live_buffers{0};
  std::atomic<int64_t> allocations{0};
};
Counters g_counters[kMaxDevices];

void check_device(int device) {
  if (device < 0 || device >= kMaxDevices)
    throw std::out_of_range("no device with id " + std::to_string(device));
}

// A caching allocator for large buffers (as XLA's and PyTorch's): a freed buffer of 256 KiB
// or more is kept, per device and size class, and handed to the next allocation of that
// class. Fresh large allocations cost a page fault per 4 KiB page (more than the kernel
// that fills them); reused ones cost nothing. Large blocks are 2 MiB aligned and advised
// to use transparent huge pages. The cache holds at most kCacheLimit bytes.
constexpr size_t kCachedMin = 256 << 10;
constexpr size_t kHugeAlign = 2 << 20;
constexpr size_t kCacheLimit = size_t(2) << 30;

size_t size_class(size_t rounded) {
  if (rounded < kCachedMin) return rounded;
  const size_t step = rounded >= kHugeAlign ? kHugeAlign : kCachedMin;  // <= 12.5% waste over 16 MiB
  return (rounded + step - 1) / step * step;
}

struct BlockCache {
  std::mutex mu;
  std::multimap<std::pair<int, size_t>, void*> free_blocks;  // (device, class) -> block
  size_t cached_bytes = 0;

  void* take(int device, size_t cls) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = free_blocks.find({device, cls});
    if (it == free_blocks.end()) return nullptr;
    void* p = it->second;
    free_blocks.erase(it);
    cached_bytes -= cls;
    return p;
  }
  bool give(int device, size_t cls, void* p) {
    std::lock_guard<std::mutex> lock(mu);
    if (cached_bytes + cls > kCacheLimit) return false;
    free_blocks.emplace(std::make_pair(device, cls), p);
    cached_bytes += cls;
    return true;
  }
};
BlockCache& block_cache() {
  static BlockCache* cache = new BlockCache;  // never destroyed: buffers may outlive statics
  return *cache;
}

void* fresh_block(size_t cls) {
  const size_t align = cls >= kHugeAlign ? kHugeAlign : DeviceBuffer::kAlignment;
  void* p = std::aligned_alloc(align, cls);
  if (p && cls >= kHugeAlign) madvise(p, cls, MADV_HUGEPAGE);
  return p;
}

void raise_peak(Counters& c, int64_t live) {
  int64_t peak = c.peak_bytes.load(std::memory_order_relaxed);
  while (live > peak && !c.peak_bytes.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
  }
}
}  // namespace

BufferRef DeviceBuffer::allocate(int device, size_t bytes, bool zero_fill) {
  check_device(device);
  // aligned_alloc wants a size that is a multiple of the alignment (and non-zero).
  if (bytes > SIZE_MAX - kAlignment) throw std::bad_alloc();
  size_t rounded = bytes == 0 ? kAlignment : (bytes + kAlignment - 1) / kAlignment * kAlignment;
  const size_t cls = size_class(rounded);
  void* data = cls >= kCachedMin ? block_cache().take(device, cls) : nullptr;
  if (!data) data = fresh_block(cls);
  if (!data) throw std::bad_alloc();
  if (zero_fill) std::memset(data, 0, bytes);
  BufferRef ref;
  try {
    ref.reset(new DeviceBuffer(device, bytes, data));
  } catch (...) {
    std::free(data);
    throw;
  }
  Counters& c = g_counters[device];
  int64_t live = c.live_bytes.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed) +
                 static_cast<int64_t>(bytes);
  raise_peak(c, live);
  c.live_buffers.fetch_add(1, std::memory_order_relaxed);
  c.allocations.fetch_add(1, std::memory_order_relaxed);
  return ref;
}

BufferRef DeviceBuffer::view(const BufferRef& parent, size_t offset, size_t bytes) {
  // An empty view reads nothing: its offset (an index into an empty dim) need not lie inside.
  if (bytes == 0) offset = 0;
  if (offset > parent->bytes_ || bytes > parent->bytes_ - offset)
    throw std::out_of_range("internal error: a view outside its buffer");
  BufferRef ref(new DeviceBuffer(parent->device_, bytes, static_cast<std::byte*>(parent->data_) + offset));
  ref->parent_ = parent;
  return ref;
}

DeviceBuffer::~DeviceBuffer() {
  if (parent_) return;  // a view: the parent owns and counts the memory
  const size_t rounded = bytes_ == 0 ? kAlignment : (bytes_ + kAlignment - 1) / kAlignment * kAlignment;
  const size_t cls = size_class(rounded);
  if (cls < kCachedMin || !block_cache().give(device_, cls, data_)) std::free(data_);
  Counters& c = g_counters[device_];
  c.live_bytes.fetch_sub(static_cast<int64_t>(bytes_), std::memory_order_relaxed);
  c.live_buffers.fetch_sub(1, std::memory_order_relaxed);
}

DeviceMemoryStats device_memory_stats(int device) {
  check_device(device);
  const Counters& c = g_counters[device];
  return {c.live_bytes.load(), c.peak_bytes.load(), c.live_buffers.load(), c.allocations.load()};
}

void reset_peak_bytes(int device) {
  check_device(device);
  Counters& c = g_counters[device];
  c.peak_bytes.store(c.live_bytes.load());
}

}  // namespace shard::runtime
