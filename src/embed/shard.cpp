// libshard (include/shard/shard.hpp) over the interpreter: each call runs inside
// `translated`, which turns a Python exception into shard::Error with the CLI's text.
//
// Threads: the device runtime, the trace stack and the mesh context are process-wide (as JAX's
// backend is), so every call into any Interpreter holds one process-wide lock: calls from
// several threads run one at a time, never interleaved. Each Interpreter keeps its own mesh
// context (set_mesh / use_mesh): it is swapped in when that Interpreter's call begins.
#include "shard/shard.hpp"

#include <fmt/format.h>

#include <mutex>
#include <unordered_map>

#include "api/device_count.hpp"
#include "api/modules/registration.hpp"
#include "api/objects/array_value.hpp"
#include "exec/array.hpp"
#include "interp/interp.hpp"
#include "runtime/device_runtime.hpp"
#include "trace/trace.hpp"

namespace shard {
namespace ip = interp;

struct Interpreter::Impl {
  std::unique_ptr<ip::Interp> I;
};

struct Value::Impl {
  std::shared_ptr<Interpreter::Impl> owner;  // keeps the interpreter alive
  ip::Value v;
};

namespace {

std::string exception_type(const ip::PyError& e) {
  return e.exc && e.exc->cls ? e.exc->cls->name : "Exception";
}

std::recursive_mutex& api_mutex() {
  static std::recursive_mutex mu;
  return mu;
}

// The mesh context of each Interpreter not running now; the running one's is the global.
const ip::Interp* g_active = nullptr;
std::unordered_map<const ip::Interp*, trace::MeshContext>& saved_contexts() {
  static std::unordered_map<const ip::Interp*, trace::MeshContext> m;
  return m;
}

// Holds the process-wide lock and makes I's mesh context the current one.
class Entered {
 public:
  explicit Entered(const ip::Interp& I) : lock_(api_mutex()) {
    if (g_active == &I) return;
    auto& saved = saved_contexts();
    if (g_active) saved[g_active] = trace::MeshContext::get();
    trace::MeshContext::get() = saved[&I];
    g_active = &I;
  }

 private:
  std::lock_guard<std::recursive_mutex> lock_;
};

void forget_context(const ip::Interp* I) {
  saved_contexts().erase(I);
  if (g_active == I) {
    g_active = nullptr;
    trace::MeshContext::get() = trace::MeshContext();
  }
}

// Runs f; Python errors become shard::Error carrying the CLI's formatted report.
template <typename F>
auto translated(ip::Interp& I, F&& f) -> decltype(f()) {
  Entered entered(I);
  try {
    return f();
  } catch (const ip::PyError& e) {
    std::string text;
    try {
      text = ip::format_uncaught(I, e);
    } catch (const ip::PyError&) {
      text = exception_type(e) + ": <the exception could not be formatted>";
    }
    if (!text.empty() && text.back() == '\n') text.pop_back();
    throw Error(text, exception_type(e));
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(std::string("internal error: ") + e.what(), "InternalError");
  }
}

HostBuffer host_buffer_of(const exec::Array& a) {
  HostBuffer b;
  b.shape.assign(a.type.shape().begin(), a.type.shape().end());
  b.dtype = std::string(types::dtype_name(a.type.dtype()));
  std::vector<uint8_t> bytes = exec::array_to_host(a);
  b.data.resize(bytes.size());
  std::memcpy(b.data.data(), bytes.data(), bytes.size());
  return b;
}

}  // namespace

// ---------------------------------------------------------------- Value

Value::Value() = default;
Value::~Value() {
  if (!impl_) return;
  std::lock_guard<std::recursive_mutex> lock(api_mutex());  // may free interpreter objects
  impl_.reset();
}
Value::Value(const Value& o) {
  std::lock_guard<std::recursive_mutex> lock(api_mutex());
  impl_ = o.impl_;
}
Value& Value::operator=(const Value& o) {
  std::lock_guard<std::recursive_mutex> lock(api_mutex());
  impl_ = o.impl_;
  return *this;
}
Value::Value(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

#define SHARD_VALUE_INTERP()                                                          \
  if (!impl_) throw Error("use of an empty shard::Value", "UsageError");              \
  ip::Interp& I = *impl_->owner->I

std::string Value::repr() const {
  SHARD_VALUE_INTERP();
  return translated(I, [&] { return I.repr(impl_->v); });
}

std::string Value::str() const {
  SHARD_VALUE_INTERP();
  return translated(I, [&] { return I.str(impl_->v); });
}

std::string Value::type_string() const {
  SHARD_VALUE_INTERP();
  return translated(I, [&] {
    if (!api::is_array_like(impl_->v)) return I.repr(impl_->v->cls);
    ip::Value typeof = I.getattr(I.import_module("jax", ast::Loc{}), "typeof");
    return I.str(I.call(typeof, std::vector<ip::Value>{impl_->v}));
  });
}

std::string Value::sharding() const {
  SHARD_VALUE_INTERP();
  return translated(I, [&]() -> std::string {
    if (!api::as_array(impl_->v)) return "";
    auto s = I.try_getattr(impl_->v, "sharding");
    return s ? I.repr(*s) : "";
  });
}

Value Value::attr(const std::string& name) const {
  SHARD_VALUE_INTERP();
  return translated(I, [&] { return Value(std::make_shared<Impl>(Impl{impl_->owner, I.getattr(impl_->v, name)})); });
}

Value Value::operator()(const std::vector<Value>& args) const {
  SHARD_VALUE_INTERP();
  std::vector<ip::Value> values;
  for (const auto& a : args) {
    if (!a.impl_) throw Error("use of an empty shard::Value", "UsageError");
    if (a.impl_->owner != impl_->owner) throw Error("a shard::Value passed to another Interpreter", "UsageError");
    values.push_back(a.impl_->v);
  }
  return translated(I, [&] { return Value(std::make_shared<Impl>(Impl{impl_->owner, I.call(impl_->v, values)})); });
}

HostBuffer Value::to_host() const {
  SHARD_VALUE_INTERP();
  return translated(I, [&] {
    if (api::as_tracer(impl_->v)) I.raise("TypeError", "a traced value has no host data (call to_host outside jit)");
    if (api::ArrayObj* a = api::as_array(impl_->v)) return host_buffer_of(*a->array);
    return host_buffer_of(*api::host_array_from_python(I, impl_->v, std::nullopt));
  });
}

std::vector<HostBuffer> Value::to_host_leaves() const {
  if (!impl_) throw Error("use of an empty shard::Value", "UsageError");
  const ip::Value& v = impl_->v;
  if (!ip::is(v, ip::ObjKind::Tuple) && !ip::is(v, ip::ObjKind::List)) return {to_host()};
  std::vector<HostBuffer> out;
  const auto& items = ip::is(v, ip::ObjKind::Tuple) ? ip::as<ip::TupleObj>(v).items : ip::as<ip::ListObj>(v).items;
  for (const auto& item : items) out.push_back(Value(std::make_shared<Impl>(Impl{impl_->owner, item})).to_host());
  return out;
}

#undef SHARD_VALUE_INTERP

// ---------------------------------------------------------------- Interpreter

Interpreter::Interpreter(int devices, std::vector<std::string> module_path) : impl_(std::make_shared<Impl>()) {
  std::lock_guard<std::recursive_mutex> lock(api_mutex());
  if (devices < 1) throw Error(fmt::format("Interpreter: device count must be at least 1, got {}", devices), "UsageError");
  if (runtime::global_runtime_started() && api::device_count() != devices)
    throw Error(fmt::format("Interpreter: this process already runs {} devices (asked for {}); the device count "
                            "is fixed by the first Interpreter",
                            api::device_count(), devices),
                "UsageError");
  api::register_api_modules();
  api::set_forced_device_count(devices);
  ip::Options o;
  o.argv.push_back("");
  o.module_path = module_path.empty() ? std::vector<std::string>{"."} : std::move(module_path);
  if (const char* stdlib = std::getenv("SHARD_STDLIB"); stdlib && *stdlib) o.module_path.push_back(stdlib);
  impl_->I = std::make_unique<ip::Interp>(o);
}

Interpreter::~Interpreter() {
  if (!impl_) return;
  std::lock_guard<std::recursive_mutex> lock(api_mutex());
  if (impl_.use_count() == 1) forget_context(impl_->I.get());  // Values may still keep it alive
  impl_.reset();
}
Interpreter::Interpreter(Interpreter&&) noexcept = default;
Interpreter& Interpreter::operator=(Interpreter&&) noexcept = default;

void Interpreter::run(const std::string& source, const std::string& name) {
  ip::Interp& I = *impl_->I;
  translated(I, [&] { I.run_interactive(name, source, false); });
}

void Interpreter::run_file(const std::string& path) {
  ip::Interp& I = *impl_->I;
  translated(I, [&] { I.run_file(path); });
}

Value Interpreter::eval(const std::string& expression) {
  ip::Interp& I = *impl_->I;
  return translated(I, [&] {
    // Checked as an expression first, so that "x = 1" is an error and not an assignment.
    ip::Value v = I.run_interactive("<embed>", "(" + expression + "\n)\n", true);
    return Value(std::make_shared<Value::Impl>(Value::Impl{impl_, v}));
  });
}

Value Interpreter::get(const std::string& name) {
  ip::Interp& I = *impl_->I;
  return translated(I, [&] {
    ip::Value* v = I.main_module()->dict.find(name);
    if (!v || !*v) I.raise("NameError", fmt::format("name '{}' is not defined", name));
    return Value(std::make_shared<Value::Impl>(Value::Impl{impl_, *v}));
  });
}

Value Interpreter::function(const std::string& name) {
  Value f = get(name);
  ip::Interp& I = *impl_->I;
  translated(I, [&] {
    ip::Value callable = I.builtins()->dict.find("callable") ? *I.builtins()->dict.find("callable") : nullptr;
    if (callable && !I.truthy(I.call(callable, std::vector<ip::Value>{f.impl_->v})))
      I.raise("TypeError", fmt::format("'{}' object is not callable", I.type_name(f.impl_->v)));
  });
  return f;
}

void Interpreter::set(const std::string& name, const Value& v) {
  if (!v.impl_ || v.impl_->owner != impl_) throw Error("Interpreter::set: a value of another Interpreter", "UsageError");
  Entered entered(*impl_->I);
  impl_->I->main_module()->dict.set(name, v.impl_->v);
}

Value Interpreter::array(const HostBuffer& b) {
  ip::Interp& I = *impl_->I;
  return translated(I, [&] {
    auto dtype = types::dtype_from_name(b.dtype);
    if (!dtype) I.raise("TypeError", fmt::format("data type '{}' not understood", b.dtype));
    for (int64_t d : b.shape)
      if (d < 0) I.raise("ValueError", "negative dimensions are not allowed");
    const size_t want = static_cast<size_t>(b.num_elements()) * types::dtype_size(*dtype);
    if (b.data.size() != want)
      I.raise("ValueError", fmt::format("buffer of {} bytes for shape ({}) of {}: expected {} bytes", b.data.size(),
                                        fmt::join(b.shape, ", "), b.dtype, want));
    api::ensure_device_runtime();
    types::ArrayType t(*dtype, types::Shape(b.shape.begin(), b.shape.end()));
    auto host = exec::array_from_host(b.data.data(), t,
                                      types::NamedSharding(exec::single_device_mesh(), types::PartitionSpec()), true);
    return Value(std::make_shared<Value::Impl>(Value::Impl{impl_, api::wrap(host, true)}));
  });
}

std::vector<HostBuffer> Interpreter::call(const std::string& name, const std::vector<HostBuffer>& args) {
  Value f = function(name);
  std::vector<Value> values;
  for (const auto& b : args) values.push_back(array(b));
  return f(values).to_host_leaves();
}

int Interpreter::device_count() const {
  return translated(*impl_->I, [] { return api::device_count(); });
}

}  // namespace shard
