// Collectives between device threads, checked against plain loops over copies of the inputs.
// Groups of 1, 2, 4 and 8 devices run concurrently on one 8-device runtime.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "runtime/collectives.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/device_runtime.hpp"

using namespace shard::runtime;
using shard::types::DType;
using namespace std::chrono_literals;

namespace {

using Partition = std::vector<std::vector<int>>;
// Every device is in exactly one group; groups of a partition run at the same time.
const std::vector<Partition> kPartitions = {
    {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}},
    {{0, 1}, {2, 3}, {5, 4}, {6, 7}},
    {{0, 2, 4, 6}, {1, 3, 5, 7}},
    {{0, 1, 2, 3, 4, 5, 6, 7}},
    {{7, 0, 6, 1, 5, 2, 4, 3}},  // rank order differs from device order
};

struct Groups {
  std::vector<std::unique_ptr<CollectiveGroup>> groups;
  std::vector<CollectiveGroup*> group_of = std::vector<CollectiveGroup*>(8);
  explicit Groups(const Partition& p, std::chrono::milliseconds timeout = 20s) {
    for (const auto& devices : p) {
      groups.push_back(std::make_unique<CollectiveGroup>(devices, timeout));
      for (int d : devices) group_of[d] = groups.back().get();
    }
  }
};

DeviceRuntime& runtime8() {
  static DeviceRuntime rt(8);
  return rt;
}

// Runs fn(device, group, rank) on all 8 devices.
template <class Fn>
void run(const Groups& g, Fn fn) {
  runtime8().launch_all([&](int d) {
    CollectiveGroup& group = *g.group_of[d];
    fn(d, group, group.my_rank());
  });
}

// ---- typed values and reference reductions

template <class T>
T value_for(int device, size_t i, ReduceKind kind) {
  const int h = int((device * 7 + i * 13) % 17);
  if constexpr (std::is_same_v<T, uint8_t>) {  // bool
    return (kind == ReduceKind::Prod || kind == ReduceKind::Min || kind == ReduceKind::And) ? h % 5 != 0 : h % 4 == 0;
  } else if constexpr (std::is_floating_point_v<T>) {
    if (kind == ReduceKind::Prod) return T(0.75 + 0.0625 * h);
    if ((kind == ReduceKind::Max || kind == ReduceKind::Min) && i == 5 && device == 1)
      return std::numeric_limits<T>::quiet_NaN();
    return T((h - 8) * 0.3);
  } else {
    return T(h % 11 - 5);
  }
}

template <class T>
T reference_op(ReduceKind kind, T a, T b) {
  if constexpr (std::is_same_v<T, uint8_t>) {  // logical
    bool x = a, y = b;
    bool any = kind == ReduceKind::Sum || kind == ReduceKind::Max || kind == ReduceKind::Or;
    return any ? (x || y) : (x && y);
  } else {
    if constexpr (std::is_floating_point_v<T>)
      if ((kind == ReduceKind::Max || kind == ReduceKind::Min) && (std::isnan(a) || std::isnan(b)))
        return std::numeric_limits<T>::quiet_NaN();
    switch (kind) {
      case ReduceKind::Sum: return a + b;
      case ReduceKind::Prod: return a * b;
      case ReduceKind::Max: return std::max(a, b);
      case ReduceKind::Min: return std::min(a, b);
      case ReduceKind::And:
        if constexpr (std::is_integral_v<T>) return a & b;
        break;
      case ReduceKind::Or:
        if constexpr (std::is_integral_v<T>) return a | b;
        break;
    }
    return T(0);
  }
}

template <class T>
bool same_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b;
}

template <class T>
std::vector<std::vector<T>> make_inputs(size_t n, ReduceKind kind) {
  std::vector<std::vector<T>> v(8, std::vector<T>(n));
  for (int d = 0; d < 8; ++d)
    for (size_t i = 0; i < n; ++i) v[d][i] = value_for<T>(d, i, kind);
  return v;
}

std::vector<BufferRef> upload(const auto& host, size_t bytes_each) {
  std::vector<BufferRef> bufs;
  for (int d = 0; d < 8; ++d) {
    bufs.push_back(DeviceBuffer::allocate(d, bytes_each));
    if (bytes_each) std::memcpy(bufs[d]->data(), host[d].data(), bytes_each);
  }
  return bufs;
}

// ---- byte patterns for data movement

std::vector<std::vector<uint8_t>> byte_inputs(size_t bytes) {
  std::vector<std::vector<uint8_t>> v(8, std::vector<uint8_t>(bytes));
  for (int d = 0; d < 8; ++d)
    for (size_t i = 0; i < bytes; ++i) v[d][i] = uint8_t((d * 131 + i * 7 + i / 251) % 251 + 1);
  return v;
}

const std::vector<ReduceKind> kAllKinds = {ReduceKind::Sum, ReduceKind::Max, ReduceKind::Min,
                                           ReduceKind::Prod, ReduceKind::And, ReduceKind::Or};

template <class T>
void check_all_reduce(DType dtype, ReduceKind kind, const Partition& partition, size_t n, bool in_place) {
  const auto host = make_inputs<T>(n, kind);
  auto in = upload(host, n * sizeof(T));
  std::vector<BufferRef> out = in;
  if (!in_place)
    for (int d = 0; d < 8; ++d) out[d] = DeviceBuffer::allocate(d, n * sizeof(T), true);
  Groups g(partition);
  run(g, [&](int d, CollectiveGroup& group, int rank) {
    all_reduce(group, rank, kind, dtype, in[d]->data(), out[d]->data(), n);
  });
  for (const auto& devices : partition)
    for (size_t i = 0; i < n; ++i) {
      T expect = host[devices[0]][i];
      for (size_t r = 1; r < devices.size(); ++r) expect = reference_op(kind, expect, host[devices[r]][i]);
      for (int d : devices) {
        T got = out[d]->as<T>()[i];
        if (!same_value(got, expect)) {
          INFO("device " << d << " element " << i << " of " << n << " group size " << devices.size());
          CHECK(double(got) == double(expect));
          return;
        }
      }
    }
}

template <class T>
void check_reduce_scatter(DType dtype, ReduceKind kind, const Partition& partition, size_t outer, size_t chunk,
                          bool in_place) {
  const size_t size = partition[0].size();
  const size_t n_in = outer * size * chunk, n_out = outer * chunk;
  const auto host = make_inputs<T>(n_in, kind);
  auto in = upload(host, n_in * sizeof(T));
  std::vector<BufferRef> out = in;
  if (!in_place)
    for (int d = 0; d < 8; ++d) out[d] = DeviceBuffer::allocate(d, n_out * sizeof(T));
  Groups g(partition);
  run(g, [&](int d, CollectiveGroup& group, int rank) {
    reduce_scatter(group, rank, kind, dtype, in[d]->data(), out[d]->data(), outer, chunk);
  });
  for (const auto& devices : partition)
    for (size_t r = 0; r < size; ++r)
      for (size_t o = 0; o < outer; ++o)
        for (size_t c = 0; c < chunk; ++c) {
          const size_t at = (o * size + r) * chunk + c;
          T expect = host[devices[0]][at];
          for (size_t j = 1; j < size; ++j) expect = reference_op(kind, expect, host[devices[j]][at]);
          T got = out[devices[r]]->as<T>()[o * chunk + c];
          if (!same_value(got, expect)) {
            INFO("rank " << r << " o " << o << " c " << c);
            CHECK(double(got) == double(expect));
            return;
          }
        }
}

template <class T>
void check_reductions(DType dtype) {
  for (ReduceKind kind : kAllKinds) {
    if (std::is_floating_point_v<T> && (kind == ReduceKind::And || kind == ReduceKind::Or)) continue;
    for (const Partition& p : kPartitions) {
      for (size_t n : {size_t(0), size_t(1), size_t(37), size_t(5000)})
        for (bool in_place : {false, true}) check_all_reduce<T>(dtype, kind, p, n, in_place);
      for (size_t outer : {size_t(1), size_t(3)})
        for (size_t chunk : {size_t(1), size_t(7), size_t(3000)})
          for (bool in_place : {false, true}) check_reduce_scatter<T>(dtype, kind, p, outer, chunk, in_place);
    }
  }
}

}  // namespace

TEST_CASE("device buffers: aligned, zero-filled on request, counted per device", "[collectives]") {
  const auto before = device_memory_stats(5);
  {
    BufferRef a = DeviceBuffer::allocate(5, 1000, true);
    BufferRef b = DeviceBuffer::allocate(5, 0);
    CHECK(reinterpret_cast<uintptr_t>(a->data()) % 64 == 0);
    CHECK(b->data() != nullptr);
    CHECK(a->device() == 5);
    CHECK(a->bytes() == 1000);
    bool all_zero = true;
    for (size_t i = 0; i < 1000; ++i) all_zero &= a->as<uint8_t>()[i] == 0;
    CHECK(all_zero);
    const auto during = device_memory_stats(5);
    CHECK(during.live_bytes == before.live_bytes + 1000);
    CHECK(during.live_buffers == before.live_buffers + 2);
    CHECK(during.peak_bytes >= during.live_bytes);
    CHECK(during.allocations == before.allocations + 2);
  }
  CHECK(device_memory_stats(5).live_bytes == before.live_bytes);
  CHECK_THROWS_AS(DeviceBuffer::allocate(-1, 8), std::out_of_range);
}

TEST_CASE("all_reduce and reduce_scatter: every dtype and kind, groups of 1-8, in place", "[collectives]") {
  check_reductions<float>(DType::F32);
  check_reductions<double>(DType::F64);
  check_reductions<int32_t>(DType::I32);
  check_reductions<int64_t>(DType::I64);
  check_reductions<uint8_t>(DType::Bool);
}

TEST_CASE("all_reduce and reduce_scatter: large results (streaming stores)", "[collectives]") {
  const size_t n = (size_t(1) << 20) + 3;  // odd length: unaligned tail after the streamed tiles
  check_all_reduce<float>(DType::F32, ReduceKind::Sum, kPartitions[3], n, false);
  check_all_reduce<int64_t>(DType::I64, ReduceKind::Max, kPartitions[2], n / 2, false);
  check_reduce_scatter<double>(DType::F64, ReduceKind::Sum, kPartitions[2], 2, (size_t(1) << 18) + 1, false);
}

TEST_CASE("all_reduce: partially overlapping buffers go through a write-back round", "[collectives]") {
  const size_t n = 3000;
  const auto host = make_inputs<float>(n, ReduceKind::Sum);
  std::vector<BufferRef> bufs;
  for (int d = 0; d < 8; ++d) {
    bufs.push_back(DeviceBuffer::allocate(d, (n + 1) * sizeof(float)));
    std::memcpy(bufs[d]->data(), host[d].data(), n * sizeof(float));
  }
  Groups g({{0, 1, 2, 3, 4, 5, 6, 7}});
  run(g, [&](int d, CollectiveGroup& group, int rank) {
    all_reduce(group, rank, ReduceKind::Sum, DType::F32, bufs[d]->as<float>(), bufs[d]->as<float>() + 1, n);
  });
  for (size_t i = 0; i < n; ++i) {
    float expect = host[0][i];
    for (int d = 1; d < 8; ++d) expect += host[d][i];
    for (int d = 0; d < 8; ++d) REQUIRE(bufs[d]->as<float>()[i + 1] == expect);
  }
}

TEST_CASE("all_reduce_shared: one result buffer, the same for every rank of a group", "[collectives]") {
  const size_t n = 5000;
  const auto host = make_inputs<float>(n, ReduceKind::Sum);
  std::vector<BufferRef> in, out(8);
  for (int d = 0; d < 8; ++d) {
    in.push_back(DeviceBuffer::allocate(d, n * sizeof(float)));
    std::memcpy(in[d]->data(), host[d].data(), n * sizeof(float));
  }
  Groups g({{0, 1, 2, 3}, {4, 5, 6, 7}});
  run(g, [&](int d, CollectiveGroup& group, int rank) {
    out[d] = all_reduce_shared(group, rank, ReduceKind::Sum, DType::F32, in[d]->data(), n);
  });
  for (int d = 0; d < 8; ++d) REQUIRE(out[d] == out[d < 4 ? 0 : 4]);  // one buffer per group
  REQUIRE(out[0] != out[4]);
  for (int base : {0, 4})
    for (size_t i = 0; i < n; ++i) {
      float expect = host[base][i];
      for (int d = base + 1; d < base + 4; ++d) expect += host[d][i];
      REQUIRE(out[base]->as<float>()[i] == expect);
    }
}

TEST_CASE("all_gather: [outer][chunk] into slot j of [outer][size][chunk]", "[collectives]") {
  for (DType dtype : {DType::Bool, DType::I32, DType::F64, DType::BF16})
    for (const Partition& p : kPartitions)
      for (size_t outer : {size_t(1), size_t(3)})
        for (size_t chunk : {size_t(1), size_t(5), size_t(1000)})
          for (bool in_place : {false, true}) {
            const size_t es = shard::types::dtype_size(dtype), size = p[0].size();
            const size_t in_bytes = outer * chunk * es, out_bytes = in_bytes * size;
            const auto host = byte_inputs(in_bytes);
            std::vector<BufferRef> out, in;
            for (int d = 0; d < 8; ++d) {
              out.push_back(DeviceBuffer::allocate(d, out_bytes));
              // In place: the input lives inside the output buffer (at the front).
              in.push_back(in_place ? out[d] : DeviceBuffer::allocate(d, in_bytes));
              std::memcpy(in[d]->data(), host[d].data(), in_bytes);
            }
            Groups g(p);
            run(g, [&](int d, CollectiveGroup& group, int rank) {
              all_gather(group, rank, dtype, in[d]->data(), out[d]->data(), outer, chunk);
            });
            for (const auto& devices : p)
              for (int d : devices) {
                std::vector<uint8_t> expect;
                for (size_t o = 0; o < outer; ++o)
                  for (int src : devices)
                    expect.insert(expect.end(), host[src].begin() + o * chunk * es,
                                  host[src].begin() + (o + 1) * chunk * es);
                INFO("dtype " << shard::types::dtype_name(dtype) << " size " << size << " outer " << outer
                              << " chunk " << chunk << " in place " << in_place);
                REQUIRE(std::memcmp(out[d]->data(), expect.data(), out_bytes) == 0);
              }
          }
}

namespace {
// Reference all_to_all by index arithmetic, one element of `es` bytes at a time.
std::vector<uint8_t> all_to_all_reference(const std::vector<std::vector<uint8_t>>& host,
                                          const std::vector<int>& devices, int rank, const AllToAllGeometry& g,
                                          size_t es) {
  const int size = static_cast<int>(devices.size());
  const std::vector<size_t> out_shape = g.output_shape(size);
  std::vector<size_t> block = g.shape;
  block[g.split_axis] /= size;
  std::vector<uint8_t> out(g.elements() * es);
  std::vector<size_t> idx(out_shape.size(), 0);
  for (size_t flat = 0; flat < g.elements(); ++flat) {
    size_t rem = flat;
    for (size_t k = out_shape.size(); k-- > 0;) {
      idx[k] = rem % out_shape[k];
      rem /= out_shape[k];
    }
    const int src = static_cast<int>(idx[g.concat_axis] / block[g.concat_axis]);
    std::vector<size_t> sidx = idx;
    sidx[g.concat_axis] = idx[g.concat_axis] % block[g.concat_axis];
    sidx[g.split_axis] += rank * block[g.split_axis];
    size_t sflat = 0;
    for (size_t k = 0; k < g.shape.size(); ++k) sflat = sflat * g.shape[k] + sidx[k];
    std::memcpy(&out[flat * es], &host[devices[src]][sflat * es], es);
  }
  return out;
}
}  // namespace

TEST_CASE("all_to_all: the header's worked example", "[collectives]") {
  Groups g({{0, 1}, {2}, {3}, {4}, {5}, {6}, {7}});
  std::vector<std::vector<int32_t>> in(8, std::vector<int32_t>(12)), out(8, std::vector<int32_t>(12));
  for (int i = 0; i < 12; ++i) in[0][i] = i, in[1][i] = 20 + i;
  AllToAllGeometry geo{{4, 3}, 0, 1};
  run(g, [&](int d, CollectiveGroup& group, int rank) {
    all_to_all(group, rank, DType::I32, in[d].data(), out[d].data(), geo);
  });
  CHECK(geo.output_shape(2) == std::vector<size_t>{2, 6});
  CHECK(out[0] == std::vector<int32_t>{0, 1, 2, 20, 21, 22, 3, 4, 5, 23, 24, 25});
  CHECK(out[1] == std::vector<int32_t>{6, 7, 8, 26, 27, 28, 9, 10, 11, 29, 30, 31});
}

TEST_CASE("all_to_all: split and concat on any axes, groups of 1-8, in place", "[collectives]") {
  const std::vector<AllToAllGeometry> geometries = {
      {{16}, 0, 0},          {{8, 3}, 0, 1},      {{3, 8}, 1, 0}, {{2, 8, 5}, 1, 1},
      {{3, 4, 16}, 2, 0},    {{2, 8, 3, 2}, 1, 3}, {{8, 8}, 0, 0}, {{5, 16, 1}, 1, 2},
  };
  for (DType dtype : {DType::Bool, DType::F32, DType::I64})
    for (const Partition& p : kPartitions)
      for (const AllToAllGeometry& geo : geometries)
        for (bool in_place : {false, true}) {
          const size_t es = shard::types::dtype_size(dtype), bytes = geo.elements() * es;
          const auto host = byte_inputs(bytes);
          auto in = upload(host, bytes);
          std::vector<BufferRef> out = in;
          if (!in_place)
            for (int d = 0; d < 8; ++d) out[d] = DeviceBuffer::allocate(d, bytes);
          Groups g(p);
          run(g, [&](int d, CollectiveGroup& group, int rank) {
            all_to_all(group, rank, dtype, in[d]->data(), out[d]->data(), geo);
          });
          for (const auto& devices : p)
            for (size_t r = 0; r < devices.size(); ++r) {
              auto expect = all_to_all_reference(host, devices, int(r), geo, es);
              INFO("group size " << devices.size() << " split " << geo.split_axis << " concat " << geo.concat_axis
                                 << " in place " << in_place);
              REQUIRE(std::memcmp(out[devices[r]]->data(), expect.data(), bytes) == 0);
            }
        }
}

TEST_CASE("permute: pairs move whole arrays, non-destinations get zeros", "[collectives]") {
  for (const Partition& p : kPartitions) {
    const int size = static_cast<int>(p[0].size());
    std::vector<PermutePairs> perms;
    PermutePairs cyclic, partial, backwards;
    for (int r = 0; r < size; ++r) cyclic.push_back({r, (r + 1) % size});
    for (int r = 0; r + 1 < size; ++r) partial.push_back({r, r + 1});  // rank 0 gets nothing
    for (int r = size - 1; r >= 1; r -= 2) backwards.push_back({r, r - 1});
    perms = {cyclic, partial, backwards, {}};
    for (const PermutePairs& pairs : perms)
      for (bool in_place : {false, true}) {
        const size_t n = 1001, bytes = n * 4;
        const auto host = byte_inputs(bytes);
        auto in = upload(host, bytes);
        std::vector<BufferRef> out = in;
        if (!in_place)
          for (int d = 0; d < 8; ++d) out[d] = DeviceBuffer::allocate(d, bytes);
        Groups g(p);
        run(g, [&](int d, CollectiveGroup& group, int rank) {
          permute(group, rank, DType::F32, pairs, in[d]->data(), out[d]->data(), n);
        });
        for (const auto& devices : p)
          for (int r = 0; r < size; ++r) {
            std::vector<uint8_t> expect(bytes, 0);
            for (auto [s, t] : pairs)
              if (t == r) expect = host[devices[s]];
            INFO("group size " << size << " pairs " << pairs.size() << " rank " << r << " in place " << in_place);
            REQUIRE(std::memcmp(out[devices[r]]->data(), expect.data(), bytes) == 0);
          }
      }
  }
}

TEST_CASE("permute: duplicate sources or destinations fail before the rendezvous", "[collectives]") {
  CollectiveGroup group({0, 1, 2, 3}, 20s);
  float in[4] = {}, out[4] = {};
  std::string err;
  // Only device 0 calls: an error raised after arriving would be a timeout instead.
  runtime8().launch({0}, [&](int) {
    try {
      permute(group, 0, DType::F32, {{0, 1}, {0, 2}}, in, out, 4);
    } catch (const CollectiveError& e) {
      err = e.what();
    }
  });
  CHECK(err == "ppermute sources and destinations must be unique, got ((0, 1), (0, 2)).");
  runtime8().launch({0}, [&](int) {
    try {
      permute(group, 0, DType::F32, {{1, 3}, {2, 3}}, in, out, 4);
    } catch (const CollectiveError& e) {
      err = e.what();
    }
  });
  CHECK_THAT(err, Catch::StartsWith("ppermute sources and destinations must be unique"));
}

TEST_CASE("broadcast_from: every rank gets the root's array", "[collectives]") {
  for (const Partition& p : kPartitions)
    for (bool root_last : {false, true}) {
      const int size = static_cast<int>(p[0].size()), root = root_last ? size - 1 : 0;
      const size_t n = 777, bytes = n * 8;
      const auto host = byte_inputs(bytes);
      auto buf = upload(host, bytes);  // in place on every rank
      Groups g(p);
      run(g, [&](int d, CollectiveGroup& group, int rank) {
        broadcast_from(group, rank, root, DType::F64, rank == root ? buf[d]->data() : nullptr, buf[d]->data(), n);
      });
      for (const auto& devices : p)
        for (int d : devices) REQUIRE(std::memcmp(buf[d]->data(), host[devices[root]].data(), bytes) == 0);
    }
}

TEST_CASE("gather_blocks: each rank copies the pieces it asks for in one rendezvous", "[collectives]") {
  for (const Partition& p : kPartitions) {
    const int size = static_cast<int>(p[0].size());
    const size_t bytes = 512;
    const auto host = byte_inputs(bytes);
    auto src = upload(host, bytes);
    std::vector<std::vector<uint8_t>> dst(8, std::vector<uint8_t>(bytes, 0xEE));
    // rank r: bytes [0,100) from rank (r+1)%size at offset 10r, [200,264) from itself at 300,
    // [400, 403) from rank 0 at 509; the rest of dst stays untouched.
    auto pieces_for = [&](int r) {
      return std::vector<BlockPiece>{{(r + 1) % size, size_t(10 * r), 0, 100}, {r, 300, 200, 64}, {0, 509, 400, 3}};
    };
    Groups g(p);
    run(g, [&](int d, CollectiveGroup& group, int rank) {
      gather_blocks(group, rank, src[d]->data(), bytes, dst[d].data(), bytes, pieces_for(rank));
    });
    for (const auto& devices : p)
      for (int r = 0; r < size; ++r) {
        std::vector<uint8_t> expect(bytes, 0xEE);
        for (const BlockPiece& piece : pieces_for(r))
          std::memcpy(&expect[piece.dst_offset], &host[devices[piece.src_rank]][piece.src_offset], piece.bytes);
        REQUIRE(dst[devices[r]] == expect);
      }
  }
}

TEST_CASE("collectives: a mismatch names both sides, an absent device times out", "[collectives]") {
  {
    CollectiveGroup group({0, 1, 2, 3}, 20s);
    std::vector<float> in(1024), out(8 * 1024);
    std::vector<std::string> errors(4);
    runtime8().launch({0, 1, 2, 3}, [&](int d) {
      try {
        if (d == 3)
          all_gather(group, 3, DType::F32, in.data(), out.data(), 1, 512);
        else
          all_reduce(group, d, ReduceKind::Sum, DType::F32, in.data(), out.data() + 1024 * d, 1024);
      } catch (const CollectiveError& e) {
        errors[d] = e.what();
      }
    });
    for (const auto& e : errors)
      CHECK(e == "collective mismatch: device 0 executes `psum f32[1024]` while device 3 executes `all_gather f32[512]`");
    // The group is still usable afterwards.
    runtime8().launch({0, 1, 2, 3}, [&](int d) {
      all_reduce(group, d, ReduceKind::Max, DType::F32, in.data() + 0, out.data() + 1024 * d, 4, "over ('x',)");
    });
  }
  {
    CollectiveGroup group({0, 1, 2, 3}, 20s);
    std::vector<int32_t> buf(4 * 64);
    std::vector<std::string> errors(4);
    runtime8().launch({0, 1, 2, 3}, [&](int d) {
      try {
        all_reduce(group, d, d == 2 ? ReduceKind::Max : ReduceKind::Sum, DType::I32, buf.data() + 64 * d,
                   buf.data() + 64 * d, d == 1 ? 63 : 64);
      } catch (const CollectiveError& e) {
        errors[d] = e.what();
      }
    });
    CHECK(errors[0] == "collective mismatch: device 0 executes `psum i32[64]` while device 1 executes `psum i32[63]`");
  }
  {
    CollectiveGroup group({0, 1}, 100ms);
    std::vector<double> in(16), out(16);
    std::string err;
    runtime8().launch({0, 1}, [&](int d) {
      if (d == 1) {  // busy elsewhere past the timeout
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
        return;
      }
      try {
        all_reduce(group, 0, ReduceKind::Sum, DType::F64, in.data(), out.data(), 16);
      } catch (const CollectiveError& e) {
        err = e.what();
      }
    });
    CHECK_THAT(err, Catch::Contains("device 0 reached `psum f64[16]`"));
    CHECK_THAT(err, Catch::Contains("device(s) 1 did not arrive"));
  }
}

TEST_CASE("collectives: misuse visible in the arguments fails at once", "[collectives]") {
  CollectiveGroup group({0, 1}, 20s);
  float buf[8] = {};
  std::vector<std::string> errors;
  auto attempt = [&](auto fn) {
    runtime8().launch({0}, [&](int) {
      try {
        fn();
        errors.push_back("no error");
      } catch (const CollectiveError& e) {
        errors.push_back(e.what());
      }
    });
  };
  attempt([&] { all_reduce(group, 0, ReduceKind::And, DType::F32, buf, buf, 8); });
  attempt([&] { all_reduce(group, 0, ReduceKind::Or, DType::BF16, buf, buf, 8); });
  attempt([&] { all_reduce(group, 1, ReduceKind::Sum, DType::F32, buf, buf, 8); });  // device 0 is rank 0
  attempt([&] { all_to_all(group, 0, DType::F32, buf, buf, AllToAllGeometry{{3, 2}, 0, 1}); });
  attempt([&] { permute(group, 0, DType::F32, {{0, 2}}, buf, buf, 8); });
  REQUIRE(errors.size() == 5);
  CHECK(errors[0] == "pand (logical and) is not defined for float32 arrays");
  CHECK_THAT(errors[1], Catch::Contains("bfloat16"));
  CHECK_THAT(errors[2], Catch::Contains("called on device 0 as rank 1"));
  CHECK_THAT(errors[3], Catch::Contains("not divisible by the number of devices 2"));
  CHECK_THAT(errors[4], Catch::Contains("outside the 2 devices"));
  CHECK_THROWS_AS(CollectiveGroup({1, 1}), CollectiveError);
}
