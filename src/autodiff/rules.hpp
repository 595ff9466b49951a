// The differentiation rules of the primitives, one JVP rule per IR op kind and one transpose
// rule per linear op kind, grouped by op family like the sharding rules:
//   rules_elementwise.cpp  the elementwise primitives (a case per row of ir/elementwise_ops.hpp)
//   rules_structural.cpp   broadcast, reshape, transpose, slice, concatenate, pad, rev,
//                          dynamic_slice, dynamic_update_slice, constants and iota
//   rules_reduce.cpp       reductions, arg-reductions, cumulative ops, sort, dot_general
//   rules_sharding.cpp     reshard, sharding constraints
//   (the shard_map collectives are defined with their rules in primitives/collectives/)
//   rules_custom.cpp       custom_jvp / custom_vjp calls (the user's rules)
//   rules_control.cpp      while, cond, scan, shard_map, host callbacks (their partial
//                          evaluation, for reverse mode, is in partial_eval_control.cpp)
// rule_table.cpp binds them to the op kinds: every kind must have a JVP rule (a missing one
// does not link), and the kinds marked Linear in ir/ir.hpp a transpose rule.
#pragma once
#include <string>
#include <vector>

#include "autodiff/autodiff.hpp"
#include "trace/ops.hpp"

namespace shard::autodiff {

using trace::Trace;

struct JvpArgs {
  Trace& t;
  const ir::Op& op;          // the op being differentiated (attributes, regions, result types)
  const ir::Function& fn;    // the function it belongs to (operand types)
  std::vector<ValueId> x;    // primal operands, values of t
  std::vector<Tangent> dx;   // their tangents
  ArrayType operand_type(size_t i) const { return fn.type(op.operands.at(i)); }
  ArrayType result_type(size_t i = 0) const { return fn.type(op.results.at(i)); }
};
struct JvpOut {
  std::vector<ValueId> y;   // primal results
  std::vector<Tangent> dy;  // their tangents
};
using JvpRule = JvpOut (*)(JvpArgs&);

struct TransposeArgs {
  Trace& t;
  const ir::Op& op;
  const ir::Function& fn;
  std::vector<bool> linear;  // operand i is linear: its cotangent is wanted
  std::vector<ValueId> x;    // operands that are not linear, as values of t (-1 for linear ones)
  std::vector<Tangent> ct;   // cotangents of the results (nullopt: zero)
  ArrayType operand_type(size_t i) const { return fn.type(op.operands.at(i)); }
  ArrayType result_type(size_t i = 0) const { return fn.type(op.results.at(i)); }
  // The result cotangent, zeros when symbolic.
  ValueId ct_value(size_t i = 0) const;
};
// One cotangent per operand (nullopt for operands that are not linear or get zero).
using TransposeRule = std::vector<Tangent> (*)(TransposeArgs&);

#define X(e, n, a, r, l, lin) JvpOut jvp_##e(JvpArgs&);
SHARD_IR_OPS(X)
#undef X
// A transpose rule for each op kind marked Linear in SHARD_IR_OPS.
#define SHARD_TRANSPOSE_RULE_Linear(e) std::vector<Tangent> transpose_##e(TransposeArgs&);
#define SHARD_TRANSPOSE_RULE_Nonlinear(e)
#define X(e, n, a, r, l, lin) SHARD_TRANSPOSE_RULE_##lin(e)
SHARD_IR_OPS(X)
#undef X

JvpRule jvp_rule(ir::OpKind k);
TransposeRule transpose_rule(ir::OpKind k);  // null for ops that are never linear

// ---- helpers shared by the rules (rule_table.cpp) ----------------------------------------------

using trace::emit_like;        // the op re-emitted on other operands (trace/trace.hpp)
using trace::inline_function;  // a function's ops copied into a trace
// emit_like's single result.
ValueId emit_like1(Trace& t, const ir::Function& fn, const ir::Op& op, const std::vector<ValueId>& operands);
JvpOut emit_primal(JvpArgs& a);
// The JVP of an op linear in its single operand: the same op applied to the tangent.
JvpOut jvp_linear_unary(JvpArgs& a);  // primal results, zero tangents
// The tangent as a value (zeros of `type` when symbolic).
ValueId instantiate(Trace& t, const Tangent& v, const ArrayType& type);
Tangent add_tangents(Trace& t, const Tangent& a, const Tangent& b);
// a * b, a / b, -a, for tangents scaled by primal-side values.
ValueId mul(Trace& t, ValueId a, ValueId b);
ValueId div(Trace& t, ValueId a, ValueId b);
ValueId neg(Trace& t, ValueId a);
ValueId sub(Trace& t, ValueId a, ValueId b);
ValueId add(Trace& t, ValueId a, ValueId b);
// A weak scalar constant of v's dtype (promotes to v's type in arithmetic).
ValueId scalar_like(Trace& t, double value, ValueId v);
// `v` varying over exactly `type`'s manual axes: psum over extra ones, pvary to missing ones.
ValueId fit_vma(Trace& t, ValueId v, const ArrayType& type);
// out_sharding that pins a result to `type`'s sharding, when the mesh has Explicit axes.
sharding::OptOutSharding pinned_sharding(const Trace& t, const ArrayType& type);
// The NotImplementedError for what cannot be differentiated yet.
[[noreturn]] void unsupported(const std::string& what);

}  // namespace shard::autodiff
