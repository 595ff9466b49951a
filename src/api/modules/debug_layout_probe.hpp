// Layout probes from Python (ir/layout_probe.hpp): jax.debug.inspect_array_sharding and
// visualize_array_sharding of a value traced by jax.jit. As in JAX, where the callback runs
// when XLA partitions the program, a probe reports the sharding the partitioner chose when
// its jitted function is compiled (once per compile, not per call): jit calls
// report_layout_probes on each program it compiles.
#pragma once
#include <functional>

#include "exec/compile_pipeline.hpp"
#include "interp/interp.hpp"
#include "trace/trace.hpp"
#include "types/named_sharding.hpp"

namespace shard::api {

// What a probe does with the chosen sharding: a NamedSharding over the program's mesh whose
// spec drops trailing unsharded dims (JAX's parse_flatten_op_sharding), and whose mesh has
// Auto axes (JAX rebuilds it from names and devices). `single_device`: the program runs on
// one device without a mesh (then JAX reports the device's sharding).
using LayoutReport = std::function<void(interp::Interp&, const types::NamedSharding& sharding, bool single_device)>;

// Marks a trace jax.jit is recording, for its lifetime: probes inside it (or in its regions)
// will be reported when the program is compiled.
class JitTraceScope {
 public:
  explicit JitTraceScope(const trace::Trace* t);
  ~JitTraceScope();
  JitTraceScope(const JitTraceScope&) = delete;
  JitTraceScope& operator=(const JitTraceScope&) = delete;

 private:
  const trace::Trace* trace_;
};
// Whether `t` or one of its ancestors is a trace jit is recording.
bool traced_for_jit(const trace::Trace& t);

// Records a probe of traced value `x` (a tracer) that calls `report` at compile time.
void record_layout_probe(interp::Interp& I, const interp::Value& x, LayoutReport report);

// Runs the reports of the probes in a program jit has just compiled, in program order.
void report_layout_probes(interp::Interp& I, const exec::CompiledProgram& program);

}  // namespace shard::api
