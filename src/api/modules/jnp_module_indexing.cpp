// Indexing and array-building functions of jax.numpy and of the host numpy module: take
// take_along_axis roll diff meshgrid diag trace kron count_nonzero nonzero argwhere, plus
// (numpy only) outer triu tril flip repeat pad tensordot inner vdot. Each is one traced
// body over trace:: ops shared by both modules (gathers are one-hot selects summed, so
// jit, grad and vmap apply); jnp runs it through apply(), numpy through run1 on host arrays.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "api/modules/jnp_module.hpp"
#include "api/modules/numpy_internal.hpp"
#include "interp/builtins/support.hpp"
#include "trace/promotion.hpp"

namespace shard::api {

using ir::EwOp;
using ir::ReduceKind;
using interp::ArgParser;
using interp::ObjKind;

namespace {

[[noreturn]] void fail(const std::string& kind, const std::string& msg) { throw types::ShardingError(kind, msg); }

ValueId flat(Trace& t, ValueId x) { return trace::reshape(t, x, {t.type(x).num_elements()}); }
ValueId zero_of(Trace& t, ValueId x) { return trace::scalar_constant(t, 0, {t.type(x).dtype(), true}); }
int64_t rank_of(Trace& t, ValueId x) { return static_cast<int64_t>(t.type(x).rank()); }

// Sum of the selected entries: exact (one nonzero term), NaN-safe for the unselected ones.
ValueId select_sum(Trace& t, ValueId mask, ValueId x, int64_t axis) {
  ValueId sel = trace::where(t, mask, x, zero_of(t, x));
  const bool b = t.type(x).dtype() == DType::Bool;
  return trace::reduce(t, "take", b ? ReduceKind::Or : ReduceKind::Sum, sel, {axis}, false);
}

// How out-of-range indices are handled: jnp's default "fill" (fill_value where out of
// range), numpy's checked indices (kInBounds: the caller raised for bad ones), "wrap", "clip".
enum class IndexMode { Fill, InBounds, Wrap, Clip };

struct TakeMode {
  IndexMode mode = IndexMode::Fill;
  std::optional<double> fill;  // default: NaN, the lowest signed / highest unsigned value, True
};

double default_fill(DType d) {
  if (types::is_float(d)) return std::numeric_limits<double>::quiet_NaN();
  switch (d) {
    case DType::Bool: return 1;
    case DType::I32: return static_cast<double>(std::numeric_limits<int32_t>::min());
    case DType::I64: return static_cast<double>(std::numeric_limits<int64_t>::min());
    case DType::U8: return 255;
    case DType::U16: return 65535;
    case DType::U32: return 4294967295.0;
    default: return 0;
  }
}

// x (B..., n), idx (B..., k) -> (B..., k): x[..., idx]; negative indices count from the end.
ValueId take_last(Trace& t, ValueId x, ValueId idx, const TakeMode& tm = {}) {
  auto xs = t.type(x).shape();
  auto is = t.type(idx).shape();
  const int64_t n = xs.back();
  if (types::is_float(t.type(idx).dtype()) || t.type(idx).dtype() == DType::Bool)
    fail("TypeError", "indices must be integers");
  const DType id = t.type(idx).dtype();
  ValueId nn = trace::scalar_constant(t, static_cast<double>(n), {id, true});
  ValueId zero = zero_of(t, idx);
  if (tm.mode == IndexMode::Clip) {
    idx = trace::clip(t, idx, zero, trace::scalar_constant(t, static_cast<double>(std::max<int64_t>(n - 1, 0)), {id, true}));
  } else {
    if (tm.mode == IndexMode::Wrap && n > 0) idx = trace::binary(t, "rem", EwOp::Rem, idx, nn);
    ValueId neg = trace::binary(t, "lt", EwOp::Lt, idx, zero);
    idx = trace::where(t, neg, trace::binary(t, "add", EwOp::Add, idx, nn), idx);
  }
  Shape full = is;
  full.push_back(n);
  const int64_t r = static_cast<int64_t>(is.size());
  ValueId ie = trace::broadcast_to(t, trace::expand_dims(t, idx, {r}), full);
  ValueId io = trace::iota(t, id, full, r, std::nullopt);
  ValueId mask = trace::binary(t, "eq", EwOp::Eq, ie, io);
  ValueId xe = trace::broadcast_to(t, trace::expand_dims(t, x, {r - 1}), full);
  if (n == 0) {  // nothing to take from: every index is out of range
    const DType d = t.type(x).dtype();
    return trace::full(t, is, tm.fill.value_or(default_fill(d)), {d, false}, std::nullopt);
  }
  ValueId g = select_sum(t, mask, xe, r);
  if (tm.mode != IndexMode::Fill) return g;
  ValueId valid = trace::reduce(t, "take", ReduceKind::Or, mask, {r}, false);
  const DType d = t.type(g).dtype();
  ValueId fv = trace::scalar_constant(t, tm.fill.value_or(default_fill(d)), {d, true});
  return trace::where(t, valid, g, fv);
}

ValueId take_body(Trace& t, ValueId a, ValueId idx, std::optional<int64_t> axis, const TakeMode& tm = {}) {
  if (!axis) {
    a = flat(t, a);
    axis = 0;
  }
  const int64_t r = rank_of(t, a);
  const int64_t ax = trace::normalize_axis("take", *axis, r);
  Shape ishape = t.type(idx).shape();
  ValueId x = trace::move_dim(t, a, ax, r - 1);  // (pre, post, n)
  Shape batch = t.type(x).shape();
  batch.pop_back();
  const int64_t m = t.type(idx).num_elements();
  Shape b = batch;
  b.push_back(m);
  ValueId i = trace::broadcast_to(t, flat(t, idx), b);
  ValueId g = take_last(t, x, i, tm);  // (pre, post, m)
  Shape s = batch;
  s.insert(s.end(), ishape.begin(), ishape.end());
  g = trace::reshape(t, g, s);
  const int64_t q = static_cast<int64_t>(ishape.size());
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < ax; ++d) perm.push_back(d);
  for (int64_t d = 0; d < q; ++d) perm.push_back(r - 1 + d);
  for (int64_t d = ax; d < r - 1; ++d) perm.push_back(d);
  return trace::transpose(t, g, perm);
}

ValueId take_along_body(Trace& t, ValueId a, ValueId idx, std::optional<int64_t> axis, const TakeMode& tm = {}) {
  if (!axis) {
    if (rank_of(t, idx) != 1) fail("ValueError", "when axis=None, `indices` must have a single dimension.");
    a = flat(t, a);
    axis = 0;
  }
  const int64_t r = rank_of(t, a);
  if (rank_of(t, idx) != r) fail("ValueError", "`indices` and `arr` must have the same number of dimensions");
  const int64_t ax = trace::normalize_axis("take_along_axis", *axis, r);
  ValueId x = trace::move_dim(t, a, ax, r - 1), i = trace::move_dim(t, idx, ax, r - 1);
  Shape xb = t.type(x).shape(), ib = t.type(i).shape();
  const int64_t n = xb.back(), k = ib.back();
  xb.pop_back();
  ib.pop_back();
  Shape batch = trace::broadcast_shapes("take_along_axis", {xb, ib});
  Shape bx = batch, bi = batch;
  bx.push_back(n);
  bi.push_back(k);
  ValueId x_wide = trace::broadcast_to(t, x, bx);
  ValueId i_wide = trace::broadcast_to(t, i, bi);
  ValueId g = take_last(t, x_wide, i_wide, tm);
  return trace::move_dim(t, g, r - 1, ax);
}

}  // namespace

ValueId roll_axis(Trace& t, ValueId x, int64_t shift, int64_t axis) {
  const int64_t r = rank_of(t, x);
  const int64_t ax = trace::normalize_axis("roll", axis, r);
  Shape shape = t.type(x).shape();
  const int64_t n = shape[ax];
  if (n == 0) return x;
  const int64_t s = ((shift % n) + n) % n;
  if (s == 0) return x;
  Shape start(r, 0), lim = shape;
  start[ax] = n - s;
  ValueId tail = trace::slice(t, x, start, lim, {});
  start[ax] = 0;
  lim[ax] = n - s;
  ValueId head = trace::slice(t, x, start, lim, {});
  return trace::concatenate(t, {tail, head}, ax);
}

namespace {

ValueId roll_body(Trace& t, ValueId x, const std::vector<int64_t>& shifts, const std::optional<std::vector<int64_t>>& axes) {
  if (!axes) {
    Shape s = t.type(x).shape();
    if (shifts.size() != 1) fail("ValueError", "'shift' and 'axis' should be scalars or 1D sequences");
    return trace::reshape(t, roll_axis(t, flat(t, x), shifts[0], 0), s);
  }
  size_t k = std::max(shifts.size(), axes->size());
  if ((shifts.size() != k && shifts.size() != 1) || (axes->size() != k && axes->size() != 1))
    fail("ValueError", "shape mismatch: objects cannot be broadcast to a single shape");
  for (size_t i = 0; i < k; ++i)
    x = roll_axis(t, x, shifts[shifts.size() == 1 ? 0 : i], (*axes)[axes->size() == 1 ? 0 : i]);
  return x;
}

// prepend / append of diff: scalars broadcast to x's shape with length 1 along the axis.
ValueId diff_extend(Trace& t, ValueId x, ValueId e, int64_t ax) {
  Shape s = t.type(x).shape();
  if (t.type(e).rank() == 0) {
    s[ax] = 1;
    e = trace::broadcast_to(t, e, s);
  }
  return e;
}

ValueId diff_body(Trace& t, ValueId x, int64_t n, int64_t axis, std::optional<ValueId> prepend = std::nullopt,
                  std::optional<ValueId> append = std::nullopt) {
  const int64_t r = rank_of(t, x);
  if (r == 0) fail("ValueError", "diff requires input that is at least one dimensional");
  const int64_t ax = trace::normalize_axis("diff", axis, r);
  if (prepend || append) {
    std::vector<ValueId> parts;
    if (prepend) parts.push_back(diff_extend(t, x, *prepend, ax));
    parts.push_back(x);
    if (append) parts.push_back(diff_extend(t, x, *append, ax));
    // one dtype for the concatenation: the promoted one
    DTypeW d = dtw(t, x);
    for (auto p : parts) d = trace::promote(d, dtw(t, p));
    for (auto& p : parts) p = trace::convert(t, p, {d.dtype, false});
    x = trace::concatenate(t, parts, ax);
  }
  for (int64_t k = 0; k < n; ++k) {
    Shape shape = t.type(x).shape();
    if (shape[ax] == 0) break;
    Shape s1(r, 0), l1 = shape, s0(r, 0), l0 = shape;
    s1[ax] = 1;
    l0[ax] = shape[ax] - 1;
    ValueId hi = trace::slice(t, x, s1, l1, {}), lo = trace::slice(t, x, s0, l0, {});
    x = t.type(x).dtype() == DType::Bool ? trace::binary(t, "ne", EwOp::Ne, hi, lo) : trace::binary(t, "sub", EwOp::Sub, hi, lo);
  }
  return x;
}

std::vector<ValueId> meshgrid_body(Trace& t, const std::vector<ValueId>& xs, bool xy, bool sparse) {
  const size_t n = xs.size();
  Shape full;
  for (auto x : xs) full.push_back(t.type(x).num_elements());
  if (xy && n >= 2) std::swap(full[0], full[1]);
  std::vector<ValueId> out;
  for (size_t i = 0; i < n; ++i) {
    Shape s(n, 1);
    size_t pos = (xy && n >= 2 && i < 2) ? 1 - i : i;
    s[pos] = full[pos];
    ValueId v = trace::reshape(t, flat(t, xs[i]), s);
    out.push_back(sparse ? v : trace::broadcast_to(t, v, full));
  }
  return out;
}

// Mask (rows, cols) of the k-th diagonal.
ValueId diag_mask(Trace& t, int64_t rows, int64_t cols, int64_t k) {
  Shape s = {rows, cols};
  ValueId ri = trace::iota(t, DType::I32, s, 0, std::nullopt), ci = trace::iota(t, DType::I32, s, 1, std::nullopt);
  ValueId d = trace::binary(t, "sub", EwOp::Sub, ci, ri);
  return trace::binary(t, "eq", EwOp::Eq, d, trace::scalar_constant(t, static_cast<double>(k), {DType::I32, true}));
}

ValueId diag_body(Trace& t, ValueId v, int64_t k, const char* err) {
  const int64_t r = rank_of(t, v);
  if (r == 1) {
    const int64_t n = t.type(v).shape()[0], N = n + std::abs(k);
    ValueId p = trace::pad(t, v, zero_of(t, v), {0}, {std::abs(k)});
    Shape s = {N, N};
    ValueId b = k >= 0 ? trace::broadcast_in_dim(t, p, s, {0}) : trace::broadcast_in_dim(t, p, s, {1});
    ValueId on_diagonal = diag_mask(t, N, N, k);
    return trace::where(t, on_diagonal, b, zero_of(t, v));
  }
  if (r != 2) fail("ValueError", err);
  const int64_t n = t.type(v).shape()[0], m = t.type(v).shape()[1];
  ValueId sel = select_sum(t, diag_mask(t, n, m, k), v, k >= 0 ? 0 : 1);
  const int64_t len = std::max<int64_t>(0, k >= 0 ? std::min(n, m - k) : std::min(n + k, m));
  const int64_t start = len == 0 ? 0 : std::abs(k);
  return trace::slice(t, sel, {start}, {start + len}, {});
}

// x with axes axis1 and axis2 moved to the end, in that order (trace and diagonal work there).
ValueId axes_to_end(Trace& t, ValueId x, const char* name, int64_t axis1, int64_t axis2) {
  const int64_t r = rank_of(t, x);
  if (r < 2) fail("ValueError", "diag requires an array of at least two dimensions");
  int64_t a1 = trace::normalize_axis(name, axis1, r), a2 = trace::normalize_axis(name, axis2, r);
  if (a1 == a2) fail("ValueError", "axis1 and axis2 cannot be the same");
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < r; ++d)
    if (d != a1 && d != a2) perm.push_back(d);
  perm.push_back(a1);
  perm.push_back(a2);
  return trace::transpose(t, x, perm);
}

ValueId trace_body(Trace& t, ValueId x, int64_t offset, int64_t axis1, int64_t axis2, std::optional<DType> acc) {
  const int64_t r = rank_of(t, x);
  x = axes_to_end(t, x, "trace", axis1, axis2);
  if (acc) x = trace::convert(t, x, {*acc, false});
  Shape s = t.type(x).shape();
  ValueId mask = trace::broadcast_in_dim(t, diag_mask(t, s[r - 2], s[r - 1], offset), s, {r - 2, r - 1});
  ValueId sel = trace::where(t, mask, x, zero_of(t, x));
  if (t.type(x).dtype() == DType::Bool) sel = trace::convert(t, sel, {DType::I32, false});
  return trace::reduce(t, "trace", ReduceKind::Sum, sel, {r - 2, r - 1}, false);
}

// diagonal(a, offset, axis1, axis2): the two axes removed, the diagonal appended last.
ValueId diagonal_body(Trace& t, ValueId x, int64_t offset, int64_t axis1, int64_t axis2) {
  const int64_t r = rank_of(t, x);
  x = axes_to_end(t, x, "diagonal", axis1, axis2);
  Shape s = t.type(x).shape();
  const int64_t n = s[r - 2], m = s[r - 1];
  ValueId mask = trace::broadcast_in_dim(t, diag_mask(t, n, m, offset), s, {r - 2, r - 1});
  ValueId sel = select_sum(t, mask, x, offset >= 0 ? r - 2 : r - 1);  // (..., m) or (..., n)
  const int64_t len = std::max<int64_t>(0, offset >= 0 ? std::min(n, m - offset) : std::min(n + offset, m));
  const int64_t start = len == 0 ? 0 : std::abs(offset);
  Shape st(r - 1, 0), lim = t.type(sel).shape();
  st[r - 2] = start;
  lim[r - 2] = start + len;
  return trace::slice(t, sel, st, lim, {});
}

// searchsorted(a, v, side): per value, the number of a's entries below it (left) or not
// above it (right): a comparison matrix summed, so jit and vmap apply.
ValueId searchsorted_body(Trace& t, ValueId a, ValueId v, bool right, DType idx) {
  if (t.type(a).rank() != 1) fail("ValueError", "a should be 1-dimensional");
  const int64_t n = t.type(a).shape()[0];
  Shape vs = t.type(v).shape(), full = vs;
  full.push_back(n);
  const int64_t r = static_cast<int64_t>(vs.size());
  ValueId ab = trace::broadcast_in_dim(t, a, full, {r});
  ValueId vb = trace::broadcast_to(t, trace::expand_dims(t, v, {r}), full);
  ValueId c = trace::binary(t, right ? "le" : "lt", right ? EwOp::Le : EwOp::Lt, ab, vb);
  return trace::reduce(t, "searchsorted", ReduceKind::Sum, trace::convert(t, c, {idx, false}), {r}, false);
}

// bincount: counts (or summed weights) of each value 0..length-1 over a one-hot matrix;
// values past the end are dropped, negative ones count as 0 (jnp clips).
ValueId bincount_body(Trace& t, ValueId x, std::optional<ValueId> w, int64_t length, DType count_dtype) {
  if (t.type(x).rank() != 1) fail("ValueError", "bincount: x must be 1-dimensional");
  if (types::is_float(t.type(x).dtype())) fail("TypeError", "bincount: x argument must have an integer type");
  const int64_t n = t.type(x).shape()[0];
  if (n == 0) return trace::full(t, {length}, 0, {w ? t.type(*w).dtype() : count_dtype, false}, std::nullopt);
  x = trace::binary(t, "max", EwOp::Max, x, zero_of(t, x));
  Shape full = {n, length};
  ValueId x_col = trace::broadcast_to(t, trace::reshape(t, x, {n, 1}), full);
  ValueId positions = trace::iota(t, t.type(x).dtype(), full, 1, std::nullopt);
  ValueId mask = trace::binary(t, "eq", EwOp::Eq, x_col, positions);
  ValueId vals;
  if (w) {
    if (t.type(*w).shape() != t.type(x).shape()) fail("ValueError", "The weights and list don't have the same length.");
    vals = trace::broadcast_to(t, trace::reshape(t, *w, {n, 1}), full);
  } else {
    vals = trace::broadcast_to(t, trace::scalar_constant(t, 1, {count_dtype, false}), full);
  }
  ValueId sel = trace::where(t, mask, vals, zero_of(t, vals));
  return trace::reduce(t, "bincount", ReduceKind::Sum, sel, {0}, false);
}

ValueId kron_body(Trace& t, ValueId a, ValueId b) {
  const int64_t r = std::max(rank_of(t, a), rank_of(t, b));
  Shape as = t.type(a).shape(), bs = t.type(b).shape();
  as.insert(as.begin(), r - as.size(), 1);
  bs.insert(bs.begin(), r - bs.size(), 1);
  Shape ai, bi, out;
  for (int64_t d = 0; d < r; ++d) {
    ai.insert(ai.end(), {as[d], 1});
    bi.insert(bi.end(), {1, bs[d]});
    out.push_back(as[d] * bs[d]);
  }
  ValueId aw = trace::reshape(t, a, ai);
  ValueId bw = trace::reshape(t, b, bi);
  ValueId p = trace::binary(t, "mul", EwOp::Mul, aw, bw);
  return trace::reshape(t, p, out);
}

// The shape a reduction over `axes` (None: all) leaves.
Shape reduced_shape(const Shape& s, const std::optional<std::vector<int64_t>>& axes, bool keepdims) {
  std::vector<bool> red(s.size(), !axes);
  if (axes)
    for (auto a : *axes) red[trace::normalize_axis("reduce", a, s.size())] = true;
  Shape out;
  for (size_t d = 0; d < s.size(); ++d)
    if (!red[d]) out.push_back(s[d]);
    else if (keepdims) out.push_back(1);
  return out;
}

ValueId count_nonzero_body(Trace& t, ValueId x, const std::optional<std::vector<int64_t>>& axes, bool keepdims, DType out) {
  // Empty input: zeros built directly (an empty integer reduction is not relied on).
  if (t.type(x).num_elements() == 0) return trace::full(t, reduced_shape(t.type(x).shape(), axes, keepdims), 0, {out, false}, std::nullopt);
  ValueId nz = trace::binary(t, "ne", EwOp::Ne, x, zero_of(t, x));
  return trace::reduce(t, "count_nonzero", ReduceKind::Sum, trace::convert(t, nz, {out, false}), axes.value_or(std::vector<int64_t>{}),
                       keepdims);
}

// The flat positions of the nonzero entries, first `size` of them (fill where fewer): sort
// key = position where nonzero, else N (past every position).
ValueId nonzero_flat(Trace& t, ValueId x, int64_t size, DType idx) {
  ValueId f = flat(t, x);
  const int64_t n = t.type(f).num_elements();
  ValueId nz = trace::binary(t, "ne", EwOp::Ne, f, zero_of(t, f));
  ValueId io = trace::iota(t, idx, {n}, 0, std::nullopt);
  ValueId big = trace::scalar_constant(t, static_cast<double>(n), {idx, true});
  ValueId key = trace::sort(t, trace::where(t, nz, io, big), 0);
  if (size <= n) return trace::slice(t, key, {0}, {size}, {});
  return trace::pad(t, key, big, {0}, {size - n});
}

// Coordinates (ndim, size) of the nonzero entries; fill value where there are fewer.
std::vector<ValueId> nonzero_body(Trace& t, ValueId x, int64_t size, double fill, DType idx) {
  Shape shape = t.type(x).shape();
  if (shape.empty()) fail("ValueError", "Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d(scalar).nonzero() instead.");
  const int64_t n = t.type(x).num_elements();
  ValueId key = nonzero_flat(t, x, size, idx);
  ValueId valid = trace::binary(t, "lt", EwOp::Lt, key, trace::scalar_constant(t, static_cast<double>(n), {idx, true}));
  ValueId fv = trace::scalar_constant(t, fill, {idx, true});
  std::vector<ValueId> out;
  int64_t stride = n;
  for (auto d : shape) {
    stride = d ? stride / d : 0;
    ValueId c = key;
    if (stride > 1) c = trace::binary(t, "floor_divide", EwOp::FloorDiv, c, trace::scalar_constant(t, static_cast<double>(stride), {idx, true}));
    if (d > 0) c = trace::binary(t, "rem", EwOp::Rem, c, trace::scalar_constant(t, static_cast<double>(d), {idx, true}));
    out.push_back(trace::where(t, valid, c, fv));
  }
  return out;
}

// repeat with per-element counts r (K,): output position j takes element #{k : cumsum(r)[k] <= j}.
ValueId repeat_counts_body(Trace& t, ValueId x, ValueId r, std::optional<int64_t> axis, int64_t total) {
  if (!axis) {
    x = flat(t, x);
    axis = 0;
  }
  const int64_t ax = trace::normalize_axis("repeat", *axis, rank_of(t, x));
  const int64_t k = t.type(x).shape()[ax];
  if (t.type(r).num_elements() == 1) r = trace::broadcast_to(t, trace::reshape(t, r, {}), {k});
  if (t.type(r).rank() != 1 || t.type(r).shape()[0] != k)
    fail("ValueError", fmt::format("operands could not be broadcast together with shape ({},) ({},)", k, t.type(r).num_elements()));
  const DType id = t.type(r).dtype();
  ValueId cs = trace::cumulative(t, "cumsum", ReduceKind::Sum, r, 0);
  Shape lk = {total, k};
  ValueId j = trace::iota(t, id, lk, 0, std::nullopt);
  ValueId le = trace::binary(t, "le", EwOp::Le, trace::broadcast_to(t, trace::reshape(t, cs, {1, k}), lk), j);
  ValueId idx = trace::reduce(t, "repeat", ReduceKind::Sum, trace::convert(t, le, {id, false}), {1}, false);
  return take_body(t, x, idx, ax, TakeMode{IndexMode::InBounds, std::nullopt});
}

std::optional<int64_t> opt_axis(Interp& I, const Value& v) {
  if (is_none(v)) return std::nullopt;
  return int_arg(I, v, "axis");
}

std::vector<int64_t> int_list(Interp& I, const Value& v, const char* what) {
  if (auto k = interp::bi::int_of(v)) return {*k};
  std::vector<int64_t> out;
  for (auto& x : I.to_vector(v)) out.push_back(int_arg(I, x, what));
  return out;
}

// Number of nonzero entries of a concrete array (eager nonzero without size=).
int64_t count_concrete(Interp& I, const Value& counted) {
  auto& arr = concrete(I, counted, "nonzero");
  auto els = array_elements(arr);
  return interp::bi::int_of(els.at(0)).value_or(0);
}

TakeMode jnp_mode(Interp& I, const Value& mode, const Value& fill, const char* name) {
  TakeMode tm;
  std::string m = is_none(mode) ? "fill" : I.str(mode);
  if (m == "fill") tm.mode = IndexMode::Fill;
  else if (m == "promise_in_bounds") tm.mode = IndexMode::InBounds;
  else if (m == "wrap") tm.mode = IndexMode::Wrap;
  else if (m == "clip") tm.mode = IndexMode::Clip;
  else I.raise("ValueError", fmt::format("{}: Invalid mode '{}'", name, m));
  if (!is_none(fill)) tm.fill = float_arg(I, fill, "fill_value");
  return tm;
}

Value operand_of(Interp& I, const Value& v, bool host) {
  if (is_array_like(v) || python_scalar_type(v, false)) return v;
  return to_array(I, v, std::nullopt, host);
}

Value jnp_nonzero_impl(Interp& I, const Value& x0, const Value& size_v, const Value& fill_v, bool argwhere) {
  Value x = operand_of(I, x0, false);
  int64_t size;
  if (!is_none(size_v)) size = int_arg(I, size_v, "size");
  else {
    if (as_tracer(x))
      raise_concretization_error(I, fmt::format("The size argument of jnp.{} must be statically specified to use jnp.{} within JAX "
                                                     "transformations.", argwhere ? "argwhere" : "nonzero", argwhere ? "argwhere" : "nonzero"));
    Value c = apply(I, "nonzero", {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
      auto axes = std::optional<std::vector<int64_t>>{};
      return std::vector<ValueId>{count_nonzero_body(t, ids[0], axes, false, DType::I32)};
    });
    size = count_concrete(I, c);
  }
  double fill = is_none(fill_v) ? 0 : float_arg(I, fill_v, "fill_value");
  auto outs = apply_multi(I, argwhere ? "argwhere" : "nonzero", {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
    ValueId v = ids[0];
    if (argwhere && t.type(v).rank() == 0) v = trace::reshape(t, v, {1});
    auto cs = nonzero_body(t, v, size, fill, DType::I32);
    if (!argwhere) return cs;
    if (t.type(ids[0]).rank() == 0) return std::vector<ValueId>{trace::full(t, {size, 0}, 0, {DType::I32, false}, std::nullopt)};
    return std::vector<ValueId>{trace::stack(t, cs, 1)};
  });
  if (argwhere) return outs.at(0);
  return interp::make_tuple(std::move(outs));
}

}  // namespace

// jnp.repeat with an array of repeats: the output length is their sum (concrete) or
// total_repeat_length (required under jit).
Value jnp_repeat_counts(Interp& I, const Value& x, const Value& repeats, std::optional<int64_t> axis, const Value& total_v) {
  Value r = operand_of(I, repeats, false);
  int64_t total;
  if (!is_none(total_v)) {
    total = int_arg(I, total_v, "total_repeat_length");
  } else {
    if (as_tracer(r))
      raise_concretization_error(I, "jnp.repeat with a traced array of repeats needs total_repeat_length= (the output shape)");
    int64_t k = 0;
    auto xt = type_of(x);
    if (axis) k = xt.shape().at(guarded(I, [&] { return trace::normalize_axis("repeat", *axis, xt.rank()); }));
    else k = xt.num_elements();
    total = 0;
    auto els = array_elements(concrete(I, r, "repeat"));
    for (auto& e : els) {
      int64_t v = interp::bi::int_of(e).value_or(0);
      if (v < 0) I.raise("ValueError", fmt::format("repeats may not contain negative values, got {}", v));
      total += els.size() == 1 ? v * k : v;
    }
  }
  return apply(I, "repeat", {x, r}, [&](Trace& t, const std::vector<ValueId>& ids) {
    return std::vector<ValueId>{repeat_counts_body(t, ids[0], ids[1], axis, total)};
  });
}

namespace {

// The distinct values of x, sorted, first `size` of them (fill_value past the count, else the
// smallest value, as jnp): a sort, a mask of where each run starts, the starts gathered.
// NaNs collapse into one (equal_nan=True, the default of both jnp and numpy).
std::vector<ValueId> unique_body(Trace& t, ValueId x, int64_t size, std::optional<double> fill) {
  ValueId s = trace::sort(t, flat(t, x), 0);
  const int64_t n = t.type(s).num_elements();
  if (n == 0) return {trace::full(t, {size}, fill.value_or(0), {t.type(s).dtype(), false}, std::nullopt), trace::scalar_constant(t, 0, {DType::I32, false})};
  ValueId prev = trace::slice(t, s, {0}, {n - 1}, {}), cur = trace::slice(t, s, {1}, {n}, {});
  ValueId ne = trace::binary(t, "ne", EwOp::Ne, cur, prev);
  if (types::is_float(t.type(s).dtype())) {
    ValueId cur_nan = trace::binary(t, "ne", EwOp::Ne, cur, cur);
    ValueId prev_nan = trace::binary(t, "ne", EwOp::Ne, prev, prev);
    ValueId both_nan = trace::binary(t, "and", EwOp::And, cur_nan, prev_nan);
    ne = trace::binary(t, "and", EwOp::And, ne, trace::unary(t, "not", EwOp::Not, both_nan));
  }
  ValueId first = trace::full(t, {1}, 1, {DType::Bool, false}, std::nullopt);
  ValueId is_new = trace::concatenate(t, {first, ne}, 0);
  ValueId count = trace::reduce(t, "unique", ReduceKind::Sum, trace::convert(t, is_new, {DType::I32, false}), {}, false);
  ValueId io = trace::iota(t, DType::I32, {n}, 0, std::nullopt);
  ValueId big = trace::scalar_constant(t, static_cast<double>(n), {DType::I32, true});
  ValueId key = trace::sort(t, trace::where(t, is_new, io, big), 0);
  key = size <= n ? trace::slice(t, key, {0}, {size}, {}) : trace::pad(t, key, big, {0}, {size - n});
  TakeMode tm{IndexMode::Fill, fill};
  if (!fill) tm.fill = std::nullopt;
  ValueId vals = take_last(t, s, key, tm);  // positions past the end (n) are out of range: filled
  if (!fill) {
    // jnp's default fill: the smallest unique value
    ValueId mn = trace::reduce(t, "unique", ReduceKind::Min, s, {}, false);
    ValueId valid = trace::binary(t, "lt", EwOp::Lt, key, big);
    vals = trace::where(t, valid, vals, trace::broadcast_to(t, mn, {size}));
  }
  return {vals, count};
}

}  // namespace

void add_jnp_indexing(Interp&, ModuleObj& m) {
  def_jnp(m, "unique", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "unique", {"ar", "return_index=", "return_inverse=", "return_counts=", "axis=", "*", "equal_nan=", "size=", "fill_value=", "sorted="});
    for (const char* k : {"return_index", "return_inverse", "return_counts"})
      if (!is_none(p.get(k)) && I.truthy(p.get(k))) I.raise("NotImplementedError", fmt::format("jnp.unique: {}=True is not supported yet", k));
    if (!is_none(p.get("axis"))) I.raise("NotImplementedError", "jnp.unique with axis= is not supported yet");
    Value x = operand_of(I, p.get("ar"), false);
    std::optional<double> fill;
    if (!is_none(p.get("fill_value"))) fill = float_arg(I, p.get("fill_value"), "fill_value");
    int64_t size;
    if (!is_none(p.get("size"))) {
      size = int_arg(I, p.get("size"), "size");
    } else {
      if (as_tracer(x))
        raise_concretization_error(I, "The size argument of jnp.unique must be statically specified to use jnp.unique within JAX transformations.");
      auto outs = apply_multi(I, "unique", {x}, [&](Trace& t, const std::vector<ValueId>& ids) { return unique_body(t, ids[0], 0, fill); });
      size = count_concrete(I, outs.at(1));
    }
    auto outs = apply_multi(I, "unique", {x}, [&](Trace& t, const std::vector<ValueId>& ids) { return unique_body(t, ids[0], size, fill); });
    return outs.at(0);
  });
  def_jnp(m, "take", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "take", {"a", "indices", "axis=", "out=", "mode=", "unique_indices=", "indices_are_sorted=", "fill_value="});
    auto axis = opt_axis(I, p.get("axis"));
    auto tm = jnp_mode(I, p.get("mode"), p.get("fill_value"), "take");
    return apply(I, "take", {operand_of(I, p.get("a"), false), operand_of(I, p.get("indices"), false)},
                 [&](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{take_body(t, ids[0], ids[1], axis, tm)}; });
  });
  def_jnp(m, "take_along_axis", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "take_along_axis", {"arr", "indices", "axis", "mode=", "fill_value="});
    auto axis = opt_axis(I, p.get("axis"));
    auto tm = jnp_mode(I, p.get("mode"), p.get("fill_value"), "take_along_axis");
    return apply(I, "take_along_axis", {operand_of(I, p.get("arr"), false), operand_of(I, p.get("indices"), false)},
                 [&](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{take_along_body(t, ids[0], ids[1], axis, tm)}; });
  });
  def_jnp(m, "roll", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "roll", {"a", "shift", "axis="});
    auto shifts = int_list(I, p.get("shift"), "shift");
    auto axes = axes_arg(I, p.get("axis"));
    return apply(I, "roll", {operand_of(I, p.get("a"), false)},
                 [&](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{roll_body(t, ids[0], shifts, axes)}; });
  });
  def_jnp(m, "diff", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "diff", {"a", "n=", "axis=", "prepend=", "append="});
    int64_t n = p.has("n") ? int_arg(I, p.get("n"), "n") : 1;
    if (n < 0) I.raise("ValueError", fmt::format("order must be non-negative but got {}", n));
    int64_t axis = p.has("axis") ? int_arg(I, p.get("axis"), "axis") : -1;
    std::vector<Value> ops{operand_of(I, p.get("a"), false)};
    const bool pre = !is_none(p.get("prepend")), app = !is_none(p.get("append"));
    if (pre) ops.push_back(operand_of(I, p.get("prepend"), false));
    if (app) ops.push_back(operand_of(I, p.get("append"), false));
    return apply(I, "diff", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
      std::optional<ValueId> pv, av;
      if (pre) pv = ids[1];
      if (app) av = ids[pre ? 2 : 1];
      return std::vector<ValueId>{diff_body(t, ids[0], n, axis, pv, av)};
    });
  });
  def_jnp(m, "meshgrid", [](Interp& I, CallArgs& a) {
    std::string indexing = "xy";
    bool sparse = false;
    for (auto& [k, v] : a.kwargs) {
      if (k == "indexing") indexing = I.str(v);
      else if (k == "sparse") sparse = I.truthy(v);
      else if (k == "copy") continue;
      else I.raise("TypeError", fmt::format("meshgrid() got an unexpected keyword argument '{}'", k));
    }
    if (indexing != "xy" && indexing != "ij") I.raise("ValueError", fmt::format("Valid values for indexing are 'xy' and 'ij', got {}", indexing));
    std::vector<Value> ops;
    for (auto& v : a.args) ops.push_back(operand_of(I, v, false));
    if (ops.empty()) return interp::make_list(std::vector<Value>{});
    auto outs = apply_multi(I, "meshgrid", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
      for (auto id : ids)
        if (t.type(id).rank() != 1) fail("ValueError", "Arguments to jax.numpy.meshgrid must be 1D, got shape " + types::py_int_tuple(t.type(id).shape()));
      return meshgrid_body(t, ids, indexing == "xy", sparse);
    });
    return interp::make_list(std::move(outs));
  });
  def_jnp(m, "diag", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "diag", {"v", "k="});
    int64_t k = p.has("k") ? int_arg(I, p.get("k"), "k") : 0;
    return apply(I, "diag", {operand_of(I, p.get("v"), false)},
                 [&](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{diag_body(t, ids[0], k, "diag input must be 1d or 2d")}; });
  });
  def_jnp(m, "trace", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "trace", {"a", "offset=", "axis1=", "axis2=", "dtype=", "out="});
    int64_t off = p.has("offset") ? int_arg(I, p.get("offset"), "offset") : 0;
    int64_t a1 = p.has("axis1") ? int_arg(I, p.get("axis1"), "axis1") : 0, a2 = p.has("axis2") ? int_arg(I, p.get("axis2"), "axis2") : 1;
    auto dt = dtype_arg(I, p.get("dtype"));
    std::optional<DType> acc;
    if (dt) acc = storage_dtype(*dt, false);
    return apply(I, "trace", {operand_of(I, p.get("a"), false)},
                 [&](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{trace_body(t, ids[0], off, a1, a2, acc)}; });
  });
  def_jnp(m, "diagonal", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "diagonal", {"a", "offset=", "axis1=", "axis2="});
    int64_t off = p.has("offset") ? int_arg(I, p.get("offset"), "offset") : 0;
    int64_t a1 = p.has("axis1") ? int_arg(I, p.get("axis1"), "axis1") : 0, a2 = p.has("axis2") ? int_arg(I, p.get("axis2"), "axis2") : 1;
    return apply(I, "diagonal", {operand_of(I, p.get("a"), false)},
                 [&](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{diagonal_body(t, ids[0], off, a1, a2)}; });
  });
  def_jnp(m, "searchsorted", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "searchsorted", {"a", "v", "side=", "sorter=", "*", "method="});
    std::string side = is_none(p.get("side")) ? "left" : I.str(p.get("side"));
    if (side != "left" && side != "right") I.raise("ValueError", fmt::format("'{}' is an invalid value for keyword 'side'. Expected one of ['left', 'right'].", side));
    if (!is_none(p.get("sorter"))) I.raise("NotImplementedError", "jnp.searchsorted: sorter= is not supported yet");
    return apply(I, "searchsorted", {operand_of(I, p.get("a"), false), operand_of(I, p.get("v"), false)}, [&](Trace& t, const std::vector<ValueId>& ids) {
      ValueId x = ids[0], v = ids[1];
      auto d = trace::promote(dtw(t, x), dtw(t, v));
      ValueId xc = trace::convert(t, x, {d.dtype, false});
      ValueId vc = trace::convert(t, v, {d.dtype, false});
      return std::vector<ValueId>{searchsorted_body(t, xc, vc, side == "right", DType::I32)};
    });
  });
  def_jnp(m, "bincount", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "bincount", {"x", "weights=", "minlength=", "*", "length="});
    Value x = operand_of(I, p.get("x"), false);
    int64_t minlength = is_none(p.get("minlength")) ? 0 : int_arg(I, p.get("minlength"), "minlength");
    if (minlength < 0) I.raise("ValueError", fmt::format("minlength must be non-negative, got {}", minlength));
    int64_t length;
    if (!is_none(p.get("length"))) {
      length = int_arg(I, p.get("length"), "length");
    } else {
      if (as_tracer(x))
        raise_concretization_error(I, "The error occurred because of argument 'length' of jnp.bincount: the length must be static "
                                      "under jit (pass length=).");
      int64_t mx = -1;
      for (auto& e : array_elements(concrete(I, x, "bincount"))) mx = std::max(mx, interp::bi::int_of(e).value_or(0));
      length = std::max(minlength, mx + 1);
    }
    std::vector<Value> ops{x};
    if (!is_none(p.get("weights"))) ops.push_back(operand_of(I, p.get("weights"), false));
    return apply(I, "bincount", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
      std::optional<ValueId> w;
      if (ids.size() > 1) w = ids[1];
      return std::vector<ValueId>{bincount_body(t, ids[0], w, length, DType::I32)};
    });
  });
  def_jnp(m, "kron", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "kron", {"a", "b"});
    return apply(I, "kron", {operand_of(I, p.get("a"), false), operand_of(I, p.get("b"), false)},
                 [&](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{kron_body(t, ids[0], ids[1])}; });
  });
  def_jnp(m, "count_nonzero", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "count_nonzero", {"a", "axis=", "keepdims="});
    auto axes = axes_arg(I, p.get("axis"));
    bool keep = p.has("keepdims") && I.truthy(p.get("keepdims"));
    return apply(I, "count_nonzero", {operand_of(I, p.get("a"), false)}, [&](Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{count_nonzero_body(t, ids[0], axes, keep, DType::I32)};
    });
  });
  def_jnp(m, "nonzero", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "nonzero", {"a", "*", "size=", "fill_value="});
    return jnp_nonzero_impl(I, p.get("a"), p.get("size"), p.get("fill_value"), false);
  });
  def_jnp(m, "argwhere", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "argwhere", {"a", "*", "size=", "fill_value="});
    return jnp_nonzero_impl(I, p.get("a"), p.get("size"), p.get("fill_value"), true);
  });
}

namespace np {

namespace {

Value np_run(Interp& I, const char* name, const std::vector<Value>& args, bool common,
             const std::function<ValueId(trace::Trace&, const std::vector<ValueId>&)>& f) {
  std::vector<Operand> ops;
  for (auto& v : args) ops.push_back(operand(I, v));
  std::vector<exec::ArrayRef> ins;
  for (auto& o : ops) ins.push_back(o.array);
  DType c = common ? result_type(ops) : DType::F64;
  return result(run1(I, name, ins, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
    std::vector<ValueId> xs = ids;
    if (common)
      for (auto& x : xs) x = cast(t, x, c);
    return std::vector<ValueId>{f(t, xs)};
  }));
}

// numpy raises for out-of-range indices (mode='raise').
void check_indices(Interp& I, const exec::ArrayRef& x, const exec::ArrayRef& idx, std::optional<int64_t> axis) {
  const Shape& s = x->type.shape();
  int64_t n = x->type.num_elements(), ax = 0;
  if (axis) {
    ax = *axis < 0 ? *axis + static_cast<int64_t>(s.size()) : *axis;
    if (ax < 0 || ax >= static_cast<int64_t>(s.size()))
      I.raise("AxisError", fmt::format("axis {} is out of bounds for array of dimension {}", *axis, s.size()));
    n = s[ax];
  }
  for (auto& e : array_elements(*idx)) {
    auto k = interp::bi::int_of(e);
    if (!k) I.raise("IndexError", "arrays used as indices must be of integer (or boolean) type");
    if (*k < -n || *k >= n) I.raise("IndexError", fmt::format("index {} is out of bounds for axis {} with size {}", *k, ax, n));
  }
}

Value np_tri(Interp& I, CallArgs& a, const char* name, bool upper) {
  interp::ArgParser p(I, a, name, {"m", "k="});
  int64_t k = p.get("k") ? int_arg(I, p.get("k"), "k") : 0;
  return np_run(I, name, {p.get("m")}, false, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
    ValueId x = ids[0];
    Shape s = t.type(x).shape();
    const size_t r = s.size();
    if (r < 2) fail("ValueError", "input array must be at least 2-d");
    ValueId ri = trace::iota(t, DType::I32, {s[r - 2], s[r - 1]}, 0, std::nullopt);
    ValueId ci = trace::iota(t, DType::I32, {s[r - 2], s[r - 1]}, 1, std::nullopt);
    ValueId d = trace::binary(t, name, EwOp::Sub, ci, ri);
    ValueId mask = trace::binary(t, name, upper ? EwOp::Ge : EwOp::Le, d, trace::scalar_constant(t, static_cast<double>(k), {DType::I32, true}));
    return trace::where(t, mask, x, zero_of(t, x));
  });
}

ValueId contract(trace::Trace& t, ValueId a, ValueId b, std::vector<int64_t> la, std::vector<int64_t> ra) {
  sharding::DotDims d;
  d.lhs_contracting = std::move(la);
  d.rhs_contracting = std::move(ra);
  for (size_t i = 0; i < d.lhs_contracting.size(); ++i)
    if (t.type(a).shape()[d.lhs_contracting[i]] != t.type(b).shape()[d.rhs_contracting[i]]) fail("ValueError", "shape-mismatch for sum");
  return trace::dot_general(t, a, b, d, std::nullopt, "dot_general");
}

}  // namespace

void add_indexing_functions(Interp&, ModuleObj& m) {
  add(m, "take", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "take", {"a", "indices", "axis=", "out=", "mode="});
    std::optional<int64_t> axis = opt_axis(I, p.get("axis"));
    auto x = host_array(I, p.get("a")), idx = host_array(I, p.get("indices"));
    if (idx->type.num_elements() == 0) idx = host_array(I, p.get("indices"), DType::I64);  // np.take(a, []) is empty
    TakeMode tm{IndexMode::InBounds, std::nullopt};
    std::string mode = p.get("mode") ? I.str(p.get("mode")) : "raise";
    if (mode == "wrap") tm.mode = IndexMode::Wrap;
    else if (mode == "clip") tm.mode = IndexMode::Clip;
    else if (mode != "raise") I.raise("ValueError", fmt::format("clipmode must be one of 'clip', 'raise', or 'wrap' (got '{}')", mode));
    if (tm.mode == IndexMode::InBounds) check_indices(I, x, idx, axis);
    return result(run1(I, "take", {x, idx}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{take_body(t, ids[0], ids[1], axis, tm)};
    }));
  });
  add(m, "take_along_axis", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "take_along_axis", {"arr", "indices", "axis"});
    std::optional<int64_t> axis = opt_axis(I, p.get("axis"));
    auto x = host_array(I, p.get("arr")), idx = host_array(I, p.get("indices"));
    if (x->type.rank() == idx->type.rank() || !axis) check_indices(I, x, idx, axis);
    TakeMode tm{IndexMode::InBounds, std::nullopt};
    return result(run1(I, "take_along_axis", {x, idx}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{take_along_body(t, ids[0], ids[1], axis, tm)};
    }));
  });
  add(m, "roll", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "roll", {"a", "shift", "axis="});
    auto shifts = int_list(I, p.get("shift"), "shift");
    auto axes = api::axes_arg(I, p.get("axis"));
    return np_run(I, "roll", {p.get("a")}, false, [&](trace::Trace& t, const std::vector<ValueId>& ids) { return roll_body(t, ids[0], shifts, axes); });
  });
  add(m, "diff", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "diff", {"a", "n=", "axis=", "prepend=", "append="});
    int64_t n = p.get("n") ? int_arg(I, p.get("n"), "n") : 1;
    if (n < 0) I.raise("ValueError", fmt::format("order must be non-negative but got {}", n));
    int64_t axis = p.get("axis") ? int_arg(I, p.get("axis"), "axis") : -1;
    std::vector<Value> ops{p.get("a")};
    const bool pre = !is_none(p.get("prepend")), app = !is_none(p.get("append"));
    if (pre) ops.push_back(p.get("prepend"));
    if (app) ops.push_back(p.get("append"));
    return np_run(I, "diff", ops, false, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      std::optional<ValueId> pv, av;
      if (pre) pv = ids[1];
      if (app) av = ids[pre ? 2 : 1];
      return diff_body(t, ids[0], n, axis, pv, av);
    });
  });
  add(m, "meshgrid", [](Interp& I, CallArgs& a) {
    std::string indexing = "xy";
    bool sparse = false;
    for (auto& [k, v] : a.kwargs) {
      if (k == "indexing") indexing = I.str(v);
      else if (k == "sparse") sparse = I.truthy(v);
      else if (k == "copy") continue;
      else I.raise("TypeError", fmt::format("meshgrid() got an unexpected keyword argument '{}'", k));
    }
    if (indexing != "xy" && indexing != "ij") I.raise("ValueError", "Valid values for `indexing` are 'xy' and 'ij'.");
    std::vector<exec::ArrayRef> ins;
    for (auto& v : a.args) ins.push_back(host_array(I, v));
    if (ins.empty()) return interp::make_list(std::vector<Value>{});
    auto outs = run(I, "meshgrid", ins, [&](trace::Trace& t, const std::vector<ValueId>& ids) { return meshgrid_body(t, ids, indexing == "xy", sparse); });
    std::vector<Value> vs;
    for (auto& o : outs) vs.push_back(wrap(o, true));
    return interp::make_list(std::move(vs));
  });
  add(m, "diag", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "diag", {"v", "k="});
    int64_t k = p.get("k") ? int_arg(I, p.get("k"), "k") : 0;
    return np_run(I, "diag", {p.get("v")}, false, [&](trace::Trace& t, const std::vector<ValueId>& ids) { return diag_body(t, ids[0], k, "Input must be 1- or 2-d."); });
  });
  add(m, "trace", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "trace", {"a", "offset=", "axis1=", "axis2=", "dtype=", "out="});
    int64_t off = p.get("offset") ? int_arg(I, p.get("offset"), "offset") : 0;
    int64_t a1 = p.get("axis1") ? int_arg(I, p.get("axis1"), "axis1") : 0, a2 = p.get("axis2") ? int_arg(I, p.get("axis2"), "axis2") : 1;
    auto dt = dtype_arg(I, p.get("dtype"));
    return np_run(I, "trace", {p.get("a")}, false, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      DType d = t.type(ids[0]).dtype();
      std::optional<DType> acc = dt ? dt : (types::is_float(d) ? std::nullopt : std::optional<DType>(DType::I64));
      return trace_body(t, ids[0], off, a1, a2, acc);
    });
  });
  add(m, "diagonal", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "diagonal", {"a", "offset=", "axis1=", "axis2="});
    int64_t off = p.get("offset") ? int_arg(I, p.get("offset"), "offset") : 0;
    int64_t a1 = p.get("axis1") ? int_arg(I, p.get("axis1"), "axis1") : 0, a2 = p.get("axis2") ? int_arg(I, p.get("axis2"), "axis2") : 1;
    return np_run(I, "diagonal", {p.get("a")}, false, [&](trace::Trace& t, const std::vector<ValueId>& ids) { return diagonal_body(t, ids[0], off, a1, a2); });
  });
  add(m, "searchsorted", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "searchsorted", {"a", "v", "side=", "sorter="});
    std::string side = p.get("side") ? I.str(p.get("side")) : "left";
    if (side != "left" && side != "right") I.raise("ValueError", fmt::format("side must be 'left' or 'right' (got '{}')", side));
    if (!is_none(p.get("sorter"))) I.raise("NotImplementedError", "numpy.searchsorted: sorter= is not supported yet");
    return np_run(I, "searchsorted", {p.get("a"), p.get("v")}, true, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      return searchsorted_body(t, ids[0], ids[1], side == "right", DType::I64);
    });
  });
  add(m, "bincount", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "bincount", {"x", "/", "weights=", "minlength="});
    auto x = host_array(I, p.get("x"));
    if (x->type.rank() != 1) I.raise("ValueError", "object too deep for desired array");
    if (!types::is_int(x->type.dtype()) && x->type.dtype() != DType::Bool)
      I.raise("TypeError", "Cannot cast array data from dtype('float64') to dtype('int64') according to the rule 'safe'");
    int64_t minlength = p.get("minlength") && !is_none(p.get("minlength")) ? int_arg(I, p.get("minlength"), "minlength") : 0;
    if (minlength < 0) I.raise("ValueError", "'minlength' must not be negative");
    int64_t mx = -1;
    for (auto& e : array_elements(*x)) {
      int64_t v = interp::bi::int_of(e).value_or(0);
      if (v < 0) I.raise("ValueError", "'list' argument must have no negative elements");
      mx = std::max(mx, v);
    }
    const int64_t length = std::max(minlength, mx + 1);
    std::vector<exec::ArrayRef> ins{x};
    if (!is_none(p.get("weights"))) ins.push_back(host_array(I, p.get("weights"), DType::F64));
    return result(run1(I, "bincount", ins, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      std::optional<ValueId> w;
      if (ids.size() > 1) w = cast(t, ids[1], DType::F64);
      return std::vector<ValueId>{bincount_body(t, cast(t, ids[0], DType::I64), w, length, DType::I64)};
    }));
  });
  add(m, "unique", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "unique", {"ar", "return_index=", "return_inverse=", "return_counts=", "axis=", "*", "equal_nan="});
    if (!is_none(p.get("axis"))) I.raise("NotImplementedError", "numpy.unique with axis= is not supported yet");
    const bool want_index = bool_arg(I, p.get("return_index"), false), want_inverse = bool_arg(I, p.get("return_inverse"), false),
               want_counts = bool_arg(I, p.get("return_counts"), false), equal_nan = bool_arg(I, p.get("equal_nan"), true);
    auto h = host_array(I, p.get("ar"));
    auto so = run(I, "unique", {h}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      ValueId f = flat(t, ids[0]);
      return std::vector<ValueId>{trace::sort(t, f, 0), trace::convert(t, trace::argsort(t, f, 0), {DType::I64, false})};
    });
    auto vals = array_elements(*so[0]);
    auto perm_bytes = exec::array_to_host(*so[1]);
    const int64_t n = static_cast<int64_t>(vals.size());
    std::vector<int64_t> perm(n);
    std::memcpy(perm.data(), perm_bytes.data(), perm.size() * sizeof(int64_t));
    const bool fl = types::is_float(h->type.dtype());
    auto same = [&](int64_t i, int64_t j) {
      if (fl) {
        double x = float_arg(I, vals[i], "ar"), y = float_arg(I, vals[j], "ar");
        return x == y || (equal_nan && std::isnan(x) && std::isnan(y));
      }
      return interp::bi::int_of(vals[i]).value_or(0) == interp::bi::int_of(vals[j]).value_or(0);
    };
    std::vector<int64_t> starts, group(n);
    for (int64_t i = 0; i < n; ++i) {
      if (i == 0 || !same(i, i - 1)) starts.push_back(i);
      group[i] = static_cast<int64_t>(starts.size()) - 1;
    }
    auto int_array = [&](const std::vector<int64_t>& xs) {
      std::vector<Value> items;
      for (auto x : xs) items.push_back(interp::make_int(x));
      return host_array(I, interp::make_list(std::move(items)), DType::I64);
    };
    auto idx = int_array(starts);
    auto uniq = run1(I, "unique", {so[0], idx}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{take_body(t, ids[0], ids[1], 0, TakeMode{IndexMode::InBounds, std::nullopt})};
    });
    if (!want_index && !want_inverse && !want_counts) return wrap(uniq, true);
    std::vector<Value> out{wrap(uniq, true)};
    if (want_index) {
      std::vector<int64_t> first;
      for (auto st : starts) first.push_back(perm[st]);
      out.push_back(wrap(int_array(first), true));
    }
    if (want_inverse) {
      std::vector<int64_t> inv(n);
      for (int64_t i = 0; i < n; ++i) inv[perm[i]] = group[i];
      out.push_back(wrap(int_array(inv), true));
    }
    if (want_counts) {
      std::vector<int64_t> counts;
      for (size_t k = 0; k < starts.size(); ++k) counts.push_back((k + 1 < starts.size() ? starts[k + 1] : n) - starts[k]);
      out.push_back(wrap(int_array(counts), true));
    }
    return interp::make_tuple(std::move(out));
  });
  add(m, "kron", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "kron", {"a", "b"});
    return np_run(I, "kron", {p.get("a"), p.get("b")}, true, [&](trace::Trace& t, const std::vector<ValueId>& ids) { return kron_body(t, ids[0], ids[1]); });
  });
  add(m, "count_nonzero", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "count_nonzero", {"a", "axis=", "*", "keepdims="});
    auto axes = api::axes_arg(I, p.get("axis"));
    bool keep = bool_arg(I, p.get("keepdims"), false);
    return np_run(I, "count_nonzero", {p.get("a")}, false, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      return count_nonzero_body(t, ids[0], axes, keep, DType::I64);
    });
  });
  for (const char* nm : {"nonzero", "argwhere", "flatnonzero"}) {
    const std::string which = nm;
    add(m, nm, [which](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, which, {"a"});
      auto x = host_array(I, p.get("a"));
      auto cnt = run1(I, "count_nonzero", {x}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
        return std::vector<ValueId>{count_nonzero_body(t, ids[0], std::nullopt, false, DType::I64)};
      });
      int64_t size = count_concrete(I, wrap(cnt, true));
      auto outs = run(I, which, {x}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
        ValueId v = ids[0];
        if (which == "flatnonzero") return std::vector<ValueId>{nonzero_flat(t, v, size, DType::I64)};
        if (t.type(v).rank() == 0) {
          if (which == "nonzero") fail("ValueError", "Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() instead.");
          return std::vector<ValueId>{trace::full(t, {size, 0}, 0, {DType::I64, false}, std::nullopt)};
        }
        auto cs = nonzero_body(t, v, size, 0, DType::I64);
        if (which == "nonzero") return cs;
        return std::vector<ValueId>{trace::stack(t, cs, 1)};
      });
      std::vector<Value> vs;
      for (auto& o : outs) vs.push_back(wrap(o, true));
      if (which != "nonzero") return vs.at(0);
      return interp::make_tuple(std::move(vs));
    });
  }
  add(m, "outer", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "outer", {"a", "b", "out="});
    return np_run(I, "outer", {p.get("a"), p.get("b")}, true, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      ValueId l = trace::reshape(t, ids[0], {t.type(ids[0]).num_elements(), 1});
      ValueId r = trace::reshape(t, ids[1], {1, t.type(ids[1]).num_elements()});
      return trace::binary(t, "mul", EwOp::Mul, l, r);
    });
  });
  add(m, "triu", [](Interp& I, CallArgs& a) { return np_tri(I, a, "triu", true); });
  add(m, "tril", [](Interp& I, CallArgs& a) { return np_tri(I, a, "tril", false); });
  add(m, "flip", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "flip", {"m", "axis="});
    auto axes = api::axes_arg(I, p.get("axis"));
    return np_run(I, "flip", {p.get("m")}, false, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      std::vector<int64_t> dims;
      if (axes) dims = *axes;
      else
        for (int64_t d = 0; d < rank_of(t, ids[0]); ++d) dims.push_back(d);
      return trace::rev(t, ids[0], dims);
    });
  });
  add(m, "repeat", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "repeat", {"a", "repeats", "axis="});
    if (!interp::bi::int_of(p.get("repeats"))) {
      auto x = host_array(I, p.get("a"));
      auto r = host_array(I, p.get("repeats"), DType::I64);
      std::optional<int64_t> axis = opt_axis(I, p.get("axis"));
      int64_t total = 0;
      auto els = array_elements(*r);
      int64_t k = x->type.num_elements();
      if (axis) {
        int64_t ax = *axis < 0 ? *axis + static_cast<int64_t>(x->type.rank()) : *axis;
        if (ax < 0 || ax >= static_cast<int64_t>(x->type.rank()))
          I.raise("AxisError", fmt::format("axis {} is out of bounds for array of dimension {}", *axis, x->type.rank()));
        k = x->type.shape()[ax];
      }
      for (auto& e : els) {
        int64_t v = interp::bi::int_of(e).value_or(0);
        if (v < 0) I.raise("ValueError", "repeats may not contain negative values.");
        total += els.size() == 1 ? v * k : v;
      }
      return result(run1(I, "repeat", {x, r}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
        return std::vector<ValueId>{repeat_counts_body(t, ids[0], ids[1], axis, total)};
      }));
    }
    int64_t reps = int_arg(I, p.get("repeats"), "repeats");
    if (reps < 0) I.raise("ValueError", "negative dimensions are not allowed");
    std::optional<int64_t> axis = opt_axis(I, p.get("axis"));
    return np_run(I, "repeat", {p.get("a")}, false, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      ValueId v = ids[0];
      int64_t ax = 0;
      if (!axis) v = flat(t, v);
      else ax = trace::normalize_axis("repeat", *axis, t.type(v).rank());
      Shape s = t.type(v).shape(), e = s;
      e.insert(e.begin() + ax + 1, 1);
      Shape b = e;
      b[ax + 1] = reps;
      Shape f = s;
      f[ax] *= reps;
      return trace::reshape(t, trace::broadcast_to(t, trace::reshape(t, v, e), b), f);
    });
  });
  add(m, "pad", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "pad", {"array", "pad_width", "mode=", "constant_values="});
    if (p.get("mode") && I.str(p.get("mode")) != "constant")
      I.raise("NotImplementedError", fmt::format("numpy.pad: mode '{}' is not supported yet", I.str(p.get("mode"))));
    auto x = host_array(I, p.get("array"));
    const size_t r = x->type.rank();
    // pad_width: n, (n,), (b, a), ((b0, a0), ...)
    std::vector<std::pair<int64_t, int64_t>> w(r);
    Value pw = p.get("pad_width");
    auto pair_of = [&](const Value& v) -> std::pair<int64_t, int64_t> {
      if (auto n = interp::bi::int_of(v)) return {*n, *n};
      auto it = I.to_vector(v);
      if (it.empty()) I.raise("ValueError", "pad_width must not be empty");
      int64_t b = int_arg(I, it[0], "pad_width");
      return {b, it.size() > 1 ? int_arg(I, it[1], "pad_width") : b};
    };
    if (interp::bi::int_of(pw)) {
      for (auto& q : w) q = pair_of(pw);
    } else {
      auto items = I.to_vector(pw);
      bool nested = !items.empty() && (items[0]->kind == ObjKind::Tuple || items[0]->kind == ObjKind::List);
      if (!nested || items.size() == 1) {
        for (auto& q : w) q = pair_of(nested ? items[0] : pw);
      } else {
        if (items.size() != r)
          I.raise("ValueError", fmt::format("operands could not be broadcast together with remapped shapes [original->remapped]: ({},2)  and requested shape ({},2)", items.size(), r));
        for (size_t d = 0; d < r; ++d) w[d] = pair_of(items[d]);
      }
    }
    for (auto& q : w)
      if (q.first < 0 || q.second < 0) I.raise("ValueError", "index can't contain negative values");
    double cv = p.get("constant_values") ? number_arg(I, p.get("constant_values"), "constant_values") : 0;
    return result(run1(I, "pad", {x}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      Shape lo, hi;
      for (auto& q : w) {
        lo.push_back(q.first);
        hi.push_back(q.second);
      }
      return std::vector<ValueId>{trace::pad(t, ids[0], trace::scalar_constant(t, cv, {t.type(ids[0]).dtype(), false}), lo, hi)};
    }));
  });
  add(m, "tensordot", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "tensordot", {"a", "b", "axes="});
    Value axes = p.get("axes");
    return np_run(I, "tensordot", {p.get("a"), p.get("b")}, true, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      const int64_t ra = rank_of(t, ids[0]), rb = rank_of(t, ids[1]);
      std::vector<int64_t> la, lb;
      if (is_none(axes) || interp::bi::int_of(axes)) {
        int64_t n = is_none(axes) ? 2 : *interp::bi::int_of(axes);
        if (n > ra || n > rb) fail("ValueError", "shape-mismatch for sum");
        for (int64_t i = 0; i < n; ++i) {
          la.push_back(ra - n + i);
          lb.push_back(i);
        }
      } else {
        auto pair = I.to_vector(axes);
        if (pair.size() != 2) fail("ValueError", "axes must consist of two sequences");
        for (auto v : int_list(I, pair[0], "axes")) la.push_back(trace::normalize_axis("tensordot", v, ra));
        for (auto v : int_list(I, pair[1], "axes")) lb.push_back(trace::normalize_axis("tensordot", v, rb));
        if (la.size() != lb.size()) fail("ValueError", "shape-mismatch for sum");
      }
      return contract(t, ids[0], ids[1], la, lb);
    });
  });
  add(m, "inner", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "inner", {"a", "b"});
    return np_run(I, "inner", {p.get("a"), p.get("b")}, true, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      const int64_t ra = rank_of(t, ids[0]), rb = rank_of(t, ids[1]);
      if (ra == 0 || rb == 0) return trace::binary(t, "mul", EwOp::Mul, ids[0], ids[1]);
      return contract(t, ids[0], ids[1], {ra - 1}, {rb - 1});
    });
  });
  add(m, "vdot", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "vdot", {"a", "b"});
    return np_run(I, "vdot", {p.get("a"), p.get("b")}, true, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      ValueId l = flat(t, trace::conj(t, ids[0])), r = flat(t, ids[1]);  // sum(conj(a) * b)
      if (t.type(l).num_elements() != t.type(r).num_elements()) fail("ValueError", "cannot reshape array");
      return contract(t, l, r, {0}, {0});
    });
  });
}

}  // namespace np

}  // namespace shard::api
