// How arrays appear to the interpreter: jax.Array (device arrays) and numpy.ndarray (host
// arrays with numpy's dtypes; held as single-device arrays so the same kernels compute
// them) as native objects, tracers for jit, and the one entry point every array op goes
// through: `apply` traces the op's body over its operands and either runs it now (eager) or
// records it into the enclosing trace (jit).
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exec/array.hpp"
#include "interp/interp.hpp"
#include "interp/value.hpp"
#include "trace/ops.hpp"

namespace shard::api {

using interp::CallArgs;
using interp::ClassP;
using interp::Interp;
using interp::Value;

struct ArrayObj : interp::NativeObj {
  exec::ArrayRef array;
  bool host = false;  // numpy.ndarray
  ArrayObj(ClassP c, exec::ArrayRef a, bool h) : NativeObj(std::move(c)), array(std::move(a)), host(h) {}
};

// A value being traced under jit: its trace and its IR value.
struct TracerObj : interp::NativeObj {
  std::shared_ptr<trace::Trace> trace;
  ir::ValueId id;
  TracerObj(ClassP c, std::shared_ptr<trace::Trace> t, ir::ValueId v) : NativeObj(std::move(c)), trace(std::move(t)), id(v) {}
  types::ArrayType type() const { return trace->type(id); }
};

ClassP array_class();    // jax.Array (prints as <class 'jaxlib.xla_extension.ArrayImpl'>)
ClassP ndarray_class();  // numpy.ndarray
ClassP tracer_class();
ClassP core_tracer_class();  // jax.core.Tracer, its base: isinstance(x, jax.core.Tracer) under jit

Value wrap(exec::ArrayRef a, bool host = false);
Value wrap_tracer(std::shared_ptr<trace::Trace> t, ir::ValueId v);
ArrayObj* as_array(const Value& v);
TracerObj* as_tracer(const Value& v);
bool is_array_like(const Value& v);  // array, tracer, or ndarray

// The abstract type of an array or tracer operand.
types::ArrayType type_of(const Value& v);

// Builds a host array from Python data (nested lists/tuples of numbers, bools, or arrays)
// with numpy's inference (float64 / int64 / bool), or the requested dtype.
exec::ArrayRef host_array_from_python(Interp& I, const Value& data, std::optional<types::DType> dtype);
// The same host array converted to `dtype` (numpy astype; stays a host array).
exec::ArrayRef host_astype(const exec::ArrayRef& host, types::DType dtype);
// A device array from host data: dtype canonicalised (64-bit off), on device 0 or placed by
// `sharding`.
exec::ArrayRef to_device(const exec::ArrayRef& host, std::optional<types::DType> dtype,
                         const std::optional<types::NamedSharding>& sharding, bool weak = false);

// Runs `body` as an array op. Operands may be arrays, tracers, numpy arrays and Python
// scalars (weak-typed constants). Eager: a one-op program compiled once per signature and run
// on the device threads; under jit: recorded into the tracers' trace. Errors of the op
// (sharding types, shapes) become Python exceptions at the current source location.
using OpBody = std::function<std::vector<ir::ValueId>(trace::Trace&, const std::vector<ir::ValueId>&)>;
std::vector<Value> apply_multi(Interp& I, const std::string& name, const std::vector<Value>& operands, const OpBody& body);
Value apply(Interp& I, const std::string& name, const std::vector<Value>& operands, const OpBody& body);

// Raises the Python exception for a C++ error thrown by the array stack.
[[noreturn]] void raise_array_error(Interp& I, const std::exception& e);
// Runs f, converting array-stack errors into Python exceptions.
template <class F>
auto guarded(Interp& I, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const interp::PyError&) {
    throw;
  } catch (const std::exception& e) {
    raise_array_error(I, e);
  }
}

// The numpy/JAX scalar types of a Python value for promotion (weak ints/floats).
std::optional<trace::DTypeW> python_scalar_type(const Value& v, bool host);

}  // namespace shard::api
