// LAPACK through OpenBLAS's Fortran interface. LAPACK works on column-major matrices: each
// kernel copies a row-major matrix into a column-major scratch matrix, runs the routine and
// copies the results back (O(n^2) next to the routines' O(n^3)). Character arguments pass
// their hidden Fortran lengths.
#include "exec/lapack_kernels.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

extern "C" {
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info, size_t);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t);
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void strsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
            const float* alpha, const float* a, const int* lda, float* b, const int* ldb, size_t, size_t, size_t, size_t);
void dtrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
            const double* alpha, const double* a, const int* lda, double* b, const int* ldb, size_t, size_t, size_t, size_t);
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w, float* work,
             const int* lwork, int* iwork, const int* liwork, int* info, size_t, size_t);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
             const int* lwork, int* iwork, const int* liwork, int* info, size_t, size_t);
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u, const int* ldu,
             float* vt, const int* ldvt, float* work, const int* lwork, int* iwork, int* info, size_t);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u, const int* ldu,
             double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info, size_t);
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work, const int* lwork, int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work, const int* lwork, int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau, float* work,
             const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau, double* work,
             const int* lwork, int* info);
}

namespace shard::exec {

namespace {

// The single- and double-precision routine of each name.
template <class T>
struct Lapack;
template <>
struct Lapack<float> {
  static constexpr auto potrf = spotrf_;
  static constexpr auto getrf = sgetrf_;
  static constexpr auto trsm = strsm_;
  static constexpr auto syevd = ssyevd_;
  static constexpr auto gesdd = sgesdd_;
  static constexpr auto geqrf = sgeqrf_;
  static constexpr auto orgqr = sorgqr_;
};
template <>
struct Lapack<double> {
  static constexpr auto potrf = dpotrf_;
  static constexpr auto getrf = dgetrf_;
  static constexpr auto trsm = dtrsm_;
  static constexpr auto syevd = dsyevd_;
  static constexpr auto gesdd = dgesdd_;
  static constexpr auto geqrf = dgeqrf_;
  static constexpr auto orgqr = dorgqr_;
};

// One OpenBLAS thread per call, as for GEMM: each device thread is its own worker, and
// LAPACK runs on several device threads at once.
void single_threaded_blas() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

int dim(int64_t d) {
  if (d > std::numeric_limits<int>::max()) throw std::runtime_error(fmt::format("LAPACK: a dimension of {} is too large", d));
  return static_cast<int>(d);
}

// Row-major rows x cols `src` into column-major `dst` (leading dimension rows), and back.
template <class T>
void to_col_major(const T* src, int64_t rows, int64_t cols, T* dst) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) dst[j * rows + i] = src[i * cols + j];
}
template <class T>
void from_col_major(const T* src, int64_t ld, int64_t rows, int64_t cols, T* dst) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) dst[i * cols + j] = src[j * ld + i];
}

template <class T>
void fill_nan(T* p, int64_t count) {
  std::fill(p, p + count, std::numeric_limits<T>::quiet_NaN());
}

template <class T>
void cholesky(int64_t batch, int64_t n, const T* in, T* out) {
  const int nn = dim(n);
  for (int64_t b = 0; b < batch; ++b) {
    const T* a = in + b * n * n;
    T* l = out + b * n * n;
    // The row-major matrix is its column-major transpose: LAPACK's upper factor U of it (A = U^T U)
    // read back row-major is the lower factor L = U^T, computed from the row-major lower triangle.
    std::copy(a, a + n * n, l);
    int info = 0;
    if (n > 0) Lapack<T>::potrf("U", &nn, l, &nn, &info, 1);
    if (info != 0) { fill_nan(l, n * n); continue; }
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i + 1; j < n; ++j) l[i * n + j] = 0;
  }
}

template <class T>
void lu(int64_t batch, int64_t m, int64_t n, const T* in, T* out, int32_t* pivots, int32_t* permutation) {
  const int64_t k = std::min(m, n);
  const int mm = dim(m), nn = dim(n), ld = std::max(1, mm);
  std::vector<T> col(static_cast<size_t>(m * n));
  std::vector<int> ipiv(static_cast<size_t>(std::max<int64_t>(k, 1)));
  for (int64_t b = 0; b < batch; ++b) {
    to_col_major(in + b * m * n, m, n, col.data());
    int info = 0;  // > 0: an exact zero pivot, which LU reports rather than fails on
    if (k > 0) Lapack<T>::getrf(&mm, &nn, col.data(), &ld, ipiv.data(), &info);
    if (info < 0) throw std::logic_error(fmt::format("internal error: getrf rejected argument {}", -info));
    from_col_major(col.data(), m, m, n, out + b * m * n);
    int32_t* piv = pivots + b * k;
    int32_t* perm = permutation + b * m;
    std::iota(perm, perm + m, 0);
    for (int64_t i = 0; i < k; ++i) {
      piv[i] = ipiv[static_cast<size_t>(i)] - 1;
      std::swap(perm[i], perm[piv[i]]);
    }
  }
}

template <class T>
void triangular_solve(int64_t batch, int64_t m, int64_t n, const TriangularSolveParams& p, const T* a, const T* b, T* x) {
  const int64_t na = p.left_side ? m : n;
  const int mm = dim(m), nn = dim(n), lda = std::max(1, dim(na)), ldb = std::max(1, mm);
  std::vector<T> acol(static_cast<size_t>(na * na)), bcol(static_cast<size_t>(m * n));
  const T one = 1;
  const char side = p.left_side ? 'L' : 'R', uplo = p.lower ? 'L' : 'U', trans = p.transpose_a ? 'T' : 'N',
             diag = p.unit_diagonal ? 'U' : 'N';
  for (int64_t i = 0; i < batch; ++i) {
    to_col_major(a + i * na * na, na, na, acol.data());
    to_col_major(b + i * m * n, m, n, bcol.data());
    if (m > 0 && n > 0)
      Lapack<T>::trsm(&side, &uplo, &trans, &diag, &mm, &nn, &one, acol.data(), &lda, bcol.data(), &ldb, 1, 1, 1, 1);
    from_col_major(bcol.data(), m, m, n, x + i * m * n);
  }
}

template <class T>
void eigh(int64_t batch, int64_t n, bool lower, const T* in, T* v, T* w) {
  if (n == 0) return;
  const int nn = dim(n);
  std::vector<T> col(static_cast<size_t>(n * n));
  const char uplo = lower ? 'L' : 'U';
  // Workspace sizes from LAPACK's query.
  int lwork = -1, liwork = -1, info = 0, iquery = 0;
  T wquery = 0;
  Lapack<T>::syevd("V", &uplo, &nn, col.data(), &nn, w, &wquery, &lwork, &iquery, &liwork, &info, 1, 1);
  lwork = static_cast<int>(wquery);
  liwork = iquery;
  std::vector<T> work(static_cast<size_t>(std::max(lwork, 1)));
  std::vector<int> iwork(static_cast<size_t>(std::max(liwork, 1)));
  for (int64_t b = 0; b < batch; ++b) {
    to_col_major(in + b * n * n, n, n, col.data());
    Lapack<T>::syevd("V", &uplo, &nn, col.data(), &nn, w + b * n, work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1);
    if (info != 0) {
      fill_nan(v + b * n * n, n * n);
      fill_nan(w + b * n, n);
      continue;
    }
    from_col_major(col.data(), n, n, n, v + b * n * n);  // v[:, i] is the eigenvector of w[i]
  }
}

template <class T>
void svd(int64_t batch, int64_t m, int64_t n, bool full_matrices, const T* in, T* s, T* u, T* vt) {
  const int64_t k = std::min(m, n);
  const bool uv = u != nullptr;
  const int64_t ucols = full_matrices ? m : k, vtrows = full_matrices ? n : k;
  if (k == 0) {  // no singular values; the singular vectors of an empty matrix are an identity
    for (int64_t b = 0; b < batch && uv; ++b) {
      std::fill(u + b * m * ucols, u + (b + 1) * m * ucols, T(0));
      std::fill(vt + b * vtrows * n, vt + (b + 1) * vtrows * n, T(0));
      for (int64_t i = 0; i < std::min(m, ucols); ++i) u[b * m * ucols + i * ucols + i] = 1;
      for (int64_t i = 0; i < std::min(vtrows, n); ++i) vt[b * vtrows * n + i * n + i] = 1;
    }
    return;
  }
  const int mm = dim(m), nn = dim(n), ldu = mm, ldvt = std::max(1, dim(vtrows));
  const char jobz = !uv ? 'N' : full_matrices ? 'A' : 'S';
  std::vector<T> col(static_cast<size_t>(m * n)), ucol(uv ? static_cast<size_t>(m * ucols) : 1),
      vtcol(uv ? static_cast<size_t>(vtrows * n) : 1);
  std::vector<int> iwork(static_cast<size_t>(8 * k));
  int lwork = -1, info = 0;
  T wquery = 0;
  Lapack<T>::gesdd(&jobz, &mm, &nn, col.data(), &mm, s, ucol.data(), &ldu, vtcol.data(), &ldvt, &wquery, &lwork,
                   iwork.data(), &info, 1);
  lwork = static_cast<int>(wquery);
  std::vector<T> work(static_cast<size_t>(std::max(lwork, 1)));
  for (int64_t b = 0; b < batch; ++b) {
    to_col_major(in + b * m * n, m, n, col.data());
    Lapack<T>::gesdd(&jobz, &mm, &nn, col.data(), &mm, s + b * k, ucol.data(), &ldu, vtcol.data(), &ldvt, work.data(),
                     &lwork, iwork.data(), &info, 1);
    if (info != 0) {
      fill_nan(s + b * k, k);
      if (uv) {
        fill_nan(u + b * m * ucols, m * ucols);
        fill_nan(vt + b * vtrows * n, vtrows * n);
      }
      continue;
    }
    if (!uv) continue;
    from_col_major(ucol.data(), m, m, ucols, u + b * m * ucols);
    from_col_major(vtcol.data(), vtrows, vtrows, n, vt + b * vtrows * n);
  }
}

template <class T>
void qr(int64_t batch, int64_t m, int64_t n, bool full_matrices, const T* in, T* q, T* r) {
  const int64_t k = std::min(m, n);
  const int64_t qcols = full_matrices ? m : k, rrows = full_matrices ? m : k;
  const int mm = dim(m), nn = dim(n), kk = dim(k), qc = dim(qcols), ld = std::max(1, mm);
  // geqrf works in place on a; orgqr then expands the reflectors into q's qcols columns, so
  // the scratch matrix holds max(n, qcols) columns.
  const int64_t width = std::max(n, qcols);
  std::vector<T> col(static_cast<size_t>(std::max<int64_t>(m * width, 1))), tau(static_cast<size_t>(std::max<int64_t>(k, 1)));
  std::vector<T> work(1);
  for (int64_t b = 0; b < batch; ++b) {
    T* qb = q + b * m * qcols;
    T* rb = r + b * rrows * n;
    std::fill(col.begin(), col.end(), T(0));
    to_col_major(in + b * m * n, m, n, col.data());
    int info = 0;
    if (k > 0) {
      int lwork = -1;
      T wquery = 0;
      Lapack<T>::geqrf(&mm, &nn, col.data(), &ld, tau.data(), &wquery, &lwork, &info);
      Lapack<T>::orgqr(&mm, &qc, &kk, col.data(), &ld, tau.data(), &work[0], &lwork, &info);
      lwork = std::max(static_cast<int>(wquery), static_cast<int>(work[0]));
      work.resize(static_cast<size_t>(std::max(lwork, 1)));
      Lapack<T>::geqrf(&mm, &nn, col.data(), &ld, tau.data(), work.data(), &lwork, &info);
    }
    for (int64_t i = 0; i < rrows; ++i)
      for (int64_t j = 0; j < n; ++j) rb[i * n + j] = j >= i && i < m ? col[static_cast<size_t>(j * m + i)] : T(0);
    if (k > 0) {
      int lwork = static_cast<int>(work.size());
      // Columns past n (a complete q of a wide-enough matrix) start from zero reflector data.
      for (int64_t j = n; j < qcols; ++j)
        for (int64_t i = 0; i < m; ++i) col[static_cast<size_t>(j * m + i)] = 0;
      Lapack<T>::orgqr(&mm, &qc, &kk, col.data(), &ld, tau.data(), work.data(), &lwork, &info);
      from_col_major(col.data(), m, m, qcols, qb);
    } else {
      std::fill(qb, qb + m * qcols, T(0));
      for (int64_t i = 0; i < std::min(m, qcols); ++i) qb[i * qcols + i] = 1;
    }
  }
}

[[noreturn]] void bad_dtype(const char* what, types::DType d) {
  throw std::logic_error(fmt::format("internal error: {} has no kernel for {}", what, types::dtype_name(d)));
}

}  // namespace

void cholesky_kernel(types::DType dtype, int64_t batch, int64_t n, const void* in, void* out) {
  single_threaded_blas();
  if (dtype == types::DType::F32) return cholesky(batch, n, static_cast<const float*>(in), static_cast<float*>(out));
  if (dtype == types::DType::F64) return cholesky(batch, n, static_cast<const double*>(in), static_cast<double*>(out));
  bad_dtype("cholesky", dtype);
}

void lu_kernel(types::DType dtype, int64_t batch, int64_t m, int64_t n, const void* a, void* out, int32_t* pivots,
               int32_t* permutation) {
  single_threaded_blas();
  if (dtype == types::DType::F32) return lu(batch, m, n, static_cast<const float*>(a), static_cast<float*>(out), pivots, permutation);
  if (dtype == types::DType::F64) return lu(batch, m, n, static_cast<const double*>(a), static_cast<double*>(out), pivots, permutation);
  bad_dtype("lu", dtype);
}

void triangular_solve_kernel(types::DType dtype, int64_t batch, int64_t m, int64_t n, const TriangularSolveParams& p,
                             const void* a, const void* b, void* x) {
  single_threaded_blas();
  if (dtype == types::DType::F32)
    return triangular_solve(batch, m, n, p, static_cast<const float*>(a), static_cast<const float*>(b), static_cast<float*>(x));
  if (dtype == types::DType::F64)
    return triangular_solve(batch, m, n, p, static_cast<const double*>(a), static_cast<const double*>(b), static_cast<double*>(x));
  bad_dtype("triangular_solve", dtype);
}

void eigh_kernel(types::DType dtype, int64_t batch, int64_t n, bool lower, const void* a, void* v, void* w) {
  single_threaded_blas();
  if (dtype == types::DType::F32) return eigh(batch, n, lower, static_cast<const float*>(a), static_cast<float*>(v), static_cast<float*>(w));
  if (dtype == types::DType::F64) return eigh(batch, n, lower, static_cast<const double*>(a), static_cast<double*>(v), static_cast<double*>(w));
  bad_dtype("eigh", dtype);
}

void svd_kernel(types::DType dtype, int64_t batch, int64_t m, int64_t n, bool full_matrices, const void* a, void* s, void* u, void* vt) {
  single_threaded_blas();
  if (dtype == types::DType::F32)
    return svd(batch, m, n, full_matrices, static_cast<const float*>(a), static_cast<float*>(s), static_cast<float*>(u), static_cast<float*>(vt));
  if (dtype == types::DType::F64)
    return svd(batch, m, n, full_matrices, static_cast<const double*>(a), static_cast<double*>(s), static_cast<double*>(u),
               static_cast<double*>(vt));
  bad_dtype("svd", dtype);
}

void qr_kernel(types::DType dtype, int64_t batch, int64_t m, int64_t n, bool full_matrices, const void* a, void* q, void* r) {
  single_threaded_blas();
  if (dtype == types::DType::F32)
    return qr(batch, m, n, full_matrices, static_cast<const float*>(a), static_cast<float*>(q), static_cast<float*>(r));
  if (dtype == types::DType::F64)
    return qr(batch, m, n, full_matrices, static_cast<const double*>(a), static_cast<double*>(q), static_cast<double*>(r));
  bad_dtype("qr", dtype);
}

}  // namespace shard::exec
