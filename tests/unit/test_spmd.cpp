#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <numeric>

#include "exec/array.hpp"
#include "exec/run_global.hpp"
#include "spmd/reshape_layout.hpp"
#include "test_program_util.hpp"

using namespace shard;
using namespace shard::testing;
using ir::OpKind;
using types::AxisType;
using types::DType;
using types::PartitionSpec;
using E = std::vector<PartitionSpec::Entry>;

namespace {
types::Mesh mesh42() {
  return types::Mesh({0, 1, 2, 3, 4, 5, 6, 7}, {4, 2}, {"dp", "mp"}, std::vector<AxisType>{AxisType::Explicit, AxisType::Explicit});
}
ir::ArrayType gtype(const types::Mesh& m, types::Shape s, PartitionSpec spec, DType dt = DType::F32) {
  return ir::ArrayType(dt, std::move(s), m.abstract_mesh(), std::move(spec));
}
std::vector<float> iota(size_t n, float scale = 1) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = float(i) * scale;
  return v;
}
}  // namespace

TEST_CASE("sum over a sharded dim: local reduce + one all-reduce over dp", "[spmd]") {
  auto m = mesh42();
  ir::Function f;
  auto x = f.new_value(gtype(m, {8, 4}, PartitionSpec(E{{"dp"}, {"mp"}})));
  f.params = {x};
  ir::attr::Reduce a;
  a.kind = ir::ReduceKind::Sum;
  a.axes = {0};
  f.results = {op1(f, OpKind::Reduce, {x}, gtype(m, {4}, PartitionSpec(E{{"mp"}})), a)};
  auto host = iota(32);
  auto run = exec::run_global(f, {put(m, host, {8, 4}, PartitionSpec(E{{"dp"}, {"mp"}}))});
  REQUIRE(run.ledger->size() == 1);
  CHECK((*run.ledger)[0].kind == "all-reduce");
  CHECK((*run.ledger)[0].axes == std::vector<std::string>{"dp"});
  CHECK(run.outputs[0]->sharding.spec() == PartitionSpec(E{{"mp"}}));
  CHECK(fetch(run.outputs[0]) == std::vector<float>{112, 120, 128, 136});
  CHECK(!run.cache_hit);
  CHECK(exec::run_global(f, {put(m, host, {8, 4}, PartitionSpec(E{{"dp"}, {"mp"}}))}).cache_hit);
}

TEST_CASE("sharded + replicated operands: the replicated one is sliced locally, no collective", "[spmd]") {
  auto m = mesh42();
  ir::Function f;
  auto x = f.new_value(gtype(m, {8, 4}, PartitionSpec(E{{"dp"}, {"mp"}})));
  auto y = f.new_value(gtype(m, {8, 4}, PartitionSpec()));
  f.params = {x, y};
  ir::attr::Elementwise a;
  a.op = ir::EwOp::Add;
  f.results = {op1(f, OpKind::Elementwise, {x, y}, gtype(m, {8, 4}, PartitionSpec(E{{"dp"}, {"mp"}})), a)};
  auto hx = iota(32), hy = iota(32, 100);
  auto run = exec::run_global(f, {put(m, hx, {8, 4}, PartitionSpec(E{{"dp"}, {"mp"}})), put(m, hy, {8, 4}, PartitionSpec())});
  CHECK(run.ledger->empty());
  auto out = fetch(run.outputs[0]);
  for (int i = 0; i < 32; ++i) REQUIRE(out[i] == hx[i] + hy[i]);
}

// x f32[8,4] (dp, mp) @ w f32[4,6] (mp, None) -> result typed `out`; checks the values against a
// host matmul and returns the run (its ledger and output layout for the caller's checks).
static exec::GlobalRun run_matmul_contracting_mp(const types::Mesh& m, const PartitionSpec& out) {
  ir::Function f;
  auto x = f.new_value(gtype(m, {8, 4}, PartitionSpec(E{{"dp"}, {"mp"}})));
  auto w = f.new_value(gtype(m, {4, 6}, PartitionSpec(E{{"mp"}, {}})));
  f.params = {x, w};
  ir::attr::DotGeneral a;
  a.lhs_contracting = {1};
  a.rhs_contracting = {0};
  f.results = {op1(f, OpKind::DotGeneral, {x, w}, gtype(m, {8, 6}, out), a)};
  auto hx = iota(32, 0.5f), hw = iota(24, 0.25f);
  auto run = exec::run_global(f, {put(m, hx, {8, 4}, PartitionSpec(E{{"dp"}, {"mp"}})), put(m, hw, {4, 6}, PartitionSpec(E{{"mp"}, {}}))});
  auto values = fetch(run.outputs[0]);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 6; ++j) {
      float ref = 0;
      for (int k = 0; k < 4; ++k) ref += hx[i * 4 + k] * hw[k * 6 + j];
      REQUIRE(values[i * 6 + j] == Approx(ref));
    }
  return run;
}

TEST_CASE("matmul contracting over mp on both sides: partial products + all-reduce", "[spmd]") {
  auto run = run_matmul_contracting_mp(mesh42(), PartitionSpec(E{{"dp"}, {}}));
  REQUIRE(run.ledger->size() == 1);
  CHECK((*run.ledger)[0].kind == "all-reduce");
  CHECK((*run.ledger)[0].axes == std::vector<std::string>{"mp"});
}

TEST_CASE("matmul whose result is wanted sharded over the contracted axis: one reduce-scatter", "[spmd]") {
  auto run = run_matmul_contracting_mp(mesh42(), PartitionSpec(E{{"dp"}, {"mp"}}));
  REQUIRE(run.ledger->size() == 1);
  CHECK((*run.ledger)[0].kind == "reduce-scatter");
  CHECK((*run.ledger)[0].axes == std::vector<std::string>{"mp"});
  CHECK((*run.ledger)[0].bytes_per_device == 2 * 3 * 1 * 4);  // the other rank's partial block
  CHECK(run.outputs[0]->sharding.spec() == PartitionSpec(E{{"dp"}, {"mp"}}));
}

TEST_CASE("moving a sharding from one dim to another is one all-to-all, not a gather", "[spmd]") {
  auto m = mesh42();
  ir::Function f;
  auto x = f.new_value(gtype(m, {8, 8}, PartitionSpec(E{{"mp"}, {}})));
  f.params = {x};
  f.results = {op1(f, OpKind::Reshard, {x}, gtype(m, {8, 8}, PartitionSpec(E{{}, {"mp"}})))};
  auto host = iota(64);
  auto run = exec::run_global(f, {put(m, host, {8, 8}, PartitionSpec(E{{"mp"}, {}}))});
  REQUIRE(run.ledger->size() == 1);
  CHECK((*run.ledger)[0].kind == "all-to-all");
  CHECK((*run.ledger)[0].bytes_per_device == 32 / 2 * 4);  // half the local block leaves
  CHECK(fetch(run.outputs[0]) == host);
}

TEST_CASE("resharding between layouts gathers then slices; values unchanged", "[spmd]") {
  auto m = mesh42();
  auto host = iota(64);
  for (auto from : {PartitionSpec(E{{"dp"}, {"mp"}}), PartitionSpec(), PartitionSpec(E{{"dp", "mp"}, {}})})
    for (auto to : {PartitionSpec(E{{"mp"}, {"dp"}}), PartitionSpec(E{{}, {"dp", "mp"}}), PartitionSpec(E{{"dp"}, {}})}) {
      auto a = put(m, host, {8, 8}, from);
      auto t = gtype(m, {8, 8}, to);
      auto b = exec::reshard_array(a, m, to, t);
      INFO(from.repr() << " -> " << to.repr());
      CHECK(b->sharding.spec() == to.normalized(2));
      CHECK(fetch(b) == host);
    }
}

TEST_CASE("reshape layouts: which sharded reshapes run per shard", "[spmd]") {
  types::AbstractMesh am({"X", "Y"}, {2, 2}, std::vector<AxisType>{AxisType::Explicit, AxisType::Explicit});
  auto L = [&](types::Shape in, PartitionSpec s, types::Shape out) { return spmd::local_reshape_layout(in, s, out, {}, am); };
  CHECK(L({8}, PartitionSpec(E{{"X"}}), {2, 4}) == PartitionSpec(E{{"X"}, {}}));
  CHECK(L({8}, PartitionSpec(E{{"X", "Y"}}), {2, 4}) == PartitionSpec(E{{"X"}, {"Y"}}));
  CHECK(L({2, 4}, PartitionSpec(E{{"X"}, {"Y"}}), {8}) == PartitionSpec(E{{"X", "Y"}}));
  CHECK(L({2, 4}, PartitionSpec(E{{"X"}, {}}), {8}) == PartitionSpec(E{{"X"}}));
  CHECK(!L({2, 6}, PartitionSpec(E{{}, {"Y"}}), {12}).has_value());
  CHECK(!L({6}, PartitionSpec(E{{"Y"}}), {3, 2}).has_value());
  types::AbstractMesh seeds({"dp", "mp"}, {4, 2}, std::vector<AxisType>{AxisType::Explicit, AxisType::Explicit});
  CHECK(spmd::local_reshape_layout({4, 2, 3}, PartitionSpec(E{{"dp"}, {"mp"}, {}}), {4, 6}, {}, seeds) ==
        PartitionSpec(E{{"dp"}, {"mp"}}));
}
