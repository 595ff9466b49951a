// Forward mode: each op's JVP rule, in program order. Ops without a nonzero tangent operand
// are copied as they are, so tangents cost nothing where they are symbolically zero.
#include "autodiff/rules.hpp"

namespace shard::autodiff {

JvpResult jvp(Trace& t, const ir::Function& f, const std::vector<ValueId>& primals, const std::vector<Tangent>& tangents) {
  std::vector<ValueId> pm(f.value_types.size(), -1);
  std::vector<Tangent> tm(f.value_types.size());
  for (size_t i = 0; i < f.params.size(); ++i) {
    pm[static_cast<size_t>(f.params[i])] = primals.at(i);
    if (is_differentiable(f.type(f.params[i]))) tm[static_cast<size_t>(f.params[i])] = tangents.at(i);
  }
  const ast::Loc outer = t.loc();
  for (const auto& op : f.ops) {
    t.set_loc(op.loc);  // tangent ops point at the user's line of their primal
    JvpArgs a{t, op, f, {}, {}};
    bool any_tangent = false;
    for (auto v : op.operands) {
      a.x.push_back(pm[static_cast<size_t>(v)]);
      a.dx.push_back(tm[static_cast<size_t>(v)]);
      any_tangent |= a.dx.back().has_value();
    }
    JvpOut out = any_tangent ? jvp_rule(op.kind)(a) : emit_primal(a);
    for (size_t k = 0; k < op.results.size(); ++k) {
      const auto r = static_cast<size_t>(op.results[k]);
      pm[r] = out.y.at(k);
      if (k < out.dy.size() && is_differentiable(f.type(op.results[k]))) tm[r] = out.dy[k];
    }
  }
  t.set_loc(outer);
  JvpResult res;
  for (auto v : f.results) {
    res.primals.push_back(pm[static_cast<size_t>(v)]);
    res.tangents.push_back(tm[static_cast<size_t>(v)]);
  }
  return res;
}

}  // namespace shard::autodiff
