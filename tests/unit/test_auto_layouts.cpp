// The partitioner's layouts on Auto mesh axes (spmd/auto_layouts.cpp): chains of ops whose
// Auto-sharded inputs need no communication must get none (checked through the ledger), and
// the values must be right.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "exec/array.hpp"
#include "exec/run_global.hpp"
#include "spmd/auto_layouts.hpp"
#include "spmd/partition.hpp"
#include "test_program_util.hpp"

using namespace shard;
using namespace shard::testing;
using ir::OpKind;
using types::AxisType;
using types::DType;
using types::PartitionSpec;
using E = std::vector<PartitionSpec::Entry>;

namespace {
types::Mesh auto_mesh() { return types::Mesh({0, 1, 2, 3, 4, 5, 6, 7}, {4, 2}, {"dp", "mp"}); }  // (Auto, Auto)
// On an all-Auto mesh types carry no sharding.
ir::ArrayType ty(const types::Mesh& m, types::Shape s) { return ir::ArrayType(DType::F32, std::move(s), m.abstract_mesh(), PartitionSpec()); }
std::string ledger_text(const std::vector<spmd::CollectiveRecord>& l) {
  std::string s;
  for (auto& r : l) s += r.kind + " (" + r.reason + "); ";
  return s;
}
}  // namespace

// x: f32[8,4] laid out ('dp', None) on Auto axes; y = sin(x); z = reshape(y, (8,2,2));
// w = reduce_sum(z, axis=2). Every op works within rows, so the rows stay split over dp
// and nothing moves between devices.
TEST_CASE("auto axes: sin -> reshape -> reduce keeps the rows split, no collective", "[auto]") {
  auto m = auto_mesh();
  ir::Function f;
  auto x = f.new_value(ty(m, {8, 4}));
  f.params = {x};
  auto y = op1(f, OpKind::Elementwise, {x}, ty(m, {8, 4}), ew(ir::EwOp::Sin));
  auto z = op1(f, OpKind::Reshape, {y}, ty(m, {8, 2, 2}));
  ir::attr::Reduce sa;
  sa.kind = ir::ReduceKind::Sum;
  sa.axes = {2};
  auto w = op1(f, OpKind::Reduce, {z}, ty(m, {8, 2}), sa);
  f.results = {w};

  const PartitionSpec rows(E{{"dp"}, {}});
  auto parts = spmd::partition(f, m, {rows});
  INFO(ledger_text(parts.ledger));
  CHECK(parts.ledger.empty());
  CHECK(parts.out_layouts[0].normalized(2) == rows);

  std::vector<float> host(32);
  for (size_t i = 0; i < host.size(); ++i) host[i] = float(i) * 0.25f;
  auto run = exec::run_global(f, {put(m, host, {8, 4}, rows)});
  CHECK(run.ledger->empty());
  auto out = fetch(run.outputs[0]);
  for (int r = 0; r < 8; ++r)
    for (int k = 0; k < 2; ++k)
      REQUIRE(out[r * 2 + k] == Approx(std::sin(host[r * 4 + 2 * k]) + std::sin(host[r * 4 + 2 * k + 1])).epsilon(1e-5));
}

// a = sin(x) with x laid out ('dp', None), b = cos(y) with y laid out (None, 'mp'),
// c = a * b. Laying c out ('dp', 'mp') lets both operands be sliced locally; taking one
// operand's layout alone would gather the other over an axis.
TEST_CASE("auto axes: sin, cos, mul of differently split operands: merged layout, no collective", "[auto]") {
  auto m = auto_mesh();
  ir::Function f;
  auto x = f.new_value(ty(m, {8, 4}));
  auto y = f.new_value(ty(m, {8, 4}));
  f.params = {x, y};
  auto a = op1(f, OpKind::Elementwise, {x}, ty(m, {8, 4}), ew(ir::EwOp::Sin));
  auto b = op1(f, OpKind::Elementwise, {y}, ty(m, {8, 4}), ew(ir::EwOp::Cos));
  auto c = op1(f, OpKind::Elementwise, {a, b}, ty(m, {8, 4}), ew(ir::EwOp::Mul));
  f.results = {c};

  const PartitionSpec rows(E{{"dp"}, {}}), cols(E{{}, {"mp"}});
  auto plan = spmd::plan_auto_layouts(f, m.abstract_mesh(), {rows, cols});
  REQUIRE(plan[static_cast<size_t>(c)]);
  CHECK(plan[static_cast<size_t>(c)]->normalized(2) == PartitionSpec(E{{"dp"}, {"mp"}}));

  auto parts = spmd::partition(f, m, {rows, cols});
  INFO(ledger_text(parts.ledger));
  CHECK(parts.ledger.empty());
  CHECK(parts.out_layouts[0].normalized(2) == PartitionSpec(E{{"dp"}, {"mp"}}));

  std::vector<float> hx(32), hy(32);
  for (size_t i = 0; i < 32; ++i) hx[i] = float(i) * 0.1f, hy[i] = float(i) * -0.05f;
  auto run = exec::run_global(f, {put(m, hx, {8, 4}, rows), put(m, hy, {8, 4}, cols)});
  CHECK(run.ledger->empty());
  auto out = fetch(run.outputs[0]);
  for (size_t i = 0; i < 32; ++i) REQUIRE(out[i] == Approx(std::sin(hx[i]) * std::cos(hy[i])).epsilon(1e-5));
}

// Backward: a constraint pins c to ('dp', None); c = a + 1 where a = exp(x) of a replicated
// x: a (and the broadcast constant) take the constraint's layout, computed on row blocks.
TEST_CASE("auto axes: a sharding constraint pulls its producers' layout backward", "[auto]") {
  auto m = auto_mesh();
  ir::Function f;
  auto x = f.new_value(ty(m, {8, 4}));
  f.params = {x};
  auto a = op1(f, OpKind::Elementwise, {x}, ty(m, {8, 4}), ew(ir::EwOp::Exp));
  auto one = op1(f, OpKind::Elementwise, {a}, ty(m, {8, 4}), ew(ir::EwOp::Neg));
  ir::attr::ShardingConstraint ca;
  ca.sharding = PartitionSpec(E{{"dp"}, {}});
  auto c = op1(f, OpKind::ShardingConstraint, {one}, ty(m, {8, 4}), ca);
  f.results = {c};
  auto plan = spmd::plan_auto_layouts(f, m.abstract_mesh(), {PartitionSpec()});
  REQUIRE(plan[static_cast<size_t>(a)]);
  CHECK(plan[static_cast<size_t>(a)]->normalized(2) == PartitionSpec(E{{"dp"}, {}}));
  CHECK(!plan[static_cast<size_t>(x)]);  // a parameter keeps the layout it arrives in
  auto parts = spmd::partition(f, m, {PartitionSpec()});
  CHECK(parts.ledger.empty());
  // The local program computes exp on a (2, 4) row block (sliced from the replicated x).
  bool local_rows = false;
  for (const auto& op : parts.local.ops)
    if (op.kind == OpKind::Elementwise && op.attr<ir::attr::Elementwise>().op == ir::EwOp::Exp) local_rows = parts.local.type(op.results[0]).shape() == types::Shape{2, 4};
  CHECK(local_rows);
}
