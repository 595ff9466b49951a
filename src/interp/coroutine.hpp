// Stackful coroutines for generators: a body runs on its own C++ stack and can suspend in
// the middle of any recursion (the tree-walking interpreter has no frames of its own to
// save). On x86-64 a switch saves the callee-saved registers and swaps stack pointers (no
// system call); elsewhere it is POSIX ucontext. Switches nest strictly: resume() returns
// when the body suspends or ends, and a body may resume other coroutines in turn.
#pragma once
#include <cstddef>
#include <exception>
#include <functional>
#include <ucontext.h>

namespace shard::interp {

class Coroutine {
 public:
  // Size of the stack reservation (committed lazily by the kernel as it is touched).
  static constexpr size_t kStackSize = size_t(8) << 20;

  explicit Coroutine(std::function<void()> body);
  // Frees the stack. The body must have finished (or never started): an unfinished body's
  // C++ frames are dropped without unwinding.
  ~Coroutine();
  Coroutine(const Coroutine&) = delete;
  Coroutine& operator=(const Coroutine&) = delete;

  // Runs the body until it suspends or ends. An exception that leaves the body is rethrown
  // here, on the resumer's stack (exceptions never cross the switch itself).
  void resume();
  // From inside the body: back to the resumer, until the next resume().
  void suspend();
  bool started() const { return started_; }
  bool finished() const { return finished_; }
  bool running() const { return running_; }

 private:
  static void trampoline(unsigned lo, unsigned hi);
  static void entry(Coroutine* self);
  void release_stack();
  void switch_in();
  void switch_out(bool ending = false);
  void after_switch_to_body();

  std::function<void()> body_;
#if defined(__x86_64__)
  void* caller_sp_ = nullptr;  // saved stack pointers of the two sides
  void* self_sp_ = nullptr;
#else
  ucontext_t caller_{}, self_{};
#endif
  char* stack_ = nullptr;  // the mapping, guard page first
  char* floor_ = nullptr;  // lowest address the interpreter's stack guard lets recursion reach
  char* saved_floor_ = nullptr;
  std::exception_ptr error_;
  // What AddressSanitizer and ThreadSanitizer are told at each switch (unused in other
  // builds): the body's fake stack while it is suspended, the resumer's stack, the two fibers.
  void* asan_fake_stack_ = nullptr;
  const void* resumer_stack_bottom_ = nullptr;
  size_t resumer_stack_size_ = 0;
  void* tsan_fiber_ = nullptr;
  void* tsan_resumer_fiber_ = nullptr;
  bool started_ = false, finished_ = false, running_ = false;
};

}  // namespace shard::interp
