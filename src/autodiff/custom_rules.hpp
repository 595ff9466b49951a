// The callables behind jax.custom_jvp and jax.custom_vjp, as the IR ops carry them
// (ir::attr::CustomJvpCall::rule, CustomVjpCall::fwd, CustomVjpLin::bwd). The api layer
// makes them from the user's Python functions; autodiff calls them instead of
// differentiating the function's body.
#pragma once
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "autodiff/autodiff.hpp"

namespace shard::autodiff {

// The user's JVP rule: (primal outputs, their tangents) from the op's operands and their
// tangents (zeros where symbolic), emitted into the trace.
using CustomJvpRule = std::function<std::pair<std::vector<ValueId>, std::vector<ValueId>>(
    trace::Trace&, const std::vector<ValueId>& primals, const std::vector<ValueId>& tangents)>;

// The user's backward pass: one cotangent per operand (nullopt: zero) from the residuals and
// the output cotangents.
using CustomVjpBwd = std::function<std::vector<Tangent>(trace::Trace&, const std::vector<ValueId>& residuals,
                                                        const std::vector<ValueId>& cotangents)>;

// The user's forward pass: the outputs, the residuals, and the backward pass that reads them.
struct CustomVjpForward {
  std::vector<ValueId> outputs, residuals;
  std::shared_ptr<const CustomVjpBwd> bwd;
};
using CustomVjpFwd = std::function<CustomVjpForward(trace::Trace&, const std::vector<ValueId>& primals)>;

}  // namespace shard::autodiff
