// The names of the registered built-in modules ("math", "jax", "jax.numpy", ...), for the
// REPL's completion of `import ` lines.
#pragma once
#include <string>
#include <vector>

namespace shard::interp {

std::vector<std::string> builtin_module_names();  // sorted

}  // namespace shard::interp
