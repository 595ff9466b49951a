#include "exec/host_callback.hpp"

#include <algorithm>

namespace shard::exec {

void HostCallbackQueue::push(int64_t position, std::shared_ptr<const HostCallback> cb, std::vector<HostValue> values, bool send) {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t seq = next_.at(static_cast<size_t>(position))++;
  if (send) calls_.push_back({seq, position, std::move(cb), std::move(values)});
}

void HostCallbackQueue::run_all() {
  std::vector<Call> todo;
  {
    std::lock_guard<std::mutex> lock(mu_);
    todo.swap(calls_);
  }
  std::stable_sort(todo.begin(), todo.end(),
                   [](const Call& a, const Call& b) { return a.seq != b.seq ? a.seq < b.seq : a.position < b.position; });
  for (auto& c : todo) (*c.cb)(c.values);
}

}  // namespace shard::exec
