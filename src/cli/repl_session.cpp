#include "cli/repl_session.hpp"
#include "runtime/device_runtime.hpp"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>

#include "api/device_count.hpp"
#include "api/modules/registration.hpp"
#include "cli/repl_input.hpp"
#include "cli/run_program.hpp"

namespace shard::cli {
using interp::PyError;
using interp::Value;

namespace {

// True while the session runs user code: then Ctrl-C means "interrupt it". At the prompt the
// interpreter's interrupt flag must stay clear, or the next chunk would stop at once.
std::atomic<bool> g_computing{false};
volatile std::sig_atomic_t g_prompt_interrupt = 0;

struct Computing {
  Computing() { g_computing.store(true); }
  ~Computing() { g_computing.store(false); }
};

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) {
    if (!out.empty()) out += '\n';
    out += l;
  }
  return out;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

void flush_stdout() {
  std::cout.flush();
  std::fflush(stdout);
}

}  // namespace

void repl_on_sigint() {
  if (g_computing.load()) {
    interp::request_interrupt();
    runtime::request_cancel();  // and stop the devices (an endless jitted while_loop, say)
  } else {
    g_prompt_interrupt = 1;
  }
}

bool take_prompt_interrupt() {
  if (!g_prompt_interrupt) return false;
  g_prompt_interrupt = 0;
  return true;
}

ReplSession::ReplSession(const CliOptions& opts) : opts_(opts) {
  api::register_api_modules();
  if (opts_.devices_forced) api::set_forced_device_count(opts_.devices);
  set_exec_options(opts_);
  reset_interpreter();
}

ReplSession::~ReplSession() = default;

void ReplSession::reset_interpreter() {
  interp::Options o;
  o.argv.push_back("");  // CPython's sys.argv in the REPL
  o.module_path = module_path_for(".");
  interp_.reset();  // the old namespace goes first (arrays free their device buffers)
  interp_ = std::make_unique<interp::Interp>(o);
}

bool ReplSession::guarded(const std::function<void()>& f) {
  try {
    // A Ctrl-C that landed as the previous computation ended must not stop this one.
    interp_->clear_interrupt();
    Computing computing;
    f();
  } catch (const PyError& e) {
    if (is_system_exit(e)) {
      exit_status_ = report_uncaught(*interp_, e);
      return false;
    }
    if (terminal_ && e.exc && e.exc->cls && e.exc->cls->name == "KeyboardInterrupt") std::cerr << "\n";
    report_uncaught(*interp_, e);
  } catch (const std::bad_alloc&) {
    report_internal_error("out of memory");
  } catch (const std::exception& e) {
    report_internal_error(e.what());
  }
  flush_stdout();
  return true;
}

Value ReplSession::eval(const std::string& expr) {
  return interp_->run_interactive("<stdin>", expr + "\n", true);
}

bool ReplSession::run_chunk(const std::string& text) {
  return guarded([&] {
    // Expression statements before the last display as they run; the last one's value
    // comes back and is displayed the same way (repr, bound to `_`; None is not shown).
    interp_->display(interp_->run_interactive("<stdin>", text + "\n"));
  });
}

bool ReplSession::feed_line(const std::string& line) {
  if (pending_.empty()) {
    std::string t = trim(line);
    if (t.empty() || t[0] == '#') return true;
    if (t[0] == ':') return run_command(t);
  } else if (line_starts_new_statement(line) &&
             classify_chunk(join_lines(pending_), true) == ChunkState::Complete) {
    // A finished block followed by a new statement without the blank line: run the block.
    std::string block = join_lines(pending_);
    pending_.clear();
    if (!run_chunk(block)) return false;
    return feed_line(line);
  }
  pending_.push_back(line);
  const bool blank = pending_.size() > 1 && trim(line).empty();
  std::string text = join_lines(pending_);
  if (classify_chunk(text, blank) == ChunkState::Incomplete) return true;
  pending_.clear();
  return run_chunk(text);
}

bool ReplSession::finish() {
  if (pending_.empty()) return true;
  std::string text = join_lines(pending_);
  pending_.clear();
  return run_chunk(text);
}

}  // namespace shard::cli
