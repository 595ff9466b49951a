// Rules of reductions, cumulative ops, sort and dot_general.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "autodiff/rules.hpp"

namespace shard::autodiff {

using ir::EwOp;
using ir::OpKind;
using ir::ReduceKind;

namespace {
// A reduction's result broadcast back over the reduced axes (to the operand's shape).
ValueId unreduce(Trace& t, ValueId r, const ArrayType& operand, const std::vector<int64_t>& axes) {
  std::vector<int64_t> kept;
  for (size_t d = 0; d < operand.rank(); ++d)
    if (std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) == axes.end()) kept.push_back(static_cast<int64_t>(d));
  return trace::broadcast_in_dim(t, r, operand.shape(), kept, pinned_sharding(t, operand));
}
}  // namespace

JvpOut jvp_Reduce(JvpArgs& a) {
  Trace& t = a.t;
  const auto& r = a.op.attr<ir::attr::Reduce>();
  JvpOut out = emit_primal(a);
  const ValueId x = a.x[0], y = out.y[0], dx = *a.dx[0];
  switch (r.kind) {
    case ReduceKind::Sum: out.dy[0] = emit_like1(t, a.fn, a.op, {dx}); break;
    case ReduceKind::Max:
    case ReduceKind::Min: {
      // JAX's rule: the tangent averaged over the positions that attain the extremum.
      ValueId at = trace::convert(t, trace::binary(t, "eq", EwOp::Eq, x, unreduce(t, y, a.operand_type(0), r.axes)),
                                  {t.type(x).dtype(), false});
      ValueId count = trace::reduce(t, "reduce_sum", ReduceKind::Sum, at, r.axes, false);
      out.dy[0] = div(t, trace::reduce(t, "reduce_sum", ReduceKind::Sum, mul(t, dx, at), r.axes, false), count);
      break;
    }
    case ReduceKind::Prod: {
      // d prod = sum(dx * prod / x); exact where no element is zero.
      ValueId others = div(t, unreduce(t, y, a.operand_type(0), r.axes), x);
      ir::attr::Reduce sum = r;
      sum.kind = ReduceKind::Sum;
      out.dy[0] = t.emit(OpKind::Reduce, {mul(t, dx, others)}, a.result_type(), sum);
      break;
    }
    case ReduceKind::And:
    case ReduceKind::Or: break;
  }
  return out;
}

std::vector<Tangent> transpose_Reduce(TransposeArgs& a) {
  const auto& r = a.op.attr<ir::attr::Reduce>();
  if (r.kind != ReduceKind::Sum) throw std::logic_error("internal error: a non-sum reduction in a linear program");
  return {unreduce(a.t, a.ct_value(), a.operand_type(0), r.axes)};
}

JvpOut jvp_ArgReduce(JvpArgs& a) { return emit_primal(a); }  // integer results

namespace {
// cummax / cummin: each output is the input element where the running extremum was (first)
// reached, so its tangent is that element's: one-hot(k_i == j) applied to dx along the axis,
// k = the running index of the extremum (a new extremum marks its own index, a cummax of the
// marks carries it on). Quadratic in the axis length, linear in dx.
ValueId cumulative_extremum_tangent(Trace& t, ValueId x, ValueId dx, const ir::attr::Cumulative& c) {
  const ArrayType xt = t.type(x);
  const auto rank = static_cast<int64_t>(xt.rank());
  const int64_t ax = c.axis, n = xt.shape()[static_cast<size_t>(ax)];
  if (c.reverse) {  // from the end: the same on the reversed axis
    ir::attr::Cumulative fwd = c;
    fwd.reverse = false;
    ValueId x_rev = trace::rev(t, x, {ax});
    ValueId dx_rev = trace::rev(t, dx, {ax});
    return trace::rev(t, cumulative_extremum_tangent(t, x_rev, dx_rev, fwd), {ax});
  }
  const ir::EwOp better = c.kind == ReduceKind::Max ? EwOp::Gt : EwOp::Lt;
  ValueId run = trace::cumulative(t, c.kind == ReduceKind::Max ? "cummax" : "cummin", c.kind, x, ax);
  // The running extremum before each element (the element itself at index 0).
  types::Shape lo(static_cast<size_t>(rank), 0), hi(static_cast<size_t>(rank), 0);
  lo[static_cast<size_t>(ax)] = 1;
  types::Shape limit = xt.shape();
  limit[static_cast<size_t>(ax)] = n - 1;
  ValueId run_head = trace::slice(t, run, types::Shape(static_cast<size_t>(rank), 0), limit, {});
  ValueId identity = scalar_like(t, c.kind == ReduceKind::Max ? -INFINITY : INFINITY, x);
  ValueId before = trace::pad(t, run_head, identity, lo, hi);
  ValueId idx = trace::iota(t, types::DType::I32, xt.shape(), ax, xt.is_sharded() ? sharding::OptOutSharding(sharding::OutSharding{xt.spec()}) : std::nullopt);
  ValueId is_first = trace::binary(t, "eq", EwOp::Eq, idx, trace::scalar_constant(t, 0, {types::DType::I32, false}));
  ValueId is_better = trace::binary(t, "cmp", better, x, before);
  ValueId is_new = trace::binary(t, "or", EwOp::Or, is_first, is_better);
  ValueId marks = trace::where(t, is_new, idx, trace::scalar_constant(t, -1, {types::DType::I32, false}));
  ValueId k = trace::cumulative(t, "cummax", ReduceKind::Max, marks, ax);
  // onehot[..., i, ..., j] = (k_i == j), j a new last dim; dy_i = sum_j onehot * dx_j.
  types::Shape wide = xt.shape();
  wide.push_back(n);
  std::vector<int64_t> keep(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) keep[static_cast<size_t>(d)] = d;
  ValueId kb = trace::broadcast_in_dim(t, k, wide, keep);
  ValueId jj = trace::iota(t, types::DType::I32, wide, rank, std::nullopt);
  ValueId onehot = trace::convert(t, trace::binary(t, "eq", EwOp::Eq, kb, jj), {xt.dtype(), false});
  // dx's axis becomes j (the last dim); its other dims stay: move the axis last, then broadcast.
  std::vector<int64_t> dx_dims;
  for (int64_t d = 0; d < rank; ++d)
    if (d != ax) dx_dims.push_back(d);
  dx_dims.push_back(rank);
  ValueId dxb = trace::broadcast_in_dim(t, trace::move_dim(t, dx, ax, rank - 1), wide, dx_dims);
  return trace::reduce(t, "reduce_sum", ReduceKind::Sum, mul(t, onehot, dxb), {rank}, false);
}
}  // namespace

JvpOut jvp_Cumulative(JvpArgs& a) {
  Trace& t = a.t;
  const auto& c = a.op.attr<ir::attr::Cumulative>();
  JvpOut out = emit_primal(a);
  const ValueId dx = *a.dx[0];
  switch (c.kind) {
    case ReduceKind::Sum: out.dy[0] = emit_like1(t, a.fn, a.op, {dx}); break;
    case ReduceKind::Prod: {
      // d cumprod = cumprod * cumsum(dx / x); exact where no element is zero.
      ir::attr::Cumulative sum = c;
      sum.kind = ReduceKind::Sum;
      ValueId s = t.emit(OpKind::Cumulative, {div(t, dx, a.x[0])}, a.result_type(), sum);
      out.dy[0] = mul(t, s, out.y[0]);
      break;
    }
    case ReduceKind::Max:
    case ReduceKind::Min: out.dy[0] = cumulative_extremum_tangent(t, a.x[0], dx, c); break;
    default:
      unsupported(fmt::format("differentiation of cum{} is not supported", ir::reduce_kind_name(c.kind)));
  }
  return out;
}

std::vector<Tangent> transpose_Cumulative(TransposeArgs& a) {
  ir::attr::Cumulative c = a.op.attr<ir::attr::Cumulative>();
  if (c.kind != ReduceKind::Sum) throw std::logic_error("internal error: a non-sum cumulative op in a linear program");
  c.reverse = !c.reverse;  // each element feeds every later partial sum
  ValueId ct = a.ct_value();
  return {a.t.emit(OpKind::Cumulative, {ct}, a.t.type(ct), c)};
}

namespace {
ValueId lane_iota(Trace& t, const ArrayType& like, int64_t axis) {
  return trace::iota(t, types::DType::I32, like.shape(), axis, like.is_sharded() ? sharding::OptOutSharding(sharding::OutSharding{like.spec()}) : std::nullopt);
}
}  // namespace

// sort: the primal sort carries an iota along, which gives each sorted position's source;
// a tangent moves as its primal did, by a sort keyed on the inverse permutation (linear in
// the tangent, with a known key).
JvpOut jvp_Sort(JvpArgs& a) {
  Trace& t = a.t;
  const auto& s = a.op.attr<ir::attr::Sort>();
  std::vector<ValueId> ops = a.x;
  ops.push_back(lane_iota(t, a.operand_type(0), s.dimension));
  auto sorted = trace::sort_multi(t, ops, s.dimension, s.num_keys);
  JvpOut out;
  out.y.assign(sorted.begin(), sorted.end() - 1);
  const ValueId source = sorted.back();
  const ValueId inverse = trace::sort_multi(t, {source, lane_iota(t, a.operand_type(0), s.dimension)}, s.dimension, 1).at(1);
  for (size_t i = 0; i < a.x.size(); ++i)
    out.dy.push_back(a.dx[i] ? Tangent(trace::sort_multi(t, {inverse, *a.dx[i]}, s.dimension, 1).at(1)) : std::nullopt);
  return out;
}

// A payload moved by known keys: its cotangent moves back, sorted by the keys' order.
std::vector<Tangent> transpose_Sort(TransposeArgs& a) {
  Trace& t = a.t;
  const auto& s = a.op.attr<ir::attr::Sort>();
  for (int64_t k = 0; k < s.num_keys; ++k)
    if (a.linear[static_cast<size_t>(k)]) throw std::logic_error("internal error: sort keys in a linear program");
  std::vector<ValueId> keys(a.x.begin(), a.x.begin() + s.num_keys);
  keys.push_back(lane_iota(t, a.operand_type(0), s.dimension));
  const ValueId order = trace::sort_multi(t, keys, s.dimension, s.num_keys).back();
  std::vector<Tangent> out(a.op.operands.size());
  for (size_t i = static_cast<size_t>(s.num_keys); i < a.op.operands.size(); ++i)
    if (a.linear[i]) out[i] = trace::sort_multi(t, {order, a.ct_value(i)}, s.dimension, 1).at(1);
  return out;
}

JvpOut jvp_DotGeneral(JvpArgs& a) {
  JvpOut out = emit_primal(a);
  Tangent d0, d1;
  if (a.dx[0]) d0 = emit_like1(a.t, a.fn, a.op, {*a.dx[0], a.x[1]});
  if (a.dx[1]) d1 = emit_like1(a.t, a.fn, a.op, {a.x[0], *a.dx[1]});
  out.dy[0] = add_tangents(a.t, d0, d1);
  return out;
}

namespace {
std::vector<int64_t> remaining(size_t rank, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> out;
  for (size_t d = 0; d < rank; ++d) {
    const auto i = static_cast<int64_t>(d);
    if (std::find(a.begin(), a.end(), i) == a.end() && std::find(b.begin(), b.end(), i) == b.end()) out.push_back(i);
  }
  return out;
}
std::vector<int64_t> range(int64_t from, size_t n) {
  std::vector<int64_t> r(n);
  std::iota(r.begin(), r.end(), from);
  return r;
}

// The cotangent of a reduced operand x is a partial sum over its reduced axes. When the
// transpose's contraction (the result cotangent's dims `ct_dims` with y's `y_dims`) is sharded
// identically over exactly those axes, the per-device products are such partial sums, so no
// all-reduce is needed (JAX's deferred reduction). Returns those axes, or none.
std::vector<std::string> reduced_operand_partial_sums(const ArrayType& ct, const ArrayType& yt, const ArrayType& x,
                                                      const std::vector<int64_t>& ct_dims, const std::vector<int64_t>& y_dims) {
  if (x.spec().reduced().empty()) return {};
  std::vector<std::string> axes;
  for (size_t i = 0; i < ct_dims.size(); ++i) {
    const auto& a = ct.spec()[static_cast<size_t>(ct_dims[i])];
    if (a != yt.spec()[static_cast<size_t>(y_dims[i])]) return {};
    axes.insert(axes.end(), a.begin(), a.end());
  }
  std::sort(axes.begin(), axes.end());
  return axes == x.spec().reduced() ? axes : std::vector<std::string>{};
}

// The cotangent of dot_general's operand x (the other is y), as JAX's
// _dot_general_transpose_lhs: contract the result cotangent with y over y's free dims, then
// put x's dims back in order. `swap` when x is the right-hand operand (its free dims come
// last in the result). The contraction is pinned to x's sharding, so the cotangent has x's
// type and no ambiguous-sharding error can come from the transpose.
ValueId dot_transpose(Trace& t, ValueId ct, const ArrayType& x, ValueId y, const ArrayType& yt, const std::vector<int64_t>& x_contract,
                      const std::vector<int64_t>& y_contract, const std::vector<int64_t>& x_batch, const std::vector<int64_t>& y_batch,
                      bool swap, bool x_is_input) {
  auto x_kept = remaining(x.rank(), x_contract, x_batch);
  auto y_kept = remaining(yt.rank(), y_contract, y_batch);
  const auto nb = static_cast<int64_t>(x_batch.size());
  std::vector<int64_t> ans_batch = range(0, x_batch.size());
  std::vector<int64_t> ans_y = swap ? range(nb, y_kept.size()) : range(nb + static_cast<int64_t>(x_kept.size()), y_kept.size());
  sharding::DotDims dims{ans_y, y_kept, ans_batch, y_batch};
  // x's contracting dims in the order of y's.
  std::vector<size_t> order(y_contract.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t i, size_t j) { return y_contract[i] < y_contract[j]; });
  std::vector<int64_t> pre = x_batch;  // x's dim at each position of the product
  pre.insert(pre.end(), x_kept.begin(), x_kept.end());
  for (auto i : order) pre.push_back(x_contract[i]);
  // With y as the left operand the product's dims come as [batch, x's contracting dims, x's
  // free dims]; when that is x's own order, no transpose (a copy) is needed after.
  std::vector<int64_t> pre_swapped = x_batch;
  for (auto i : order) pre_swapped.push_back(x_contract[i]);
  pre_swapped.insert(pre_swapped.end(), x_kept.begin(), x_kept.end());
  const bool swapped = !std::is_sorted(pre.begin(), pre.end()) && std::is_sorted(pre_swapped.begin(), pre_swapped.end());
  if (swapped) {
    pre = pre_swapped;
    dims = sharding::DotDims{y_kept, ans_y, y_batch, ans_batch};
  }
  sharding::OptOutSharding out_sharding;
  if (auto pinned = pinned_sharding(t, x)) {
    std::vector<types::PartitionSpec::Entry> entries;
    for (auto d : pre) entries.push_back(x.spec()[static_cast<size_t>(d)]);
    // A reduced x that is an input of the linear function gets its partial sums as they are
    // (they only meet other cotangents of x, which add_tangents splits alike). Inside, the
    // cotangent flows on through ops that need whole values: there x keeps its reduced axes
    // (the product is all-reduced, replicated over them) and fit_type splits the final
    // cotangent.
    auto partial = x_is_input ? reduced_operand_partial_sums(t.type(ct), yt, x, ans_y, y_kept) : std::vector<std::string>{};
    out_sharding = sharding::OutSharding{types::PartitionSpec(entries, partial, partial.empty() ? x.spec().reduced() : std::vector<std::string>{})};
  }
  ValueId prod = swapped ? trace::dot_general(t, y, ct, dims, out_sharding) : trace::dot_general(t, ct, y, dims, out_sharding);
  std::vector<int64_t> perm(pre.size());  // argsort(pre)
  std::iota(perm.begin(), perm.end(), 0);
  std::sort(perm.begin(), perm.end(), [&](int64_t i, int64_t j) { return pre[static_cast<size_t>(i)] < pre[static_cast<size_t>(j)]; });
  return trace::transpose(t, prod, perm);
}
}  // namespace

std::vector<Tangent> transpose_DotGeneral(TransposeArgs& a) {
  const auto& d = a.op.attr<ir::attr::DotGeneral>();
  if (a.linear[0] && a.linear[1]) throw std::logic_error("internal error: a product of two tangents");
  ValueId ct = a.ct_value();
  std::vector<Tangent> out(2);
  auto is_input = [&](size_t i) { return std::find(a.fn.params.begin(), a.fn.params.end(), a.op.operands.at(i)) != a.fn.params.end(); };
  if (a.linear[0])
    out[0] = dot_transpose(a.t, ct, a.operand_type(0), a.x[1], a.operand_type(1), d.lhs_contracting, d.rhs_contracting, d.lhs_batch,
                           d.rhs_batch, false, is_input(0));
  else
    out[1] = dot_transpose(a.t, ct, a.operand_type(1), a.x[0], a.operand_type(0), d.rhs_contracting, d.lhs_contracting, d.rhs_batch,
                           d.lhs_batch, true, is_input(1));
  return out;
}

}  // namespace shard::autodiff
