// jit statistics and cost_analysis() (see jit_internal.hpp).
#include "api/transforms/jit_stats.hpp"

#include "exec/run_global.hpp"

#include <fmt/format.h>

#include "api/transforms/jit_internal.hpp"
#include "interp/builtins/support.hpp"
#include "spmd/program_text.hpp"

namespace shard::api {

namespace jit_detail {

namespace {

std::vector<std::shared_ptr<JitStats>>& registry() {
  static std::vector<std::shared_ptr<JitStats>> r;
  return r;
}

int64_t bytes_of(const types::ArrayType& t) {
  return t.num_elements() * static_cast<int64_t>(types::dtype_size(t.dtype()));
}

}  // namespace

std::shared_ptr<JitStats> register_stats(std::string name) {
  auto s = std::make_shared<JitStats>();
  s->name = std::move(name);
  registry().push_back(s);
  return s;
}

void count_collectives(JitStats& s, const std::vector<spmd::CollectiveRecord>& ledger) {
  for (const auto& r : ledger) {
    auto& [count, bytes] = s.collectives[r.kind];
    ++count;
    bytes += r.bytes_per_device;
  }
}

Value cost_analysis(Interp& I, const ir::Function& global, const exec::CompiledProgram* prog) {
  double flops = 0, transcendentals = 0, bytes = 0;
  for (const auto& op : global.ops) {
    switch (op.kind) {
      case ir::OpKind::Elementwise: {
        const double n = static_cast<double>(global.type(op.results[0]).num_elements());
        const auto& info = ir::ew_info(op.attr<ir::attr::Elementwise>().op);
        flops += n * info.flops;
        if (info.transcendental) transcendentals += n;
        break;
      }
      case ir::OpKind::Reduce:
      case ir::OpKind::ArgReduce:
      case ir::OpKind::Cumulative:
        flops += static_cast<double>(global.type(op.operands[0]).num_elements());
        break;
      case ir::OpKind::DotGeneral: {
        // 2*M*N*K: one multiply and one add per result element and contracted index.
        double k = 1;
        const auto& lhs = global.type(op.operands[0]).shape();
        for (auto d : op.attr<ir::attr::DotGeneral>().lhs_contracting) k *= static_cast<double>(lhs.at(static_cast<size_t>(d)));
        flops += 2.0 * static_cast<double>(global.type(op.results[0]).num_elements()) * k;
        break;
      }
      default:
        break;
    }
  }
  // Bytes: what one device's ops read and write (the global IR before partitioning).
  const ir::Function& program = prog ? prog->parts.local : global;
  for (const auto& op : program.ops) {
    for (auto v : op.operands) bytes += static_cast<double>(bytes_of(program.type(v)));
    for (auto v : op.results) bytes += static_cast<double>(bytes_of(program.type(v)));
  }
  auto d = interp::make_dict();
  d->set(I, interp::make_str("flops"), interp::make_float(flops));
  d->set(I, interp::make_str("transcendentals"), interp::make_float(transcendentals));
  d->set(I, interp::make_str("bytes accessed"), interp::make_float(bytes));
  std::vector<Value> records;
  if (prog)
    for (const auto& r : prog->parts.ledger) {
      auto rd = interp::make_dict();
      std::vector<Value> axes;
      for (auto& a : r.axes) axes.push_back(interp::make_str(a));
      rd->set(I, interp::make_str("kind"), interp::make_str(r.kind));
      rd->set(I, interp::make_str("axes"), interp::make_tuple(std::move(axes)));
      rd->set(I, interp::make_str("bytes_per_device"), interp::make_int(r.bytes_per_device));
      rd->set(I, interp::make_str("bytes_between_processes"), interp::make_int(r.bytes_between_processes));
      rd->set(I, interp::make_str("reason"), interp::make_str(r.reason));
      rd->set(I, interp::make_str("source"), interp::make_str(spmd::collective_source(r.loc)));
      records.push_back(rd);
    }
  d->set(I, interp::make_str("collectives"), interp::make_list(std::move(records)));
  return d;
}

}  // namespace jit_detail

JitTimeTotals jit_time_totals() {
  JitTimeTotals t;
  for (const auto& s : jit_detail::registry()) {
    t.trace_ns += s->trace_ns;
    t.compile_ns += s->compile_ns;
    t.run_ns += s->run_ns;
  }
  return t;
}

void print_jit_stats(std::ostream& out, bool with_times) {
  std::string text;
  auto ms = [](int64_t ns) { return fmt::format("{:.3f}", static_cast<double>(ns) / 1e6); };
  for (const auto& s : jit_detail::registry()) {
    if (s->calls == 0 && s->traces == 0) continue;
    std::string coll;
    for (const auto& [kind, cb] : s->collectives)
      coll += fmt::format("{}{} x{} ({} bytes per device)", coll.empty() ? "" : ", ", kind, cb.first, cb.second);
    text += fmt::format("{:<20} {:>7} {:>7} {:>8}", s->name, s->calls, s->traces, s->compiles);
    if (with_times) text += fmt::format(" {:>10} {:>10} {:>10}", ms(s->trace_ns), ms(s->compile_ns), ms(s->run_ns));
    text += fmt::format("  {}\n", coll.empty() ? "none" : coll);
  }
  const auto cache = exec::program_cache_size();
  if (!text.empty()) {
    out << "--- jit statistics: totals over all calls of the run. A call with new argument types first\n"
           "    traces and compiles; every call runs its program. Collectives are counted per call (x N\n"
           "    executions), with the bytes each device sent summed over them.\n";
    out << fmt::format("{:<20} {:>7} {:>7} {:>8}", "function", "calls", "traces", "compiles");
    if (with_times) out << fmt::format(" {:>10} {:>10} {:>10}", "trace ms", "compile ms", "run ms");
    out << "  collectives\n" << text;
  }
  out << fmt::format("program cache: {} compiled programs (eager ops and jit; at most {}, least recently used dropped)\n",
                     cache.programs, cache.limit);
  out.flush();
}

}  // namespace shard::api
