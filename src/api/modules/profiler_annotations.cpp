// jax.profiler's annotations: TraceAnnotation(name) and StepTraceAnnotation(name,
// step_num=...) as context managers, annotate_function(func, name=None) as a decorator. Each
// use becomes a slice on the timeline's host track (exec/timeline.hpp) around what it
// encloses, so a program's own phases line up with the jit compiles and device kernels
// below them. Outside a recording they cost one check.
#include <fmt/format.h>

#include "exec/timeline.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

namespace {

using interp::CallArgs;
using interp::ClassP;
using interp::Interp;
using interp::Value;
namespace bi = interp::bi;

struct AnnotationObj : interp::NativeObj {
  std::string name;
  std::vector<int64_t> starts;  // of the open __enter__s (0: not recording then)
  AnnotationObj(ClassP c, std::string n) : NativeObj(std::move(c)), name(std::move(n)) {}
};

ClassP annotation_class(const char* class_name) {
  auto k = interp::make_class(class_name, {interp::T().object}, "jax.profiler");
  auto self = [k, class_name](Interp& I, CallArgs& a, const char* m) -> AnnotationObj& {
    return bi::native_self<AnnotationObj>(I, a, k, class_name, m);
  };
  bi::def(k, "__enter__", [self](Interp& I, CallArgs& a) -> Value {
    self(I, a, "__enter__").starts.push_back(exec::timeline_enabled() ? exec::timeline_now() : 0);
    return a.args[0];
  });
  bi::def(k, "__exit__", [self](Interp& I, CallArgs& a) -> Value {
    auto& o = self(I, a, "__exit__");
    if (!o.starts.empty()) {
      const int64_t t0 = o.starts.back();
      o.starts.pop_back();
      if (t0 && exec::timeline_enabled()) exec::timeline_record_host(o.name, t0, exec::timeline_now());
    }
    return interp::make_bool(false);
  });
  bi::def(k, "__repr__", [self](Interp& I, CallArgs& a) -> Value {
    return interp::make_str(fmt::format("<jax.profiler.{} {}>", self(I, a, "__repr__").cls->name,
                                        bi::str_repr(self(I, a, "__repr__").name)));
  });
  return k;
}

ClassP trace_annotation_class() {
  static ClassP c = annotation_class("TraceAnnotation");
  return c;
}

ClassP step_annotation_class() {
  static ClassP c = annotation_class("StepTraceAnnotation");
  return c;
}

std::string name_arg(Interp& I, const Value& v, const char* fname) {
  if (auto* s = bi::str_of(v)) return s->v;
  I.raise("TypeError", fmt::format("{}() name must be a str, not {}", fname, I.type_name(v)));
}

}  // namespace

void install_profiler_annotations(interp::ModuleObj& m) {
  // Keyword arguments beyond the name are metadata JAX attaches to the event; shard's
  // timeline keeps only the name (and the step number).
  m.dict.set("TraceAnnotation", interp::make_builtin("TraceAnnotation", [](Interp& I, CallArgs& a) -> Value {
               interp::ArgParser p(I, a, "TraceAnnotation", {"name", "**kwargs"});
               return std::make_shared<AnnotationObj>(trace_annotation_class(), name_arg(I, p.get("name"), "TraceAnnotation"));
             }));
  m.dict.set("StepTraceAnnotation", interp::make_builtin("StepTraceAnnotation", [](Interp& I, CallArgs& a) -> Value {
               interp::ArgParser p(I, a, "StepTraceAnnotation", {"name", "**kwargs"});
               std::string name = name_arg(I, p.get("name"), "StepTraceAnnotation");
               for (auto& [key, v] : p.varkw())
                 if (key == "step_num") name += " " + I.str(v);  // "train 3": one slice per step
               return std::make_shared<AnnotationObj>(step_annotation_class(), std::move(name));
             }));
  m.dict.set("annotate_function", interp::make_builtin("annotate_function", [](Interp& I, CallArgs& a) -> Value {
               interp::ArgParser p(I, a, "annotate_function", {"func", "name=", "**kwargs"});
               Value func = p.get("func");
               std::string name = p.get("name") && !interp::is(p.get("name"), interp::ObjKind::None)
                                      ? name_arg(I, p.get("name"), "annotate_function")
                                      : bi::str_of_value(I, I.getattr(func, "__name__"));
               return interp::make_builtin(name, [func, name](Interp& I2, CallArgs& call) -> Value {
                 if (!exec::timeline_enabled()) return I2.call(func, call);
                 exec::HostSlice slice(name);
                 return I2.call(func, call);
               });
             }));
}

}  // namespace shard::api
