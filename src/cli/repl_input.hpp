// Deciding when the REPL has a whole chunk to run (CPython's codeop rule, on our parser):
// the text so far is parsed; a syntax error that more input could cure (an unclosed bracket
// or triple-quoted string, a block header without its body, an error found only at the end
// of the text) means "continue with `... `"; a compound statement waits for a blank line.
#pragma once
#include <string>
#include <string_view>

namespace shard::cli {

enum class ChunkState {
  Incomplete,  // show the continuation prompt and read another line
  Complete,    // run it (a syntax error that more input cannot fix is also "complete":
               // running it reports the error)
};

// `text` is the accumulated input, lines separated by '\n' (no trailing newline needed).
// `blank_line_ends` is true when the last line entered was empty, which ends a block.
ChunkState classify_chunk(const std::string& text, bool blank_line_ends);

// Whether the accumulated `pending` block (a complete compound statement still waiting for
// its blank line) should be run before `line`: true when `line` starts at column 0 and
// cannot continue the block (not `else:`, `elif`, `except`, `finally`, a closing bracket...).
// This spares pasted code and session files the blank line CPython needs after a block.
bool line_starts_new_statement(std::string_view line);

}  // namespace shard::cli
