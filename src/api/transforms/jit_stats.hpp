// `shard --stats`: what every jitted function cost over the run (calls, traces, compiles and
// the collectives its programs executed), printed by the CLI at exit.
#pragma once
#include <ostream>

namespace shard::api {

// One row per jitted function that was called or traced (nothing when there was none).
void print_jit_stats(std::ostream& out);

}  // namespace shard::api
