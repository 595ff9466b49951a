// --time-passes: the wall time of each compile pipeline stage, summed over the programs this
// process compiled (a program cache hit compiles nothing, so it does not count), printed at
// exit as a table like LLVM's -time-passes.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace shard::exec {

// The stages of exec::compile_program, in pipeline order.
enum class CompileStage { VerifyTraced, Partition, DevicePasses, VerifyDevice, Lower, Jit };
constexpr CompileStage kCompileStages[] = {CompileStage::VerifyTraced, CompileStage::Partition, CompileStage::DevicePasses,
                                           CompileStage::VerifyDevice, CompileStage::Lower,     CompileStage::Jit};
const char* compile_stage_name(CompileStage s);  // "verify-traced", "partition", ...

struct StageTiming {
  CompileStage stage;
  int64_t programs = 0;  // programs that completed the stage
  std::chrono::nanoseconds wall{0};
};

// The process-wide totals so far, one row per stage in pipeline order.
std::vector<StageTiming> stage_timings();

// Times one program's pass through `stage`: added to the totals when the stage completes
// (a stage that throws compiled nothing).
class StageTimer {
 public:
  explicit StageTimer(CompileStage stage);
  ~StageTimer();
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

 private:
  CompileStage stage_;
  std::chrono::steady_clock::time_point start_;
  int exceptions_at_start_;
};

// The --time-passes table: a title, then per stage its name, programs, wall ms and share of
// the total, then the total.
std::string format_stage_timings(const std::vector<StageTiming>& rows);

}  // namespace shard::exec
