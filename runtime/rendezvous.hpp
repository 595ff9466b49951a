// CollectiveRendezvous: where the device threads of one collective meet. Each participant
// arrives with a description of the collective it is executing (kind, axes, shape, dtype)
// and a pointer to its data; once all have arrived, each sees everyone's pointers and does
// its share of the work, then all depart together so no buffer is freed while read.
// Devices that disagree on the description get an error naming both sides; a participant
// that never arrives turns into a timeout error, never a hang.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace shard::runtime {

struct CollectiveError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class CollectiveRendezvous {
 public:
  // `devices[rank]` is the device id of each participant (for messages).
  CollectiveRendezvous(std::vector<int> devices, std::chrono::milliseconds timeout);

  int size() const { return static_cast<int>(devices_.size()); }
  // Blocks until every rank arrived; returns the published pointers in rank order.
  // Throws CollectiveError on mismatch or timeout (and on every later use after a timeout).
  std::vector<void*> arrive(int rank, const std::string& what, void* data);
  // Blocks until every rank is done reading the others' data.
  void depart(int rank);

 private:
  void wait_phase(std::unique_lock<std::mutex>& lock, uint64_t target, int rank, const std::string& what,
                  const char* stage);
  std::vector<int> devices_;
  std::chrono::milliseconds timeout_;
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t phase_ = 0;  // even: collecting arrivals; odd: collecting departures
  std::atomic<uint64_t> phase_seen_{0};  // phase_, readable without the lock (waiters yield on it)
  int count_ = 0;
  std::vector<std::string> what_;
  std::vector<void*> data_;
  std::vector<bool> present_;
  std::string error_;    // set when the current round failed (mismatch)
  std::string broken_;   // set forever after a timeout
  std::string failed_round_;  // this round failed (a device finished without it): arrivals leave
  void withdraw_and_throw(int rank);  // with mu_ held
};

}  // namespace shard::runtime
