// Tab completion for the REPL: names (globals of __main__, builtins, keywords), attributes
// of a dotted name (`obj.at`, `jnp.ar` — through dir()/getattr, as CPython's rlcompleter),
// `:` commands at the start of a line, module names after `import ` / `from `, and a
// module's names after `from MODULE import `.
#pragma once
#include <string>
#include <vector>

#include "interp/interp.hpp"

namespace shard::cli {

// The completions of `word` (the text before the cursor back to the last delimiter; it may
// contain dots); `before` is the line before the word (blank: `:cmd` completes; an import
// statement: module names). Sorted, without duplicates; each is a full replacement for `word`.
std::vector<std::string> repl_completions(interp::Interp& I, const std::string& word, const std::string& before);

// The characters that end a completion word (everything but identifier characters, '.'
// and ':').
extern const char* const kCompletionWordBreaks;

}  // namespace shard::cli
