// Reverse mode, second half: the linear function run backwards: from the last op to the
// first, each linear op's transpose rule turns its results' cotangents into its linear
// operands' cotangents, which add up where a value is read more than once.
#include <fmt/format.h>

#include <functional>

#include "autodiff/rules.hpp"

namespace shard::autodiff {

std::vector<Tangent> transpose(Trace& t, const ir::Function& lin, const std::vector<ValueId>& residuals,
                               const std::vector<Tangent>& cotangents) {
  const size_t n = lin.value_types.size();
  std::vector<char> linear(n, 0);
  std::vector<ValueId> val(n, -1);
  for (size_t i = 0; i < lin.params.size(); ++i) {
    const auto p = static_cast<size_t>(lin.params[i]);
    if (i < residuals.size()) val[p] = residuals[i];
    else linear[p] = 1;
  }
  const ast::Loc outer = t.loc();
  std::vector<const ir::Op*> linear_ops;
  std::vector<const ir::Op*> producer(n, nullptr);
  for (const auto& op : lin.ops) {
    bool any = false;
    for (auto v : op.operands) any |= linear[static_cast<size_t>(v)] != 0;
    for (auto r : op.results) producer[static_cast<size_t>(r)] = &op;
    if (any) {
      for (auto r : op.results) linear[static_cast<size_t>(r)] = 1;
      linear_ops.push_back(&op);
    }
  }
  // Ops that read no linear value (residual computations the linear part repeats, values a
  // jax.checkpoint recomputes) run forwards on demand: just before the first transpose rule
  // that reads them, so recomputed values live only during the backward step that needs them.
  std::function<ValueId(ValueId)> value = [&](ValueId v) -> ValueId {
    const auto i = static_cast<size_t>(v);
    if (val[i] >= 0) return val[i];
    const ir::Op* op = producer[i];
    if (!op) throw std::logic_error("internal error: a residual without a value in a transpose");
    std::vector<ValueId> operands;
    for (auto o : op->operands) operands.push_back(value(o));
    t.set_loc(op->loc);
    auto rs = emit_like(t, lin, *op, operands);
    for (size_t k = 0; k < rs.size(); ++k) val[static_cast<size_t>(op->results[k])] = rs[k];
    return val[i];
  };

  std::vector<Tangent> ct(n);
  for (size_t i = 0; i < lin.results.size(); ++i) {
    const auto r = static_cast<size_t>(lin.results[i]);
    if (linear[r]) ct[r] = add_tangents(t, ct[r], cotangents.at(i));
  }
  for (auto it = linear_ops.rbegin(); it != linear_ops.rend(); ++it) {
    const ir::Op& op = **it;
    TransposeArgs a{t, op, lin, {}, {}, {}};
    bool any_ct = false;
    for (auto r : op.results) {
      a.ct.push_back(ct[static_cast<size_t>(r)]);
      any_ct |= a.ct.back().has_value();
    }
    if (!any_ct) continue;
    for (auto v : op.operands) {
      const bool l = linear[static_cast<size_t>(v)] != 0;
      a.linear.push_back(l);
      a.x.push_back(l ? -1 : value(v));
    }
    TransposeRule rule = transpose_rule(op.kind);
    if (!rule) throw std::logic_error(fmt::format("internal error: {} in the linear part of a program", ir::op_display_name(op)));
    t.set_loc(op.loc);
    auto oc = rule(a);
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const auto v = static_cast<size_t>(op.operands[i]);
      if (!linear[v] || i >= oc.size() || !oc[i]) continue;
      const ValueId c = t.type(*oc[i]).vma() == lin.type(op.operands[i]).vma() ? *oc[i] : fit_vma(t, *oc[i], lin.type(op.operands[i]));
      ct[v] = add_tangents(t, ct[v], c);
    }
  }
  std::vector<Tangent> out;
  for (size_t i = residuals.size(); i < lin.params.size(); ++i) {
    const ValueId p = lin.params[i];
    Tangent c = ct[static_cast<size_t>(p)];
    if (c) c = fit_type(t, *c, lin.type(p));
    out.push_back(c);
  }
  t.set_loc(outer);
  return out;
}

}  // namespace shard::autodiff
