// The cycle collector (gc.hpp). A collection, as CPython's:
//   1. each tracked object starts from its strong count;
//   2. every reference between tracked objects (traverse) is subtracted from its referent;
//      what remains counts references from outside: C++ variables, frames, caches, and
//      objects the collector cannot see into (untracked natives, std::function captures);
//   3. objects with outside references, and everything they reach, are live;
//   4. the rest are only referenced by each other: each is held, cleared (its references
//      dropped), and then released, which frees the group.
// An object a traversal does not fully report stays alive, so every gap is a leak and never
// a use-after-free; a traversal reporting a reference not held would be the latter, which
// is why a negative remainder aborts the collection.
#include "interp/gc.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

#include "interp/value.hpp"

namespace shard::interp {

namespace {

// A spin lock: taken twice per tracked object's life, almost never contended (the
// interpreter runs on one thread at a time), and cheaper than a mutex there.
class SpinLock {
 public:
  void lock() {
    while (held_.exchange(true, std::memory_order_acquire))
      while (held_.load(std::memory_order_relaxed)) std::this_thread::yield();
  }
  void unlock() { held_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> held_{false};
};

// The registry of tracked objects; Object::gc_slot is the index. Never destroyed: objects
// held by statics are untracked during static destruction.
struct Registry {
  SpinLock mu;  // objects may be released on other threads (device threads, embedders)
  std::vector<Object*> objects;
  size_t survivors = 0;  // tracked objects left after the last collection
  size_t threshold = 10000;
  bool enabled = true;
  bool collecting = false;
  size_t stress_every = 0, stress_countdown = 0;  // SHARD_GC_STRESS
  gc::Stats stats;
};

size_t env_count(const char* name, size_t otherwise) {
  const char* env = std::getenv(name);
  if (!env) return otherwise;
  char* end = nullptr;
  long long n = std::strtoll(env, &end, 10);
  return end != env && *end == '\0' && n >= 0 ? size_t(n) : otherwise;
}

// The tracked count at which the next automatic collection runs (never, while disabled).
void update_trigger(Registry& r) {
  size_t next = std::max(r.survivors * 2, r.survivors + r.threshold);
  bool automatic = r.enabled && (r.threshold > 0 || r.stress_every > 0);
  if (r.stress_every) next = 0;  // every statement boundary asks; the countdown decides
  gc::detail::g_trigger.store(automatic ? next : std::numeric_limits<size_t>::max(), std::memory_order_relaxed);
}

// SHARD_GC_THRESHOLD=n sets the threshold from the start. SHARD_GC_STRESS=n collects at
// every n-th statement boundary whatever the growth (n times every 2,000 tracked objects):
// the test suite runs programs so, to show that no collection frees a value still in use.
Registry* new_registry() {
  auto* r = new Registry;
  r->threshold = env_count("SHARD_GC_THRESHOLD", r->threshold);
  r->stress_every = env_count("SHARD_GC_STRESS", 0);
  update_trigger(*r);
  return r;
}

Registry& registry() {
  static Registry* r = new_registry();
  return *r;
}

}  // namespace

namespace gc::detail {
std::atomic<size_t> g_tracked{0};
std::atomic<size_t> g_trigger{10000};
}  // namespace gc::detail

void gc_track(Object& o) {
  Registry& r = registry();
  std::lock_guard<SpinLock> lock(r.mu);
  if (o.gc_slot != kGcUntracked) return;
  o.gc_slot = uint32_t(r.objects.size());
  r.objects.push_back(&o);
  gc::detail::g_tracked.store(r.objects.size(), std::memory_order_relaxed);
}

void gc_untrack(Object& o) {
  Registry& r = registry();
  std::lock_guard<SpinLock> lock(r.mu);
  uint32_t slot = o.gc_slot;
  Object* last = r.objects.back();
  r.objects[slot] = last;
  last->gc_slot = slot;
  r.objects.pop_back();
  o.gc_slot = kGcUntracked;
  gc::detail::g_tracked.store(r.objects.size(), std::memory_order_relaxed);
}

namespace {

void visit_table(const AttrTable& t, GcVisitor& visit) {
  for (auto& [name, v] : t.entries) visit(v);
}

void traverse(const Object& o, GcVisitor& visit) {
  visit(o.cls);
  switch (o.kind) {
    case ObjKind::Tuple:
      for (auto& v : static_cast<const TupleObj&>(o).items) visit(v);
      break;
    case ObjKind::List:
      for (auto& v : static_cast<const ListObj&>(o).items) visit(v);
      break;
    case ObjKind::Dict: case ObjKind::Set: case ObjKind::FrozenSet:
      for (auto& [k, v] : static_cast<const DictObj&>(o).entries) {
        visit(k);
        visit(v);
      }
      break;
    case ObjKind::Function: {
      auto& f = static_cast<const FunctionObj&>(o);
      for (auto& v : f.defaults) visit(v);
      visit_table(f.kwdefaults, visit);
      for (auto& c : f.closure)
        if (c) visit(c.get());
      if (f.globals) visit(f.globals.get());
      visit_table(f.dict, visit);
      break;
    }
    case ObjKind::BoundMethod: {
      auto& m = static_cast<const BoundMethodObj&>(o);
      visit(m.self);
      visit(m.func);
      break;
    }
    case ObjKind::Class: {
      auto& c = static_cast<const ClassObj&>(o);
      for (auto& b : c.bases)
        if (b) visit(b.get());
      visit_table(c.dict, visit);
      break;
    }
    case ObjKind::Instance: {
      auto& i = static_cast<const InstanceObj&>(o);
      visit_table(i.dict, visit);
      visit(i.native);
      if (i.exc && i.exc.use_count() == 1) {  // shared ExcInfo: its owners are not all known
        visit(i.exc->cause);
        visit(i.exc->context);
      }
      break;
    }
    case ObjKind::Module:
      visit_table(static_cast<const ModuleObj&>(o).dict, visit);
      break;
    case ObjKind::Cell:
      visit(static_cast<const CellObj&>(o).v);
      break;
    case ObjKind::Property: case ObjKind::StaticMethod: case ObjKind::ClassMethod: {
      auto& w = static_cast<const WrapperObj&>(o);
      visit(w.fget);
      visit(w.fset);
      break;
    }
    case ObjKind::Native:
      static_cast<const NativeObj&>(o).gc_traverse(visit);
      break;
    default:
      break;
  }
}

void take_table(AttrTable& t, std::vector<Value>& out) {
  for (auto& [name, v] : t.entries)
    if (v) out.push_back(std::move(v));
  t.entries.clear();
  t.index.clear();
}

// Drops the references a garbage object holds (its class stays: the object must remain
// destructible and printable until its last holder lets go). Values go to `out`, released
// by the caller without recursion.
void clear(Object& o, std::vector<Value>& out) {
  switch (o.kind) {
    case ObjKind::Tuple: {
      auto& items = static_cast<TupleObj&>(o).items;
      for (auto& v : items) out.push_back(std::move(v));
      items.clear();
      break;
    }
    case ObjKind::List: {
      auto& items = static_cast<ListObj&>(o).items;
      for (auto& v : items) out.push_back(std::move(v));
      items.clear();
      break;
    }
    case ObjKind::Dict: case ObjKind::Set: case ObjKind::FrozenSet: {
      auto& d = static_cast<DictObj&>(o);
      for (auto& [k, v] : d.entries) {
        out.push_back(std::move(k));
        out.push_back(std::move(v));
      }
      d.entries.clear();
      d.index.clear();
      d.live = 0;
      break;
    }
    case ObjKind::Function: {
      auto& f = static_cast<FunctionObj&>(o);
      for (auto& v : f.defaults) out.push_back(std::move(v));
      f.defaults.clear();
      take_table(f.kwdefaults, out);
      for (auto& c : f.closure) out.push_back(std::move(c));
      f.closure.clear();
      out.push_back(std::move(f.globals));
      take_table(f.dict, out);
      break;
    }
    case ObjKind::BoundMethod: {
      auto& m = static_cast<BoundMethodObj&>(o);
      out.push_back(std::move(m.self));
      out.push_back(std::move(m.func));
      break;
    }
    case ObjKind::Class:
      take_table(static_cast<ClassObj&>(o).dict, out);  // bases stay: the MRO points at them
      break;
    case ObjKind::Instance: {
      auto& i = static_cast<InstanceObj&>(o);
      take_table(i.dict, out);
      out.push_back(std::move(i.native));
      if (i.exc && i.exc.use_count() == 1) {
        out.push_back(std::move(i.exc->cause));
        out.push_back(std::move(i.exc->context));
      }
      break;
    }
    case ObjKind::Module:
      take_table(static_cast<ModuleObj&>(o).dict, out);
      break;
    case ObjKind::Cell:
      out.push_back(std::move(static_cast<CellObj&>(o).v));
      break;
    case ObjKind::Property: case ObjKind::StaticMethod: case ObjKind::ClassMethod: {
      auto& w = static_cast<WrapperObj&>(o);
      out.push_back(std::move(w.fget));
      out.push_back(std::move(w.fset));
      break;
    }
    case ObjKind::Native:
      static_cast<NativeObj&>(o).gc_clear();
      break;
    default:
      break;
  }
}

// Steps 1-2: each tracked object's references from outside the tracked set. An object not
// owned by a shared_ptr (being constructed or destroyed) counts as referenced from outside.
std::vector<int64_t> outside_references(const std::vector<Object*>& objects) {
  std::vector<int64_t> refs(objects.size());
  for (size_t i = 0; i < objects.size(); ++i) {
    long n = objects[i]->weak_from_this().use_count();
    refs[i] = n > 0 ? n : std::numeric_limits<int32_t>::max();
  }
  struct Subtract : GcVisitor {
    std::vector<int64_t>& refs;
    explicit Subtract(std::vector<int64_t>& r) : refs(r) {}
    using GcVisitor::operator();
    void operator()(const Object* o) override {
      if (o->gc_slot != kGcUntracked) --refs[o->gc_slot];
    }
  } subtract(refs);
  for (Object* o : objects) traverse(*o, subtract);
  return refs;
}

}  // namespace

namespace gc {

size_t inconsistent_objects() {
  Registry& r = registry();
  std::lock_guard<SpinLock> lock(r.mu);
  auto refs = outside_references(r.objects);
  return size_t(std::count_if(refs.begin(), refs.end(), [](int64_t n) { return n < 0; }));
}


size_t collect() {
  Registry& r = registry();
  std::vector<Value> garbage;
  {
    std::lock_guard<SpinLock> lock(r.mu);
    if (r.collecting) return 0;
    std::vector<int64_t> refs = outside_references(r.objects);
    if (std::any_of(refs.begin(), refs.end(), [](int64_t n) { return n < 0; })) return 0;
    // Step 3: mark what outside references reach.
    std::vector<uint8_t> live(r.objects.size(), 0);
    std::vector<uint32_t> work;
    for (size_t i = 0; i < refs.size(); ++i)
      if (refs[i] > 0) {
        live[i] = 1;
        work.push_back(uint32_t(i));
      }
    struct Mark : GcVisitor {
      std::vector<uint8_t>& live;
      std::vector<uint32_t>& work;
      Mark(std::vector<uint8_t>& l, std::vector<uint32_t>& w) : live(l), work(w) {}
      using GcVisitor::operator();
      void operator()(const Object* o) override {
        if (o->gc_slot != kGcUntracked && !live[o->gc_slot]) {
          live[o->gc_slot] = 1;
          work.push_back(o->gc_slot);
        }
      }
    } mark(live, work);
    while (!work.empty()) {
      uint32_t i = work.back();
      work.pop_back();
      traverse(*r.objects[i], mark);
    }
    // Step 4 begins: hold the garbage, so clearing one member never frees another mid-way.
    for (size_t i = 0; i < live.size(); ++i)
      if (!live[i])
        if (Value v = r.objects[i]->weak_from_this().lock()) garbage.push_back(std::move(v));
    r.collecting = true;
  }
  std::vector<Value> dropped;
  for (auto& g : garbage) clear(*g, dropped);
  release_values(dropped);
  size_t found = garbage.size();
  release_values(garbage);
  std::lock_guard<SpinLock> lock(r.mu);
  r.collecting = false;
  r.survivors = r.objects.size();
  ++r.stats.collections;
  r.stats.collected += found;
  update_trigger(r);
  return found;
}

void detail::collect_automatically() {
  Registry& r = registry();
  {
    std::lock_guard<SpinLock> lock(r.mu);
    if (!r.enabled || r.collecting) return;
    if (r.stress_every) {
      if (r.stress_countdown > 0) {
        --r.stress_countdown;
        return;
      }
      // Every n-th boundary while the heap is small; sparser as it grows (each collection
      // visits every tracked object), so a program building 200k objects stays quick.
      r.stress_countdown = r.stress_every * std::max<size_t>(1, r.objects.size() / 2000) - 1;
    }
  }
  collect();
}

void set_enabled(bool on) {
  Registry& r = registry();
  std::lock_guard<SpinLock> lock(r.mu);
  r.enabled = on;
  update_trigger(r);
}

bool enabled() {
  Registry& r = registry();
  std::lock_guard<SpinLock> lock(r.mu);
  return r.enabled;
}

void set_threshold(size_t n) {
  Registry& r = registry();
  std::lock_guard<SpinLock> lock(r.mu);
  r.threshold = n;
  update_trigger(r);
}

size_t threshold() {
  Registry& r = registry();
  std::lock_guard<SpinLock> lock(r.mu);
  return r.threshold;
}

size_t count_since_collection() {
  Registry& r = registry();
  std::lock_guard<SpinLock> lock(r.mu);
  return r.objects.size() > r.survivors ? r.objects.size() - r.survivors : 0;
}

Stats stats() {
  Registry& r = registry();
  std::lock_guard<SpinLock> lock(r.mu);
  Stats s = r.stats;
  s.tracked = r.objects.size();
  return s;
}

}  // namespace gc
}  // namespace shard::interp
