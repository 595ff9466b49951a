// The kernels of the linear-algebra primitives (primitives/linalg/): LAPACK through
// OpenBLAS's Fortran symbols, on row-major float32 / float64 matrices. Each kernel loops over
// `batch` matrices stored one after another (the leading dims of the operand, flattened) and
// runs on the device thread that calls it, like the other host kernels.
//
// Failures follow JAX: a matrix that is not positive definite (cholesky) or whose
// eigen / singular value iteration does not converge gives NaNs in its results; a singular
// matrix is not a failure of LU (its U has a zero on the diagonal).
#pragma once
#include <cstdint>

#include "types/dtype.hpp"

namespace shard::exec {

// out = the lower Cholesky factor of each n x n matrix (its lower triangle read; zeros above).
void cholesky_kernel(types::DType dtype, int64_t batch, int64_t n, const void* in, void* out);
// P a = L U with partial pivoting (getrf) of each m x n matrix: `lu` holds L below the
// diagonal (unit diagonal implied) and U on and above it; pivots (min(m, n), int32, 0-based)
// are the row swaps, permutation (m, int32) the rows of a in the order of P a.
void lu_kernel(types::DType dtype, int64_t batch, int64_t m, int64_t n, const void* a, void* lu, int32_t* pivots,
               int32_t* permutation);
// Solves op(a) x = b (left_side) or x op(a) = b for x, a (m x m when left_side, else n x n)
// triangular, b and x m x n.
struct TriangularSolveParams {
  bool left_side = false, lower = false, transpose_a = false, unit_diagonal = false;
};
void triangular_solve_kernel(types::DType dtype, int64_t batch, int64_t m, int64_t n, const TriangularSolveParams& p,
                             const void* a, const void* b, void* x);
// Eigenvectors (columns of v, n x n) and ascending eigenvalues w (n) of each symmetric
// n x n matrix, reading its lower (or upper) triangle.
void eigh_kernel(types::DType dtype, int64_t batch, int64_t n, bool lower, const void* a, void* v, void* w);
// a = u diag(s) vt for each m x n matrix, k = min(m, n): s (k) descending; u m x m and
// vt n x n (full_matrices) or m x k and k x n; u and vt null when not wanted.
void svd_kernel(types::DType dtype, int64_t batch, int64_t m, int64_t n, bool full_matrices, const void* a, void* s,
                void* u, void* vt);
// a = q r for each m x n matrix, k = min(m, n): q m x m and r m x n (full_matrices) or
// q m x k and r k x n; r upper triangular.
void qr_kernel(types::DType dtype, int64_t batch, int64_t m, int64_t n, bool full_matrices, const void* a, void* q, void* r);

}  // namespace shard::exec
