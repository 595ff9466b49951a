// Where a LoopKernel's locals live. Small ones (a scalar carry, a short vector) are stack
// slots, which LLVM promotes to registers, up to a budget; the rest share one scratch arena,
// placed by their
// live ranges so buffers that are never live at the same time reuse the same bytes (a body
// with several large intermediates then needs about what the step interpreter would hold).
#pragma once
#include <cstdint>
#include <vector>

#include "codegen/loop_kernel.hpp"

namespace shard::codegen {

constexpr int64_t kLoopStackBytes = 256;          // locals up to this size are stack slots...
constexpr int64_t kLoopStackBudget = 64 * 1024;   // ...while they add up to no more than this
constexpr int64_t kLoopScratchAlign = 64;

struct LoopStorage {
  std::vector<bool> on_stack;           // per var: a Local given a stack slot
  std::vector<int64_t> scratch_offset;  // per var: a Local's offset in the arena (-1: not there)
  int64_t scratch_bytes = 0;
};

// Live ranges are positions in the statements' preorder. A var is live from its first to its
// last reference, and through the whole of any loop that references it but began after it
// was first referenced (it is read again next iteration). A reference to a carry's cur or
// spare refers to both of its buffers; one to a slice or an alias, to the buffer under it.
LoopStorage plan_loop_storage(const LoopKernel& k);

}  // namespace shard::codegen
