// Stackful coroutines on ucontext, with stacks from mmap: a reservation whose pages the
// kernel commits as they are touched, a PROT_NONE guard page below it, and a small per-thread
// pool so that short-lived generators do not map and unmap a stack each.
#include "interp/coroutine.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <new>
#include <vector>

#include "interp/interp_impl.hpp"

namespace shard::interp {

namespace {

size_t page_size() {
  static const size_t size = size_t(sysconf(_SC_PAGESIZE));
  return size;
}

// Room left below the interpreter's stack guard for the RecursionError path itself.
constexpr size_t kFloorMargin = size_t(512) << 10;
// Pooled stacks keep this much of their top committed; the rest is handed back.
constexpr size_t kKeepCommitted = size_t(256) << 10;
constexpr size_t kPoolMax = 16;

struct StackPool {
  std::vector<char*> free;
  ~StackPool() {
    for (char* s : free) munmap(s, page_size() + Coroutine::kStackSize);
  }
};
thread_local StackPool t_stack_pool;

char* take_stack() {
  if (!t_stack_pool.free.empty()) {
    char* s = t_stack_pool.free.back();
    t_stack_pool.free.pop_back();
    return s;
  }
  const size_t total = page_size() + Coroutine::kStackSize;
  void* p = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  char* base = static_cast<char*>(p);
  if (mprotect(base, page_size(), PROT_NONE) != 0) {  // overflow faults instead of corrupting memory
    munmap(base, total);
    throw std::bad_alloc();
  }
  return base;
}

void give_back_stack(char* s) {
  if (t_stack_pool.free.size() >= kPoolMax) {
    munmap(s, page_size() + Coroutine::kStackSize);
    return;
  }
  // Deep recursion may have committed much of the stack: release all but its top.
  madvise(s + page_size(), Coroutine::kStackSize - kKeepCommitted, MADV_DONTNEED);
  t_stack_pool.free.push_back(s);
}

}  // namespace

Coroutine::Coroutine(std::function<void()> body) : body_(std::move(body)) {}

Coroutine::~Coroutine() { release_stack(); }

void Coroutine::release_stack() {
  if (stack_) give_back_stack(stack_);
  stack_ = nullptr;
}

void Coroutine::trampoline(unsigned lo, unsigned hi) {
  auto* self = reinterpret_cast<Coroutine*>((uintptr_t(hi) << 32) | uintptr_t(lo));
  try {
    self->body_();
  } catch (...) {
    self->error_ = std::current_exception();
  }
  self->finished_ = true;
  swapcontext(&self->self_, &self->caller_);
  __builtin_unreachable();  // a finished coroutine is never resumed
}

void Coroutine::resume() {
  if (finished_ || running_) return;
  if (!started_) {
    stack_ = take_stack();
    if (getcontext(&self_) != 0) {
      release_stack();
      throw std::bad_alloc();
    }
    self_.uc_stack.ss_sp = stack_ + page_size();
    self_.uc_stack.ss_size = kStackSize;
    self_.uc_link = nullptr;
    floor_ = stack_ + page_size() + kFloorMargin;
    const auto p = reinterpret_cast<uintptr_t>(this);
    makecontext(&self_, reinterpret_cast<void (*)()>(&Coroutine::trampoline), 2, unsigned(p & 0xffffffffu),
                unsigned(p >> 32));
    started_ = true;
  }
  // The interpreter's stack guard must measure whichever stack is running.
  saved_floor_ = t_stack_floor ? t_stack_floor : compute_stack_floor();
  t_stack_floor = floor_;
  running_ = true;
  swapcontext(&caller_, &self_);
  running_ = false;
  t_stack_floor = saved_floor_;
  if (finished_) {
    release_stack();
    body_ = nullptr;  // drops what the body captured, now rather than with the coroutine
    if (error_) {
      std::exception_ptr e = std::move(error_);
      error_ = nullptr;
      std::rethrow_exception(e);
    }
  }
}

void Coroutine::suspend() {
  if (!running_) return;
  swapcontext(&self_, &caller_);
}

}  // namespace shard::interp
