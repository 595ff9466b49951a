// Partial evaluation of a function: ops whose operands are all known go to the known
// function; the others to the unknown one, reading known values as residuals (scalar
// constants and iotas are repeated instead: cheaper than passing them).
#include "autodiff/partial_eval.hpp"

#include <fmt/format.h>

#include "autodiff/rules.hpp"
#include "ir/builder.hpp"

namespace shard::autodiff {

using ir::OpKind;
using ir::ValueId;

namespace {
bool is_source(const ir::Op& op, const ir::Function& f) {
  if (!op.operands.empty() || !op.regions.empty()) return false;
  return op.kind != OpKind::Constant || f.type(op.results.at(0)).num_elements() <= 1;
}

[[noreturn]] void not_partially_evaluable(const ir::Op& op) {
  if (op.kind == OpKind::While)
    throw types::ShardingError("ValueError",
                               "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with dynamic start/stop "
                               "values. Try using lax.scan, or using fori_loop with static start/stop.");
  unsupported(fmt::format("reverse-mode differentiation through {} is not supported yet (forward mode, jax.jvp, is)",
                          ir::op_display_name(op)));
}
}  // namespace

ValueId PeState::need(ValueId v) {
  const auto i = static_cast<size_t>(v);
  if (umap[i] >= 0) return umap[i];
  if (is_unknown[i]) throw std::logic_error("internal error: an unknown value used before its definition");
  const ir::Op* p = producer[i];
  if (p && is_source(*p, f)) {
    umap[i] = ir::copy_op(unknown, f, *p, {}).at(0);
    return umap[i];
  }
  const ValueId r = unknown.new_value(f.type(v));
  residuals.push_back(kmap[i]);
  residual_params.push_back(r);
  int param = -1;
  for (size_t k = 0; k < f.params.size(); ++k)
    if (f.params[k] == v) param = static_cast<int>(k);
  residual_param.push_back(param);
  umap[i] = r;
  return r;
}

ValueId PeState::pass(ValueId known_value, const types::ArrayType& type) {
  const ValueId r = unknown.new_value(type);
  residuals.push_back(known_value);
  residual_params.push_back(r);
  residual_param.push_back(-1);
  return r;
}

PartialEval partial_eval(const ir::Function& f, const std::vector<bool>& unknown_params, const std::vector<bool>& force_unknown_out) {
  PartialEval pe;
  pe.known.name = f.name;
  pe.unknown.name = f.name;
  const size_t n = f.value_types.size();
  PeState st{f, pe.known, pe.unknown, std::vector<ValueId>(n, -1), std::vector<ValueId>(n, -1), std::vector<char>(n, 0), {}, {}, {},
             std::vector<const ir::Op*>(n, nullptr)};
  std::vector<ValueId> unknown_param_values;
  for (size_t i = 0; i < f.params.size(); ++i) {
    const auto p = static_cast<size_t>(f.params[i]);
    if (unknown_params.at(i)) {
      st.is_unknown[p] = 1;
      st.umap[p] = pe.unknown.new_value(f.type(f.params[i]));
      unknown_param_values.push_back(st.umap[p]);
    } else {
      st.kmap[p] = ir::Builder(pe.known).param(f.type(f.params[i]));
    }
  }
  for (const auto& op : f.ops) {
    for (auto r : op.results) st.producer[static_cast<size_t>(r)] = &op;
    bool any_unknown = false;
    for (auto v : op.operands) any_unknown |= st.is_unknown[static_cast<size_t>(v)] != 0;
    if (!any_unknown) {
      std::vector<ValueId> operands;
      for (auto v : op.operands) operands.push_back(st.kmap[static_cast<size_t>(v)]);
      auto rs = ir::copy_op(pe.known, f, op, operands);
      for (size_t k = 0; k < rs.size(); ++k) st.kmap[static_cast<size_t>(op.results[k])] = rs[k];
      continue;
    }
    if (!op.regions.empty()) {
      switch (op.kind) {
        case OpKind::Scan: partial_eval_scan(st, op); break;
        case OpKind::Cond: partial_eval_cond(st, op); break;
        case OpKind::Checkpoint: partial_eval_checkpoint(st, op); break;
        case OpKind::ShardMap: partial_eval_shard_map(st, op); break;
        default: not_partially_evaluable(op);
      }
      continue;
    }
    std::vector<ValueId> operands;
    for (auto v : op.operands) operands.push_back(st.need(v));
    auto rs = ir::copy_op(pe.unknown, f, op, operands);
    for (size_t k = 0; k < rs.size(); ++k) {
      st.umap[static_cast<size_t>(op.results[k])] = rs[k];
      st.is_unknown[static_cast<size_t>(op.results[k])] = 1;
    }
  }
  for (size_t i = 0; i < f.results.size(); ++i) {
    const ValueId v = f.results[i];
    const bool u = st.is_unknown[static_cast<size_t>(v)] || (i < force_unknown_out.size() && force_unknown_out[i]);
    pe.unknown_out.push_back(u);
    if (u) pe.unknown.results.push_back(st.need(v));
    else pe.known.results.push_back(st.kmap[static_cast<size_t>(v)]);
  }
  for (auto r : st.residuals) pe.known.results.push_back(r);
  pe.unknown.params = st.residual_params;
  pe.unknown.params.insert(pe.unknown.params.end(), unknown_param_values.begin(), unknown_param_values.end());
  pe.residual_param = st.residual_param;
  return pe;
}

}  // namespace shard::autodiff
