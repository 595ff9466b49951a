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
#include <vector>

#include "ast/ast.hpp"
#include "ir/elementwise_ops.hpp"
#include "ir/reduce_kind.hpp"
#include "types/array_type.hpp"

namespace shard::ir {

using types::ArrayType;
using types::DType;
using types::PartitionSpec;

// X(Enum, "printed name", operands (-1 = variadic), results (-1 = variadic), "ledger name"
//   of a collective (the kind of communication in the cost ledger; "" for local ops))
#define SHARD_IR_OPS(X)                                                                    \
  X(Elementwise, "", -1, 1, "")            /* ew: the scalar op; prints as e.g. `sin`, `add` */ \
  X(Constant, "constant", 0, 1, "")        /* literal bytes, in the result type's dtype      */ \
  X(Iota, "iota", 0, 1, "")                /* axis: the dimension that counts               */ \
  X(BroadcastInDim, "broadcast_in_dim", 1, 1, "") /* dims: operand dim i -> result dim dims[i] */ \
  X(Reshape, "reshape", 1, 1, "")          /* result type's shape                           */ \
  X(Transpose, "transpose", 1, 1, "")      /* dims: permutation                             */ \
  X(Slice, "slice", 1, 1, "")              /* dims: starts, dims2: limits, dims3: strides   */ \
  X(Concatenate, "concatenate", -1, 1, "") /* axis                                          */ \
  X(Pad, "pad", 2, 1, "")                  /* dims: low, dims2: high (operand, pad value)   */ \
  X(Rev, "rev", 1, 1, "")                  /* dims: reversed dimensions                     */ \
  X(Reduce, "reduce", 1, 1, "")            /* reduce: kind; dims: reduced axes              */ \
  X(ArgReduce, "arg", 1, 1, "")            /* reduce: Max/Min; axis; dtype: index type      */ \
  X(Cumulative, "cum", 1, 1, "")           /* reduce: kind; axis; flag: reverse             */ \
  X(Sort, "sort", 1, 1, "")                /* axis                                          */ \
  X(DotGeneral, "dot_general", 2, 1, "")   /* dims/dims2: lhs/rhs contracting, dims3/dims4: batch */ \
  X(Reshard, "reshard", 1, 1, "")          /* result type carries the new sharding          */ \
  X(ShardingConstraint, "sharding_constraint", 1, 1, "") /* spec                            */ \
  X(AllReduce, "psum", 1, 1, "all-reduce")           /* reduce: kind; axes                            */ \
  X(AllGather, "all_gather", 1, 1, "all-gather")     /* axes; axis; flag: tiled                       */ \
  X(ReduceScatter, "psum_scatter", 1, 1, "reduce-scatter") /* reduce; axes; axis; flag: tiled             */ \
  X(AllToAll, "all_to_all", 1, 1, "all-to-all")      /* axes; axis: split, axis2: concat; flag: tiled */ \
  X(CollectivePermute, "ppermute", 1, 1, "collective-permute") /* axes; pairs: (source, destination)          */ \
  X(AxisIndex, "axis_index", 0, 1, "")     /* axes                                          */ \
  X(DynamicSlice, "dynamic_slice", -1, 1, "") /* operand, start indices...; dims: sizes     */ \
  X(DynamicUpdateSlice, "dynamic_update_slice", -1, 1, "") /* operand, update, starts...    */ \
  /* Control flow: the bodies are regions (Op::regions), each traced once.                */ \
  X(Fusion, "fusion", -1, 1, "") /* per-device only: a chain of elementwise / broadcast / convert \
                                ops as one region, lowered to one LLVM loop (spmd/fusion)  */ \
  X(ShardMap, "shard_map", -1, -1, "") /* operands: global values; region: the body on local     \
                                types; axes: manual axes; specs / specs2: in / out specs   */ \
  X(HostCallback, "debug_callback", -1, 0, "") /* payload: the callable (exec::HostCallback);  \
                                axes: what identifies it (format, Python values); flag: the \
                                operands vary over manual axes (every device prints)       */ \
  X(While, "while", -1, -1, "")  /* cond_consts, body_consts, carries -> carries; dims: {ncc, nbc};  \
                                regions: cond (cond_consts, carries) -> bool[],             \
                                body (body_consts, carries) -> carries                     */ \
  X(Cond, "cond", -1, -1, "")    /* index (i32[]), operands -> results; regions: the branches,    \
                                each (operands) -> results; index clamped into range       */ \
  X(Scan, "scan", -1, -1, "")    /* consts, carries, xs -> carries, ys; dims: {nconsts, ncarry};  \
                                axis: length; flag: reverse; region: body (consts, carries, \
                                x slices) -> (carries, y slices)                           */

enum class OpKind : uint8_t {
#define X(e, n, a, r, l) e,
  SHARD_IR_OPS(X)
#undef X
};

using ir::ReduceKind;
using ir::reduce_kind_name;

// Literal data of a Constant, shared (constants can be large arrays closed over by jit).
struct Literal {
  std::vector<uint8_t> bytes;  // row-major, the result dtype
};

// Attributes; each op kind documents the fields it uses (SHARD_IR_OPS comments).
struct Attrs {
  EwOp ew = EwOp::Add;
  ReduceKind reduce = ReduceKind::Sum;
  std::vector<int64_t> dims, dims2, dims3, dims4;
  int64_t axis = 0, axis2 = 0;
  bool flag = false;
  DType dtype = DType::I32;
  std::vector<std::string> axes;
  std::vector<std::pair<int64_t, int64_t>> pairs;
  std::optional<PartitionSpec> spec;
  std::vector<PartitionSpec> specs, specs2;
  // Host-side data a lowering needs that is not part of the op's structure (compared through
  // `axes` instead), e.g. a host callback's callable.
  std::shared_ptr<const void> payload;
  std::shared_ptr<const Literal> literal;
};

using ValueId = int32_t;
struct Function;

struct Op {
  OpKind kind;
  std::vector<ValueId> operands;
  std::vector<ValueId> results;
  Attrs attrs;
  ast::Loc loc;  // the user's call that produced this op (errors point here)
  std::vector<std::shared_ptr<const Function>> regions;  // bodies of control-flow ops
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

// The primitive name as printed (`sin`, `add`, `reduce_sum`, `argmax`, `cumsum`, `psum`...).
std::string op_display_name(const Op& op);

// jaxpr-like text:
//   { lambda ; a:f32[8@dp,4] b:f32[8@dp,4]. let
//       c:f32[8@dp,4] = add a b
//     in (c,) }
std::string print(const Function& f);

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
