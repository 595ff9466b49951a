#include "cli/options.hpp"

#include "types/jax_version.hpp"

#include <algorithm>
#include <cstdlib>

namespace shard::cli {
namespace {

CliOptions g_options;

// Device counts beyond this are certainly a typo (each device is a thread).
constexpr int kMaxDevices = 1024;  // the device runtime's bound (runtime/device_buffer.hpp)

int parse_device_count(const std::string& text, const std::string& where) {
  int n = 0;
  bool ok = !text.empty() && text.size() <= 6;
  for (char ch : text) {
    if (ch < '0' || ch > '9') { ok = false; break; }
    n = n * 10 + (ch - '0');
  }
  if (!ok || n < 1 || n > kMaxDevices)
    throw UsageError{where + " expects a device count between 1 and " +
                     std::to_string(kMaxDevices) + ", got '" + text + "'"};
  return n;
}

// Splits "--name=value" into name and value; `has_value` tells whether '=' was present.
void split_option(const std::string& arg, std::string& name, std::string& value, bool& has_value) {
  auto eq = arg.find('=');
  has_value = eq != std::string::npos;
  name = has_value ? arg.substr(0, eq) : arg;
  value = has_value ? arg.substr(eq + 1) : std::string();
}

}  // namespace

std::string usage_text() {
  return "usage: shard [OPTIONS] FILE.shard [ARGS...]   run a script\n"
         "       shard [OPTIONS] -c CODE [ARGS...]       run CODE\n"
         "       shard [OPTIONS]                         run stdin (or the REPL on a terminal)\n"
         "       shard [OPTIONS] repl [SESSION]          the REPL (piped stdin or SESSION: no prompts)\n"
         "       shard test [--update] [-j N] [--timeout S] DIR|FILE...   run golden tests\n"
         "\n"
         "options:\n"
         "  --devices N     number of simulated devices (default 8; also SHARD_DEVICES)\n"
         "  --jax-version=V the JAX whose behaviour to show where it changed after 0.6:\n"
         "                  0.6 (default, the seeds' version) or current (JAX 0.10: make_mesh\n"
         "                  axes Explicit, typeof without ShapedArray); also SHARD_JAX_VERSION\n"
         "  --emit=STAGE    print a compile stage of each jitted function to stdout, in order\n"
         "                  with the script's output (which still runs), after a line\n"
         "                  '--- STAGE of NAME'; repeatable. STAGE is one of:\n"
         "                    jaxpr  the traced IR\n"
         "                    spmd   the per-device IR after the per-device passes, and its\n"
         "                           collective ledger (as Compiled.as_text())\n"
         "                    llvm   the optimised LLVM IR of each kernel of the program\n"
         "                  or ast: print the parsed syntax tree of FILE and exit (no run)\n"
         "  --dump-ir       print each jitted function's jaxpr and spmd stages to stderr\n"
         "  --dump-llvm     print each jitted function's llvm stage to stderr\n"
         "  --time-passes   at exit, print a table of each compile pipeline stage's wall time\n"
         "                  (programs compiled, ms, share of the total) to stderr\n"
         "  --trace FILE    write a Chrome-trace (Perfetto) timeline to FILE: a track per\n"
         "                  device (kernels, GEMMs, collectives) and a host track (jit's trace\n"
         "                  and compile, eager ops' compiles); jax.profiler writes the same\n"
         "  --stats         at exit, per jitted function: calls, traces, compiles, trace /\n"
         "                  compile / run ms and collectives, totals over all its calls\n"
         "  --stats=counts  the same without the times (output comparable between runs)\n"
         "  -h, --help      show this help\n"
         "  --version       print the version\n";
}

CliOptions parse_command_line(const std::vector<std::string>& argv) {
  CliOptions o;
  if (const char* env = std::getenv("SHARD_DEVICES"); env && *env)
    o.devices = parse_device_count(env, "SHARD_DEVICES");
  if (const char* env = std::getenv("SHARD_JAX_VERSION"); env && *env && !types::parse_jax_version(env))
    throw UsageError{std::string("SHARD_JAX_VERSION must be 0.6 or current, got '") + env + "'"};

  size_t i = 0;
  auto take_value = [&](const std::string& name, bool has_value, const std::string& value) {
    if (has_value) return value;
    if (i + 1 >= argv.size()) throw UsageError{"option " + name + " needs a value"};
    return argv[++i];
  };
  auto rest_after = [&](size_t k) {
    return std::vector<std::string>(argv.begin() + static_cast<std::ptrdiff_t>(std::min(k, argv.size())), argv.end());
  };

  for (; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    std::string name, value;
    bool has_value = false;
    split_option(arg, name, value, has_value);

    if (arg == "-h" || arg == "--help") { o.mode = Mode::Help; return o; }
    if (arg == "--version" || arg == "-V") { o.mode = Mode::Version; return o; }
    if (name == "--jax-version") {
      const std::string v = take_value(name, has_value, value);
      auto parsed = types::parse_jax_version(v);
      if (!parsed) throw UsageError{"option --jax-version must be 0.6 or current, got '" + v + "'"};
      types::set_jax_version(*parsed);
    } else if (name == "--devices") {
      o.devices = parse_device_count(take_value(name, has_value, value), "--devices");
      o.devices_forced = true;
    } else if (arg == "--dump-ir") {
      o.dump_ir = true;
    } else if (arg == "--dump-llvm") {
      o.dump_llvm = true;
    } else if (name == "--stats") {
      o.stats = true;
      if (has_value && value != "counts") throw UsageError{"option --stats takes no value or =counts, got '" + value + "'"};
      o.stats_times = !has_value;
    } else if (name == "--trace") {
      o.trace_file = take_value(name, has_value, value);
      if (o.trace_file.empty()) throw UsageError{"option --trace needs a file name"};
    } else if (arg == "--time-passes") {
      o.time_passes = true;
    } else if (name == "--emit") {
      const std::string stage = take_value(name, has_value, value);
      if (stage == "ast") o.emit_ast = true;
      else if (auto s = exec::emit_stage_named(stage)) o.emit_stages.add(*s);
      else throw UsageError{"unsupported --emit stage '" + stage + "' (available: ast, jaxpr, spmd, llvm)"};
    } else if (arg.rfind("-c", 0) == 0 && arg.rfind("--", 0) != 0) {
      // -c CODE or -cCODE; everything after CODE belongs to the program (sys.argv[1:]).
      o.mode = Mode::Code;
      if (arg.size() > 2) {
        o.code = arg.substr(2);
      } else {
        if (i + 1 >= argv.size()) throw UsageError{"option -c needs an argument"};
        o.code = argv[++i];
      }
      o.args = rest_after(i + 1);
      break;
    } else if (arg == "--") {
      if (i + 1 < argv.size()) {
        o.mode = Mode::Script;
        o.script = argv[i + 1];
        o.args = rest_after(i + 2);
      }
      break;
    } else if (arg == "-") {
      o.mode = Mode::Stdin;
      o.args = rest_after(i + 1);
      break;
    } else if (!arg.empty() && arg[0] == '-') {
      throw UsageError{"unknown option '" + arg + "'"};
    } else if (arg == "test") {
      o.mode = Mode::Test;
      o.test_args = rest_after(i + 1);
      break;
    } else if (arg == "repl") {
      // `shard repl FILE`: the session's input read from FILE (as if piped), for tests.
      o.mode = Mode::Repl;
      if (i + 2 < argv.size()) throw UsageError{"'repl' takes at most one argument (a session file)"};
      if (i + 1 < argv.size()) o.script = argv[i + 1];
      break;
    } else {
      o.mode = Mode::Script;
      o.script = arg;
      o.args = rest_after(i + 1);
      break;
    }
  }
  if (o.emit_ast && o.mode != Mode::Script)
    throw UsageError{"--emit=ast needs a script file"};
  if (o.emit_ast && o.emit_stages.any())
    throw UsageError{"--emit=ast prints the syntax tree without running the script; it cannot be combined with "
                     "--emit=jaxpr, spmd or llvm"};
  return o;
}

const CliOptions& cli_options() { return g_options; }
void set_cli_options(CliOptions opts) { g_options = std::move(opts); }

}  // namespace shard::cli
