// Stackful coroutines (a register-saving stack switch on x86-64, ucontext elsewhere), with
// stacks from mmap: a reservation whose pages the kernel commits as they are touched, a
// PROT_NONE guard page below it, and a small per-thread pool so that short-lived generators
// do not map and unmap a stack each.
#include "interp/coroutine.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <new>
#include <vector>

#include "interp/interp_impl.hpp"

// Sanitizers track each thread's stack: a switch they are not told about makes ASan ignore
// the unpoisoning at every throw on a coroutine stack (and report false overflows later) and
// corrupts TSan's shadow call stack.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SHARD_ASAN_FIBERS 1
#endif
#if __has_feature(thread_sanitizer)
#define SHARD_TSAN_FIBERS 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(SHARD_ASAN_FIBERS)
#define SHARD_ASAN_FIBERS 1
#endif
#if defined(__SANITIZE_THREAD__) && !defined(SHARD_TSAN_FIBERS)
#define SHARD_TSAN_FIBERS 1
#endif
#ifdef SHARD_ASAN_FIBERS
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef SHARD_TSAN_FIBERS
#include <sanitizer/tsan_interface.h>
#endif

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
  // Deep recursion may have committed much of the stack: if the page below the part kept
  // is resident, release all but the top.
  char* deep = s + page_size() + Coroutine::kStackSize - kKeepCommitted - page_size();
  unsigned char resident = 1;
  if (mincore(deep, page_size(), &resident) != 0 || (resident & 1))
    madvise(s + page_size(), Coroutine::kStackSize - kKeepCommitted, MADV_DONTNEED);
  t_stack_pool.free.push_back(s);
}

}  // namespace

Coroutine::Coroutine(std::function<void()> body) : body_(std::move(body)) {}

Coroutine::~Coroutine() { release_stack(); }

void Coroutine::release_stack() {
  if (stack_) give_back_stack(stack_);
  stack_ = nullptr;
#ifdef SHARD_TSAN_FIBERS
  if (tsan_fiber_) __tsan_destroy_fiber(tsan_fiber_);
  tsan_fiber_ = nullptr;
#endif
}

#if defined(__x86_64__)
// shard_coroutine_switch(save, next): pushes the callee-saved registers and the SSE/x87
// control words, stores the stack pointer in *save, loads `next` and pops the same from it.
// A new stack starts in shard_coroutine_start, which calls r13(r12) = Coroutine::entry(this).
extern "C" void shard_coroutine_switch(void** save, void* next);
extern "C" void shard_coroutine_start();
asm(R"(
  .pushsection .text
  .globl shard_coroutine_switch
  .hidden shard_coroutine_switch
  .type shard_coroutine_switch,@function
shard_coroutine_switch:
  endbr64
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size shard_coroutine_switch, .-shard_coroutine_switch

  .globl shard_coroutine_start
  .hidden shard_coroutine_start
  .type shard_coroutine_start,@function
shard_coroutine_start:
  endbr64
  movq %r12, %rdi
  callq *%r13
  ud2
  .size shard_coroutine_start, .-shard_coroutine_start
  .popsection
)");

#endif

// Resumer -> body. The resumer's fake stack (ASan) is kept on its own stack, in `fake`.
void Coroutine::switch_in() {
#ifdef SHARD_ASAN_FIBERS
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, stack_ + page_size(), kStackSize);
#endif
#ifdef SHARD_TSAN_FIBERS
  tsan_resumer_fiber_ = __tsan_get_current_fiber();
  if (!tsan_fiber_) tsan_fiber_ = __tsan_create_fiber(0);
  __tsan_switch_to_fiber(tsan_fiber_, 0);
#endif
#if defined(__x86_64__)
  shard_coroutine_switch(&caller_sp_, self_sp_);
#else
  swapcontext(&caller_, &self_);
#endif
#ifdef SHARD_ASAN_FIBERS
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
}

// Body -> resumer. An ending body's fake stack is freed (no slot to keep it in).
void Coroutine::switch_out(bool ending) {
#ifdef SHARD_ASAN_FIBERS
  __sanitizer_start_switch_fiber(ending ? nullptr : &asan_fake_stack_, resumer_stack_bottom_, resumer_stack_size_);
#endif
#ifdef SHARD_TSAN_FIBERS
  __tsan_switch_to_fiber(tsan_resumer_fiber_, 0);
#endif
#if defined(__x86_64__)
  shard_coroutine_switch(&self_sp_, caller_sp_);
#else
  swapcontext(&self_, &caller_);
#endif
  after_switch_to_body();
}

// On the body's stack, just switched to: learns the resumer's stack (it may differ each time).
void Coroutine::after_switch_to_body() {
#ifdef SHARD_ASAN_FIBERS
  __sanitizer_finish_switch_fiber(asan_fake_stack_, &resumer_stack_bottom_, &resumer_stack_size_);
#endif
}

#if !defined(__x86_64__)
void Coroutine::trampoline(unsigned lo, unsigned hi) {
  entry(reinterpret_cast<Coroutine*>((uintptr_t(hi) << 32) | uintptr_t(lo)));
}
#endif

void Coroutine::entry(Coroutine* self) {
  self->after_switch_to_body();
  try {
    self->body_();
  } catch (...) {
    self->error_ = std::current_exception();
  }
  self->finished_ = true;
  self->switch_out(/*ending=*/true);
  __builtin_unreachable();  // a finished coroutine is never resumed
}

void Coroutine::resume() {
  if (finished_ || running_) return;
  if (!started_) {
    stack_ = take_stack();
    floor_ = stack_ + page_size() + kFloorMargin;
#if defined(__x86_64__)
    // The frame shard_coroutine_switch pops: control words, r15..r12, rbx, rbp, then the
    // return address. The stack is 16-byte aligned where shard_coroutine_start begins.
    auto* sp = reinterpret_cast<uint64_t*>(stack_ + page_size() + kStackSize - 16);
    *--sp = reinterpret_cast<uint64_t>(&shard_coroutine_start);
    *--sp = 0;                                          // rbp
    *--sp = 0;                                          // rbx
    *--sp = reinterpret_cast<uint64_t>(this);           // r12: the argument
    *--sp = reinterpret_cast<uint64_t>(&Coroutine::entry);  // r13: the function
    *--sp = 0;                                          // r14
    *--sp = 0;                                          // r15
    *--sp = uint64_t(0x1F80) | (uint64_t(0x037F) << 32);  // default MXCSR and x87 control word
    self_sp_ = sp;
#else
    if (getcontext(&self_) != 0) {
      release_stack();
      throw std::bad_alloc();
    }
    self_.uc_stack.ss_sp = stack_ + page_size();
    self_.uc_stack.ss_size = kStackSize;
    self_.uc_link = nullptr;
    const auto p = reinterpret_cast<uintptr_t>(this);
    makecontext(&self_, reinterpret_cast<void (*)()>(&Coroutine::trampoline), 2, unsigned(p & 0xffffffffu),
                unsigned(p >> 32));
#endif
    started_ = true;
  }
  // The interpreter's stack guard must measure whichever stack is running.
  saved_floor_ = t_stack_floor ? t_stack_floor : compute_stack_floor();
  t_stack_floor = floor_;
  running_ = true;
  switch_in();
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
  switch_out();
}

}  // namespace shard::interp
