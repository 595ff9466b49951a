// The interactive REPL (`shard repl`, or `shard` on a terminal): readline editing with
// ~/.shard_history, `>>> ` / `... ` prompts, results echoed with repr, errors in the script
// format with the session kept, Ctrl-C, Tab completion and the `:` commands (repl_session.hpp).
// Not on a terminal (piped stdin, or `shard repl FILE`) the same session reads its lines from
// the stream without prompts, echoing results, so sessions can be golden-tested.
#pragma once
#include "cli/options.hpp"

namespace shard::cli {

// Runs the REPL; returns the exit status (0, or a SystemExit's code).
int run_repl(const CliOptions& o);

}  // namespace shard::cli
