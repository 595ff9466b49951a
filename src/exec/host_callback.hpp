// Host callbacks (jax.debug.print inside jit or a loop body): a device step copies the
// operands (replicated by the partitioner) on the mesh's first position and queues them; the
// host thread runs the callbacks, in program order, when the executable's run returns — the
// interpreter is never entered from a device thread.
#pragma once
#include <cstdint>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include "types/array_type.hpp"

namespace shard::exec {

struct HostValue {
  types::ArrayType type;       // local (= global: operands are replicated)
  std::vector<uint8_t> bytes;  // row-major
};
using HostCallback = std::function<void(const std::vector<HostValue>&)>;

// Process-wide registry; the id goes into the IR op's attributes.
int64_t register_host_callback(HostCallback cb);
const HostCallback& host_callback(int64_t id);

// Calls queued by one run of an executable.
struct HostCallbackQueue {
  std::mutex mu;
  std::vector<std::pair<int64_t, std::vector<HostValue>>> calls;
  void push(int64_t id, std::vector<HostValue> values);
  void run_all();  // on the host thread
};

}  // namespace shard::exec
