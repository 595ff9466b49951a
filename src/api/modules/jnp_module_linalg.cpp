// jax.numpy contractions: dot matmul vdot inner outer tensordot einsum vecdot matvec vecmat,
// lowered to dot_general (and transposes/reductions), jnp.i0; and jax.numpy.linalg's norm,
// vector_norm, matrix_norm, cond, multi_dot, lstsq, tensorinv, tensorsolve and array-API names.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "api/modules/jnp_module.hpp"
#include "api/modules/linalg_module.hpp"
#include "api/modules/numpy_internal.hpp"
#include "api/objects/dtype_value.hpp"
#include "interp/builtins/support.hpp"
#include "primitives/linalg/linalg.hpp"
#include "trace/ops_special.hpp"
#include "types/x64_mode.hpp"

namespace shard::api {

using ir::EwOp;
using interp::ArgParser;
using sharding::DotDims;

namespace {

Value contraction_operand(Interp& I, const Value& v, const std::string& name, size_t pos) {
  if (is_array_like(v) || python_scalar_type(v, false)) return v;
  I.raise("TypeError", fmt::format("{} requires ndarray or scalar arguments, got {} at position {}.", name, I.type_name(v), pos));
}

std::optional<DType> preferred(Interp& I, const ArgParser& p) { return dtype_arg(I, p.get("preferred_element_type")); }

// A float16 / bfloat16 operand of a contraction whose preferred_element_type is a wider
// float: widened first (exact), so the products accumulate in that type, as XLA's dot does.
ValueId widen_operand(Trace& t, ValueId v, std::optional<DType> pref) {
  const DType d = t.type(v).dtype();
  if (pref && types::is_float(*pref) && (d == DType::F16 || d == DType::BF16) && types::dtype_size(*pref) > 2)
    return trace::convert(t, v, {storage_dtype(*pref, false), false});
  return v;
}

ValueId finish(Trace& t, ValueId r, std::optional<DType> pref) {
  return pref ? trace::convert(t, r, {storage_dtype(*pref, false), false}) : r;
}

void check_contract(const types::ArrayType& l, const types::ArrayType& r, const DotDims& d) {
  for (size_t i = 0; i < d.lhs_contracting.size(); ++i) {
    int64_t a = l.shape()[d.lhs_contracting[i]], b = r.shape()[d.rhs_contracting[i]];
    if (a != b)
      throw types::ShardingError("TypeError", fmt::format("dot_general requires contracting dimensions to have the same shape, got "
                                                          "({},) and ({},).", a, b));
  }
}

// numpy.dot: scalars multiply; otherwise contract a's last dim with b's last (1-D b) or
// second-to-last dim.
ValueId dot_body(Trace& t, ValueId a, ValueId b, const sharding::OptOutSharding& out) {
  auto at = t.type(a), bt = t.type(b);
  if (at.rank() == 0 || bt.rank() == 0) return trace::binary(t, "mul", EwOp::Mul, a, b);
  DotDims d;
  d.lhs_contracting = {static_cast<int64_t>(at.rank()) - 1};
  d.rhs_contracting = {bt.rank() == 1 ? 0 : static_cast<int64_t>(bt.rank()) - 2};
  check_contract(at, bt, d);
  return trace::dot_general(t, a, b, d, out, "dot_general");
}

// --- einsum -----------------------------------------------------------------------------------

struct Term {
  ValueId v;
  std::string labels;
};

// Sums out labels of `x` that nothing else needs.
Term sum_unneeded(Trace& t, Term x, const std::string& needed) {
  std::vector<int64_t> axes;
  std::string kept;
  for (size_t i = 0; i < x.labels.size(); ++i) {
    if (needed.find(x.labels[i]) == std::string::npos) axes.push_back(static_cast<int64_t>(i));
    else kept += x.labels[i];
  }
  if (axes.empty()) return x;
  return {trace::reduce(t, "einsum", ir::ReduceKind::Sum, x.v, axes, false), kept};
}

// out_sharding= names the einsum output's dims; the last dot_general produces them in the
// order batch + lhs free + rhs free (a transpose follows), so its spec is reordered to match.
sharding::OptOutSharding reorder_out(const sharding::OptOutSharding& out, const std::string& out_labels, const std::string& dot_labels) {
  if (!out || out_labels == dot_labels) return out;
  auto reorder = [&](const types::PartitionSpec& spec) {
    std::vector<types::PartitionSpec::Entry> entries;
    for (char c : dot_labels) {
      auto i = out_labels.find(c);
      entries.push_back(i < spec.size() ? spec[i] : types::PartitionSpec::Entry{});
    }
    return types::PartitionSpec(entries);
  };
  if (auto* p = std::get_if<types::PartitionSpec>(&*out)) return reorder(*p);
  const auto& ns = std::get<types::NamedSharding>(*out);
  return ns.with_spec(reorder(ns.spec()));
}

Term contract_pair(Trace& t, Term l, Term r, const std::string& keep, const sharding::OptOutSharding& out,
                   const std::string& out_labels = "") {
  l = sum_unneeded(t, l, keep + r.labels);
  r = sum_unneeded(t, r, keep + l.labels);
  DotDims d;
  std::string batch, lfree, rfree;
  for (size_t i = 0; i < l.labels.size(); ++i) {
    char c = l.labels[i];
    auto j = r.labels.find(c);
    if (j == std::string::npos) {
      lfree += c;
    } else if (keep.find(c) != std::string::npos) {
      d.lhs_batch.push_back(static_cast<int64_t>(i));
      d.rhs_batch.push_back(static_cast<int64_t>(j));
      batch += c;
    } else {
      d.lhs_contracting.push_back(static_cast<int64_t>(i));
      d.rhs_contracting.push_back(static_cast<int64_t>(j));
    }
  }
  for (char c : r.labels)
    if (l.labels.find(c) == std::string::npos) rfree += c;
  check_contract(t.type(l.v), t.type(r.v), d);
  const std::string labels = batch + lfree + rfree;
  return {trace::dot_general(t, l.v, r.v, d, reorder_out(out, out_labels.empty() ? labels : out_labels, labels), "dot_general"), labels};
}

struct EinsumSpec {
  std::vector<std::string> inputs;
  std::string output;
};

EinsumSpec parse_einsum(Interp& I, std::string spec, const std::vector<Value>& ops) {
  spec.erase(std::remove(spec.begin(), spec.end(), ' '), spec.end());
  if (spec.find("...") != std::string::npos) I.raise("NotImplementedError", "einsum with an ellipsis ('...') is not supported yet");
  EinsumSpec e;
  auto arrow = spec.find("->");
  std::string lhs = arrow == std::string::npos ? spec : spec.substr(0, arrow);
  size_t start = 0;
  while (true) {
    auto comma = lhs.find(',', start);
    e.inputs.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (e.inputs.size() != ops.size())
    I.raise("ValueError", fmt::format("einsum: {} operands given but the subscripts name {}", ops.size(), e.inputs.size()));
  std::map<char, int> count;
  std::map<char, int64_t> size;
  for (size_t k = 0; k < e.inputs.size(); ++k) {
    const auto& in = e.inputs[k];
    auto shape = is_array_like(ops[k]) ? type_of(ops[k]).shape() : Shape{};
    if (in.size() != shape.size())
      I.raise("ValueError", fmt::format("einsum() operand {} has {} dimensions but its subscripts '{}' name {}", k, shape.size(), in,
                                        in.size()));
    for (size_t i = 0; i < in.size(); ++i) {
      char c = in[i];
      if (!std::isalpha(static_cast<unsigned char>(c)))
        I.raise("ValueError", fmt::format("einsum(): invalid subscript '{}' in einstein sum subscripts string", c));
      if (in.find(c) != i)
        I.raise("NotImplementedError", fmt::format("einsum with a repeated subscript in one operand ('{}') is not supported yet", in));
      ++count[c];
      if (size.count(c) && size[c] != shape[i] && size[c] != 1 && shape[i] != 1)
        I.raise("ValueError", fmt::format("Size of label '{}' for operand {} ({}) does not match previous terms ({}).", c, k, shape[i],
                                          size[c]));
      size[c] = shape[i];
    }
  }
  if (arrow != std::string::npos) {
    e.output = spec.substr(arrow + 2);
    for (char c : e.output) {
      if (!count.count(c))
        I.raise("ValueError", fmt::format("einsum(): output subscript '{}' does not appear in the input subscripts", c));
      if (std::count(e.output.begin(), e.output.end(), c) > 1)
        I.raise("ValueError", fmt::format("einsum(): output subscript string contains '{}' more than once", c));
    }
  } else {
    for (auto& [c, n] : count)
      if (n == 1) e.output += c;
  }
  return e;
}

ValueId einsum_body(Trace& t, const EinsumSpec& e, const std::vector<ValueId>& ids, const sharding::OptOutSharding& out) {
  std::vector<Term> terms;
  for (size_t k = 0; k < ids.size(); ++k) terms.push_back({ids[k], e.inputs[k]});
  Term acc = terms[0];
  for (size_t k = 1; k < terms.size(); ++k) {
    std::string keep = e.output;
    for (size_t j = k + 1; j < terms.size(); ++j) keep += terms[j].labels;
    const bool last = k + 1 == terms.size();
    acc = contract_pair(t, acc, terms[k], keep, last ? out : std::nullopt, e.output);
  }
  acc = sum_unneeded(t, acc, e.output);
  if (acc.labels == e.output) {
    if (terms.size() == 1 && out) return trace::reshard(t, acc.v, out);
    return acc.v;
  }
  std::vector<int64_t> perm;
  for (char c : e.output) perm.push_back(static_cast<int64_t>(acc.labels.find(c)));
  ValueId r = trace::transpose(t, acc.v, perm);
  return out && terms.size() == 1 ? trace::reshard(t, r, out) : r;
}

}  // namespace

// ---- jax.numpy.linalg's array-API names ------------------------------------------------------

namespace {

Value call_jnp(Interp& I, const char* name, std::vector<Value> args, std::vector<std::pair<std::string, Value>> kwargs = {}) {
  Value fn = I.getattr(I.import_module("jax.numpy", I.current_loc()), name);
  CallArgs ca{std::move(args), std::move(kwargs), I.current_loc()};
  return I.call(fn, ca);
}

// Operands that are not arrays or scalars: JAX's ensure_arraylike message.
Value arraylike(Interp& I, const Value& v, const std::string& fn, size_t pos) {
  if (is_array_like(v) || python_scalar_type(v, false)) return v;
  I.raise("TypeError", fmt::format("{} requires ndarray or scalar arguments, got {} at position {}.", fn, I.type_name(v), pos));
}

size_t ndim_of(const Value& v) { return is_array_like(v) ? type_of(v).rank() : 0; }
Shape shape_of(const Value& v) { return is_array_like(v) ? type_of(v).shape() : Shape{}; }

// x.shape[axis] as Python indexes a tuple.
int64_t shape_at(Interp& I, const Shape& s, int64_t axis) {
  const int64_t n = static_cast<int64_t>(s.size());
  if (axis < -n || axis >= n) I.raise("IndexError", "tuple index out of range");
  return s[static_cast<size_t>(axis < 0 ? axis + n : axis)];
}

ValueId to_inexact_id(Trace& t, ValueId x) { return trace::convert(t, x, trace::to_inexact(dtw(t, x))); }

// x[..., i] over the last dim.
ValueId last_at(Trace& t, ValueId x, int64_t i) {
  const auto xt = t.type(x);
  const size_t r = xt.rank();
  Shape start(r, 0), limit = xt.shape(), strides(r, 1);
  start[r - 1] = i;
  limit[r - 1] = i + 1;
  Shape out = xt.shape();
  out.pop_back();
  return trace::reshape(t, trace::slice(t, x, start, limit, strides), out);
}

// The reduced dims of `axis` (None: all) over a rank-r array, for jnp's reductions.
std::vector<int64_t> reduced_dims(const std::optional<std::vector<int64_t>>& axis, size_t r) {
  std::vector<int64_t> dims;
  if (!axis) {
    for (size_t d = 0; d < r; ++d) dims.push_back(static_cast<int64_t>(d));
  } else {
    for (auto a : *axis) dims.push_back(trace::normalize_axis("vector_norm", a, r));
  }
  return dims;
}

ValueId sum_over(Trace& t, ValueId x, const std::vector<int64_t>& dims, bool keepdims) {
  if (dims.empty()) return x;  // axis=(): nothing reduced
  return trace::reduce(t, "reduce_sum", ir::ReduceKind::Sum, x, dims, keepdims);
}

// jnp.linalg.vector_norm: ord 2 (default, None too), inf, -inf, 0, 1 or any other number.
struct VectorOrd {
  enum Kind { Two, Inf, NegInf, Zero, One, Other } kind = Two;
  double p = 2;
};

ValueId vector_norm_body(Trace& t, ValueId x, const VectorOrd& ord, const std::optional<std::vector<int64_t>>& axis, bool keepdims) {
  const auto xt = t.type(x);
  const auto dims = reduced_dims(axis, xt.rank());
  auto abs = [&](ValueId v) { return trace::unary(t, "abs", EwOp::Abs, v); };
  switch (ord.kind) {
    case VectorOrd::Two: {
      ValueId sq = trace::binary(t, "mul", EwOp::Mul, x, x);
      return trace::unary(t, "sqrt", EwOp::Sqrt, sum_over(t, sq, dims, keepdims));
    }
    case VectorOrd::Inf:
    case VectorOrd::NegInf: {
      ValueId a = abs(x);
      if (dims.empty()) return a;
      bool empty = false;
      for (auto d : dims) empty = empty || xt.shape()[static_cast<size_t>(d)] == 0;
      if (empty) {
        if (ord.kind == VectorOrd::NegInf)
          throw types::ShardingError("ValueError", "zero-size array to reduction operation min which has no identity");
        ValueId r = sum_over(t, a, dims, keepdims);  // zeros of the reduced shape (amax's initial=0)
        return r;
      }
      if (ord.kind == VectorOrd::NegInf) return trace::reduce(t, "reduce_min", ir::ReduceKind::Min, a, dims, keepdims);
      ValueId mx = trace::reduce(t, "reduce_max", ir::ReduceKind::Max, a, dims, keepdims);
      return trace::binary(t, "max", EwOp::Max, mx, trace::scalar_constant(t, 0, {t.type(mx).dtype(), true}));
    }
    case VectorOrd::Zero: {
      ValueId nz = trace::binary(t, "ne", EwOp::Ne, x, trace::scalar_constant(t, 0, {xt.dtype(), true}));
      ValueId f = trace::convert(t, nz, trace::to_inexact({xt.dtype(), false}));
      return sum_over(t, f, dims, keepdims);
    }
    case VectorOrd::One: return sum_over(t, abs(x), dims, keepdims);
    case VectorOrd::Other: {
      ValueId a = abs(to_inexact_id(t, x));
      const DType d = t.type(a).dtype();
      ValueId p = trace::scalar_constant(t, ord.p, {d, false});
      ValueId s = sum_over(t, trace::binary(t, "pow", EwOp::Pow, a, p), dims, keepdims);
      return trace::binary(t, "pow", EwOp::Pow, s, trace::scalar_constant(t, 1.0 / ord.p, {d, false}));
    }
  }
  return x;
}

VectorOrd vector_ord(Interp& I, const Value& o) {
  VectorOrd ord;
  if (is_none(o)) return ord;
  if (o->kind == interp::ObjKind::Str) {
    const std::string s = I.str(o);
    std::string msg = fmt::format("Invalid order '{}' for vector norm.", s);
    if (s == "inf") msg += "Use 'jax.numpy.inf' instead.";
    if (s == "-inf") msg += "Use '-jax.numpy.inf' instead.";
    I.raise("ValueError", msg);
  }
  const double p = float_arg(I, o, "ord");
  ord.p = p;
  ord.kind = p == 2 ? VectorOrd::Two : p == INFINITY ? VectorOrd::Inf : p == -INFINITY ? VectorOrd::NegInf : p == 0 ? VectorOrd::Zero
             : p == 1 ? VectorOrd::One : VectorOrd::Other;
  return ord;
}

trace::NormOrder matrix_ord(Interp& I, const Value& o, const char* dflt) {
  trace::NormOrder ord;
  if (!o) ord.name = dflt;
  else if (is_none(o)) {}
  else if (o->kind == interp::ObjKind::Str) ord.name = I.str(o);
  else ord.value = float_arg(I, o, "ord");
  return ord;
}

std::string shapes_list(const std::vector<Value>& arrs) {
  std::vector<std::string> parts;
  for (auto& a : arrs) parts.push_back(types::py_int_tuple(shape_of(a)));
  return fmt::format("[{}]", fmt::join(parts, ", "));
}

// The cheapest order of a chain of matrix products (the classic O(n^3) dynamic program over
// the dims), multiplied in that order.
ValueId chain_product(Trace& t, const std::vector<ValueId>& ms, size_t i, size_t j, const std::vector<std::vector<size_t>>& split) {
  if (i == j) return ms[i];
  const size_t k = split[i][j];
  ValueId l = chain_product(t, ms, i, k, split);
  ValueId r = chain_product(t, ms, k + 1, j, split);
  return trace::matmul(t, l, r);
}

Value multi_dot(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "multi_dot", {"arrays", "*", "precision="});
  auto arrs = I.to_vector(p.get("arrays"));
  for (size_t i = 0; i < arrs.size(); ++i) arrs[i] = arraylike(I, arrs[i], "jnp.linalg.multi_dot", i);
  if (arrs.size() < 2) I.raise("ValueError", fmt::format("multi_dot requires at least two arrays; got len(arrays)={}", arrs.size()));
  bool ok = (ndim_of(arrs.front()) == 1 || ndim_of(arrs.front()) == 2) && (ndim_of(arrs.back()) == 1 || ndim_of(arrs.back()) == 2);
  for (size_t i = 1; i + 1 < arrs.size(); ++i) ok = ok && ndim_of(arrs[i]) == 2;
  if (!ok)
    I.raise("ValueError", fmt::format("multi_dot: input arrays must all be two-dimensional, except for the first and last array which may "
                                      "be 1 or 2 dimensional. Got array shapes {}", shapes_list(arrs)));
  for (size_t i = 0; i + 1 < arrs.size(); ++i)
    if (shape_of(arrs[i]).back() != shape_of(arrs[i + 1]).front())
      I.raise("ValueError", fmt::format("multi_dot: last dimension of each array must match first dimension of following array. Got array "
                                        "shapes {}", shapes_list(arrs)));
  return apply(I, "multi_dot", arrs, [&](Trace& t, const std::vector<ValueId>& ids) {
    std::vector<ValueId> ms = ids;
    const bool first_vec = t.type(ms.front()).rank() == 1, last_vec = t.type(ms.back()).rank() == 1;
    if (first_vec) ms.front() = trace::reshape(t, ms.front(), {1, t.type(ms.front()).shape()[0]});
    if (last_vec) ms.back() = trace::reshape(t, ms.back(), {t.type(ms.back()).shape()[0], 1});
    const size_t n = ms.size();
    std::vector<int64_t> dims;
    for (auto m : ms) dims.push_back(t.type(m).shape()[0]);
    dims.push_back(t.type(ms.back()).shape()[1]);
    std::vector<std::vector<double>> cost(n, std::vector<double>(n, 0));
    std::vector<std::vector<size_t>> split(n, std::vector<size_t>(n, 0));
    for (size_t len = 1; len < n; ++len)
      for (size_t i = 0; i + len < n; ++i) {
        const size_t j = i + len;
        cost[i][j] = INFINITY;
        for (size_t k = i; k < j; ++k) {
          const double c = cost[i][k] + cost[k + 1][j] + static_cast<double>(dims[i]) * dims[k + 1] * dims[j + 1];
          if (c < cost[i][j]) {
            cost[i][j] = c;
            split[i][j] = k;
          }
        }
      }
    ValueId r = chain_product(t, ms, 0, n - 1, split);
    Shape out = t.type(r).shape();
    if (first_vec || last_vec) {
      Shape s;
      if (!first_vec) s.push_back(out[0]);
      if (!last_vec) s.push_back(out[1]);
      r = trace::reshape(t, r, s);
    }
    return std::vector<ValueId>{r};
  });
}

Value lstsq(Interp& I, CallArgs& args) {
  ArgParser p(I, args, "lstsq", {"a", "b", "rcond=", "*", "numpy_resid="});
  Value av = arraylike(I, p.get("a"), "jnp.linalg.lstsq", 0), bv = arraylike(I, p.get("b"), "jnp.linalg.lstsq", 1);
  std::optional<double> rcond;
  if (!is_none(p.get("rcond"))) rcond = float_arg(I, p.get("rcond"), "rcond");
  const bool numpy_resid = np::bool_arg(I, p.get("numpy_resid"), false);
  const Shape as = shape_of(av), bs = shape_of(bv);
  if (shape_at(I, as, 0) != shape_at(I, bs, 0)) I.raise("ValueError", "Leading dimensions of input arrays must match");
  const size_t b_ndim = bs.size() == 1 ? 2 : bs.size();
  if (as.size() != 2) I.raise("TypeError", fmt::format("{}-dimensional array given. Array must be two-dimensional", as.size()));
  if (b_ndim != 2) I.raise("TypeError", fmt::format("{}-dimensional array given. Array must be one or two-dimensional", b_ndim));
  const int64_t m = as[0], n = as[1];
  auto r = apply_multi(I, "lstsq", {av, bv}, [&](Trace& t, const std::vector<ValueId>& ids) {
    const DTypeW common = trace::to_inexact(trace::promote(dtw(t, ids[0]), dtw(t, ids[1])));
    ValueId a = trace::convert(t, ids[0], common), b = trace::convert(t, ids[1], common);
    if (bs.size() == 1) b = trace::reshape(t, b, {bs[0], 1});
    const int64_t k = t.type(b).shape()[1];
    const DType dt = common.dtype;
    const double eps = dt == DType::F64 ? 0x1p-52 : dt == DType::F16 ? 0x1p-10 : dt == DType::BF16 ? 0x1p-7 : 0x1p-23;
    ValueId x, rank, s;
    if (m * n == 0) {
      s = trace::full(t, {0}, 0, {dt, false}, std::nullopt);
      rank = trace::full(t, {}, 0, {types::default_int_dtype(), false}, std::nullopt);
      x = trace::full(t, {n, k}, 0, {dt, false}, std::nullopt);
    } else {
      const double rc = !rcond ? eps * static_cast<double>(std::max(n, m)) : (*rcond < 0 ? eps : *rcond);
      auto d = trace::svd(t, a, false, true);
      s = d.s;
      ValueId s0 = last_at(t, s, 0);
      ValueId zero = trace::scalar_constant(t, 0, {dt, true});
      ValueId pos = trace::binary(t, "gt", EwOp::Gt, s, zero);
      ValueId cut = trace::binary(t, "mul", EwOp::Mul, trace::scalar_constant(t, rc, {dt, false}), s0);
      ValueId big = trace::binary(t, "ge", EwOp::Ge, s, cut);
      ValueId mask = trace::binary(t, "and", EwOp::And, pos, big);
      rank = trace::reduce(t, "reduce_sum", ir::ReduceKind::Sum, trace::convert(t, mask, {types::default_int_dtype(), false}), {0}, false);
      ValueId one = trace::scalar_constant(t, 1, {dt, true});
      ValueId safe_s = trace::where(t, mask, s, one);
      ValueId inv_s = trace::binary(t, "div", EwOp::Div, one, safe_s);
      ValueId s_inv = trace::where(t, mask, inv_s, zero);
      s_inv = trace::reshape(t, s_inv, {t.type(s_inv).shape()[0], 1});
      ValueId utb = trace::matmul(t, trace::transpose(t, d.u, {1, 0}), b);
      ValueId scaled = trace::binary(t, "mul", EwOp::Mul, s_inv, utb);
      x = trace::matmul(t, trace::transpose(t, d.vt, {1, 0}), scaled);
    }
    ValueId est = trace::matmul(t, a, x);
    ValueId diff = trace::binary(t, "sub", EwOp::Sub, b, est);
    ValueId sq = trace::binary(t, "mul", EwOp::Mul, diff, diff);
    ValueId resid = trace::reduce(t, "reduce_sum", ir::ReduceKind::Sum, sq, {0}, false);
    if (bs.size() == 1) x = trace::reshape(t, x, {n});
    return std::vector<ValueId>{x, resid, rank, s};
  });
  if (numpy_resid) {
    Value small = apply(I, "lstsq", {r[2]}, [&](Trace& t, const std::vector<ValueId>& ids) {
      ValueId lt = trace::binary(t, "lt", EwOp::Lt, ids[0], trace::scalar_constant(t, static_cast<double>(n), {t.type(ids[0]).dtype(), true}));
      ValueId wide = trace::scalar_constant(t, m <= n ? 1 : 0, {DType::Bool, false});
      return std::vector<ValueId>{trace::binary(t, "or", EwOp::Or, lt, wide)};
    });
    if (I.truthy(small))
      r[1] = apply(I, "lstsq", {}, [&](Trace& t, const std::vector<ValueId>&) {
        return std::vector<ValueId>{trace::full(t, {0}, 0, {types::default_float_dtype(), false}, std::nullopt)};
      });
  }
  return interp::make_tuple(r);
}

Value cond(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "cond", {"x", "p="});
  Value x = arraylike(I, p.get("x"), "cond", 0);
  const Shape s = shape_of(x);
  if (s.size() < 2) I.raise("ValueError", fmt::format("jnp.linalg.cond: input array must be at least 2D; got arr.shape={}", types::py_int_tuple(s)));
  if (s[s.size() - 1] == 0 || s[s.size() - 2] == 0)
    I.raise("ValueError", fmt::format("jnp.linalg.cond: input array must not be empty; got arr.shape={}", types::py_int_tuple(s)));
  Value pv = p.get("p");
  const bool is_str = pv && pv->kind == interp::ObjKind::Str;
  std::optional<double> pn;
  if (pv && !is_none(pv) && !is_str) pn = float_arg(I, pv, "p");
  const bool two = !pv || is_none(pv) || (pn && *pn == 2), minus_two = pn && *pn == -2;
  if (!two && !minus_two && s[s.size() - 1] != s[s.size() - 2])
    I.raise("ValueError", fmt::format("jnp.linalg.cond: for p={}, array must be square; got arr.shape={}", I.repr(pv), types::py_int_tuple(s)));
  trace::NormOrder ord;
  if (is_str) ord.name = I.str(pv);
  else if (pn) ord.value = *pn;
  return apply(I, "cond", {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
    ValueId v = to_inexact_id(t, ids[0]);
    const int64_t k = std::min(s[s.size() - 1], s[s.size() - 2]);
    ValueId r;
    if (two || minus_two) {
      ValueId sv = trace::svd(t, v, false, false).s;
      ValueId first = last_at(t, sv, 0);
      ValueId last = last_at(t, sv, k - 1);
      if (two) return std::vector<ValueId>{trace::binary(t, "div", EwOp::Div, first, last)};
      r = trace::binary(t, "div", EwOp::Div, last, first);
    } else {
      const std::vector<int64_t> axes = {-2, -1};
      ValueId n1 = trace::norm(t, v, ord, axes, false);
      ValueId n2 = trace::norm(t, trace::inv(t, v), ord, axes, false);
      r = trace::binary(t, "mul", EwOp::Mul, n1, n2);
    }
    ValueId r_nan = trace::unary(t, "isnan", EwOp::IsNan, r);
    ValueId x_nan = trace::reduce(t, "reduce_or", ir::ReduceKind::Max, trace::convert(t, trace::unary(t, "isnan", EwOp::IsNan, v), {DType::I32, false}),
                                  {-2, -1}, false);
    ValueId clean = trace::binary(t, "eq", EwOp::Eq, x_nan, trace::scalar_constant(t, 0, {DType::I32, true}));
    ValueId fix = trace::binary(t, "and", EwOp::And, r_nan, clean);
    ValueId inf = trace::scalar_constant(t, INFINITY, {t.type(r).dtype(), false});
    return std::vector<ValueId>{trace::where(t, fix, inf, r)};
  });
}

Value tensorinv(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "tensorinv", {"a", "ind="});
  Value x = arraylike(I, p.get("a"), "tensorinv", 0);
  Value iv = p.get("ind");
  int64_t ind = 2;
  if (iv) {
    if (!(iv->kind == interp::ObjKind::Int || iv->kind == interp::ObjKind::Bool))
      I.raise("TypeError", fmt::format("'{}' object cannot be interpreted as an integer", I.type_name(iv)));
    ind = int_arg(I, iv, "ind");
  }
  if (ind <= 0) I.raise("ValueError", fmt::format("ind must be a positive integer; got ind={}", ind));
  const Shape s = shape_of(x);
  const size_t cut = std::min(static_cast<size_t>(ind), s.size());
  const Shape contracting(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(cut)), batch(s.begin() + static_cast<std::ptrdiff_t>(cut), s.end());
  int64_t rows = 1, cols = 1;
  for (auto d : contracting) rows *= d;
  for (auto d : batch) cols *= d;
  if (rows != cols)
    I.raise("ValueError", fmt::format("tensorinv is only possible when the product of the first `ind` dimensions equals that of the remaining "
                                      "dimensions. got arr.shape={} with ind={}.", types::py_int_tuple(s), ind));
  return apply(I, "tensorinv", {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
    ValueId flat = trace::reshape(t, to_inexact_id(t, ids[0]), {rows, cols});
    Shape out = batch;
    out.insert(out.end(), contracting.begin(), contracting.end());
    return std::vector<ValueId>{trace::reshape(t, trace::inv(t, flat), out)};
  });
}

Value tensorsolve(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "tensorsolve", {"a", "b", "axes="});
  Value x = arraylike(I, p.get("a"), "tensorsolve", 0), y = arraylike(I, p.get("b"), "tensorsolve", 1);
  Shape as = shape_of(x);
  const Shape bs = shape_of(y);
  std::vector<int64_t> perm;
  for (size_t d = 0; d < as.size(); ++d) perm.push_back(static_cast<int64_t>(d));
  if (auto axes = axes_arg(I, p.get("axes"))) {
    for (auto ax : *axes) {
      const int64_t k = guarded(I, [&] { return trace::normalize_axis("tensorsolve", ax, as.size()); });
      auto it = std::find(perm.begin(), perm.end(), k);
      if (it == perm.end()) I.raise("ValueError", "repeated axis in tensorsolve's axes");
      perm.erase(it);
      perm.push_back(k);
    }
  }
  Shape moved;
  for (auto d : perm) moved.push_back(as[static_cast<size_t>(d)]);
  const Shape lead(moved.begin(), moved.begin() + static_cast<std::ptrdiff_t>(std::min(bs.size(), moved.size())));
  const Shape out(moved.begin() + static_cast<std::ptrdiff_t>(std::min(bs.size(), moved.size())), moved.end());
  if (lead != bs)
    I.raise("ValueError", fmt::format("After moving axes to end, leading shape of a must match shape of b. got a.shape={}, b.shape={}",
                                      types::py_int_tuple(moved), types::py_int_tuple(bs)));
  int64_t bsize = 1, osize = 1;
  for (auto d : bs) bsize *= d;
  for (auto d : out) osize *= d;
  if (bsize != osize)
    I.raise("ValueError", fmt::format("Input arrays must have prod(a.shape[:b.ndim]) == prod(a.shape[b.ndim:]); got a.shape={}, b.ndim={}.",
                                      types::py_int_tuple(moved), bs.size()));
  return apply(I, "tensorsolve", {x, y}, [&](Trace& t, const std::vector<ValueId>& ids) {
    const DTypeW common = trace::to_inexact(trace::promote(dtw(t, ids[0]), dtw(t, ids[1])));
    ValueId am = trace::transpose(t, trace::convert(t, ids[0], common), perm);
    am = trace::reshape(t, am, {bsize, osize});
    ValueId bm = trace::reshape(t, trace::convert(t, ids[1], common), {bsize});
    return std::vector<ValueId>{trace::reshape(t, trace::solve(t, am, bm), out)};
  });
}

// jnp.vecdot / jnp.linalg.vecdot: sum(x1 * x2) over `axis` (moved last), the other dims broadcast.
NativeFn vecdot(const char* fname) {
  return [fname](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "vecdot", {"x1", "x2", "*", "axis=", "precision=", "preferred_element_type="});
    Value x = arraylike(I, p.get("x1"), fname, 0), y = arraylike(I, p.get("x2"), fname, 1);
    const int64_t axis = p.get("axis") ? int_arg(I, p.get("axis"), "axis") : -1;
    const Shape xs = shape_of(x), ys = shape_of(y);
    if (shape_at(I, xs, axis) != shape_at(I, ys, axis))
      I.raise("ValueError", fmt::format("axes must match; got shapes {} and {} with axis={}", types::py_int_tuple(xs), types::py_int_tuple(ys), axis));
    auto pref = dtype_arg(I, p.get("preferred_element_type"));
    return apply(I, "vecdot", {x, y}, [&](Trace& t, const std::vector<ValueId>& ids) {
      ValueId l = trace::move_dim(t, ids[0], trace::normalize_axis("vecdot", axis, xs.size()), static_cast<int64_t>(xs.size()) - 1);
      ValueId r = trace::move_dim(t, ids[1], trace::normalize_axis("vecdot", axis, ys.size()), static_cast<int64_t>(ys.size()) - 1);
      ValueId prod = trace::binary(t, "mul", EwOp::Mul, l, r);
      ValueId s = trace::reduce(t, "reduce_sum", ir::ReduceKind::Sum, prod, {-1}, false);
      return std::vector<ValueId>{finish(t, s, pref)};
    });
  };
}

// jnp.matvec (signature (n,m),(m)->(n)) and jnp.vecmat ((n),(n,m)->(m)): matmul over the
// core dims, the others broadcast as jnp.vectorize broadcasts them.
NativeFn matvec_or_vecmat(bool matvec) {
  return [matvec](Interp& I, CallArgs& a) {
    const char* name = matvec ? "matvec" : "vecmat";
    ArgParser p(I, a, name, {"x1", "x2"});
    Value x = arraylike(I, p.get("x1"), "matvec", 0), y = arraylike(I, p.get("x2"), "matvec", 1);
    const std::string signature = matvec ? "(n,m),(m)->(n)" : "(n),(n,m)->(m)";
    const std::string context = fmt::format("on vectorized function with excluded=frozenset() and signature='{}'", signature);
    std::map<std::string, int64_t> sizes;
    auto parse = [&](const Shape& shape, const std::vector<std::string>& core) {
      if (shape.size() < core.size()) {
        std::vector<std::string> q;
        for (auto& c : core) q.push_back("'" + c + "'");
        I.raise("ValueError", fmt::format("input with shape {} does not have enough dimensions for all core dimensions ({}{}) {}",
                                          types::py_int_tuple(shape), fmt::join(q, ", "), q.size() == 1 ? "," : "", context));
      }
      for (size_t i = 0; i < core.size(); ++i) {
        const int64_t size = shape[shape.size() - core.size() + i];
        auto it = sizes.find(core[i]);
        if (it == sizes.end()) sizes[core[i]] = size;
        else if (it->second != size)
          I.raise("ValueError", fmt::format("inconsistent size for core dimension '{}': {} vs {} {}", core[i], size, it->second, context));
      }
    };
    if (matvec) {
      parse(shape_of(x), {"n", "m"});
      parse(shape_of(y), {"m"});
    } else {
      parse(shape_of(x), {"n"});
      parse(shape_of(y), {"n", "m"});
    }
    return apply(I, name, {x, y}, [&](Trace& t, const std::vector<ValueId>& ids) {
      if (matvec) {
        ValueId col = trace::expand_dims(t, ids[1], {-1});
        ValueId r = trace::linalg::matmul(t, ids[0], col);
        Shape s = t.type(r).shape();
        s.pop_back();
        return std::vector<ValueId>{trace::reshape(t, r, s)};
      }
      ValueId row = trace::expand_dims(t, ids[0], {-2});
      ValueId r = trace::linalg::matmul(t, row, ids[1]);
      Shape s = t.type(r).shape();
      s.erase(s.end() - 2);
      return std::vector<ValueId>{trace::reshape(t, r, s)};
    });
  };
}

void add_array_api_linalg(Interp&, ModuleObj& m) {
  def_jnp(m, "matrix_transpose", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "matrix_transpose", {"x"});
    Value x = arraylike(I, p.get("x"), "jnp.linalg.matrix_transpose", 0);
    if (ndim_of(x) < 2) I.raise("ValueError", fmt::format("matrix_transpose requires at least 2 dimensions; got ndim={}", ndim_of(x)));
    return call_jnp(I, "matrix_transpose", {x});
  });
  def_jnp(m, "outer", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "outer", {"x1", "x2"});
    Value x = arraylike(I, p.get("x1"), "jnp.linalg.outer", 0), y = arraylike(I, p.get("x2"), "jnp.linalg.outer", 1);
    if (ndim_of(x) != 1 || ndim_of(y) != 1)
      I.raise("ValueError", fmt::format("Input arrays must be one-dimensional, but they are x1.ndim={} x2.ndim={}", ndim_of(x), ndim_of(y)));
    return call_jnp(I, "outer", {x, y});
  });
  def_jnp(m, "cross", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "cross", {"x1", "x2", "*", "axis="});
    Value x = arraylike(I, p.get("x1"), "jnp.linalg.outer", 0), y = arraylike(I, p.get("x2"), "jnp.linalg.outer", 1);
    Value axis = p.get("axis") ? p.get("axis") : interp::make_int(-1);
    const int64_t ax = int_arg(I, axis, "axis");
    const int64_t nx = shape_at(I, shape_of(x), ax), ny = shape_at(I, shape_of(y), ax);
    if (nx != 3 || ny != 3)
      I.raise("ValueError", fmt::format("Both input arrays must be (arrays of) 3-dimensional vectors, but they have x1.shape[axis]={} and "
                                        "x2.shape[axis]={}", nx, ny));
    return call_jnp(I, "cross", {x, y}, {{"axis", axis}});
  });
  def_jnp(m, "matmul", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "matmul", {"x1", "x2", "*", "precision=", "preferred_element_type="});
    std::vector<std::pair<std::string, Value>> kw;
    if (p.get("preferred_element_type")) kw.push_back({"preferred_element_type", p.get("preferred_element_type")});
    return call_jnp(I, "matmul", {arraylike(I, p.get("x1"), "jnp.linalg.matmul", 0), arraylike(I, p.get("x2"), "jnp.linalg.matmul", 1)}, kw);
  });
  def_jnp(m, "tensordot", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "tensordot", {"x1", "x2", "*", "axes=", "precision=", "preferred_element_type=", "out_sharding="});
    std::vector<std::pair<std::string, Value>> kw;
    for (const char* k : {"axes", "preferred_element_type", "out_sharding"})
      if (p.get(k)) kw.push_back({k, p.get(k)});
    return call_jnp(I, "tensordot", {arraylike(I, p.get("x1"), "jnp.linalg.tensordot", 0), arraylike(I, p.get("x2"), "jnp.linalg.tensordot", 1)}, kw);
  });
  def_jnp(m, "trace", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "trace", {"x", "*", "offset=", "dtype="});
    std::vector<std::pair<std::string, Value>> kw = {{"axis1", interp::make_int(-2)}, {"axis2", interp::make_int(-1)}};
    if (p.get("offset")) kw.push_back({"offset", p.get("offset")});
    if (p.get("dtype")) kw.push_back({"dtype", p.get("dtype")});
    return call_jnp(I, "trace", {arraylike(I, p.get("x"), "jnp.linalg.trace", 0)}, kw);
  });
  def_jnp(m, "diagonal", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "diagonal", {"x", "*", "offset="});
    std::vector<std::pair<std::string, Value>> kw = {{"axis1", interp::make_int(-2)}, {"axis2", interp::make_int(-1)}};
    if (p.get("offset")) kw.push_back({"offset", p.get("offset")});
    return call_jnp(I, "diagonal", {arraylike(I, p.get("x"), "jnp.linalg.diagonal", 0)}, kw);
  });
  def_jnp(m, "vecdot", vecdot("jnp.linalg.vecdot"));
  def_jnp(m, "vector_norm", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "vector_norm", {"x", "*", "axis=", "keepdims=", "ord="});
    Value x = arraylike(I, p.get("x"), "jnp.linalg.vector_norm", 0);
    const VectorOrd ord = vector_ord(I, p.get("ord"));
    auto axis = axes_arg(I, p.get("axis"));
    const bool keepdims = np::bool_arg(I, p.get("keepdims"), false);
    return apply(I, "vector_norm", {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{vector_norm_body(t, ids[0], ord, axis, keepdims)};
    });
  });
  def_jnp(m, "matrix_norm", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "matrix_norm", {"x", "*", "keepdims=", "ord="});
    Value x = arraylike(I, p.get("x"), "jnp.linalg.matrix_norm", 0);
    const trace::NormOrder ord = matrix_ord(I, p.get("ord"), "fro");
    const bool keepdims = np::bool_arg(I, p.get("keepdims"), false);
    return apply(I, "matrix_norm", {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{trace::norm(t, to_inexact_id(t, ids[0]), ord, std::vector<int64_t>{-2, -1}, keepdims)};
    });
  });
  def_jnp(m, "cond", cond);
  def_jnp(m, "multi_dot", multi_dot);
  def_jnp(m, "lstsq", lstsq);
  def_jnp(m, "tensorinv", tensorinv);
  def_jnp(m, "tensorsolve", tensorsolve);
}

}  // namespace

Value jnp_dot(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "dot", {"a", "b", "*", "precision=", "preferred_element_type=", "out_sharding="});
  Value x = contraction_operand(I, p.get("a"), "dot", 0), y = contraction_operand(I, p.get("b"), "dot", 1);
  auto out = out_sharding_arg(I, p.get("out_sharding"));
  auto pref = preferred(I, p);
  return apply(I, "dot", {x, y}, [&](Trace& t, const std::vector<ValueId>& ids) {
    ValueId l = widen_operand(t, ids[0], pref);
    ValueId r = widen_operand(t, ids[1], pref);
    return std::vector<ValueId>{finish(t, dot_body(t, l, r, out), pref)};
  });
}

void add_jnp_linalg(Interp&, ModuleObj& m) {
  def_jnp(m, "dot", jnp_dot);
  def_jnp(m, "matmul", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "matmul", {"a", "b", "*", "precision=", "preferred_element_type=", "out_sharding="});
    Value x = contraction_operand(I, p.get("a"), "matmul", 0), y = contraction_operand(I, p.get("b"), "matmul", 1);
    auto r = op_matmul(I, x, y, out_sharding_arg(I, p.get("out_sharding")), "matmul");
    if (auto pref = preferred(I, p)) r = op_astype(I, r, storage_dtype(*pref, false));
    return r;
  });
  def_jnp(m, "vecdot", vecdot("jnp.vecdot"));
  // jnp.i0: jax.scipy.special's exp(|x|) bessel_i0e(x) (its derivative exp(|x|) i1e(x), JAX's).
  def_jnp(m, "i0", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "i0", {"x"});
    return apply(I, "i0", {contraction_operand(I, p.get("x"), "i0", 0)},
                 [](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{trace::bessel_i0(t, ids[0])}; });
  });
  def_jnp(m, "matvec", matvec_or_vecmat(true));
  def_jnp(m, "vecmat", matvec_or_vecmat(false));
  def_jnp(m, "vdot", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "vdot", {"a", "b", "*", "precision=", "preferred_element_type="});
    Value x = contraction_operand(I, p.get("a"), "vdot", 0), y = contraction_operand(I, p.get("b"), "vdot", 1);
    return apply(I, "vdot", {x, y}, [&](Trace& t, const std::vector<ValueId>& ids) {
      // the first operand conjugated (a complex vdot is sum(conj(a) * b))
      ValueId l = trace::reshape(t, trace::conj(t, ids[0]), {t.type(ids[0]).num_elements()});
      ValueId r = trace::reshape(t, ids[1], {t.type(ids[1]).num_elements()});
      return std::vector<ValueId>{dot_body(t, l, r, std::nullopt)};
    });
  });
  def_jnp(m, "inner", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "inner", {"a", "b", "*", "precision=", "preferred_element_type="});
    Value x = contraction_operand(I, p.get("a"), "inner", 0), y = contraction_operand(I, p.get("b"), "inner", 1);
    return apply(I, "inner", {x, y}, [&](Trace& t, const std::vector<ValueId>& ids) {
      auto at = t.type(ids[0]), bt = t.type(ids[1]);
      if (at.rank() == 0 || bt.rank() == 0) return std::vector<ValueId>{trace::binary(t, "mul", EwOp::Mul, ids[0], ids[1])};
      DotDims d;
      d.lhs_contracting = {static_cast<int64_t>(at.rank()) - 1};
      d.rhs_contracting = {static_cast<int64_t>(bt.rank()) - 1};
      check_contract(at, bt, d);
      return std::vector<ValueId>{trace::dot_general(t, ids[0], ids[1], d, std::nullopt, "dot_general")};
    });
  });
  def_jnp(m, "outer", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "outer", {"a", "b", "out="});
    Value x = contraction_operand(I, p.get("a"), "outer", 0), y = contraction_operand(I, p.get("b"), "outer", 1);
    return apply(I, "outer", {x, y}, [&](Trace& t, const std::vector<ValueId>& ids) {
      int64_t n = t.type(ids[0]).num_elements(), k = t.type(ids[1]).num_elements();
      ValueId l = trace::reshape(t, ids[0], {n, 1});
      ValueId r = trace::reshape(t, ids[1], {1, k});
      return std::vector<ValueId>{trace::binary(t, "mul", EwOp::Mul, l, r)};
    });
  });
  def_jnp(m, "tensordot", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "tensordot", {"a", "b", "axes=", "*", "precision=", "preferred_element_type=", "out_sharding="});
    Value x = contraction_operand(I, p.get("a"), "tensordot", 0), y = contraction_operand(I, p.get("b"), "tensordot", 1);
    auto xt = type_of(x), yt = type_of(y);
    DotDims d;
    Value axes = p.get("axes");
    if (is_none(axes) || interp::bi::int_of(axes)) {
      int64_t n = is_none(axes) ? 2 : *interp::bi::int_of(axes);
      if (n < 0 || n > static_cast<int64_t>(xt.rank()) || n > static_cast<int64_t>(yt.rank()))
        I.raise("TypeError", fmt::format("Number of tensordot axes (axes {}) exceeds input ranks ({} and {})", n, xt.rank(), yt.rank()));
      for (int64_t i = 0; i < n; ++i) {
        d.lhs_contracting.push_back(static_cast<int64_t>(xt.rank()) - n + i);
        d.rhs_contracting.push_back(i);
      }
    } else {
      auto pair = I.to_vector(axes);
      if (pair.size() != 2) I.raise("TypeError", "tensordot axes argument must be an int or a pair of sequences");
      auto la = axes_arg(I, pair[0]), ra = axes_arg(I, pair[1]);
      if (la->size() != ra->size())
        I.raise("TypeError", fmt::format("tensordot requires axes lists to have equal length, got {} and {}.", I.repr(pair[0]),
                                         I.repr(pair[1])));
      for (size_t i = 0; i < la->size(); ++i) {
        d.lhs_contracting.push_back(guarded(I, [&] { return trace::normalize_axis("tensordot", (*la)[i], xt.rank()); }));
        d.rhs_contracting.push_back(guarded(I, [&] { return trace::normalize_axis("tensordot", (*ra)[i], yt.rank()); }));
      }
    }
    auto out = out_sharding_arg(I, p.get("out_sharding"));
    auto pref = preferred(I, p);
    return apply(I, "tensordot", {x, y}, [&](Trace& t, const std::vector<ValueId>& ids) {
      check_contract(t.type(ids[0]), t.type(ids[1]), d);
      ValueId l = widen_operand(t, ids[0], pref);
      ValueId r = widen_operand(t, ids[1], pref);
      return std::vector<ValueId>{finish(t, trace::dot_general(t, l, r, d, out, "dot_general"), pref)};
    });
  });
  def_jnp(m, "einsum", [](Interp& I, CallArgs& a) {
    if (a.args.empty() || a.args[0]->kind != interp::ObjKind::Str)
      I.raise("TypeError", "einsum: the first argument must be a subscripts string (the interleaved form is not supported)");
    std::string spec = static_cast<interp::StrObj&>(*a.args[0]).v;
    std::vector<Value> ops;
    for (size_t i = 1; i < a.args.size(); ++i) ops.push_back(contraction_operand(I, a.args[i], "einsum", i - 1));
    if (ops.empty()) I.raise("ValueError", "einsum: at least one operand is required");
    sharding::OptOutSharding out;
    std::optional<DType> pref;
    for (auto& [k, v] : a.kwargs) {
      if (k == "out_sharding" || k == "_dot_general_out_sharding") out = out_sharding_arg(I, v);
      else if (k == "preferred_element_type") pref = dtype_arg(I, v);
      else if (k == "optimize" || k == "precision") continue;
      else I.raise("TypeError", fmt::format("einsum() got an unexpected keyword argument '{}'", k));
    }
    auto e = parse_einsum(I, spec, ops);
    return apply(I, "einsum", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
      std::vector<ValueId> wide;
      for (ValueId v : ids) wide.push_back(widen_operand(t, v, pref));
      return std::vector<ValueId>{finish(t, einsum_body(t, e, wide, out), pref)};
    });
  });
}

// jax.numpy.linalg: norm (vector and matrix norms of every order) and the
// decompositions and solvers of linalg_module.cpp.
// The array-API names (matrix_transpose, outer, cross, matmul, tensordot, trace, diagonal,
// vecdot, vector_norm, matrix_norm) and cond, multi_dot, lstsq, tensorinv, tensorsolve follow
// JAX's jax/_src/numpy/linalg.py.
void register_jnp_linalg_module() {
  Interp::register_builtin_module("jax.numpy.linalg", [](Interp& I, ModuleObj& m) {
    add_jnp_linalg_decompositions(I, m);
    add_array_api_linalg(I, m);
    def_jnp(m, "norm", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "norm", {"x", "ord=", "axis=", "keepdims="});
      trace::NormOrder ord;
      if (Value o = p.get("ord"); !is_none(o)) {
        if (o->kind == interp::ObjKind::Str) ord.name = I.str(o);
        else ord.value = float_arg(I, o, "ord");
      }
      auto axes = axes_arg(I, p.get("axis"));
      bool keepdims = p.has("keepdims") && I.truthy(p.get("keepdims"));
      Value x = contraction_operand(I, p.get("x"), "norm", 0);
      return apply(I, "norm", {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
        ValueId v = trace::convert(t, ids[0], trace::to_inexact(dtw(t, ids[0])));
        return std::vector<ValueId>{trace::norm(t, v, ord, axes, keepdims)};
      });
    });
  });
}

// numpy.einsum on host arrays: the jnp parser and contraction body, operands first brought
// to numpy's result dtype.
namespace np {

void add_contraction_functions(Interp&, ModuleObj& m) {
  add(m, "einsum", [](Interp& I, CallArgs& a) {
    if (a.args.empty() || a.args[0]->kind != interp::ObjKind::Str)
      I.raise("TypeError", "einsum: the first argument must be a subscripts string (the interleaved form is not supported)");
    std::string spec = static_cast<interp::StrObj&>(*a.args[0]).v;
    std::vector<Operand> ops;
    for (size_t i = 1; i < a.args.size(); ++i) ops.push_back(operand(I, a.args[i]));
    if (ops.empty()) I.raise("ValueError", "No input operands");
    std::optional<DType> dt;
    for (auto& [k, v] : a.kwargs) {
      if (k == "dtype") dt = dtype_arg(I, v);
      else if (k == "optimize" || k == "order" || k == "casting" || k == "out") continue;
      else I.raise("TypeError", fmt::format("einsum() got an unexpected keyword argument '{}'", k));
    }
    std::vector<Value> vals;
    std::vector<exec::ArrayRef> ins;
    for (auto& o : ops) {
      vals.push_back(wrap(o.array, true));
      ins.push_back(o.array);
    }
    auto e = parse_einsum(I, spec, vals);
    DType common = dt.value_or(result_type(ops));
    return result(run1(I, "einsum", ins, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      std::vector<ValueId> xs;
      for (auto id : ids) xs.push_back(cast(t, id, common));
      return std::vector<ValueId>{einsum_body(t, e, xs, std::nullopt)};
    }));
  });
}

}  // namespace np

}  // namespace shard::api
