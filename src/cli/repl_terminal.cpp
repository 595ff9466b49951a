// The REPL on a terminal: GNU readline through its callback interface (as CPython does), so
// that Ctrl-C at the prompt interrupts the wait for input (select() returns EINTR) instead of
// being swallowed by a restarted read.
#include <sys/select.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>

#include <readline/history.h>
#include <readline/readline.h>

#include "cli/repl_complete.hpp"
#include "cli/repl_session.hpp"
#include "cli/version.hpp"

namespace shard::cli {
namespace {

ReplSession* g_session = nullptr;
std::optional<std::string> g_line;  // the line readline finished (nullopt: Ctrl-D)
bool g_line_done = false;
std::vector<std::string> g_matches;

void on_line(char* line) {
  g_line_done = true;
  if (line) {
    g_line = std::string(line);
    std::free(line);
  } else {
    g_line.reset();
  }
  rl_callback_handler_remove();  // the program's output must not fight with the prompt
}

char* next_match(const char*, int state) {
  static size_t i = 0;
  if (state == 0) i = 0;
  return i < g_matches.size() ? strdup(g_matches[i++].c_str()) : nullptr;
}

char** on_complete(const char* text, int start, int end) {
  rl_attempted_completion_over = 1;  // never fall back to file names
  rl_completion_append_character = '\0';
  const std::string before(rl_line_buffer, static_cast<size_t>(start));
  const bool line_start = before.find_first_not_of(" \t") == std::string::npos;
  if (line_start && end == start) {
    rl_insert_text("    ");  // Tab at the start of a line indents, as in CPython
    return nullptr;
  }
  g_matches = repl_completions(g_session->interp(), text, before);
  if (line_start && text[0] == ':') rl_completion_append_character = ' ';  // `:type ` then EXPR
  if (g_matches.empty()) return nullptr;
  return rl_completion_matches(text, next_match);
}

std::string history_path() {
  if (const char* p = std::getenv("SHARD_HISTORY")) return p;  // "" = no history file
  const char* home = std::getenv("HOME");
  return home && *home ? std::string(home) + "/.shard_history" : "";
}

enum class Input { Line, Interrupted, Eof };

// Reads one line with `prompt`; Ctrl-C gives Interrupted (the partial line is dropped).
Input read_line(const char* prompt) {
  g_line_done = false;
  rl_callback_handler_install(prompt, on_line);
  while (!g_line_done) {
    fd_set fds;
    FD_ZERO(&fds);
    FD_SET(STDIN_FILENO, &fds);
    int r = select(STDIN_FILENO + 1, &fds, nullptr, nullptr, nullptr);
    if (r < 0 && errno == EINTR) {
      if (!take_prompt_interrupt()) continue;
      rl_free_line_state();
      rl_callback_sigcleanup();
      rl_cleanup_after_signal();
      rl_callback_handler_remove();
      return Input::Interrupted;
    }
    if (r < 0) {
      rl_callback_handler_remove();
      return Input::Eof;
    }
    rl_callback_read_char();
  }
  return g_line ? Input::Line : Input::Eof;
}

}  // namespace

int run_repl_terminal(ReplSession& session) {
  g_session = &session;
  session.set_terminal(true);
  rl_catch_signals = 0;  // our SIGINT handler decides (see repl_on_sigint)
  rl_readline_name = "shard";
  rl_attempted_completion_function = on_complete;
  rl_basic_word_break_characters = const_cast<char*>(kCompletionWordBreaks);
  rl_completer_word_break_characters = const_cast<char*>(kCompletionWordBreaks);
  const std::string history = history_path();
  if (!history.empty() && read_history(history.c_str()) != 0)
    write_history(history.c_str());  // create it: append_history needs an existing file
  stifle_history(10000);

  std::cout << "shard " << SHARD_VERSION << " (JAX API) - :help for commands, Ctrl-D to exit\n";
  std::cout.flush();
  bool keep_going = true;
  while (keep_going) {
    Input in = read_line(session.continuing() ? "... " : ">>> ");
    if (in == Input::Interrupted) {
      std::fputs("\nKeyboardInterrupt\n", stdout);
      std::fflush(stdout);
      session.discard_pending();
      continue;
    }
    if (in == Input::Eof) {
      std::fputs("\n", stdout);
      keep_going = session.finish();
      break;
    }
    if (g_line->find_first_not_of(" \t") != std::string::npos) {
      add_history(g_line->c_str());
      if (!history.empty()) append_history(1, history.c_str());
    }
    keep_going = session.feed_line(*g_line);
  }
  if (!history.empty()) history_truncate_file(history.c_str(), 10000);
  g_session = nullptr;
  return session.exit_status();
}

}  // namespace shard::cli
