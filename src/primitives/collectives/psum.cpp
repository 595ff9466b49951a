// psum, pmax, pmin (IR all_reduce) and pmean: reduce over the named manual axes. The result
// no longer varies over them; its shape and layout are the operand's.
#include <fmt/format.h>

#include "primitives/collectives/common.hpp"

namespace shard {

using primitives::collectives::contains;
using primitives::collectives::rule_ctx;
using primitives::collectives::vmap_axes_size;

types::ArrayType sharding::propagate_psum(const RuleContext& ctx, const ArrayType& x, const AxisNames& axes) {
  primitives::collectives::bound_axes_size(ctx, axes);
  reject_unreduced(ctx, {x});
  AxisNames vma;
  if (ctx.check_vma)
    for (const auto& a : x.vma())
      if (!contains(axes, a)) vma.push_back(a);
  return primitives::collectives::result(ctx, x, x.shape(), spec_entries(x), vma);
}

namespace trace {

ValueId all_reduce(Trace& t, const std::string& name, ir::ReduceKind kind, ValueId x, const types::AxisNames& axes) {
  ir::attr::AllReduce a;
  a.kind = kind;
  a.axes = axes;
  if (vmap_axes_size(axes, name)) return t.emit(ir::OpKind::AllReduce, {x}, t.type(x), a);  // resolved by batching
  return t.emit(ir::OpKind::AllReduce, {x}, sharding::propagate_psum(rule_ctx(t, name), t.type(x), axes), a);
}

ValueId pmean(Trace& t, ValueId x, const types::AxisNames& axes) {
  ValueId s = all_reduce(t, "pmean", ir::ReduceKind::Sum, x, axes);
  auto vn = vmap_axes_size(axes, "pmean");
  auto n = static_cast<double>(vn ? *vn : t.mesh().axes_size(axes));
  return binary(t, "div", ir::EwOp::Div, s, scalar_constant(t, n, {types::DType::I32, true}));
}

}  // namespace trace

namespace autodiff {

JvpOut jvp_AllReduce(JvpArgs& a) {
  const auto& r = a.op.attr<ir::attr::AllReduce>();
  if (r.kind != ir::ReduceKind::Sum)
    unsupported(fmt::format("differentiation of {} is not supported yet (psum is)", ir::all_reduce_name(r.kind)));
  return jvp_linear_unary(a);
}

// psum's operand varies over axes its result does not: the cotangent comes back varying
// (pvary). An operand that did not vary (or no VMA tracking, check_vma=False) was summed
// n times over, so its cotangent is the psum of the result's.
std::vector<Tangent> transpose_AllReduce(TransposeArgs& a) {
  const auto& r = a.op.attr<ir::attr::AllReduce>();
  const ArrayType in = a.operand_type(0), res = a.result_type();
  ValueId ct = a.ct_value();
  types::AxisNames dropped;
  for (auto& ax : in.vma())
    if (!contains(res.vma(), ax)) dropped.push_back(ax);
  if (!dropped.empty()) return {trace::pvary(a.t, ct, dropped)};
  return {trace::all_reduce(a.t, "psum", ir::ReduceKind::Sum, ct, r.axes)};
}

}  // namespace autodiff

namespace batching {

// Over the vmap axis: a reduction over the batch dim (the same for every lane); of an
// unbatched value, psum is size times it.
std::vector<Batched> batch_AllReduce(BatchArgs& a) {
  const auto& r = a.op.attr<ir::attr::AllReduce>();
  Trace& t = a.t;
  if (names_batch_axis(a)) {
    if (r.axes.size() != 1) unsupported("a collective over a vmap axis and other axes together is not supported yet");
    const Batched& x = a.x[0];
    if (x.batched) return {{trace::reduce(t, ir::reduce_kind_name(r.kind), r.kind, x.value, {0}, false), false}};
    if (r.kind != ir::ReduceKind::Sum) return {{x.value, false}};
    return {{trace::binary(t, "mul", ir::EwOp::Mul, x.value, trace::scalar_constant(t, static_cast<double>(a.size), {t.type(x.value).dtype(), true})), false}};
  }
  if (primitives::collectives::names_other_vmap_axis(a)) return {batched(t.emit(ir::OpKind::AllReduce, {a.x[0].value}, t.type(a.x[0].value), r))};
  return {batched(trace::all_reduce(t, ir::all_reduce_name(r.kind), r.kind, a.x[0].value, r.axes))};
}

}  // namespace batching

// The ledger states the buffer size, which is what the user can act on (a ring all-reduce
// moves about 2(n-1)/n of it into each device).
primitives::BlockEffect primitives::on_block(const ir::attr::AllReduce&, const types::Shape& block, int64_t) {
  return {block, types::shape_product(block)};
}

}  // namespace shard
