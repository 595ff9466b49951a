// Tab completion for the REPL: names (globals of __main__, builtins, keywords), attributes
// of a dotted name (`obj.at`, `jnp.ar` — through dir()/getattr, as CPython's rlcompleter),
// and `:` commands at the start of a line.
#pragma once
#include <string>
#include <vector>

#include "interp/interp.hpp"

namespace shard::cli {

// The completions of `word` (the text before the cursor back to the last delimiter; it may
// contain dots). `line_start` tells whether the word begins the line (then `:cmd` completes).
// Sorted, without duplicates; each is a full replacement for `word`.
std::vector<std::string> repl_completions(interp::Interp& I, const std::string& word, bool line_start);

// The characters that end a completion word (everything but identifier characters, '.'
// and ':').
extern const char* const kCompletionWordBreaks;

}  // namespace shard::cli
