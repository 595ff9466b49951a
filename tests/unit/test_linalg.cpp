// The linalg primitives (src/primitives/linalg/): their sharding rule (matrix dims whole,
// batch dims as the operands have them) and their LAPACK kernels on small matrices with
// known factors.
#include <cmath>
#include <vector>

#include "exec/lapack_kernels.hpp"
#include "primitives/linalg/linalg.hpp"
#include "test_sharding_util.hpp"

using namespace sharding_test;
using shard::types::DType;

TEST_CASE("linalg sharding rule: batch dims may be sharded, matrix dims not", "[sharding][linalg]") {
  AbstractMesh xy = mXY();
  auto one = [&](const std::vector<ArrayType>& ops, std::vector<LinalgResult> results, size_t i = 0) {
    return propagate_linalg(ctx(xy, "cholesky"), ops, results).at(i);
  };
  run_rows({
      ROW("float32[4,4]", one({T(xy, "f32[4,4]")}, {{{4, 4}, DType::F32}})),
      ROW("float32[8@X,4,4]", one({T(xy, "f32[8@X,4,4]")}, {{{4, 4}, DType::F32}})),
      // lu's pivots: the batch dims, then their own dim, unsharded.
      ROW("int32[8@X,2@Y,3]", one({T(xy, "f32[8@X,2@Y,3,4]")}, {{{3, 4}, DType::F32}, {{3}, DType::I32}}, 1)),
      ROW("float32[8@X,4,3]", propagate_linalg(ctx(xy, "triangular_solve"), {T(xy, "f32[8@X,4,4]"), T(xy, "f32[8@X,4,3]")},
                                               {{{4, 3}, DType::F32}}).at(0)),
      ERR(STE, "`cholesky`: the last two dimensions of its operands (the matrix dimensions) must be unsharded",
          one({T(xy, "f32[4@X,4]")}, {{{4, 4}, DType::F32}})),
      ERR(STE, "Got operand type=float32[8,4,4@Y]. Reshard it first, e.g. `reshard(x, P(None, None, None))`",
          one({T(xy, "f32[8,4,4@Y]")}, {{{4, 4}, DType::F32}})),
      ERR(STE, "the batch dimensions of its operands must be sharded alike",
          propagate_linalg(ctx(xy, "triangular_solve"), {T(xy, "f32[8@X,4,4]"), T(xy, "f32[8,4,3]")}, {{{4, 3}, DType::F32}}).at(0)),
      ERR("TypeError", "cholesky does not accept dtype int32", one({T(xy, "i32[4,4]")}, {{{4, 4}, DType::I32}})),
  });
}

namespace {
void check_close(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-5f) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(std::abs(got[i] - want[i]) <= tol);
  }
}
}  // namespace

TEST_CASE("LAPACK kernels on matrices with known factors", "[exec][linalg]") {
  using namespace shard::exec;
  SECTION("cholesky: the lower factor, zeros above; NaNs when not positive definite") {
    std::vector<float> a{4, 2, 0, 2, 5, 2, 0, 2, 5, /* not PD */ 1, 2, 0, 2, 1, 0, 0, 0, 1}, l(18);
    cholesky_kernel(DType::F32, 2, 3, a.data(), l.data());
    check_close({l.begin(), l.begin() + 9}, {2, 0, 0, 1, 2, 0, 0, 1, 2});
    for (size_t i = 9; i < 18; ++i) CHECK(std::isnan(l[i]));
  }
  SECTION("lu: getrf's pivots, 0-based, and the permutation they make") {
    std::vector<float> a{0, 1, 2, 3}, lu(4);
    std::vector<int32_t> pivots(2), perm(2);
    lu_kernel(DType::F32, 1, 2, 2, a.data(), lu.data(), pivots.data(), perm.data());
    check_close(lu, {2, 3, 0, 1});
    CHECK(pivots == std::vector<int32_t>{1, 1});
    CHECK(perm == std::vector<int32_t>{1, 0});
  }
  SECTION("triangular_solve: left and right sides, transposed, unit diagonal") {
    std::vector<float> l{2, 0, 1, 4}, b{2, 4, 5, 6}, x(4);
    triangular_solve_kernel(DType::F32, 1, 2, 2, {.left_side = true, .lower = true}, l.data(), b.data(), x.data());
    check_close(x, {1, 2, 1, 1});  // [[2,0],[1,4]] @ [[1,2],[1,1]] = [[2,4],[5,6]]
    triangular_solve_kernel(DType::F32, 1, 2, 2, {.left_side = false, .lower = true}, l.data(), b.data(), x.data());
    check_close(x, {0.5f, 1, 1.75f, 1.5f});  // x @ l = b
    triangular_solve_kernel(DType::F32, 1, 2, 2, {.left_side = true, .lower = true, .transpose_a = true}, l.data(), b.data(), x.data());
    check_close(x, {0.375f, 1.25f, 1.25f, 1.5f});  // l^T x = b
    triangular_solve_kernel(DType::F32, 1, 2, 2, {.left_side = true, .lower = true, .unit_diagonal = true}, l.data(), b.data(), x.data());
    check_close(x, {2, 4, 3, 2});
  }
  SECTION("eigh, svd and qr of small matrices") {
    std::vector<float> s{2, 1, 1, 2}, v(4), w(2);
    eigh_kernel(DType::F32, 1, 2, true, s.data(), v.data(), w.data());
    check_close(w, {1, 3});
    const float r = std::sqrt(0.5f);
    check_close({std::abs(v[0]), std::abs(v[1]), std::abs(v[2]), std::abs(v[3])}, {r, r, r, r});
    CHECK(v[0] * v[2] < 0);  // the eigenvector of 1 is (1, -1) up to sign
    std::vector<float> a{0, 2, 3, 0, 0, 0}, sv(2), u(9), vt(4);
    svd_kernel(DType::F32, 1, 3, 2, true, a.data(), sv.data(), u.data(), vt.data());
    check_close(sv, {3, 2});
    std::vector<float> q(4), rr(4), m{3, 1, 4, 2};
    qr_kernel(DType::F32, 1, 2, 2, true, m.data(), q.data(), rr.data());
    check_close({std::abs(rr[0]), std::abs(rr[1]), rr[2], std::abs(rr[3])}, {5, 2.2f, 0, 0.4f});
    // q r == m
    check_close({q[0] * rr[0] + q[1] * rr[2], q[0] * rr[1] + q[1] * rr[3], q[2] * rr[0] + q[3] * rr[2], q[2] * rr[1] + q[3] * rr[3]},
                {3, 1, 4, 2});
  }
}
