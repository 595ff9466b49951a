// Reverse mode, first half: the JVP is traced into a fresh function of (primals, tangents)
// and partially evaluated with the tangents unknown (partial_eval.cpp). The known part (the
// primal program and everything the tangent rules compute from primals, such as cos(x) for
// sin) runs in the caller's trace; the unknown part is linear in the tangents and becomes a
// function of the residuals it reads and the tangents.
#include "autodiff/partial_eval.hpp"
#include "autodiff/rules.hpp"

namespace shard::autodiff {

Linearized linearize(Trace& t, const ir::Function& f, const std::vector<ValueId>& primals, const std::vector<bool>& wrt) {
  auto jt = std::make_shared<Trace>("jvp", t.mesh());
  jt->set_loc(t.loc());
  std::vector<ValueId> jprimals;
  std::vector<Tangent> jtangents;
  for (auto p : f.params) jprimals.push_back(jt->param(f.type(p)));
  size_t num_tangents = 0;
  for (size_t i = 0; i < f.params.size(); ++i) {
    if (wrt.at(i)) {
      jtangents.push_back(jt->param(f.type(f.params[i])));
      ++num_tangents;
    } else {
      jtangents.push_back(std::nullopt);
    }
  }
  JvpResult r = jvp(*jt, f, jprimals, jtangents);
  std::vector<ValueId> outs = r.primals;
  for (size_t i = 0; i < r.tangents.size(); ++i) outs.push_back(instantiate(*jt, r.tangents[i], f.type(f.results[i])));
  const ir::Function g = jt->finish(outs);

  std::vector<bool> unknown(f.params.size(), false);
  unknown.insert(unknown.end(), num_tangents, true);
  std::vector<bool> force(f.results.size(), false);
  force.insert(force.end(), f.results.size(), true);
  PartialEval pe = partial_eval(g, unknown, force);
  for (size_t i = 0; i < f.results.size(); ++i)
    if (pe.unknown_out[i]) throw std::logic_error("internal error: a primal result depends on a tangent");

  Linearized lin;
  std::vector<ValueId> known = inline_function(t, pe.known, primals);
  lin.primals.assign(known.begin(), known.begin() + static_cast<long>(f.results.size()));
  lin.residuals.assign(known.begin() + static_cast<long>(f.results.size()), known.end());
  lin.linear = std::move(pe.unknown);
  lin.linear.name = "linear";
  return lin;
}

}  // namespace shard::autodiff
