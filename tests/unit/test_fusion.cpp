// Loop fusion of per-device programs (spmd/fusion) and its lowering (exec/lower_fusion):
// which ops end up in which group, and that a fused program computes what the unfused one
// and a plain C++ reference compute.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <numeric>

#include "exec/array.hpp"
#include "exec/lower_fusion.hpp"
#include "exec/program.hpp"
#include "runtime/device_runtime.hpp"
#include "spmd/fusion.hpp"
#include "spmd/pipeline.hpp"
#include "test_program_util.hpp"

using namespace shard;
using ir::EwOp;
using ir::OpKind;
using types::DType;

namespace {

ir::ArrayType T(DType d, types::Shape s) { return ir::ArrayType(d, std::move(s)); }

ir::ValueId ew(ir::Function& f, EwOp e, std::vector<ir::ValueId> operands, DType dt = DType::F32) {
  ir::attr::Elementwise a;
  a.op = e;
  auto shape = f.type(operands[0]).shape();
  return testing::op1(f, OpKind::Elementwise, std::move(operands), T(dt, shape), a);
}
template <class V>
ir::ValueId constant(ir::Function& f, DType dt, V value) {
  auto lit = std::make_shared<ir::Literal>();
  lit->bytes.resize(sizeof(V));
  std::memcpy(lit->bytes.data(), &value, sizeof(V));
  ir::attr::Constant a;
  a.literal = lit;
  return testing::op1(f, OpKind::Constant, {}, T(dt, {}), a);
}
ir::ValueId broadcast(ir::Function& f, ir::ValueId x, types::Shape shape, std::vector<int64_t> dims) {
  ir::attr::BroadcastInDim a;
  a.broadcast_dimensions = std::move(dims);
  return testing::op1(f, OpKind::BroadcastInDim, {x}, T(f.type(x).dtype(), std::move(shape)), a);
}

int count(const ir::Function& f, OpKind k) {
  int n = 0;
  for (auto& op : f.ops) n += op.kind == k;
  return n;
}
int count_ew(const ir::Function& f, EwOp e) {
  int n = 0;
  for (auto& op : f.ops) n += op.kind == OpKind::Elementwise && op.attr<ir::attr::Elementwise>().op == e;
  return n;
}
const ir::Op& only(const ir::Function& f, OpKind k) {
  REQUIRE(count(f, k) == 1);
  for (auto& op : f.ops)
    if (op.kind == k) return op;
  throw std::logic_error("unreachable");
}

ir::Function fused(ir::Function f) {
  spmd::run_device_passes(f);  // fuses
  const auto problems = ir::verify(f);
  INFO(ir::print(f));
  REQUIRE(problems.empty());
  return f;
}

// Runs `f` on device 0 with float inputs; returns every result as floats.
std::vector<std::vector<float>> run(const ir::Function& f, const std::vector<std::vector<float>>& inputs) {
  exec::Executable exe(f, exec::single_device_mesh(0));
  exe.compile_kernels(exec::kernel_jit());
  std::vector<std::vector<runtime::BufferRef>> in;
  for (auto& v : inputs) {
    auto b = runtime::DeviceBuffer::allocate(0, v.size() * 4);
    std::memcpy(b->data(), v.data(), v.size() * 4);
    in.push_back({b});
  }
  auto out = exe.run(in);
  std::vector<std::vector<float>> res;
  for (size_t r = 0; r < out.size(); ++r) {
    std::vector<float> v(static_cast<size_t>(f.type(f.results[r]).num_elements()));
    std::memcpy(v.data(), out[r][0]->data(), v.size() * 4);
    res.push_back(v);
  }
  return res;
}

std::vector<float> ramp(size_t n, float start, float step) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + step * static_cast<float>(i);
  return v;
}

// sin(a) + b * 2 as jnp traces it: the scalar is an int32 constant converted and broadcast.
ir::Function sin_add(int64_t n, int32_t k = 2) {
  ir::Function f;
  f.name = "sin_add";
  auto a = f.new_value(T(DType::F32, {n}));
  auto b = f.new_value(T(DType::F32, {n}));
  f.params = {a, b};
  auto s = ew(f, EwOp::Sin, {a});
  auto two = constant(f, DType::I32, k);
  ir::attr::Elementwise cv;
  cv.op = EwOp::Convert;
  auto twof = testing::op1(f, OpKind::Elementwise, {two}, T(DType::F32, {}), cv);
  auto m = ew(f, EwOp::Mul, {b, broadcast(f, twof, {n}, {})});
  f.results = {ew(f, EwOp::Add, {s, m})};
  return f;
}

}  // namespace

TEST_CASE("sin(a) + b * 2 becomes one fusion over a and b", "[fusion]") {
  auto f = fused(sin_add(1000));
  INFO(ir::print(f));
  REQUIRE(f.ops.size() == 1);
  const auto& op = only(f, OpKind::Fusion);
  CHECK(op.operands == f.params);
  CHECK(op.results == f.results);
  const auto& region = *op.regions.at(0);
  CHECK(region.ops.size() == 6);  // sin, constant, convert, broadcast, mul, add
  CHECK(count_ew(region, EwOp::Sin) == 1);
  CHECK(count(region, OpKind::Constant) == 1);

  auto a = ramp(1000, -3.0f, 0.01f), b = ramp(1000, 1.0f, 0.5f);
  auto got = run(f, {a, b})[0];
  auto unfused = run(sin_add(1000), {a, b})[0];
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(got[i] == Approx(std::sin(a[i]) + b[i] * 2.0f).epsilon(1e-6));
    CHECK(got[i] == unfused[i]);  // the same scalar code, one loop instead of five
  }
}

TEST_CASE("constants are read from their literal: programs differing in one share a kernel", "[fusion]") {
  auto a = ramp(100, 0.0f, 0.01f), b = ramp(100, 1.0f, 1.0f);
  auto two = fused(sin_add(100, 2)), three = fused(sin_add(100, 3));
  auto k2 = exec::build_fused_kernel(*two.ops[0].regions[0]).kernel.signature();
  auto k3 = exec::build_fused_kernel(*three.ops[0].regions[0]).kernel.signature();
  CHECK(k2 == k3);
  auto r2 = run(two, {a, b})[0], r3 = run(three, {a, b})[0];
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(r2[i] == Approx(std::sin(a[i]) + b[i] * 2.0f).epsilon(1e-6));
    CHECK(r3[i] == Approx(std::sin(a[i]) + b[i] * 3.0f).epsilon(1e-6));
  }
}

TEST_CASE("an intermediate read twice inside a group is computed once", "[fusion]") {
  // y = sin(a); z = y * y + y
  ir::Function f;
  auto a = f.new_value(T(DType::F32, {64}));
  f.params = {a};
  auto y = ew(f, EwOp::Sin, {a});
  auto z = ew(f, EwOp::Add, {ew(f, EwOp::Mul, {y, y}), y});
  f.results = {z};
  auto g = fused(f);
  INFO(ir::print(g));
  REQUIRE(g.ops.size() == 1);
  const auto& region = *only(g, OpKind::Fusion).regions[0];
  CHECK(count_ew(region, EwOp::Sin) == 1);
  auto in = ramp(64, -2.0f, 0.07f);
  auto got = run(g, {in})[0];
  for (size_t i = 0; i < in.size(); ++i) {
    const float s = std::sin(in[i]);
    CHECK(got[i] == Approx(s * s + s).epsilon(1e-6).margin(1e-6));
  }
}

TEST_CASE("an intermediate used outside the group stays materialised, not duplicated", "[fusion]") {
  // y = sin(a) is a program result and feeds exp(y) + b: the group reads y, never recomputes it.
  ir::Function f;
  auto a = f.new_value(T(DType::F32, {32}));
  auto b = f.new_value(T(DType::F32, {32}));
  f.params = {a, b};
  auto y = ew(f, EwOp::Sin, {a});
  auto z = ew(f, EwOp::Add, {ew(f, EwOp::Exp, {y}), b});
  f.results = {z, y};
  auto g = fused(f);
  INFO(ir::print(g));
  REQUIRE(g.ops.size() == 2);
  CHECK(count_ew(g, EwOp::Sin) == 1);
  const auto& op = only(g, OpKind::Fusion);
  CHECK(count_ew(*op.regions[0], EwOp::Sin) == 0);
  CHECK(op.operands == std::vector<ir::ValueId>{y, b});
  auto av = ramp(32, -1.0f, 0.1f), bv = ramp(32, 0.0f, 1.0f);
  auto got = run(g, {av, bv});
  for (size_t i = 0; i < av.size(); ++i) {
    CHECK(got[1][i] == Approx(std::sin(av[i])));
    CHECK(got[0][i] == Approx(std::exp(std::sin(av[i])) + bv[i]).epsilon(1e-6));
  }
}

TEST_CASE("a reduction also returned splits groups; its broadcast result is read with stride 0", "[fusion]") {
  // s = reduce_sum(exp(a) * b) over dim 1; out = broadcast(s) * c + 1; both returned, so no
  // row fusion (it has one result): the elementwise groups end at the reduction.
  ir::Function f;
  auto a = f.new_value(T(DType::F32, {4, 8}));
  auto b = f.new_value(T(DType::F32, {4, 8}));
  auto c = f.new_value(T(DType::F32, {4, 8}));
  f.params = {a, b, c};
  auto p = ew(f, EwOp::Mul, {ew(f, EwOp::Exp, {a}), b});
  ir::attr::Reduce red;
  red.kind = ir::ReduceKind::Sum;
  red.axes = {1};
  auto s = testing::op1(f, OpKind::Reduce, {p}, T(DType::F32, {4}), red);
  auto one = broadcast(f, constant(f, DType::F32, 1.0f), {4, 8}, {});
  auto out = ew(f, EwOp::Add, {ew(f, EwOp::Mul, {broadcast(f, s, {4, 8}, {0}), c}), one});
  f.results = {out, s};
  auto g = fused(f);
  INFO(ir::print(g));
  REQUIRE(g.ops.size() == 3);
  CHECK(g.ops[0].kind == OpKind::Fusion);
  CHECK(g.ops[1].kind == OpKind::Reduce);
  CHECK(g.ops[2].kind == OpKind::Fusion);
  CHECK(g.ops[2].operands == std::vector<ir::ValueId>{s, c});

  auto av = ramp(32, -1.0f, 0.05f), bv = ramp(32, 2.0f, -0.1f), cv = ramp(32, 0.5f, 0.25f);
  auto got = run(g, {av, bv, cv})[0];
  auto unfused = run(f, {av, bv, cv})[0];
  CHECK(run(g, {av, bv, cv})[1] == run(f, {av, bv, cv})[1]);
  for (int i = 0; i < 4; ++i) {
    float sum = 0;
    for (int j = 0; j < 8; ++j) sum += std::exp(av[i * 8 + j]) * bv[i * 8 + j];
    for (int j = 0; j < 8; ++j) {
      CHECK(got[i * 8 + j] == Approx(sum * cv[i * 8 + j] + 1.0f).epsilon(1e-5));
      CHECK(got[i * 8 + j] == unfused[i * 8 + j]);
    }
  }
}

TEST_CASE("softmax over rows is one row fusion: one pass, NaN rows and odd row lengths", "[fusion]") {
  // e = exp(a - broadcast(max(a, 1))); out = e / broadcast(sum(e, 1)), as jnp traces it with
  // keepdims (a reshape to [R, 1] before each broadcast).
  for (int64_t cols : {1, 7, 37, 300}) {
    const int64_t rows = 5;
    ir::Function f;
    auto a = f.new_value(T(DType::F32, {rows, cols}));
    f.params = {a};
    auto reduce = [&](ir::ValueId x, ir::ReduceKind kind) {
      ir::attr::Reduce red;
      red.kind = kind;
      red.axes = {1};
      auto r = testing::op1(f, OpKind::Reduce, {x}, T(DType::F32, {rows}), red);
      auto keep = testing::op1(f, OpKind::Reshape, {r}, T(DType::F32, {rows, 1}));
      return broadcast(f, keep, {rows, cols}, {0, 1});
    };
    auto e = ew(f, EwOp::Exp, {ew(f, EwOp::Sub, {a, reduce(a, ir::ReduceKind::Max)})});
    f.results = {ew(f, EwOp::Div, {e, reduce(e, ir::ReduceKind::Sum)})};
    auto g = fused(f);
    INFO(ir::print(g));
    REQUIRE(g.ops.size() == 1);
    CHECK(g.ops[0].kind == OpKind::Fusion);
    CHECK(count(*g.ops[0].regions[0], OpKind::Reduce) == 2);
    auto av = ramp(static_cast<size_t>(rows * cols), -3.0f, 0.37f);
    av[static_cast<size_t>(2 * cols)] = std::nanf("");  // row 2 is all NaN after the max
    auto got = run(g, {av})[0];
    for (int64_t r = 0; r < rows; ++r) {
      float m = -INFINITY;
      for (int64_t c = 0; c < cols; ++c) m = std::max(m, av[r * cols + c]);
      double sum = 0;
      for (int64_t c = 0; c < cols; ++c) sum += std::exp(av[r * cols + c] - m);
      for (int64_t c = 0; c < cols; ++c) {
        INFO("row " << r << " col " << c);
        if (r == 2) CHECK(std::isnan(got[r * cols + c]));
        else CHECK(got[r * cols + c] == Approx(std::exp(av[r * cols + c] - m) / sum).epsilon(1e-5).margin(1e-12));
      }
    }
  }
}

TEST_CASE("a reduction of a computed value fuses with its producer; reductions of every kind", "[fusion]") {
  // any / all / max / min / prod / sum of (a * 2 > c) or of a * 2, per row of [6, 45].
  const int64_t rows = 6, cols = 45;
  auto av = ramp(rows * cols, -2.0f, 0.011f);
  for (auto kind : {ir::ReduceKind::Sum, ir::ReduceKind::Max, ir::ReduceKind::Min, ir::ReduceKind::Prod, ir::ReduceKind::And,
                    ir::ReduceKind::Or}) {
    const bool logical = kind == ir::ReduceKind::And || kind == ir::ReduceKind::Or;
    ir::Function f;
    auto a = f.new_value(T(DType::F32, {rows, cols}));
    f.params = {a};
    auto twice = ew(f, EwOp::Mul, {a, broadcast(f, constant(f, DType::F32, 2.0f), {rows, cols}, {})});
    auto x = logical ? ew(f, EwOp::Gt, {twice, broadcast(f, constant(f, DType::F32, -1.5f), {rows, cols}, {})}, DType::Bool) : twice;
    ir::attr::Reduce red;
    red.kind = kind;
    red.axes = {1};
    auto r = testing::op1(f, OpKind::Reduce, {x}, T(logical ? DType::Bool : DType::F32, {rows}), red);
    ir::attr::Elementwise cv;
    cv.op = EwOp::Convert;
    f.results = {logical ? testing::op1(f, OpKind::Elementwise, {r}, T(DType::F32, {rows}), cv) : r};
    auto g = fused(f);
    INFO(ir::print(g));
    CHECK(count(g, OpKind::Fusion) == 1);
    CHECK(count(g, OpKind::Reduce) == 0);
    auto got = run(g, {av})[0], want = run(f, {av})[0];
    for (int64_t i = 0; i < rows; ++i) CHECK(got[i] == Approx(want[i]).epsilon(1e-5));
  }
}

TEST_CASE("reductions over leading dims fuse too: variance down the columns, any of a compare", "[fusion]") {
  // m = sum(a, 0) / n; v = sum((a - m)^2, 0) / n over f32[n, cols] (cols over one block of
  // the column kernel, with a partial block; the variance's tiled pass over one tile, and
  // over several with a partial one); and any(a > 0.7, 0) as float.
  for (auto [n, cols] : {std::pair<int64_t, int64_t>{37, 3}, {37, 600}, {300, 600}}) {
    INFO("n " << n << " cols " << cols);
    ir::Function f;
    auto a = f.new_value(T(DType::F32, {n, cols}));
    f.params = {a};
    auto column_sum = [&](ir::ValueId x) {
      ir::attr::Reduce red;
      red.kind = ir::ReduceKind::Sum;
      red.axes = {0};
      auto s = testing::op1(f, OpKind::Reduce, {x}, T(DType::F32, {cols}), red);
      return ew(f, EwOp::Div, {s, broadcast(f, constant(f, DType::F32, float(n)), {cols}, {})});
    };
    auto m = column_sum(a);
    auto d = ew(f, EwOp::Sub, {a, broadcast(f, m, {n, cols}, {1})});
    auto var = column_sum(ew(f, EwOp::Mul, {d, d}));
    ir::attr::Reduce any;
    any.kind = ir::ReduceKind::Or;
    any.axes = {0};
    auto big = ew(f, EwOp::Gt, {a, broadcast(f, constant(f, DType::F32, 0.7f), {n, cols}, {})}, DType::Bool);
    auto r = testing::op1(f, OpKind::Reduce, {big}, T(DType::Bool, {cols}), any);
    ir::attr::Elementwise cv;
    cv.op = EwOp::Convert;
    auto anyf = testing::op1(f, OpKind::Elementwise, {r}, T(DType::F32, {cols}), cv);
    f.results = {var, anyf};
    auto g = fused(f);
    INFO(ir::print(g));
    CHECK(count(g, OpKind::Fusion) == 2);
    CHECK(count(g, OpKind::Reduce) == 0);
    auto av = ramp(static_cast<size_t>(n * cols), -1.0f, 0.0013f);
    auto got = run(g, {av}), want = run(f, {av});
    for (int64_t c = 0; c < cols; ++c) {
      CHECK(got[0][c] == Approx(want[0][c]).epsilon(1e-5).margin(1e-7));
      CHECK(got[1][c] == want[1][c]);
    }
  }
}

TEST_CASE("a variance over a sharded dim: its sums become one three-result fusion (spmd/moments)", "[fusion]") {
  // Per device, as the partitioner emits jnp.var(a, 0) of rows sharded over 'dp':
  // s = sum(a, 0); m = psum(s) / N; q = sum((a - m)^2, 0); psum(q) / N.
  for (bool keepdims : {false, true}) {
    const int64_t n = 64, cols = 24, total = 128;
    ir::Function f;
    auto a = f.new_value(T(DType::F32, {n, cols}));
    f.params = {a};
    ir::attr::Reduce red;
    red.kind = ir::ReduceKind::Sum;
    red.axes = {0};
    ir::attr::AllReduce psum;
    psum.axes = {"dp"};
    auto mean = [&](ir::ValueId x) {
      auto s = testing::op1(f, OpKind::Reduce, {x}, T(DType::F32, {cols}), red);
      auto p = testing::op1(f, OpKind::AllReduce, {s}, T(DType::F32, {cols}), psum);
      return ew(f, EwOp::Div, {p, broadcast(f, constant(f, DType::F32, float(total)), {cols}, {})});
    };
    auto m = mean(a);
    auto spread = keepdims ? broadcast(f, testing::op1(f, OpKind::Reshape, {m}, T(DType::F32, {1, cols})), {n, cols}, {0, 1})
                           : broadcast(f, m, {n, cols}, {1});
    auto d = ew(f, EwOp::Sub, {a, spread});
    f.results = {mean(ew(f, EwOp::Mul, {d, d}))};
    auto g = fused(f);
    INFO(ir::print(g));
    int three = 0, top_reductions = 0;
    for (const auto& o : g.ops) {
      top_reductions += o.kind == OpKind::Reduce;
      if (o.kind == OpKind::Fusion && o.results.size() == 3) {
        ++three;
        CHECK(o.operands == std::vector<ir::ValueId>{a});
        CHECK(count(*o.regions[0], OpKind::Reduce) == 3);
      }
    }
    CHECK(three == 1);
    CHECK(top_reductions == 0);
    CHECK(count(g, OpKind::AllReduce) == 2);
  }
}

TEST_CASE("transpose, slice, rev and reshape of inputs fuse as strided reads", "[fusion]") {
  // a:[3,4], b:[12], c:[4]: out[i,j] = rev0(transpose(a))[i,j] * reshape(b)[i,j]... over [4,3]
  //   t = transpose(a) [4,3]; r = rev(t, dim 0); bb = reshape(b) [4,3];
  //   s = slice(c2, stride 2) where c2:[8] -> [4], broadcast along dim 1
  //   out = r * bb - broadcast(s)
  ir::Function f;
  auto a = f.new_value(T(DType::F32, {3, 4}));
  auto b = f.new_value(T(DType::F32, {12}));
  auto c = f.new_value(T(DType::F32, {8}));
  f.params = {a, b, c};
  ir::attr::Transpose perm;
  perm.permutation = {1, 0};
  auto t = testing::op1(f, OpKind::Transpose, {a}, T(DType::F32, {4, 3}), perm);
  ir::attr::Rev rv;
  rv.dimensions = {0};
  auto r = testing::op1(f, OpKind::Rev, {t}, T(DType::F32, {4, 3}), rv);
  auto bb = testing::op1(f, OpKind::Reshape, {b}, T(DType::F32, {4, 3}));
  ir::attr::Slice sl;
  sl.start_indices = {1};
  sl.limit_indices = {8};
  sl.strides = {2};
  auto s = testing::op1(f, OpKind::Slice, {c}, T(DType::F32, {4}), sl);
  auto out = ew(f, EwOp::Sub, {ew(f, EwOp::Mul, {r, bb}), broadcast(f, s, {4, 3}, {0})});
  f.results = {out};
  auto g = fused(f);
  INFO(ir::print(g));
  REQUIRE(g.ops.size() == 1);
  CHECK(only(g, OpKind::Fusion).operands == f.params);

  auto av = ramp(12, 0.0f, 1.0f), bv = ramp(12, 1.0f, 0.5f), cv = ramp(8, 10.0f, 10.0f);
  auto got = run(g, {av, bv, cv})[0];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) {
      const float rij = av[j * 4 + (3 - i)];  // transpose then reverse dim 0
      CHECK(got[i * 3 + j] == rij * bv[i * 3 + j] - cv[1 + 2 * i]);
    }
}

TEST_CASE("a view also read by a non-fusible op stays; a reshape reads a computed value as a buffer", "[fusion]") {
  ir::Function f;
  auto a = f.new_value(T(DType::F32, {2, 3}));
  auto w = f.new_value(T(DType::F32, {3}));
  f.params = {a, w};
  auto wb = broadcast(f, w, {2, 3}, {1});
  auto e = ew(f, EwOp::Exp, {ew(f, EwOp::Add, {a, wb})});  // fusion: add, exp, broadcast copy
  ir::attr::DotGeneral dot;                                            // and wb itself is read by a dot
  dot.lhs_contracting = {1};
  dot.rhs_contracting = {1};
  auto d = testing::op1(f, OpKind::DotGeneral, {a, wb}, T(DType::F32, {2, 2}), dot);
  auto flat = testing::op1(f, OpKind::Reshape, {e}, T(DType::F32, {6}));
  auto n = ew(f, EwOp::Neg, {flat});
  f.results = {d, n};
  auto g = fused(f);
  INFO(ir::print(g));
  CHECK(count(g, OpKind::BroadcastInDim) == 1);  // still materialised for the dot
  // {broadcast copy, add, exp} and {reshape, neg}: the reshape reads exp's result as a buffer.
  REQUIRE(count(g, OpKind::Fusion) == 2);
  CHECK(count(g, OpKind::Reshape) == 0);
  const auto& second = g.ops.back();
  REQUIRE(second.kind == OpKind::Fusion);
  CHECK(second.operands == std::vector<ir::ValueId>{e});
  CHECK(count_ew(*second.regions[0], EwOp::Exp) == 0);
  auto av = ramp(6, -1.0f, 0.3f), wv = ramp(3, 0.5f, 0.5f);
  auto got = run(g, {av, wv});
  auto ref = run(f, {av, wv});
  CHECK(got[0] == ref[0]);
  CHECK(got[1] == ref[1]);
  for (int i = 0; i < 6; ++i) CHECK(got[1][i] == Approx(-std::exp(av[i] + wv[i % 3])));
}

TEST_CASE("fusion runs inside control-flow bodies", "[fusion]") {
  // cond(index, x) with branches sin(x) * 2 and x + 1
  ir::Function f;
  auto idx = f.new_value(T(DType::I32, {}));
  auto x = f.new_value(T(DType::F32, {16}));
  f.params = {idx, x};
  auto branch = [](bool first) {
    auto r = std::make_shared<ir::Function>();
    auto p = r->new_value(T(DType::F32, {16}));
    r->params = {p};
    auto k = broadcast(*r, constant(*r, DType::F32, first ? 2.0f : 1.0f), {16}, {});
    r->results = {first ? ew(*r, EwOp::Mul, {ew(*r, EwOp::Sin, {p}), k}) : ew(*r, EwOp::Add, {p, k})};
    return r;
  };
  auto cond = ir::Builder(f).op_multi(OpKind::Cond, {idx, x}, {T(DType::F32, {16})}, {}, {branch(true), branch(false)});
  f.results = {cond[0]};
  auto g = fused(f);
  INFO(ir::print(g));
  const auto& c = only(g, OpKind::Cond);
  for (auto& r : c.regions) {
    CHECK(r->ops.size() == 1);
    CHECK(r->ops[0].kind == OpKind::Fusion);
  }
  auto xv = ramp(16, -1.0f, 0.2f);
  for (int32_t which : {0, 1}) {
    exec::Executable exe(g, exec::single_device_mesh(0));
    exe.compile_kernels(exec::kernel_jit());
    auto ib = runtime::DeviceBuffer::allocate(0, 4);
    std::memcpy(ib->data(), &which, 4);
    auto xb = runtime::DeviceBuffer::allocate(0, 64);
    std::memcpy(xb->data(), xv.data(), 64);
    auto out = exe.run({{ib}, {xb}});
    std::vector<float> got(16);
    std::memcpy(got.data(), out[0][0]->data(), 64);
    for (int i = 0; i < 16; ++i) CHECK(got[i] == Approx(which == 0 ? std::sin(xv[i]) * 2 : xv[i] + 1));
  }
}

TEST_CASE("single ops and empty arrays", "[fusion]") {
  // One op alone is left alone; a zero-element fusion runs no loop.
  ir::Function f;
  auto a = f.new_value(T(DType::F32, {0, 3}));
  f.params = {a};
  f.results = {ew(f, EwOp::Sin, {a})};
  CHECK(fused(f).ops[0].kind == OpKind::Elementwise);
  f.results = {ew(f, EwOp::Cos, {f.results[0]})};
  auto g = fused(f);
  REQUIRE(g.ops.size() == 1);
  CHECK(g.ops[0].kind == OpKind::Fusion);
  CHECK(run(g, {{}})[0].empty());
}

TEST_CASE("random programs compute the same fused and unfused", "[fusion]") {
  // Random DAGs over f32[4,4] mixing elementwise ops, views (transpose, rev, a row slice
  // broadcast back, a reshape round trip), scalar constants and a reduction, with some
  // intermediates returned: the fused program must give bit-identical results.
  const types::Shape sq = {4, 4};
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    uint32_t state = seed * 2654435761u;
    auto rnd = [&](uint32_t n) {
      state = state * 1664525u + 1013904223u;
      return (state >> 8) % n;
    };
    ir::Function f;
    std::vector<ir::ValueId> vals;
    for (int p = 0; p < 3; ++p) vals.push_back(f.new_value(T(DType::F32, sq)));
    f.params = vals;
    auto pick = [&] { return vals[vals.size() - 1 - rnd(std::min<uint32_t>(4, static_cast<uint32_t>(vals.size())))]; };
    for (int step = 0; step < 12; ++step) {
      ir::ValueId v = pick();
      switch (rnd(9)) {
        case 0: v = ew(f, rnd(2) ? EwOp::Sin : EwOp::Tanh, {v}); break;
        case 1: v = ew(f, EwOp::Add, {v, pick()}); break;
        case 2: v = ew(f, EwOp::Mul, {v, pick()}); break;
        case 3: v = ew(f, EwOp::Max, {v, pick()}); break;
        case 4: {
          ir::attr::Transpose a;
          a.permutation = {1, 0};
          v = testing::op1(f, OpKind::Transpose, {v}, T(DType::F32, sq), a);
          break;
        }
        case 5: {
          ir::attr::Rev a;
          a.dimensions = {static_cast<int64_t>(rnd(2))};
          v = testing::op1(f, OpKind::Rev, {v}, T(DType::F32, sq), a);
          break;
        }
        case 6: {  // row r as [1,4], broadcast back over the rows
          ir::attr::Slice a;
          const int64_t r = rnd(4);
          a.start_indices = {r, 0};
          a.limit_indices = {r + 1, 4};
          auto row = testing::op1(f, OpKind::Slice, {v}, T(DType::F32, {1, 4}), a);
          v = broadcast(f, row, sq, {0, 1});
          break;
        }
        case 7: {
          auto flat = testing::op1(f, OpKind::Reshape, {v}, T(DType::F32, {16}));
          v = testing::op1(f, OpKind::Reshape, {ew(f, EwOp::Neg, {flat})}, T(DType::F32, sq));
          break;
        }
        default: {  // a scalar: a constant, or a reduction of v, times v
          ir::ValueId s;
          if (rnd(2)) {
            s = constant(f, DType::F32, 0.5f + static_cast<float>(rnd(4)));
          } else {
            ir::attr::Reduce red;
            red.kind = ir::ReduceKind::Max;
            red.axes = {0, 1};
            s = ew(f, EwOp::Cos, {testing::op1(f, OpKind::Reduce, {v}, T(DType::F32, {}), red)});
          }
          v = ew(f, EwOp::Mul, {broadcast(f, s, sq, {}), v});
          break;
        }
      }
      vals.push_back(v);
    }
    f.results = {vals.back()};
    if (rnd(2)) f.results.push_back(vals[vals.size() / 2]);
    INFO("seed " << seed << "\n" << ir::print(f));
    auto g = fused(f);
    INFO(ir::print(g));
    CHECK(g.ops.size() <= f.ops.size());
    std::vector<std::vector<float>> in = {ramp(16, -1.0f, 0.13f), ramp(16, 2.0f, -0.21f), ramp(16, 0.3f, 0.05f)};
    // Equal up to rounding: a fused loop may vectorise where the unfused one did not (or
    // the reverse), and the vector and scalar sin/tanh differ in the last bits.
    auto got = run(g, in), want = run(f, in);
    REQUIRE(got.size() == want.size());
    for (size_t r = 0; r < got.size(); ++r)
      for (size_t i = 0; i < got[r].size(); ++i) CHECK(got[r][i] == Approx(want[r][i]).epsilon(1e-5).margin(1e-6));
  }
}
