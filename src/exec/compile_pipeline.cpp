#include "exec/compile_pipeline.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "exec/options.hpp"
#include "exec/program.hpp"
#include "exec/stage_output.hpp"
#include "exec/stage_timing.hpp"
#include "spmd/pipeline.hpp"
#include "spmd/program_text.hpp"

namespace shard::exec {

CompiledProgram::~CompiledProgram() = default;

namespace {

// `what` names the IR for the message: "traced IR of f", "per-device IR of f".
void verify_or_throw(const ir::Function& f, const std::string& what) {
  auto problems = ir::verify(f);
  if (!problems.empty())
    throw std::logic_error(fmt::format("internal error: invalid {}: {}\n{}", what, fmt::join(problems, "; "), ir::print(f)));
}

}  // namespace

std::shared_ptr<CompiledProgram> compile_program(const ir::Function& global, const types::Mesh& mesh,
                                                 const std::vector<types::PartitionSpec>& layouts, ProgramOrigin origin) {
  const StageOutput output(origin == ProgramOrigin::Jit ? global.name : std::string());
  auto program = std::make_shared<CompiledProgram>();
  program->mesh = mesh;
  program->in_layouts = layouts;
  for (auto r : global.results) program->out_types.push_back(global.type(r));

  {
    StageTimer timer(CompileStage::VerifyTraced);
    verify_or_throw(global, "traced IR of " + global.name);
  }
  output.print(EmitStage::Jaxpr, [&] { return ir::print(global); });

  {
    StageTimer timer(CompileStage::Partition);
    // Functions with custom derivatives run as their bodies.
    if (ir::has_custom_calls(global)) program->parts = spmd::partition(ir::inline_custom_calls(global), mesh, layouts);
    else program->parts = spmd::partition(global, mesh, layouts);
  }
  {
    StageTimer timer(CompileStage::DevicePasses);
    spmd::run_device_passes(program->parts.local);
  }
  {
    StageTimer timer(CompileStage::VerifyDevice);
    verify_or_throw(program->parts.local, "per-device IR of " + global.name);
  }
  output.print(EmitStage::Spmd, [&] { return spmd::device_program_text(program->parts); });

  {
    StageTimer timer(CompileStage::Lower);
    program->exe = std::make_unique<Executable>(program->parts.local, mesh);
  }
  {
    StageTimer timer(CompileStage::Jit);
    program->exe->compile_kernels(kernel_jit(), exec_options().keeps_kernel_text());
  }
  output.print(EmitStage::Llvm, [&] { return kernels_text(program->exe->kernels()); });
  return program;
}

}  // namespace shard::exec
