// Shared machinery of the collectives (internal to runtime/): what each rank publishes, one
// rendezvous round with guaranteed departure, descriptions, and deferred output for aliasing.
#pragma once
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/collectives.hpp"

namespace shard::runtime::detail {

// What every rank publishes at arrival: its input (read by others) and output.
struct Endpoint {
  const std::byte* in = nullptr;
  size_t in_bytes = 0;
  std::byte* out = nullptr;
  size_t out_bytes = 0;
  const BufferRef* shared = nullptr;  // all_reduce_shared: rank 0's output, given to all
};

using Peers = std::vector<const Endpoint*>;  // indexed by rank

// One round: arrive publishing `mine`, run work(peers), and depart even when work throws (the
// others must not wait for a rank that gave up), then rethrow.
template <class Work>
void exchange(CollectiveGroup& group, int rank, const std::string& what, Endpoint& mine, Work&& work) {
  std::vector<void*> raw = group.rendezvous().arrive(rank, what, &mine);
  Peers peers(raw.size());
  for (size_t j = 0; j < raw.size(); ++j) peers[j] = static_cast<const Endpoint*>(raw[j]);
  std::exception_ptr err;
  try {
    work(peers);
  } catch (...) {
    err = std::current_exception();
  }
  group.rendezvous().depart(rank);
  if (err) std::rethrow_exception(err);
}

// Throws CollectiveError when rank is outside the group or the calling device thread is not
// the device of that rank.
void check_rank(const CollectiveGroup& group, int rank, std::string_view op);

// "op f32[d0,d1] extra note" — the rendezvous description; empty parts are left out.
std::string describe(std::string_view op, DType dtype, const std::vector<size_t>& dims,
                     std::string_view extra, std::string_view note);

inline bool overlaps(const void* a, size_t an, const void* b, size_t bn) {
  if (an == 0 || bn == 0) return false;
  auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return x < y + bn && y < x + an;
}

// True when `mine.out` overlaps any rank's published input.
bool output_overlaps_inputs(const Endpoint& mine, const Peers& peers);

// Where a pull-style collective writes this rank's output. Normally straight into `out`; when
// `out` overlaps memory other ranks may still be reading, into a scratch buffer that
// finish() copies to `out` once everyone has departed.
class OutputTarget {
 public:
  OutputTarget(std::byte* out, size_t bytes) : out_(out), bytes_(bytes) {}
  void defer();  // switch to scratch (call before writing)
  std::byte* data() { return scratch_ ? scratch_.get() : out_; }
  void finish() {
    if (scratch_ && bytes_) std::memcpy(out_, scratch_.get(), bytes_);
  }

 private:
  struct Free {
    void operator()(std::byte* p) const { std::free(p); }
  };
  std::byte* out_;
  size_t bytes_;
  std::unique_ptr<std::byte, Free> scratch_;
};

}  // namespace shard::runtime::detail
