// libshard: embedding the shard interpreter (Python syntax, JAX's API, simulated devices)
// in a C++ program. The one public header: it shows no interpreter or LLVM types.
//
//   shard::Interpreter py(8);                       // 8 simulated devices
//   py.run("import jax\ndef f(x):\n    return x * 2\n");
//   std::vector<shard::HostBuffer> out = py.call("f", {shard::HostBuffer::of<float>({2}, {1, 2})});
//   out[0].values<float>();                         // {2, 4}
//
// Python errors come back as shard::Error, whose what() is the message the `shard` command
// prints for an uncaught error ("FILE:LINE:COL: Type: message", the line, a caret, the
// traceback). An Interpreter and its Values are used from one thread at a time. The device
// count is per process (as JAX's backend): the first Interpreter fixes it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

// libshard exports only what this header declares (the library is built with hidden
// visibility and without the symbols of the static libraries inside it).
#if defined(_WIN32)
#define SHARD_API
#else
#define SHARD_API __attribute__((visibility("default")))
#endif

namespace shard {

// A Python exception (or an interpreter failure) raised by an embedding call.
class SHARD_API Error : public std::runtime_error {
 public:
  Error(const std::string& formatted, std::string type) : std::runtime_error(formatted), type_(std::move(type)) {}
  // The Python exception type: "TypeError", "ZeroDivisionError", ... ("InternalError" for
  // a bug in shard, "UsageError" for a misuse of this API).
  const std::string& type() const { return type_; }

 private:
  std::string type_;
};

// The numpy dtype name of a C++ element type (HostBuffer::of / values).
template <typename T> constexpr const char* dtype_name_of();
template <> constexpr const char* dtype_name_of<float>() { return "float32"; }
template <> constexpr const char* dtype_name_of<double>() { return "float64"; }
template <> constexpr const char* dtype_name_of<int32_t>() { return "int32"; }
template <> constexpr const char* dtype_name_of<int64_t>() { return "int64"; }
template <> constexpr const char* dtype_name_of<uint8_t>() { return "uint8"; }
template <> constexpr const char* dtype_name_of<uint32_t>() { return "uint32"; }

// An array in host memory: row-major elements of `dtype` ("float32", "int32", "bool", ...;
// numpy's names) with `shape` (empty = a scalar).
struct HostBuffer {
  std::vector<int64_t> shape;
  std::string dtype;
  std::vector<std::byte> data;

  int64_t num_elements() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }

  template <typename T>
  static HostBuffer of(std::vector<int64_t> shape, const std::vector<T>& values) {
    HostBuffer b{std::move(shape), dtype_name_of<T>(), {}};
    if (static_cast<int64_t>(values.size()) != b.num_elements())
      throw Error("HostBuffer::of: " + std::to_string(values.size()) + " values for " +
                      std::to_string(b.num_elements()) + " elements", "UsageError");
    b.data.resize(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(b.data.data(), values.data(), b.data.size());
    return b;
  }

  // The elements as T; T must match dtype.
  template <typename T>
  std::vector<T> values() const {
    if (dtype != dtype_name_of<T>())
      throw Error(std::string("HostBuffer::values: buffer holds ") + dtype + ", asked for " + dtype_name_of<T>(),
                  "UsageError");
    std::vector<T> out(data.size() / sizeof(T));
    if (!out.empty()) std::memcpy(out.data(), data.data(), out.size() * sizeof(T));
    return out;
  }
};

class Interpreter;

// A Python value held by an Interpreter (an array, a function, a number...). Copies share
// the value; it keeps its interpreter alive.
class SHARD_API Value {
 public:
  Value();
  ~Value();
  Value(const Value&);
  Value& operator=(const Value&);

  std::string repr() const;  // repr(v)
  std::string str() const;   // str(v)
  // The abstract type: str(jax.typeof(v)) for an array ("ShapedArray(float32[8@dp,3])":
  // shardings on Explicit axes included), else the Python type ("<class 'int'>").
  std::string type_string() const;
  // repr(v.sharding) for a concrete array ("NamedSharding(mesh=..., spec=...)"); "" otherwise.
  std::string sharding() const;
  Value attr(const std::string& name) const;      // getattr(v, name)
  Value operator()(const std::vector<Value>& args) const;  // v(*args)
  // The value as a host array (arrays, numbers, nested lists of numbers).
  HostBuffer to_host() const;
  // The leaves of a result: a tuple or list gives one buffer per element, anything else one.
  std::vector<HostBuffer> to_host_leaves() const;

 private:
  friend class Interpreter;
  struct Impl;
  explicit Value(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

class SHARD_API Interpreter {
 public:
  // `devices` simulated devices (the process's count is fixed by the first Interpreter; a
  // later one asking for another count throws). `module_path`: directories searched by
  // `import name` (default: the current directory).
  explicit Interpreter(int devices = 8, std::vector<std::string> module_path = {});
  ~Interpreter();
  Interpreter(Interpreter&&) noexcept;
  Interpreter& operator=(Interpreter&&) noexcept;
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  // Runs source text (or a file) in the persistent __main__ namespace.
  void run(const std::string& source, const std::string& name = "<embed>");
  void run_file(const std::string& path);
  // Evaluates one expression in __main__.
  Value eval(const std::string& expression);
  // A global of __main__ (Error of type NameError if there is none).
  Value get(const std::string& name);
  // A callable global (Error of type TypeError if it cannot be called).
  Value function(const std::string& name);
  void set(const std::string& name, const Value& v);
  // A numpy array holding a copy of `buffer` (pass it to functions; jax.device_put it...).
  Value array(const HostBuffer& buffer);
  // Calls the global function `name` with host arrays and returns its result's leaves.
  std::vector<HostBuffer> call(const std::string& name, const std::vector<HostBuffer>& args);

  int device_count() const;  // the simulated devices of this process

 private:
  friend class Value;
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace shard
