#include "cli/run_program.hpp"
#include "runtime/device_runtime.hpp"

#include <csignal>

#include <unistd.h>

#include <cstdio>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "ast/source.hpp"
#include "grammar/parse.hpp"
#include "interp/interp.hpp"
#include "api/device_count.hpp"
#include "api/transforms/jit_stats.hpp"
#include "api/modules/registration.hpp"
#include "exec/options.hpp"
#include "exec/stage_timing.hpp"
#include "exec/timeline.hpp"

namespace shard::cli {
namespace fs = std::filesystem;
using interp::Interp;
using interp::PyError;

namespace {

void flush_stdout() {
  std::cout.flush();
  std::fflush(stdout);
}

void write_stderr(const std::string& text) {
  flush_stdout();
  std::cerr << text;
  if (!text.empty() && text.back() != '\n') std::cerr << '\n';
  std::cerr.flush();
}

// Reads a whole file; false if it cannot be opened (message in `error`).
bool read_file(const std::string& path, std::string& text, std::string& error) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) { error = "Is a directory"; return false; }
  std::ifstream in(path, std::ios::binary);
  if (!in) { error = "No such file or directory"; return false; }
  std::ostringstream ss;
  ss << in.rdbuf();
  text = ss.str();
  return true;
}

// The same shape as interp::format_uncaught, for syntax errors met outside an interpreter
// (--emit=ast): "FILE:LINE:COL: Kind: message", the stripped line, a caret.
std::string format_syntax_error(const grammar::SyntaxError& e) {
  std::string out = ast::format_loc(e.loc) + ": " + e.kind + ": " + e.what() + "\n";
  std::string_view line = ast::source_line(e.loc.file, e.loc.line);
  size_t indent = line.find_first_not_of(" \t");
  if (indent == std::string_view::npos) return out;
  out += "    " + std::string(line.substr(indent)) + "\n";
  // Columns count characters: skip UTF-8 continuation bytes when measuring.
  size_t chars_before = 0, col0 = e.loc.col > 0 ? e.loc.col - 1 : 0, chars = 0;
  for (size_t i = 0; i < line.size() && chars < col0; ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xC0) == 0x80) continue;
    if (i >= indent) ++chars_before;
    ++chars;
  }
  out += std::string(4 + chars_before, ' ') + "^\n";
  return out;
}

}  // namespace

namespace {

bool class_is_named(const interp::ClassObj* cls, std::string_view name) {
  for (int depth = 0; cls && depth < 64; ++depth) {  // bounded: never trust a cyclic chain
    if (cls->name == name && cls->module == "builtins") return true;
    cls = cls->bases.empty() ? nullptr : cls->bases.front().get();
  }
  return false;
}

// CPython's rule: SystemExit(None) -> 0, SystemExit(int) -> that int, anything else is
// printed to stderr and gives 1.
int system_exit_status(Interp& I, const PyError& e) {
  interp::Value code = interp::none();
  if (auto c = I.try_getattr(e.exc, "code")) {
    code = *c;
  } else if (auto args = I.try_getattr(e.exc, "args"); args && interp::is(*args, interp::ObjKind::Tuple)) {
    auto& items = interp::as<interp::TupleObj>(*args).items;
    if (items.size() == 1) code = items[0];
    else if (!items.empty()) code = *args;
  }
  if (!code || interp::is(code, interp::ObjKind::None)) return kExitOk;
  if (interp::is(code, interp::ObjKind::Int)) return static_cast<int>(interp::as<interp::IntObj>(code).v & 0xff);
  if (interp::is(code, interp::ObjKind::Bool)) return interp::as<interp::BoolObj>(code).v ? 1 : 0;
  write_stderr(I.str(code));
  return kExitError;
}

}  // namespace

bool is_system_exit(const PyError& e) { return e.exc && class_is_named(e.exc->cls.get(), "SystemExit"); }

int report_uncaught(Interp& I, const PyError& e) {
  flush_stdout();
  if (is_system_exit(e)) {
    try {
      return system_exit_status(I, e);
    } catch (const PyError&) {
      return kExitError;
    }
  }
  std::string text;
  try {
    text = interp::format_uncaught(I, e);
  } catch (const PyError&) {
    text = "error: an exception was raised while formatting an uncaught exception\n";
  }
  write_stderr(text);
  // CPython ends an interrupted program as killed by SIGINT: status 130 in the shell.
  if (e.exc && e.exc->cls && e.exc->cls->name == "KeyboardInterrupt") return 128 + SIGINT;
  return kExitError;
}

namespace {
// Ctrl-C: the program raises KeyboardInterrupt at its next loop iteration or call, and the
// devices stop at their next step, loop iteration or collective wait (runtime::request_cancel).
void on_sigint(int) {
  interp::request_interrupt();
  runtime::request_cancel();
}
}  // namespace

void install_program_sigint_handler() {
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
}

std::vector<std::string> module_path_for(const std::string& script_dir) {
  std::vector<std::string> path{script_dir.empty() ? "." : script_dir};
  if (std::string stdlib = find_stdlib_dir(); !stdlib.empty()) path.push_back(stdlib);
  return path;
}

std::string find_stdlib_dir() {
  if (const char* env = std::getenv("SHARD_STDLIB"); env && *env) return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  // A build directory inside the source tree (build/shard or build/src/shard): walk up to
  // the source root, recognised by its meson.build next to stdlib/.
  fs::path dir = exe.parent_path();
  for (int up = 0; up < 4 && !dir.empty(); ++up, dir = dir.parent_path()) {
    if (fs::is_directory(dir / "stdlib", ec) && fs::exists(dir / "meson.build", ec))
      return (dir / "stdlib").string();
    if (dir == dir.parent_path()) break;
  }
  fs::path installed = exe.parent_path().parent_path() / "share" / "shard" / "stdlib";
  if (fs::is_directory(installed, ec)) return installed.string();
  fs::path beside = exe.parent_path().parent_path() / "stdlib";
  if (fs::is_directory(beside, ec)) return beside.string();
  return "";
}

namespace {

// What --trace, --stats and --time-passes write when the program ends (normally or with an
// error).
struct ExitReports {
  explicit ExitReports(const CliOptions& o) : stats(o.stats), stats_times(o.stats_times), time_passes(o.time_passes) {
    if (!o.trace_file.empty()) exec::timeline_start(o.trace_file);
  }
  ~ExitReports() {
    flush_stdout();
    exec::timeline_write();
    if (stats) api::print_jit_stats(std::cerr, stats_times);
    if (time_passes) std::cerr << exec::format_stage_timings(exec::stage_timings());
  }
  ExitReports(const ExitReports&) = delete;
  ExitReports& operator=(const ExitReports&) = delete;
  bool stats, stats_times, time_passes;
};

}  // namespace

void set_exec_options(const CliOptions& o) {
  exec::ExecOptions& e = exec::exec_options();
  e.emit = o.emit_stages;
  e.dump = exec::StageSet{};
  if (o.dump_ir) {
    e.dump.add(exec::EmitStage::Jaxpr);
    e.dump.add(exec::EmitStage::Spmd);
  }
  if (o.dump_llvm) e.dump.add(exec::EmitStage::Llvm);
}

int report_internal_error(const std::string& what) {
  write_stderr("internal error: " + what);
  return kExitInternal;
}

int run_program(const CliOptions& o) {
  // An unwritable --trace file is said now, not when the timeline is written at exit.
  if (!o.trace_file.empty())
    if (std::ofstream probe(o.trace_file); !probe) {
      write_stderr("shard: can't write the trace file '" + o.trace_file + "': " + std::strerror(errno) + "\n");
      return kExitUsage;
    }
  interp::Options opts;
  std::string text, name;
  if (o.mode == Mode::Script) {
    std::string error;
    if (!read_file(o.script, text, error)) {
      write_stderr("shard: can't open file '" + o.script + "': " + error);
      return kExitUsage;
    }
    if (auto bad = ast::non_utf8_error(text, o.script); !bad.empty()) {
      write_stderr("SyntaxError: " + bad + "\n");
      return kExitError;
    }
    name = o.script;
    opts.argv.push_back(o.script);
    opts.module_path = module_path_for(fs::path(o.script).parent_path().string());
  } else if (o.mode == Mode::Code) {
    text = o.code;
    name = "<string>";
    opts.argv.push_back("-c");
    opts.module_path = module_path_for(".");
  } else {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    text = ss.str();
    name = "<stdin>";
    opts.argv.push_back("-");
    opts.module_path = module_path_for(".");
  }
  opts.argv.insert(opts.argv.end(), o.args.begin(), o.args.end());

  try {
    // The array stack: modules, device count, which compile stages to print.
    api::register_api_modules();  // jax, jax.numpy, jax.sharding, numpy
    if (o.devices_forced) api::set_forced_device_count(o.devices);
    set_exec_options(o);
    ExitReports reports(o);
    Interp I(opts);
    install_program_sigint_handler();
    try {
      if (o.mode == Mode::Script) I.run_file(o.script);
      else I.run_source(name, text);
    } catch (const PyError& e) {
      return report_uncaught(I, e);
    }
    flush_stdout();
    return kExitOk;
  } catch (const grammar::SyntaxError& e) {
    // The interpreter should have turned it into a PyError; report it the same way anyway.
    write_stderr(format_syntax_error(e));
    return kExitError;
  } catch (const PyError&) {
    return report_internal_error("Python exception raised outside the program (interpreter start-up)");
  } catch (const std::bad_alloc&) {
    return report_internal_error("out of memory");
  } catch (const std::exception& e) {
    return report_internal_error(e.what());
  } catch (...) {
    return report_internal_error("unknown C++ exception");
  }
}

int emit_ast(const CliOptions& o) {
  std::string text, error;
  if (!read_file(o.script, text, error)) {
    write_stderr("shard: can't open file '" + o.script + "': " + error);
    return kExitUsage;
  }
  try {
    uint32_t id = ast::add_source(o.script, text);
    ast::Module m = grammar::parse_module(id);
    std::cout << ast::dump(m);
    flush_stdout();
    return kExitOk;
  } catch (const grammar::SyntaxError& e) {
    write_stderr(format_syntax_error(e));
    return kExitError;
  } catch (const std::exception& e) {
    return report_internal_error(e.what());
  } catch (...) {
    return report_internal_error("unknown C++ exception");
  }
}

}  // namespace shard::cli
