// The trace-time sharding rules (SHARDING_RULES.md): one free function per primitive, grouped
// by op family, each returning the result type (shape, dtype, sharding, varying manual axes)
// or throwing a types::ShardingError that names the op (ctx.op), shows the operand types and
// says how to fix it. The framework they share (§0) is in common.hpp.
//
// Conventions: axes are Python-style (negative counts from the end) unless noted; `weak_type`
// of results follows JAX (elementwise: all inputs weak; shape ops: the operand's).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sharding/common.hpp"

namespace shard::sharding {

// ---- elementwise.cpp (§1) ---------------------------------------------------------------------

// sin, exp, neg, astype, ...: the operand's sharding.
ArrayType propagate_unary(const RuleContext& ctx, const ArrayType& x, DType out_dtype);
// Binary / n-ary with numpy broadcasting (ranks aligned by prepending size-1 dims; scalars
// take no part): per dim equal specs, else None on size-1 dims ignored, else first non-None
// wins and None never conflicts; two different non-None specs are an error.
ArrayType propagate_elementwise(const RuleContext& ctx, const std::vector<ArrayType>& operands,
                                DType out_dtype);
// where/select: cases of equal shapes must have equal shardings; otherwise (and for the
// predicate) the broadcasting rule.
ArrayType propagate_where(const RuleContext& ctx, const ArrayType& pred, const ArrayType& on_true,
                          const ArrayType& on_false);
// clamp / clip: the operand's sharding (bounds broadcast against it, None never conflicts).
ArrayType propagate_clamp(const RuleContext& ctx, const ArrayType& lo, const ArrayType& x,
                          const ArrayType& hi);

// ---- creation.cpp (§2) -------------------------------------------------------------------------

// zeros ones full empty arange linspace eye broadcasted_iota random.*: replicated over the
// context mesh unless out_sharding (PartitionSpec against the context mesh, or NamedSharding).
ArrayType propagate_creation(const RuleContext& ctx, DType dtype, const Shape& shape,
                             const OptOutSharding& out_sharding, bool weak_type = false);
// zeros_like ones_like full_like: the input's sharding and VMA when the shape is kept (none
// given or equal), else replicated; out_sharding overrides.
ArrayType propagate_full_like(const RuleContext& ctx, const ArrayType& x, DType dtype,
                              const std::optional<Shape>& shape,
                              const OptOutSharding& out_sharding);

// ---- shape.cpp (§3) ----------------------------------------------------------------------------

// Operand dim i becomes result dim broadcast_dimensions[i] (keeps its spec); new dims None.
ArrayType propagate_broadcast_in_dim(const RuleContext& ctx, const ArrayType& x, const Shape& shape,
                                     const std::vector<int64_t>& broadcast_dimensions,
                                     const OptOutSharding& out_sharding = std::nullopt);
// numpy broadcast_to (trailing alignment).
ArrayType propagate_broadcast_to(const RuleContext& ctx, const ArrayType& x, const Shape& shape,
                                 const OptOutSharding& out_sharding = std::nullopt);
// New size-1 dims at `axes` (positions in the result), spec None.
ArrayType propagate_expand_dims(const RuleContext& ctx, const ArrayType& x,
                                const std::vector<int64_t>& axes);
// Removes the listed size-1 dims (their sharding goes with them); squeeze_all: every one.
ArrayType propagate_squeeze(const RuleContext& ctx, const ArrayType& x,
                            const std::vector<int64_t>& dims);
ArrayType propagate_squeeze_all(const RuleContext& ctx, const ArrayType& x);
// Spec permuted; an empty `perm` reverses the dims (x.T).
ArrayType propagate_transpose(const RuleContext& ctx, const ArrayType& x,
                              const std::vector<int64_t>& perm);
// rev / flip: same sharding.
ArrayType propagate_rev(const RuleContext& ctx, const ArrayType& x,
                        const std::vector<int64_t>& dims);
// All operands must have identical shardings; stack puts None on the new dim.
ArrayType propagate_concatenate(const RuleContext& ctx, const std::vector<ArrayType>& operands,
                                int64_t axis);
ArrayType propagate_stack(const RuleContext& ctx, const std::vector<ArrayType>& operands,
                          int64_t axis);

// ---- reshape.cpp (§3) --------------------------------------------------------------------------

// (1) out_sharding; (2) replicated operand; (3) only size-1 dims added/removed; (4) one dim
// split; (5) several dims merged; (6) anything else with a sharded dim: error. `new_sizes` may
// hold one -1 (inferred).
ArrayType propagate_reshape(const RuleContext& ctx, const ArrayType& x, const Shape& new_sizes,
                            const OptOutSharding& out_sharding = std::nullopt);
// jnp.tile / jnp.repeat, as JAX builds them (broadcast + reshape): tiling a sharded dim more
// than once is an error; repeat keeps the repeated dim's sharding (axis=None flattens first).
ArrayType propagate_tile(const RuleContext& ctx, const ArrayType& x,
                         const std::vector<int64_t>& reps);
ArrayType propagate_repeat(const RuleContext& ctx, const ArrayType& x, int64_t repeats,
                           std::optional<int64_t> axis);

// ---- slicing.cpp (§3) --------------------------------------------------------------------------

// x[a:b:c] / lax.slice: sharding kept when each changed sharded dim still divides by its
// axes, else error; all-size-1 and scalar results are replicated.
ArrayType propagate_slice(const RuleContext& ctx, const ArrayType& x, const Shape& start,
                          const Shape& limit, const Shape& strides = {});
// x[i] with static integer indices at `dims`: those dims are removed (their sharding dropped).
ArrayType propagate_index(const RuleContext& ctx, const ArrayType& x,
                          const std::vector<int64_t>& dims);
ArrayType propagate_dynamic_slice(const RuleContext& ctx, const ArrayType& x, const Shape& sizes);
// Operand and update must have equal shardings.
ArrayType propagate_dynamic_update_slice(const RuleContext& ctx, const ArrayType& x,
                                         const ArrayType& update);
// .at[idx].set/add/...: a scalar update is fine; otherwise the update's spec must equal the
// operand's trailing dims' specs (numpy alignment of the update against the indexed block).
ArrayType propagate_at_update(const RuleContext& ctx, const ArrayType& x, const ArrayType& update);
// lax.pad / jnp.pad with (low, high, interior) per dim.
struct PadDim {
  int64_t low = 0, high = 0, interior = 0;
};
ArrayType propagate_pad(const RuleContext& ctx, const ArrayType& x,
                        const std::vector<PadDim>& config);
// lax.split / jnp.split with explicit sizes along `axis`.
std::vector<ArrayType> propagate_split(const RuleContext& ctx, const ArrayType& x,
                                       const std::vector<int64_t>& sizes, int64_t axis);

// ---- contraction.cpp (§4) ----------------------------------------------------------------------

struct DotDims {
  std::vector<int64_t> lhs_contracting, rhs_contracting, lhs_batch, rhs_batch;  // dims >= 0
};
// Output = batch dims, lhs free dims, rhs free dims. Batch specs must be equal; a contracting
// pair sharded on both sides is ambiguous (error proposing the cheapest out_sharding); one
// side only: dropped. out_sharding is used as is (unreduced axes: stretch, checked).
ArrayType propagate_dot_general(const RuleContext& ctx, const ArrayType& lhs, const ArrayType& rhs,
                                const DotDims& dims, DType out_dtype,
                                const OptOutSharding& out_sharding = std::nullopt);
// jnp.matmul / @ (numpy batch broadcasting, 1-D operands), jnp.dot, jnp.tensordot.
ArrayType propagate_matmul(const RuleContext& ctx, const ArrayType& lhs, const ArrayType& rhs,
                           DType out_dtype, const OptOutSharding& out_sharding = std::nullopt);
ArrayType propagate_dot(const RuleContext& ctx, const ArrayType& lhs, const ArrayType& rhs,
                        DType out_dtype, const OptOutSharding& out_sharding = std::nullopt);
ArrayType propagate_tensordot(const RuleContext& ctx, const ArrayType& lhs, const ArrayType& rhs,
                              const std::vector<int64_t>& lhs_axes,
                              const std::vector<int64_t>& rhs_axes, DType out_dtype,
                              const OptOutSharding& out_sharding = std::nullopt);

// ---- reduction.cpp (§5) ------------------------------------------------------------------------

// sum max min prod mean all any var std (empty `axes` = all): reduced dims' entries dropped
// (kept as None with keepdims).
ArrayType propagate_reduce(const RuleContext& ctx, const ArrayType& x,
                           const std::vector<int64_t>& axes, DType out_dtype,
                           bool keepdims = false);
ArrayType propagate_reduce_all(const RuleContext& ctx, const ArrayType& x, DType out_dtype,
                               bool keepdims = false);
// argmax / argmin along one axis (none: over the flattened array).
ArrayType propagate_argminmax(const RuleContext& ctx, const ArrayType& x,
                              std::optional<int64_t> axis, DType index_dtype,
                              bool keepdims = false);
// cumsum cumprod cummax cummin (and sort, top_k's axis): the scanned dim must be unsharded.
ArrayType propagate_cumulative(const RuleContext& ctx, const ArrayType& x, int64_t axis);
ArrayType propagate_sort(const RuleContext& ctx, const ArrayType& x, int64_t axis);

// ---- resharding.cpp (§6) -----------------------------------------------------------------------

// reshard(x, spec): the type becomes the spec (padded); None, no mesh for a P, and Auto or
// Manual axes are errors.
ArrayType propagate_reshard(const RuleContext& ctx, const ArrayType& x, const OptOutSharding& s);
// device_put(x, NamedSharding | P): any axis types (Auto axes just leave the type).
ArrayType propagate_device_put(const RuleContext& ctx, const ArrayType& x, const OutSharding& s);
// with_sharding_constraint: on a mesh with Auto axes only Auto axes may be named (type
// unchanged); on an all-Explicit mesh it asserts the type has that sharding.
ArrayType check_with_sharding_constraint(const RuleContext& ctx, const ArrayType& x,
                                         const OutSharding& s);

// auto_axes / explicit_axes: the meshes inside and outside and the types crossing them.
struct AxesScope {
  AbstractMesh outer, inner;
  AxisNames axes;      // the switched axes, mesh order
  bool noop = false;   // auto_axes over axes already Auto: f is just called
};
// The mesh is the context mesh, or (none in context) the mesh of a NamedSharding passed as
// out_sharding / in_sharding, as in JAX; both given and different is an error.
AxesScope enter_auto_axes(const AbstractMesh& context_mesh, const std::optional<AxisNames>& axes,
                          const OptOutSharding& out_sharding = std::nullopt);
AxesScope enter_explicit_axes(const AbstractMesh& context_mesh,
                              const std::optional<AxisNames>& axes,
                              const OptOutSharding& in_sharding = std::nullopt);
// An argument as f sees it inside auto_axes: the now-Auto axes leave its type.
ArrayType auto_axes_argument(const AxesScope& scope, const ArrayType& arg);
// f's result outside: resharded to out_sharding (against the outer mesh). Missing ->
// TypeError naming the keyword.
ArrayType auto_axes_result(const AxesScope& scope, const ArrayType& result,
                           const OptOutSharding& out_sharding);
// explicit_axes: arguments are resharded to in_sharding inside (missing -> TypeError);
// results leave with the outer-Auto axes dropped from their types.
ArrayType explicit_axes_argument(const AxesScope& scope, const ArrayType& arg,
                                 const OptOutSharding& in_sharding);
ArrayType explicit_axes_result(const AxesScope& scope, const ArrayType& result);

// ---- shard_map_vma.cpp (§7) --------------------------------------------------------------------

struct ShardMapSpec {
  std::string fun_name;   // f.__name__, for messages
  AbstractMesh mesh;      // the shard_map's mesh with its outer axis types
  AxisNames manual_axes;  // axis_names (default: all mesh axes), mesh order
  bool check_vma = true;  // check_vma (legacy check_rep)
  bool legacy = false;    // jax.experimental.shard_map.shard_map: messages say check_rep
};
// Validates axis_names (unknown names; empty mesh).
ShardMapSpec make_shard_map_spec(std::string fun_name, const AbstractMesh& mesh,
                                 const std::optional<AxisNames>& axis_names, bool check_vma,
                                 bool legacy = false);
// The context mesh inside: manual axes of type Manual.
AbstractMesh shard_map_inner_mesh(const ShardMapSpec& sm);
// How an argument / output and its spec are named in messages: args[0], in_specs[0], and the
// parameter it binds to ("" when unknown).
struct SpecSite {
  std::string value_path = "[0]";  // keystr of the value: [0], [1]['w']
  std::string spec_path = "[0]";   // keystr of its spec ("" when one spec covers all)
  std::string param_name;          // f's parameter bound to the argument, if known
};
// The local type f sees for a global argument: each dim divided by its in_spec axes (error
// naming the argument, array axis, sizes, mesh axis), VMA = the in_spec axes.
ArrayType shard_map_input(const ShardMapSpec& sm, const ArrayType& global,
                          const PartitionSpec& in_spec, const SpecSite& site = {});
// The global type of an output: each dim times its out_spec axes; with check_vma, a varying
// axis the out_spec leaves out is an error (JAX's message).
ArrayType shard_map_output(const ShardMapSpec& sm, const ArrayType& local,
                           const PartitionSpec& out_spec, const SpecSite& site = {});

// scan / fori_loop / while_loop: carries must keep their types, VMA included.
struct CarryComponent {
  std::string path;  // keystr within the carry: [0], ['h'], "" for a bare carry
  ArrayType in, out;
};
// `loop` is "scan body", "fori_loop body", "while_loop body"; `carry_name` the body's first
// parameter ("" when unknown). Throws TypeError with JAX's message when any component differs.
void check_carry_types(std::string_view loop, std::string_view carry_name,
                       const std::vector<CarryComponent>& components);

// Implicit pvary for multi-operand ops: the axes each operand must be pvary'd over so all
// share the union of their VMAs (empty entries need nothing).
std::vector<AxisNames> implicit_pvary_axes(const RuleContext& ctx,
                                           const std::vector<ArrayType>& operands);

}  // namespace shard::sharding
