// Binning and interpolation over sorted edges, for jax.numpy and the host numpy module:
// histogram, histogram_bin_edges and interp. One traced body per function: counts are a
// (values x bins) membership matrix summed, interp's lookups are one-hot gathers over the
// searchsorted position, so jit, grad and vmap apply. jnp computes in float32 (JAX with
// x64 off) on replicated operands; numpy keeps its dtypes (float64 for integer inputs, int64
// counts) and raises numpy's errors for bad ranges and edges.
#include <fmt/format.h>

#include <cmath>
#include <limits>

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

ValueId cst(Trace& t, double v, DType d) { return trace::scalar_constant(t, v, {d, false}); }  // strong: two weak constants would compute in float32
ValueId flat(Trace& t, ValueId x) { return trace::reshape(t, x, {t.type(x).num_elements()}); }
int64_t len(Trace& t, ValueId x) { return t.type(x).shape().at(0); }

// Data-dependent gathers and bin counts see every element: a sharded operand is gathered
// first, so the results are replicated (as JAX's gathers over the whole array are).
ValueId replicated(Trace& t, ValueId x) {
  if (!t.type(x).is_sharded()) return x;
  return trace::reshard(t, x, sharding::OutSharding{types::PartitionSpec()});
}

// Floats keep their dtype; integers and bools compute in `dflt` (float32 for jnp, float64
// for numpy): promote_dtypes_inexact.
DType inexact(DType d, DType dflt) { return types::is_float(d) ? d : dflt; }
ValueId to(Trace& t, ValueId x, DType d) { return t.type(x).dtype() == d ? x : trace::convert(t, x, {d, false}); }

// x[i] of a 1-D table at integer positions `idx` (any shape, in range or -1 for the last
// entry): a one-hot select summed along the table.
ValueId gather(Trace& t, ValueId table, ValueId idx) {
  const int64_t n = len(t, table);
  Shape is = t.type(idx).shape(), full = is;
  full.push_back(n);
  const int64_t r = static_cast<int64_t>(is.size());
  const DType id = t.type(idx).dtype();
  ValueId neg = trace::binary(t, "lt", EwOp::Lt, idx, cst(t, 0, id));
  idx = trace::where(t, neg, trace::binary(t, "add", EwOp::Add, idx, cst(t, static_cast<double>(n), id)), idx);
  ValueId idx_wide = trace::broadcast_to(t, trace::expand_dims(t, idx, {r}), full);
  ValueId positions = trace::iota(t, id, full, r, std::nullopt);
  ValueId mask = trace::binary(t, "eq", EwOp::Eq, idx_wide, positions);
  ValueId tb = trace::broadcast_in_dim(t, table, full, {r});
  ValueId sel = trace::where(t, mask, tb, cst(t, 0, t.type(table).dtype()));
  return trace::reduce(t, "interp", ReduceKind::Sum, sel, {r}, false);
}

// Per value, how many of the sorted `xs` are <= it (searchsorted side='right'), int32.
ValueId count_le(Trace& t, ValueId xs, ValueId v) {
  const int64_t n = len(t, xs);
  Shape vs = t.type(v).shape(), full = vs;
  full.push_back(n);
  const int64_t r = static_cast<int64_t>(vs.size());
  ValueId xs_wide = trace::broadcast_in_dim(t, xs, full, {r});
  ValueId v_wide = trace::broadcast_to(t, trace::expand_dims(t, v, {r}), full);
  ValueId c = trace::binary(t, "le", EwOp::Le, xs_wide, v_wide);
  return trace::reduce(t, "searchsorted", ReduceKind::Sum, to(t, c, DType::I32), {r}, false);
}

// The smallest spacing interp treats as a zero-width interval: np.spacing(finfo(d).eps).
double tiny_interval(DType d) {
  switch (d) {
    case DType::F64: return std::ldexp(1.0, -104);
    case DType::F16: return std::ldexp(1.0, -20);
    case DType::BF16: return std::ldexp(1.0, -14);
    default: return std::ldexp(1.0, -46);
  }
}

struct InterpEnds {
  std::optional<ValueId> left, right;  // values outside [xp[0], xp[-1]] (default fp's ends)
  bool extrapolate_left = false, extrapolate_right = false;
  std::optional<ValueId> period;
};

// jnp.interp's formula (numpy's agrees to rounding): the interval of x by searchsorted,
// then fp[i-1] + (x - xp[i-1]) / dx * df, zero-width intervals taking fp[i-1].
ValueId interp_body(Trace& t, ValueId x, ValueId xp, ValueId fp, const InterpEnds& ends, DType fdflt) {
  if (t.type(xp).rank() != 1 || t.type(xp).shape() != t.type(fp).shape())
    fail("ValueError", "xp and fp must be one-dimensional arrays of equal size");
  if (len(t, xp) == 0) fail("ValueError", "array of sample points is empty");
  // the sample points are gathered whole; the result is elementwise in x and keeps its sharding
  xp = replicated(t, xp);
  fp = replicated(t, fp);
  const DType cd = inexact(trace::promote(dtw(t, x), dtw(t, xp)).dtype, fdflt);
  const DType fd = inexact(t.type(fp).dtype(), fdflt);
  x = to(t, x, cd);
  xp = to(t, xp, cd);
  fp = to(t, fp, fd);
  if (ends.period) {
    ValueId p = trace::unary(t, "abs", EwOp::Abs, to(t, *ends.period, cd));
    x = trace::binary(t, "remainder", EwOp::Mod, x, p);
    xp = trace::binary(t, "remainder", EwOp::Mod, xp, p);
    auto sorted = trace::sort_multi(t, {xp, fp}, 0, 1);
    xp = sorted[0];
    fp = sorted[1];
    const int64_t n = len(t, xp);
    ValueId xl = trace::slice(t, xp, {n - 1}, {n}, {}), xf = trace::slice(t, xp, {0}, {1}, {});
    xp = trace::concatenate(t, {trace::binary(t, "sub", EwOp::Sub, xl, p), xp, trace::binary(t, "add", EwOp::Add, xf, p)}, 0);
    fp = trace::concatenate(t, {trace::slice(t, fp, {n - 1}, {n}, {}), fp, trace::slice(t, fp, {0}, {1}, {})}, 0);
  }
  const int64_t n = len(t, xp);
  ValueId count = count_le(t, xp, x);
  ValueId first = cst(t, 1, DType::I32);
  ValueId last = cst(t, static_cast<double>(n - 1), DType::I32);
  ValueId i = trace::clip(t, count, first, last);
  ValueId im1 = trace::binary(t, "sub", EwOp::Sub, i, cst(t, 1, DType::I32));
  ValueId f0 = gather(t, fp, im1), x0 = gather(t, xp, im1);
  ValueId df = trace::binary(t, "sub", EwOp::Sub, gather(t, fp, i), f0);
  ValueId dx = trace::binary(t, "sub", EwOp::Sub, gather(t, xp, i), x0);
  ValueId delta = trace::binary(t, "sub", EwOp::Sub, x, x0);
  ValueId abs_dx = trace::unary(t, "abs", EwOp::Abs, dx);
  ValueId dx0 = trace::binary(t, "le", EwOp::Le, abs_dx, cst(t, tiny_interval(cd), cd));
  ValueId safe_dx = trace::where(t, dx0, cst(t, 1, cd), dx);
  ValueId step = trace::binary(t, "mul", EwOp::Mul, trace::binary(t, "div", EwOp::Div, delta, safe_dx), df);
  ValueId f = trace::where(t, dx0, f0, trace::binary(t, "add", EwOp::Add, f0, step));
  const DType rd = t.type(f).dtype();
  if (!ends.period) {
    if (!ends.extrapolate_left) {
      ValueId lv = ends.left ? to(t, replicated(t, *ends.left), rd) : to(t, trace::slice(t, fp, {0}, {1}, {}), rd);
      if (!ends.left) lv = trace::reshape(t, lv, {});
      ValueId below = trace::binary(t, "lt", EwOp::Lt, x, trace::reshape(t, trace::slice(t, xp, {0}, {1}, {}), {}));
      f = trace::where(t, below, lv, f);
    }
    if (!ends.extrapolate_right) {
      ValueId rv = ends.right ? to(t, replicated(t, *ends.right), rd) : to(t, trace::slice(t, fp, {n - 1}, {n}, {}), rd);
      if (!ends.right) rv = trace::reshape(t, rv, {});
      ValueId above = trace::binary(t, "gt", EwOp::Gt, x, trace::reshape(t, trace::slice(t, xp, {n - 1}, {n}, {}), {}));
      f = trace::where(t, above, rv, f);
    }
  }
  return f;
}

// bins+1 evenly spaced edges from lo to hi (0-d values). jnp's linspace is
// lo*(1-s) + hi*s with s = i/bins; numpy's is lo + i*step with the last edge hi exactly.
ValueId even_edges(Trace& t, ValueId lo, ValueId hi, int64_t bins, DType d, bool numpy_formula) {
  if (bins == 0) return trace::reshape(t, lo, {1});
  ValueId i = trace::iota(t, d, {bins}, 0, std::nullopt);
  ValueId body;
  if (numpy_formula) {
    ValueId span = trace::binary(t, "sub", EwOp::Sub, hi, lo);
    ValueId step = trace::binary(t, "div", EwOp::Div, span, cst(t, static_cast<double>(bins), d));
    body = trace::binary(t, "add", EwOp::Add, trace::binary(t, "mul", EwOp::Mul, i, step), lo);
  } else {
    ValueId s = trace::binary(t, "div", EwOp::Div, i, cst(t, static_cast<double>(bins), d));
    ValueId one_minus = trace::binary(t, "sub", EwOp::Sub, cst(t, 1, d), s);
    ValueId from_lo = trace::binary(t, "mul", EwOp::Mul, lo, one_minus);
    ValueId from_hi = trace::binary(t, "mul", EwOp::Mul, hi, s);
    body = trace::binary(t, "add", EwOp::Add, from_lo, from_hi);
  }
  return trace::concatenate(t, {body, trace::reshape(t, hi, {1})}, 0);
}

// jnp's histogram_bin_edges for an integer bins: the range (given as a (2,) array or the
// data's min and max) widened by 0.5 on each side when empty, then evenly split.
ValueId jnp_even_edges(Trace& t, ValueId a, std::optional<ValueId> range, int64_t bins) {
  const DType d = inexact(t.type(a).dtype(), DType::F32);
  ValueId lo, hi;
  if (range) {
    ValueId r = to(t, replicated(t, *range), d);
    lo = trace::reshape(t, trace::slice(t, r, {0}, {1}, {}), {});
    hi = trace::reshape(t, trace::slice(t, r, {1}, {2}, {}), {});
  } else {
    ValueId af = to(t, a, d);
    lo = trace::reduce(t, "histogram_bin_edges", ReduceKind::Min, af, {}, false);
    hi = trace::reduce(t, "histogram_bin_edges", ReduceKind::Max, af, {}, false);
  }
  ValueId span = trace::binary(t, "sub", EwOp::Sub, hi, lo);
  ValueId empty = trace::binary(t, "eq", EwOp::Eq, span, cst(t, 0, d));
  lo = trace::where(t, empty, trace::binary(t, "sub", EwOp::Sub, lo, cst(t, 0.5, d)), lo);
  hi = trace::where(t, empty, trace::binary(t, "add", EwOp::Add, hi, cst(t, 0.5, d)), hi);
  return even_edges(t, lo, hi, bins, d, false);
}

// Counts (or summed weights) of the values of `a` per bin [e_k, e_k+1), the last bin
// closed: a (values x bins) membership matrix summed over the values.
ValueId bin_counts(Trace& t, ValueId a, ValueId edges, std::optional<ValueId> weights, DType count_dtype, bool density) {
  a = flat(t, replicated(t, a));
  edges = replicated(t, edges);
  const int64_t n = len(t, a), bins = std::max<int64_t>(len(t, edges) - 1, 0);
  if (bins == 0) return trace::full(t, {0}, 0, {density ? inexact(count_dtype, DType::F64) : count_dtype, false}, std::nullopt);
  const DType cmp = trace::promote(dtw(t, a), dtw(t, edges)).dtype;
  a = to(t, a, cmp);
  edges = to(t, edges, cmp);
  Shape full = {n, bins};
  ValueId av = trace::broadcast_in_dim(t, a, full, {0});
  ValueId lo = trace::broadcast_in_dim(t, trace::slice(t, edges, {0}, {bins}, {}), full, {1});
  ValueId hi = trace::broadcast_in_dim(t, trace::slice(t, edges, {1}, {bins + 1}, {}), full, {1});
  ValueId bin_index = trace::iota(t, DType::I32, full, 1, std::nullopt);
  ValueId last_bin = trace::binary(t, "eq", EwOp::Eq, bin_index, cst(t, static_cast<double>(bins - 1), DType::I32));
  ValueId below_hi = trace::binary(t, "lt", EwOp::Lt, av, hi);
  ValueId at_last_edge = trace::binary(t, "and", EwOp::And, last_bin, trace::binary(t, "eq", EwOp::Eq, av, hi));
  ValueId upper_ok = trace::binary(t, "or", EwOp::Or, below_hi, at_last_edge);
  ValueId in_bin = trace::binary(t, "and", EwOp::And, trace::binary(t, "ge", EwOp::Ge, av, lo), upper_ok);
  ValueId w = weights ? to(t, flat(t, replicated(t, *weights)), count_dtype) : trace::full(t, {n}, 1, {count_dtype, false}, std::nullopt);
  ValueId wv = trace::broadcast_in_dim(t, w, full, {0});
  ValueId counts = trace::reduce(t, "histogram", ReduceKind::Sum, trace::where(t, in_bin, wv, cst(t, 0, count_dtype)), {0}, false);
  if (!density) return counts;
  const DType fd = inexact(count_dtype, DType::F64);
  ValueId c = to(t, counts, fd);
  ValueId e = to(t, edges, fd);
  ValueId right = trace::slice(t, e, {1}, {bins + 1}, {});
  ValueId left = trace::slice(t, e, {0}, {bins}, {});
  ValueId widths = trace::binary(t, "sub", EwOp::Sub, right, left);
  ValueId total = trace::reduce(t, "histogram", ReduceKind::Sum, c, {}, false);
  return trace::binary(t, "div", EwOp::Div, trace::binary(t, "div", EwOp::Div, c, widths), total);
}

// bins=: an int (or 0-d integer array), or a 1-D sequence of edges (returned as an operand).
struct BinsArg {
  int64_t count = 10;
  Value edges;  // null unless bins are edges
};

BinsArg bins_arg(Interp& I, const Value& v) {
  BinsArg b;
  if (is_none(v)) return b;
  if (interp::bi::str_of(v)) I.raise("NotImplementedError", "string values for `bins` not implemented.");
  if (auto k = interp::bi::int_of(v)) {
    b.count = *k;
    return b;
  }
  if (is_array_like(v) && type_of(v).rank() == 0) {
    if (auto* tr = as_tracer(v))
      raise_concretization_error(I, fmt::format("Abstract tracer value encountered where concrete value is expected: traced array with "
                                                "shape {}\nbins argument of histogram_bin_edges", tr->type().str_short()));
    b.count = int_arg(I, v, "bins");
    return b;
  }
  if (v->kind == interp::ObjKind::Float) I.raise("TypeError", "'float' object cannot be interpreted as an integer");
  b.edges = v;
  return b;
}

// The jnp result of histogram_bin_edges / histogram's edges (`range` may be traced).
Value jnp_edges(Interp& I, const Value& a, const BinsArg& bins, const Value& range) {
  if (bins.edges) {
    Value e = is_array_like(bins.edges) ? bins.edges : to_array(I, bins.edges, std::nullopt, false);
    if (type_of(e).rank() != 1) I.raise("TypeError", "only integer scalar arrays can be converted to a scalar index");
    const DType d = inexact(type_of(a).dtype(), DType::F32);
    return apply(I, "histogram_bin_edges", {e}, [&](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{to(t, ids[0], d)}; });
  }
  if (bins.count + 1 < 0) I.raise("ValueError", fmt::format("Number of samples, {}, must be non-negative.", bins.count + 1));
  std::vector<Value> ops{a};
  if (!is_none(range)) {
    Value r = is_array_like(range) ? range : to_array(I, range, std::nullopt, false);
    if (type_of(r).rank() != 1 || type_of(r).shape()[0] != 2) {
      Value shown = apply(I, "histogram_bin_edges", {r}, [&](Trace& t, const std::vector<ValueId>& ids) {
        return std::vector<ValueId>{to(t, ids[0], inexact(type_of(a).dtype(), DType::F32))};
      });
      I.raise("ValueError", fmt::format("`range` must be either None or a sequence of scalars, got {}", I.str(shown)));
    }
    ops.push_back(r);
  } else if (type_of(a).num_elements() == 0) {
    I.raise("ValueError", "zero-size array to reduction operation min which has no identity");
  }
  if (bins.count == -1) return apply(I, "histogram_bin_edges", {a}, [&](Trace& t, const std::vector<ValueId>&) {
    return std::vector<ValueId>{trace::full(t, {0}, 0, {inexact(type_of(a).dtype(), DType::F32), false}, std::nullopt)};
  });
  return apply(I, "histogram_bin_edges", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
    std::optional<ValueId> r;
    if (ids.size() > 1) r = ids[1];
    return std::vector<ValueId>{jnp_even_edges(t, ids[0], r, bins.count)};
  });
}

// An argument as an operand: arrays and Python scalars as they are, other data as arrays.
Value array_operand(Interp& I, const Value& v) {
  if (is_array_like(v) || python_scalar_type(v, false)) return v;
  return to_array(I, v, std::nullopt, false);
}
Value array_value(Interp& I, const Value& v) { return is_array_like(v) ? v : to_array(I, v, std::nullopt, false); }

// left= / right=: None (fp's end), 'extrapolate', or a value.
void interp_end(Interp& I, const Value& v, const char* which, bool& extrapolate, bool& given, std::vector<Value>& ops) {
  if (is_none(v)) return;
  if (auto* s = interp::bi::str_of(v)) {
    if (s->v != "extrapolate")
      I.raise("ValueError", fmt::format("the only valid string value of `{}` is 'extrapolate', but got: {}", which, I.repr(v)));
    extrapolate = true;
    return;
  }
  given = true;
  ops.push_back(array_operand(I, v));
}

}  // namespace

void add_jnp_histogram(Interp&, ModuleObj& m) {
  def_jnp(m, "histogram_bin_edges", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "histogram_bin_edges", {"a", "bins=", "range=", "weights="});
    check_arraylike(I, "histogram_bin_edges", {p.get("a"), p.has("bins") ? p.get("bins") : interp::make_int(10)});
    auto bins = bins_arg(I, p.get("bins"));
    return jnp_edges(I, array_value(I, p.get("a")), bins, p.get("range"));
  });
  def_jnp(m, "histogram", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "histogram", {"a", "bins=", "range=", "weights=", "density="});
    std::vector<Value> checked{p.get("a"), p.has("bins") ? p.get("bins") : interp::make_int(10)};
    if (!is_none(p.get("weights"))) checked.push_back(p.get("weights"));
    check_arraylike(I, "histogram", checked);
    auto bins = bins_arg(I, p.get("bins"));
    Value x = array_value(I, p.get("a"));
    const bool has_w = !is_none(p.get("weights"));
    Value w = has_w ? array_value(I, p.get("weights")) : Value();
    if (has_w && type_of(w).shape() != type_of(x).shape()) I.raise("ValueError", "weights should have the same shape as a.");
    if (bins.count == -1 && !bins.edges) I.raise("IndexError", "index -1 is out of bounds for axis 0 with size 0");
    Value edges = jnp_edges(I, x, bins, p.get("range"));
    const bool density = !is_none(p.get("density")) && I.truthy(p.get("density"));
    std::vector<Value> ops{x, edges};
    if (has_w) ops.push_back(w);
    Value counts = apply(I, "histogram", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
      DType cd = inexact(t.type(ids[0]).dtype(), DType::F32);
      std::optional<ValueId> wv;
      if (has_w) {
        cd = inexact(trace::promote(dtw(t, ids[0]), dtw(t, ids[2])).dtype, DType::F32);
        wv = ids[2];
      }
      return std::vector<ValueId>{bin_counts(t, ids[0], ids[1], wv, cd, density)};
    });
    return interp::make_tuple({counts, edges});
  });
  def_jnp(m, "interp", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "interp", {"x", "xp", "fp", "left=", "right=", "period="});
    check_arraylike(I, "interp", {p.get("x"), p.get("xp"), p.get("fp")});
    std::vector<Value> ops{array_operand(I, p.get("x")), array_operand(I, p.get("xp")), array_operand(I, p.get("fp"))};
    InterpEnds ends;
    bool has_left = false, has_right = false;
    interp_end(I, p.get("left"), "left", ends.extrapolate_left, has_left, ops);
    interp_end(I, p.get("right"), "right", ends.extrapolate_right, has_right, ops);
    const bool has_period = !is_none(p.get("period"));
    if (has_period) {
      Value per = array_operand(I, p.get("period"));
      if (is_array_like(per) && type_of(per).rank() != 0) I.raise("ValueError", fmt::format("period must be a scalar; got {}", I.str(p.get("period"))));
      ops.push_back(per);
    }
    return apply(I, "interp", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
      InterpEnds e = ends;
      size_t k = 3;
      if (has_left) e.left = ids[k++];
      if (has_right) e.right = ids[k++];
      if (has_period) e.period = ids[k++];
      return std::vector<ValueId>{interp_body(t, ids[0], ids[1], ids[2], e, DType::F32)};
    });
  });
}

namespace np {

namespace {

// The 0-d host values of an array as doubles (numpy's range checks run on the host).
std::vector<double> host_doubles(const exec::ArrayRef& h) {
  std::vector<double> out;
  for (auto& e : array_elements(*h)) out.push_back(interp::bi::real_of(e).value_or(std::nan("")));
  return out;
}

// numpy's edge dtype: the data's float dtype, float64 for integer data.
DType np_edge_dtype(DType a) { return types::is_float(a) ? a : DType::F64; }

// numpy's bins= as a count (None: 10; ints and 0-d integer arrays), nullopt for edges.
std::optional<int64_t> np_bin_count(Interp& I, const Value& v) {
  if (is_none(v)) return 10;
  if (auto k = interp::bi::int_of(v)) return *k;
  if (v->kind == interp::ObjKind::Float || (is_array_like(v) && type_of(v).rank() == 0)) {  // operator.index(bins)
    auto e = host_array(I, v);
    if (!types::is_int(e->type.dtype())) I.raise("TypeError", "`bins` must be an integer, a string, or an array");
    return interp::bi::int_of(array_elements(*e).at(0)).value_or(0);
  }
  return std::nullopt;
}

// numpy's histogram_bin_edges: edges as given (1-D, increasing) or `bins` even bins over
// the range (given, or the data's min and max; empty data: [0, 1]).
exec::ArrayRef np_edges(Interp& I, const exec::ArrayRef& a, const Value& bins_v, const Value& range_v) {
  if (!is_none(bins_v) && interp::bi::str_of(bins_v))
    I.raise("NotImplementedError", "numpy.histogram: string values for `bins` are not supported yet");
  const auto count = np_bin_count(I, bins_v);
  if (!count) {
    auto e = host_array(I, bins_v);
    if (e->type.rank() != 1) I.raise("ValueError", "`bins` must be 1d, when an array");
    auto v = host_doubles(e);
    for (size_t i = 1; i < v.size(); ++i)
      if (v[i - 1] > v[i]) I.raise("ValueError", "`bins` must increase monotonically, when an array");
    return e;
  }
  const int64_t bins = *count;
  if (bins < 1) I.raise("ValueError", "`bins` must be positive, when an integer");
  double lo, hi;
  if (!is_none(range_v)) {
    auto r = I.to_vector(range_v);
    if (r.size() != 2) I.raise("ValueError", fmt::format("too many values to unpack (expected 2)"));
    lo = number_arg(I, r[0], "range");
    hi = number_arg(I, r[1], "range");
    if (lo > hi) I.raise("ValueError", "max must be larger than min in range parameter.");
    if (!std::isfinite(lo) || !std::isfinite(hi))
      I.raise("ValueError", fmt::format("supplied range of [{}, {}] is not finite", I.str(r[0]), I.str(r[1])));
  } else if (a->type.num_elements() == 0) {
    lo = 0;
    hi = 1;
  } else {
    auto v = host_doubles(a);
    lo = std::numeric_limits<double>::infinity();
    hi = -lo;
    bool nan = false;
    for (double x : v) {
      nan |= std::isnan(x);
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    if (nan || !std::isfinite(lo) || !std::isfinite(hi)) {
      auto show = [&](double x) { return nan ? std::string("nan") : I.repr(interp::make_float(x)); };
      I.raise("ValueError", fmt::format("autodetected range of [{}, {}] is not finite", show(lo), show(hi)));
    }
  }
  if (lo == hi) {
    lo -= 0.5;
    hi += 0.5;
  }
  const DType ed = np_edge_dtype(a->type.dtype());
  auto e = run1(I, "histogram_bin_edges", {}, [&](trace::Trace& t, const std::vector<ValueId>&) {
    ValueId lo_c = cst(t, lo, DType::F64);
    ValueId hi_c = cst(t, hi, DType::F64);
    ValueId e64 = even_edges(t, lo_c, hi_c, bins, DType::F64, true);
    return std::vector<ValueId>{cast(t, e64, ed)};
  });
  return e;
}

}  // namespace

void add_histogram_functions(Interp&, ModuleObj& m) {
  add(m, "histogram_bin_edges", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "histogram_bin_edges", {"a", "bins=", "range=", "weights="});
    return result(np_edges(I, host_array(I, p.get("a")), p.get("bins"), p.get("range")));
  });
  add(m, "histogram", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "histogram", {"a", "bins=", "range=", "density=", "weights="});
    auto x = host_array(I, p.get("a"));
    std::optional<exec::ArrayRef> w;
    if (!is_none(p.get("weights"))) {
      w = host_array(I, p.get("weights"));
      if ((*w)->type.shape() != x->type.shape()) I.raise("ValueError", "weights should have the same shape as a.");
    }
    auto edges = np_edges(I, x, p.get("bins"), p.get("range"));
    const bool density = bool_arg(I, p.get("density"), false);
    const DType cd = w ? (*w)->type.dtype() : DType::I64;
    std::vector<exec::ArrayRef> ins{x, edges};
    if (w) ins.push_back(*w);
    auto counts = run1(I, "histogram", ins, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      std::optional<ValueId> wv;
      if (ids.size() > 2) wv = ids[2];
      ValueId c = bin_counts(t, ids[0], ids[1], wv, cd, density);
      return std::vector<ValueId>{density ? cast(t, c, DType::F64) : c};
    });
    return interp::make_tuple({result(counts), result(edges)});
  });
  add(m, "interp", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "interp", {"x", "xp", "fp", "left=", "right=", "period="});
    std::vector<exec::ArrayRef> ins{host_array(I, p.get("x"), DType::F64), host_array(I, p.get("xp"), DType::F64),
                                    host_array(I, p.get("fp"), DType::F64)};
    if (ins[1]->type.rank() != 1 || ins[2]->type.rank() != 1) I.raise("ValueError", "object too deep for desired array");
    if (ins[1]->type.shape() != ins[2]->type.shape()) I.raise("ValueError", "fp and xp are not of the same length.");
    if (ins[1]->type.num_elements() == 0) I.raise("ValueError", "array of sample points is empty");
    InterpEnds ends;
    bool has_left = !is_none(p.get("left")), has_right = !is_none(p.get("right"));
    const bool has_period = !is_none(p.get("period"));
    if (has_period) {
      const double per = number_arg(I, p.get("period"), "period");
      if (per == 0) I.raise("ValueError", "period must be a non-zero value");
      ins.push_back(host_array(I, p.get("period"), DType::F64));
    } else {
      if (has_left) ins.push_back(host_array(I, interp::make_float(number_arg(I, p.get("left"), "left")), DType::F64));
      if (has_right) ins.push_back(host_array(I, interp::make_float(number_arg(I, p.get("right"), "right")), DType::F64));
    }
    Value r = result(run1(I, "interp", ins, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      InterpEnds e = ends;
      size_t k = 3;
      if (has_period) e.period = ids[k++];
      else {
        if (has_left) e.left = ids[k++];
        if (has_right) e.right = ids[k++];
      }
      return std::vector<ValueId>{interp_body(t, ids[0], ids[1], ids[2], e, DType::F64)};
    }));
    return r;
  });
}

}  // namespace np

}  // namespace shard::api
