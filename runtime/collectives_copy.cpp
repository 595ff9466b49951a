// The data-movement collectives: all_gather, all_to_all, permute, broadcast_from,
// gather_blocks. All are "pull" style: each rank fills only its own output, reading the others'
// published inputs, so the work splits evenly and writes never cross devices.
#include <fmt/format.h>

#include <algorithm>

#include "runtime/collectives_internal.hpp"

namespace shard::runtime {

using detail::Endpoint;
using detail::Peers;

void all_gather(CollectiveGroup& group, int rank, DType dtype, const void* in, void* out, size_t outer,
                size_t chunk_elems, std::string_view note) {
  detail::check_rank(group, rank, "all_gather");
  const size_t chunk = chunk_elems * types::dtype_size(dtype);
  const size_t size = group.size();
  const std::string what = outer == 1 ? detail::describe("all_gather", dtype, {chunk_elems}, "", note)
                                      : detail::describe("all_gather", dtype, {outer, chunk_elems}, "", note);
  if (group.spans_processes())
    return detail::cross_process::all_gather(group, rank, dtype, in, out, outer, chunk_elems, what);
  Endpoint mine{static_cast<const std::byte*>(in), outer * chunk, static_cast<std::byte*>(out),
                outer * size * chunk};
  detail::OutputTarget target(mine.out, mine.out_bytes);
  detail::exchange(group, rank, what, mine, [&](const Peers& peers) {
    if (detail::output_overlaps_inputs(mine, peers)) target.defer();
    // out[o][j][:] = in_j[o][:]
    const CopyDim dim{outer, chunk, size * chunk};
    for (size_t j = 0; j < size; ++j) copy_strided(target.data() + j * chunk, peers[j]->in, &dim, 1, chunk);
  });
  target.finish();
}

// ---- all_to_all

namespace {
std::vector<size_t> row_major_strides(const std::vector<size_t>& shape, size_t elem_bytes) {
  std::vector<size_t> strides(shape.size());
  size_t s = elem_bytes;
  for (size_t k = shape.size(); k-- > 0;) {
    strides[k] = s;
    s *= shape[k];
  }
  return strides;
}
}  // namespace

void AllToAllGeometry::validate(int size) const {
  const int ndim = static_cast<int>(shape.size());
  if (ndim < 1 || ndim > kMaxCopyDims)
    throw CollectiveError(fmt::format("all_to_all needs an array of 1 to {} dimensions, got {}", kMaxCopyDims, ndim));
  if (split_axis < 0 || split_axis >= ndim || concat_axis < 0 || concat_axis >= ndim)
    throw CollectiveError(fmt::format("all_to_all split_axis {} / concat_axis {} out of range for an array of {} "
                                      "dimensions",
                                      split_axis, concat_axis, ndim));
  if (shape[split_axis] % size != 0)
    throw CollectiveError(fmt::format("all_to_all: the split axis {} of size {} is not divisible by the number of "
                                      "devices {}",
                                      split_axis, shape[split_axis], size));
}

std::vector<size_t> AllToAllGeometry::output_shape(int size) const {
  std::vector<size_t> out = shape;
  out[split_axis] /= size;
  out[concat_axis] *= size;
  return out;
}

size_t AllToAllGeometry::elements() const {
  size_t n = 1;
  for (size_t d : shape) n *= d;
  return n;
}

void all_to_all(CollectiveGroup& group, int rank, DType dtype, const void* in, void* out,
                const AllToAllGeometry& geometry, std::string_view note) {
  detail::check_rank(group, rank, "all_to_all");
  const int size = group.size();
  geometry.validate(size);
  const size_t es = types::dtype_size(dtype);
  const std::string what = detail::describe(
      "all_to_all", dtype, geometry.shape,
      fmt::format("split_axis={} concat_axis={}", geometry.split_axis, geometry.concat_axis), note);
  if (group.spans_processes()) return detail::cross_process::all_to_all(group, rank, dtype, in, out, geometry, what);
  const size_t bytes = geometry.elements() * es;
  Endpoint mine{static_cast<const std::byte*>(in), bytes, static_cast<std::byte*>(out), bytes};
  detail::OutputTarget target(mine.out, mine.out_bytes);
  detail::exchange(group, rank, what, mine, [&](const Peers& peers) {
    if (detail::output_overlaps_inputs(mine, peers)) target.defer();
    std::vector<const std::byte*> inputs;
    for (const Endpoint* p : peers) inputs.push_back(p->in);
    detail::all_to_all_pull(geometry, size, rank, es, inputs, target.data());
  });
  target.finish();
}

namespace detail {
void all_to_all_pull(const AllToAllGeometry& geometry, int size, int rank, size_t es,
                     const std::vector<const std::byte*>& inputs, std::byte* out) {
  // The block each rank sends to each other rank: the input with the split axis cut by size.
  std::vector<size_t> block = geometry.shape;
  block[geometry.split_axis] /= size;
  const std::vector<size_t> in_strides = row_major_strides(geometry.shape, es);
  const std::vector<size_t> out_strides = row_major_strides(geometry.output_shape(size), es);
  std::vector<CopyDim> dims;
  for (size_t k = 0; k < block.size(); ++k) dims.push_back({block[k], in_strides[k], out_strides[k]});
  const size_t src_offset = rank * block[geometry.split_axis] * in_strides[geometry.split_axis];
  for (int j = 0; j < size; ++j) {
    const size_t dst_offset = j * block[geometry.concat_axis] * out_strides[geometry.concat_axis];
    copy_strided(out + dst_offset, inputs[j] + src_offset, dims.data(), static_cast<int>(dims.size()), es);
  }
}
}  // namespace detail

// ---- permute

namespace {
// Python's repr of the perm tuple, as JAX shows it: ((0, 1), (1, 0))
std::string perm_repr(const PermutePairs& pairs) {
  std::string s = "(";
  for (size_t i = 0; i < pairs.size(); ++i)
    fmt::format_to(std::back_inserter(s), "{}({}, {})", i ? ", " : "", pairs[i].first, pairs[i].second);
  return s + (pairs.size() == 1 ? ",)" : ")");
}
}  // namespace

void permute(CollectiveGroup& group, int rank, DType dtype, const PermutePairs& pairs, const void* in, void* out,
             size_t n, std::string_view note) {
  detail::check_rank(group, rank, "ppermute");
  const int size = group.size();
  std::vector<int> source_of(size, -1);
  std::vector<bool> is_source(size, false);
  for (auto [src, dst] : pairs) {
    if (src < 0 || src >= size || dst < 0 || dst >= size)
      throw CollectiveError(fmt::format("ppermute permutation {} names an index outside the {} devices of the axis",
                                        perm_repr(pairs), size));
    if (is_source[src] || source_of[dst] >= 0)
      throw CollectiveError(fmt::format("ppermute sources and destinations must be unique, got {}.", perm_repr(pairs)));
    is_source[src] = true;
    source_of[dst] = src;
  }
  const size_t bytes = n * types::dtype_size(dtype);
  const std::string what = detail::describe("ppermute", dtype, {n}, "perm=" + perm_repr(pairs), note);
  if (group.spans_processes())
    return detail::cross_process::permute(group, rank, dtype, source_of, in, out, n, what);
  Endpoint mine{static_cast<const std::byte*>(in), bytes, static_cast<std::byte*>(out), bytes};
  detail::OutputTarget target(mine.out, mine.out_bytes);
  const int src = source_of[rank];
  bool zero_after = false;
  detail::exchange(group, rank, what, mine, [&](const Peers& peers) {
    if (src < 0) {
      // Zeroing needs no input: do it after departure if others may still read our output.
      if (detail::output_overlaps_inputs(mine, peers)) zero_after = true;
      else if (bytes) std::memset(mine.out, 0, bytes);
      return;
    }
    if (peers[src]->in == mine.out) return;  // already in place
    if (detail::output_overlaps_inputs(mine, peers)) target.defer();
    if (bytes) std::memcpy(target.data(), peers[src]->in, bytes);
  });
  if (zero_after && bytes) std::memset(out, 0, bytes);
  target.finish();
}

// ---- broadcast

void broadcast_from(CollectiveGroup& group, int rank, int root, DType dtype, const void* in, void* out, size_t n,
                    std::string_view note) {
  detail::check_rank(group, rank, "broadcast");
  if (group.spans_processes()) throw CollectiveError("internal error: broadcast_from within one process only");
  if (root < 0 || root >= group.size())
    throw CollectiveError(fmt::format("internal error: broadcast from rank {} in a group of {}", root, group.size()));
  const size_t bytes = n * types::dtype_size(dtype);
  const std::string what =
      detail::describe("broadcast", dtype, {n}, fmt::format("from device {}", group.device(root)), note);
  Endpoint mine{rank == root ? static_cast<const std::byte*>(in) : nullptr, rank == root ? bytes : 0,
                static_cast<std::byte*>(out), bytes};
  detail::OutputTarget target(mine.out, mine.out_bytes);
  detail::exchange(group, rank, what, mine, [&](const Peers& peers) {
    const std::byte* src = peers[root]->in;
    if (src == mine.out || bytes == 0) return;
    if (detail::overlaps(mine.out, bytes, src, bytes)) target.defer();
    std::memcpy(target.data(), src, bytes);
  });
  target.finish();
}

// ---- gather_blocks

void gather_blocks(CollectiveGroup& group, int rank, const void* src, size_t src_bytes, void* dst, size_t dst_bytes,
                   const std::vector<BlockPiece>& pieces, std::string_view note) {
  detail::check_rank(group, rank, "gather_blocks");
  if (group.spans_processes()) throw CollectiveError("internal error: gather_blocks within one process only");
  for (const BlockPiece& p : pieces) {
    if (p.src_rank < 0 || p.src_rank >= group.size())
      throw CollectiveError(fmt::format("internal error: gather_blocks piece from rank {} in a group of {}",
                                        p.src_rank, group.size()));
    if (p.dst_offset > dst_bytes || p.bytes > dst_bytes - p.dst_offset)
      throw CollectiveError(fmt::format("internal error: gather_blocks piece [{}, +{}) outside the {}-byte output",
                                        p.dst_offset, p.bytes, dst_bytes));
  }
  const std::string what = note.empty() ? std::string("gather_blocks") : fmt::format("gather_blocks {}", note);
  Endpoint mine{static_cast<const std::byte*>(src), src_bytes, static_cast<std::byte*>(dst), dst_bytes};
  detail::OutputTarget target(mine.out, mine.out_bytes);
  bool deferred = false;
  detail::exchange(group, rank, what, mine, [&](const Peers& peers) {
    for (const BlockPiece& p : pieces) {
      const Endpoint& from = *peers[p.src_rank];
      if (p.src_offset > from.in_bytes || p.bytes > from.in_bytes - p.src_offset)
        throw CollectiveError(fmt::format("internal error: gather_blocks piece [{}, +{}) outside device {}'s {} bytes",
                                          p.src_offset, p.bytes, group.device(p.src_rank), from.in_bytes));
    }
    if (detail::output_overlaps_inputs(mine, peers)) {
      // Scratch starts as a copy so bytes no piece covers keep their old value.
      target.defer();
      deferred = true;
      if (dst_bytes) std::memcpy(target.data(), mine.out, dst_bytes);
    }
    for (const BlockPiece& p : pieces)
      if (p.bytes) std::memmove(target.data() + p.dst_offset, peers[p.src_rank]->in + p.src_offset, p.bytes);
  });
  if (deferred) target.finish();
}

}  // namespace shard::runtime
