// Collectives between device threads. Every member of a group calls the same collective on
// its own device thread, passing its rank in the group and its own input and output buffers;
// the call returns once this rank's output is complete. Members meet through the group's
// CollectiveRendezvous: each publishes its buffers, the work is split among the members (each
// rank reads the others' published memory directly), and all depart before anyone returns,
// so no buffer is freed while another device still reads it.
//
// Buffers are raw pointers (DeviceBuffer::data() or any memory the caller keeps alive for the
// call); element counts are per rank and must agree across ranks. The string given to the
// rendezvous names the collective, dtype, per-rank shape and reduction, e.g. `psum f32[1024]`,
// so ranks that disagree fail with "collective mismatch: device 0 executes `psum f32[1024]`
// while device 3 executes `all_gather f32[512]`". `note` (optional) is appended to that
// string, e.g. "over ('x',)", to say where the collective came from.
//
// Aliasing: an output may be exactly the same memory as an input (in place); other overlaps
// between one rank's output and any rank's input are handled by writing through a scratch
// copy after everyone has finished reading. Misuse that every rank can see in its own
// arguments (bad ranks, duplicate ppermute pairs, a reduction a dtype does not support) throws
// CollectiveError before the rendezvous.
//
// Groups may span processes (runtime/process_layout.hpp): the members in this process meet in
// the rendezvous as above, and one of them (the first in rank order) moves the data between
// processes over MPI (collectives_cross_process.cpp). The result is the same as in one process.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/collective_kernels.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/rendezvous.hpp"

namespace shard::runtime {

constexpr std::chrono::milliseconds kDefaultCollectiveTimeout{60000};
// The timeout of a new group: SHARD_COLLECTIVE_TIMEOUT (seconds) when set, else the default.
std::chrono::milliseconds collective_timeout();

namespace detail {
struct CrossProcessState;  // collectives_cross_process.cpp
}

// The devices taking part in collectives together; rank r is devices()[r]. One group object is
// shared by its members and reused for every collective they execute, in the same order.
class CollectiveGroup {
 public:
  explicit CollectiveGroup(std::vector<int> devices, std::chrono::milliseconds timeout = collective_timeout());
  ~CollectiveGroup();
  int size() const { return static_cast<int>(devices_.size()); }
  const std::vector<int>& devices() const { return devices_; }
  int device(int rank) const { return devices_.at(rank); }
  int rank_of(int device) const;  // -1 when the device is not a member
  // The rank of the calling device thread; throws CollectiveError when it is not a member.
  int my_rank() const;
  // The members in this process meet here; they are indexed by local_index(rank).
  CollectiveRendezvous& rendezvous() { return rendezvous_; }
  std::chrono::milliseconds timeout() const { return timeout_; }

  // Across processes: the processes holding members (ascending), and for each rank its
  // process's position in that list and its position among that process's members.
  bool spans_processes() const { return processes_.size() > 1; }
  const std::vector<int>& processes() const { return processes_; }
  int process_slot(int rank) const { return process_slot_.at(rank); }
  int member_slot(int rank) const { return member_slot_.at(rank); }
  int max_members_per_process() const { return max_members_; }
  const std::vector<int>& local_ranks() const { return local_ranks_; }
  int local_index(int rank) const { return member_slot_.at(rank); }
  detail::CrossProcessState& cross_process();

 private:
  std::vector<int> devices_;
  std::chrono::milliseconds timeout_;
  std::vector<int> processes_, process_slot_, member_slot_, local_ranks_;
  int max_members_ = 0;
  CollectiveRendezvous rendezvous_;
  std::unique_ptr<detail::CrossProcessState> cross_;
};

// out = in_0 (kind) in_1 (kind) ... elementwise, n elements, in rank order (so every rank gets
// bit-identical floats). Rank r reduces chunk r (cache-line aligned) and writes it into every
// rank's output. in == out is allowed. bool: sum/max/or are logical or, prod/min/and logical
// and; and/or on integers are bitwise; and/or on floats are an error.
void all_reduce(CollectiveGroup& group, int rank, ReduceKind kind, DType dtype, const void* in, void* out,
                size_t n, std::string_view note = {});

// The same sum, into ONE output buffer that every rank gets back (allocated on rank 0's
// device): results are immutable, so sharing them costs nothing, and each rank writes only
// its own chunk once instead of into every rank's copy — half the memory traffic of
// all_reduce for large arrays.
BufferRef all_reduce_shared(CollectiveGroup& group, int rank, ReduceKind kind, DType dtype, const void* in, size_t n,
                            std::string_view note = {});

// in is [outer][chunk], out is [outer][size][chunk] with rank j's chunk at slot j. Gathering
// along axis k of a shape S: outer = prod(S[:k]), chunk = prod(S[k:]) elements. Tiled
// all_gather is exactly that; untiled inserts a dimension of `size`, same bytes.
void all_gather(CollectiveGroup& group, int rank, DType dtype, const void* in, void* out, size_t outer,
                size_t chunk_elems, std::string_view note = {});

// in is [outer][size][chunk]; rank r gets out[outer][chunk] = reduce over ranks j of
// in_j[outer][r][chunk] (rank order). Scattering along axis k of S (S[k] divisible by size):
// outer = prod(S[:k]), chunk = S[k]/size * prod(S[k+1:]).
void reduce_scatter(CollectiveGroup& group, int rank, ReduceKind kind, DType dtype, const void* in, void* out,
                    size_t outer, size_t chunk_elems, std::string_view note = {});

// all_to_all with JAX semantics, tiled: every rank's input has shape `shape`; its split axis is
// cut into `size` equal blocks, block r goes to rank r, and rank r places the block from rank
// j at position j along the concat axis. Output shape = shape with shape[split] / size and
// shape[concat] * size (split == concat keeps the shape). Untiled all_to_all is the same data
// movement (the caller reshapes: split dim of size `size` removed, concat dim inserted).
//
// Worked example, group of 2, shape [4, 3], split_axis 0, concat_axis 1:
//   rank 0 in: [[ 0,  1,  2], [ 3,  4,  5], [ 6,  7,  8], [ 9, 10, 11]]
//   rank 1 in: [[20, 21, 22], [23, 24, 25], [26, 27, 28], [29, 30, 31]]
//   rows 0-1 of each input go to rank 0, rows 2-3 to rank 1; output shape [2, 6]:
//   rank 0 out: [[ 0,  1,  2, 20, 21, 22], [ 3,  4,  5, 23, 24, 25]]
//   rank 1 out: [[ 6,  7,  8, 26, 27, 28], [ 9, 10, 11, 29, 30, 31]]
struct AllToAllGeometry {
  std::vector<size_t> shape;  // per-rank input shape, row-major
  int split_axis = 0;
  int concat_axis = 0;
  // Checks the axes and divisibility for a group of `size` (throws CollectiveError).
  void validate(int size) const;
  std::vector<size_t> output_shape(int size) const;
  size_t elements() const;  // per rank, same for input and output
};
void all_to_all(CollectiveGroup& group, int rank, DType dtype, const void* in, void* out,
                const AllToAllGeometry& geometry, std::string_view note = {});

// ppermute: for each (src, dst) pair (ranks), dst's out = src's in; ranks that are no
// destination get zeros. Sources and destinations must each be unique.
using PermutePairs = std::vector<std::pair<int, int>>;
void permute(CollectiveGroup& group, int rank, DType dtype, const PermutePairs& pairs, const void* in, void* out,
             size_t n, std::string_view note = {});

// Every rank's out = root's in (n elements). Non-root ranks' `in` is ignored (may be null).
void broadcast_from(CollectiveGroup& group, int rank, int root, DType dtype, const void* in, void* out, size_t n,
                    std::string_view note = {});

// Plain copies between devices (resharding): every rank publishes `src` (src_bytes, may be
// null/0) and fills its own `dst` with the pieces it asks for, all in one rendezvous.
struct BlockPiece {
  int src_rank;       // whose published src to read
  size_t src_offset;  // bytes into that src
  size_t dst_offset;  // bytes into this rank's dst
  size_t bytes;
};
void gather_blocks(CollectiveGroup& group, int rank, const void* src, size_t src_bytes, void* dst, size_t dst_bytes,
                   const std::vector<BlockPiece>& pieces, std::string_view note = {});

}  // namespace shard::runtime
