// jax.random's IR building blocks: the threefry2x32 cipher against Random123's known
// answers, the partitionable key schedule, and the new lax bit ops (shifts, bitcast, erf_inv).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "exec/run_global.hpp"
#include "trace/ops_random.hpp"

using namespace shard;
using trace::ValueId;
using types::DType;

namespace {

// Traces `body` with no inputs, runs it on one device and returns each result's 32-bit words.
template <class F>
std::vector<std::vector<uint32_t>> run32(F body) {
  trace::Trace t("test", types::AbstractMesh());
  auto fn = t.finish(body(t));
  auto run = exec::run_global(fn, {});
  std::vector<std::vector<uint32_t>> out;
  for (auto& a : run.outputs) {
    auto bytes = exec::array_to_host(*a);
    std::vector<uint32_t> w(bytes.size() / 4);
    std::memcpy(w.data(), bytes.data(), bytes.size());
    out.push_back(w);
  }
  return out;
}

ValueId u32(trace::Trace& t, uint32_t v) { return trace::scalar_constant(t, v, {trace::random::kKeyDType, false}); }
ValueId vec(trace::Trace& t, std::vector<int32_t> v) {
  return trace::constant(t, DType::I32, {static_cast<int64_t>(v.size())}, v.data());
}

}  // namespace

TEST_CASE("threefry2x32 matches Random123's known answers (20 rounds)", "[random]") {
  auto out = run32([](trace::Trace& t) {
    auto [a, b] = trace::random::threefry2x32(t, u32(t, 0x13198a2e), u32(t, 0x03707344), u32(t, 0x243f6a88), u32(t, 0x85a308d3));
    auto [c, d] = trace::random::threefry2x32(t, u32(t, 0), u32(t, 0), u32(t, 0), u32(t, 0));
    auto [e, f] = trace::random::threefry2x32(t, u32(t, 0xffffffff), u32(t, 0xffffffff), u32(t, 0xffffffff), u32(t, 0xffffffff));
    return std::vector<ValueId>{a, b, c, d, e, f};
  });
  CHECK(out[0][0] == 0xc4923a9c);
  CHECK(out[1][0] == 0x483df7a0);
  CHECK(out[2][0] == 0x6b200159);
  CHECK(out[3][0] == 0x99ba4efe);
  CHECK(out[4][0] == 0x1cb996fc);
  CHECK(out[5][0] == 0xbb002be7);
}

TEST_CASE("partitionable split, fold_in and bits hash each element's own index", "[random]") {
  auto out = run32([](trace::Trace& t) {
    ValueId key = trace::random::seed(t, u32(t, 0));
    ValueId keys = trace::random::split(t, key, {3});
    ValueId folded = trace::random::fold_in(t, key, u32(t, 1));
    ValueId bits = trace::random::bits(t, key, {2, 3});
    auto [x, y] = trace::random::threefry2x32(t, u32(t, 0), u32(t, 0), u32(t, 0), u32(t, 4));
    return std::vector<ValueId>{key, keys, folded, bits, trace::binary(t, "xor", ir::EwOp::Xor, x, y)};
  });
  CHECK(out[0] == std::vector<uint32_t>{0, 0});
  // split(key(0), 3): counters (0, i) row by row; row 0 is the known answer above.
  CHECK(out[1] == std::vector<uint32_t>{1797259609u, 2579123966u, 928981903u, 3453687069u, 4146024105u, 2718843009u});
  CHECK(out[2] == std::vector<uint32_t>{928981903u, 3453687069u});  // fold_in(k, 1) hashes counter (0, 1)
  REQUIRE(out[3].size() == 6);
  CHECK(out[3][4] == out[4][0]);  // element (1, 1) of a (2, 3) draw is flat index 4
}

TEST_CASE("lax shifts define out-of-range counts; bitcast and erf_inv", "[random]") {
  auto out = run32([](trace::Trace& t) {
    using ir::EwOp;
    ValueId x = vec(t, {1, -8, 0x40000000, -1});
    ValueId n = vec(t, {1, 2, 32, -1});
    ValueId inv = trace::erf_inv(t, trace::constant(t, DType::F32, {3}, std::vector<float>{0.5f, -0.9f, 1.0f}.data()));
    return std::vector<ValueId>{trace::shift(t, "shift_left", EwOp::ShiftLeft, x, n),
                                trace::shift(t, "shift_right_logical", EwOp::ShiftRightLogical, x, n),
                                trace::shift(t, "shift_right_arithmetic", EwOp::ShiftRightArithmetic, x, n),
                                trace::bitcast_convert(t, trace::scalar_constant(t, 1.0, {DType::F32, false}), DType::I32), inv};
  });
  CHECK(out[0] == std::vector<uint32_t>{2, 0xffffffe0u, 0, 0});
  CHECK(out[1] == std::vector<uint32_t>{0, 0x3ffffffeu, 0, 0});
  CHECK(out[2] == std::vector<uint32_t>{0, 0xfffffffeu, 0, 0xffffffffu});
  CHECK(out[3][0] == 0x3f800000u);
  float f[3];
  std::memcpy(f, out[4].data(), sizeof f);
  CHECK(f[0] == Approx(0.4769362762f).epsilon(1e-6));
  CHECK(f[1] == Approx(-1.1630871537f).epsilon(1e-6));
  CHECK(std::isinf(f[2]));
}
