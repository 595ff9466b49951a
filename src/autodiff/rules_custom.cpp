// Rules of functions with user-defined derivatives. custom_jvp: the user's rule replaces the
// JVP of the body. custom_vjp: forward mode runs the user's forward pass and records a
// custom_lin op, linear in the tangents, whose transpose is the user's backward pass; so
// reverse mode works and forward mode alone (jax.jvp) is refused, as in JAX.
#include "autodiff/custom_rules.hpp"
#include "autodiff/rules.hpp"

namespace shard::autodiff {

using ir::OpKind;

JvpOut jvp_CustomJvpCall(JvpArgs& a) {
  const auto& c = a.op.attr<ir::attr::CustomJvpCall>();
  std::vector<ValueId> tangents;
  for (size_t i = 0; i < a.x.size(); ++i) tangents.push_back(instantiate(a.t, a.dx[i], a.operand_type(i)));
  auto [outs, touts] = (*std::static_pointer_cast<const CustomJvpRule>(c.rule))(a.t, a.x, tangents);
  JvpOut out{outs, {}};
  for (size_t i = 0; i < touts.size(); ++i) out.dy.push_back(fit_type(a.t, touts[i], a.result_type(i)));
  return out;
}

JvpOut jvp_CustomVjpCall(JvpArgs& a) {
  const auto& c = a.op.attr<ir::attr::CustomVjpCall>();
  CustomVjpForward fw = (*std::static_pointer_cast<const CustomVjpFwd>(c.fwd))(a.t, a.x);
  std::vector<ValueId> operands = fw.residuals;
  for (size_t i = 0; i < a.x.size(); ++i) operands.push_back(instantiate(a.t, a.dx[i], a.operand_type(i)));
  std::vector<ArrayType> types;
  for (size_t i = 0; i < a.op.results.size(); ++i) types.push_back(a.result_type(i));
  ir::attr::CustomVjpLin lin{c.identity, static_cast<int64_t>(fw.residuals.size()), fw.bwd};
  auto touts = a.t.emit_multi(OpKind::CustomVjpLin, operands, types, lin, {});
  JvpOut out{fw.outputs, {}};
  for (auto v : touts) out.dy.push_back(v);
  return out;
}

JvpOut jvp_CustomVjpLin(JvpArgs&) {
  throw types::ShardingError("TypeError", "can't apply forward-mode autodiff (jvp) to a custom_vjp function.");
}

std::vector<Tangent> transpose_CustomVjpLin(TransposeArgs& a) {
  const auto& l = a.op.attr<ir::attr::CustomVjpLin>();
  const auto nres = static_cast<size_t>(l.num_residuals);
  std::vector<ValueId> res(a.x.begin(), a.x.begin() + static_cast<long>(nres));
  std::vector<ValueId> cts;
  for (size_t i = 0; i < a.op.results.size(); ++i) cts.push_back(a.ct_value(i));
  auto got = (*std::static_pointer_cast<const CustomVjpBwd>(l.bwd))(a.t, res, cts);
  std::vector<Tangent> out(nres);
  for (size_t i = 0; i < got.size(); ++i) {
    Tangent g = got[i];
    if (g) g = fit_type(a.t, *g, a.operand_type(nres + i));
    out.push_back(g);
  }
  return out;
}

}  // namespace shard::autodiff
