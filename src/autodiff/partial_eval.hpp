// Partial evaluation, as JAX's partial_eval_jaxpr_nounits: a function split, given which of
// its params are unknown (tangents), into the part computable from the known params and the
// part that needs the unknown ones. linearize uses it on the JVP of a program; the rules of
// region ops (partial_eval_control.cpp) use it on their bodies.
#pragma once
#include <vector>

#include "ir/ir.hpp"

namespace shard::autodiff {

struct PartialEval {
  // params: f's known params, in order; results: f's results that are known (and not
  // forced unknown), then the residuals.
  ir::Function known;
  // params: the residuals, then f's unknown params; results: f's unknown (or forced) results.
  ir::Function unknown;
  std::vector<bool> unknown_out;     // per result of f
  std::vector<int> residual_param;   // per residual: the index of the f param it is, or -1
  size_t num_residuals() const { return residual_param.size(); }
};

PartialEval partial_eval(const ir::Function& f, const std::vector<bool>& unknown_params, const std::vector<bool>& force_unknown_out);

// ---- used by the region rules ---------------------------------------------------------------

// The state of one partial evaluation: the two functions being built and where each value
// of f went.
struct PeState {
  const ir::Function& f;
  ir::Function& known;
  ir::Function& unknown;
  std::vector<ir::ValueId> kmap, umap;  // f value -> known / unknown function value (-1: none)
  std::vector<char> is_unknown;          // per f value
  std::vector<ir::ValueId> residuals;    // known-function values passed to the unknown one
  std::vector<ir::ValueId> residual_params;  // their params in the unknown function
  std::vector<int> residual_param;       // per residual: f param index or -1
  std::vector<const ir::Op*> producer;   // per f value
  // The unknown function's value for a value of f (a residual when it is known).
  ir::ValueId need(ir::ValueId v);
  // A value of the known function (one a region rule made) passed to the unknown one.
  ir::ValueId pass(ir::ValueId known_value, const types::ArrayType& type);
};

// Region ops with unknown operands: each emits its known op into st.known and its unknown op
// into st.unknown, and sets kmap/umap/is_unknown for the op's results.
void partial_eval_scan(PeState& st, const ir::Op& op);
void partial_eval_cond(PeState& st, const ir::Op& op);
void partial_eval_checkpoint(PeState& st, const ir::Op& op);
void partial_eval_shard_map(PeState& st, const ir::Op& op);


}  // namespace shard::autodiff
