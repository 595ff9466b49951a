// The cycle collector for host objects (CPython's `gc`, without generations). Reference
// counting (shared_ptr) frees most objects; a group of objects that reference each other
// (a list holding itself, a module and its functions, an instance in its own __dict__)
// keeps its counts above zero forever. The collector finds such groups among the tracked
// objects (value.hpp: gc_track) and breaks them by clearing their references.
//
// It runs at statement boundaries once the number of tracked objects has grown past a
// trigger (twice the survivors of the last collection, at least `threshold` more), from
// gc.collect(), and at interpreter teardown.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace shard::interp {
struct Object;
}

namespace shard::interp::gc {

struct Stats {
  size_t tracked = 0;      // objects in the registry now
  size_t collections = 0;  // collections run so far
  size_t collected = 0;    // unreachable objects freed by them, in total
};

// Finds and frees unreachable cycles now; returns how many objects they held (what
// CPython's gc.collect() returns). Reentrant calls (a destructor asking) return 0.
size_t collect();
// gc.enable() / gc.disable(): automatic collections only; collect() always runs.
void set_enabled(bool on);
bool enabled();
// gc.set_threshold(n): the least growth of the tracked count between automatic
// collections (CPython's threshold0, which counts allocations); 0 stops them.
void set_threshold(size_t n);
size_t threshold();
// Tracked objects allocated since the last collection, net of those freed (gc.get_count()).
size_t count_since_collection();
Stats stats();
// For tests: tracked objects whose visible references exceed their strong count. A
// non-zero answer is a bug in a traversal; collect() refuses to free anything then.
size_t inconsistent_objects();

namespace detail {
extern std::atomic<size_t> g_tracked;
extern std::atomic<size_t> g_trigger;  // SIZE_MAX while disabled
void collect_automatically();
}  // namespace detail

// The statement-boundary check: one load and compare when nothing is due.
inline void maybe_collect() {
  if (detail::g_tracked.load(std::memory_order_relaxed) >= detail::g_trigger.load(std::memory_order_relaxed))
    detail::collect_automatically();
}

}  // namespace shard::interp::gc
