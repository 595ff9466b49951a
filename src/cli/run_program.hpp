// Running a program (file, -c code or stdin) with the process-level error policy:
// uncaught Python error -> formatted report on stderr, exit 1; SystemExit -> its code;
// any escaping C++ exception -> "internal error: ...", exit 70.
#pragma once
#include <string>

#include <vector>

#include "cli/options.hpp"

namespace shard::interp {
class Interp;
struct PyError;
}  // namespace shard::interp

namespace shard::cli {

// Exit statuses of the driver.
constexpr int kExitOk = 0;
constexpr int kExitError = 1;     // uncaught Python error
constexpr int kExitUsage = 2;     // bad command line / unreadable script
constexpr int kExitInternal = 70; // a bug in shard (EX_SOFTWARE)

// The stdlib directory: $SHARD_STDLIB, else found next to the executable ("" if none).
std::string find_stdlib_dir();

// The compile stages to print (--emit=jaxpr|spmd|llvm, --dump-ir, --dump-llvm), set in
// exec::exec_options() before anything compiles (shared with the REPL).
void set_exec_options(const CliOptions& o);

// Runs the program selected by `o` (Mode::Script, Code or Stdin) and returns the exit status.
int run_program(const CliOptions& o);

// The script error format (shared with the REPL): prints an uncaught Python error as
// "FILE:LINE:COL: Type: msg", the source line, a caret and the traceback to stderr, and
// returns kExitError; a SystemExit prints nothing (or its message) and returns its status.
int report_uncaught(interp::Interp& I, const interp::PyError& e);
bool is_system_exit(const interp::PyError& e);

// The import path of a program whose own directory is `script_dir`: it, then the stdlib.
std::vector<std::string> module_path_for(const std::string& script_dir);

// --emit=ast: parses o.script and prints ast::dump of it to stdout.
int emit_ast(const CliOptions& o);

// Prints "internal error: <what>" to stderr (after flushing stdout) and returns kExitInternal.
int report_internal_error(const std::string& what);

// Installs handlers so that a fatal signal or std::terminate reports an internal error and
// exits 70 instead of dumping core.
void install_crash_handlers();

// SIGINT raises KeyboardInterrupt in the program and stops the devices (scripts; the REPL has
// its own handler).
void install_program_sigint_handler();

}  // namespace shard::cli
