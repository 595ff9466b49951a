// Shared helpers of the jax.numpy / jax.lax bindings and the Array methods: reading the
// Python arguments array ops take (axis=, shapes, dtype=, out_sharding=, Python scalars), the
// numpy-vs-JAX dtype decisions (device arrays canonicalise to 32 bits; host arrays keep
// numpy's dtypes and value-based promotion), and the op implementations jax.numpy functions
// share with Array methods.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "api/objects/array_value.hpp"
#include "interp/interp.hpp"
#include "sharding/common.hpp"
#include "trace/ops.hpp"

namespace shard::api {

using interp::ModuleObj;
using interp::NativeFn;
using trace::DTypeW;
using trace::Trace;
using trace::ValueId;
using types::DType;
using types::Shape;

// ---- arguments ---------------------------------------------------------------------------------

bool is_none(const Value& v);  // null (absent) or None
// An int (or bool, or 0-d integer array): `what` names the parameter in the TypeError.
int64_t int_arg(Interp& I, const Value& v, const std::string& what);
double float_arg(Interp& I, const Value& v, const std::string& what);
// axis=: None/absent -> nullopt; an int; a tuple/list of ints.
std::optional<std::vector<int64_t>> axes_arg(Interp& I, const Value& v);
// The same where an axis is required (None is JAX's TypeError, not "all axes").
std::vector<int64_t> required_axes_arg(Interp& I, const Value& v);
// A shape: an int or a sequence of ints (negative sizes: JAX's error).
Shape shape_arg(Interp& I, const Value& v, const std::string& fname);
// dtype=: absent/None -> nullopt.
std::optional<DType> dtype_arg(Interp& I, const Value& v);
// out_sharding= / device=: a PartitionSpec or NamedSharding object; None/absent -> nullopt.
sharding::OptOutSharding out_sharding_arg(Interp& I, const Value& v);
// The value of keyword `name` (null if absent).
Value kwarg(const CallArgs& a, std::string_view name);

// ---- dtypes ----------------------------------------------------------------------------------

// Whether an op over these operands runs with numpy semantics (all array operands host).
bool host_operands(const std::vector<Value>& operands);
// A requested dtype as an array of this kind gets it: device arrays canonicalise (x64 off).
DType storage_dtype(DType d, bool host);
// The numpy 1.24 result dtype of a binary op over host operands (value-based casting for
// Python scalars); nullopt when the JAX rule already agrees.
std::optional<DType> numpy_binary_dtype(const std::vector<Value>& operands, bool true_divide);
// numpy broadcasting of the operands' shapes, with JAX's ValueError ("Incompatible shapes for
// broadcasting: shapes=[(2, 3), (4,)]") or, for host arrays, numpy's.
void check_broadcast(Trace& t, const std::vector<ValueId>& ids, bool host = false);
// An argument of a jnp-style function: an array or a Python scalar, else JAX's TypeError.
Value elementwise_operand(Interp& I, const Value& v, const std::string& fname);
// The weak-aware dtype of a traced value.
DTypeW dtw(Trace& t, ValueId v);

// Python data (lists, scalars, numpy arrays) as an operand: lists become host arrays
// (numpy semantics) or device arrays (JAX semantics) as `host` says; arrays pass through.
Value as_operand(Interp& I, const Value& v, bool host);
// Python scalar or array -> array value (device unless host), with dtype conversion.
Value to_array(Interp& I, const Value& v, std::optional<DType> dtype, bool host);

// Converts a Python value from a one-element array read back to the host.
Value element_value(DType dt, const uint8_t* p);
// The values of an array (device or host) as Python scalars, row-major.
std::vector<Value> array_elements(const exec::Array& a);

// Raises ConcretizationTypeError-like errors for tracers where a concrete value is needed.
[[noreturn]] void raise_concretization(Interp& I, const Value& tracer, const std::string& what);
// The concrete array of an argument (tracers raise), for ops that need values on the host.
const exec::Array& concrete(Interp& I, const Value& v, const std::string& what);

// ---- shared op implementations (used by jnp functions and Array methods) ---------------------

Value op_reshape(Interp& I, const Value& x, Shape shape, const sharding::OptOutSharding& out_sharding,
                 const std::string& name = "reshape");
Value op_transpose(Interp& I, const Value& x, std::vector<int64_t> perm);
Value op_astype(Interp& I, const Value& x, DType d);
Value op_getitem(Interp& I, const Value& x, const Value& index);
Value op_matmul(Interp& I, const Value& a, const Value& b, const sharding::OptOutSharding& out_sharding,
                const std::string& name);
Value op_binary(Interp& I, const std::string& name, ir::EwOp op, const Value& a, const Value& b);
Value op_unary(Interp& I, const std::string& name, ir::EwOp op, const Value& x);

// jnp functions whose Array methods share the implementation (args[0] = the array).
Value jnp_sum(Interp& I, CallArgs& a);
Value jnp_prod(Interp& I, CallArgs& a);
Value jnp_max(Interp& I, CallArgs& a);
Value jnp_min(Interp& I, CallArgs& a);
Value jnp_mean(Interp& I, CallArgs& a);
Value jnp_var(Interp& I, CallArgs& a);
Value jnp_std(Interp& I, CallArgs& a);
Value jnp_all(Interp& I, CallArgs& a);
Value jnp_any(Interp& I, CallArgs& a);
Value jnp_argmax(Interp& I, CallArgs& a);
Value jnp_argmin(Interp& I, CallArgs& a);
Value jnp_cumsum(Interp& I, CallArgs& a);
Value jnp_cumprod(Interp& I, CallArgs& a);
Value jnp_squeeze(Interp& I, CallArgs& a);
Value jnp_ravel(Interp& I, CallArgs& a);
Value jnp_clip(Interp& I, CallArgs& a);
Value jnp_sort(Interp& I, CallArgs& a);
Value jnp_swapaxes(Interp& I, CallArgs& a);
Value jnp_round(Interp& I, CallArgs& a);
Value jnp_dot(Interp& I, CallArgs& a);

// ---- module assembly -------------------------------------------------------------------------

// Binds a native function into a module under `name`.
void def_fn(ModuleObj& m, const std::string& name, NativeFn fn);

}  // namespace shard::api
