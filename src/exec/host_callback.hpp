// Host callbacks (jax.debug.print inside jit, loop bodies, shard_map): a device step copies the
// operands and queues them; the host thread runs the callbacks in program order when the
// executable's run returns — the interpreter is never entered from a device thread. Replicated
// operands are sent by the mesh's first position only; operands that vary over manual axes by
// every position, printed in position order.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "types/array_type.hpp"

namespace shard::exec {

struct HostValue {
  types::ArrayType type;       // local
  std::vector<uint8_t> bytes;  // row-major
};
using HostCallback = std::function<void(const std::vector<HostValue>&)>;

// Calls queued by one run of an executable over `positions` mesh positions.
class HostCallbackQueue {
 public:
  explicit HostCallbackQueue(size_t positions) : next_(positions, 0) {}
  // Every position calls this for every callback step it reaches, in program order; `values`
  // are queued only when `send`.
  void push(int64_t position, std::shared_ptr<const HostCallback> cb, std::vector<HostValue> values, bool send);
  void run_all();  // on the host thread: by step order, then position

 private:
  struct Call {
    int64_t seq, position;
    std::shared_ptr<const HostCallback> cb;
    std::vector<HostValue> values;
  };
  std::mutex mu_;
  std::vector<Call> calls_;
  std::vector<int64_t> next_;  // per position: how many callback steps it reached
};

}  // namespace shard::exec
