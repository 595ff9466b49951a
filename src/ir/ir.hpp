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
//   of a collective (the kind of communication in the cost ledger; "" for local ops),
//   Linear if the op can be in the linear part of a program (it has a transpose rule,
//   autodiff/rules.hpp) else Nonlinear).
// Each kind's attributes are the struct of the same name in ir/attrs.hpp.
#define SHARD_IR_OPS(X)                                                                              \
  X(Elementwise, "", -1, 1, "", Linear) /* prints as its primitive: `sin`, `add` (ir/elementwise_ops.hpp) */ \
  X(Constant, "constant", 0, 1, "", Nonlinear)                                                                   \
  X(Iota, "iota", 0, 1, "", Nonlinear)                                                                           \
  X(BroadcastInDim, "broadcast_in_dim", 1, 1, "", Linear)                                                     \
  X(Reshape, "reshape", 1, 1, "", Linear)                                                                     \
  X(Transpose, "transpose", 1, 1, "", Linear)                                                                 \
  X(Slice, "slice", 1, 1, "", Linear)                                                                         \
  X(Concatenate, "concatenate", -1, 1, "", Linear)                                                            \
  X(Pad, "pad", 2, 1, "", Linear)                                                                             \
  X(Rev, "rev", 1, 1, "", Linear)                                                                             \
  X(Reduce, "reduce", 1, 1, "", Linear)                                                                       \
  X(ArgReduce, "arg", 1, 1, "", Nonlinear)                                                                       \
  X(Cumulative, "cum", 1, 1, "", Linear)                                                                      \
  X(Sort, "sort", -1, -1, "", Linear) /* the first num_keys operands are the keys; the rest move with them */ \
  X(DotGeneral, "dot_general", 2, 1, "", Linear)                                                              \
  X(Reshard, "reshard", 1, 1, "", Linear)                                                                     \
  X(ShardingConstraint, "sharding_constraint", 1, 1, "", Linear)                                              \
  X(AllReduce, "psum", 1, 1, "all-reduce", Linear)                                                            \
  X(AllGather, "all_gather", 1, 1, "all-gather", Linear)                                                      \
  X(ReduceScatter, "psum_scatter", 1, 1, "reduce-scatter", Linear)                                            \
  X(AllToAll, "all_to_all", 1, 1, "all-to-all", Linear)                                                       \
  X(CollectivePermute, "ppermute", 1, 1, "collective-permute", Linear)                                        \
  X(AxisIndex, "axis_index", 0, 1, "", Nonlinear)                                                                \
  /* Linear algebra on the last two dims (leading dims are a batch; src/primitives/linalg/). */     \
  X(Cholesky, "cholesky", 1, 1, "", Nonlinear)                                                                   \
  X(Lu, "lu", 1, 3, "", Nonlinear) /* results: lu, pivots, permutation */                                        \
  X(TriangularSolve, "triangular_solve", 2, 1, "", Linear) /* operands: a, b; linear in b */                   \
  X(Eigh, "eigh", 1, 2, "", Nonlinear) /* results: eigenvectors, eigenvalues (ascending) */                      \
  X(Svd, "svd", 1, -1, "", Nonlinear) /* results: s, then u and vt when compute_uv */                           \
  X(Qr, "qr", 1, 2, "", Nonlinear) /* results: q, r */                                                          \
  X(Fft, "fft", 1, 1, "", Linear) /* the trailing len(fft_lengths) dims; linear (transposes by JAX's rules) */ \
  X(DynamicSlice, "dynamic_slice", -1, 1, "", Linear)                                                         \
  X(DynamicUpdateSlice, "dynamic_update_slice", -1, 1, "", Linear)                                            \
  /* Ops with regions (Op::regions), each traced once.                                          */  \
  X(Fusion, "fusion", -1, -1, "", Nonlinear) /* per-device only: one LLVM loop; row fusions may have several results */ \
  X(ShardMap, "shard_map", -1, -1, "", Linear) /* region: the body on local types */                         \
  X(HostCallback, "debug_callback", -1, 0, "", Nonlinear)                                                        \
  /* Functions with user-defined derivatives (jax.custom_jvp / custom_vjp): the region is the     \
     function, inlined before partitioning; autodiff calls the rule instead of differentiating it. */ \
  X(CustomJvpCall, "custom_jvp_call", -1, -1, "", Nonlinear)                                                    \
  X(CustomVjpCall, "custom_vjp_call", -1, -1, "", Nonlinear)                                                    \
  X(CustomVjpLin, "custom_lin", -1, -1, "", Linear) /* operands: residuals, tangents; transposed by bwd */    \
  X(Checkpoint, "checkpoint", -1, -1, "", Nonlinear) /* jax.checkpoint: the region is recomputed, not saved */  \
  X(While, "while", -1, -1, "", Nonlinear) /* regions: cond (cond consts, carries) -> bool[],                  \
                                   body (body consts, carries) -> carries */                         \
  X(Cond, "cond", -1, -1, "", Linear)   /* regions: the branches, each (operands) -> results */             \
  X(Scan, "scan", -1, -1, "", Linear)   /* region: body (consts, carries, x slices) -> (carries, y slices) */

enum class OpKind : uint8_t {
#define X(e, n, a, r, l, lin) e,
  SHARD_IR_OPS(X)
#undef X
};

// An op's attributes: its kind's struct (ir/attrs.hpp); the variant's index is the kind's
// position plus one (Unset comes first).
using Attrs = std::variant<attr::Unset
#define X(e, n, a, r, l, lin) , attr::e
                           SHARD_IR_OPS(X)
#undef X
                           >;
constexpr size_t attrs_index(OpKind k) { return static_cast<size_t>(k) + 1; }
// The kind whose attributes these are (Unset: none, a bug in shard).
inline OpKind attrs_kind(const Attrs& a) { return static_cast<OpKind>(a.index() - 1); }
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
const std::vector<std::string>& collective_axes(const Attrs& attrs);
inline const std::vector<std::string>& collective_axes(const Op& op) { return collective_axes(op.attrs); }

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
