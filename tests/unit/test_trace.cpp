#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "exec/array.hpp"
#include "exec/run_global.hpp"
#include "trace/ops.hpp"

using namespace shard;
using trace::DTypeW;
using types::AxisType;
using types::DType;
using types::PartitionSpec;
using E = std::vector<PartitionSpec::Entry>;

namespace {
types::Mesh mesh42() {
  return types::Mesh({0, 1, 2, 3, 4, 5, 6, 7}, {4, 2}, {"dp", "mp"}, std::vector<AxisType>{AxisType::Explicit, AxisType::Explicit});
}
exec::ArrayRef put(const types::Mesh& m, const std::vector<float>& host, types::Shape shape, PartitionSpec spec) {
  types::NamedSharding sh(m, spec);
  return exec::array_from_host(host.data(), types::ArrayType::from_sharding(DType::F32, shape, sh), sh, false);
}
template <class T>
std::vector<T> fetch(const exec::ArrayRef& a) {
  auto bytes = exec::array_to_host(*a);
  std::vector<T> v(bytes.size() / sizeof(T));
  std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}
}  // namespace

TEST_CASE("traced jnp ops: promotion, broadcasting, shardings, values", "[trace]") {
  auto m = mesh42();
  std::vector<float> hx(32), hb(4);
  for (int i = 0; i < 32; ++i) hx[i] = 0.1f * i;
  for (int i = 0; i < 4; ++i) hb[i] = float(i);
  auto x = put(m, hx, {8, 4}, PartitionSpec(E{{"dp"}, {"mp"}}));
  auto b = put(m, hb, {4}, PartitionSpec());

  trace::Trace t("f", m.abstract_mesh());
  auto px = t.param(x->type), pb = t.param(b->type);
  // sin(x) + b * 2 (b broadcast along rows), then sum over rows, then argmax.
  auto s = trace::unary(t, "sin", ir::EwOp::Sin, px);
  auto two = trace::scalar_constant(t, 2, {DType::I32, true});
  auto y = trace::binary(t, "add", ir::EwOp::Add, s, trace::binary(t, "mul", ir::EwOp::Mul, pb, two));
  CHECK(t.type(y).str_short() == "float32[8@dp,4@mp]");
  auto r = trace::reduce(t, "sum", ir::ReduceKind::Sum, y, {0}, false);
  CHECK(t.type(r).str_short() == "float32[4@mp]");
  auto am = trace::argminmax(t, "argmax", ir::ReduceKind::Max, y, 1, false);
  CHECK(t.type(am).str_short() == "int32[8@dp]");
  auto fn = t.finish({y, r, am});
  INFO(ir::print(fn));
  auto run = exec::run_global(fn, {x, b});
  auto vy = fetch<float>(run.outputs[0]);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) REQUIRE(vy[i * 4 + j] == Approx(std::sin(hx[i * 4 + j]) + hb[j] * 2).epsilon(1e-6));
  auto vr = fetch<float>(run.outputs[1]);
  for (int j = 0; j < 4; ++j) {
    double ref = 0;
    for (int i = 0; i < 8; ++i) ref += std::sin(hx[i * 4 + j]) + hb[j] * 2;
    CHECK(vr[j] == Approx(ref).epsilon(1e-5));
  }
  CHECK(fetch<int32_t>(run.outputs[2]) == std::vector<int32_t>(8, 3));
  // The sum's all-reduce over dp and the argmax's gather of mp are in the ledger.
  REQUIRE(run.ledger->size() == 2);
  CHECK((*run.ledger)[0].kind == "all-reduce");
  CHECK((*run.ledger)[1].kind == "all-gather");
}

TEST_CASE("dtype promotion follows JAX's lattice", "[trace]") {
  using trace::promote;
  CHECK(promote({DType::I32, false}, {DType::F32, true}) == DTypeW{DType::F32, true});
  CHECK(promote({DType::I32, false}, {DType::F16, false}) == DTypeW{DType::F16, false});
  CHECK(promote({DType::BF16, false}, {DType::F16, false}) == DTypeW{DType::F32, false});
  CHECK(promote({DType::Bool, false}, {DType::I32, true}) == DTypeW{DType::I32, true});
  CHECK(promote({DType::F16, false}, {DType::F32, true}) == DTypeW{DType::F16, false});
  CHECK(promote({DType::I32, true}, {DType::F32, true}) == DTypeW{DType::F32, true});
}

TEST_CASE("reshape in the seeds' 4@dp,2@mp,3 -> (4,6) case runs per shard", "[trace]") {
  auto m = mesh42();
  std::vector<float> h(24);
  for (int i = 0; i < 24; ++i) h[i] = float(i);
  auto x = put(m, h, {4, 2, 3}, PartitionSpec(E{{"dp"}, {"mp"}, {}}));
  trace::Trace t("f", m.abstract_mesh());
  auto px = t.param(x->type);
  auto y = trace::reshape(t, px, {4, 6});
  CHECK(t.type(y).str_short() == "float32[4@dp,6@mp]");
  auto run = exec::run_global(t.finish({y}), {x});
  CHECK(run.ledger->empty());
  CHECK(fetch<float>(run.outputs[0]) == h);
}
