// The `shard` driver: parses the command line and dispatches to running a program, the
// golden test runner, --emit=ast, or the REPL.
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "cli/golden.hpp"
#include "cli/options.hpp"
#include "cli/repl.hpp"
#include "cli/run_program.hpp"
#include "cli/version.hpp"
#include "runtime/mpi_transport.hpp"

using namespace shard::cli;

namespace {
// Under mpirun with jax.distributed.initialize(): this process's end is announced to the
// others, and it waits for theirs before MPI shuts down (runtime/mpi_transport.hpp).
int end_of_process(int status) {
  if (!shard::runtime::mpi::initialized()) return status;
  shard::runtime::mpi::finish(status != kExitOk, "its program exited with status " + std::to_string(status));
  return status;
}
}  // namespace

int main(int argc, char** argv) {
  install_crash_handlers();
  try {
    CliOptions o = parse_command_line(std::vector<std::string>(argv + 1, argv + argc));
    set_cli_options(o);
    switch (o.mode) {
      case Mode::Help:
        std::cout << usage_text();
        return kExitOk;
      case Mode::Version:
        std::cout << "shard " << SHARD_VERSION << "\n";
        return kExitOk;
      case Mode::Test:
        return run_golden_tests(o.test_args);
      case Mode::Repl:
        return end_of_process(run_repl(o));
      case Mode::Stdin:
        if (isatty(STDIN_FILENO)) return end_of_process(run_repl(o));
        return end_of_process(run_program(o));
      case Mode::Script:
        if (o.emit_ast) return emit_ast(o);
        return end_of_process(run_program(o));
      case Mode::Code:
        return end_of_process(run_program(o));
    }
    return kExitOk;
  } catch (const UsageError& e) {
    std::cerr << "shard: " << e.message << "\n" << "Try 'shard --help' for usage.\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    return report_internal_error(e.what());
  } catch (...) {
    return report_internal_error("unknown C++ exception");
  }
}
