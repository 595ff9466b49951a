// Linear algebra on the last two dims of an array (the leading dims are a batch), as JAX's
// lax.linalg primitives: cholesky, lu, triangular_solve, eigh, svd, qr. Each is defined in
// one file of this folder with its shape and dtype checks, sharding rule, trace entry point,
// JVP rule (and transpose for triangular_solve, linear in b) and batching rule. Elsewhere a
// primitive is named only by its IR row (ir/ir.hpp), attributes (ir/attrs.hpp), kernel
// (exec/lapack_kernels.cpp, called from exec/lower.cpp), the partitioner's rewrite (matrix
// dims whole, batch dims as they are) and the Python bindings (jax.lax.linalg and the
// jax.numpy.linalg compositions in api/modules/jnp_module_linalg_*.cpp).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ir/ir.hpp"
#include "sharding/common.hpp"
#include "trace/trace.hpp"

namespace shard::sharding {

// The result types of a linalg primitive: each result's shape is the batch dims of the
// operands followed by its own trailing dims. Checks JAX's rules first: the operands are
// float, their matrix dims (the last two) are unsharded, and their batch dims agree in
// sharding; the results' batch dims take that sharding.
struct LinalgResult {
  Shape trailing;  // the dims after the batch dims
  DType dtype;
};
std::vector<ArrayType> propagate_linalg(const RuleContext& ctx, const std::vector<ArrayType>& operands,
                                        const std::vector<LinalgResult>& results);

}  // namespace shard::sharding

namespace shard::trace {

// The primitives, on operands of rank >= 2 (checked with JAX's messages).
ValueId cholesky(Trace& t, ValueId x);  // the lower factor, zeros above the diagonal
struct LuResult {
  ValueId lu, pivots, permutation;
};
LuResult lu(Trace& t, ValueId x);
ValueId triangular_solve(Trace& t, ValueId a, ValueId b, const ir::attr::TriangularSolve& params);
struct EighResult {
  ValueId v, w;  // eigenvectors (columns), ascending eigenvalues
};
EighResult eigh(Trace& t, ValueId x, bool lower = true);
struct SvdResult {
  ValueId s, u = -1, vt = -1;  // u, vt only when compute_uv
};
SvdResult svd(Trace& t, ValueId x, bool full_matrices, bool compute_uv);
struct QrResult {
  ValueId q, r;
};
QrResult qr(Trace& t, ValueId x, bool full_matrices);

// Helpers the rules and the jnp compositions share (common.cpp).
namespace linalg {
// Swaps the last two dims.
ValueId mT(Trace& t, ValueId x);
// x with the elements off one side of diagonal k zeroed over the last two dims: tril keeps
// col - row <= k, triu col - row >= k.
ValueId tril(Trace& t, ValueId x, int64_t k = 0);
ValueId triu(Trace& t, ValueId x, int64_t k = 0);
// The n x n identity in x's dtype, broadcast to `batch` + (n, n).
ValueId eye_like(Trace& t, ValueId x, int64_t n);
// The diagonal of the last two dims: shape batch + (min(m, n),), by a mask and a sum (linear).
ValueId diagonal(Trace& t, ValueId x);
// The operands with their batch dims broadcast to a common shape; a broadcast operand takes
// the batch sharding of one that has the whole batch. Operands of rank < 2 are returned as
// they are.
std::vector<ValueId> broadcast_batch(Trace& t, std::vector<ValueId> xs);
// Batched matrix products over the last two dims, batch dims broadcast.
ValueId matmul(Trace& t, ValueId a, ValueId b);
// The rows of x (last-but-one dim) taken in the order of `permutation` (int32, batch + (m,)):
// a one-hot permutation matrix times x, linear in x.
ValueId permute_rows(Trace& t, ValueId x, ValueId permutation);
// The batch shape of x (all but the last `trailing` dims).
types::Shape batch_shape(const ArrayType& x, size_t trailing = 2);
// JAX's check that an operand is a (batch of) matrices: rank >= 2, else `message`.
void require_matrix(const ArrayType& x, const std::string& primitive);
void require_square(const ArrayType& x, const std::string& message);
}  // namespace linalg

// jax.numpy.linalg, composed from the primitives as jnp composes them (jnp_linalg.cpp).
// Operands are already inexact; shapes are checked with JAX's messages.
ValueId solve(Trace& t, ValueId a, ValueId b);
ValueId inv(Trace& t, ValueId a);
ValueId det(Trace& t, ValueId a);
struct Slogdet {
  ValueId sign, logabsdet;
};
Slogdet slogdet(Trace& t, ValueId a);
ValueId pinv(Trace& t, ValueId a, std::optional<double> rtol);
ValueId matrix_power(Trace& t, ValueId a, int64_t n);
// cholesky of the symmetrized input (the upper factor when `upper`).
ValueId jnp_cholesky(Trace& t, ValueId a, bool upper, bool symmetrize_input);
// eigh of the symmetrized input: (eigenvalues, eigenvectors).
EighResult jnp_eigh(Trace& t, ValueId a, bool lower, bool symmetrize_input);
// jnp.linalg.norm: `ord` is None (nullopt, with ord_name empty), a number, or a name ('fro',
// 'nuc', 'f'); `axis` None (all dims when ord is None, else the vector or matrix of a rank-1
// or rank-2 x), one dim (a vector norm) or two (a matrix norm; 2, -2 and 'nuc' by svd).
struct NormOrder {
  std::optional<double> value;
  std::string name;  // 'fro', 'f' or 'nuc' when given as a string
};
ValueId norm(Trace& t, ValueId x, const NormOrder& ord, std::optional<std::vector<int64_t>> axis, bool keepdims);
// jnp.linalg.matrix_rank: the singular values above rtol * the largest (default
// max(m, n) * eps), counted.
ValueId matrix_rank(Trace& t, ValueId a, std::optional<double> rtol);
// (a + a^T) / 2
ValueId symmetrize(Trace& t, ValueId a);

}  // namespace shard::trace
