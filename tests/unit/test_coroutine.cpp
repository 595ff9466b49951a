// The stackful coroutines under generators (src/interp/coroutine.hpp): suspend/resume
// order, exceptions handed to the resumer, nesting, and deep recursion on the coroutine's
// own stack.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "interp/coroutine.hpp"

using shard::interp::Coroutine;

namespace {

int depth_sum(int n) {
  volatile char pad[256];  // make each level use real stack
  pad[0] = char(n);
  return n == 0 ? 0 : n + depth_sum(n - 1) + pad[0] - char(n);
}

}  // namespace

TEST_CASE("coroutine interleaves with its resumer", "[coroutine]") {
  std::vector<std::string> log;
  Coroutine* self = nullptr;
  Coroutine co([&] {
    log.push_back("a");
    self->suspend();
    log.push_back("b");
    self->suspend();
    log.push_back("c");
  });
  self = &co;
  CHECK_FALSE(co.started());
  co.resume();
  log.push_back("1");
  co.resume();
  log.push_back("2");
  CHECK_FALSE(co.finished());
  co.resume();
  CHECK(co.finished());
  co.resume();  // a finished coroutine stays finished
  CHECK(log == std::vector<std::string>{"a", "1", "b", "2", "c"});
}

TEST_CASE("an exception leaving the body is rethrown by resume", "[coroutine]") {
  Coroutine* self = nullptr;
  Coroutine co([&] {
    self->suspend();
    throw std::runtime_error("boom");
  });
  self = &co;
  co.resume();
  CHECK_THROWS_WITH(co.resume(), "boom");
  CHECK(co.finished());
}

TEST_CASE("coroutines nest and recurse deeply on their own stacks", "[coroutine]") {
  std::vector<int> seen;
  Coroutine* inner_self = nullptr;
  Coroutine inner([&] {
    seen.push_back(depth_sum(10000));  // ~2.5 MiB of stack frames
    inner_self->suspend();
    seen.push_back(2);
  });
  inner_self = &inner;
  Coroutine* outer_self = nullptr;
  Coroutine outer([&] {
    inner.resume();
    outer_self->suspend();
    inner.resume();
  });
  outer_self = &outer;
  outer.resume();
  CHECK(seen == std::vector<int>{50005000});
  outer.resume();
  CHECK(outer.finished());
  CHECK(inner.finished());
  CHECK(seen == std::vector<int>{50005000, 2});
}

TEST_CASE("many coroutines can exist at once", "[coroutine]") {
  std::vector<std::unique_ptr<Coroutine>> cos;
  int done = 0;
  for (int i = 0; i < 200; ++i) {
    cos.push_back(std::make_unique<Coroutine>([&] { ++done; }));
    if (i % 2 == 0) cos.back()->resume();
  }
  CHECK(done == 100);
  cos.clear();  // unstarted and finished ones alike release cleanly
}
