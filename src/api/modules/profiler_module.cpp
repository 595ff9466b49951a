// jax.profiler: trace(log_dir) (a context manager), start_trace(log_dir) and stop_trace()
// record shard's timeline (exec/timeline.hpp, the same one `--trace FILE` writes) and write
// it where JAX's profiler puts its run: <log_dir>/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/
// <hostname>.trace.json (Chrome-trace JSON, not gzipped; no XProf .xplane.pb). The
// annotations (TraceAnnotation, ...) are in profiler_annotations.cpp.
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <mutex>

#include <fmt/format.h>

#include "api/modules/registration.hpp"
#include "exec/timeline.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

namespace {

using interp::CallArgs;
using interp::ClassP;
using interp::Interp;
using interp::Value;
namespace bi = interp::bi;
namespace fs = std::filesystem;

// Whether the running recording is the profiler's (not --trace's): stop_trace stops only it.
bool profiler_recording = false;

std::string run_directory_name() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm local{};
  localtime_r(&now, &local);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y_%m_%d_%H_%M_%S", &local);
  return buf;
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || !buf[0]) return "localhost";
  return buf;
}

std::string log_dir_arg(Interp& I, const Value& v) {
  if (auto* s = bi::str_of(v)) return s->v;
  if (auto p = I.try_getattr(v, "__fspath__")) return I.str(I.call(*p, std::vector<Value>{}));
  I.raise("TypeError", fmt::format("log_dir must be a str path, not {}", I.type_name(v)));
}

void start_trace(Interp& I, const Value& log_dir_value) {
  const std::string log_dir = log_dir_arg(I, log_dir_value);
  if (exec::timeline_enabled())
    I.raise("RuntimeError", profiler_recording
                                ? "a profiler trace is already being recorded: call jax.profiler.stop_trace() first"
                                : "the timeline is already being recorded for --trace FILE; run without --trace to use "
                                  "jax.profiler");
  const fs::path dir = fs::path(log_dir) / "plugins" / "profile" / run_directory_name();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) I.raise("OSError", fmt::format("cannot create the profile directory '{}': {}", dir.string(), ec.message()));
  if (!exec::timeline_start((dir / (host_name() + ".trace.json")).string()))
    I.raise("RuntimeError", "a trace is already being recorded: call jax.profiler.stop_trace() first");
  profiler_recording = true;
}

void stop_trace(Interp& I) {
  if (!profiler_recording || !exec::timeline_enabled())
    I.raise("RuntimeError", "no profiler trace is being recorded: call jax.profiler.start_trace(log_dir) first");
  profiler_recording = false;
  if (exec::timeline_write().empty()) I.raise("OSError", "cannot write the profiler trace file (see the message above)");
}

// trace(log_dir) returns this: __enter__ starts, __exit__ stops (also when the block raised).
struct TraceScope : interp::NativeObj {
  Value log_dir;
  TraceScope(ClassP c, Value d) : NativeObj(std::move(c)), log_dir(std::move(d)) {}
};

ClassP trace_scope_class() {
  static ClassP c = [] {
    auto k = interp::make_class("trace", {interp::T().object}, "jax.profiler");
    auto self = [k](Interp& I, CallArgs& a, const char* m) -> TraceScope& { return bi::native_self<TraceScope>(I, a, k, "trace", m); };
    bi::def(k, "__enter__", [self](Interp& I, CallArgs& a) -> Value {
      start_trace(I, self(I, a, "__enter__").log_dir);
      return interp::none();
    });
    bi::def(k, "__exit__", [self](Interp& I, CallArgs& a) -> Value {
      self(I, a, "__exit__");
      stop_trace(I);
      return interp::make_bool(false);
    });
    return k;
  }();
  return c;
}

const std::vector<std::string> kTraceParams = {"log_dir", "create_perfetto_link=", "create_perfetto_trace="};

}  // namespace

void install_profiler_annotations(interp::ModuleObj& m);  // profiler_annotations.cpp

void register_profiler_module() {
  Interp::register_builtin_module("jax.profiler", [](Interp&, interp::ModuleObj& m) {
    m.dict.set("start_trace", interp::make_builtin("start_trace", [](Interp& I, CallArgs& a) -> Value {
                 interp::ArgParser p(I, a, "start_trace", kTraceParams);
                 start_trace(I, p.get("log_dir"));
                 return interp::none();
               }));
    m.dict.set("stop_trace", interp::make_builtin("stop_trace", [](Interp& I, CallArgs& a) -> Value {
                 interp::ArgParser p(I, a, "stop_trace", {});
                 stop_trace(I);
                 return interp::none();
               }));
    m.dict.set("trace", interp::make_builtin("trace", [](Interp& I, CallArgs& a) -> Value {
                 interp::ArgParser p(I, a, "trace", kTraceParams);
                 return std::make_shared<TraceScope>(trace_scope_class(), p.get("log_dir"));
               }));
    install_profiler_annotations(m);
  });
}

}  // namespace shard::api
