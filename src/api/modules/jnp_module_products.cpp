// Products of jax.numpy and the host numpy module built from elementwise ops: cross (2- and
// 3-vectors along any axes), convolve / correlate (1-D, modes full / same / valid) and
// polyval (Horner's rule). One traced body per function shared by both modules; they differ
// in dtypes (jnp promotes convolutions to float32, numpy keeps integer ones) and messages.
#include <fmt/format.h>

#include <cctype>

#include "api/modules/jnp_module.hpp"
#include "api/modules/numpy_internal.hpp"
#include "interp/builtins/support.hpp"
#include "trace/promotion.hpp"

namespace shard::api {

using ir::EwOp;
using ir::ReduceKind;
using interp::ArgParser;

namespace {

[[noreturn]] void fail(const std::string& kind, const std::string& msg) { throw types::ShardingError(kind, msg); }

ValueId to(Trace& t, ValueId x, DType d) { return t.type(x).dtype() == d ? x : trace::convert(t, x, {d, false}); }
ValueId mul(Trace& t, ValueId a, ValueId b) { return trace::binary(t, "mul", EwOp::Mul, a, b); }
ValueId sub(Trace& t, ValueId a, ValueId b) { return trace::binary(t, "sub", EwOp::Sub, a, b); }

ValueId replicated(Trace& t, ValueId x) {
  if (!t.type(x).is_sharded()) return x;
  return trace::reshard(t, x, sharding::OutSharding{types::PartitionSpec()});
}

struct CrossAxes {
  int64_t a = -1, b = -1, c = -1;
};

// The cross product of the vectors along axes.a of a and axes.b of b (2 or 3 components,
// batch dims broadcast), the result's vector axis at axes.c; two 2-vectors give the scalar
// z component.
ValueId cross_body(Trace& t, ValueId a, ValueId b, const CrossAxes& axes, DType d, bool numpy) {
  const int64_t ra = static_cast<int64_t>(t.type(a).rank()), rb = static_cast<int64_t>(t.type(b).rank());
  if (numpy && (ra == 0 || rb == 0)) fail("ValueError", "At least one array has zero dimension");
  a = trace::move_dim(t, to(t, a, d), trace::normalize_axis("cross", axes.a, ra), ra - 1);
  b = trace::move_dim(t, to(t, b, d), trace::normalize_axis("cross", axes.b, rb), rb - 1);
  const int64_t na = t.type(a).shape().back(), nb = t.type(b).shape().back();
  if ((na != 2 && na != 3) || (nb != 2 && nb != 3))
    fail("ValueError", numpy ? "incompatible dimensions for cross product\n(dimension must be 2 or 3)" : "Dimension must be either 2 or 3 for cross product");
  Shape ba = t.type(a).shape(), bb = t.type(b).shape();
  ba.pop_back();
  bb.pop_back();
  const Shape batch = trace::broadcast_shapes("cross", {ba, bb});
  // p * q - r * s, p * q's ops first.
  auto cross_term = [&](ValueId p, ValueId q, ValueId r, ValueId s) {
    ValueId pq = mul(t, p, q);
    return sub(t, pq, mul(t, r, s));
  };
  auto comp = [&](ValueId x, int64_t n, int64_t i) {
    if (i >= n) return trace::full(t, batch, 0, {d, false}, std::nullopt);
    const int64_t r = static_cast<int64_t>(t.type(x).rank());
    return trace::broadcast_to(t, trace::index_dims(t, x, {r - 1}, {i}), batch);
  };
  ValueId a0 = comp(a, na, 0), a1 = comp(a, na, 1), b0 = comp(b, nb, 0), b1 = comp(b, nb, 1);
  if (na == 2 && nb == 2) return cross_term(a0, b1, a1, b0);
  ValueId a2 = comp(a, na, 2), b2 = comp(b, nb, 2);
  ValueId c = trace::stack(t, {cross_term(a1, b2, a2, b1), cross_term(a2, b0, a0, b2), cross_term(a0, b1, a1, b0)}, 0);
  const int64_t rc = static_cast<int64_t>(t.type(c).rank());
  return trace::move_dim(t, c, 0, trace::normalize_axis("cross", axes.c, rc));
}

// 1-D correlation (or convolution: v reversed) of x with v in mode full / same / valid. The
// shorter input slides over the longer one; with xp the longer one zero-padded, row j of
// the window matrix W (m x L) is xp[j : j + L], read off a flattened broadcast of xp whose
// rows are one element longer than xp, so no element is copied per window.
ValueId conv_body(Trace& t, ValueId x, ValueId v, const std::string& mode, bool correlate, DType d, bool numpy) {
  const char* op = correlate ? "correlate" : "convolve";
  if (t.type(x).rank() != 1 || t.type(v).rank() != 1)
    fail("ValueError", numpy ? std::string("object too deep for desired array") : fmt::format("{}() only support 1-dimensional inputs.", op));
  x = to(t, replicated(t, x), d);
  v = to(t, replicated(t, v), d);
  int64_t n = t.type(x).shape()[0], m = t.type(v).shape()[0];
  if (n == 0 || m == 0) {
    if (numpy && correlate) fail("ValueError", n == 0 ? "first array argument cannot be empty" : "second array argument cannot be empty");
    if (numpy) fail("ValueError", n == 0 && m == 0 ? "a cannot be empty" : "v cannot be empty");
    fail("ValueError", fmt::format("{}: inputs cannot be empty, got shapes {} and {}.", op, types::py_int_tuple({n}), types::py_int_tuple({m})));
  }
  bool reverse_out = false;
  if (n < m) {
    std::swap(x, v);
    std::swap(n, m);
    reverse_out = correlate;
  }
  if (!correlate) v = trace::rev(t, v, {0});
  int64_t lo, hi;
  if (mode == "valid") lo = hi = 0;
  else if (mode == "same") lo = m / 2, hi = m - m / 2 - 1;
  else if (mode == "full") lo = hi = m - 1;
  else fail("ValueError", "mode must be one of ['full', 'same', 'valid']");  // numpy's modes are checked by its binding
  ValueId xp = trace::pad(t, x, trace::scalar_constant(t, 0, {d, true}), {lo}, {hi});
  const int64_t len = n + lo + hi, out = len - m + 1;
  ValueId rows = trace::reshape(t, trace::broadcast_in_dim(t, xp, {m + 1, len}, {1}), {(m + 1) * len});
  ValueId win = trace::reshape(t, trace::slice(t, rows, {0}, {m * (len + 1)}, {}), {m, len + 1});
  win = trace::slice(t, win, {0, 0}, {m, out}, {});
  ValueId prod = mul(t, win, trace::broadcast_in_dim(t, v, {m, out}, {0}));
  ValueId r = trace::reduce(t, op, d == DType::Bool ? ReduceKind::Or : ReduceKind::Sum, prod, {0}, false);
  return reverse_out ? trace::rev(t, r, {0}) : r;
}

// polyval: Horner's rule over p's leading axis (p[0] the highest power), in dtype d.
ValueId polyval_body(Trace& t, ValueId p, ValueId x, DType d) {
  if (t.type(p).rank() == 0) fail("TypeError", "iteration over a 0-d array");
  p = to(t, p, d);
  x = to(t, x, d);
  Shape ps = t.type(p).shape();
  const int64_t k = ps[0];
  Shape coeff(ps.begin() + 1, ps.end());
  const Shape shape = trace::broadcast_shapes("polyval", {coeff, t.type(x).shape()});
  ValueId xb = trace::broadcast_to(t, x, shape);
  ValueId y = trace::full(t, shape, 0, {d, false}, std::nullopt);
  for (int64_t i = 0; i < k; ++i) {
    ValueId c = trace::broadcast_to(t, trace::index_dims(t, p, {0}, {i}), shape);
    y = trace::binary(t, "add", EwOp::Add, mul(t, y, xb), c);
  }
  return y;
}

Value array_value(Interp& I, const Value& v) { return is_array_like(v) ? v : to_array(I, v, std::nullopt, false); }

CrossAxes cross_axes(Interp& I, const ArgParser& p) {
  CrossAxes ax;
  if (!is_none(p.get("axisa"))) ax.a = int_arg(I, p.get("axisa"), "axisa");
  if (!is_none(p.get("axisb"))) ax.b = int_arg(I, p.get("axisb"), "axisb");
  if (!is_none(p.get("axisc"))) ax.c = int_arg(I, p.get("axisc"), "axisc");
  if (!is_none(p.get("axis"))) ax.a = ax.b = ax.c = int_arg(I, p.get("axis"), "axis");
  return ax;
}

std::string mode_arg(Interp& I, const Value& v, const char* dflt) { return is_none(v) ? dflt : I.str(v); }

// numpy's mode: a string read by its first letter (any case), or 0 / 1 / 2.
std::string np_mode_arg(Interp& I, const Value& v, const char* dflt) {
  static const char* names[] = {"valid", "same", "full"};
  if (is_none(v)) return dflt;
  if (auto k = interp::bi::int_of(v)) {
    if (*k < 0 || *k > 2) I.raise("ValueError", "integer convolve/correlate mode must be 0, 1, or 2");
    return names[*k];
  }
  if (auto* s = interp::bi::str_of(v); s && !s->v.empty()) {
    for (const char* nm : names)
      if (std::tolower(static_cast<unsigned char>(s->v[0])) == nm[0]) return nm;
  }
  I.raise("ValueError", fmt::format("mode must be one of 'valid', 'same', or 'full' (got {})", I.repr(v)));
}

}  // namespace

void add_jnp_products(Interp&, ModuleObj& m) {
  def_jnp(m, "cross", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "cross", {"a", "b", "axisa=", "axisb=", "axisc=", "axis="});
    check_arraylike(I, "cross", {p.get("a"), p.get("b")});
    auto axes = cross_axes(I, p);
    return apply(I, "cross", {array_value(I, p.get("a")), array_value(I, p.get("b"))}, [&](Trace& t, const std::vector<ValueId>& ids) {
      const DType d = trace::promote(dtw(t, ids[0]), dtw(t, ids[1])).dtype;
      return std::vector<ValueId>{cross_body(t, ids[0], ids[1], axes, d, false)};
    });
  });
  for (bool corr : {false, true}) {
    def_jnp(m, corr ? "correlate" : "convolve", [corr](Interp& I, CallArgs& a) {
      ArgParser p(I, a, corr ? "correlate" : "convolve", {"a", "v", "mode=", "*", "precision=", "preferred_element_type="});
      check_arraylike(I, corr ? "correlate" : "convolve", {p.get("a"), p.get("v")});
      const std::string mode = mode_arg(I, p.get("mode"), corr ? "valid" : "full");
      auto pet = dtype_arg(I, p.get("preferred_element_type"));
      return apply(I, corr ? "correlate" : "convolve", {array_value(I, p.get("a")), array_value(I, p.get("v"))},
                   [&](Trace& t, const std::vector<ValueId>& ids) {
                     // inexact unless preferred_element_type asks for a dtype (JAX's _conv)
                     DType d = trace::promote(dtw(t, ids[0]), dtw(t, ids[1])).dtype;
                     if (pet) d = storage_dtype(*pet, false);
                     else d = trace::to_inexact({d, false}).dtype;
                     return std::vector<ValueId>{conv_body(t, ids[0], ids[1], mode, corr, d, false)};
                   });
    });
  }
  def_jnp(m, "polyval", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "polyval", {"p", "x", "*", "unroll="});
    check_arraylike(I, "polyval", {p.get("p"), p.get("x")});
    std::vector<Value> ops{array_value(I, p.get("p")), p.get("x")};
    if (!python_scalar_type(ops[1], false)) ops[1] = array_value(I, ops[1]);
    return apply(I, "polyval", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
      const DType d = trace::promote(dtw(t, ids[0]), dtw(t, ids[1])).dtype;
      return std::vector<ValueId>{polyval_body(t, ids[0], ids[1], d)};
    });
  });
}

namespace np {

void add_product_functions(Interp&, ModuleObj& m) {
  add(m, "cross", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "cross", {"a", "b", "axisa=", "axisb=", "axisc=", "axis="});
    auto axes = cross_axes(I, p);
    auto oa = operand(I, p.get("a")), ob = operand(I, p.get("b"));
    const DType d = promote(oa.array->type.dtype(), ob.array->type.dtype());
    return result(run1(I, "cross", {oa.array, ob.array}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{cross_body(t, ids[0], ids[1], axes, d, true)};
    }));
  });
  for (bool corr : {false, true}) {
    add(m, corr ? "correlate" : "convolve", [corr](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, corr ? "correlate" : "convolve", {"a", "v", "mode="});
      const std::string mode = np_mode_arg(I, p.get("mode"), corr ? "valid" : "full");
      auto oa = operand(I, p.get("a")), ov = operand(I, p.get("v"));
      const DType d = promote(oa.array->type.dtype(), ov.array->type.dtype());
      std::vector<exec::ArrayRef> ins;
      for (auto& o : {oa, ov}) {  // numpy: ndmin=1
        auto h = o.array;
        if (h->type.rank() == 0) h = run1(I, "reshape", {h}, [](trace::Trace& t, const std::vector<ValueId>& ids) {
          return std::vector<ValueId>{trace::reshape(t, ids[0], {1})};
        });
        ins.push_back(h);
      }
      return result(run1(I, corr ? "correlate" : "convolve", ins, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
        return std::vector<ValueId>{conv_body(t, ids[0], ids[1], mode, corr, d, true)};
      }));
    });
  }
  add(m, "polyval", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "polyval", {"p", "x"});
    auto op = operand(I, p.get("p")), ox = operand(I, p.get("x"));
    // numpy's loop adds each coefficient as a scalar to an array shaped like x: value-based
    op.scalar = true;
    const DType d = result_type({ox, op});
    return result(run1(I, "polyval", {op.array, ox.array}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{polyval_body(t, ids[0], ids[1], d)};
    }));
  });
}

}  // namespace np

}  // namespace shard::api
