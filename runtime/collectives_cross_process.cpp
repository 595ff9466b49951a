// The collectives of groups that span processes. Inside each process the members meet in the
// group's rendezvous (shared memory); the first of them in rank order — the leader — runs one
// MPI operation with the other processes' leaders; the members then take their results.
//
// Rounds (each a rendezvous arrival and departure of the local members):
//   1. local work: each member reduces or copies its share into the leader's scratch;
//   2. the leader checks that every process executes the same collective, then moves the data
//      between processes (the others wait; the leader's error becomes theirs);
//   3. each member fills its own output from what arrived.
#include <fmt/format.h>

#include <cstring>
#include <new>

#include "runtime/collectives_internal.hpp"
#include "runtime/device_runtime.hpp"

namespace shard::runtime {

namespace detail {

std::byte* Scratch::get(size_t bytes) {
  if (bytes <= capacity_ && data_) return data_.get();
  const size_t rounded = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
  auto* p = static_cast<std::byte*>(std::aligned_alloc(64, rounded));
  if (!p) throw std::bad_alloc();
  data_.reset(p);
  capacity_ = rounded;
  return p;
}

}  // namespace detail

detail::CrossProcessState& CollectiveGroup::cross_process() {
  if (!cross_) throw CollectiveError("internal error: cross-process state of a group within one process");
  return *cross_;
}

namespace detail::cross_process {

namespace {

bool is_leader(CollectiveGroup& g, int rank) { return g.local_index(rank) == 0; }

mpi::ProcessComm& comm(CollectiveGroup& g, const std::string& what) {
  auto& st = g.cross_process();
  if (!st.comm) st.comm = mpi::ProcessComm::for_group(g.devices(), g.processes(), what);
  return *st.comm;
}

// A round where only the leader works (the MPI part); the others wait and then share its
// outcome, so every member of every process fails together.
template <class Work>
void leader_round(CollectiveGroup& g, int rank, const std::string& what, Endpoint& mine, Work&& work) {
  auto& st = g.cross_process();
  exchange(g, rank, what, mine, [&](const Peers& peers) {
    if (!is_leader(g, rank)) return;
    st.error.clear();
    try {
      work(peers);
    } catch (const std::exception& e) {
      st.error = e.what();
      throw;
    }
  });
  if (!st.error.empty()) throw CollectiveError(st.error);
}

size_t slot_offset(CollectiveGroup& g, int rank, size_t bytes_each) {
  return (static_cast<size_t>(g.process_slot(rank)) * g.max_members_per_process() + g.member_slot(rank)) * bytes_each;
}

// Rounds 1-2 of the gathering collectives: every rank's `bytes_each` input lands in the
// leader's mirror at slot (process, member) in every process. Returns the mirror.
const std::byte* mirror_inputs(CollectiveGroup& g, int rank, const std::string& what, const void* in,
                               size_t bytes_each, Endpoint& mine) {
  auto& st = g.cross_process();
  const size_t slot_bytes = static_cast<size_t>(g.max_members_per_process()) * bytes_each;
  if (is_leader(g, rank)) mine.scratch = st.mirror.get(g.processes().size() * slot_bytes);
  const std::byte* mirror = nullptr;
  exchange(g, rank, what, mine, [&](const Peers& peers) {
    mirror = peers[0]->scratch;
    if (bytes_each) std::memcpy(peers[0]->scratch + slot_offset(g, rank, bytes_each), in, bytes_each);
  });
  leader_round(g, rank, what, mine, [&](const Peers& peers) {
    auto& c = comm(g, what);
    c.agree(what, g.timeout());
    c.allgather(nullptr, peers[0]->scratch, slot_bytes, what, g.timeout());
  });
  return mirror;
}

}  // namespace

BufferRef all_reduce_shared(CollectiveGroup& g, int rank, ReduceKind kind, DType dtype, const void* in, size_t n,
                            const std::string& what) {
  const size_t es = types::dtype_size(dtype);
  const int local = static_cast<int>(g.local_ranks().size());
  const int li = g.local_index(rank);
  BufferRef result = li == 0 ? DeviceBuffer::allocate(g.device(rank), n * es) : nullptr;
  Endpoint mine{static_cast<const std::byte*>(in), n * es, result ? static_cast<std::byte*>(result->data()) : nullptr,
                result ? n * es : 0, li == 0 ? &result : nullptr};
  // 1. This process's partial result, chunk by chunk, into the leader's result buffer, which
  //    every member takes (a lone member's input goes to MPI as it is).
  if (local > 1) {
    const auto [lo, hi] = chunk_of(n, local, li, es);
    exchange(g, rank, what, mine, [&](const Peers& peers) {
      std::vector<const void*> srcs;
      for (const Endpoint* p : peers) srcs.push_back(p->in);
      void* dst = peers[0]->out;
      reduce_elements(kind, dtype, srcs.data(), local, lo, &dst, 1, lo, hi - lo);
      if (li != 0) result = *peers[0]->shared;
    });
  }
  // 2. Between processes, in place in the result.
  leader_round(g, rank, what, mine, [&](const Peers& peers) {
    auto& c = comm(g, what);
    c.agree(what, g.timeout());
    c.allreduce(kind, dtype, local > 1 ? peers[0]->out : peers[0]->in, peers[0]->out, n, what, g.timeout());
  });
  return result;
}

void all_gather(CollectiveGroup& g, int rank, DType dtype, const void* in, void* out, size_t outer, size_t chunk_elems,
                const std::string& what) {
  const size_t chunk = chunk_elems * types::dtype_size(dtype);
  const size_t size = g.size();
  const size_t bytes_each = outer * chunk;
  Endpoint mine{static_cast<const std::byte*>(in), bytes_each, static_cast<std::byte*>(out), outer * size * chunk};
  const std::byte* mirror = mirror_inputs(g, rank, what, in, bytes_each, mine);
  OutputTarget target(mine.out, mine.out_bytes);
  exchange(g, rank, what, mine, [&](const Peers& peers) {
    if (output_overlaps_inputs(mine, peers)) target.defer();
    const CopyDim dim{outer, chunk, size * chunk};
    for (size_t j = 0; j < size; ++j)
      copy_strided(target.data() + j * chunk, mirror + slot_offset(g, static_cast<int>(j), bytes_each), &dim, 1, chunk);
  });
  target.finish();
}

void all_to_all(CollectiveGroup& g, int rank, DType dtype, const void* in, void* out, const AllToAllGeometry& geometry,
                const std::string& what) {
  const size_t es = types::dtype_size(dtype);
  const size_t bytes = geometry.elements() * es;
  Endpoint mine{static_cast<const std::byte*>(in), bytes, static_cast<std::byte*>(out), bytes};
  // Every process receives every input, though it needs only the blocks its members get: simple,
  // and all_to_all is rare between processes (the partitioner prefers all_gather there).
  const std::byte* mirror = mirror_inputs(g, rank, what, in, bytes, mine);
  OutputTarget target(mine.out, mine.out_bytes);
  exchange(g, rank, what, mine, [&](const Peers& peers) {
    if (output_overlaps_inputs(mine, peers)) target.defer();
    std::vector<const std::byte*> inputs;
    for (int j = 0; j < g.size(); ++j) inputs.push_back(mirror + slot_offset(g, j, bytes));
    all_to_all_pull(geometry, g.size(), rank, es, inputs, target.data());
  });
  target.finish();
}

void reduce_scatter(CollectiveGroup& g, int rank, ReduceKind kind, DType dtype, const void* in, void* out, size_t outer,
                    size_t chunk_elems, const std::string& what) {
  auto& st = g.cross_process();
  const size_t es = types::dtype_size(dtype);
  const size_t size = g.size();
  const int local = static_cast<int>(g.local_ranks().size());
  const int li = g.local_index(rank);
  const size_t block = outer * chunk_elems;  // elements each rank ends with
  const size_t lmax = g.max_members_per_process();
  Endpoint mine{static_cast<const std::byte*>(in), outer * size * chunk_elems * es, static_cast<std::byte*>(out),
                block * es};
  if (li == 0) {
    mine.out = st.partial.get(g.processes().size() * lmax * block * es);
    mine.scratch = st.received.get(lmax * block * es);
  }
  // 1. This process's partial sums, laid out [process][member][outer][chunk] so that each
  //    process receives one contiguous part; each member reduces the blocks of ranks r with
  //    r % local == its index.
  exchange(g, rank, what, mine, [&](const Peers& peers) {
    std::vector<const void*> srcs;
    for (const Endpoint* p : peers) srcs.push_back(p->in);
    void* dst = peers[0]->out;
    for (size_t r = li; r < size; r += local)
      for (size_t o = 0; o < outer; ++o)
        reduce_elements(kind, dtype, srcs.data(), local, (o * size + r) * chunk_elems, &dst, 1,
                        slot_offset(g, static_cast<int>(r), block) + o * chunk_elems, chunk_elems);
  });
  // 2. Between processes.
  leader_round(g, rank, what, mine, [&](const Peers& peers) {
    auto& c = comm(g, what);
    c.agree(what, g.timeout());
    c.reduce_scatter(kind, dtype, peers[0]->out, peers[0]->scratch,
                     std::vector<size_t>(g.processes().size(), lmax * block), what, g.timeout());
  });
  // 3. Each member's block.
  exchange(g, rank, what, mine, [&](const Peers& peers) {
    if (block) std::memcpy(out, peers[0]->scratch + g.member_slot(rank) * block * es, block * es);
  });
}

void permute(CollectiveGroup& g, int rank, DType dtype, const std::vector<int>& source_of, const void* in, void* out,
             size_t n, const std::string& what) {
  auto& st = g.cross_process();
  const size_t bytes = n * types::dtype_size(dtype);
  const int size = g.size();
  const int me = g.process_slot(rank);
  Endpoint mine{static_cast<const std::byte*>(in), bytes, static_cast<std::byte*>(out), bytes};
  if (g.local_index(rank) == 0) mine.scratch = st.received.get(g.local_ranks().size() * bytes);
  // 1. The leader sends local sources to remote destinations and receives remote sources for
  //    local destinations, pairs in ascending destination rank on both sides (MPI keeps the
  //    order of messages between two processes).
  leader_round(g, rank, what, mine, [&](const Peers& peers) {
    std::vector<mpi::ProcessComm::Transfer> sends, receives;
    for (int dst = 0; dst < size; ++dst) {
      const int src = source_of[dst];
      if (src < 0) continue;
      const bool src_here = g.process_slot(src) == me, dst_here = g.process_slot(dst) == me;
      if (src_here && !dst_here)
        sends.push_back({g.process_slot(dst), const_cast<std::byte*>(peers[g.local_index(src)]->in), bytes});
      if (dst_here && !src_here)
        receives.push_back({g.process_slot(src), peers[0]->scratch + g.local_index(dst) * bytes, bytes});
    }
    auto& c = comm(g, what);
    c.agree(what, g.timeout());
    c.exchange(sends, receives, what, g.timeout());
  });
  // 2. Each member fills its output: zeros, a local source, or what arrived.
  const int src = source_of[rank];
  OutputTarget target(mine.out, mine.out_bytes);
  bool zero_after = false;
  exchange(g, rank, what, mine, [&](const Peers& peers) {
    if (src < 0) {
      if (output_overlaps_inputs(mine, peers)) zero_after = true;
      else if (bytes) std::memset(mine.out, 0, bytes);
      return;
    }
    const std::byte* from = g.process_slot(src) == me ? peers[g.local_index(src)]->in
                                                      : peers[0]->scratch + g.local_index(rank) * bytes;
    if (from == mine.out) return;
    if (output_overlaps_inputs(mine, peers)) target.defer();
    if (bytes) std::memcpy(target.data(), from, bytes);
  });
  if (zero_after && bytes) std::memset(out, 0, bytes);
  target.finish();
}

}  // namespace detail::cross_process

}  // namespace shard::runtime
