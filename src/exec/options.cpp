#include "exec/options.hpp"

namespace shard::exec {

ExecOptions& exec_options() {
  static ExecOptions opts;
  return opts;
}

const char* emit_stage_name(EmitStage s) {
  switch (s) {
    case EmitStage::Jaxpr: return "jaxpr";
    case EmitStage::Spmd: return "spmd";
    case EmitStage::Llvm: return "llvm";
  }
  return "?";
}

std::optional<EmitStage> emit_stage_named(std::string_view name) {
  for (EmitStage s : kEmitStages)
    if (name == emit_stage_name(s)) return s;
  return std::nullopt;
}

bool StageSet::has(EmitStage s) const {
  switch (s) {
    case EmitStage::Jaxpr: return jaxpr;
    case EmitStage::Spmd: return spmd;
    case EmitStage::Llvm: return llvm;
  }
  return false;
}

void StageSet::add(EmitStage s) {
  switch (s) {
    case EmitStage::Jaxpr: jaxpr = true; break;
    case EmitStage::Spmd: spmd = true; break;
    case EmitStage::Llvm: llvm = true; break;
  }
}

}  // namespace shard::exec
