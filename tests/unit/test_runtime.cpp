#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include "runtime/device_buffer.hpp"
#include "runtime/device_runtime.hpp"
#include "runtime/rendezvous.hpp"

using namespace shard::runtime;
using namespace std::chrono_literals;

TEST_CASE("launch runs on every device's own thread, never the host", "[runtime]") {
  DeviceRuntime rt(8);
  std::vector<int> seen(8, -1);
  std::vector<std::thread::id> tids(8);
  rt.launch_all([&](int d) {
    seen[d] = DeviceRuntime::current_device();
    tids[d] = std::this_thread::get_id();
  });
  for (int d = 0; d < 8; ++d) {
    CHECK(seen[d] == d);
    CHECK(tids[d] != std::this_thread::get_id());
  }
  CHECK(DeviceRuntime::current_device() == -1);
}

TEST_CASE("launch rethrows a device's error after all devices return", "[runtime]") {
  DeviceRuntime rt(4);
  std::atomic<int> finished{0};
  REQUIRE_THROWS_WITH(rt.launch({0, 1, 2, 3},
                                [&](int d) {
                                  if (d == 2) throw std::runtime_error("device 2 failed");
                                  std::this_thread::sleep_for(5ms);
                                  ++finished;
                                }),
                      "device 2 failed");
  CHECK(finished == 3);
  CHECK_THROWS_AS(rt.launch({9}, [](int) {}), std::out_of_range);
}

namespace {
// An error that records which thread destroyed it (the last owner of its exception_ptr).
struct TracedError : std::runtime_error {
  std::atomic<int>* freed_on_device;
  TracedError(const char* what, std::atomic<int>* counter) : std::runtime_error(what), freed_on_device(counter) {}
  TracedError(const TracedError&) = default;
  ~TracedError() override {
    if (DeviceRuntime::current_device() >= 0) ++*freed_on_device;
  }
};
}  // namespace

TEST_CASE("a device's error is handed to the host whole: the host frees it, after reading it", "[runtime]") {
  DeviceRuntime rt(4);
  std::atomic<int> freed_on_device{0};
  for (int round = 0; round < 300; ++round) {
    try {
      rt.launch({0, 1, 2, 3}, [&](int d) { throw TracedError(d == 0 ? "device 0 failed" : "another device failed", &freed_on_device); });
      FAIL("launch did not rethrow");
    } catch (const TracedError& e) {
      REQUIRE(std::string(e.what()) == "device 0 failed");  // the first device in launch order
    }
  }
  CHECK(freed_on_device == 0);
}

TEST_CASE("rendezvous: all-reduce through published pointers, reused across rounds", "[runtime]") {
  const int n = 8;
  DeviceRuntime rt(n);
  std::vector<int> ids{0, 1, 2, 3, 4, 5, 6, 7};
  CollectiveRendezvous rv(ids, 5000ms);
  std::vector<std::vector<float>> in(n, std::vector<float>(64)), out(n, std::vector<float>(64));
  for (int round = 0; round < 20; ++round) {
    for (int d = 0; d < n; ++d)
      for (int i = 0; i < 64; ++i) in[d][i] = float(d * 100 + i + round);
    rt.launch_all([&](int d) {
      auto ptrs = rv.arrive(d, "psum f32[64] over x", in[d].data());
      for (int i = 0; i < 64; ++i) {
        float s = 0;
        for (auto* p : ptrs) s += static_cast<float*>(p)[i];
        out[d][i] = s;
      }
      rv.depart(d);
    });
    for (int d = 0; d < n; ++d)
      for (int i = 0; i < 64; ++i) REQUIRE(out[d][i] == float(100 * 28 + 8 * (i + round)));
  }
}

TEST_CASE("rendezvous: a mismatch names both sides, a missing device times out", "[runtime]") {
  DeviceRuntime rt(2);
  {
    CollectiveRendezvous rv({0, 1}, 5000ms);
    std::vector<std::string> errors(2);
    rt.launch_all([&](int d) {
      try {
        rv.arrive(d, d == 0 ? "psum f32[4] over x" : "all_gather f32[4] over x", nullptr);
      } catch (const CollectiveError& e) {
        errors[d] = e.what();
      }
    });
    for (auto& e : errors) {
      CHECK_THAT(e, Catch::Contains("psum f32[4] over x"));
      CHECK_THAT(e, Catch::Contains("all_gather f32[4] over x"));
    }
  }
  {
    CollectiveRendezvous rv({0, 1}, 100ms);
    std::string err;
    rt.launch({0, 1}, [&](int d) {
      if (d == 1) {  // busy elsewhere past the timeout
        std::this_thread::sleep_for(400ms);
        return;
      }
      try {
        rv.arrive(d, "psum f32[4] over x", nullptr);
      } catch (const CollectiveError& e) {
        err = e.what();
      }
    });
    CHECK_THAT(err, Catch::Contains("device(s) 1 did not arrive"));
  }
}

TEST_CASE("rendezvous: a device that finished its program is named at once", "[runtime]") {
  DeviceRuntime rt(2);
  CollectiveRendezvous rv({0, 1}, 20s);
  std::string err;
  const auto t0 = std::chrono::steady_clock::now();
  rt.launch({0, 1}, [&](int d) {
    if (d == 1) return;  // skips the collective
    try {
      rv.arrive(d, "psum f32[4] over x", nullptr);
    } catch (const CollectiveError& e) {
      err = e.what();
    }
  });
  CHECK(std::chrono::steady_clock::now() - t0 < 2s);
  CHECK_THAT(err, Catch::Contains("device 0 reached `psum f32[4] over x` but device 1 finished its program without executing it"));
}

TEST_CASE("a view shares its parent's bytes and keeps it alive", "[runtime]") {
  const auto before = device_memory_stats(0).live_buffers;
  BufferRef view;
  {
    BufferRef parent = DeviceBuffer::allocate(0, 64 * sizeof(float));
    for (int i = 0; i < 64; ++i) parent->as<float>()[i] = static_cast<float>(i);
    view = DeviceBuffer::view(parent, 16 * sizeof(float), 8 * sizeof(float));
    CHECK(view->data() == parent->as<float>() + 16);
    CHECK_THROWS_AS(DeviceBuffer::view(parent, 60 * sizeof(float), 8 * sizeof(float)), std::out_of_range);
  }
  CHECK(view->bytes() == 8 * sizeof(float));
  CHECK(view->as<float>()[0] == 16.0f);  // the parent is still alive
  CHECK(view->as<float>()[7] == 23.0f);
  CHECK(device_memory_stats(0).live_buffers == before + 1);  // counted once, by the parent
  view.reset();
  CHECK(device_memory_stats(0).live_buffers == before);
}
