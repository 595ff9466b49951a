// jax.random's gamma family (gamma, loggamma, beta, dirichlet, chisquare, f, t,
// generalized_normal, ball), its counting samplers (poisson, binomial, multinomial,
// geometric) and the remaining transforms (triangular, wald, double_sided_maxwell,
// orthogonal, multivariate_normal), with JAX's signatures, defaults and checks; the math is
// trace::random's (trace/random_gamma.cpp, trace/random_discrete.cpp).
#include <fmt/format.h>

#include "api/modules/random_args.hpp"
#include "api/objects/dtype_value.hpp"
#include "interp/builtins/support.hpp"
#include "trace/ops_random.hpp"
#include "types/x64_mode.hpp"

namespace shard::api {

namespace random = trace::random;
using interp::ArgParser;
using interp::ObjKind;
using namespace random_args;

namespace {

// A parameter operand (Python number or array), with JAX's TypeError for anything else.
Value param(Interp& I, const Value& v, const std::string& fname) {
  Value op = as_operand(I, v, false);
  if (!op) I.raise("TypeError", fmt::format("{} requires ndarray or scalar arguments, got {} at position 0.", fname, I.type_name(v)));
  return op;
}

// np.shape of a parameter (a Python number is a scalar).
Shape pshape(const Value& v) { return is_array_like(v) ? type_of(v).shape() : Shape{}; }

// JAX's _check_shape: the parameters' shapes broadcast to `shape` exactly.
void check_shape(Interp& I, const std::string& name, const Shape& shape, const std::vector<Shape>& params) {
  if (params.empty()) return;
  std::vector<Shape> all{shape};
  all.insert(all.end(), params.begin(), params.end());
  Shape got = guarded(I, [&] { return trace::broadcast_shapes(name, all); });
  if (got != shape)
    I.raise("ValueError", fmt::format("{} parameter shapes must be broadcast-compatible with shape argument, and the result of broadcasting "
                                      "the shapes must equal the shape argument, but got result {} for shape argument {}.",
                                      name, types::py_int_tuple(got), types::py_int_tuple(shape)));
}

// JAX's _check_broadcast_shapes: shape=None is the parameters' broadcast shape.
Shape broadcast_shape(Interp& I, const Value& shape_v, const std::string& name, const std::vector<Value>& params) {
  std::vector<Shape> ps;
  for (auto& p : params) ps.push_back(pshape(p));
  if (is_none(shape_v)) return ps.empty() ? Shape{} : guarded(I, [&] { return trace::broadcast_shapes(name, ps); });
  Shape shape = random_shape(I, shape_v, name);
  check_shape(I, name, shape, ps);
  return shape;
}

std::optional<Shape> optional_shape(Interp& I, const Value& v, const std::string& name) {
  if (is_none(v)) return std::nullopt;
  return random_shape(I, v, name);
}

// method='exact' (the rejection samplers, false) or 'approximate' (the loop-free ones, true).
bool check_method(Interp& I, const Value& v, const std::string& name) {
  if (is_none(v)) return false;
  const std::string m = v->kind == ObjKind::Str ? static_cast<interp::StrObj&>(*v).v : "";
  if (v->kind != ObjKind::Str || (m != "exact" && m != "approximate"))
    I.raise("ValueError", fmt::format("method argument to `{}` must be one of {{'exact', 'approximate'}}, got {}", name, I.repr(v)));
  return m == "approximate";
}

// Parameters sharded over Explicit axes are gathered first: the samplers' selects and loop
// carries mix them with random draws, which are replicated. The result then takes the
// sharding of a parameter of its shape (JAX's random_gamma_p types its result as alpha's),
// or out_sharding= (JAX's auto_axes).
struct Gathered {
  std::vector<ValueId> ids;
  std::optional<types::ArrayType> like;  // a sharded parameter
};
Gathered gather(Trace& t, const std::vector<ValueId>& ids) {
  Gathered g{ids, std::nullopt};
  for (size_t i = 1; i < ids.size(); ++i) {
    const auto ty = t.type(ids[i]);
    if (!ty.is_sharded()) continue;
    if (!g.like) g.like = ty;
    g.ids[i] = trace::reshard(t, ids[i], sharding::OutSharding{types::NamedSharding(ty.mesh(), types::PartitionSpec())});
  }
  return g;
}
ValueId placed(Trace& t, ValueId r, const sharding::OptOutSharding& out, const Gathered& g) {
  if (out) return trace::reshard(t, r, out);
  if (g.like && t.type(r).shape() == g.like->shape()) return trace::reshard(t, r, sharding::OutSharding{g.like->sharding()});
  return r;
}

// dtype=None: int (int32, or int64 with x64); otherwise the given dtype.
DType int_or_given(Interp& I, const Value& v) {
  return is_none(v) ? types::default_int_dtype() : storage_dtype(require_dtype(I, v), false);
}

// The float dtype of promote_dtypes_inexact(x): floats keep theirs, others are the default.
DType inexact_dtype(const Value& v) {
  if (!is_array_like(v)) return types::default_float_dtype();
  DType d = type_of(v).dtype();
  return types::is_float(d) ? d : types::default_float_dtype();
}

std::vector<ValueId> one_id(ValueId v) { return {v}; }

// ---- the gamma family ------------------------------------------------------------------------

NativeFn gamma_sampler(const char* name, bool log_space) {
  return [name, log_space](Interp& I, CallArgs& a) {
    ArgParser p(I, a, name, {"key", "a", "shape=", "dtype=", "*", "method=", "out_sharding="});
    KeyArg k = key_arg(I, p.get("key"), name);
    const bool approximate = check_method(I, p.get("method"), name);
    DType dt = float_dtype(I, p.get("dtype"), "gamma");  // loggamma's message names gamma too
    Value alpha = param(I, p.get("a"), name);
    Shape shape = pshape(alpha);
    if (!is_none(p.get("shape"))) {
      shape = random_shape(I, p.get("shape"), name);
      check_shape(I, "gamma", shape, {pshape(alpha)});
    }
    auto out = out_sharding_arg(I, p.get("out_sharding"));
    OutMeshScope scope(out);
    return apply(I, name, {k.data, alpha}, [&](Trace& t, const std::vector<ValueId>& ids) {
      Gathered g = gather(t, ids);
      ValueId r = approximate ? random::gamma_approx(t, g.ids[0], g.ids[1], shape, dt, log_space)
                              : random::gamma(t, g.ids[0], g.ids[1], shape, dt, log_space, out);
      return one_id(placed(t, r, out, g));
    });
  };
}

Value r_beta(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "beta", {"key", "a", "b", "shape=", "dtype=", "*", "method=", "out_sharding="});
  KeyArg k = key_arg(I, p.get("key"), "beta");
  const bool approximate = check_method(I, p.get("method"), "beta");
  DType dt = float_dtype(I, p.get("dtype"), "beta");
  Value av = param(I, p.get("a"), "beta"), bv = param(I, p.get("b"), "beta");
  Shape shape = broadcast_shape(I, p.get("shape"), "beta", {av, bv});
  auto out = out_sharding_arg(I, p.get("out_sharding"));
  OutMeshScope scope(out);
  return apply(I, "beta", {k.data, av, bv}, [&](Trace& t, const std::vector<ValueId>& ids) {
    Gathered g = gather(t, ids);
    return one_id(placed(t, random::beta(t, g.ids[0], g.ids[1], g.ids[2], shape, dt, approximate), out, g));
  });
}

Value r_dirichlet(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "dirichlet", {"key", "alpha", "shape=", "dtype=", "*", "out_sharding="});
  KeyArg k = key_arg(I, p.get("key"), "dirichlet");
  DType dt = float_dtype(I, p.get("dtype"), "dirichlet");
  auto shape_arg = optional_shape(I, p.get("shape"), "dirichlet");
  Value alpha = param(I, p.get("alpha"), "dirichlet");
  const Shape as = pshape(alpha);
  if (as.empty()) I.raise("ValueError", "dirichlet requires alpha.ndim >= 1, got alpha.ndim == 0");
  Shape batch(as.begin(), as.end() - 1);
  Shape shape = shape_arg ? *shape_arg : batch;
  if (shape_arg) check_shape(I, "dirichlet", shape, {batch});
  auto out = out_sharding_arg(I, p.get("out_sharding"));
  OutMeshScope scope(out);
  return apply(I, "dirichlet", {k.data, alpha}, [&](Trace& t, const std::vector<ValueId>& ids) {
    Gathered g = gather(t, ids);
    return one_id(placed(t, random::dirichlet(t, g.ids[0], g.ids[1], shape, dt), out, g));
  });
}

Value r_chisquare(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "chisquare", {"key", "df", "shape=", "dtype=", "*", "method=", "out_sharding="});
  KeyArg k = key_arg(I, p.get("key"), "chisquare");
  const bool approximate = check_method(I, p.get("method"), "chisquare");
  DType dt = float_dtype(I, p.get("dtype"), "chisquare");
  Value df = param(I, p.get("df"), "chisquare");
  Shape shape = broadcast_shape(I, p.get("shape"), "chisquare", {df});
  auto out = out_sharding_arg(I, p.get("out_sharding"));
  OutMeshScope scope(out);
  return apply(I, "chisquare", {k.data, df}, [&](Trace& t, const std::vector<ValueId>& ids) {
    Gathered g = gather(t, ids);
    return one_id(placed(t, random::chisquare(t, g.ids[0], g.ids[1], shape, dt, approximate), out, g));
  });
}

Value r_f(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "f", {"key", "dfnum", "dfden", "shape=", "dtype=", "*", "out_sharding="});
  KeyArg k = key_arg(I, p.get("key"), "f");
  DType dt = float_dtype(I, p.get("dtype"), "f");
  Value num = param(I, p.get("dfnum"), "f"), den = param(I, p.get("dfden"), "f");
  Shape shape = broadcast_shape(I, p.get("shape"), "f", {num, den});
  auto out = out_sharding_arg(I, p.get("out_sharding"));
  OutMeshScope scope(out);
  return apply(I, "f", {k.data, num, den}, [&](Trace& t, const std::vector<ValueId>& ids) {
    Gathered g = gather(t, ids);
    return one_id(placed(t, random::f(t, g.ids[0], g.ids[1], g.ids[2], shape, dt), out, g));
  });
}

Value r_t(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "t", {"key", "df", "shape=", "dtype=", "*", "out_sharding="});
  KeyArg k = key_arg(I, p.get("key"), "t");
  DType dt = float_dtype(I, p.get("dtype"), "t");
  Value df = param(I, p.get("df"), "t");
  Shape shape = broadcast_shape(I, p.get("shape"), "t", {df});
  auto out = out_sharding_arg(I, p.get("out_sharding"));
  OutMeshScope scope(out);
  return apply(I, "t", {k.data, df}, [&](Trace& t, const std::vector<ValueId>& ids) {
    Gathered g = gather(t, ids);
    return one_id(placed(t, random::student_t(t, g.ids[0], g.ids[1], shape, dt), out, g));
  });
}

// p and 1/p as operands: a Python number's reciprocal in double (JAX takes it in Python).
struct PowerParam {
  Value p, inv_p;
  std::optional<int64_t> int_p;  // a Python int p: |g| ** p is integer_pow
};
PowerParam power_param(Interp& I, const Value& v, const std::string& fname) {
  PowerParam pp;
  pp.p = param(I, v, fname);
  if (v->kind == ObjKind::Int || v->kind == ObjKind::Bool) {
    const int64_t n = static_cast<interp::IntObj&>(*v).v;
    pp.int_p = n;
    pp.inv_p = interp::make_float(1.0 / static_cast<double>(n));
  } else if (v->kind == ObjKind::Float) {
    pp.inv_p = interp::make_float(1.0 / static_cast<interp::FloatObj&>(*v).v);
  }
  return pp;
}

// The operands of a PowerParam (p, then 1/p when it is a Python float) and 1/p in the trace.
ValueId inverse_in_trace(Trace& t, const PowerParam& pp, const std::vector<ValueId>& ids, size_t at) {
  if (pp.inv_p) return ids.at(at + 1);
  ValueId one = trace::scalar_constant(t, 1, {DType::I32, true});
  return trace::binary(t, "div", ir::EwOp::Div, one, ids.at(at));
}

Value r_generalized_normal(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "generalized_normal", {"key", "p", "shape=", "dtype=", "*", "out_sharding="});
  Shape shape = random_shape(I, p.get("shape"), "generalized_normal");
  KeyArg k = key_arg(I, p.get("key"), "generalized_normal");
  DType dt = float_dtype(I, p.get("dtype"), "generalized_normal");
  PowerParam pp = power_param(I, p.get("p"), "generalized_normal");
  auto out = out_sharding_arg(I, p.get("out_sharding"));
  OutMeshScope scope(out);
  std::vector<Value> ops{k.data, pp.p};
  if (pp.inv_p) ops.push_back(pp.inv_p);
  return apply(I, "generalized_normal", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
    Gathered g = gather(t, ids);
    ValueId inv = inverse_in_trace(t, pp, g.ids, 1);
    return one_id(placed(t, random::generalized_normal(t, g.ids[0], inv, shape, dt), out, g));
  });
}

Value r_ball(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "ball", {"key", "d", "p=", "shape=", "dtype=", "*", "out_sharding="});
  Shape shape = random_shape(I, p.get("shape"), "ball");
  KeyArg k = key_arg(I, p.get("key"), "ball");
  DType dt = float_dtype(I, p.get("dtype"), "ball");
  const int64_t d = int_arg(I, p.get("d"), "d");
  PowerParam pp = power_param(I, p.has("p") ? p.get("p") : interp::make_int(2), "ball");
  auto out = out_sharding_arg(I, p.get("out_sharding"));
  OutMeshScope scope(out);
  std::vector<Value> ops{k.data, pp.p};
  if (pp.inv_p) ops.push_back(pp.inv_p);
  return apply(I, "ball", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
    Gathered g = gather(t, ids);
    ValueId inv = inverse_in_trace(t, pp, g.ids, 1);
    return one_id(placed(t, random::ball(t, g.ids[0], d, g.ids[1], inv, pp.int_p, shape, dt), out, g));
  });
}

// ---- counting samplers -----------------------------------------------------------------------

Value r_poisson(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "poisson", {"key", "lam", "shape=", "dtype=", "*", "method=", "out_sharding="});
  KeyArg k = key_arg(I, p.get("key"), "poisson");
  const bool approximate = check_method(I, p.get("method"), "poisson");
  DType dt = int_or_given(I, p.get("dtype"));
  Value lam = param(I, p.get("lam"), "poisson");
  Shape shape = is_none(p.get("shape")) ? pshape(lam) : random_shape(I, p.get("shape"), "poisson");
  if (approximate) {  // lam is not broadcast first: a lower rank may save computation
    Shape got = guarded(I, [&] { return trace::broadcast_shapes("poisson", {pshape(lam), shape}); });
    if (got != shape)
      I.raise("ValueError", fmt::format("lam shape must be broadcastable to shape argument; got lam.shape {}, shape {}",
                                        types::py_int_tuple(pshape(lam)), types::py_int_tuple(shape)));
  }
  auto out = out_sharding_arg(I, p.get("out_sharding"));
  OutMeshScope scope(out);
  return apply(I, "poisson", {k.data, lam}, [&](Trace& t, const std::vector<ValueId>& ids) {
    Gathered g = gather(t, ids);
    if (approximate) return one_id(placed(t, random::poisson_approx(t, g.ids[0], g.ids[1], shape, dt), out, g));
    ValueId l = trace::broadcast_to(t, g.ids[1], shape);  // jnp.broadcast_to's checks
    return one_id(placed(t, random::poisson(t, g.ids[0], l, shape, dt, out), out, g));
  });
}

Value r_binomial(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "binomial", {"key", "n", "p", "shape=", "dtype="});
  KeyArg k = key_arg(I, p.get("key"), "binomial");
  Value n = param(I, p.get("n"), "binomial"), pr = param(I, p.get("p"), "binomial");
  DType dt = float_dtype(I, p.get("dtype"), "binomial");
  Shape shape = broadcast_shape(I, p.get("shape"), "binomial", {n, pr});
  return apply(I, "binomial", {k.data, n, pr}, [&](Trace& t, const std::vector<ValueId>& ids) {
    Gathered g = gather(t, ids);
    return one_id(placed(t, random::binomial(t, g.ids[0], g.ids[1], g.ids[2], shape, dt), std::nullopt, g));
  });
}

Value r_multinomial(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "multinomial", {"key", "n", "p", "*", "shape=", "dtype=", "unroll="});
  KeyArg k = key_arg(I, p.get("key"), "multinomial");
  Value n = param(I, p.get("n"), "multinomial"), pr = param(I, p.get("p"), "multinomial");
  const DType pd = is_array_like(n) && type_of(n).dtype() == DType::F64 ? DType::F64 : inexact_dtype(pr);
  DType dt = is_none(p.get("dtype")) ? pd : storage_dtype(require_dtype(I, p.get("dtype")), false);
  Shape shape = is_none(p.get("shape")) ? pshape(pr) : random_shape(I, p.get("shape"), "multinomial");
  if (shape.empty()) I.raise("ValueError", "multinomial requires p (or shape) with at least one dimension: the categories");
  return apply(I, "multinomial", {k.data, n, pr}, [&](Trace& t, const std::vector<ValueId>& ids) {
    Gathered g = gather(t, ids);
    return one_id(placed(t, random::multinomial(t, g.ids[0], g.ids[1], g.ids[2], shape, dt), std::nullopt, g));
  });
}

Value r_geometric(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "geometric", {"key", "p", "shape=", "dtype=", "*", "out_sharding="});
  KeyArg k = key_arg(I, p.get("key"), "geometric");
  DType dt = int_or_given(I, p.get("dtype"));
  if (!types::is_int(dt)) I.raise("ValueError", fmt::format("dtype argument to `geometric` must be an int dtype, got {}", types::dtype_name(dt)));
  Value pr = param(I, p.get("p"), "geometric");
  Shape shape = broadcast_shape(I, p.get("shape"), "geometric", {pr});
  const DType pd = inexact_dtype(pr);
  auto out = out_sharding_arg(I, p.get("out_sharding"));
  OutMeshScope scope(out);
  return apply(I, "geometric", {k.data, pr}, [&](Trace& t, const std::vector<ValueId>& ids) {
    Gathered g = gather(t, ids);
    ValueId pf = trace::convert(t, g.ids[1], {pd, t.type(g.ids[1]).weak_type()});
    return one_id(placed(t, random::geometric(t, g.ids[0], pf, shape, dt, out), out, g));
  });
}

// ---- the other transforms --------------------------------------------------------------------

Value r_triangular(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "triangular", {"key", "left", "mode", "right", "shape=", "dtype=", "*", "out_sharding="});
  KeyArg k = key_arg(I, p.get("key"), "triangular");
  DType dt = float_dtype(I, p.get("dtype"), "triangular");
  Value l = param(I, p.get("left"), "triangular"), m = param(I, p.get("mode"), "triangular"), r = param(I, p.get("right"), "triangular");
  Shape shape = broadcast_shape(I, p.get("shape"), "triangular", {l, m, r});
  auto out = out_sharding_arg(I, p.get("out_sharding"));
  OutMeshScope scope(out);
  return apply(I, "triangular", {k.data, l, m, r}, [&](Trace& t, const std::vector<ValueId>& ids) {
    Gathered g = gather(t, ids);
    return one_id(placed(t, random::triangular(t, g.ids[0], g.ids[1], g.ids[2], g.ids[3], shape, dt, out), out, g));
  });
}

Value r_wald(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "wald", {"key", "mean", "shape=", "dtype=", "*", "out_sharding="});
  KeyArg k = key_arg(I, p.get("key"), "wald");
  DType dt = float_dtype(I, p.get("dtype"), "wald");
  Value mean = param(I, p.get("mean"), "wald");
  Shape shape = broadcast_shape(I, p.get("shape"), "wald", {mean});
  auto out = out_sharding_arg(I, p.get("out_sharding"));
  OutMeshScope scope(out);
  return apply(I, "wald", {k.data, mean}, [&](Trace& t, const std::vector<ValueId>& ids) {
    Gathered g = gather(t, ids);
    return one_id(placed(t, random::wald(t, g.ids[0], g.ids[1], shape, dt, out), out, g));
  });
}

Value r_double_sided_maxwell(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "double_sided_maxwell", {"key", "loc", "scale", "shape=", "dtype="});
  KeyArg k = key_arg(I, p.get("key"), "double_sided_maxwell");
  DType dt = float_dtype(I, p.get("dtype"), "double_sided_maxwell");
  Shape shape = random_shape(I, p.get("shape"), "double_sided_maxwell");
  Value loc = param(I, p.get("loc"), "double_sided_maxwell"), scale = param(I, p.get("scale"), "double_sided_maxwell");
  return apply(I, "double_sided_maxwell", {k.data, loc, scale}, [&](Trace& t, const std::vector<ValueId>& ids) {
    Gathered g = gather(t, ids);
    return one_id(placed(t, random::double_sided_maxwell(t, g.ids[0], g.ids[1], g.ids[2], shape, dt), std::nullopt, g));
  });
}

Value r_orthogonal(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "orthogonal", {"key", "n", "shape=", "dtype=", "m=", "*", "out_sharding="});
  Shape shape = random_shape(I, p.get("shape"), "orthogonal");
  KeyArg k = key_arg(I, p.get("key"), "orthogonal");
  DType dt = float_dtype(I, p.get("dtype"), "orthogonal");
  const int64_t n = int_arg(I, p.get("n"), "n");
  const int64_t m = is_none(p.get("m")) ? n : int_arg(I, p.get("m"), "m");
  auto out = out_sharding_arg(I, p.get("out_sharding"));
  OutMeshScope scope(out);
  return apply(I, "orthogonal", {k.data}, [&](Trace& t, const std::vector<ValueId>& ids) {
    Gathered g = gather(t, ids);
    return one_id(placed(t, random::orthogonal(t, g.ids[0], n, m, shape, dt), out, g));
  });
}

Value r_multivariate_normal(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "multivariate_normal", {"key", "mean", "cov", "shape=", "dtype=", "method=", "*", "out_sharding="});
  KeyArg k = key_arg(I, p.get("key"), "multivariate_normal");
  std::string method = "cholesky";
  if (!is_none(p.get("method"))) {
    Value mv = p.get("method");
    method = mv->kind == ObjKind::Str ? static_cast<interp::StrObj&>(*mv).v : "";
    if (method != "svd" && method != "eigh" && method != "cholesky") I.raise("ValueError", "method must be one of {'svd', 'eigh', 'cholesky'}");
  }
  Value mean = param(I, p.get("mean"), "multivariate_normal"), cov = param(I, p.get("cov"), "multivariate_normal");
  // promote_dtypes_inexact(mean, cov): one float dtype for both.
  DType pd = inexact_dtype(mean);
  if (is_array_like(cov) && inexact_dtype(cov) == DType::F64) pd = DType::F64;
  DType dt = pd;
  if (!is_none(p.get("dtype"))) {
    dt = storage_dtype(require_dtype(I, p.get("dtype")), false);
    if (!types::is_float(dt))
      I.raise("ValueError", fmt::format("dtype argument to `multivariate_normal` must be a float dtype, got {}", types::dtype_name(dt)));
  }
  auto shape = optional_shape(I, p.get("shape"), "multivariate_normal");
  auto out = out_sharding_arg(I, p.get("out_sharding"));
  OutMeshScope scope(out);
  return apply(I, "multivariate_normal", {k.data, mean, cov}, [&](Trace& t, const std::vector<ValueId>& ids) {
    Gathered g = gather(t, ids);
    ValueId m = trace::convert(t, g.ids[1], {pd, false});
    ValueId c = trace::convert(t, g.ids[2], {pd, false});
    return one_id(placed(t, random::multivariate_normal(t, g.ids[0], m, c, shape, dt, method), out, g));
  });
}

// lax.random_gamma_grad(a, x): d x / d a of Gamma(a) samples x, elementwise.
Value lax_random_gamma_grad(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "random_gamma_grad", {"a", "x"});
  Value av = param(I, p.get("a"), "random_gamma_grad"), xv = param(I, p.get("x"), "random_gamma_grad");
  return apply(I, "random_gamma_grad", {av, xv}, [&](Trace& t, const std::vector<ValueId>& ids) {
    trace::reject_non_float_operands("random_gamma_grad", {t.type(ids[0]).dtype(), t.type(ids[1]).dtype()});
    const DTypeW d = trace::promote(dtw(t, ids[0]), dtw(t, ids[1]));
    const Shape s = trace::broadcast_shapes("random_gamma_grad", {t.type(ids[0]).shape(), t.type(ids[1]).shape()});
    ValueId av2 = trace::broadcast_to(t, trace::convert(t, ids[0], {d.dtype, false}), s);
    ValueId xv2 = trace::broadcast_to(t, trace::convert(t, ids[1], {d.dtype, false}), s);
    return one_id(random::random_gamma_grad(t, av2, xv2));
  });
}

}  // namespace

void add_lax_random_gamma_grad(ModuleObj& m) { def_fn(m, "random_gamma_grad", lax_random_gamma_grad); }

void fill_random_samplers(ModuleObj& m) {
  def_fn(m, "gamma", gamma_sampler("gamma", false));
  def_fn(m, "loggamma", gamma_sampler("loggamma", true));
  def_fn(m, "beta", r_beta);
  def_fn(m, "dirichlet", r_dirichlet);
  def_fn(m, "chisquare", r_chisquare);
  def_fn(m, "f", r_f);
  def_fn(m, "t", r_t);
  def_fn(m, "generalized_normal", r_generalized_normal);
  def_fn(m, "ball", r_ball);
  def_fn(m, "poisson", r_poisson);
  def_fn(m, "binomial", r_binomial);
  def_fn(m, "multinomial", r_multinomial);
  def_fn(m, "geometric", r_geometric);
  def_fn(m, "triangular", r_triangular);
  def_fn(m, "wald", r_wald);
  def_fn(m, "double_sided_maxwell", r_double_sided_maxwell);
  def_fn(m, "orthogonal", r_orthogonal);
  def_fn(m, "multivariate_normal", r_multivariate_normal);
}

}  // namespace shard::api
