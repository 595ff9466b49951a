// Binds each op kind to its rules, and the helpers the rules share.
#include <fmt/format.h>

#include "autodiff/rules.hpp"
#include "ir/builder.hpp"

namespace shard::autodiff {

using ir::EwOp;
using ir::OpKind;

JvpRule jvp_rule(OpKind k) {
  switch (k) {
#define X(e, n, a, r, l, lin) \
  case OpKind::e: return &jvp_##e;
    SHARD_IR_OPS(X)
#undef X
  }
  return nullptr;
}

TransposeRule transpose_rule(OpKind k) {
  switch (k) {
#define SHARD_TRANSPOSE_CASE_Linear(e) \
  case OpKind::e: return &transpose_##e;
#define SHARD_TRANSPOSE_CASE_Nonlinear(e)
#define X(e, n, a, r, l, lin) SHARD_TRANSPOSE_CASE_##lin(e)
    SHARD_IR_OPS(X)
#undef X
    default: return nullptr;
  }
}

bool is_differentiable(const ArrayType& t) { return types::is_inexact(t.dtype()); }

void unsupported(const std::string& what) { throw types::ShardingError("NotImplementedError", what); }

ValueId emit_like1(Trace& t, const ir::Function& fn, const ir::Op& op, const std::vector<ValueId>& operands) {
  return emit_like(t, fn, op, operands).at(0);
}

JvpOut emit_primal(JvpArgs& a) {
  JvpOut out;
  out.y = emit_like(a.t, a.fn, a.op, a.x);
  out.dy.resize(out.y.size());
  return out;
}

namespace {
ValueId filled(Trace& t, const ArrayType& type, double value) {
  ValueId c = trace::scalar_constant(t, value, {type.dtype(), type.weak_type()});
  if (t.type(c) == type) return c;
  return t.emit(OpKind::BroadcastInDim, {c}, type, ir::attr::BroadcastInDim{});
}
}  // namespace

JvpOut jvp_linear_unary(JvpArgs& a) {
  JvpOut out = emit_primal(a);
  out.dy[0] = emit_like1(a.t, a.fn, a.op, {*a.dx[0]});
  return out;
}

ValueId zeros(Trace& t, const ArrayType& type) { return filled(t, type, 0); }
ValueId ones(Trace& t, const ArrayType& type) { return filled(t, type, 1); }

ValueId instantiate(Trace& t, const Tangent& v, const ArrayType& type) { return v ? *v : zeros(t, type); }

ValueId TransposeArgs::ct_value(size_t i) const { return instantiate(t, ct.at(i), result_type(i)); }

ValueId add(Trace& t, ValueId a, ValueId b) { return trace::binary(t, "add_any", EwOp::Add, a, b); }
ValueId sub(Trace& t, ValueId a, ValueId b) { return trace::binary(t, "sub", EwOp::Sub, a, b); }
ValueId mul(Trace& t, ValueId a, ValueId b) { return trace::binary(t, "mul", EwOp::Mul, a, b); }
ValueId div(Trace& t, ValueId a, ValueId b) { return trace::binary(t, "div", EwOp::Div, a, b); }
ValueId neg(Trace& t, ValueId a) { return trace::unary(t, "neg", EwOp::Neg, a); }

Tangent add_tangents(Trace& t, const Tangent& a, const Tangent& b) {
  if (!a) return b;
  if (!b) return a;
  // Cotangents of one value can arrive typed differently over reduced axes: a partial sum
  // (the transpose of a product with a reduced operand), or replicated there with or without
  // the annotation (one path kept it, another dropped it, as dot_general does). A replicated
  // one is split into partial sums to meet a partial sum; otherwise the annotation goes.
  ValueId x = *a, y = *b;
  const types::PartitionSpec sx = t.type(x).spec(), sy = t.type(y).spec();  // copies: emitting may move the types
  if (!sx.unreduced().empty() && sy.unreduced().empty()) {
    y = trace::reshard(t, y, sharding::OutSharding{sx});
  } else if (sx.unreduced().empty() && !sy.unreduced().empty()) {
    x = trace::reshard(t, x, sharding::OutSharding{sy});
  } else if (sx.reduced() != sy.reduced()) {
    auto plain = [&](ValueId v) {
      const types::PartitionSpec s = t.type(v).spec();
      return s.reduced().empty() ? v : trace::reshard(t, v, sharding::OutSharding{s.with_reduced({})});
    };
    x = plain(x);
    y = plain(y);
  }
  return add(t, x, y);
}

ValueId scalar_like(Trace& t, double value, ValueId v) { return trace::scalar_constant(t, value, {t.type(v).dtype(), true}); }

sharding::OptOutSharding pinned_sharding(const Trace& t, const ArrayType& type) {
  if (t.mesh().explicit_axes().empty()) return std::nullopt;
  return sharding::OutSharding{type.spec()};
}

ValueId fit_type(Trace& t, ValueId v, const ArrayType& type) {
  ArrayType vt = t.type(v);
  if (vt.shape() != type.shape())
    throw std::logic_error(fmt::format("internal error: a cotangent of type {} for a value of type {}", vt.str_short(), type.str_short()));
  if (vt.dtype() != type.dtype() || vt.weak_type() != type.weak_type()) {
    if (vt.dtype() == type.dtype()) v = trace::retype(t, v, vt.with_weak_type(type.weak_type()));
    else v = trace::convert(t, v, {type.dtype(), type.weak_type()});
    vt = t.type(v);
  }
  // An unreduced primal (pending partial sums) gets the replicated cotangent: each partial
  // sum's cotangent is the whole cotangent (JAX types it `reduced`; shard leaves it plain so
  // that it mixes freely with other cotangents). A reduced primal gets the unreduced
  // cotangent: its uses on each device contribute partial sums (JAX's to_ct_spec).
  const types::PartitionSpec want(type.spec().entries(), type.spec().reduced());
  if (vt.spec() != want && !t.mesh().explicit_axes().empty()) {
    v = trace::reshard(t, v, sharding::OutSharding{want});
    vt = t.type(v);
  }
  return fit_vma(t, v, type);
}

// A cotangent that varies over axes its primal does not is the cotangent of an implicit
// pvary (an invariant value used with varying ones): it is summed over those axes. One that
// varies over fewer axes is made varying (the cotangent of a psum).
ValueId fit_vma(Trace& t, ValueId v, const ArrayType& type) {
  const ArrayType vt = t.type(v);
  if (vt.vma() == type.vma()) return v;
  auto missing = [](const std::vector<std::string>& from, const std::vector<std::string>& in) {
    types::AxisNames out;
    for (auto& a : from)
      if (std::find(in.begin(), in.end(), a) == in.end()) out.push_back(a);
    return out;
  };
  if (auto extra = missing(vt.vma(), type.vma()); !extra.empty()) v = trace::all_reduce(t, "psum", ir::ReduceKind::Sum, v, extra);
  if (auto lacking = missing(type.vma(), t.type(v).vma()); !lacking.empty()) v = trace::pvary(t, v, lacking);
  return v;
}

}  // namespace shard::autodiff
