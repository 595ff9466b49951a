// jax.scipy.special: the special functions over the elementwise primitives (erf, erfc,
// erf_inv, logistic, lgamma, digamma, polygamma; igamma, igammac, betainc, zeta, bessel_i0e,
// bessel_i1e, erfcx, expi, expn of codegen/special_functions.cpp) and the compositions of
// trace/ops_composite.cpp (logsumexp, xlogy, xlog1py, logit, the gamma family, the normal
// distribution) and trace/ops_special.cpp (i0, i1, poch, rel_entr, kl_div, boxcox, comb,
// spence, bessel_jn, zeta's x derivative, logsumexp's sign and where). Integer arguments
// become floats, as in JAX. lax.betainc is defined here too (add_lax_betainc).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <cstring>

#include "api/op_args.hpp"
#include "api/modules/lax_module.hpp"
#include "api/modules/numpy_internal.hpp"
#include "api/modules/scipy_linalg_module.hpp"
#include "interp/builtins/support.hpp"
#include "trace/ops_special.hpp"
#include "types/jax_version.hpp"
#include "types/x64_mode.hpp"

namespace shard::api {

using interp::ArgParser;
using ir::EwOp;

namespace {

ValueId to_float(Trace& t, ValueId x) { return trace::convert(t, x, trace::to_inexact(dtw(t, x))); }

void def_unary(ModuleObj& m, const std::string& name, std::function<ValueId(Trace&, ValueId)> body) {
  def_fn(m, name, [name, body](Interp& I, CallArgs& a) {
    ArgParser p(I, a, name, {"x"});
    return apply(I, name, {elementwise_operand(I, p.get("x"), name)},
                 [&](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{body(t, ids[0])}; });
  });
}

void def_binary(ModuleObj& m, const std::string& name, ValueId (*body)(Trace&, ValueId, ValueId), const char* x_name = "x",
                const char* y_name = "y") {
  def_fn(m, name, [name, body, x_name, y_name](Interp& I, CallArgs& a) {
    ArgParser p(I, a, name, {x_name, y_name});
    return apply(I, name, {elementwise_operand(I, p.get(x_name), name), elementwise_operand(I, p.get(y_name), name)},
                 [&](Trace& t, const std::vector<ValueId>& ids) {
                   check_broadcast(t, ids);
                   return std::vector<ValueId>{body(t, ids[0], ids[1])};
                 });
  });
}

// ndtr, ndtri and log_ndtr take float32 / float64 only, with JAX's TypeErrors.
void require_f32_or_f64(Trace& t, ValueId x, const char* tail) {
  const DType d = t.type(x).dtype();
  if (d != DType::F32 && d != DType::F64)
    throw types::ShardingError("TypeError", fmt::format("x.dtype={} is not supported{}", types::dtype_name(d), tail));
}

Value polygamma(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "polygamma", {"n", "x"});
  std::vector<Value> ops = {elementwise_operand(I, p.get("n"), "polygamma"), elementwise_operand(I, p.get("x"), "polygamma")};
  return apply(I, "polygamma", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
    const DType n = t.type(ids[0]).dtype();
    if (!types::is_int(n)) {
      // JAX 0.6 asserts; later versions say why.
      if (types::jax_version() == types::JaxVersion::V0_6) throw types::ShardingError("AssertionError", "");
      throw types::ShardingError("ValueError", fmt::format("Argument `n` to polygamma must be of integer type. Got dtype {}.", types::dtype_name(n)));
    }
    check_broadcast(t, ids);
    return std::vector<ValueId>{trace::polygamma(t, ids[0], ids[1])};
  });
}

Value factorial(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "factorial", {"n", "exact="});
  if (!is_none(p.get("exact")) && I.truthy(p.get("exact"))) I.raise("NotImplementedError", "factorial with exact=True");
  return apply(I, "factorial", {elementwise_operand(I, p.get("n"), "factorial")},
               [&](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{trace::factorial(t, ids[0])}; });
}

Value multigammaln(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "multigammaln", {"a", "d"});
  const int64_t d = int_arg(I, p.get("d"), "d argument of multigammaln");
  return apply(I, "multigammaln", {elementwise_operand(I, p.get("a"), "multigammaln")},
               [&](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{trace::multigammaln(t, ids[0], d)}; });
}

Value log_ndtr(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "log_ndtr", {"x", "series_order="});
  int64_t order = 3;
  if (Value v = p.get("series_order"); v) {  // None too: JAX wants a Python int
    if (!interp::bi::int_of(v)) I.raise("TypeError", "series_order must be a Python integer.");
    order = *interp::bi::int_of(v);
  }
  if (order < 0) I.raise("ValueError", "series_order must be non-negative.");
  if (order > 30) I.raise("ValueError", "series_order must be <= 30.");
  return apply(I, "log_ndtr", {elementwise_operand(I, p.get("x"), "log_ndtr")}, [&](Trace& t, const std::vector<ValueId>& ids) {
    require_f32_or_f64(t, ids[0], ".");
    return std::vector<ValueId>{trace::log_ndtr(t, ids[0], order)};
  });
}

// The primitive applied to x made floating first (lax's own functions take floats only).
std::function<ValueId(Trace&, ValueId)> primitive(EwOp op) {
  return [op](Trace& t, ValueId x) { return trace::unary(t, ir::ew_info(op).primitive, op, to_float(t, x)); };
}

Value logsumexp(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "logsumexp", {"a", "axis=", "b=", "keepdims=", "return_sign=", "where="});
  const bool return_sign = !is_none(p.get("return_sign")) && I.truthy(p.get("return_sign"));
  auto axes = axes_arg(I, p.get("axis"));
  const bool keepdims = !is_none(p.get("keepdims")) && I.truthy(p.get("keepdims"));
  std::vector<Value> ops = {elementwise_operand(I, p.get("a"), "logsumexp")};
  const bool weighted = !is_none(p.get("b"));
  if (weighted) ops.push_back(elementwise_operand(I, p.get("b"), "logsumexp"));
  const bool masked = !is_none(p.get("where"));
  if (masked) ops.push_back(elementwise_operand(I, p.get("where"), "logsumexp"));
  if (return_sign || masked) {  // JAX's full algorithm (trace/ops_special.cpp)
    auto r = apply_multi(I, "logsumexp", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
      std::optional<ValueId> b, w;
      if (weighted) b = ids[1];
      if (masked) w = ids.back();
      auto s = trace::logsumexp_signed(t, ids[0], axes.value_or(std::vector<int64_t>{}), keepdims, b, w);
      if (return_sign) return std::vector<ValueId>{s.out, s.sign};
      ValueId out = s.out;
      if (weighted) {  // a negative weighted sum: NaN, as JAX
        ValueId neg = trace::binary(t, "lt", EwOp::Lt, s.sign, trace::scalar_constant(t, 0, {t.type(s.sign).dtype(), true}));
        ValueId nan = trace::scalar_constant(t, NAN, {t.type(out).dtype(), false});
        out = trace::where(t, neg, nan, out);
      }
      return std::vector<ValueId>{out};
    });
    return return_sign ? interp::make_tuple(r) : r.at(0);
  }
  return apply(I, "logsumexp", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
    std::optional<ValueId> b;
    if (weighted) b = ids[1];
    return std::vector<ValueId>{trace::logsumexp(t, ids[0], axes.value_or(std::vector<int64_t>{}), keepdims, b)};
  });
}

// jax.scipy.special.betainc(a, b, x): the three promoted to one inexact dtype and broadcast.
Value betainc(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "betainc", {"a", "b", "x"});
  std::vector<Value> ops;
  for (const char* k : {"a", "b", "x"}) ops.push_back(elementwise_operand(I, p.get(k), "betainc"));
  return apply(I, "betainc", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
    check_broadcast(t, ids);
    const DTypeW d = trace::to_inexact(trace::promote(trace::promote(dtw(t, ids[0]), dtw(t, ids[1])), dtw(t, ids[2])));
    ValueId x = trace::convert(t, ids[0], d);
    ValueId y = trace::convert(t, ids[1], d);
    ValueId z = trace::convert(t, ids[2], d);
    return std::vector<ValueId>{trace::betainc(t, x, y, z)};
  });
}

Value zeta(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "zeta", {"x", "q="});
  if (is_none(p.get("q")))
    I.raise("NotImplementedError", "Riemann zeta function not implemented; pass q != None to compute the Hurwitz Zeta function.");
  std::vector<Value> ops = {elementwise_operand(I, p.get("x"), "zeta"), elementwise_operand(I, p.get("q"), "zeta")};
  return apply(I, "zeta", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
    check_broadcast(t, ids);
    return std::vector<ValueId>{trace::special_binary(t, EwOp::Zeta, ids[0], ids[1])};
  });
}

// softmax / log_softmax: jax.nn's over `axis` (None: all axes).
NativeFn nn_alias(const char* name) {
  return [name](Interp& I, CallArgs& a) {
    ArgParser p(I, a, name, {"x", "*", "axis="});
    Value fn = I.getattr(I.import_module("jax.nn", I.current_loc()), name);
    CallArgs ca{{p.get("x")}, {{"axis", p.get("axis") ? p.get("axis") : interp::none()}}, I.current_loc()};
    return I.call(fn, ca);
  };
}

// bernoulli(n): B_0..B_n (B_1 = -1/2) in the default float dtype: B_2k = (-1)^(k+1) 2 (2k)!
// zeta(2k) / (2 pi)^2k evaluated in float64 and rounded once (JAX evaluates Chowla and
// Hartung's product in the dtype itself: the last digit may differ).
Value bernoulli(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "bernoulli", {"n"});
  Value nv = p.get("n");
  const bool integer_array = nv && is_array_like(nv) && type_of(nv).rank() == 0 && types::is_int(type_of(nv).dtype());
  if (!nv || !(nv->kind == interp::ObjKind::Int || nv->kind == interp::ObjKind::Bool || integer_array))
    I.raise("TypeError", fmt::format("'{}' object cannot be interpreted as an integer", I.type_name(nv)));
  const int64_t n = int_arg(I, nv, "n");
  if (n < 0) I.raise("ValueError", "n must be a non-negative integer.");
  std::vector<double> b(static_cast<size_t>(n + 1), 0.0);
  for (int64_t k = 0; k <= n; ++k) {
    if (k == 0) b[0] = 1;
    else if (k == 1) b[1] = -0.5;
    else if (k % 2 == 0) {
      // zeta(k): sum_{j < J} j^-k, smallest terms first, plus Euler-Maclaurin's tail from J
      const double kk = static_cast<double>(k), J = 1000;
      double zeta = std::pow(J, 1 - kk) / (kk - 1) + std::pow(J, -kk) / 2 + kk * std::pow(J, -kk - 1) / 12 -
                    kk * (kk + 1) * (kk + 2) * std::pow(J, -kk - 3) / 720;
      for (int j = static_cast<int>(J) - 1; j >= 1; --j) zeta += std::pow(j, -kk);
      // 2 k! / (2 pi)^k, as a product of k factors m / (2 pi) to stay in range
      double f = 2;
      for (int64_t m2 = 1; m2 <= k; ++m2) f *= static_cast<double>(m2) / (2 * M_PI);
      b[static_cast<size_t>(k)] = ((k / 2) % 2 == 1 ? 1 : -1) * f * zeta;
    }
  }
  const DType dt = types::default_float_dtype();
  return apply(I, "bernoulli", {}, [&](Trace& t, const std::vector<ValueId>&) {
    std::vector<unsigned char> bytes;
    if (dt == DType::F64) {
      bytes.resize(b.size() * sizeof(double));
      std::memcpy(bytes.data(), b.data(), bytes.size());
    } else {
      std::vector<float> f(b.begin(), b.end());
      bytes.resize(f.size() * sizeof(float));
      std::memcpy(bytes.data(), f.data(), bytes.size());
    }
    return std::vector<ValueId>{trace::constant(t, dt, {n + 1}, bytes.data())};
  });
}

void fill_special(Interp&, ModuleObj& m) {
  // The special functions of codegen/special_functions.cpp and their compositions.
  using Bin = ValueId (*)(Trace&, ValueId, ValueId);
  def_binary(m, "gammainc", Bin([](Trace& t, ValueId a, ValueId x) { return trace::special_binary(t, EwOp::Igamma, a, x); }), "a", "x");
  def_binary(m, "gammaincc", Bin([](Trace& t, ValueId a, ValueId x) { return trace::special_binary(t, EwOp::Igammac, a, x); }), "a", "x");
  def_binary(m, "expn", Bin([](Trace& t, ValueId n, ValueId x) { return trace::special_binary(t, EwOp::Expn, n, x); }), "n", "x");
  def_binary(m, "rel_entr", trace::rel_entr, "p", "q");
  def_binary(m, "kl_div", trace::kl_div, "p", "q");
  def_binary(m, "poch", trace::poch, "z", "m");
  def_fn(m, "betainc", betainc);
  def_fn(m, "zeta", zeta);
  def_unary(m, "i0e", [](Trace& t, ValueId x) { return trace::special_unary(t, EwOp::BesselI0e, x); });
  def_unary(m, "i1e", [](Trace& t, ValueId x) { return trace::special_unary(t, EwOp::BesselI1e, x); });
  def_unary(m, "i0", trace::bessel_i0);
  def_unary(m, "i1", trace::bessel_i1);
  def_unary(m, "erfcx", [](Trace& t, ValueId x) { return trace::special_unary(t, EwOp::Erfcx, x); });
  def_unary(m, "expi", [](Trace& t, ValueId x) { return trace::special_unary(t, EwOp::Expi, x); });
  def_unary(m, "exp1", [](Trace& t, ValueId x) {
    ValueId xf = trace::convert(t, x, trace::to_inexact(dtw(t, x)));
    ValueId one = trace::scalar_constant(t, 1, {t.type(xf).dtype(), true});
    return trace::special_binary(t, EwOp::Expn, one, xf);
  });
  def_binary(m, "boxcox", trace::boxcox, "x", "lmbda");
  def_binary(m, "boxcox1p", trace::boxcox1p, "x", "lmbda");
  def_unary(m, "loggamma", trace::loggamma);
  def_fn(m, "comb", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "comb", {"N", "k", "*", "repetition="});
    const bool repetition = np::bool_arg(I, p.get("repetition"), false);
    std::vector<Value> ops = {elementwise_operand(I, p.get("N"), "comb"), elementwise_operand(I, p.get("k"), "comb")};
    return apply(I, "comb", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
      check_broadcast(t, ids);
      return std::vector<ValueId>{trace::comb(t, ids[0], ids[1], repetition)};
    });
  });
  def_fn(m, "bernoulli", bernoulli);
  def_fn(m, "bessel_jn", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "bessel_jn", {"z", "*", "v", "n_iter="});
    Value vv = p.get("v");
    if (!vv || !(vv->kind == interp::ObjKind::Int || vv->kind == interp::ObjKind::Bool))
      I.raise("TypeError", fmt::format("'{}' object cannot be interpreted as an integer", I.type_name(vv)));
    const int64_t v = int_arg(I, vv, "v");
    const int64_t n_iter = p.get("n_iter") ? int_arg(I, p.get("n_iter"), "n_iter") : 50;
    return apply(I, "bessel_jn", {elementwise_operand(I, p.get("z"), "bessel_jn")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{trace::bessel_jn(t, ids[0], v, n_iter)};
    });
  });
  def_fn(m, "softmax", nn_alias("softmax"));
  def_fn(m, "log_softmax", nn_alias("log_softmax"));
  def_unary(m, "erf", primitive(EwOp::Erf));
  def_unary(m, "erfc", primitive(EwOp::Erfc));
  def_unary(m, "erfinv", primitive(EwOp::ErfInv));
  def_unary(m, "expit", primitive(EwOp::Logistic));
  def_unary(m, "logit", [](Trace& t, ValueId x) {  // log(x / (1 - x))
    x = to_float(t, x);
    ValueId one = trace::scalar_constant(t, 1, {t.type(x).dtype(), true});
    return trace::unary(t, "log", EwOp::Log, trace::binary(t, "div", EwOp::Div, x, trace::binary(t, "sub", EwOp::Sub, one, x)));
  });
  def_binary(m, "xlogy", trace::xlogy);
  def_binary(m, "xlog1py", trace::xlog1py);
  def_fn(m, "logsumexp", logsumexp);
  // The gamma family.
  def_unary(m, "gammaln", trace::gammaln);
  def_unary(m, "digamma", trace::digamma);
  def_unary(m, "gamma", trace::gamma);
  def_unary(m, "gammasgn", trace::gammasgn);
  def_fn(m, "polygamma", polygamma);
  def_binary(m, "betaln", trace::betaln, "a", "b");
  def_binary(m, "beta", trace::beta, "a", "b");
  def_fn(m, "factorial", factorial);
  def_fn(m, "multigammaln", multigammaln);
  def_unary(m, "entr", trace::entr);
  // The normal distribution.
  using Body = ValueId (*)(Trace&, ValueId);
  for (auto [name, body] : {std::pair<const char*, Body>{"ndtr", trace::ndtr}, {"ndtri", trace::ndtri}})
    def_unary(m, name, [body](Trace& t, ValueId x) {
      require_f32_or_f64(t, x, ", see docstring for supported types.");
      return body(t, x);
    });
  def_fn(m, "log_ndtr", log_ndtr);
  def_fn(m, "sici", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "sici", {"x"});
    auto r = apply_multi(I, "sici", {elementwise_operand(I, p.get("x"), "sici")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      auto s = trace::sici(t, ids[0]);
      return std::vector<ValueId>{s.si, s.ci};
    });
    return interp::make_tuple(r);
  });
  def_fn(m, "fresnel", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "fresnel", {"x"});
    auto r = apply_multi(I, "fresnel", {elementwise_operand(I, p.get("x"), "fresnel")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      auto f = trace::fresnel(t, ids[0]);
      return std::vector<ValueId>{f.s, f.c};
    });
    return interp::make_tuple(r);
  });
  def_unary(m, "dawsn", trace::dawsn);
  def_unary(m, "spence", [](Trace& t, ValueId x) {
    require_f32_or_f64(t, x, ", see docstring for supported types.");
    return trace::spence(t, x);
  });
}

void fill_scipy(Interp& I, ModuleObj& m) {
  m.dict.set("special", I.import_module("jax.scipy.special", I.current_loc()));
  m.dict.set("linalg", I.import_module("jax.scipy.linalg", I.current_loc()));
}

}  // namespace

// lax.betainc(a, b, x): the regularized_incomplete_beta primitive on float operands of one
// dtype (JAX's checks; Python scalars take the arrays' dtype), 0-d operands broadcast.
void add_lax_betainc(ModuleObj& m) {
  lax::def_lax(m, "betainc", [](Interp& I, CallArgs& a) {
    const char* name = "regularized_incomplete_beta";
    ArgParser p(I, a, "betainc", {"a", "b", "x"});
    std::vector<Value> ops;
    size_t pos = 0;
    for (const char* k : {"a", "b", "x"}) ops.push_back(lax::lax_operand(I, p.get(k), "betainc", pos++));
    std::vector<bool> is_arr;
    for (auto& v : ops) is_arr.push_back(is_array_like(v));
    return apply(I, "betainc", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
      std::vector<DType> dts;
      for (auto id : ids) dts.push_back(t.type(id).dtype());
      trace::reject_non_float_operands(name, dts);
      std::optional<DType> common;
      std::vector<std::string> names;
      bool mismatch = false;
      for (size_t i = 0; i < ids.size(); ++i) {
        if (!is_arr[i]) continue;
        names.push_back(std::string(types::dtype_name(dts[i])));
        if (!common) common = dts[i];
        else if (*common != dts[i]) mismatch = true;
      }
      if (mismatch)
        throw types::ShardingError("TypeError", fmt::format("lax.{} requires arguments to have the same dtypes, got {}.", name, fmt::join(names, ", ")));
      std::vector<ValueId> xs = ids;
      if (common)
        for (size_t i = 0; i < xs.size(); ++i)
          if (!is_arr[i]) xs[i] = trace::convert(t, xs[i], {*common, true});
      return std::vector<ValueId>{trace::betainc(t, xs[0], xs[1], xs[2])};
    });
  });
}

void register_scipy_module() {
  Interp::register_builtin_module("jax.scipy.special", fill_special);
  Interp::register_builtin_module("jax.scipy", fill_scipy);
  register_scipy_linalg_module();
}

}  // namespace shard::api
