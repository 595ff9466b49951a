// Compiled control flow: LoopKernels built by hand (codegen), and per-device programs whose
// while / scan / cond become one compiled step (exec), with the collectives' exception.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <vector>

#include "codegen/loop_kernel.hpp"
#include "codegen/loop_storage.hpp"
#include "exec/array.hpp"
#include "exec/lower_control_kernel.hpp"
#include "exec/program.hpp"
#include "jit/kernel_jit.hpp"
#include "test_program_util.hpp"

using namespace shard;
using namespace shard::codegen;
using ir::OpKind;
using types::DType;

namespace {

jit::KernelJit& test_jit() {
  static jit::KernelJit jit;
  return jit;
}

// out = in * a + b on a scalar or array of `shape`, as an elementwise kernel.
ElementwiseKernel affine(DType t, std::vector<int64_t> shape, double a, double b) {
  ElementwiseKernel k;
  k.shape = shape;
  k.inputs = {{t, std::vector<int64_t>(shape.size(), 1), 0}};
  k.nodes = {{EwOp::Input, t, {}, 0}, {EwOp::Const, t, {}, -1, a}, {EwOp::Mul, t, {0, 1}},
             {EwOp::Const, t, {}, -1, b}, {EwOp::Add, t, {2, 3}}};
  k.outputs = {4};
  return k;
}

LoopStmt ew(ElementwiseKernel k, std::vector<int> in, int out) {
  LoopStmt s;
  s.kind = LoopStmt::Kind::Elementwise;
  s.ew = std::move(k);
  s.in = std::move(in);
  s.out = {out};
  return s;
}

LoopCarry carry(LoopKernel& k, int init, int64_t bytes, bool in_place = false) {
  LoopCarry c;
  c.cur = k.add_var({LoopVar::Kind::Bound});
  c.spare = k.add_var({LoopVar::Kind::Bound});
  c.a = k.add_var({LoopVar::Kind::Local, -1, bytes});
  if (!in_place) c.b = k.add_var({LoopVar::Kind::Local, -1, bytes});
  c.in_place = in_place;
  c.init = init;
  c.bytes = bytes;
  return c;
}

LoopStmt copy(int dst, int src, int64_t bytes) {
  LoopStmt s;
  s.kind = LoopStmt::Kind::Copy;
  s.in = {src};
  s.out = {dst};
  s.bytes = bytes;
  return s;
}

ir::ArrayType T(DType d, types::Shape s) { return ir::ArrayType(d, std::move(s)); }

}  // namespace

TEST_CASE("a scalar scan carry stays in registers and matches the C loop bit for bit", "[loop_kernel]") {
  // c = c * 0.999 + 1, 1000 times, from the input; out = c.
  LoopKernel k;
  k.num_inputs = k.num_outputs = 1;
  const int in = k.add_var({LoopVar::Kind::Input, 0});
  const int out = k.add_var({LoopVar::Kind::Output, 0, 4});
  LoopStmt scan;
  scan.kind = LoopStmt::Kind::Scan;
  scan.length = 1000;
  scan.carries = {carry(k, in, 4)};
  scan.blocks = {{ew(affine(DType::F32, {}, 0.999, 1), {scan.carries[0].cur}, scan.carries[0].spare)}};
  const int cur = scan.carries[0].cur;
  k.body = {scan, copy(out, cur, 4)};
  CHECK(k.scratch_bytes() == 0);  // 4-byte buffers live on the stack

  auto fn = compile_loop_kernel(test_jit(), k);
  float x = 3, result = 0;
  const void* ins[] = {&x};
  void* outs[] = {&result};
  fn(ins, outs, nullptr);
  float ref = 3;
  for (int i = 0; i < 1000; ++i) ref = ref * 0.999f + 1.0f;
  CHECK(result == ref);
}

TEST_CASE("a while loop over a large carry swaps its buffers; zero trips return the input", "[loop_kernel]") {
  // (i, x[256]) -> (i + 1, x * 2 + 1) while i < limit (an input). x lives in scratch.
  LoopKernel k;
  k.num_inputs = 3;
  k.num_outputs = 1;
  const int i0 = k.add_var({LoopVar::Kind::Input, 0});
  const int x0 = k.add_var({LoopVar::Kind::Input, 1});
  const int limit = k.add_var({LoopVar::Kind::Input, 2});
  const int out = k.add_var({LoopVar::Kind::Output, 0, 1024});
  LoopStmt w;
  w.kind = LoopStmt::Kind::While;
  w.carries = {carry(k, i0, 4), carry(k, x0, 1024)};
  const int go = k.add_var({LoopVar::Kind::Local, -1, 1});
  ElementwiseKernel less;
  less.inputs = {{DType::I32, {}, 0}, {DType::I32, {}, 0}};
  less.nodes = {{EwOp::Input, DType::I32, {}, 0}, {EwOp::Input, DType::I32, {}, 1}, {EwOp::Lt, DType::Bool, {0, 1}}};
  less.outputs = {2};
  w.cond = go;
  w.blocks = {{ew(less, {w.carries[0].cur, limit}, go)},
              {ew(affine(DType::I32, {}, 1, 1), {w.carries[0].cur}, w.carries[0].spare),
               ew(affine(DType::F32, {256}, 2, 1), {w.carries[1].cur}, w.carries[1].spare)}};
  const int x_final = w.carries[1].cur;
  k.body = {w, copy(out, x_final, 1024)};
  CHECK(k.scratch_bytes() == 2048);

  auto fn = compile_loop_kernel(test_jit(), k);
  std::vector<float> x(256), result(256);
  std::iota(x.begin(), x.end(), 0.0f);
  std::vector<uint8_t> scratch(static_cast<size_t>(k.scratch_bytes()) + 64);
  void* aligned = scratch.data() + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
  for (int32_t trips : {0, 1, 5}) {
    int32_t start = 0;
    const void* ins[] = {&start, x.data(), &trips};
    void* outs[] = {result.data()};
    fn(ins, outs, aligned);
    for (int j = 0; j < 256; ++j) {
      float ref = x[j];
      for (int t = 0; t < trips; ++t) ref = ref * 2 + 1;
      REQUIRE(result[j] == ref);
    }
  }
}

TEST_CASE("cond clamps its index into the branches", "[loop_kernel]") {
  LoopKernel k;
  k.num_inputs = 2;
  k.num_outputs = 1;
  const int index = k.add_var({LoopVar::Kind::Input, 0});
  const int x = k.add_var({LoopVar::Kind::Input, 1});
  const int out = k.add_var({LoopVar::Kind::Output, 0, 4});
  LoopStmt c;
  c.kind = LoopStmt::Kind::Cond;
  c.cond = index;
  c.blocks = {{ew(affine(DType::F32, {}, 1, 10), {x}, out)}, {ew(affine(DType::F32, {}, 1, 20), {x}, out)},
              {ew(affine(DType::F32, {}, -1, 0), {x}, out)}};
  k.body = {c};
  auto fn = compile_loop_kernel(test_jit(), k);
  auto run = [&](int32_t i) {
    float v = 1, r = 0;
    const void* ins[] = {&i, &v};
    void* outs[] = {&r};
    fn(ins, outs, nullptr);
    return r;
  };
  CHECK(run(-3) == 11);
  CHECK(run(0) == 11);
  CHECK(run(1) == 21);
  CHECK(run(2) == -1);
  CHECK(run(7) == -1);
}

TEST_CASE("signatures tell kernels apart by statements and baked constants", "[loop_kernel]") {
  auto make = [](uint8_t lit) {
    LoopKernel k;
    k.num_outputs = 1;
    LoopVar l{LoopVar::Kind::Literal};
    l.bytes = 1;
    l.literal = std::string(1, static_cast<char>(lit));
    const int v = k.add_var(l);
    const int out = k.add_var({LoopVar::Kind::Output, 0, 1});
    k.body = {copy(out, v, 1)};
    return k;
  };
  CHECK(make(1).signature() == make(1).signature());
  CHECK(make(1).signature() != make(2).signature());
}

namespace {

// while (i < n) { i += 1; x = x * 0.5 + 1 } over x: f32[64], with an optional psum in the body.
ir::Function while_program(bool with_psum) {
  auto cond = std::make_shared<ir::Function>();
  {
    auto n = cond->new_value(T(DType::I32, {}));
    auto i = cond->new_value(T(DType::I32, {}));
    auto x = cond->new_value(T(DType::F32, {64}));
    cond->params = {n, i, x};
    cond->results = {testing::op1(*cond, OpKind::Elementwise, {i, n}, T(DType::Bool, {}), testing::ew(ir::EwOp::Lt))};
  }
  auto body = std::make_shared<ir::Function>();
  {
    auto one = body->new_value(T(DType::I32, {}));
    auto half = body->new_value(T(DType::F32, {64}));
    auto i = body->new_value(T(DType::I32, {}));
    auto x = body->new_value(T(DType::F32, {64}));
    body->params = {one, half, i, x};
    auto i2 = testing::op1(*body, OpKind::Elementwise, {i, one}, T(DType::I32, {}), testing::ew(ir::EwOp::Add));
    auto x2 = testing::op1(*body, OpKind::Elementwise, {x, half}, T(DType::F32, {64}), testing::ew(ir::EwOp::Mul));
    auto x3 = testing::op1(*body, OpKind::Elementwise, {x2, half}, T(DType::F32, {64}), testing::ew(ir::EwOp::Add));
    if (with_psum) {
      ir::attr::AllReduce psum;
      psum.axes = {"x"};
      x3 = testing::op1(*body, OpKind::AllReduce, {x3}, T(DType::F32, {64}), psum);
    }
    body->results = {i2, x3};
  }
  ir::Function f;
  auto n = f.new_value(T(DType::I32, {}));
  auto one = f.new_value(T(DType::I32, {}));
  auto half = f.new_value(T(DType::F32, {64}));
  auto x = f.new_value(T(DType::F32, {64}));
  auto i0 = f.new_value(T(DType::I32, {}));
  f.params = {n, one, half, x, i0};
  auto i_out = f.new_value(T(DType::I32, {}));
  auto x_out = f.new_value(T(DType::F32, {64}));
  f.ops.push_back(ir::Op{OpKind::While, {n, one, half, i0, x}, {i_out, x_out}, ir::attr::While{1, 2}, {}, {cond, body}});
  f.results = {x_out};
  return f;
}

template <class T>
runtime::BufferRef buffer(const std::vector<T>& v) {
  auto b = runtime::DeviceBuffer::allocate(0, v.size() * sizeof(T));
  std::memcpy(b->data(), v.data(), v.size() * sizeof(T));
  return b;
}

}  // namespace

TEST_CASE("a while loop without collectives is one compiled step; with a psum it keeps the step loop", "[loop_kernel]") {
  CHECK(exec::can_compile_control_flow(while_program(false).ops[0], while_program(false)));
  CHECK_FALSE(exec::can_compile_control_flow(while_program(true).ops[0], while_program(true)));

  const ir::Function f = while_program(false);
  exec::Executable exe(f, exec::single_device_mesh(0));
  REQUIRE(exe.steps().size() == 1);
  CHECK(exe.steps()[0].name == "while");
  CHECK_FALSE(exe.steps()[0].run_region);  // no host loop
  exe.compile_kernels(exec::kernel_jit());

  std::vector<float> x(64);
  std::iota(x.begin(), x.end(), 0.0f);
  auto out = exe.run({{buffer<int32_t>({7})}, {buffer<int32_t>({1})}, {buffer(std::vector<float>(64, 0.5f))}, {buffer(x)},
                      {buffer<int32_t>({0})}});
  std::vector<float> got(64);
  std::memcpy(got.data(), out[0][0]->data(), 256);
  for (size_t j = 0; j < 64; ++j) {
    float ref = x[j];
    for (int t = 0; t < 7; ++t) ref = ref * 0.5f + 0.5f;
    CHECK(got[j] == ref);
  }
}

TEST_CASE("an in-place carry: a dynamic_update_slice writes only its block into the one buffer", "[loop_kernel]") {
  // scan of 6 steps over a [6, 100] f32 table (in scratch), step i writing row i = xs[i]:
  // rows come from the scanned xs, the start index from a carried counter.
  LoopKernel k;
  k.num_inputs = 3;
  k.num_outputs = 1;
  const int table0 = k.add_var({LoopVar::Kind::Input, 0});
  const int xs = k.add_var({LoopVar::Kind::Input, 1});
  const int i0 = k.add_var({LoopVar::Kind::Input, 2});
  const int out = k.add_var({LoopVar::Kind::Output, 0, 2400});
  const int zero = k.add_var({LoopVar::Kind::Literal, -1, 4, std::string(4, '\0')});
  LoopStmt scan;
  scan.kind = LoopStmt::Kind::Scan;
  scan.length = 6;
  scan.carries = {carry(k, table0, 2400, true), carry(k, i0, 4)};
  const int row = k.add_var({LoopVar::Kind::Bound});
  scan.xs = {{row, xs, 400}};
  LoopStmt update;
  update.kind = LoopStmt::Kind::DynamicUpdateSlice;
  update.shape = {6, 100};
  update.sizes = {1, 100};
  update.elem_bytes = 4;
  update.index_dtypes = {DType::I32, DType::I32};
  update.in = {scan.carries[0].cur, row, scan.carries[1].cur, zero};
  update.out = {scan.carries[0].spare};
  scan.blocks = {{update, ew(affine(DType::I32, {}, 1, 1), {scan.carries[1].cur}, scan.carries[1].spare)}};
  const int final_table = scan.carries[0].cur;
  k.body = {scan, copy(out, final_table, 2400)};
  CHECK(k.scratch_bytes() == 2432);  // one table buffer, not two

  auto fn = compile_loop_kernel(test_jit(), k);
  std::vector<float> table(600, -1.0f), rows(600), result(600);
  std::iota(rows.begin(), rows.end(), 0.0f);
  std::vector<uint8_t> scratch(static_cast<size_t>(k.scratch_bytes()) + 64);
  void* aligned = scratch.data() + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
  int32_t start = 0;
  const void* ins[] = {table.data(), rows.data(), &start};
  void* outs[] = {result.data()};
  fn(ins, outs, aligned);
  CHECK(result == rows);
  CHECK(table == std::vector<float>(600, -1.0f));  // the input is never written
}

TEST_CASE("scratch buffers that are never live together share bytes; loop-invariant ones stay whole", "[loop_kernel]") {
  // t1 = x*2+1; t2 = t1*2+1; t3 = t2*2+1 (each 4 KiB): t1 and t3 can share. Then a scan of 3
  // steps from c = t3: an iteration-local u = t2 + 0.5 (t2 read every iteration) stacked as
  // y, and c -> c*2+1.
  LoopKernel k;
  k.num_inputs = 1;
  k.num_outputs = 2;
  const int x = k.add_var({LoopVar::Kind::Input, 0});
  const int out = k.add_var({LoopVar::Kind::Output, 0, 4096});
  const int ys_out = k.add_var({LoopVar::Kind::Output, 1, 3 * 4096});
  const int t1 = k.add_var({LoopVar::Kind::Local, -1, 4096});
  const int t2 = k.add_var({LoopVar::Kind::Local, -1, 4096});
  const int t3 = k.add_var({LoopVar::Kind::Local, -1, 4096});
  k.body = {ew(affine(DType::F32, {1024}, 2, 1), {x}, t1), ew(affine(DType::F32, {1024}, 2, 1), {t1}, t2),
            ew(affine(DType::F32, {1024}, 2, 1), {t2}, t3)};
  LoopStmt scan;
  scan.kind = LoopStmt::Kind::Scan;
  scan.length = 3;
  scan.carries = {carry(k, t3, 4096)};
  const int u = k.add_var({LoopVar::Kind::Local, -1, 4096});
  const int y = k.add_var({LoopVar::Kind::Bound});
  scan.ys = {{y, ys_out, 4096}};
  scan.blocks = {{ew(affine(DType::F32, {1024}, 1, 0.5), {t2}, u),  // t2 is read every iteration
                  ew(affine(DType::F32, {1024}, 1, 0), {u}, y),
                  ew(affine(DType::F32, {1024}, 2, 1), {scan.carries[0].cur}, scan.carries[0].spare)}};
  const int c = scan.carries[0].cur;
  k.body.push_back(scan);
  k.body.push_back(copy(out, c, 4096));

  const LoopStorage storage = plan_loop_storage(k);
  auto overlaps = [&](int a, int b) {
    const int64_t oa = storage.scratch_offset[static_cast<size_t>(a)], ob = storage.scratch_offset[static_cast<size_t>(b)];
    return oa < ob + 4096 && ob < oa + 4096;
  };
  CHECK(overlaps(t1, t3));  // t1 is dead once t2 exists
  CHECK_FALSE(overlaps(t2, t3));
  CHECK_FALSE(overlaps(t2, u));  // t2 is loop-invariant: live through the whole scan
  CHECK_FALSE(overlaps(u, scan.carries[0].a));
  CHECK_FALSE(overlaps(u, scan.carries[0].b));
  CHECK_FALSE(overlaps(scan.carries[0].a, scan.carries[0].b));
  CHECK(k.scratch_bytes() < 6 * 4096);

  auto fn = compile_loop_kernel(test_jit(), k);
  std::vector<float> in(1024), result(1024), ys(3 * 1024);
  std::iota(in.begin(), in.end(), 0.0f);
  std::vector<uint8_t> scratch(static_cast<size_t>(k.scratch_bytes()) + 64);
  void* aligned = scratch.data() + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
  const void* ins[] = {in.data()};
  void* outs[] = {result.data(), ys.data()};
  fn(ins, outs, aligned);
  for (size_t j = 0; j < 1024; ++j) {
    const float v2 = (in[j] * 2 + 1) * 2 + 1, v3 = v2 * 2 + 1;
    REQUIRE(result[j] == ((v3 * 2 + 1) * 2 + 1) * 2 + 1);
    for (size_t i = 0; i < 3; ++i) REQUIRE(ys[i * 1024 + j] == v2 + 0.5f);
  }
}

namespace {
// out[0] = in[0] scaled by params[0], over params[1] floats: a stand-in for a C++ kernel.
void scale_floats(const int64_t* params, const void* const* in, void* const* out) {
  for (int64_t i = 0; i < params[1]; ++i)
    static_cast<float*>(out[0])[i] = static_cast<const float*>(in[0])[i] * static_cast<float>(params[0]);
}
}  // namespace

TEST_CASE("a Call statement runs a host function every iteration with its constant parameters", "[loop_kernel]") {
  // scan of 4 steps: x -> scale_floats(x, 3) over a [4] float carry.
  LoopKernel k;
  k.num_inputs = k.num_outputs = 1;
  const int x0 = k.add_var({LoopVar::Kind::Input, 0});
  const int out = k.add_var({LoopVar::Kind::Output, 0, 16});
  LoopStmt scan;
  scan.kind = LoopStmt::Kind::Scan;
  scan.length = 4;
  scan.carries = {carry(k, x0, 16)};
  LoopStmt call;
  call.kind = LoopStmt::Kind::Call;
  call.callee = scale_floats;
  call.callee_name = "scale_floats";
  call.params = {3, 4};
  call.in = {scan.carries[0].cur};
  call.out = {scan.carries[0].spare};
  scan.blocks = {{call}};
  const int final_x = scan.carries[0].cur;
  k.body = {scan, copy(out, final_x, 16)};
  auto fn = compile_loop_kernel(test_jit(), k);
  std::vector<float> x{1, 2, 3, 4}, result(4);
  const void* ins[] = {x.data()};
  void* outs[] = {result.data()};
  fn(ins, outs, nullptr);
  CHECK(result == std::vector<float>{81, 162, 243, 324});
}

TEST_CASE("small locals beyond the stack budget go to the scratch arena", "[loop_kernel]") {
  // 300 chained [64] f32 locals (256 bytes each, 75 KiB in all): x + 1, 300 times.
  LoopKernel k;
  k.num_inputs = k.num_outputs = 1;
  const int x = k.add_var({LoopVar::Kind::Input, 0});
  const int out = k.add_var({LoopVar::Kind::Output, 0, 256});
  int prev = x;
  for (int i = 0; i < 300; ++i) {
    const int next = k.add_var({LoopVar::Kind::Local, -1, 256});
    k.body.push_back(ew(affine(DType::F32, {64}, 1, 1), {prev}, next));
    prev = next;
  }
  k.body.push_back(copy(out, prev, 256));
  const LoopStorage storage = plan_loop_storage(k);
  CHECK(std::count(storage.on_stack.begin(), storage.on_stack.end(), true) == kLoopStackBudget / 256);
  CHECK(k.scratch_bytes() > 0);
  CHECK(k.scratch_bytes() <= 2 * 256);  // the chain's scratch links are never live three at a time

  auto fn = compile_loop_kernel(test_jit(), k);
  std::vector<float> in(64), result(64);
  std::iota(in.begin(), in.end(), 0.0f);
  std::vector<uint8_t> scratch(static_cast<size_t>(k.scratch_bytes()) + 64);
  void* aligned = scratch.data() + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
  const void* ins[] = {in.data()};
  void* outs[] = {result.data()};
  fn(ins, outs, aligned);
  for (size_t j = 0; j < 64; ++j) CHECK(result[j] == in[j] + 300);
}
