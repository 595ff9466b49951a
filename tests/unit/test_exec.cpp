#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <numeric>

#include "exec/array.hpp"
#include "exec/host_kernels.hpp"
#include "exec/program.hpp"
#include "runtime/device_runtime.hpp"
#include "test_program_util.hpp"

using namespace shard;
using ir::OpKind;
using types::DType;

namespace {
ir::ArrayType T(DType d, types::Shape s) { return ir::ArrayType(d, std::move(s)); }


std::vector<float> to_floats(const runtime::BufferRef& b, size_t n) {
  std::vector<float> v(n);
  std::memcpy(v.data(), b->data(), n * 4);
  return v;
}
}  // namespace

TEST_CASE("a per-device program: transpose, sin, reduce, dot, concatenate, slice", "[exec]") {
  ir::Function f;
  auto x = f.new_value(T(DType::F32, {3, 4}));
  f.params = {x};
  ir::attr::Transpose perm;
  perm.permutation = {1, 0};
  auto xt = testing::op1(f, OpKind::Transpose, {x}, T(DType::F32, {4, 3}), perm);
  ir::attr::Elementwise sin;
  sin.op = ir::EwOp::Sin;
  auto s = testing::op1(f, OpKind::Elementwise, {xt}, T(DType::F32, {4, 3}), sin);
  ir::attr::Reduce red;
  red.kind = ir::ReduceKind::Sum;
  red.axes = {1};
  auto r = testing::op1(f, OpKind::Reduce, {s}, T(DType::F32, {4}), red);
  ir::attr::DotGeneral dot;  // x (3x4) @ xt (4x3)
  dot.lhs_contracting = {1};
  dot.rhs_contracting = {0};
  auto d = testing::op1(f, OpKind::DotGeneral, {x, xt}, T(DType::F32, {3, 3}), dot);
  ir::attr::Concatenate cat;
  cat.dimension = 0;
  auto c = testing::op1(f, OpKind::Concatenate, {x, x}, T(DType::F32, {6, 4}), cat);
  ir::attr::Slice sl;
  sl.start_indices = {1, 1};
  sl.limit_indices = {6, 4};
  sl.strides = {2, 2};
  auto sc = testing::op1(f, OpKind::Slice, {c}, T(DType::F32, {3, 2}), sl);
  f.results = {r, d, sc};
  INFO(ir::print(f));

  std::vector<float> host(12);
  std::iota(host.begin(), host.end(), 0.0f);
  for (int devices : {1, 2}) {
    types::Mesh mesh = devices == 1 ? exec::single_device_mesh(0) : types::Mesh({0, 1}, {2}, {"x"});
    exec::Executable exe(f, mesh);
    exe.compile_kernels(exec::kernel_jit());
    std::vector<runtime::BufferRef> in;
    for (int dev : mesh.device_ids()) {
      auto b = runtime::DeviceBuffer::allocate(dev, 48);
      std::memcpy(b->data(), host.data(), 48);
      in.push_back(b);
    }
    auto out = exe.run({in});
    for (int p = 0; p < devices; ++p) {
      auto rs = to_floats(out[0][p], 4);
      for (int j = 0; j < 4; ++j) {
        float ref = 0;
        for (int i = 0; i < 3; ++i) ref += std::sin(host[i * 4 + j]);
        CHECK(rs[j] == Approx(ref).epsilon(1e-5));
      }
      auto ds = to_floats(out[1][p], 9);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          float ref = 0;
          for (int k = 0; k < 4; ++k) ref += host[i * 4 + k] * host[j * 4 + k];
          CHECK(ds[i * 3 + j] == ref);
        }
      // concat(x, x)[1:6:2, 1:4:2] = rows 1,3,5 of [x;x] -> x rows 1, 0, 2; cols 1, 3
      CHECK(to_floats(out[2][p], 6) == std::vector<float>{5, 7, 1, 3, 9, 11});
    }
  }
}

TEST_CASE("arrays round-trip host -> sharded devices -> host", "[exec]") {
  types::Mesh mesh({0, 1, 2, 3, 4, 5, 6, 7}, {4, 2}, {"dp", "mp"},
                   std::vector<types::AxisType>{types::AxisType::Explicit, types::AxisType::Explicit});
  std::vector<float> host(32);
  std::iota(host.begin(), host.end(), 0.0f);
  using E = std::vector<types::PartitionSpec::Entry>;
  for (auto spec : {types::PartitionSpec(E{{"dp"}, {"mp"}}), types::PartitionSpec(E{{}, {"dp"}}),
                    types::PartitionSpec(E{{"dp", "mp"}}), types::PartitionSpec()}) {
    types::NamedSharding sh(mesh, spec);
    auto type = ir::ArrayType::from_sharding(DType::F32, {8, 4}, sh);
    auto a = exec::array_from_host(host.data(), type, sh, false);
    auto back = exec::array_to_host(*a);
    CHECK(std::memcmp(back.data(), host.data(), 128) == 0);
  }
  // Device 3 of P('dp','mp') holds rows 2:4, cols 2:4.
  types::NamedSharding sh(mesh, types::PartitionSpec(E{{"dp"}, {"mp"}}));
  auto a = exec::array_from_host(host.data(), ir::ArrayType::from_sharding(DType::F32, {8, 4}, sh), sh, false);
  CHECK(to_floats(a->shards[3], 4) == std::vector<float>{10, 11, 14, 15});
}
