#include "api/modules/jax_config.hpp"

#include <fmt/format.h>

#include <string>

#include "api/device_count.hpp"
#include "interp/builtins/support.hpp"
#include "runtime/device_runtime.hpp"
#include "types/jax_version.hpp"
#include "types/x64_mode.hpp"

namespace shard::api {

using interp::CallArgs;
using interp::Interp;
using interp::ObjKind;
using interp::Value;
namespace bi = interp::bi;

namespace {

struct Option {
  const char* name;
  Value (*read)(Interp&);
  void (*write)(Interp&, const Value&);
};

[[noreturn]] void unsupported(Interp& I, const std::string& what) { I.raise("NotImplementedError", what); }

bool bool_value(Interp& I, const Value& v, const char* name) {
  if (v->kind != ObjKind::Bool && v->kind != ObjKind::Int) I.raise("TypeError", fmt::format("{} must be a bool, got {}", name, I.repr(v)));
  return I.truthy(v);
}

void set_version(Interp& I, const Value& v) {
  std::string s = v->kind == ObjKind::Str ? bi::str_arg(I, v, "shard_jax_version") : I.str(v);
  auto parsed = types::parse_jax_version(s);
  if (!parsed) I.raise("ValueError", fmt::format("shard_jax_version must be '0.6' or 'current' (JAX 0.10), got {}", I.repr(v)));
  types::set_jax_version(*parsed);
  Value jax = I.import_module("jax", I.current_loc());
  I.setattr(jax, "__version__", interp::make_str(types::jax_version_string(*parsed)));
}

const Option kOptions[] = {
    {"shard_jax_version",
     [](Interp&) -> Value { return interp::make_str(types::jax_version() == types::JaxVersion::Current ? "current" : "0.6"); }, set_version},
    // Arrays made before a change keep their dtypes, as in JAX.
    {"jax_enable_x64", [](Interp&) -> Value { return interp::make_bool(types::x64_enabled()); },
     [](Interp& I, const Value& v) { types::set_x64_enabled(bool_value(I, v, "jax_enable_x64")); }},
    {"jax_num_cpu_devices", [](Interp&) -> Value { return interp::make_int(resolve_device_count()); },
     [](Interp& I, const Value& v) {
       auto n = bi::int_of(v);
       if (!n || *n < 1) I.raise("ValueError", fmt::format("jax_num_cpu_devices must be a positive int, got {}", I.repr(v)));
       if (*n == resolve_device_count()) return;
       if (runtime::global_runtime_started())
         I.raise("RuntimeError", "jax_num_cpu_devices config should be updated before backends are initialized.");
       if (device_count_forced())
         I.raise("RuntimeError", fmt::format("jax_num_cpu_devices={} conflicts with --devices {} given on the command line", *n, resolve_device_count()));
       set_config_device_count(static_cast<int>(*n));
     }},
    {"jax_platforms", [](Interp&) -> Value { return interp::make_str("cpu"); },
     [](Interp& I, const Value& v) {
       if (v->kind == ObjKind::None) return;
       std::string s = I.str(v);
       if (s != "cpu" && !s.empty()) I.raise("RuntimeError", fmt::format("Unable to initialize backend '{}': shard runs on simulated CPU devices only", s));
     }},
    {"jax_platform_name", [](Interp&) -> Value { return interp::make_str("cpu"); },
     [](Interp& I, const Value& v) {
       std::string s = I.str(v);
       if (s != "cpu" && !s.empty()) I.raise("RuntimeError", fmt::format("Unable to initialize backend '{}': shard runs on simulated CPU devices only", s));
     }},
    {"jax_default_matmul_precision", [](Interp&) -> Value { return interp::none(); },
     [](Interp&, const Value&) {}},  // CPU float32 matmuls are already full precision
    {"jax_threefry_partitionable", [](Interp&) -> Value { return interp::make_bool(true); },
     [](Interp& I, const Value& v) {
       if (!bool_value(I, v, "jax_threefry_partitionable")) unsupported(I, "jax_threefry_partitionable=False: shard's PRNG is always the partitionable threefry");
     }},
    {"jax_debug_nans", [](Interp&) -> Value { return interp::make_bool(false); },
     [](Interp& I, const Value& v) {
       if (bool_value(I, v, "jax_debug_nans")) unsupported(I, "jax_debug_nans is not supported by shard yet");
     }},
    {"jax_disable_jit", [](Interp&) -> Value { return interp::make_bool(false); },
     [](Interp& I, const Value& v) {
       if (bool_value(I, v, "jax_disable_jit")) unsupported(I, "jax_disable_jit is not supported by shard yet");
     }},
};

const Option* find_option(std::string_view name) {
  for (const auto& o : kOptions)
    if (name == o.name) return &o;
  return nullptr;
}

const Option& option_arg(Interp& I, const Value& v) {
  std::string name = bi::str_arg(I, v, "name");
  const Option* o = find_option(name);
  if (!o) I.raise("AttributeError", fmt::format("Unrecognized config option: {}", name));
  return *o;
}

}  // namespace

Value jax_config() {
  static Value config = [] {
    auto c = interp::make_class("Config", {interp::T().object}, "jax._src.config");
    bi::def(c, "update", [](Interp& I, CallArgs& a) -> Value {
      interp::ArgParser p(I, a, "update", {"$self", "name", "val"});
      option_arg(I, p.get("name")).write(I, p.get("val"));
      return interp::none();
    });
    bi::def(c, "read", [](Interp& I, CallArgs& a) -> Value {
      interp::ArgParser p(I, a, "read", {"$self", "name"});
      return option_arg(I, p.get("name")).read(I);
    });
    for (const auto& o : kOptions) {
      auto read = o.read;
      bi::def_property(c, o.name, [read](Interp& I, CallArgs&) -> Value { return read(I); });
    }
    bi::def(c, "__getattr__", [](Interp& I, CallArgs& a) -> Value {
      I.raise("AttributeError", fmt::format("Unrecognized config option: {}", a.args.size() > 1 ? I.str(a.args[1]) : std::string("?")));
    });
    bi::def(c, "__repr__", [](Interp&, CallArgs&) -> Value { return interp::make_str("<jax._src.config.Config object>"); });
    return Value(std::make_shared<interp::InstanceObj>(c));
  }();
  return config;
}

}  // namespace shard::api
