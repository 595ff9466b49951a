#include "exec/stage_output.hpp"

#include <fmt/format.h>

#include <iostream>

namespace shard::exec {

namespace {

void write_section(std::ostream& os, EmitStage stage, const std::string& name, const std::string& text) {
  os << "--- " << emit_stage_name(stage) << " of " << name << "\n" << text;
  if (!text.empty() && text.back() != '\n') os << "\n";
}

}  // namespace

StageOutput::StageOutput(std::string program_name) : name_(std::move(program_name)) {}

void StageOutput::print(EmitStage stage, const std::function<std::string()>& text) const {
  const ExecOptions& o = exec_options();
  const bool to_stdout = o.emit.has(stage), to_stderr = o.dump.has(stage);
  if (name_.empty() || (!to_stdout && !to_stderr)) return;
  const std::string body = text();
  if (to_stdout) write_section(std::cout, stage, name_, body);
  if (to_stderr) {
    std::cout.flush();  // what the script printed so far comes first
    write_section(std::cerr, stage, name_, body);
    std::cerr.flush();
  }
}

std::string kernels_text(const KernelPlan& plan) {
  const auto kernels = plan.kernels();
  if (kernels.empty()) return "; no LLVM kernels (GEMM calls, collectives and C++ steps only)\n";
  std::string out;
  for (const CachedKernel* k : kernels)
    out += k->optimised_ir.empty()
               ? fmt::format("; kernel {}: compiled before its LLVM text was asked for\n", k->signature)
               : k->optimised_ir;
  return out;
}

}  // namespace shard::exec
