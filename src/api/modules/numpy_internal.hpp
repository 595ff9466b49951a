// Shared pieces of the `numpy` module's files: converting arguments to host arrays, numpy's
// dtype promotion (value-based for Python scalars, as numpy 1.24), running a traced body as
// host kernels, and returning numpy scalars the way they print.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/objects/array_value.hpp"
#include "interp/builtins/support.hpp"
#include "trace/ops.hpp"

namespace shard::api::np {

using interp::CallArgs;
using interp::ModuleObj;
using interp::ObjKind;
using ir::ValueId;
using types::DType;
using types::Shape;

// An argument as a host array. `scalar` marks Python scalars and 0-d arrays (numpy's
// value-based casting treats them apart).
struct Operand {
  exec::ArrayRef array;
  bool scalar = false;
};

// Any array-like as a host array: numpy arrays as they are, jax arrays copied to the host
// (same dtype), Python data by numpy's inference (or `dtype`).
exec::ArrayRef host_array(Interp& I, const Value& v, std::optional<DType> dtype = std::nullopt);
Operand operand(Interp& I, const Value& v);

// numpy.promote_types over our dtypes, and numpy's result_type for operands.
DType promote(DType a, DType b);
DType result_type(const std::vector<Operand>& ops);

// Runs `body` over the inputs as a host program (kernels on device 0's thread) and returns
// the host results.
using Body = std::function<std::vector<ValueId>(trace::Trace&, const std::vector<ValueId>&)>;
std::vector<exec::ArrayRef> run(Interp& I, const std::string& name, const std::vector<exec::ArrayRef>& inputs, const Body& body);
exec::ArrayRef run1(Interp& I, const std::string& name, const std::vector<exec::ArrayRef>& inputs, const Body& body);

// A host result as numpy returns it: 0-d float64/int64/bool results become Python
// float/int/bool (they print alike); other arrays stay ndarrays.
Value result(const exec::ArrayRef& a);

// Converts `x` to `to` inside a traced body (no-op when equal).
ValueId cast(trace::Trace& t, ValueId x, DType to);

// Arguments.
std::optional<DType> dtype_arg(Interp& I, const Value& v);  // None/absent -> nullopt
Shape shape_arg(Interp& I, const Value& v);                  // int or sequence of ints
// Host arrays are bounded (kMaxHostElements) so bad input cannot exhaust memory: raises
// MemoryError as numpy does when an allocation fails.
constexpr int64_t kMaxHostElements = int64_t{1} << 28;
void check_size(Interp& I, const Shape& shape);
// axis=None (all) / int / tuple of ints.
std::optional<std::vector<int64_t>> axes_arg(Interp& I, const Value& v);
bool bool_arg(Interp& I, const Value& v, bool dflt);
double number_arg(Interp& I, const Value& v, const char* what);  // Python number or 0-d array

void add(ModuleObj& m, const std::string& name, interp::NativeFn fn);

// The module's functions, by file.
void add_creation_functions(Interp& I, ModuleObj& m);  // numpy_module.cpp
void add_math_functions(Interp& I, ModuleObj& m);      // numpy_math.cpp
void fill_random_module(Interp& I, ModuleObj& m);      // numpy_random.cpp (numpy.random)
void register_linalg_module();                         // numpy_linalg.cpp (numpy.linalg)
void add_io_functions(Interp& I, ModuleObj& m);        // numpy_io.cpp
void add_indexing_functions(Interp& I, ModuleObj& m);  // jnp_module_indexing.cpp (shared with jnp)
void add_nan_stats_functions(Interp& I, ModuleObj& m); // jnp_module_nan_stats.cpp (shared with jnp)
void add_histogram_functions(Interp& I, ModuleObj& m); // jnp_module_histogram.cpp (shared with jnp)
void add_reorder_functions(Interp& I, ModuleObj& m);   // jnp_module_reorder.cpp (shared with jnp)
void add_product_functions(Interp& I, ModuleObj& m);   // jnp_module_products.cpp (shared with jnp)
void add_log_space_functions(Interp& I, ModuleObj& m); // jnp_module_log_spaces.cpp (shared with jnp)
void add_contraction_functions(Interp& I, ModuleObj& m);  // jnp_module_linalg.cpp (einsum)

}  // namespace shard::api::np
