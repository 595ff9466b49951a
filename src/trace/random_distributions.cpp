// jax.random's samplers that are transforms of uniform, normal and bernoulli draws, with
// JAX's formulas (jax/_src/random: _exponential, _gumbel, _laplace, ...), so that their
// values are JAX's bit for bit where XLA's float math allows.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "trace/ops_random.hpp"
#include "types/x64_mode.hpp"

namespace shard::trace::random {

namespace {

ValueId c(Trace& t, double v, DType d) { return scalar_constant(t, v, {d, false}); }
ValueId un(Trace& t, const char* name, EwOp op, ValueId x) { return unary(t, name, op, x); }
ValueId bin(Trace& t, const char* name, EwOp op, ValueId x, ValueId y) { return binary(t, name, op, x, y); }

// numpy's finfo of the samplers' dtypes (float32, float64).
struct Finfo {
  double tiny, eps, epsneg;
  int nmant;
};
Finfo finfo(DType d) {
  if (d == DType::F64) return {std::numeric_limits<double>::min(), std::ldexp(1.0, -52), std::ldexp(1.0, -53), 52};
  return {static_cast<double>(std::numeric_limits<float>::min()), std::ldexp(1.0, -23), std::ldexp(1.0, -24), 23};
}

ValueId uniform_between(Trace& t, ValueId key, const Shape& shape, DType d, double lo, double hi, const OptOutSharding& out) {
  ValueId minval = c(t, lo, d);
  ValueId maxval = c(t, hi, d);
  return uniform(t, key, shape, d, minval, maxval, out);
}

ValueId sum(Trace& t, ValueId a, ValueId b) { return binary(t, "add", EwOp::Add, a, b); }

// An out_sharding for the draws of one more dim, unsharded, inserted at `pos` (of `rank`).
OptOutSharding with_unsharded_dim(const OptOutSharding& out, size_t rank, size_t pos) {
  if (!out) return out;
  auto extend = [&](const types::PartitionSpec& spec) {
    auto entries = spec.normalized(rank).entries();
    entries.insert(entries.begin() + static_cast<long>(pos), types::PartitionSpec::Entry{});
    return spec.with_entries(entries);
  };
  if (const auto* spec = std::get_if<types::PartitionSpec>(&*out)) return sharding::OutSharding{extend(*spec)};
  const auto& ns = std::get<types::NamedSharding>(*out);
  return sharding::OutSharding{ns.with_spec(extend(ns.spec()))};
}

ValueId neg_log1p_neg(Trace& t, ValueId u) { return un(t, "neg", EwOp::Neg, un(t, "log1p", EwOp::Log1p, un(t, "neg", EwOp::Neg, u))); }

}  // namespace

ValueId exponential(Trace& t, ValueId key, const Shape& shape, DType dtype, const OptOutSharding& out) {
  // 1 - u moves log's domain to (0, 1].
  return neg_log1p_neg(t, uniform_between(t, key, shape, dtype, 0.0, 1.0, out));
}

ValueId gumbel(Trace& t, ValueId key, const Shape& shape, DType dtype, GumbelMode mode, const OptOutSharding& out) {
  const Finfo f = finfo(dtype);
  if (mode == GumbelMode::Low) {
    ValueId u = uniform_between(t, key, shape, dtype, f.tiny, 1.0, out);
    return un(t, "neg", EwOp::Neg, un(t, "log", EwOp::Log, un(t, "neg", EwOp::Neg, un(t, "log", EwOp::Log, u))));
  }
  // "high": a second uniform refines the low half of the first, so events of probability
  // down to about 1e-14 are sampled without bias (JAX's high dynamic range).
  Shape two = shape;
  two.insert(two.begin(), 2);
  OptOutSharding out2 = with_unsharded_dim(out, shape.size(), 0);
  ValueId both = uniform_between(t, key, two, dtype, 0.0, 1.0, out2);
  Shape lim = two;
  lim[0] = 1;
  Shape start(two.size(), 0), strides(two.size(), 1);
  ValueId high = reshape(t, slice(t, both, start, lim, strides), shape);
  start[0] = 1;
  lim[0] = 2;
  ValueId low = reshape(t, slice(t, both, start, lim, strides), shape);
  const double floor = std::max(std::ldexp(1.0, -(2 * f.nmant + 1)), f.tiny);
  ValueId low_scaled = bin(t, "mul", EwOp::Mul, c(t, std::ldexp(1.0, -f.nmant), dtype), low);
  ValueId fine = sum(t, high, low_scaled);
  ValueId refined = sum(t, fine, c(t, floor, dtype));
  ValueId upper_half = bin(t, "ge", EwOp::Ge, high, c(t, 0.5, dtype));
  ValueId x = where(t, upper_half, high, refined);
  return un(t, "neg", EwOp::Neg, un(t, "log", EwOp::Log, un(t, "neg", EwOp::Neg, un(t, "log1p", EwOp::Log1p, un(t, "neg", EwOp::Neg, x)))));
}

ValueId laplace(Trace& t, ValueId key, const Shape& shape, DType dtype, const OptOutSharding& out) {
  ValueId u = uniform_between(t, key, shape, dtype, -1.0 + finfo(dtype).epsneg, 1.0, out);
  ValueId sign = un(t, "sign", EwOp::Sign, u);
  ValueId mag = un(t, "log1p", EwOp::Log1p, un(t, "neg", EwOp::Neg, un(t, "abs", EwOp::Abs, u)));
  return bin(t, "mul", EwOp::Mul, sign, mag);
}

ValueId logistic(Trace& t, ValueId key, const Shape& shape, DType dtype, const OptOutSharding& out) {
  ValueId x = uniform_between(t, key, shape, dtype, finfo(dtype).tiny, 1.0, out);
  ValueId log_x = un(t, "log", EwOp::Log, x);
  ValueId log_1mx = un(t, "log1p", EwOp::Log1p, un(t, "neg", EwOp::Neg, x));
  return bin(t, "sub", EwOp::Sub, log_x, log_1mx);
}

ValueId cauchy(Trace& t, ValueId key, const Shape& shape, DType dtype, const OptOutSharding& out) {
  ValueId u = uniform_between(t, key, shape, dtype, finfo(dtype).eps, 1.0, out);
  ValueId centred = bin(t, "sub", EwOp::Sub, u, c(t, 0.5, dtype));
  return un(t, "tan", EwOp::Tan, bin(t, "mul", EwOp::Mul, c(t, M_PI, dtype), centred));
}

ValueId rademacher(Trace& t, ValueId key, const Shape& shape, DType dtype, const OptOutSharding& out) {
  ValueId half = scalar_constant(t, 0.5, {types::default_float_dtype(), true});  // p=0.5, a Python float
  ValueId b = convert(t, bernoulli(t, key, half, shape, out), {dtype, false});
  ValueId twice = bin(t, "mul", EwOp::Mul, c(t, 2, dtype), b);
  return bin(t, "sub", EwOp::Sub, twice, c(t, 1, dtype));
}

ValueId lognormal(Trace& t, ValueId key, ValueId sigma, const Shape& shape, DType dtype, const OptOutSharding& out) {
  ValueId z = normal(t, key, shape, dtype, out);
  ValueId scaled = bin(t, "mul", EwOp::Mul, z, convert(t, sigma, {dtype, false}));
  return un(t, "exp", EwOp::Exp, scaled);
}

ValueId pareto(Trace& t, ValueId key, ValueId b, const Shape& shape, DType dtype, const OptOutSharding& out) {
  ValueId e = exponential(t, key, shape, dtype, out);
  return un(t, "exp", EwOp::Exp, bin(t, "div", EwOp::Div, e, convert(t, b, {dtype, false})));
}

ValueId weibull_min(Trace& t, ValueId key, ValueId scale, ValueId concentration, const Shape& shape, DType dtype,
                    const OptOutSharding& out) {
  ValueId e = neg_log1p_neg(t, uniform_between(t, key, shape, dtype, 0.0, 1.0, out));  // the inverse CDF
  ValueId one = c(t, 1.0, dtype);
  ValueId inv_k = bin(t, "div", EwOp::Div, one, convert(t, concentration, {dtype, false}));
  ValueId powered = bin(t, "pow", EwOp::Pow, e, inv_k);
  return bin(t, "mul", EwOp::Mul, powered, convert(t, scale, {dtype, false}));
}

ValueId rayleigh(Trace& t, ValueId key, ValueId scale, const Shape& shape, DType dtype, const OptOutSharding& out) {
  ValueId u = uniform_between(t, key, shape, dtype, 0.0, 1.0, out);
  ValueId log_u = un(t, "log", EwOp::Log, u);
  ValueId root = un(t, "sqrt", EwOp::Sqrt, bin(t, "mul", EwOp::Mul, log_u, c(t, -2.0, dtype)));
  return bin(t, "mul", EwOp::Mul, convert(t, scale, {dtype, false}), root);
}

ValueId maxwell(Trace& t, ValueId key, const Shape& shape, DType dtype, const OptOutSharding& out) {
  Shape three = shape;
  three.push_back(3);
  OptOutSharding out3 = with_unsharded_dim(out, shape.size(), shape.size());
  ValueId n = normal(t, key, three, dtype, out3);
  // jnp.linalg.norm over the last axis: sqrt(sum(x * x)).
  ValueId squares = bin(t, "mul", EwOp::Mul, n, n);
  return un(t, "sqrt", EwOp::Sqrt, reduce(t, "sum", ir::ReduceKind::Sum, squares, {static_cast<int64_t>(shape.size())}, false));
}

ValueId categorical(Trace& t, ValueId key, ValueId logits, int64_t axis, const std::optional<Shape>& shape_arg, bool replace, GumbelMode mode) {
  const auto lt = t.type(logits);
  const auto rank = static_cast<int64_t>(lt.rank());
  if (rank == 0) throw types::ShardingError("ValueError", "categorical: logits must have at least one dimension");
  if (axis < -rank || axis >= rank)
    throw types::ShardingError("ValueError", fmt::format("axis {} is out of bounds for array of dimension {}", axis, rank));
  const int64_t ax = axis < 0 ? axis + rank : axis;
  Shape batch = lt.shape();
  batch.erase(batch.begin() + ax);
  const Shape shape = shape_arg ? *shape_arg : batch;
  if (shape.size() < batch.size() || broadcast_shapes("categorical", {shape, batch}) != shape)
    throw types::ShardingError("ValueError", fmt::format("categorical parameter shapes must be broadcast-compatible with shape argument, and the "
                                                         "result of broadcasting the shapes must equal the shape argument, but got result {} "
                                                         "for shape argument {}.",
                                                         types::py_int_tuple(broadcast_shapes("categorical", {shape, batch})),
                                                         types::py_int_tuple(shape)));
  const size_t n_prefix = shape.size() - batch.size();
  if (!replace) {
    // The Gumbel top-k trick: the k = prod(prefix) largest perturbed logits of each batch
    // element are k draws without replacement; the k dim moves to the front.
    int64_t k = 1;
    for (size_t i = 0; i < n_prefix; ++i) k *= shape[i];
    const int64_t n = lt.shape()[static_cast<size_t>(ax)];
    if (k > n)
      throw types::ShardingError("ValueError", fmt::format("Number of samples without replacement ({}) cannot exceed number of categories ({}).", k, n));
    ValueId perturbed = sum(t, logits, gumbel(t, key, lt.shape(), lt.dtype(), mode));
    ValueId indices = top_k(t, move_dim(t, perturbed, ax, rank - 1), k).indices;  // batch + (k,)
    std::vector<int64_t> k_first{static_cast<int64_t>(batch.size())};
    for (size_t i = 0; i < batch.size(); ++i) k_first.push_back(static_cast<int64_t>(i));
    return reshape(t, transpose(t, indices, k_first), shape);
  }
  // The Gumbel-max trick over the prefix dims the shape adds in front of the batch dims.
  Shape draws(shape.begin(), shape.begin() + static_cast<long>(n_prefix));
  Shape rest(shape.begin() + static_cast<long>(n_prefix), shape.end());
  rest.insert(rest.begin() + ax, lt.shape()[static_cast<size_t>(ax)]);
  draws.insert(draws.end(), rest.begin(), rest.end());
  ValueId g = gumbel(t, key, draws, lt.dtype(), mode);
  std::vector<int64_t> front;
  for (size_t i = 0; i < n_prefix; ++i) front.push_back(static_cast<int64_t>(i));
  ValueId scores = sum(t, g, front.empty() ? logits : expand_dims(t, logits, front));
  return argminmax(t, "argmax", ir::ReduceKind::Max, scores, ax - rank, false);
}

}  // namespace shard::trace::random
