// Reverse mode, first half: the JVP is traced into a fresh function of (primals, tangents),
// then split as JAX's partial evaluation does. Ops that read no tangent (the primal program
// and everything the tangent rules compute from primals, such as cos(x) for sin) run in the
// caller's trace; the rest is linear in the tangents and becomes a function of the residuals
// (primal values it reads) and the tangents.
#include <fmt/format.h>

#include "autodiff/rules.hpp"
#include "ir/builder.hpp"

namespace shard::autodiff {

using ir::OpKind;

namespace {
// Scalar constants and iotas are cheaper to repeat in the linear function than to pass in;
// an array literal (a closed-over array) is passed, so its data exists once.
bool is_source(const ir::Op& op, const ir::Function& f) {
  if (!op.operands.empty() || !op.regions.empty()) return false;
  return op.kind != OpKind::Constant || f.type(op.results.at(0)).num_elements() <= 1;
}

[[noreturn]] void not_linearizable(const ir::Op& op) {
  if (op.kind == OpKind::While)
    throw types::ShardingError("ValueError",
                               "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with dynamic start/stop "
                               "values. Try using lax.scan, or using fori_loop with static start/stop.");
  unsupported(fmt::format("reverse-mode differentiation through {} is not supported yet (forward mode, jax.jvp, is)",
                          ir::op_display_name(op)));
}
}  // namespace

Linearized linearize(Trace& t, const ir::Function& f, const std::vector<ValueId>& primals, const std::vector<bool>& wrt) {
  auto jt = std::make_shared<Trace>("jvp", t.mesh());
  jt->set_loc(t.loc());
  std::vector<ValueId> jprimals;
  std::vector<Tangent> jtangents;
  std::vector<ValueId> tangent_params;
  for (auto p : f.params) jprimals.push_back(jt->param(f.type(p)));
  for (size_t i = 0; i < f.params.size(); ++i) {
    if (wrt.at(i)) {
      tangent_params.push_back(jt->param(f.type(f.params[i])));
      jtangents.push_back(tangent_params.back());
    } else {
      jtangents.push_back(std::nullopt);
    }
  }
  JvpResult r = jvp(*jt, f, jprimals, jtangents);
  std::vector<ValueId> outs = r.primals;
  for (size_t i = 0; i < r.tangents.size(); ++i) outs.push_back(instantiate(*jt, r.tangents[i], f.type(f.results[i])));
  const ir::Function g = jt->finish(outs);

  // Known values: computed from the primals alone.
  std::vector<char> known(g.value_types.size(), 0);
  for (size_t i = 0; i < f.params.size(); ++i) known[static_cast<size_t>(g.params[i])] = 1;
  std::vector<ValueId> to_t(g.value_types.size(), -1);
  for (size_t i = 0; i < f.params.size(); ++i) to_t[static_cast<size_t>(g.params[i])] = primals.at(i);
  std::vector<const ir::Op*> unknown_ops;
  std::vector<const ir::Op*> producer(g.value_types.size(), nullptr);
  const ast::Loc outer = t.loc();
  for (const auto& op : g.ops) {
    bool k = true;
    for (auto v : op.operands) k &= known[static_cast<size_t>(v)] != 0;
    for (auto v : op.results) producer[static_cast<size_t>(v)] = &op;
    if (!k) {
      if (!op.regions.empty()) not_linearizable(op);
      unknown_ops.push_back(&op);
      continue;
    }
    std::vector<ValueId> operands;
    for (auto v : op.operands) operands.push_back(to_t[static_cast<size_t>(v)]);
    t.set_loc(op.loc);
    auto rs = emit_like(t, g, op, operands);
    for (size_t j = 0; j < rs.size(); ++j) {
      known[static_cast<size_t>(op.results[j])] = 1;
      to_t[static_cast<size_t>(op.results[j])] = rs[j];
    }
  }
  t.set_loc(outer);

  Linearized lin;
  for (size_t i = 0; i < f.results.size(); ++i) {
    const ValueId v = g.results[i];
    if (!known[static_cast<size_t>(v)]) throw std::logic_error("internal error: a primal result depends on a tangent");
    lin.primals.push_back(to_t[static_cast<size_t>(v)]);
  }

  // The linear function: residual params, tangent params, repeated sources, unknown ops.
  ir::Function& L = lin.linear;
  L.name = "linear";
  std::vector<ValueId> to_l(g.value_types.size(), -1);
  std::vector<const ir::Op*> sources;
  auto need = [&](ValueId v) {
    const auto i = static_cast<size_t>(v);
    if (!known[i] || to_l[i] != -1) return;
    const ir::Op* p = producer[i];
    if (p && is_source(*p, g)) {
      to_l[i] = -2;  // placed below, after the params
      sources.push_back(p);
      return;
    }
    to_l[i] = ir::Builder(L).param(g.type(v));
    lin.residuals.push_back(to_t[i]);
  };
  for (auto* op : unknown_ops)
    for (auto v : op->operands) need(v);
  for (size_t i = f.results.size(); i < g.results.size(); ++i) need(g.results[i]);
  for (auto v : tangent_params) to_l[static_cast<size_t>(v)] = ir::Builder(L).param(g.type(v));
  for (auto* op : sources) {
    auto rs = emit_like_into(L, g, *op, {});
    to_l[static_cast<size_t>(op->results[0])] = rs.at(0);
  }
  for (auto* op : unknown_ops) {
    std::vector<ValueId> operands;
    for (auto v : op->operands) operands.push_back(to_l[static_cast<size_t>(v)]);
    auto rs = emit_like_into(L, g, *op, operands);
    for (size_t j = 0; j < rs.size(); ++j) to_l[static_cast<size_t>(op->results[j])] = rs[j];
  }
  for (size_t i = f.results.size(); i < g.results.size(); ++i) L.results.push_back(to_l[static_cast<size_t>(g.results[i])]);
  return lin;
}

}  // namespace shard::autodiff
