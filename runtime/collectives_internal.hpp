// Shared machinery of the collectives (internal to runtime/): what each rank publishes, one
// rendezvous round with guaranteed departure, descriptions, and deferred output for aliasing.
#pragma once
#include <cstddef>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/collectives.hpp"
#include "runtime/mpi_transport.hpp"

namespace shard::runtime::detail {

// Scratch memory a collective keeps between calls (64-byte aligned, grown on demand).
class Scratch {
 public:
  std::byte* get(size_t bytes);

 private:
  struct Free {
    void operator()(std::byte* p) const { std::free(p); }
  };
  std::unique_ptr<std::byte, Free> data_;
  size_t capacity_ = 0;
};

// The state a group spanning processes keeps (collectives_cross_process.cpp): its
// communicator, the leader's error for the other local members, and scratch buffers.
struct CrossProcessState {
  std::shared_ptr<mpi::ProcessComm> comm;
  std::string error;
  Scratch mirror, partial, received;
  BufferRef shared_result;
};

// The collectives when group.spans_processes() (rank: the caller's rank in the whole group).
namespace cross_process {
BufferRef all_reduce_shared(CollectiveGroup& group, int rank, ReduceKind kind, DType dtype, const void* in, size_t n,
                            const std::string& what);
void all_gather(CollectiveGroup& group, int rank, DType dtype, const void* in, void* out, size_t outer,
                size_t chunk_elems, const std::string& what);
void reduce_scatter(CollectiveGroup& group, int rank, ReduceKind kind, DType dtype, const void* in, void* out,
                    size_t outer, size_t chunk_elems, const std::string& what);
void all_to_all(CollectiveGroup& group, int rank, DType dtype, const void* in, void* out,
                const AllToAllGeometry& geometry, const std::string& what);
void permute(CollectiveGroup& group, int rank, DType dtype, const std::vector<int>& source_of, const void* in,
             void* out, size_t n, const std::string& what);
}  // namespace cross_process

// What every rank publishes at arrival: its input (read by others) and output.
struct Endpoint {
  const std::byte* in = nullptr;
  size_t in_bytes = 0;
  std::byte* out = nullptr;
  size_t out_bytes = 0;
  const BufferRef* shared = nullptr;  // all_reduce_shared: rank 0's output, given to all
  std::byte* scratch = nullptr;       // across processes: the leader's receive buffer
};

using Peers = std::vector<const Endpoint*>;  // indexed by rank

// One round: arrive publishing `mine`, run work(peers), and depart even when work throws (the
// others must not wait for a rank that gave up), then rethrow.
// `rank` is the caller's rank in the group; peers are indexed by local_index (the same in a
// group within one process).
template <class Work>
void exchange(CollectiveGroup& group, int rank, const std::string& what, Endpoint& mine, Work&& work) {
  std::vector<void*> raw = group.rendezvous().arrive(group.local_index(rank), what, &mine);
  Peers peers(raw.size());
  for (size_t j = 0; j < raw.size(); ++j) peers[j] = static_cast<const Endpoint*>(raw[j]);
  std::exception_ptr err;
  try {
    work(peers);
  } catch (...) {
    err = std::current_exception();
  }
  group.rendezvous().depart(group.local_index(rank));
  if (err) std::rethrow_exception(err);
}

// Throws CollectiveError when rank is outside the group or the calling device thread is not
// the device of that rank.
void check_rank(const CollectiveGroup& group, int rank, std::string_view op);

// "op f32[d0,d1] extra note" — the rendezvous description; empty parts are left out.
std::string describe(std::string_view op, DType dtype, const std::vector<size_t>& dims,
                     std::string_view extra, std::string_view note);

// Chunk r of n elements split among `size` workers, rounded to whole cache lines so they never
// write the same line.
inline std::pair<size_t, size_t> chunk_of(size_t n, int size, int rank, size_t elem_bytes) {
  const size_t line = std::max<size_t>(1, 64 / elem_bytes);
  size_t per = (n + size - 1) / size;
  per = (per + line - 1) / line * line;
  size_t lo = std::min(n, per * rank), hi = std::min(n, lo + per);
  return {lo, hi};
}

// all_to_all's data movement for one rank: its output from every rank's input (by rank).
void all_to_all_pull(const AllToAllGeometry& geometry, int size, int rank, size_t elem_bytes,
                     const std::vector<const std::byte*>& inputs, std::byte* out);

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
