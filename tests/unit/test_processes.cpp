// Several processes: who owns which device, and what a process's runtime runs. (The MPI part is
// tested end to end by tests/multiprocess/run.sh under mpirun.)
#include <catch2/catch.hpp>

#include <algorithm>
#include <mutex>
#include <vector>

#include "runtime/device_runtime.hpp"
#include "runtime/process_layout.hpp"

using namespace shard::runtime;

TEST_CASE("process p of P owns devices p*D .. p*D+D-1", "[processes]") {
  ProcessLayout l{1, 4, 2};  // process 1 of 4, 2 devices each
  CHECK(l.global_device_count() == 8);
  CHECK(l.first_local_device() == 2);
  CHECK(l.process_of(0) == 0);
  CHECK(l.process_of(3) == 1);
  CHECK(l.process_of(7) == 3);
  CHECK(l.is_local(2));
  CHECK(l.is_local(3));
  CHECK_FALSE(l.is_local(4));
  CHECK_FALSE(l.is_local(1));
}

TEST_CASE("a process's runtime runs only its own devices of a launch", "[processes]") {
  DeviceRuntime rt(2, 4, 8);  // devices 4 and 5 of 8
  CHECK(rt.size() == 8);
  CHECK(rt.local_size() == 2);
  CHECK(rt.is_local(5));
  CHECK_FALSE(rt.is_local(6));
  std::mutex mu;
  std::vector<int> ran;
  rt.launch({0, 1, 2, 3, 4, 5, 6, 7}, [&](int d) {
    std::lock_guard<std::mutex> lock(mu);  // also for CHECK: Catch2's assertions are not thread-safe
    CHECK(DeviceRuntime::current_device() == d);
    ran.push_back(d);
  });
  std::sort(ran.begin(), ran.end());
  CHECK(ran == std::vector<int>{4, 5});
  ran.clear();
  rt.launch({0, 1}, [&](int d) { ran.push_back(d); });  // none of them here: nothing runs
  CHECK(ran.empty());
  rt.launch_all([&](int d) {
    std::lock_guard<std::mutex> lock(mu);
    ran.push_back(d);
  });
  std::sort(ran.begin(), ran.end());
  CHECK(ran == std::vector<int>{4, 5});
  CHECK_THROWS_AS(rt.launch({8}, [](int) {}), std::out_of_range);
}
