// jax.numpy / jax.lax semantics on traced values: dtype promotion, numpy broadcasting,
// the sharding rule of each op, then the lax-level IR ops. The API bindings call these for
// eager ops and under jit alike.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ir/elementwise_ops.hpp"
#include "ir/reduce_kind.hpp"
#include "sharding/rules.hpp"
#include "primitives/collectives/collectives.hpp"
#include "trace/promotion.hpp"
#include "trace/trace.hpp"

namespace shard::trace {

using ir::EwOp;
using ir::ReduceKind;
using sharding::OptOutSharding;
using types::AxisNames;
using types::DType;
using types::Shape;

// Literal data (row-major bytes of `dtype`) as a constant.
ValueId constant(Trace& t, DType dtype, const Shape& shape, const void* bytes, bool weak = false,
                 const OptOutSharding& out_sharding = std::nullopt);
ValueId scalar_constant(Trace& t, double value, DTypeW dtype);
ValueId convert(Trace& t, ValueId x, DTypeW to);
// numpy broadcast_to (trailing alignment).
ValueId broadcast_to(Trace& t, ValueId x, const Shape& shape, const OptOutSharding& out_sharding = std::nullopt);
// lax.broadcast_in_dim: operand dim i becomes result dim dims[i] (checked by the caller).
ValueId broadcast_in_dim(Trace& t, ValueId x, const Shape& shape, const std::vector<int64_t>& dims,
                         const OptOutSharding& out_sharding = std::nullopt);
Shape broadcast_shapes(const std::string& op, const std::vector<Shape>& shapes);

// Elementwise ops: `name` is what the user called (add, sin, maximum, ...). Arithmetic
// promotes; `/`, sqrt, sin... make ints float; comparisons give bool.
ValueId unary(Trace& t, const std::string& name, EwOp op, ValueId x);
ValueId binary(Trace& t, const std::string& name, EwOp op, ValueId a, ValueId b);
ValueId where(Trace& t, ValueId pred, ValueId a, ValueId b);
// lax.integer_pow: x ** y by multiplies; integers take no negative exponent (JAX's TypeError).
ValueId integer_pow(Trace& t, ValueId x, int64_t y);
// jnp.power and `**`: a concrete integer exponent (a Python int, or a constant scalar of an
// integer dtype) makes integer_pow, as JAX does; anything else is pow.
ValueId power(Trace& t, const std::string& name, ValueId x, ValueId y);
// lax.stop_gradient: the same value, with a zero derivative (integers pass through).
ValueId stop_gradient(Trace& t, ValueId x);
ValueId clip(Trace& t, ValueId x, std::optional<ValueId> lo, std::optional<ValueId> hi);

// Complex numbers (ops_complex.cpp). A complex scalar constant of `dtype` (complex64 or
// complex128, weak for Python complex literals).
ValueId complex_constant(Trace& t, double re, double im, DTypeW dtype);
// lax.complex(re, im): floating operands of one dtype -> the complex dtype of those parts.
ValueId make_complex(Trace& t, ValueId re, ValueId im);
// jnp.real / jnp.imag / jnp.conj: on a real array the value itself, zeros, the value itself.
ValueId real(Trace& t, ValueId x);
ValueId imag(Trace& t, ValueId x);
ValueId conj(Trace& t, ValueId x);
// jnp.angle: atan2(imag, real), in degrees when `deg`.
ValueId angle(Trace& t, ValueId x, bool deg);
// The inverse trigonometric and hyperbolic functions of complex values (principal branches,
// from log, log1p and sqrt): name is arcsin, arccos, arctan, arcsinh, arccosh or arctanh.
ValueId complex_inverse(Trace& t, const std::string& name, ValueId z);
// NotImplementedError for an op shard does not compute on complex values yet (sorting,
// products and extremes over an axis, ...), when `d` is complex.
void reject_complex(const std::string& op, DType d);

// jnp functions composed from primitives (ops_composite.cpp), bound by name by jax.numpy
// and numpy.
struct UnaryComposite {
  const char* name;
  ValueId (*fn)(Trace&, ValueId);
};
struct BinaryComposite {
  const char* name;
  ValueId (*fn)(Trace&, ValueId, ValueId);
};
const std::vector<UnaryComposite>& unary_composites();
const std::vector<BinaryComposite>& binary_composites();
// |a - b| <= atol + rtol*|b|, infinities close only to themselves (jnp.isclose).
ValueId isclose(Trace& t, ValueId a, ValueId b, double rtol, double atol, bool equal_nan);
// All elements equal (NaNs equal when equal_nan): a bool scalar.
ValueId array_equal(Trace& t, ValueId a, ValueId b, bool equal_nan);
// jax.scipy.special.logsumexp: log(sum(b * exp(x))) over `axes` (empty: all), without
// overflow (the max is taken out first; an all -inf slice gives -inf).
ValueId logsumexp(Trace& t, ValueId x, std::vector<int64_t> axes, bool keepdims, std::optional<ValueId> b);
// x * log(y) and x * log1p(y), 0 where x is 0 (jax.scipy.special.xlogy / xlog1py).
ValueId xlogy(Trace& t, ValueId x, ValueId y);
ValueId xlog1py(Trace& t, ValueId x, ValueId y);
// jax.scipy.special's gamma family and normal distribution (ops_composite.cpp), composed as
// JAX composes them; integer operands are made floating first. ndtr, ndtri and log_ndtr
// take float32 / float64 operands (the binding checks).
ValueId gammaln(Trace& t, ValueId x);
ValueId digamma(Trace& t, ValueId x);
ValueId polygamma(Trace& t, ValueId n, ValueId x);
ValueId gammasgn(Trace& t, ValueId x);
ValueId gamma(Trace& t, ValueId x);
ValueId betaln(Trace& t, ValueId a, ValueId b);
ValueId beta(Trace& t, ValueId a, ValueId b);
ValueId factorial(Trace& t, ValueId n);
ValueId multigammaln(Trace& t, ValueId a, int64_t d);
ValueId entr(Trace& t, ValueId x);
ValueId ndtr(Trace& t, ValueId x);
ValueId ndtri(Trace& t, ValueId p);
ValueId log_ndtr(Trace& t, ValueId x, int64_t series_order);
// jnp.round(x, decimals): round half to even at 10**-decimals.
ValueId round_decimals(Trace& t, ValueId x, int64_t decimals);

// jax.nn (ops_nn.cpp): activations and normalisations over `axes` (empty = all).
ValueId nn_relu(Trace& t, ValueId x);
ValueId nn_relu6(Trace& t, ValueId x);
ValueId nn_sigmoid(Trace& t, ValueId x);
ValueId nn_softplus(Trace& t, ValueId x);
ValueId nn_log_sigmoid(Trace& t, ValueId x);
ValueId nn_soft_sign(Trace& t, ValueId x);
ValueId nn_silu(Trace& t, ValueId x);
ValueId nn_gelu(Trace& t, ValueId x, bool approximate);
ValueId nn_elu(Trace& t, ValueId x, double alpha);
ValueId nn_celu(Trace& t, ValueId x, double alpha);
ValueId nn_selu(Trace& t, ValueId x);
ValueId nn_leaky_relu(Trace& t, ValueId x, double negative_slope);
ValueId nn_hard_tanh(Trace& t, ValueId x);
ValueId nn_softmax(Trace& t, ValueId x, const std::vector<int64_t>& axes);
ValueId nn_log_softmax(Trace& t, ValueId x, const std::vector<int64_t>& axes);
ValueId nn_standardize(Trace& t, ValueId x, const std::vector<int64_t>& axes, double epsilon);
ValueId nn_one_hot(Trace& t, ValueId x, int64_t num_classes, DTypeW dtype, int64_t axis);

// Reductions (`axes` empty = all); sum/prod of bool and ints give int32 as jnp.
ValueId reduce(Trace& t, const std::string& name, ReduceKind kind, ValueId x, std::vector<int64_t> axes, bool keepdims);
ValueId mean(Trace& t, ValueId x, std::vector<int64_t> axes, bool keepdims);
ValueId var(Trace& t, ValueId x, std::vector<int64_t> axes, bool keepdims, int64_t ddof, bool std_dev);
ValueId argminmax(Trace& t, const std::string& name, ReduceKind kind, ValueId x, std::optional<int64_t> axis, bool keepdims);
ValueId cumulative(Trace& t, const std::string& name, ReduceKind kind, ValueId x, std::optional<int64_t> axis);
ValueId sort(Trace& t, ValueId x, int64_t axis);
// lax.sort of several operands along `axis`: the first num_keys are the keys (compared
// lexicographically, stably), the others move with them.
std::vector<ValueId> sort_multi(Trace& t, const std::vector<ValueId>& xs, int64_t axis, int64_t num_keys);
// jnp.argsort: the stable ascending order along `axis` (int32).
ValueId argsort(Trace& t, ValueId x, int64_t axis);
// lax.top_k: the k largest entries along the last axis, largest first, and their int32
// indices (ties: the lower index first).
struct TopK {
  ValueId values, indices;
};
TopK top_k(Trace& t, ValueId x, int64_t k);

// Shape ops.
ValueId reshape(Trace& t, ValueId x, Shape new_sizes, const OptOutSharding& out_sharding = std::nullopt);
ValueId transpose(Trace& t, ValueId x, std::vector<int64_t> perm);  // empty = reverse
// Dim `from` of x moved to position `to`, the others keeping their order (jnp.moveaxis).
ValueId move_dim(Trace& t, ValueId x, int64_t from, int64_t to);
ValueId expand_dims(Trace& t, ValueId x, std::vector<int64_t> axes);
ValueId squeeze(Trace& t, ValueId x, std::optional<std::vector<int64_t>> axes);
ValueId concatenate(Trace& t, const std::vector<ValueId>& xs, int64_t axis);
ValueId stack(Trace& t, const std::vector<ValueId>& xs, int64_t axis);
ValueId slice(Trace& t, ValueId x, const Shape& start, const Shape& limit, const Shape& strides);
// Integer indices at `dims` (already in range) remove those dims.
ValueId index_dims(Trace& t, ValueId x, const std::vector<int64_t>& dims, const std::vector<int64_t>& indices);
ValueId rev(Trace& t, ValueId x, std::vector<int64_t> dims);
// lax.pad without interior padding; `value` is converted to x's dtype. No padding returns x
// unless keep_if_empty (lax.pad records the op anyway).
ValueId pad(Trace& t, ValueId x, ValueId value, const Shape& low, const Shape& high, bool keep_if_empty = false);
// Start indices are int32 scalars already in range (callers wrap negative ones as JAX does).
ValueId dynamic_slice(Trace& t, ValueId x, const std::vector<ValueId>& starts, const Shape& sizes);
ValueId dynamic_update_slice(Trace& t, ValueId x, ValueId update, const std::vector<ValueId>& starts);

// Contractions.
ValueId dot_general(Trace& t, ValueId lhs, ValueId rhs, const sharding::DotDims& dims,
                    const OptOutSharding& out_sharding = std::nullopt, const std::string& name = "dot_general");
ValueId matmul(Trace& t, ValueId lhs, ValueId rhs, const OptOutSharding& out_sharding = std::nullopt,
               const std::string& name = "matmul");

// Creation.
ValueId iota(Trace& t, DType dtype, const Shape& shape, int64_t dimension, const OptOutSharding& out_sharding);
ValueId full(Trace& t, const Shape& shape, double value, DTypeW dtype, const OptOutSharding& out_sharding);
// jnp.full_like / zeros_like / ones_like: x's shape (or `shape`) and sharding unless overridden.
ValueId full_like(Trace& t, const std::string& name, ValueId like, double value, DTypeW dtype, const std::optional<Shape>& shape,
                  const OptOutSharding& out_sharding);
ValueId arange(Trace& t, double start, double stop, double step, DTypeW dtype, const OptOutSharding& out_sharding);
ValueId linspace(Trace& t, double start, double stop, int64_t num, bool endpoint, DTypeW dtype,
                 const OptOutSharding& out_sharding);
ValueId eye(Trace& t, int64_t n, int64_t m, int64_t k, DTypeW dtype, const OptOutSharding& out_sharding);

// Sharding.
ValueId reshard(Trace& t, ValueId x, const OptOutSharding& spec);
// An identity whose result has the type `result` and, on every mesh axis, the layout `layout`
// (with_sharding_constraint, device_put and mesh casts under jit).
ValueId sharding_constraint(Trace& t, ValueId x, const ArrayType& result, const types::PartitionSpec& layout);
// The same data under another type of one dtype and shape (a mesh cast keeping the layout).
ValueId retype(Trace& t, ValueId x, const ArrayType& to);

// Region ops (ops_region.cpp): the caller traced the bodies; `consts` are the outer values a
// body captured, passed before its own operands.
struct Region {
  std::shared_ptr<const ir::Function> fn;
  std::vector<ValueId> consts;
};
// Regions: cond (cond consts, carries) -> bool[], body (body consts, carries) -> carries.
std::vector<ValueId> while_loop(Trace& t, const Region& cond, const Region& body, const std::vector<ValueId>& carry,
                                const std::vector<ArrayType>& result_types);
// Region: body (consts, carries, x slices) -> (carries, y slices); results: carries, then ys.
std::vector<ValueId> scan(Trace& t, const Region& body, const std::vector<ValueId>& carry, const std::vector<ValueId>& xs,
                          const std::vector<ArrayType>& result_types, int64_t length, bool reverse);
// `index` (int32 scalar, clamped) picks the branch; every branch takes `operands`.
std::vector<ValueId> cond(Trace& t, ValueId index, const std::vector<ValueId>& operands,
                          const std::vector<std::shared_ptr<const ir::Function>>& branches, const std::vector<ArrayType>& result_types);
struct ShardMapSpecs {
  types::AxisNames manual_axes;
  bool check_vma = true;
  std::vector<types::PartitionSpec> in_specs, out_specs;
  types::Mesh mesh;  // the concrete mesh the body runs on
  types::AbstractMesh abstract_mesh;  // that mesh with the axis types outside the shard_map
};
// Region: the body on local types, (operands, captured consts) -> results.
std::vector<ValueId> shard_map(Trace& t, const Region& body, const std::vector<ValueId>& operands,
                               const std::vector<ArrayType>& result_types, const ShardMapSpecs& specs);
// A call back into the host at run time with the operands' values (jax.debug.print);
// `identity` distinguishes callbacks in the program cache, `callable` is the exec::HostCallback.
void host_callback(Trace& t, const std::vector<ValueId>& operands, std::vector<std::string> identity,
                   std::shared_ptr<const void> callable);

int64_t normalize_axis(const std::string& op, int64_t axis, size_t rank);
// JAX's TypeError for the first operand of a float-only n-ary primitive (lax.polygamma) that
// is not floating: "... does not accept dtype int32 at position 0. ...".
void reject_non_float_operands(const std::string& name, const std::vector<DType>& dtypes);

// The shard_map collectives and their scopes (check_vma, vmap axes) are declared with their
// definitions, in primitives/collectives/collectives.hpp (included above).

}  // namespace shard::trace
