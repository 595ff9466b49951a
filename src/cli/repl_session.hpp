// One REPL session: the interpreter with its persistent __main__, the input accumulated
// towards the next chunk, and the `:` commands. The terminal front end (readline) and the
// stream front end (`shard repl` with piped stdin or a session file) both feed it lines.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "interp/interp.hpp"

namespace shard::cli {

class ReplSession {
 public:
  explicit ReplSession(const CliOptions& opts);
  ~ReplSession();
  ReplSession(const ReplSession&) = delete;
  ReplSession& operator=(const ReplSession&) = delete;

  // Feeds one line of input (without its newline). Runs the chunk once it is complete.
  // Returns false when the session must end (SystemExit: see exit_status()).
  bool feed_line(const std::string& line);
  // End of input: runs whatever is pending. Returns false as feed_line does.
  bool finish();
  // Ctrl-C at the prompt: forgets the partial chunk.
  void discard_pending() { pending_.clear(); }
  // Whether the next prompt is "... " (a chunk is being continued).
  bool continuing() const { return !pending_.empty(); }
  int exit_status() const { return exit_status_; }
  // On a terminal the echoed "^C" of an interrupted computation gets its own line.
  void set_terminal(bool on) { terminal_ = on; }

  interp::Interp& interp() { return *interp_; }

 private:
  bool run_chunk(const std::string& text);
  // `:name args`: returns false when the session must end.
  bool run_command(const std::string& line);
  void reset_interpreter();
  // Runs `f`, reporting a Python error in the script format (the session goes on); false
  // if it was a SystemExit.
  bool guarded(const std::function<void()>& f);
  // Evaluates an expression in __main__ (errors propagate as PyError).
  interp::Value eval(const std::string& expr);
  // "FN ARGS" -> FN's value and ARGS, read as the call FN(ARGS) (`:ir`, `:ledger`).
  std::pair<interp::Value, interp::CallArgs> eval_fn_args(const std::string& arg);
  interp::Value jax_attr(const char* name);

  // Commands (repl_commands.cpp).
  void cmd_help();
  void cmd_type(const std::string& arg);
  void cmd_ir(const std::string& arg);
  void cmd_ledger(const std::string& arg);
  void cmd_devices();
  void cmd_time(const std::string& arg);
  void cmd_load(const std::string& arg);

  CliOptions opts_;
  std::unique_ptr<interp::Interp> interp_;
  std::vector<std::string> pending_;  // lines of the chunk being entered
  int exit_status_ = 0;
  bool terminal_ = false;
};

// SIGINT while the session runs code raises KeyboardInterrupt in it; at the prompt it only
// sets a flag the front end polls (take_prompt_interrupt). Async-signal-safe.
void repl_on_sigint();
bool take_prompt_interrupt();

}  // namespace shard::cli
