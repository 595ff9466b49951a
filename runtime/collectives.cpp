// Groups, shared machinery, and the reducing collectives (all_reduce, reduce_scatter).
// The data-movement collectives are in collectives_copy.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <set>

#include "runtime/collectives_internal.hpp"
#include "runtime/device_runtime.hpp"
#include "runtime/process_layout.hpp"

namespace shard::runtime {

namespace {
std::vector<int> checked_devices(std::vector<int> devices) {
  if (devices.empty()) throw CollectiveError("a collective group needs at least one device");
  std::set<int> seen;
  for (int d : devices)
    if (d < 0 || !seen.insert(d).second)
      throw CollectiveError(fmt::format("collective group devices must be distinct device ids, got [{}]",
                                        fmt::join(devices, ", ")));
  return devices;
}

// Members in this process wait for their leader's MPI operations, which have their own
// deadline: their local wait must outlast it so that the leader's error is the one reported.
std::chrono::milliseconds local_timeout(const std::vector<int>& devices, std::chrono::milliseconds timeout) {
  for (int d : devices)
    if (!process_layout().is_local(d)) return timeout * 2 + std::chrono::seconds(10);
  return timeout;
}

// The members of `devices` in this process, in rank order.
std::vector<int> local_members(const std::vector<int>& devices) {
  std::vector<int> local;
  for (int d : devices)
    if (process_layout().is_local(d)) local.push_back(d);
  return local;
}
}  // namespace

std::chrono::milliseconds collective_timeout() {
  static const std::chrono::milliseconds t = [] {
    const char* v = std::getenv("SHARD_COLLECTIVE_TIMEOUT");
    const double s = v ? std::atof(v) : 0.0;
    return s > 0 ? std::chrono::milliseconds(static_cast<int64_t>(s * 1000)) : kDefaultCollectiveTimeout;
  }();
  return t;
}

CollectiveGroup::CollectiveGroup(std::vector<int> devices, std::chrono::milliseconds timeout)
    : devices_(checked_devices(std::move(devices))), timeout_(timeout),
      rendezvous_(local_members(devices_), local_timeout(devices_, timeout)) {
  const ProcessLayout& layout = process_layout();
  for (int d : devices_) processes_.push_back(layout.process_of(d));
  std::sort(processes_.begin(), processes_.end());
  processes_.erase(std::unique(processes_.begin(), processes_.end()), processes_.end());
  std::vector<int> members(processes_.size(), 0);
  for (size_t r = 0; r < devices_.size(); ++r) {
    const int p = layout.process_of(devices_[r]);
    const int slot = static_cast<int>(std::lower_bound(processes_.begin(), processes_.end(), p) - processes_.begin());
    process_slot_.push_back(slot);
    member_slot_.push_back(members[slot]++);
    if (p == layout.process_index) local_ranks_.push_back(static_cast<int>(r));
  }
  max_members_ = *std::max_element(members.begin(), members.end());
  if (spans_processes()) cross_ = std::make_unique<detail::CrossProcessState>();
}

CollectiveGroup::~CollectiveGroup() = default;

int CollectiveGroup::rank_of(int device) const {
  auto it = std::find(devices_.begin(), devices_.end(), device);
  return it == devices_.end() ? -1 : static_cast<int>(it - devices_.begin());
}

int CollectiveGroup::my_rank() const {
  int d = DeviceRuntime::current_device();
  int r = rank_of(d);
  if (r < 0)
    throw CollectiveError(d < 0 ? std::string("internal error: collective called outside a device thread")
                                : fmt::format("internal error: device {} is not in the collective group [{}]", d,
                                              fmt::join(devices_, ", ")));
  return r;
}

namespace detail {

void check_rank(const CollectiveGroup& group, int rank, std::string_view op) {
  if (rank < 0 || rank >= group.size())
    throw CollectiveError(
        fmt::format("internal error: {} called with rank {} in a group of {} devices", op, rank, group.size()));
  int d = DeviceRuntime::current_device();
  if (d >= 0 && d != group.device(rank))
    throw CollectiveError(fmt::format("internal error: {} called on device {} as rank {}, which is device {}", op,
                                      d, rank, group.device(rank)));
}

std::string describe(std::string_view op, DType dtype, const std::vector<size_t>& dims, std::string_view extra,
                     std::string_view note) {
  std::string s = fmt::format("{} {}[{}]", op, dtype_short_name(dtype), fmt::join(dims, ","));
  if (!extra.empty()) fmt::format_to(std::back_inserter(s), " {}", extra);
  if (!note.empty()) fmt::format_to(std::back_inserter(s), " {}", note);
  return s;
}

bool output_overlaps_inputs(const Endpoint& mine, const Peers& peers) {
  for (const Endpoint* p : peers)
    if (overlaps(mine.out, mine.out_bytes, p->in, p->in_bytes)) return true;
  return false;
}

void OutputTarget::defer() {
  if (scratch_) return;
  size_t rounded = (std::max<size_t>(bytes_, 1) + 63) / 64 * 64;
  auto* p = static_cast<std::byte*>(std::aligned_alloc(64, rounded));
  if (!p) throw std::bad_alloc();
  scratch_.reset(p);
}

}  // namespace detail

using detail::chunk_of;
using detail::Endpoint;
using detail::Peers;

namespace {

// Exactly equal buffers are fine for all_reduce (element i is read and written only by the
// rank owning its chunk, reads before writes); a partial overlap is not.
bool has_partial_overlap(const Peers& peers) {
  std::vector<std::pair<const std::byte*, size_t>> ranges;
  for (const Endpoint* p : peers) {
    ranges.emplace_back(p->in, p->in_bytes);
    ranges.emplace_back(p->out, p->out_bytes);
  }
  for (size_t a = 0; a < ranges.size(); ++a)
    for (size_t b = a + 1; b < ranges.size(); ++b)
      if (ranges[a].first != ranges[b].first &&
          detail::overlaps(ranges[a].first, ranges[a].second, ranges[b].first, ranges[b].second))
        return true;
  return false;
}

}  // namespace

void all_reduce(CollectiveGroup& group, int rank, ReduceKind kind, DType dtype, const void* in, void* out,
                size_t n, std::string_view note) {
  const std::string_view op = ir::all_reduce_name(kind);
  detail::check_rank(group, rank, op);
  check_reduction(kind, dtype, op);
  const size_t es = types::dtype_size(dtype);
  const std::string what = detail::describe(op, dtype, {n}, "", note);
  if (group.spans_processes()) {
    BufferRef result = detail::cross_process::all_reduce_shared(group, rank, kind, dtype, in, n, what);
    if (n) std::memcpy(out, result->data(), n * es);
    return;
  }
  Endpoint mine{static_cast<const std::byte*>(in), n * es, static_cast<std::byte*>(out), n * es};
  const auto [lo, hi] = chunk_of(n, group.size(), rank, es);
  bool write_back = false;  // partial overlaps: reduce to scratch, write in a second round
  detail::OutputTarget scratch(nullptr, (hi - lo) * es);
  detail::exchange(group, rank, what, mine, [&](const Peers& peers) {
    std::vector<const void*> srcs;
    for (const Endpoint* p : peers) srcs.push_back(p->in);
    if (has_partial_overlap(peers)) {
      write_back = true;
      scratch.defer();
      void* dst = scratch.data();
      reduce_elements(kind, dtype, srcs.data(), group.size(), lo, &dst, 1, 0, hi - lo);
    } else {
      std::vector<void*> dsts;
      for (const Endpoint* p : peers) dsts.push_back(p->out);
      reduce_elements(kind, dtype, srcs.data(), group.size(), lo, dsts.data(), group.size(), lo, hi - lo);
    }
  });
  if (!write_back) return;
  // Every rank saw the same overlap and is here too.
  detail::exchange(group, rank, what + " (write-back)", mine, [&](const Peers& peers) {
    for (const Endpoint* p : peers)
      if (hi > lo) std::memcpy(p->out + lo * es, scratch.data(), (hi - lo) * es);
  });
}

BufferRef all_reduce_shared(CollectiveGroup& group, int rank, ReduceKind kind, DType dtype, const void* in, size_t n,
                            std::string_view note) {
  const std::string_view op = ir::all_reduce_name(kind);
  detail::check_rank(group, rank, op);
  check_reduction(kind, dtype, op);
  const size_t es = types::dtype_size(dtype);
  const std::string what = detail::describe(op, dtype, {n}, "shared", note);
  if (group.spans_processes()) return detail::cross_process::all_reduce_shared(group, rank, kind, dtype, in, n, what);
  BufferRef result = rank == 0 ? DeviceBuffer::allocate(group.device(0), n * es) : nullptr;
  Endpoint mine{static_cast<const std::byte*>(in), n * es, result ? static_cast<std::byte*>(result->data()) : nullptr,
                result ? n * es : 0, rank == 0 ? &result : nullptr};
  const auto [lo, hi] = chunk_of(n, group.size(), rank, es);
  detail::exchange(group, rank, what, mine, [&](const Peers& peers) {
    std::vector<const void*> srcs;
    for (const Endpoint* p : peers) srcs.push_back(p->in);
    void* dst = peers[0]->out;  // a fresh buffer: it overlaps no input
    reduce_elements(kind, dtype, srcs.data(), group.size(), lo, &dst, 1, lo, hi - lo);
    if (rank != 0) result = *peers[0]->shared;  // copied before anyone departs
  });
  return result;
}

void reduce_scatter(CollectiveGroup& group, int rank, ReduceKind kind, DType dtype, const void* in, void* out,
                    size_t outer, size_t chunk_elems, std::string_view note) {
  const std::string op = fmt::format("{}_scatter", ir::all_reduce_name(kind));
  detail::check_rank(group, rank, op);
  check_reduction(kind, dtype, op);
  const size_t es = types::dtype_size(dtype);
  const size_t size = group.size();
  const std::string what = outer == 1 ? detail::describe(op, dtype, {size * chunk_elems}, "", note)
                                      : detail::describe(op, dtype, {outer, size * chunk_elems}, "", note);
  if (group.spans_processes())
    return detail::cross_process::reduce_scatter(group, rank, kind, dtype, in, out, outer, chunk_elems, what);
  Endpoint mine{static_cast<const std::byte*>(in), outer * size * chunk_elems * es, static_cast<std::byte*>(out),
                outer * chunk_elems * es};
  detail::OutputTarget target(mine.out, mine.out_bytes);
  detail::exchange(group, rank, what, mine, [&](const Peers& peers) {
    if (detail::output_overlaps_inputs(mine, peers)) target.defer();
    std::vector<const void*> srcs;
    for (const Endpoint* p : peers) srcs.push_back(p->in);
    void* dst = target.data();
    for (size_t o = 0; o < outer; ++o)
      reduce_elements(kind, dtype, srcs.data(), group.size(), (o * size + rank) * chunk_elems, &dst, 1,
                      o * chunk_elems, chunk_elems);
  });
  target.finish();
}

}  // namespace shard::runtime
