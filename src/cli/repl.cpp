#include "cli/repl.hpp"

#include <unistd.h>

#include <csignal>
#include <fstream>
#include <iostream>

#include "cli/repl_session.hpp"
#include "cli/run_program.hpp"

namespace shard::cli {

int run_repl_terminal(ReplSession& session);  // repl_terminal.cpp

namespace {

void on_sigint(int) { repl_on_sigint(); }

// SIGINT without SA_RESTART, so that a blocking read at the prompt returns EINTR.
void install_sigint_handler() {
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  sigaction(SIGINT, &sa, nullptr);
}

int run_stream(ReplSession& session, std::istream& in) {
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!session.feed_line(line)) return session.exit_status();
  }
  session.finish();
  return session.exit_status();
}

}  // namespace

int run_repl(const CliOptions& o) {
  std::ifstream file;
  if (!o.script.empty()) {
    file.open(o.script, std::ios::binary);
    if (!file) {
      std::cerr << "shard: can't open file '" << o.script << "': No such file or directory\n";
      return kExitUsage;
    }
  }
  try {
    ReplSession session(o);
    install_sigint_handler();
    if (file.is_open()) return run_stream(session, file);
    if (isatty(STDIN_FILENO)) return run_repl_terminal(session);
    return run_stream(session, std::cin);
  } catch (const std::exception& e) {
    return report_internal_error(e.what());
  }
}

}  // namespace shard::cli
