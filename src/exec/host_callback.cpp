#include "exec/host_callback.hpp"

#include <deque>
#include <stdexcept>

namespace shard::exec {

namespace {
std::mutex registry_mu;
std::deque<HostCallback>& registry() {  // deque: references stay valid as it grows
  static std::deque<HostCallback> r;
  return r;
}
}  // namespace

int64_t register_host_callback(HostCallback cb) {
  std::lock_guard<std::mutex> lock(registry_mu);
  registry().push_back(std::move(cb));
  return static_cast<int64_t>(registry().size()) - 1;
}

const HostCallback& host_callback(int64_t id) {
  std::lock_guard<std::mutex> lock(registry_mu);
  if (id < 0 || static_cast<size_t>(id) >= registry().size()) throw std::logic_error("internal error: unknown host callback");
  return registry()[static_cast<size_t>(id)];
}

void HostCallbackQueue::push(int64_t id, std::vector<HostValue> values) {
  std::lock_guard<std::mutex> lock(mu);
  calls.emplace_back(id, std::move(values));
}

void HostCallbackQueue::run_all() {
  std::vector<std::pair<int64_t, std::vector<HostValue>>> todo;
  {
    std::lock_guard<std::mutex> lock(mu);
    todo.swap(calls);
  }
  for (auto& [id, values] : todo) host_callback(id)(values);
}

}  // namespace shard::exec
