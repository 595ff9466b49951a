// The IR: a typed SSA function of array operations, as the tracer records it (global types
// carrying shardings) and as the partitioner rewrites it (local per-device types plus
// explicit collectives). Every operation kind is declared once in SHARD_IR_OPS; the enum,
// the printed names and the verifier's arity table come from it.
//
// Lax-level semantics: elementwise ops take operands of identical shapes (the jnp layer
// inserts broadcast_in_dim and convert_element_type first), so each rule sees one op.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ast/ast.hpp"
#include "ir/attrs.hpp"
#include "types/array_type.hpp"

namespace shard::ir {

using types::ArrayType;
using types::DType;
using types::PartitionSpec;

// X(Enum, "printed name", operands (-1 = variadic), results (-1 = variadic), "ledger name"
//   of a collective (the kind of communication in the cost ledger; "" for local ops)).
// Each kind's attributes are the struct of the same name in ir/attrs.hpp.
#define SHARD_IR_OPS(X)                                                                              \
  X(Elementwise, "", -1, 1, "") /* prints as its primitive: `sin`, `add` (ir/elementwise_ops.hpp) */ \
  X(Constant, "constant", 0, 1, "")                                                                   \
  X(Iota, "iota", 0, 1, "")                                                                           \
  X(BroadcastInDim, "broadcast_in_dim", 1, 1, "")                                                     \
  X(Reshape, "reshape", 1, 1, "")                                                                     \
  X(Transpose, "transpose", 1, 1, "")                                                                 \
  X(Slice, "slice", 1, 1, "")                                                                         \
  X(Concatenate, "concatenate", -1, 1, "")                                                            \
  X(Pad, "pad", 2, 1, "")                                                                             \
  X(Rev, "rev", 1, 1, "")                                                                             \
  X(Reduce, "reduce", 1, 1, "")                                                                       \
  X(ArgReduce, "arg", 1, 1, "")                                                                       \
  X(Cumulative, "cum", 1, 1, "")                                                                      \
  X(Sort, "sort", -1, -1, "") /* the first num_keys operands are the keys; the rest move with them */ \
  X(DotGeneral, "dot_general", 2, 1, "")                                                              \
  X(Reshard, "reshard", 1, 1, "")                                                                     \
  X(ShardingConstraint, "sharding_constraint", 1, 1, "")                                              \
  X(AllReduce, "psum", 1, 1, "all-reduce")                                                            \
  X(AllGather, "all_gather", 1, 1, "all-gather")                                                      \
  X(ReduceScatter, "psum_scatter", 1, 1, "reduce-scatter")                                            \
  X(AllToAll, "all_to_all", 1, 1, "all-to-all")                                                       \
  X(CollectivePermute, "ppermute", 1, 1, "collective-permute")                                        \
  X(AxisIndex, "axis_index", 0, 1, "")                                                                \
  X(DynamicSlice, "dynamic_slice", -1, 1, "")                                                         \
  X(DynamicUpdateSlice, "dynamic_update_slice", -1, 1, "")                                            \
  /* Ops with regions (Op::regions), each traced once.                                          */  \
  X(Fusion, "fusion", -1, 1, "") /* per-device only: elementwise/movement chain, one LLVM loop */    \
  X(ShardMap, "shard_map", -1, -1, "") /* region: the body on local types */                         \
  X(HostCallback, "debug_callback", -1, 0, "")                                                        \
  /* Functions with user-defined derivatives (jax.custom_jvp / custom_vjp): the region is the     \
     function, inlined before partitioning; autodiff calls the rule instead of differentiating it. */ \
  X(CustomJvpCall, "custom_jvp_call", -1, -1, "")                                                    \
  X(CustomVjpCall, "custom_vjp_call", -1, -1, "")                                                    \
  X(CustomVjpLin, "custom_lin", -1, -1, "") /* operands: residuals, tangents; transposed by bwd */    \
  X(Checkpoint, "checkpoint", -1, -1, "") /* jax.checkpoint: the region is recomputed, not saved */  \
  X(While, "while", -1, -1, "") /* regions: cond (cond consts, carries) -> bool[],                  \
                                   body (body consts, carries) -> carries */                         \
  X(Cond, "cond", -1, -1, "")   /* regions: the branches, each (operands) -> results */             \
  X(Scan, "scan", -1, -1, "")   /* region: body (consts, carries, x slices) -> (carries, y slices) */

enum class OpKind : uint8_t {
#define X(e, n, a, r, l) e,
  SHARD_IR_OPS(X)
#undef X
};

// An op's attributes: its kind's struct (ir/attrs.hpp); the variant's index is the kind's
// position plus one (Unset comes first).
using Attrs = std::variant<attr::Unset
#define X(e, n, a, r, l) , attr::e
                           SHARD_IR_OPS(X)
#undef X
                           >;
constexpr size_t attrs_index(OpKind k) { return static_cast<size_t>(k) + 1; }
// The empty attributes of kind k (what an op without a given attribute holds).
Attrs default_attrs(OpKind k);

using ValueId = int32_t;
struct Function;

struct Op {
  OpKind kind;
  std::vector<ValueId> operands;
  std::vector<ValueId> results;
  Attrs attrs;
  ast::Loc loc;  // the user's call that produced this op (errors point here)
  std::vector<std::shared_ptr<const Function>> regions;  // bodies of control-flow ops

  // The attributes of this op's kind; asking for another kind's is a bug in shard.
  template <class A>
  const A& attr() const {
    return std::get<A>(attrs);
  }
};

struct Function {
  std::string name;
  std::vector<ArrayType> value_types;  // indexed by ValueId
  std::vector<ValueId> params;
  std::vector<Op> ops;
  std::vector<ValueId> results;

  const ArrayType& type(ValueId v) const { return value_types.at(static_cast<size_t>(v)); }
  ValueId new_value(ArrayType t);
};

const char* op_kind_name(OpKind k);  // the enum name, e.g. "BroadcastInDim"
// Ops that communicate between devices, and their names in the cost ledger ("all-reduce",
// "all-gather", "reduce-scatter", "all-to-all", "collective-permute"; null for other ops).
const char* collective_kind_name(OpKind k);
inline bool is_collective(OpKind k) { return collective_kind_name(k) != nullptr; }
// The mesh axes a collective (or axis_index) works over; empty for other ops.
const std::vector<std::string>& collective_axes(const Op& op);

// The primitive name as printed (`sin`, `add`, `reduce_sum`, `argmax`, `cumsum`, `psum`...).
std::string op_display_name(const Op& op);

// jaxpr-like text:
//   { lambda ; a:f32[8@dp,4] b:f32[8@dp,4]. let
//       c:f32[8@dp,4] = add a b
//     in (c,) }
std::string print(const Function& f);

// The function with its custom_jvp_call / custom_vjp_call / checkpoint ops replaced by their
// regions' ops (what runs when no derivative is taken); a custom_lin left over (a custom_vjp
// function under forward mode) is JAX's TypeError.
Function inline_custom_calls(const Function& f);
bool has_custom_calls(const Function& f);
// Appends f's ops to `out` with f's params bound to `args`; returns f's results there.
std::vector<ValueId> inline_into(Function& out, const Function& f, const std::vector<ValueId>& args);
// The same, returning where every value of f went (-1: nowhere).
std::vector<ValueId> inline_mapped(Function& out, const Function& f, const std::vector<ValueId>& args);
// Appends a copy of `op` (an op of `src`) to `dst` with `operands` in place of its own.
std::vector<ValueId> copy_op(Function& dst, const Function& src, const Op& op, const std::vector<ValueId>& operands);

// Structural identity of functions (ops, attributes, literal bytes, types, regions, source
// locations): the compile cache's key without printing the IR.
size_t structural_hash(const Function& f);
bool structurally_equal(const Function& a, const Function& b);

// Checks operand/result counts, ids, shapes and dtypes of every op; returns the problems
// (empty when valid). An invalid IR is a bug in shard, reported as an internal error.
std::vector<std::string> verify(const Function& f);

// Short dtype names used in printed types: f32, i32, bool, ...
std::string short_dtype(DType t);
// f32[8@dp,4@mp] (jaxpr style: short dtype, shardings, vma)
std::string short_type(const ArrayType& t);

}  // namespace shard::ir
