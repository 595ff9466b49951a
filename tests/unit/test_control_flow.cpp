// Control flow through the partitioner and the runtime: a loop body's collectives run every
// iteration on every device, carries keep their layouts, cond picks a branch per run.
#include <catch2/catch.hpp>

#include <cstring>
#include <memory>

#include "exec/array.hpp"
#include "exec/run_global.hpp"
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
types::Mesh mesh4() { return types::Mesh({0, 1, 2, 3}, {4}, {"x"}, std::vector<AxisType>{AxisType::Explicit}); }
ir::ArrayType gt(const types::Mesh& m, types::Shape s, PartitionSpec spec = {}, DType dt = DType::F32) {
  return ir::ArrayType(dt, std::move(s), m.abstract_mesh(), std::move(spec));
}
ir::attr::Constant scalar_literal(float v) {
  ir::attr::Constant a;
  auto lit = std::make_shared<ir::Literal>();
  lit->bytes.resize(4);
  std::memcpy(lit->bytes.data(), &v, 4);
  a.literal = lit;
  return a;
}

// scan over xs f32[3, 8@x]: carry c f32[8@x] += x_i; y_i = sum(c) (an all-reduce per step).
ir::Function scan_with_psum(const types::Mesh& m) {
  auto body = std::make_shared<ir::Function>();
  auto c = body->new_value(gt(m, {8}, PartitionSpec(E{{"x"}})));
  auto x = body->new_value(gt(m, {8}, PartitionSpec(E{{"x"}})));
  body->params = {c, x};
  auto c2 = op1(*body, OpKind::Elementwise, {c, x}, gt(m, {8}, PartitionSpec(E{{"x"}})), ew(ir::EwOp::Add));
  ir::attr::Reduce sum;
  sum.kind = ir::ReduceKind::Sum;
  sum.axes = {0};
  auto y = op1(*body, OpKind::Reduce, {c2}, gt(m, {}), sum);
  body->results = {c2, y};

  ir::Function f;
  auto c0 = f.new_value(gt(m, {8}, PartitionSpec(E{{"x"}})));
  auto xs = f.new_value(gt(m, {3, 8}, PartitionSpec(E{{}, {"x"}})));
  f.params = {c0, xs};
  auto cf = f.new_value(gt(m, {8}, PartitionSpec(E{{"x"}})));
  auto ys = f.new_value(gt(m, {3}));
  f.ops.push_back(ir::Op{OpKind::Scan, {c0, xs}, {cf, ys}, ir::attr::Scan{0, 1, 3, false}, {}, {body}});
  f.results = {cf, ys};
  return f;
}
}  // namespace

TEST_CASE("scan: the body's all-reduce is partitioned into the loop; carries stay sharded", "[control_flow]") {
  auto m = mesh4();
  auto f = scan_with_psum(m);
  REQUIRE(ir::verify(f).empty());
  auto parts = spmd::partition(f, m, {PartitionSpec(E{{"x"}}), PartitionSpec(E{{}, {"x"}})});
  REQUIRE(parts.ledger.size() == 1);  // the psum inside the body, recorded once
  CHECK(parts.ledger[0].kind == "all-reduce");
  REQUIRE(parts.local.ops.size() == 1);
  const auto& local_scan = parts.local.ops[0];
  CHECK(local_scan.kind == OpKind::Scan);
  CHECK(parts.local.type(local_scan.operands[1]).shape() == types::Shape{3, 2});  // xs: scanned dim whole
  CHECK(parts.out_layouts[0] == PartitionSpec(E{{"x"}}));

  std::vector<float> c0(8, 1.0f), xs(24);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = float(i);
  auto run = exec::run_global(f, {put(m, c0, {8}, PartitionSpec(E{{"x"}})), put(m, xs, {3, 8}, PartitionSpec(E{{}, {"x"}}))});
  auto cf = fetch(run.outputs[0]), ys = fetch(run.outputs[1]);
  std::vector<float> c(8, 1.0f);
  for (int i = 0; i < 3; ++i) {
    float total = 0;
    for (int k = 0; k < 8; ++k) total += (c[k] += xs[i * 8 + k]);
    CHECK(ys[i] == total);
  }
  CHECK(cf == c);
}

TEST_CASE("while and cond: trip count from a replicated predicate, branch by index", "[control_flow]") {
  auto m = mesh4();
  // while (c < 10) c = c * 2, on a scalar carry
  auto cond = std::make_shared<ir::Function>();
  auto cc = cond->new_value(gt(m, {}));
  cond->params = {cc};
  auto ten = op1(*cond, OpKind::Constant, {}, gt(m, {}), scalar_literal(10));
  cond->results = {op1(*cond, OpKind::Elementwise, {cc, ten}, gt(m, {}, {}, DType::Bool), ew(ir::EwOp::Lt))};
  auto body = std::make_shared<ir::Function>();
  auto bc = body->new_value(gt(m, {}));
  body->params = {bc};
  body->results = {op1(*body, OpKind::Elementwise, {bc, bc}, gt(m, {}), ew(ir::EwOp::Add))};
  ir::Function f;
  auto x = f.new_value(gt(m, {}));
  f.params = {x};
  auto r = f.new_value(gt(m, {}));
  f.ops.push_back(ir::Op{OpKind::While, {x}, {r}, ir::attr::While{0, 0}, {}, {cond, body}});
  f.results = {r};
  REQUIRE(ir::verify(f).empty());
  auto run = exec::run_global(f, {put(m, {3.0f}, {}, PartitionSpec())});
  CHECK(fetch(run.outputs[0]) == std::vector<float>{12.0f});
  CHECK(run.ledger->empty());
}
