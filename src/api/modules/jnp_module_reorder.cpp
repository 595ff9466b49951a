// Reordering and index-building functions of jax.numpy and the host numpy module: rot90,
// lexsort, put (jnp's functional form with inplace=False; numpy's in place), and the index
// tuples tril_indices / triu_indices (and *_from), diag_indices (and _from). rot90, lexsort
// and put are one traced body shared by both modules (put is a one-hot scatter where the
// last write to a position wins, as numpy); the index tuples are computed on the host from
// static sizes, as JAX computes them from static arguments.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "api/modules/jnp_module.hpp"
#include "api/modules/numpy_internal.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using ir::EwOp;
using ir::ReduceKind;
using interp::ArgParser;

namespace {

[[noreturn]] void fail(const std::string& kind, const std::string& msg) { throw types::ShardingError(kind, msg); }

ValueId cst(Trace& t, double v, DType d) { return trace::scalar_constant(t, v, {d, false}); }  // strong: two weak constants would compute in float32

// rot90 by k quarter turns in the plane of axes (ax1, ax2), already normalized and distinct:
// two flips, or a flip and a swap of the two axes.
ValueId rot90_body(Trace& t, ValueId m, int64_t k, int64_t ax1, int64_t ax2) {
  k = ((k % 4) + 4) % 4;
  if (k == 0) return m;
  if (k == 2) return trace::rev(t, m, {ax1, ax2});
  std::vector<int64_t> perm(t.type(m).rank());
  for (size_t d = 0; d < perm.size(); ++d) perm[d] = static_cast<int64_t>(d);
  std::swap(perm[ax1], perm[ax2]);
  if (k == 1) return trace::transpose(t, trace::rev(t, m, {ax2}), perm);
  return trace::rev(t, trace::transpose(t, m, perm), {ax2});
}

// The stable order sorting by the last key first, then the others (lax.sort of the keys
// reversed and an iota, keeping the iota).
ValueId lexsort_body(Trace& t, std::vector<ValueId> keys, int64_t axis, DType idx) {
  const auto kt = t.type(keys[0]);
  for (auto k : keys)
    if (t.type(k).shape() != kt.shape()) fail("ValueError", "all keys need to be the same shape");
  if (kt.rank() == 0) return trace::full(t, {}, 0, {idx, false}, std::nullopt);
  const int64_t ax = trace::normalize_axis("lexsort", axis, kt.rank());
  std::reverse(keys.begin(), keys.end());
  const int64_t nk = static_cast<int64_t>(keys.size());
  keys.push_back(trace::iota(t, idx, kt.shape(), ax, kt.is_sharded() ? sharding::OptOutSharding(sharding::OutSharding{kt.spec()}) : std::nullopt));
  return trace::sort_multi(t, keys, ax, nk).back();
}

// How put maps indices onto the flattened array: jnp's default clamps like unravel_index
// (negative ones counted from the end first), numpy's default wraps negative ones (the
// caller checked the range), "clip" clamps (negative -> 0), "wrap" takes them modulo size.
enum class PutMode { Clamp, InRange, Clip, Wrap };

// Replicated: a scatter over the whole array sees every element.
ValueId replicated(Trace& t, ValueId x) {
  if (!t.type(x).is_sharded()) return x;
  return trace::reshard(t, x, sharding::OutSharding{types::PartitionSpec()});
}

ValueId put_replicated(Trace& t, ValueId a, ValueId ind, ValueId v, PutMode mode) {
  const Shape shape = t.type(a).shape();
  const int64_t n = t.type(a).num_elements(), k = t.type(ind).num_elements(), nv = t.type(v).num_elements();
  if (n == 0 || k == 0 || nv == 0) return a;
  const DType d = t.type(a).dtype();
  const DType id = t.type(ind).dtype();
  if (!types::is_int(id)) fail("TypeError", "put: indices must be integers");
  ValueId af = trace::reshape(t, a, {n});
  ValueId i = trace::reshape(t, ind, {k});
  ValueId vf = trace::convert(t, trace::reshape(t, v, {nv}), {d, false});
  if (nv != k) {  // values repeat (or are cut) to one per index
    std::vector<ValueId> reps((k + nv - 1) / nv, vf);
    vf = trace::slice(t, trace::concatenate(t, reps, 0), {0}, {k}, {});
  }
  ValueId nn = cst(t, static_cast<double>(n), id), zero = cst(t, 0, id), last = cst(t, static_cast<double>(n - 1), id);
  switch (mode) {
    case PutMode::Wrap: i = trace::binary(t, "remainder", EwOp::Mod, i, nn); break;
    case PutMode::Clip: i = trace::clip(t, i, zero, last); break;
    case PutMode::Clamp:
    case PutMode::InRange: {
      ValueId neg = trace::binary(t, "lt", EwOp::Lt, i, zero);
      i = trace::where(t, neg, trace::binary(t, "add", EwOp::Add, i, nn), i);
      if (mode == PutMode::Clamp) i = trace::clip(t, i, zero, last);
      break;
    }
  }
  // hit[j, p]: index j writes position p; the last such j wins.
  Shape full = {k, n};
  ValueId i_rows = trace::broadcast_in_dim(t, i, full, {0});
  ValueId positions = trace::iota(t, id, full, 1, std::nullopt);
  ValueId hit = trace::binary(t, "eq", EwOp::Eq, i_rows, positions);
  ValueId j = trace::iota(t, DType::I32, full, 0, std::nullopt);
  ValueId writer = trace::reduce(t, "put", ReduceKind::Max, trace::where(t, hit, j, cst(t, -1, DType::I32)), {0}, false);
  ValueId chosen = trace::binary(t, "eq", EwOp::Eq, j, trace::broadcast_in_dim(t, writer, full, {1}));
  ValueId vb = trace::broadcast_in_dim(t, vf, full, {0});
  ValueId picked = trace::where(t, chosen, vb, cst(t, 0, d));
  ValueId val = trace::reduce(t, "put", d == DType::Bool ? ReduceKind::Or : ReduceKind::Sum, picked, {0}, false);
  ValueId written = trace::binary(t, "ge", EwOp::Ge, writer, cst(t, 0, DType::I32));
  return trace::reshape(t, trace::where(t, written, val, af), shape);
}

// The result keeps a's sharding (a scatter's output is sharded like its operand); the
// scatter itself runs on replicated values.
ValueId put_body(Trace& t, ValueId a, ValueId ind, ValueId v, PutMode mode) {
  const auto at = t.type(a);
  ValueId ar = replicated(t, a);
  ValueId ind_r = replicated(t, ind);
  ValueId vr = replicated(t, v);
  ValueId r = put_replicated(t, ar, ind_r, vr, mode);
  return at.is_sharded() ? trace::reshard(t, r, sharding::OutSharding{at.sharding()}) : r;
}

// The (row, column) pairs of an n x m matrix on or above (upper) / below (lower) diagonal
// k, in row-major order.
std::pair<std::vector<int64_t>, std::vector<int64_t>> triangle_indices(int64_t n, int64_t k, int64_t m, bool upper) {
  std::vector<int64_t> rows, cols;
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < m; ++c)
      if (upper ? c - r >= k : c - r <= k) {
        rows.push_back(r);
        cols.push_back(c);
      }
  return {rows, cols};
}

// An index vector as an array of `d` (int32 device array for jnp, int64 host array for numpy).
Value index_array(Interp& I, const std::vector<int64_t>& v, DType d, bool host) {
  std::vector<Value> items;
  items.reserve(v.size());
  for (auto x : v) items.push_back(interp::make_int(x));
  return to_array(I, interp::make_list(std::move(items)), d, host);
}

Value triangle_tuple(Interp& I, int64_t n, int64_t k, int64_t m, bool upper, DType d, bool host) {
  if (n < 0 || m < 0) I.raise("ValueError", "negative dimensions are not allowed");
  auto [rows, cols] = triangle_indices(n, k, m, upper);
  return interp::make_tuple({index_array(I, rows, d, host), index_array(I, cols, d, host)});
}

// A static integer argument of jnp (tracers: JAX's ConcretizationTypeError naming it).
int64_t static_int(Interp& I, const Value& v, const std::string& context) {
  if (auto* tr = as_tracer(v))
    raise_concretization_error(I, fmt::format("Abstract tracer value encountered where concrete value is expected: traced array with "
                                              "shape {}\n{}", tr->type().str_short(), context));
  return int_arg(I, v, context);
}

// jnp checks n and ndim; numpy's arange(n) is empty for a negative n.
Value diag_tuple(Interp& I, int64_t n, int64_t ndim, DType d, bool host) {
  if (n < 0 && !host) I.raise("ValueError", fmt::format("n argument to diag_indices must be nonnegative, got {}", n));
  if (ndim < 0 && !host) I.raise("ValueError", fmt::format("ndim argument to diag_indices must be nonnegative, got {}", ndim));
  std::vector<int64_t> idx(static_cast<size_t>(std::max<int64_t>(n, 0)));
  for (int64_t i = 0; i < n; ++i) idx[i] = i;
  Value one = index_array(I, idx, d, host);
  return interp::make_tuple(std::vector<Value>(static_cast<size_t>(std::max<int64_t>(ndim, 0)), one));
}

Shape shape_of(Interp& I, const Value& v) {
  if (is_array_like(v)) return type_of(v).shape();
  return type_of(to_array(I, v, std::nullopt, true)).shape();
}

Value diag_from(Interp& I, const Value& arr, DType d, bool host) {
  Shape s = shape_of(I, arr);
  if (s.size() < 2) I.raise("ValueError", "input array must be at least 2-d");
  for (auto x : s)
    if (x != s[0]) I.raise("ValueError", "All dimensions of input must be of equal length");
  return diag_tuple(I, s[0], static_cast<int64_t>(s.size()), d, host);
}

// The keys of lexsort: a sequence of arrays, or an array whose rows are the keys.
std::vector<Value> lexsort_keys(Interp& I, const Value& keys, bool host) {
  std::vector<Value> out;
  if (is_array_like(keys)) {
    // jnp iterates the array (tuple(keys)); numpy takes a 0-d array as no keys
    if (type_of(keys).rank() == 0) I.raise("TypeError", host ? "need sequence of keys with len > 0 in lexsort" : "iteration over a 0-d array");
    for (int64_t r = 0; r < type_of(keys).shape()[0]; ++r) out.push_back(op_getitem(I, keys, interp::make_int(r)));
  } else {
    for (auto& k : I.to_vector(keys)) out.push_back(is_array_like(k) ? k : to_array(I, k, std::nullopt, host));
  }
  if (out.empty()) I.raise("TypeError", "need sequence of keys with len > 0 in lexsort");
  return out;
}

// rot90's axes: numpy's checks (two axes, distinct, in range), in numpy's order.
std::pair<int64_t, int64_t> rot90_axes(Interp& I, const Value& axes_v, int64_t ndim, bool numpy) {
  std::vector<int64_t> ax = {0, 1};
  if (!is_none(axes_v)) {
    ax.clear();
    for (auto& x : I.to_vector(axes_v)) ax.push_back(int_arg(I, x, "axes"));
  }
  if (numpy) {
    if (ax.size() != 2) I.raise("ValueError", "len(axes) must be 2.");
    if (ax[0] == ax[1] || std::abs(ax[0] - ax[1]) == ndim) I.raise("ValueError", "Axes must be different.");
    for (auto a : ax)
      if (a >= ndim || a < -ndim) I.raise("ValueError", fmt::format("Axes=({}, {}) out of range for array of ndim={}.", ax[0], ax[1], ndim));
  } else {
    // JAX unpacks `ax1, ax2 = axes`: Python's errors
    if (ax.size() > 2) I.raise("ValueError", "too many values to unpack (expected 2)");
    if (ax.size() < 2) I.raise("ValueError", fmt::format("not enough values to unpack (expected 2, got {})", ax.size()));
  }
  auto norm = [&](int64_t a) {
    if (a < -ndim || a >= ndim) I.raise("ValueError", fmt::format("axis {} is out of bounds for array of dimension {}", a, ndim));
    return a < 0 ? a + ndim : a;
  };
  int64_t a1 = norm(ax[0]), a2 = norm(ax[1]);
  if (a1 == a2) I.raise("ValueError", "Axes must be different");
  return {a1, a2};
}

}  // namespace

void add_jnp_reorder(Interp&, ModuleObj& m) {
  def_jnp(m, "rot90", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "rot90", {"m", "k=", "axes="});
    check_arraylike(I, "rot90", {p.get("m")});
    Value x = is_array_like(p.get("m")) ? p.get("m") : to_array(I, p.get("m"), std::nullopt, false);
    const int64_t k = is_none(p.get("k")) ? 1 : int_arg(I, p.get("k"), "k");
    const Shape s = type_of(x).shape();
    if (s.size() < 2)
      I.raise("ValueError", fmt::format("rot90 requires its first argument to have ndim at least two, but got first argument of shape {}, "
                                        "which has ndim {}", types::py_int_tuple(s), s.size()));
    auto [a1, a2] = rot90_axes(I, p.get("axes"), static_cast<int64_t>(s.size()), false);
    return apply(I, "rot90", {x}, [&](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{rot90_body(t, ids[0], k, a1, a2)}; });
  });
  def_jnp(m, "lexsort", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "lexsort", {"keys", "axis="});
    if (!is_array_like(p.get("keys"))) check_arraylike(I, "lexsort", I.to_vector(p.get("keys")));
    auto keys = lexsort_keys(I, p.get("keys"), false);
    const int64_t axis = is_none(p.get("axis")) ? -1 : int_arg(I, p.get("axis"), "axis");
    return apply(I, "lexsort", keys, [&](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{lexsort_body(t, ids, axis, DType::I32)}; });
  });
  def_jnp(m, "put", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "put", {"a", "ind", "v", "mode=", "*", "inplace="});
    if (is_none(p.get("inplace")) || I.truthy(p.get("inplace")))
      I.raise("ValueError", "jax.numpy.put cannot modify arrays in-place, because JAX arrays are immutable. Pass inplace=False to instead "
                            "return an updated array.");
    check_arraylike(I, "put", {p.get("a"), p.get("ind"), p.get("v")});
    PutMode mode = PutMode::Clamp;
    if (!is_none(p.get("mode"))) {
      std::string md = I.str(p.get("mode"));
      if (md == "clip") mode = PutMode::Clip;
      else if (md == "wrap") mode = PutMode::Wrap;
      else if (md == "raise") I.raise("NotImplementedError", "The 'raise' mode to jnp.put is not supported.");
      else I.raise("ValueError", fmt::format("mode should be one of 'wrap' or 'clip'; got mode={}", I.repr(p.get("mode"))));
    }
    std::vector<Value> ops;
    for (const char* k : {"a", "ind", "v"}) ops.push_back(is_array_like(p.get(k)) ? p.get(k) : to_array(I, p.get(k), std::nullopt, false));
    return apply(I, "put", ops, [&](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{put_body(t, ids[0], ids[1], ids[2], mode)}; });
  });
  for (bool upper : {false, true}) {
    const std::string nm = upper ? "triu_indices" : "tril_indices";
    def_jnp(m, nm, [upper](Interp& I, CallArgs& a) {
      ArgParser p(I, a, upper ? "triu_indices" : "tril_indices", {"n", "k=", "m="});
      // JAX names jnp.triu_indices in both functions' errors.
      const int64_t n = static_int(I, p.get("n"), "n argument of jnp.triu_indices");
      const int64_t k = is_none(p.get("k")) ? 0 : static_int(I, p.get("k"), "k argument of jnp.triu_indices");
      const int64_t mm = is_none(p.get("m")) ? n : static_int(I, p.get("m"), "m argument of jnp.triu_indices");
      return triangle_tuple(I, n, k, mm, upper, DType::I32, false);
    });
    def_jnp(m, nm + "_from", [upper](Interp& I, CallArgs& a) {
      ArgParser p(I, a, upper ? "triu_indices_from" : "tril_indices_from", {"arr", "k="});
      check_arraylike(I, upper ? "triu_indices_from" : "tril_indices_from", {p.get("arr")});
      Shape s = shape_of(I, p.get("arr"));
      if (s.size() != 2) I.raise("ValueError", "Only 2-D inputs are accepted");
      const int64_t k = is_none(p.get("k")) ? 0 : int_arg(I, p.get("k"), "k");
      return triangle_tuple(I, s[0], k, s[1], upper, DType::I32, false);
    });
  }
  def_jnp(m, "diag_indices", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "diag_indices", {"n", "ndim="});
    const int64_t n = static_int(I, p.get("n"), "'n' argument of jnp.diag_indices()");
    const int64_t nd = is_none(p.get("ndim")) ? 2 : static_int(I, p.get("ndim"), "'ndim' argument of jnp.diag_indices()");
    return diag_tuple(I, n, nd, DType::I32, false);
  });
  def_jnp(m, "diag_indices_from", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "diag_indices_from", {"arr"});
    check_arraylike(I, "diag_indices_from", {p.get("arr")});
    return diag_from(I, p.get("arr"), DType::I32, false);
  });
}

namespace np {

void add_reorder_functions(Interp&, ModuleObj& m) {
  add(m, "rot90", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "rot90", {"m", "k=", "axes="});
    auto h = host_array(I, p.get("m"));
    const int64_t k = is_none(p.get("k")) ? 1 : int_arg(I, p.get("k"), "k");
    auto [a1, a2] = rot90_axes(I, p.get("axes"), static_cast<int64_t>(h->type.rank()), true);
    return result(run1(I, "rot90", {h}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{rot90_body(t, ids[0], k, a1, a2)};
    }));
  });
  add(m, "lexsort", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "lexsort", {"keys", "axis="});
    std::vector<exec::ArrayRef> ins;
    for (auto& k : lexsort_keys(I, p.get("keys"), true)) ins.push_back(host_array(I, k));
    const int64_t axis = is_none(p.get("axis")) ? -1 : int_arg(I, p.get("axis"), "axis");
    return result(run1(I, "lexsort", ins, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{lexsort_body(t, ids, axis, DType::I64)};
    }));
  });
  add(m, "put", [](Interp& I, CallArgs& a) -> Value {
    interp::ArgParser p(I, a, "put", {"a", "ind", "v", "mode="});
    auto* target = as_array(p.get("a"));
    if (!target || !target->host) I.raise("TypeError", fmt::format("argument 1 must be numpy.ndarray, not {}", I.type_name(p.get("a"))));
    std::string md = is_none(p.get("mode")) ? "raise" : I.str(p.get("mode"));
    PutMode mode = PutMode::InRange;
    if (md == "clip") mode = PutMode::Clip;
    else if (md == "wrap") mode = PutMode::Wrap;
    else if (md != "raise") I.raise("ValueError", fmt::format("clipmode must be one of 'clip', 'raise', or 'wrap' (got {})", I.repr(p.get("mode"))));
    auto ind = host_array(I, p.get("ind"));
    auto v = host_array(I, p.get("v"));
    const int64_t n = target->array->type.num_elements();
    if (mode == PutMode::InRange) {
      if (!types::is_int(ind->type.dtype()) && ind->type.num_elements() > 0)
        I.raise("TypeError", fmt::format("Cannot cast array data from dtype('{}') to dtype('int64') according to the rule 'safe'",
                                         types::dtype_name(ind->type.dtype())));
      for (auto& e : array_elements(*ind)) {
        const int64_t i = interp::bi::int_of(e).value_or(0);
        if (i < -n || i >= n) I.raise("IndexError", fmt::format("index {} is out of bounds for axis 0 with size {}", i, n));
      }
    } else if (n == 0 && ind->type.num_elements() > 0) {
      I.raise("IndexError", "cannot replace elements of an empty array");
    }
    auto out = run1(I, "put", {target->array, ind, v}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{put_body(t, ids[0], ids[1], ids[2], mode)};
    });
    target->array = out;  // numpy: in place
    return interp::none();
  });
  for (bool upper : {false, true}) {
    const std::string nm = upper ? "triu_indices" : "tril_indices";
    add(m, nm, [upper](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, upper ? "triu_indices" : "tril_indices", {"n", "k=", "m="});
      const int64_t n = int_arg(I, p.get("n"), "n");
      const int64_t k = is_none(p.get("k")) ? 0 : int_arg(I, p.get("k"), "k");
      const int64_t mm = is_none(p.get("m")) ? n : int_arg(I, p.get("m"), "m");
      return triangle_tuple(I, n, k, mm, upper, DType::I64, true);
    });
    add(m, nm + "_from", [upper](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, upper ? "triu_indices_from" : "tril_indices_from", {"arr", "k="});
      Shape s = shape_of(I, p.get("arr"));
      if (s.size() != 2) I.raise("ValueError", "input array must be 2-d");
      const int64_t k = is_none(p.get("k")) ? 0 : int_arg(I, p.get("k"), "k");
      return triangle_tuple(I, s[0], k, s[1], upper, DType::I64, true);
    });
  }
  add(m, "diag_indices", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "diag_indices", {"n", "ndim="});
    const int64_t n = int_arg(I, p.get("n"), "n");
    const int64_t nd = is_none(p.get("ndim")) ? 2 : int_arg(I, p.get("ndim"), "ndim");
    return diag_tuple(I, n, nd, DType::I64, true);
  });
  add(m, "diag_indices_from", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "diag_indices_from", {"arr"});
    return diag_from(I, p.get("arr"), DType::I64, true);
  });
}

}  // namespace np

}  // namespace shard::api
