// The compile pipeline (exec/compile_pipeline): the traced-IR verifier, the stage timings of
// --time-passes and the stage text of --emit=jaxpr|spmd|llvm.
#include <catch2/catch.hpp>

#include <iostream>
#include <sstream>
#include <stdexcept>

#include "exec/options.hpp"
#include "exec/run_global.hpp"
#include "exec/stage_timing.hpp"
#include "test_program_util.hpp"

using namespace shard;
using namespace shard::testing;
using ir::OpKind;
using types::DType;
using types::PartitionSpec;
using E = std::vector<PartitionSpec::Entry>;

namespace {

// f(x) = sin(x) on device 0; `line` makes otherwise equal functions distinct programs (the
// program cache compares source locations) while their kernels stay equal.
ir::Function sin_function(const std::string& name, types::Shape shape, uint32_t line = 1, ir::EwOp op = ir::EwOp::Sin) {
  ir::Function f;
  f.name = name;
  auto x = f.new_value(ir::ArrayType(DType::F32, shape));
  f.params = {x};
  f.results = {op1(f, OpKind::Elementwise, {x}, ir::ArrayType(DType::F32, shape), ew(op))};
  f.ops.back().loc.line = line;
  return f;
}

std::vector<PartitionSpec> replicated_layouts(const ir::Function& f) {
  std::vector<PartitionSpec> layouts;
  for (auto p : f.params) layouts.push_back(PartitionSpec::replicated(f.type(p).rank()));
  return layouts;
}

// What the pipeline prints to stdout while `body` runs with `stages` emitted; the options
// and std::cout are restored afterwards, even when `body` throws.
template <class Body>
std::string emitted(exec::StageSet stages, Body body) {
  std::ostringstream captured;  // outlives `restore`, which points std::cout back
  struct Restore {
    exec::ExecOptions saved = exec::exec_options();
    std::streambuf* out = std::cout.rdbuf();
    ~Restore() {
      exec::exec_options() = saved;
      std::cout.rdbuf(out);
    }
  } restore;
  exec::exec_options().emit = stages;
  std::cout.rdbuf(captured.rdbuf());
  body();
  return captured.str();
}

int64_t programs_in(exec::CompileStage stage) {
  for (const auto& t : exec::stage_timings())
    if (t.stage == stage) return t.programs;
  return -1;
}

}  // namespace

TEST_CASE("a malformed traced function is an internal error before anything is partitioned", "[pipeline]") {
  ir::Function f;
  f.name = "broken";
  auto x = f.new_value(ir::ArrayType(DType::F32, {5}));
  f.params = {x};
  // The operand id 7 names no value: a tracer bug the partitioner must never see.
  f.results = {op1(f, OpKind::Elementwise, {7}, ir::ArrayType(DType::F32, {5}), ew(ir::EwOp::Neg))};
  const auto verified = programs_in(exec::CompileStage::VerifyTraced);
  const auto partitioned = programs_in(exec::CompileStage::Partition);
  for (int attempt = 0; attempt < 2; ++attempt) {  // not cached: it fails every time
    REQUIRE_THROWS_MATCHES(exec::compile_global(f, exec::single_device_mesh(0), replicated_layouts(f)), std::logic_error,
                           Catch::Matchers::Predicate<std::logic_error>([](const std::logic_error& e) {
                             const std::string what = e.what();
                             return what.rfind("internal error: invalid traced IR of broken: ", 0) == 0 &&
                                    what.find("value id 7 out of range") != std::string::npos;
                           }));
  }
  CHECK(programs_in(exec::CompileStage::VerifyTraced) == verified);
  CHECK(programs_in(exec::CompileStage::Partition) == partitioned);
}

TEST_CASE("each stage counts every newly compiled program once, a cache hit not at all", "[pipeline]") {
  const auto f = sin_function("timed", {41, 3});
  const auto before = exec::stage_timings();
  bool hit = true;
  exec::compile_global(f, exec::single_device_mesh(0), replicated_layouts(f), &hit);
  REQUIRE(!hit);
  const auto after = exec::stage_timings();
  REQUIRE(after.size() == std::size(exec::kCompileStages));
  for (size_t i = 0; i < after.size(); ++i) {
    INFO(exec::compile_stage_name(after[i].stage));
    CHECK(after[i].stage == exec::kCompileStages[i]);
    CHECK(after[i].programs == before[i].programs + 1);
    CHECK(after[i].wall >= before[i].wall);
  }
  exec::compile_global(f, exec::single_device_mesh(0), replicated_layouts(f), &hit);
  REQUIRE(hit);
  const auto again = exec::stage_timings();
  for (size_t i = 0; i < again.size(); ++i) {
    CHECK(again[i].programs == after[i].programs);
    CHECK(again[i].wall == after[i].wall);
  }
}

TEST_CASE("the --time-passes table: stage, programs, wall ms, share, then the total", "[pipeline]") {
  using std::chrono::microseconds;
  std::vector<exec::StageTiming> rows;
  for (auto s : exec::kCompileStages) rows.push_back({s, 0, microseconds(0)});
  rows[0] = {exec::CompileStage::VerifyTraced, 4, microseconds(500)};
  rows[1] = {exec::CompileStage::Partition, 4, microseconds(1500)};
  rows[5] = {exec::CompileStage::Jit, 3, microseconds(8000)};
  CHECK(exec::format_stage_timings(rows) ==
        "===--- compile pipeline timing (--time-passes) ---===\n"
        "stage            programs     wall ms   share\n"
        "verify-traced           4       0.500    5.0%\n"
        "partition               4       1.500   15.0%\n"
        "device-passes           0       0.000    0.0%\n"
        "verify-device           0       0.000    0.0%\n"
        "lower                   0       0.000    0.0%\n"
        "jit                     3       8.000   80.0%\n"
        "total                   4      10.000  100.0%\n");
}

TEST_CASE("--emit=jaxpr and spmd print a jitted program's stages; eager programs print nothing", "[pipeline]") {
  auto m = types::Mesh({0, 1, 2, 3, 4, 5, 6, 7}, {4, 2}, {"dp", "mp"},
                       std::vector<types::AxisType>{types::AxisType::Explicit, types::AxisType::Explicit});
  auto gtype = [&](types::Shape s, PartitionSpec spec) { return ir::ArrayType(DType::F32, std::move(s), m.abstract_mesh(), std::move(spec)); };
  // sum over a dim sharded on dp: a local reduce plus one all-reduce.
  auto make = [&](const std::string& name, uint32_t line) {
    ir::Function f;
    f.name = name;
    auto x = f.new_value(gtype({8, 6}, PartitionSpec(E{{"dp"}, {"mp"}})));
    f.params = {x};
    ir::attr::Reduce a;
    a.kind = ir::ReduceKind::Sum;
    a.axes = {0};
    f.results = {op1(f, OpKind::Reduce, {x}, gtype({6}, PartitionSpec(E{{"mp"}})), a)};
    f.ops.back().loc.line = line;
    return f;
  };
  const std::vector<PartitionSpec> layouts{PartitionSpec(E{{"dp"}, {"mp"}})};
  const auto jitted = make("reduce_rows", 11);
  exec::StageSet both;
  both.add(exec::EmitStage::Jaxpr);
  both.add(exec::EmitStage::Spmd);
  const std::string text = emitted(both, [&] { exec::compile_global(jitted, m, layouts); });
  INFO(text);
  const auto jaxpr_at = text.find("--- jaxpr of reduce_rows\n" + ir::print(jitted));
  const auto spmd_at = text.find("--- spmd of reduce_rows\n");
  CHECK(jaxpr_at == 0);
  REQUIRE(spmd_at != std::string::npos);
  CHECK(spmd_at > jaxpr_at);
  CHECK(text.find("psum", spmd_at) != std::string::npos);
  CHECK(text.find("# collectives per device: 1\n#   all-reduce over dp: ", spmd_at) != std::string::npos);
  // The same stages of an eager program (and of a program cache hit) print nothing.
  CHECK(emitted(both, [&] { exec::compile_global(make("reduce_rows", 12), m, layouts, nullptr, exec::ProgramOrigin::Eager); }).empty());
  CHECK(emitted(both, [&] { exec::compile_global(jitted, m, layouts); }).empty());
}

TEST_CASE("--emit=llvm prints each kernel's optimised IR, also when the kernel cache had it", "[pipeline]") {
  exec::StageSet llvm;
  llvm.add(exec::EmitStage::Llvm);
  const std::string first = emitted(llvm, [&] {
    const auto f = sin_function("first", {29, 7}, 1);
    exec::compile_global(f, exec::single_device_mesh(0), replicated_layouts(f));
  });
  INFO(first);
  REQUIRE(first.rfind("--- llvm of first\n; ModuleID = '", 0) == 0);
  const auto define_at = first.find("define void @ew_kernel_");
  REQUIRE(define_at != std::string::npos);
  const std::string define_line = first.substr(define_at, first.find('(', define_at) - define_at);
  CHECK(first.find("_ZGV") != std::string::npos);  // sin went to libmvec's vector sin
  // Another program (a different source line) whose only kernel is the same one: a kernel
  // cache hit, printed all the same.
  const std::string second = emitted(llvm, [&] {
    const auto g = sin_function("second", {29, 7}, 2);
    exec::compile_global(g, exec::single_device_mesh(0), replicated_layouts(g));
  });
  INFO(second);
  CHECK(second.rfind("--- llvm of second\n", 0) == 0);
  CHECK(second.find(define_line + "(") != std::string::npos);
}

TEST_CASE("libm-backed primitives vectorise through glibc's vector math library", "[pipeline][codegen]") {
  // LLVM 19 knows libmvec's sin/cos/exp/log/pow only; KernelJit registers the rest.
  exec::StageSet llvm;
  llvm.add(exec::EmitStage::Llvm);
  for (auto [op, scalar] : {std::pair{ir::EwOp::Tanh, "tanhf"}, std::pair{ir::EwOp::Log1p, "log1pf"}, std::pair{ir::EwOp::Erf, "erff"},
                            std::pair{ir::EwOp::Expm1, "expm1f"}, std::pair{ir::EwOp::Cbrt, "cbrtf"}}) {
    const std::string text = emitted(llvm, [&] {
      const auto f = sin_function(std::string("vector_") + scalar, {1024}, 1, op);
      exec::compile_global(f, exec::single_device_mesh(0), replicated_layouts(f));
    });
    INFO(text);
    CHECK(text.find(std::string("v_") + scalar) != std::string::npos);  // e.g. @_ZGVdN8v_tanhf
  }
}
