// vmap as JAX does it: a batching transform over traced IR. Each op of the function is
// replaced by its batching rule's ops on values with one more (leading) dim; ops whose
// operands are all unbatched are copied. Everything is emitted through trace::, so the
// sharding rules type the batched values: a batch dim keeps the sharding it came with.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ir/ir.hpp"
#include "trace/trace.hpp"

namespace shard::batching {

using ir::ValueId;
using types::ArrayType;

struct Batched {
  ValueId value = -1;
  bool batched = false;  // the value has the batch as its leading dim
};

// Emits into t the function f applied to `args` (batched ones with the batch dim leading,
// of size `size`); returns its results, batched or not. `axis_name` names the batch for
// collectives written inside f (empty: none).
std::vector<Batched> batch(trace::Trace& t, const ir::Function& f, const std::vector<Batched>& args, int64_t size,
                           const std::string& axis_name = "");

// v with a leading batch dim of `size` (a broadcast when it has none, its batch dim sharded
// as `batch_axes`, to match the batched values it meets).
ValueId materialize(trace::Trace& t, const Batched& v, int64_t size, const types::PartitionSpec::Entry& batch_axes = {});

}  // namespace shard::batching
