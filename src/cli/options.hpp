// Command-line options of the `shard` driver. Parsed once in main(); the options that later
// stages consume (devices, emitted stages, dumps, trace, stats) are reachable through cli_options().
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "exec/options.hpp"

namespace shard::cli {

enum class Mode { Script, Code, Stdin, Repl, Test, Help, Version };

struct CliOptions {
  Mode mode = Mode::Stdin;
  std::string script;              // Mode::Script: the file as given
  std::string code;                // Mode::Code: the text after -c
  std::vector<std::string> args;   // script arguments (sys.argv[1:])
  std::vector<std::string> test_args;  // Mode::Test: everything after `test`

  int devices = 8;                 // --devices N / SHARD_DEVICES
  bool devices_forced = false;     // --devices given: beats a script's XLA_FLAGS
  bool dump_ir = false;            // --dump-ir
  bool dump_llvm = false;          // --dump-llvm
  std::string trace_file;          // --trace FILE ("" = off)
  bool stats = false;              // --stats
  bool stats_times = true;         // --stats=counts: without the times (comparable between runs)
  bool time_passes = false;        // --time-passes
  bool emit_ast = false;           // --emit=ast: print the syntax tree instead of running
  exec::StageSet emit_stages;      // --emit=jaxpr|spmd|llvm (repeatable): run, printing them
};

// A bad command line: message for stderr; the driver exits 2.
struct UsageError {
  std::string message;
};

// Parses argv (without argv[0]). Reads SHARD_DEVICES from the environment. Throws UsageError.
CliOptions parse_command_line(const std::vector<std::string>& argv);

// The usage text printed by --help (and after a usage error).
std::string usage_text();

// The options of this process (set by main before anything runs).
const CliOptions& cli_options();
void set_cli_options(CliOptions opts);

}  // namespace shard::cli
