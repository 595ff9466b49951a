#include "runtime/rendezvous.hpp"

#include <fmt/format.h>

#include <sched.h>

#include <algorithm>

#include "runtime/device_runtime.hpp"

namespace shard::runtime {

CollectiveRendezvous::CollectiveRendezvous(std::vector<int> devices, std::chrono::milliseconds timeout)
    : devices_(std::move(devices)), timeout_(timeout), what_(devices_.size()), data_(devices_.size()),
      present_(devices_.size(), false) {}

void CollectiveRendezvous::wait_phase(std::unique_lock<std::mutex>& lock, uint64_t target, int rank,
                                      const std::string& what, const char* stage) {
  // First yield for a short while: the others usually come within microseconds, and a
  // condition-variable sleep and wake-up costs tens of them (8 device threads on 2 cores: yielding
  // lets them run). The phase is re-read under the lock below.
  lock.unlock();
  const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
  for (int i = 0; phase_seen_.load(std::memory_order_acquire) < target; ++i) {
    if ((i & 15) == 15 && std::chrono::steady_clock::now() >= spin_until) break;
    sched_yield();
  }
  lock.lock();
  // Arrivals wait in slices so that Ctrl-C (runtime::request_cancel) can withdraw them: the
  // round is then as if this rank had not come, and the rendezvous stays usable.
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  bool ok = false;
  for (;;) {
    const auto slice = std::min<std::chrono::steady_clock::duration>(std::chrono::milliseconds(50),
                                                                      deadline - std::chrono::steady_clock::now());
    ok = cv_.wait_for(lock, std::max<std::chrono::steady_clock::duration>(slice, {}),
                      [&] { return phase_ >= target || !broken_.empty() || !failed_round_.empty(); });
    if (stage[0] == 'a' && phase_ < target && !failed_round_.empty()) withdraw_and_throw(rank);
    if (ok || std::chrono::steady_clock::now() >= deadline) break;
    if (stage[0] == 'a' && cancel_requested()) {
      present_[rank] = false;
      --count_;
      throw Interrupted();
    }
    // A missing device of this process that is no longer running has finished its program
    // without this collective (a per-device predicate skipped it, say): say so now, not after
    // the timeout. Only this round fails: the arrivals leave, and the next call of the program
    // (which may take the collective everywhere) finds the rendezvous usable. (Devices of other
    // processes are watched by runtime/mpi_transport.)
    if (stage[0] == 'a' && DeviceRuntime::current_device() >= 0)
      for (size_t r = 0; r < devices_.size(); ++r)
        if (!present_[r] && !device_running(devices_[r])) {
          failed_round_ = fmt::format(
              "collective mismatch: device {} reached `{}` but device {} finished its program without executing it "
              "(a collective must be executed by every device of its group, in the same order)",
              devices_[rank], what, devices_[r]);
          cv_.notify_all();
          withdraw_and_throw(rank);
        }
  }
  if (!broken_.empty()) throw CollectiveError(broken_);
  if (ok) return;
  std::vector<std::string> missing;
  for (size_t r = 0; r < devices_.size(); ++r)
    if (stage[0] == 'a' ? !present_[r] : present_[r]) missing.push_back(fmt::format("{}", devices_[r]));
  broken_ = fmt::format(
      "collective mismatch: device {} reached `{}` but device(s) {} did not {} within {:.1f} s "
      "(a collective must be executed by every device of its group, in the same order)",
      devices_[rank], what, fmt::join(missing, ", "), stage, timeout_.count() / 1000.0);
  cv_.notify_all();
  throw CollectiveError(broken_);
}

void CollectiveRendezvous::withdraw_and_throw(int rank) {
  const std::string error = failed_round_;
  present_[rank] = false;
  if (--count_ == 0) failed_round_.clear();  // the last to leave resets the round
  throw CollectiveError(error);
}

std::vector<void*> CollectiveRendezvous::arrive(int rank, const std::string& what, void* data) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!broken_.empty()) throw CollectiveError(broken_);
  if (!failed_round_.empty()) throw CollectiveError(failed_round_);  // a round being abandoned
  const uint64_t my_phase = phase_;  // even: this round's arrival phase
  what_[rank] = what;
  data_[rank] = data;
  present_[rank] = true;
  if (++count_ == size()) {
    error_.clear();
    for (int r = 1; r < size(); ++r)
      if (what_[r] != what_[0]) {
        error_ = fmt::format("collective mismatch: device {} executes `{}` while device {} executes `{}`",
                             devices_[0], what_[0], devices_[r], what_[r]);
        break;
      }
    count_ = 0;
    ++phase_;  // odd: departures
    phase_seen_.store(phase_, std::memory_order_release);
    cv_.notify_all();
  } else {
    wait_phase(lock, my_phase + 1, rank, what, "arrive");
  }
  if (!error_.empty()) {
    std::string err = error_;
    lock.unlock();
    depart(rank);  // keep the rendezvous usable for the remaining rounds
    throw CollectiveError(err);
  }
  return data_;
}

void CollectiveRendezvous::depart(int rank) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!broken_.empty()) throw CollectiveError(broken_);
  const uint64_t my_phase = phase_;
  present_[rank] = false;
  if (++count_ == size()) {
    count_ = 0;
    ++phase_;  // even: next round
    phase_seen_.store(phase_, std::memory_order_release);
    cv_.notify_all();
  } else {
    wait_phase(lock, my_phase + 1, rank, what_[rank], "depart");
  }
}

}  // namespace shard::runtime
