// Process-wide execution options set by the CLI (or the embedding API) before the first
// array operation: which compile stages' text to print, and where.
#pragma once
#include <optional>
#include <string_view>

namespace shard::exec {

// The stages of the compile pipeline whose text can be printed (exec/stage_output.hpp).
enum class EmitStage { Jaxpr, Spmd, Llvm };
const char* emit_stage_name(EmitStage s);  // "jaxpr", "spmd", "llvm"
std::optional<EmitStage> emit_stage_named(std::string_view name);
constexpr EmitStage kEmitStages[] = {EmitStage::Jaxpr, EmitStage::Spmd, EmitStage::Llvm};  // pipeline order

struct StageSet {
  bool jaxpr = false, spmd = false, llvm = false;
  bool has(EmitStage s) const;
  void add(EmitStage s);
  bool any() const { return jaxpr || spmd || llvm; }
};

struct ExecOptions {
  // The text of these stages for each newly compiled jitted program: --emit=STAGE prints to
  // stdout (in order with the script's own output); --dump-ir (jaxpr, spmd) and --dump-llvm
  // (llvm) print to stderr.
  StageSet emit;
  StageSet dump;
  // LLVM text is only kept when someone will print it.
  bool keeps_kernel_text() const { return emit.llvm || dump.llvm; }
};
ExecOptions& exec_options();

}  // namespace shard::exec
