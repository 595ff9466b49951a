// Automatic differentiation of traced IR functions, as JAX does it: forward mode (JVP) by
// each primitive's JVP rule; reverse mode by linearizing (JVP, then splitting the program
// into its primal part and the part linear in the tangents) and transposing the linear part
// with each linear primitive's transpose rule. Everything is emitted through trace::, so the
// sharding rules type every tangent and cotangent: in Explicit mode a cotangent has its
// primal's type.
#pragma once
#include <optional>
#include <vector>

#include "ir/ir.hpp"
#include "trace/trace.hpp"

namespace shard::autodiff {

using ir::ValueId;
using types::ArrayType;

// A tangent or cotangent: a value of the trace, or a symbolic zero (no value, no work).
using Tangent = std::optional<ValueId>;

// Values of float dtype carry tangents; integer and bool values have zero tangents.
bool is_differentiable(const ArrayType& t);

struct JvpResult {
  std::vector<ValueId> primals;   // f's results, values of t
  std::vector<Tangent> tangents;  // their tangents
};
// Emits into t the primal computation of f on `primals` (one per parameter of f) together
// with the tangents of its results for the parameter tangents `tangents`.
JvpResult jvp(trace::Trace& t, const ir::Function& f, const std::vector<ValueId>& primals, const std::vector<Tangent>& tangents);

// f split at its primals: the primal results computed in t, and a function linear in the
// tangents of the `wrt` parameters.
struct Linearized {
  std::vector<ValueId> primals;  // f's results, values of t
  // params: residuals (values the primal part computed), then one tangent per `wrt`
  // parameter; results: the tangents of f's results.
  ir::Function linear;
  std::vector<ValueId> residuals;  // values of t, in the order of linear's first params
};
Linearized linearize(trace::Trace& t, const ir::Function& f, const std::vector<ValueId>& primals, const std::vector<bool>& wrt);

// Transposes a function linear in its params after the first `residuals.size()` ones:
// given cotangents of its results, emits into t the cotangents of those linear params
// (nullopt where the cotangent is zero). `residuals` are values of t for the first params.
std::vector<Tangent> transpose(trace::Trace& t, const ir::Function& linear, const std::vector<ValueId>& residuals,
                               const std::vector<Tangent>& cotangents);

// Arrays of type `type` (its sharding and varying axes) filled with 0 / 1.
ValueId zeros(trace::Trace& t, const ArrayType& type);
ValueId ones(trace::Trace& t, const ArrayType& type);
// `v` given exactly type `type` (dtype, sharding, varying axes), as cotangents must be.
ValueId fit_type(trace::Trace& t, ValueId v, const ArrayType& type);

}  // namespace shard::autodiff
