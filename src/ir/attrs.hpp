// Each operation kind's attributes as a small struct with named fields (named as JAX's
// primitive parameters where JAX has them). ir::Attrs is the variant of all of them, in
// OpKind order, so an op's attributes say which kind they belong to and the verifier checks
// the two agree. Equality and hashing come from each struct's fields(): the compile cache
// compares programs through them.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "ir/elementwise_ops.hpp"
#include "ir/reduce_kind.hpp"
#include "types/array_type.hpp"

namespace shard::ir {

// Literal data of a Constant, shared (constants can be large arrays closed over by jit).
struct Literal {
  std::vector<uint8_t> bytes;  // row-major, the result dtype
};

namespace attr {

using Ints = std::vector<int64_t>;
using Names = std::vector<std::string>;

// The fields that make two attributes the same; equality follows.
#define SHARD_ATTR_FIELDS(T, ...)                                      \
  auto fields() const { return std::tie(__VA_ARGS__); }               \
  bool operator==(const T& o) const { return fields() == o.fields(); }
#define SHARD_ATTR_NONE(T)                     \
  auto fields() const { return std::tie(); }   \
  bool operator==(const T&) const { return true; }

struct Unset {  // not given yet: ir::Builder puts the kind's empty attributes here
  SHARD_ATTR_NONE(Unset)
};
struct Elementwise {
  EwOp op = EwOp::Add;
  int64_t y = 0;  // integer_pow's exponent
  SHARD_ATTR_FIELDS(Elementwise, op, y)
};
struct Constant {
  std::shared_ptr<const Literal> literal;
  auto fields() const { return std::tie(literal); }
  bool operator==(const Constant& o) const {
    return literal == o.literal || (literal && o.literal && literal->bytes == o.literal->bytes);
  }
};
struct Iota {
  int64_t dimension = 0;
  SHARD_ATTR_FIELDS(Iota, dimension)
};
struct BroadcastInDim {
  Ints broadcast_dimensions;  // operand dim i -> result dim broadcast_dimensions[i]
  SHARD_ATTR_FIELDS(BroadcastInDim, broadcast_dimensions)
};
struct Reshape {  // the result type's shape
  SHARD_ATTR_NONE(Reshape)
};
struct Transpose {
  Ints permutation;  // result dim j is operand dim permutation[j]
  SHARD_ATTR_FIELDS(Transpose, permutation)
};
struct Slice {
  Ints start_indices, limit_indices, strides;  // strides empty: all 1
  SHARD_ATTR_FIELDS(Slice, start_indices, limit_indices, strides)
};
struct Concatenate {
  int64_t dimension = 0;
  SHARD_ATTR_FIELDS(Concatenate, dimension)
};
struct Pad {  // operands: the array, the padding value
  Ints low, high;
  SHARD_ATTR_FIELDS(Pad, low, high)
};
struct Rev {
  Ints dimensions;
  SHARD_ATTR_FIELDS(Rev, dimensions)
};
struct Reduce {
  ReduceKind kind = ReduceKind::Sum;
  Ints axes;
  SHARD_ATTR_FIELDS(Reduce, kind, axes)
};
struct ArgReduce {
  ReduceKind kind = ReduceKind::Max;  // Max or Min
  int64_t axis = 0;
  types::DType index_dtype = types::DType::I32;
  SHARD_ATTR_FIELDS(ArgReduce, kind, axis, index_dtype)
};
struct Cumulative {
  ReduceKind kind = ReduceKind::Sum;
  int64_t axis = 0;
  bool reverse = false;
  SHARD_ATTR_FIELDS(Cumulative, kind, axis, reverse)
};
struct Sort {  // operands: keys, then payloads; results: each operand sorted by the keys
  int64_t dimension = 0;
  int64_t num_keys = 1;  // lexicographic over the first num_keys operands
  SHARD_ATTR_FIELDS(Sort, dimension, num_keys)
};
struct DotGeneral {
  Ints lhs_contracting, rhs_contracting, lhs_batch, rhs_batch;
  SHARD_ATTR_FIELDS(DotGeneral, lhs_contracting, rhs_contracting, lhs_batch, rhs_batch)
};
struct Reshard {  // the result type carries the new sharding
  SHARD_ATTR_NONE(Reshard)
};
struct ShardingConstraint {
  std::optional<types::PartitionSpec> sharding;  // the layout on every mesh axis
  SHARD_ATTR_FIELDS(ShardingConstraint, sharding)
};
struct AllReduce {
  ReduceKind kind = ReduceKind::Sum;
  Names axes;
  SHARD_ATTR_FIELDS(AllReduce, kind, axes)
};
struct AllGather {
  Names axes;
  int64_t all_gather_dimension = 0;
  bool tiled = false;
  SHARD_ATTR_FIELDS(AllGather, axes, all_gather_dimension, tiled)
};
struct ReduceScatter {
  ReduceKind kind = ReduceKind::Sum;
  Names axes;
  int64_t scatter_dimension = 0;
  bool tiled = false;
  SHARD_ATTR_FIELDS(ReduceScatter, kind, axes, scatter_dimension, tiled)
};
struct AllToAll {
  Names axes;
  int64_t split_axis = 0, concat_axis = 0;
  bool tiled = false;
  SHARD_ATTR_FIELDS(AllToAll, axes, split_axis, concat_axis, tiled)
};
struct CollectivePermute {
  Names axes;
  std::vector<std::pair<int64_t, int64_t>> perm;  // (source, destination) positions
  SHARD_ATTR_FIELDS(CollectivePermute, axes, perm)
};
struct AxisIndex {
  Names axes;
  SHARD_ATTR_FIELDS(AxisIndex, axes)
};
// Linear algebra (src/primitives/linalg/): parameters as JAX's lax.linalg primitives name them.
struct Cholesky {  // the lower factor; the strict upper triangle of the result is zero
  SHARD_ATTR_NONE(Cholesky)
};
struct Lu {  // partial pivoting, as LAPACK's getrf
  SHARD_ATTR_NONE(Lu)
};
struct TriangularSolve {  // solves op(a) x = b (left_side) or x op(a) = b
  bool left_side = false, lower = false, transpose_a = false, conjugate_a = false, unit_diagonal = false;
  SHARD_ATTR_FIELDS(TriangularSolve, left_side, lower, transpose_a, conjugate_a, unit_diagonal)
};
struct Eigh {  // symmetric eigendecomposition reading one triangle of the input
  bool lower = true, sort_eigenvalues = true;
  SHARD_ATTR_FIELDS(Eigh, lower, sort_eigenvalues)
};
struct Svd {
  bool full_matrices = true, compute_uv = true;
  SHARD_ATTR_FIELDS(Svd, full_matrices, compute_uv)
};
struct Qr {
  bool full_matrices = true;
  SHARD_ATTR_FIELDS(Qr, full_matrices)
};
// jax.lax.fft (primitives/fft/): the transform over the last len(fft_lengths) dims.
enum class FftType : uint8_t { Fft, Ifft, Rfft, Irfft };
struct Fft {
  FftType fft_type = FftType::Fft;
  Ints fft_lengths;
  SHARD_ATTR_FIELDS(Fft, fft_type, fft_lengths)
};
struct DynamicSlice {  // operands: the array, then one int32 start per dim
  Ints slice_sizes;
  SHARD_ATTR_FIELDS(DynamicSlice, slice_sizes)
};
struct DynamicUpdateSlice {  // operands: the array, the update, then one start per dim
  SHARD_ATTR_NONE(DynamicUpdateSlice)
};
struct Fusion {
  SHARD_ATTR_NONE(Fusion)
};
struct ShardMap {
  Names manual_axes;
  bool check_vma = true;
  std::vector<types::PartitionSpec> in_specs, out_specs;
  // The concrete mesh the body runs on (device ids row-major, axis sizes): where a jitted
  // program without committed inputs or context mesh must run.
  Ints device_ids, mesh_shape;
  types::AbstractMesh mesh;  // the shard_map's mesh, outer axis types (transforms rebuild bodies on it)
  SHARD_ATTR_FIELDS(ShardMap, manual_axes, check_vma, in_specs, out_specs, device_ids, mesh_shape, mesh)
};
struct HostCallback {
  Names identity;  // what identifies the callback (format, Python values): compared, hashed
  bool varying = false;  // operands vary over manual axes: every device calls back
  std::shared_ptr<const void> callable;  // exec::HostCallback; equal identities call alike
  // Set by the complex lowering (spmd/lower_complex): operand i holds the parts of a complex
  // value of dtype complex_operands[i] (empty, or an entry that is not complex: as typed).
  std::vector<types::DType> complex_operands;
  SHARD_ATTR_FIELDS(HostCallback, identity, varying, complex_operands)
};
// The rules are callables of the autodiff layer (autodiff/custom_rules.hpp); `identity`
// names the Python function they come from (compared, hashed).
struct CustomJvpCall {
  Names identity;
  std::shared_ptr<const void> rule;  // autodiff::CustomJvpRule
  SHARD_ATTR_FIELDS(CustomJvpCall, identity)
};
struct CustomVjpCall {
  Names identity;
  std::shared_ptr<const void> fwd;  // autodiff::CustomVjpFwd
  SHARD_ATTR_FIELDS(CustomVjpCall, identity)
};
struct CustomVjpLin {
  Names identity;
  int64_t num_residuals = 0;
  std::shared_ptr<const void> bwd;  // autodiff::CustomVjpBwd
  SHARD_ATTR_FIELDS(CustomVjpLin, identity, num_residuals)
};
struct Checkpoint {
  std::string policy = "nothing_saveable";  // which residuals reverse mode may keep
  SHARD_ATTR_FIELDS(Checkpoint, policy)
};
struct While {  // operands: cond consts, body consts, carries
  int64_t cond_nconsts = 0, body_nconsts = 0;
  SHARD_ATTR_FIELDS(While, cond_nconsts, body_nconsts)
};
struct Cond {  // operands: the branch index, then the branches' operands
  SHARD_ATTR_NONE(Cond)
};
struct Scan {  // operands: consts, carries, xs
  int64_t num_consts = 0, num_carry = 0, length = 0;
  bool reverse = false;
  SHARD_ATTR_FIELDS(Scan, num_consts, num_carry, length, reverse)
};

#undef SHARD_ATTR_FIELDS
#undef SHARD_ATTR_NONE

}  // namespace attr
}  // namespace shard::ir
