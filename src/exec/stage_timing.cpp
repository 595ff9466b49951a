#include "exec/stage_timing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <iterator>
#include <mutex>

namespace shard::exec {

namespace {

constexpr size_t kNumStages = std::size(kCompileStages);

std::mutex g_mu;
StageTiming g_totals[kNumStages] = {{CompileStage::VerifyTraced}, {CompileStage::Partition}, {CompileStage::DevicePasses},
                                    {CompileStage::VerifyDevice}, {CompileStage::Lower},     {CompileStage::Jit}};

double ms(std::chrono::nanoseconds d) { return std::chrono::duration<double, std::milli>(d).count(); }

}  // namespace

const char* compile_stage_name(CompileStage s) {
  switch (s) {
    case CompileStage::VerifyTraced: return "verify-traced";
    case CompileStage::Partition: return "partition";
    case CompileStage::DevicePasses: return "device-passes";
    case CompileStage::VerifyDevice: return "verify-device";
    case CompileStage::Lower: return "lower";
    case CompileStage::Jit: return "jit";
  }
  return "?";
}

std::vector<StageTiming> stage_timings() {
  std::lock_guard<std::mutex> lock(g_mu);
  return {std::begin(g_totals), std::end(g_totals)};
}

StageTimer::StageTimer(CompileStage stage)
    : stage_(stage), start_(std::chrono::steady_clock::now()), exceptions_at_start_(std::uncaught_exceptions()) {}

StageTimer::~StageTimer() {
  if (std::uncaught_exceptions() != exceptions_at_start_) return;  // unwinding: the stage failed
  const auto wall = std::chrono::steady_clock::now() - start_;
  std::lock_guard<std::mutex> lock(g_mu);
  StageTiming& t = g_totals[static_cast<size_t>(stage_)];
  ++t.programs;
  t.wall += std::chrono::duration_cast<std::chrono::nanoseconds>(wall);
}

std::string format_stage_timings(const std::vector<StageTiming>& rows) {
  std::chrono::nanoseconds total{0};
  int64_t programs = 0;
  for (const auto& r : rows) {
    total += r.wall;
    programs = std::max(programs, r.programs);  // every compiled program enters the first stage
  }
  auto share = [&](std::chrono::nanoseconds d) { return total.count() > 0 ? 100.0 * ms(d) / ms(total) : 0.0; };
  std::string out = "===--- compile pipeline timing (--time-passes) ---===\n";
  out += fmt::format("{:<15} {:>9} {:>11} {:>7}\n", "stage", "programs", "wall ms", "share");
  for (const auto& r : rows)
    out += fmt::format("{:<15} {:>9} {:>11.3f} {:>6.1f}%\n", compile_stage_name(r.stage), r.programs, ms(r.wall), share(r.wall));
  out += fmt::format("{:<15} {:>9} {:>11.3f} {:>6.1f}%\n", "total", programs, ms(total), total.count() > 0 ? 100.0 : 0.0);
  return out;
}

}  // namespace shard::exec
