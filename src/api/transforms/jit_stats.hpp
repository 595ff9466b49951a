// `shard --stats`: what every jitted function cost over the run (calls, traces, compiles, the
// wall time of each, and the collectives its programs executed), printed by the CLI at exit.
#pragma once
#include <cstdint>
#include <ostream>

namespace shard::api {

// One row per jitted function that was called or traced (nothing when there was none);
// without `with_times` the ms columns are left out (--stats=counts).
void print_jit_stats(std::ostream& out, bool with_times = true);

// The wall time every jitted function spent so far, summed (the REPL's :time takes the
// difference around an expression).
struct JitTimeTotals {
  int64_t trace_ns = 0, compile_ns = 0, run_ns = 0;
};
JitTimeTotals jit_time_totals();

}  // namespace shard::api
