// jax.scipy.linalg over the linalg primitives (primitives/linalg/): solve_triangular,
// cholesky, cho_factor, cho_solve, lu, lu_factor, lu_solve, det, inv, solve, eigh, svd, qr,
// qr_multiply, eigh_tridiagonal, expm, expm_frechet, polar, with scipy's conventions
// (cholesky's upper factor by default, qr's 'full' mode, lu's p @ l @ u); and the structured
// matrices (block_diag, toeplitz, hankel, circulant, companion, fiedler, fiedler_companion,
// leslie, convolution_matrix, dft, hilbert, invhilbert, hadamard, helmert, pascal, invpascal).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <functional>
#include <map>

#include "api/modules/jnp_module.hpp"
#include "api/modules/linalg_module.hpp"
#include "api/modules/numpy_internal.hpp"
#include "api/modules/scipy_linalg_module.hpp"
#include "interp/builtins/support.hpp"
#include "primitives/linalg/linalg.hpp"
#include "trace/ops_random.hpp"
#include "types/x64_mode.hpp"

namespace shard::api {

using interp::ArgParser;
using np::bool_arg;

namespace {

namespace la = trace::linalg;

ValueId inexact(Trace& t, ValueId x) { return trace::convert(t, x, trace::to_inexact(dtw(t, x))); }
// Both operands in their common inexact dtype.
std::pair<ValueId, ValueId> inexact_pair(Trace& t, ValueId a, ValueId b) {
  const DTypeW common = trace::to_inexact(trace::promote(dtw(t, a), dtw(t, b)));
  return {trace::convert(t, a, common), trace::convert(t, b, common)};
}

// Solves op(a) x = b from the left; a b with one dim fewer than a is a vector per matrix.
// Needs rank >= 2 for a (else triangular_solve's error).
ValueId solve_left(Trace& t, ValueId a, ValueId b, ir::attr::TriangularSolve p) {
  p.left_side = true;
  const auto at = t.type(a), bt = t.type(b);
  const bool vector = bt.rank() + 1 == at.rank();
  if (vector) b = trace::expand_dims(t, b, {static_cast<int64_t>(bt.rank())});
  // Batch dims broadcast against each other (jnp.vectorize's signature (m,m),(m,n)).
  auto ab = la::broadcast_batch(t, {a, b});
  ValueId x = trace::triangular_solve(t, ab[0], ab[1], p);
  return vector ? trace::reshape(t, x, bt.shape()) : x;
}

// scipy's trans: 0 / 'N' solves a x = b, 1 / 'T' and 2 / 'C' (real: the same) a^T x = b.
bool trans_arg(Interp& I, const Value& v) {
  if (is_none(v)) return false;
  if (v->kind == interp::ObjKind::Str) {
    const std::string s = I.str(v);
    if (s == "N") return false;
    if (s == "T" || s == "C") return true;
  } else if (int64_t k = int_arg(I, v, "trans"); k >= 0 && k <= 2) {
    return k != 0;
  }
  I.raise("ValueError", fmt::format("Invalid 'trans' value {}", I.repr(v)));
}

// The lower factor from the lower triangle (lower) or the upper factor from the upper one.
ValueId cholesky_factor(Trace& t, ValueId a, bool lower) {
  if (lower) return trace::cholesky(t, a);
  return la::mT(t, trace::cholesky(t, la::mT(t, a)));
}

ValueId cho_solve(Trace& t, ValueId c, ValueId b, bool lower) {
  const auto ct = t.type(c), bt = t.type(b);
  if (!(ct.rank() >= 2 && (bt.rank() == ct.rank() || bt.rank() + 1 == ct.rank()) && ct.shape()[ct.rank() - 1] == ct.shape()[ct.rank() - 2] &&
        ct.shape().back() == bt.shape()[ct.rank() - 2]))
    throw types::ShardingError("ValueError", fmt::format("The arguments to solve must have shapes a=[..., m, m] and b=[..., m, k] or "
                                                         "b=[..., m]; got a={} and b={}", types::py_int_tuple(ct.shape()),
                                                         types::py_int_tuple(bt.shape())));
  // c c^T x = b (lower) or c^T c x = b (upper): two triangular solves.
  ValueId y = solve_left(t, c, b, {.lower = lower, .transpose_a = !lower});
  return solve_left(t, c, y, {.lower = lower, .transpose_a = lower});
}

// x[inverse(perm)] over the rows: row perm[i] of the result is row i of x (the transposed
// one-hot of permute_rows), linear in x.
ValueId unpermute_rows(Trace& t, ValueId x, ValueId permutation) {
  const auto pt = t.type(permutation);
  const int64_t m = pt.shape().back();
  types::Shape s = pt.shape();
  s.push_back(m);
  std::vector<int64_t> dims(pt.rank());
  for (size_t i = 0; i < dims.size(); ++i) dims[i] = static_cast<int64_t>(i);
  ValueId p = trace::broadcast_in_dim(t, permutation, s, dims);
  ValueId cols = trace::iota(t, DType::I32, s, static_cast<int64_t>(s.size()) - 1, std::nullopt);
  ValueId onehot = trace::convert(t, trace::binary(t, "eq", ir::EwOp::Eq, p, cols), {t.type(x).dtype(), false});
  return la::matmul(t, la::mT(t, onehot), x);
}

// lax.linalg.lu_solve's core on a batch: lu (batch, n, n), permutation (batch', n), b (batch'',
// n, k), the batch dims broadcast (jnp.vectorize's signature (n,n),(n),(n,k)->(n,k)).
ValueId lu_solve_core(Trace& t, ValueId lu, ValueId perm, ValueId b, int64_t trans) {
  auto lb = la::broadcast_batch(t, {lu, b});
  lu = lb[0];
  b = lb[1];
  const auto bt = t.type(b);
  types::Shape ps = la::batch_shape(bt);
  ps.push_back(t.type(perm).shape().back());
  if (t.type(perm).shape() != ps) {
    sharding::OptOutSharding out;
    if (bt.is_sharded()) {
      auto e = sharding::spec_entries(bt);
      e.resize(ps.size() - 1);
      e.emplace_back();
      out = sharding::OutSharding{types::PartitionSpec(e)};
    }
    perm = trace::broadcast_to(t, perm, ps, out);
  }
  if (trans == 0) {
    ValueId x = la::permute_rows(t, b, perm);
    x = trace::triangular_solve(t, lu, x, {.left_side = true, .lower = true, .unit_diagonal = true});
    return trace::triangular_solve(t, lu, x, {.left_side = true, .lower = false});
  }
  ValueId x = trace::triangular_solve(t, lu, b, {.left_side = true, .lower = false, .transpose_a = true});
  x = trace::triangular_solve(t, lu, x, {.left_side = true, .lower = true, .transpose_a = true, .unit_diagonal = true});
  return unpermute_rows(t, x, perm);
}

std::string shape_str(const types::Shape& s) { return types::py_int_tuple(s); }

Value lu_solve(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "lu_solve", {"lu_and_piv", "b", "trans=", "overwrite_b=", "check_finite="});
  auto pair = I.to_vector(p.get("lu_and_piv"));
  if (pair.size() != 2) I.raise("ValueError", fmt::format("too many values to unpack (expected 2)"));
  Value trans_v = p.get("trans");
  const int64_t trans = is_none(trans_v) ? 0 : int_arg(I, trans_v, "trans");
  for (size_t i = 0; i < 2; ++i)
    if (!is_array_like(pair[i]) && !python_scalar_type(pair[i], false))
      I.raise("TypeError", fmt::format("lu_solve requires ndarray or scalar arguments, got {} at position {}.", I.type_name(pair[i]), i));
  Value lu = pair[0], b = p.get("b");
  const auto lt = type_of(lu), bt = type_of(b);
  if (lt.rank() < 2)
    I.raise("ValueError", fmt::format("not enough values to unpack (expected 2, got {})", lt.rank()));
  const int64_t m = lt.shape()[lt.rank() - 2];
  Value perm = lu_pivots_to_permutation(I, pair[1], m);
  const auto pt = type_of(perm);
  // jnp.vectorize's signature: a vector b when 1-D (or one dim fewer than lu, matching its last).
  const bool vector = bt.rank() == 1 || (lt.rank() == bt.rank() + 1 && bt.rank() > 0 && lt.shape().back() == bt.shape().back());
  const std::string signature = vector ? "(n,n),(n),(n)->(n)" : "(n,n),(n),(n,k)->(n,k)";
  const std::string context = fmt::format("on vectorized function with excluded=frozenset() and signature='{}'", signature);
  std::map<std::string, int64_t> sizes;
  auto parse = [&](const types::Shape& shape, const std::vector<std::string>& core) {
    if (shape.size() < core.size()) {
      std::vector<std::string> q;
      for (auto& c : core) q.push_back("'" + c + "'");
      I.raise("ValueError", fmt::format("input with shape {} does not have enough dimensions for all core dimensions ({}{}) {}",
                                        shape_str(shape), fmt::join(q, ", "), q.size() == 1 ? "," : "", context));
    }
    for (size_t i = 0; i < core.size(); ++i) {
      const int64_t size = shape[shape.size() - core.size() + i];
      auto it = sizes.find(core[i]);
      if (it == sizes.end()) sizes[core[i]] = size;
      else if (it->second != size)
        I.raise("ValueError", fmt::format("inconsistent size for core dimension '{}': {} vs {} {}", core[i], size, it->second, context));
    }
  };
  parse(lt.shape(), {"n", "n"});
  parse(pt.shape(), {"n"});
  parse(bt.shape(), vector ? std::vector<std::string>{"n"} : std::vector<std::string>{"n", "k"});
  if (trans != 0 && trans != 1 && trans != 2) I.raise("ValueError", fmt::format("'trans' value must be 0, 1, or 2, got {}", trans));
  return apply(I, "lu_solve", {lu, perm, b}, [&](Trace& t, const std::vector<ValueId>& ids) {
    auto [l, y] = inexact_pair(t, ids[0], ids[2]);
    const auto yt = t.type(y);
    if (vector) y = trace::expand_dims(t, y, {static_cast<int64_t>(yt.rank())});
    ValueId x = lu_solve_core(t, l, ids[1], y, trans);
    if (vector) {
      types::Shape s = t.type(x).shape();
      s.pop_back();
      x = trace::reshape(t, x, s);
    }
    return std::vector<ValueId>{x};
  });
}

// ---- expm: scaling and squaring with Pade approximants (Higham 2005), as JAX --------------------
// JAX picks one approximant with lax.switch and squares in a scan of conds; here every batch
// element's choice is a select among the approximants (each computed), and the squarings a
// select per step, so batches whose matrices need different degrees stay one program.

struct PadeUV {
  ValueId u, v;
};

// (U, V) of the Pade approximant of degree 3, 5, 7, 9 or 13 of the batch `a`.
PadeUV pade(Trace& t, ValueId a, int degree) {
  static const std::map<int, std::vector<double>> kB = {
      {3, {120., 60., 12., 1.}},
      {5, {30240., 15120., 3360., 420., 30., 1.}},
      {7, {17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.}},
      {9, {17643225600., 8821612800., 2075673600., 302702400., 30270240., 2162160., 110880., 3960., 90., 1.}},
      {13, {64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800., 129060195264000., 10559470521600.,
            670442572800., 33522128640., 1323241920., 40840800., 960960., 16380., 182., 1.}}};
  const auto& b = kB.at(degree);
  const auto at = t.type(a);
  const DType d = at.dtype();
  auto c = [&](double v) { return trace::scalar_constant(t, v, {d, true}); };
  auto mul = [&](ValueId x, ValueId y) { return trace::binary(t, "mul", ir::EwOp::Mul, x, y); };
  auto add = [&](ValueId x, ValueId y) { return trace::binary(t, "add", ir::EwOp::Add, x, y); };
  const int64_t n = at.shape().back();
  ValueId ident = la::eye_like(t, a, n);
  ValueId a2 = la::matmul(t, a, a);
  // sum_k b[k] A^k over the even (or odd: times A) powers held in `powers`
  std::vector<ValueId> powers = {ident, a2};  // A^0, A^2, A^4, ...
  auto comb = [&](const std::vector<std::pair<int, int>>& terms) {  // (coefficient index, power index)
    ValueId acc = mul(c(b[static_cast<size_t>(terms[0].first)]), powers[static_cast<size_t>(terms[0].second)]);
    for (size_t i = 1; i < terms.size(); ++i) acc = add(acc, mul(c(b[static_cast<size_t>(terms[i].first)]), powers[static_cast<size_t>(terms[i].second)]));
    return acc;
  };
  if (degree >= 5) powers.push_back(la::matmul(t, a2, a2));                   // A^4
  if (degree >= 7) powers.push_back(la::matmul(t, powers[2], a2));            // A^6
  if (degree == 9) powers.push_back(la::matmul(t, powers[3], a2));            // A^8
  if (degree == 13) {
    ValueId a6 = powers[3];
    ValueId inner_u = la::matmul(t, a6, comb({{13, 3}, {11, 2}, {9, 1}}));
    ValueId u = la::matmul(t, a, add(inner_u, comb({{7, 3}, {5, 2}, {3, 1}, {1, 0}})));
    ValueId inner_v = la::matmul(t, a6, comb({{12, 3}, {10, 2}, {8, 1}}));
    ValueId v = add(inner_v, comb({{6, 3}, {4, 2}, {2, 1}, {0, 0}}));
    return {u, v};
  }
  std::vector<std::pair<int, int>> odd, even;
  for (int k = degree; k >= 0; --k) (k % 2 ? odd : even).push_back({k, k / 2});
  ValueId u = la::matmul(t, a, comb(odd));
  return {u, comb(even)};
}

ValueId expm(Trace& t, ValueId a, bool upper_triangular, int64_t max_squarings) {
  const auto at = t.type(a);
  if (at.rank() < 2 || at.shape()[at.rank() - 1] != at.shape()[at.rank() - 2])
    throw types::ShardingError("ValueError", fmt::format("Expected A to be a (batched) square matrix, got A.shape={}.",
                                                         types::py_int_tuple(at.shape())));
  const DType d = at.dtype();
  if (d != DType::F32 && d != DType::F64)
    throw types::ShardingError("TypeError", fmt::format("A.dtype={} is not supported.", types::dtype_name(d)));
  const bool f64 = d == DType::F64;
  const double maxnorm = f64 ? 5.371920351148152 : 3.925724783138660;
  const std::vector<double> conds = f64 ? std::vector<double>{1.495585217958292e-002, 2.539398330063230e-001, 9.504178996162932e-001,
                                                                 2.097847961257068e+000}
                                        : std::vector<double>{4.258730016922831e-001, 1.880152677804762e+000};
  const std::vector<int> degrees = f64 ? std::vector<int>{3, 5, 7, 9, 13} : std::vector<int>{3, 5, 7};
  auto c = [&](double v) { return trace::scalar_constant(t, v, {d, true}); };
  // the 1-norm of each matrix, kept as (..., 1, 1)
  trace::NormOrder one;
  one.value = 1;
  ValueId l1 = trace::norm(t, a, one, std::vector<int64_t>{-2, -1}, true);
  ValueId ratio = trace::binary(t, "div", ir::EwOp::Div, l1, c(maxnorm));
  ValueId lg = trace::unary(t, "floor", ir::EwOp::Floor, trace::binary(t, "div", ir::EwOp::Div, trace::unary(t, "log", ir::EwOp::Log, ratio),
                                                                                    c(std::log(2.0))));
  ValueId n_sq = trace::binary(t, "max", ir::EwOp::Max, c(0), lg);
  ValueId scale = trace::binary(t, "pow", ir::EwOp::Pow, c(2), n_sq);
  ValueId as = trace::binary(t, "div", ir::EwOp::Div, a, scale);
  // digitize: the number of thresholds at or below the norm picks the approximant
  ValueId idx = c(0);
  for (double th : conds) {
    ValueId ge = trace::convert(t, trace::binary(t, "ge", ir::EwOp::Ge, l1, c(th)), {d, false});
    idx = trace::binary(t, "add", ir::EwOp::Add, idx, ge);
  }
  std::optional<ValueId> u, v;
  for (size_t k = 0; k < degrees.size(); ++k) {
    PadeUV p = pade(t, as, degrees[k]);
    if (!u) {
      u = p.u;
      v = p.v;
      continue;
    }
    ValueId pick = trace::binary(t, "eq", ir::EwOp::Eq, idx, c(static_cast<double>(k)));
    u = trace::where(t, pick, p.u, *u);
    v = trace::where(t, pick, p.v, *v);
  }
  ValueId pm = trace::binary(t, "add", ir::EwOp::Add, *u, *v);
  ValueId qm = trace::binary(t, "sub", ir::EwOp::Sub, *v, *u);
  ValueId r = upper_triangular ? solve_left(t, qm, pm, {.lower = false}) : trace::solve(t, qm, pm);
  for (int64_t i = 0; i < max_squarings; ++i) {
    ValueId more = trace::binary(t, "lt", ir::EwOp::Lt, c(static_cast<double>(i)), n_sq);
    ValueId sq = la::matmul(t, r, r);
    r = trace::where(t, more, sq, r);
  }
  ValueId too_many = trace::binary(t, "gt", ir::EwOp::Gt, n_sq, c(static_cast<double>(max_squarings)));
  return trace::where(t, too_many, c(NAN), r);
}

// ---- toeplitz, hankel, circulant: a gather of one vector per batch element ----------------------

// out[..., i, j] = v[..., index(i, j)] for v of shape batch + (len,).
ValueId gather_matrix(Trace& t, ValueId v, int64_t rows, int64_t cols, const std::function<int64_t(int64_t, int64_t)>& index) {
  const auto vt = t.type(v);
  std::vector<int32_t> idx(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) idx[static_cast<size_t>(i * cols + j)] = static_cast<int32_t>(index(i, j));
  ValueId iv = trace::constant(t, DType::I32, {rows * cols}, idx.data());
  types::Shape out = vt.shape();
  out.pop_back();
  out.push_back(rows);
  out.push_back(cols);
  if (rows * cols == 0) return trace::full(t, out, 0, dtw(t, v), std::nullopt);
  ValueId g = trace::random::take(t, v, iv, static_cast<int64_t>(vt.rank()) - 1);
  return trace::reshape(t, g, out);
}

// c (..., m) and r (..., n) with their batch dims broadcast, in their common dtype.
std::pair<ValueId, ValueId> broadcast_vectors(Trace& t, ValueId c, ValueId r) {
  const DTypeW d = trace::promote(dtw(t, c), dtw(t, r));
  c = trace::convert(t, c, d);
  r = trace::convert(t, r, d);
  // As rows of (..., 1, len) matrices, so the batch dims broadcast with the sharding of the
  // operand that has them all (la::broadcast_batch).
  auto both = la::broadcast_batch(t, {trace::expand_dims(t, c, {-2}), trace::expand_dims(t, r, {-2})});
  return {trace::squeeze(t, both[0], std::vector<int64_t>{-2}), trace::squeeze(t, both[1], std::vector<int64_t>{-2})};
}

ValueId tail_from(Trace& t, ValueId x, int64_t start) {  // x[..., start:]
  const auto xt = t.type(x);
  types::Shape lo(xt.rank(), 0), hi = xt.shape(), st(xt.rank(), 1);
  lo.back() = std::min(start, xt.shape().back());
  return trace::slice(t, x, lo, hi, st);
}

ValueId at_least_1d(Trace& t, ValueId x) { return t.type(x).rank() == 0 ? trace::reshape(t, x, {1}) : x; }

// A constant (rows, cols) matrix of `dtype` from float64 values (exact where they are).
ValueId matrix_constant(Trace& t, const std::vector<double>& v, int64_t rows, int64_t cols, DType dtype) {
  ValueId c = trace::constant(t, DType::F64, {rows, cols}, v.data());  // rounded once by the convert
  return trace::convert(t, c, {dtype, false});
}

// binom(n, k) in float64 (exact up to 2^53).
double binom(int64_t n, int64_t k) {
  if (k < 0 || k > n) return 0;
  double r = 1;
  for (int64_t i = 1; i <= k; ++i) r = r * static_cast<double>(n - k + i) / static_cast<double>(i);
  return std::round(r);
}

std::string kind_arg(Interp& I, const Value& v, const char* one_of) {
  const std::string kind = !v || is_none(v) ? "symmetric" : I.str(v);
  if (kind != "symmetric" && kind != "lower" && kind != "upper")
    I.raise("ValueError", fmt::format("Expected kind to be {}: ['symmetric', 'lower', 'upper']; got {}", one_of, kind));
  return kind;
}

// A (k, k) matrix broadcast to the batch of `like` (batch + (k, k)) with its batch sharding.
ValueId batch_like(Trace& t, ValueId small, ValueId like) { return la::broadcast_batch(t, {like, small})[1]; }

// The structured matrices of n alone, built on the host with exact entries.
void add_structured_matrices(ModuleObj& m) {
  def_jnp(m, "hadamard", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "hadamard", {"n", "dtype="});
    const int64_t n = int_arg(I, p.get("n"), "n");
    if (n < 1 || (n & (n - 1)) != 0) I.raise("ValueError", fmt::format("n must be a positive power of 2; got {}.", n));
    auto dt = dtype_arg(I, p.get("dtype"));
    const DType d = dt ? storage_dtype(*dt, false) : types::default_int_dtype();
    std::vector<double> h(static_cast<size_t>(n * n));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) h[static_cast<size_t>(i * n + j)] = __builtin_popcountll(static_cast<uint64_t>(i & j)) % 2 ? -1 : 1;
    return apply(I, "hadamard", {}, [&](Trace& t, const std::vector<ValueId>&) { return std::vector<ValueId>{matrix_constant(t, h, n, n, d)}; });
  });
  def_jnp(m, "helmert", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "helmert", {"n", "full="});
    const int64_t n = int_arg(I, p.get("n"), "n");
    if (n < 1) I.raise("ValueError", fmt::format("n must be a positive integer; got {}.", n));
    const bool full = bool_arg(I, p.get("full"), false);
    std::vector<double> h;
    if (full)
      for (int64_t j = 0; j < n; ++j) h.push_back(1 / std::sqrt(static_cast<double>(n)));
    for (int64_t i = 0; i + 1 < n; ++i) {
      const double k = static_cast<double>(i + 1), den = std::sqrt(k * (k + 1));
      for (int64_t j = 0; j < n; ++j) h.push_back(j <= i ? 1 / den : j == i + 1 ? -k / den : 0);
    }
    const int64_t rows = full ? n : n - 1;
    return apply(I, "helmert", {}, [&](Trace& t, const std::vector<ValueId>&) {
      return std::vector<ValueId>{matrix_constant(t, h, rows, n, types::default_float_dtype())};
    });
  });
  auto pascal_like = [](bool inverse) {
    return [inverse](Interp& I, CallArgs& a) {
      const char* name = inverse ? "invpascal" : "pascal";
      ArgParser p(I, a, name, {"n", "kind="});
      const int64_t n = int_arg(I, p.get("n"), "n");
      const std::string kind = kind_arg(I, p.get("kind"), inverse ? "one of" : "on of");
      std::vector<double> v(static_cast<size_t>(std::max<int64_t>(n, 0) * std::max<int64_t>(n, 0)));
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double x;
          if (kind == "symmetric") {  // L L^T = binom(i + j, i); inverse: L^-T L^-1 = sum_k L^-1[k, i] L^-1[k, j]
            if (!inverse) {
              x = binom(i + j, i);
            } else {
              x = 0;
              for (int64_t k = std::max(i, j); k < n; ++k) x += ((k - i) % 2 ? -1 : 1) * binom(k, i) * ((k - j) % 2 ? -1 : 1) * binom(k, j);
            }
          } else {
            const int64_t r = kind == "lower" ? i : j, c = kind == "lower" ? j : i;
            x = (inverse && (r - c) % 2 ? -1 : 1) * binom(r, c);
          }
          v[static_cast<size_t>(i * n + j)] = x;
        }
      // JAX's pascal is float32 whatever the x64 flag (its arange is); invpascal the default float.
      const DType d = inverse ? types::default_float_dtype() : DType::F32;
      return apply(I, name, {}, [&](Trace& t, const std::vector<ValueId>&) { return std::vector<ValueId>{matrix_constant(t, v, n, n, d)}; });
    };
  };
  def_jnp(m, "pascal", pascal_like(false));
  def_jnp(m, "invpascal", pascal_like(true));
  def_jnp(m, "invhilbert", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "invhilbert", {"n"});
    const int64_t n = int_arg(I, p.get("n"), "n");
    std::vector<double> v;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const int64_t s = i + j;
        const double b = binom(s, i);
        v.push_back((s % 2 ? -1.0 : 1.0) * static_cast<double>(s + 1) * binom(n + i, n - j - 1) * binom(n + j, n - i - 1) * b * b);
      }
    return apply(I, "invhilbert", {}, [&](Trace& t, const std::vector<ValueId>&) {
      return std::vector<ValueId>{matrix_constant(t, v, n, n, types::default_float_dtype())};
    });
  });
  // dft: exp(-2 pi i j k / n), the angles reduced exactly (j k mod n) and evaluated in float64.
  def_jnp(m, "dft", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "dft", {"n", "scale=", "dtype="});
    const int64_t n = int_arg(I, p.get("n"), "n");
    Value sv = p.get("scale");
    std::string scale;
    if (sv && !is_none(sv)) {
      scale = sv->kind == interp::ObjKind::Str ? I.str(sv) : "";
      if (scale != "sqrtn" && scale != "n") I.raise("ValueError", fmt::format("scale must be None, 'sqrtn', or 'n'; got {}.", I.repr(sv)));
    }
    DType d = types::complex_of(types::default_float_dtype());
    if (auto dt = dtype_arg(I, p.get("dtype"))) {
      const DType c = storage_dtype(*dt, false);
      if (c != DType::C64 && c != DType::C128)
        I.raise("ValueError", fmt::format("dtype must be a complex floating-point type; got {}.", types::dtype_name(c)));
      d = c;
    }
    std::vector<double> re(static_cast<size_t>(std::max<int64_t>(n, 0) * std::max<int64_t>(n, 0))), im(re.size());
    const double div = scale == "sqrtn" ? std::sqrt(static_cast<double>(n)) : scale == "n" ? static_cast<double>(n) : 1.0;
    for (int64_t j = 0; j < n; ++j)
      for (int64_t k = 0; k < n; ++k) {
        const double ang = -2 * M_PI * static_cast<double>((j * k) % n) / static_cast<double>(n);
        re[static_cast<size_t>(j * n + k)] = std::cos(ang) / div;
        im[static_cast<size_t>(j * n + k)] = std::sin(ang) / div;
      }
    Value lax = I.import_module("jax.lax", I.current_loc());
    auto ri = apply_multi(I, "dft", {}, [&](Trace& t, const std::vector<ValueId>&) {
      const DType f = types::complex_part_dtype(d);
      return std::vector<ValueId>{matrix_constant(t, re, n, n, f), matrix_constant(t, im, n, n, f)};
    });
    return I.call(I.getattr(lax, "complex"), {ri.at(0), ri.at(1)});
  });
  def_jnp(m, "fiedler", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "fiedler", {"a"});
    return apply(I, "fiedler", {p.get("a")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      ValueId x = at_least_1d(t, ids[0]);
      ValueId col = trace::expand_dims(t, x, {-1}), row = trace::expand_dims(t, x, {-2});
      return std::vector<ValueId>{trace::unary(t, "abs", ir::EwOp::Abs, trace::binary(t, "sub", ir::EwOp::Sub, col, row))};
    });
  });
  def_jnp(m, "companion", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "companion", {"a"});
    return apply(I, "companion", {p.get("a")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      ValueId x = at_least_1d(t, inexact(t, ids[0]));
      const auto xt = t.type(x);
      const int64_t n = xt.shape().back();
      if (n < 2)
        throw types::ShardingError("ValueError", fmt::format("The length of `a` along the last axis must be at least 2; got shape {}.",
                                                             types::py_int_tuple(xt.shape())));
      // first row -a[1:] / a[0], ones on the first subdiagonal
      ValueId a0 = trace::slice(t, x, types::Shape(xt.rank(), 0), [&] { auto s = xt.shape(); s.back() = 1; return s; }(),
                                types::Shape(xt.rank(), 1));
      ValueId first = trace::unary(t, "neg", ir::EwOp::Neg, trace::binary(t, "div", ir::EwOp::Div, tail_from(t, x, 1), a0));
      const int64_t k = n - 1;
      types::Shape out = la::batch_shape(xt, 1);
      out.push_back(k);
      out.push_back(k);
      ValueId rows = trace::iota(t, DType::I32, {k, k}, 0, std::nullopt), cols = trace::iota(t, DType::I32, {k, k}, 1, std::nullopt);
      ValueId sub = trace::binary(t, "eq", ir::EwOp::Eq, rows, trace::binary(t, "add", ir::EwOp::Add, cols,
                                                                              trace::scalar_constant(t, 1, {DType::I32, true})));
      ValueId top = trace::binary(t, "eq", ir::EwOp::Eq, rows, trace::scalar_constant(t, 0, {DType::I32, true}));
      ValueId ones = trace::convert(t, sub, dtw(t, x));
      ValueId first_rows = trace::broadcast_to(t, trace::expand_dims(t, first, {-2}), out);
      return std::vector<ValueId>{trace::where(t, batch_like(t, top, first_rows), first_rows, batch_like(t, ones, first_rows))};
    });
  });
  // fiedler_companion: Fiedler's pentadiagonal companion of a / a[0], the first matching rule
  // of JAX's select deciding each cell (a gather from [a / a[0], 1, 0] and a sign).
  def_jnp(m, "fiedler_companion", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "fiedler_companion", {"a"});
    return apply(I, "fiedler_companion", {p.get("a")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      ValueId x = at_least_1d(t, inexact(t, ids[0]));
      const auto xt = t.type(x);
      const int64_t len = xt.shape().back();
      if (len == 0)
        throw types::ShardingError("ValueError", fmt::format("fiedler_companion requires the last axis of 'a' to have nonzero length, but got "
                                                             "an array of shape {}.", types::py_int_tuple(xt.shape())));
      const int64_t n = len - 1;
      types::Shape out = la::batch_shape(xt, 1);
      out.push_back(n);
      out.push_back(n);
      if (n == 0) return std::vector<ValueId>{trace::full(t, out, 0, dtw(t, x), std::nullopt)};
      const size_t r = xt.rank();
      types::Shape lo(r, 0), hi = xt.shape(), st(r, 1);
      hi.back() = 1;
      ValueId a0 = trace::slice(t, x, lo, hi, st);
      ValueId an = trace::binary(t, "div", ir::EwOp::Div, x, a0);  // a / a[0]
      types::Shape ps = la::batch_shape(xt, 1);
      ps.push_back(1);
      // the constants with a[0]'s shape and (batch) sharding
      const auto a0t = t.type(a0);
      sharding::OptOutSharding like;
      if (a0t.is_sharded()) like = sharding::OutSharding{a0t.spec()};
      ValueId one = trace::broadcast_to(t, trace::scalar_constant(t, 1, {xt.dtype(), false}), ps, like);
      ValueId zero = trace::broadcast_to(t, trace::scalar_constant(t, 0, {xt.dtype(), false}), ps, like);
      ValueId ext = trace::concatenate(t, {an, one, zero}, static_cast<int64_t>(r) - 1);  // index len: 1, len + 1: 0
      const int64_t ione = len, izero = len + 1;
      std::vector<double> sign(static_cast<size_t>(n * n), 1.0);
      auto index = [&](int64_t i, int64_t j) -> int64_t {
        auto mark = [&](double sg, int64_t k) {
          sign[static_cast<size_t>(i * n + j)] = sg;
          return k;
        };
        if (n == 1) return mark(-1, 1);
        if (i == 0 && j == 0) return mark(-1, 1);
        if (i == 1 && j == 0) return mark(1, ione);
        if (j == i + 1 && i % 2 == 0) return mark(-1, std::min(i + 2, n));
        if (j == i + 2 && i % 2 == 0) return mark(1, ione);
        if (j == i - 1 && i % 2 == 0 && i >= 2) return mark(-1, std::min(i + 1, n));
        if (j == i - 2 && i % 2 == 1 && i >= 3) return mark(1, ione);
        return mark(1, izero);
      };
      std::vector<int64_t> idx(static_cast<size_t>(n * n));
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) idx[static_cast<size_t>(i * n + j)] = index(i, j);
      ValueId g = gather_matrix(t, ext, n, n, [&](int64_t i, int64_t j) { return idx[static_cast<size_t>(i * n + j)]; });
      ValueId sg = matrix_constant(t, sign, n, n, xt.dtype());
      return std::vector<ValueId>{trace::binary(t, "mul", ir::EwOp::Mul, g, sg)};
    });
  });
  def_jnp(m, "leslie", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "leslie", {"f", "s"});
    return apply(I, "leslie", {p.get("f"), p.get("s")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      ValueId f = at_least_1d(t, ids[0]), sv = at_least_1d(t, ids[1]);
      const auto ft = t.type(f), st = t.type(sv);
      if (ft.shape().back() < 2)
        throw types::ShardingError("ValueError", fmt::format("The length of f along the last axis must be at least 2; got shape {}.",
                                                             types::py_int_tuple(ft.shape())));
      if (st.shape().back() != ft.shape().back() - 1)
        throw types::ShardingError("ValueError", fmt::format("Incorrect lengths for f and s. The length of s along the last axis must be one "
                                                             "less than the length of f; got f shape {} and s shape {}.",
                                                             types::py_int_tuple(ft.shape()), types::py_int_tuple(st.shape())));
      auto [fb, sb] = broadcast_vectors(t, f, sv);
      const int64_t n = t.type(fb).shape().back();
      types::Shape out = la::batch_shape(t.type(fb), 1);
      out.push_back(n);
      out.push_back(n);
      // row 0 is f; row i > 0 has s[i - 1] at column i - 1
      ValueId rows = trace::iota(t, DType::I32, {n, n}, 0, std::nullopt), cols = trace::iota(t, DType::I32, {n, n}, 1, std::nullopt);
      ValueId top = trace::binary(t, "eq", ir::EwOp::Eq, rows, trace::scalar_constant(t, 0, {DType::I32, true}));
      ValueId sub = trace::binary(t, "eq", ir::EwOp::Eq, rows, trace::binary(t, "add", ir::EwOp::Add, cols,
                                                                              trace::scalar_constant(t, 1, {DType::I32, true})));
      // s padded to n entries at the end, as the column index of each subdiagonal entry
      ValueId s_pad = trace::pad(t, sb, trace::scalar_constant(t, 0, dtw(t, sb)), types::Shape(t.type(sb).rank(), 0),
                                 [&] { types::Shape h(t.type(sb).rank(), 0); h.back() = 1; return h; }());
      ValueId s_rows = trace::broadcast_to(t, trace::expand_dims(t, s_pad, {-2}), out);  // [.., i, j] = s[j]
      ValueId f_rows = trace::broadcast_to(t, trace::expand_dims(t, fb, {-2}), out);
      ValueId zero = trace::scalar_constant(t, 0, dtw(t, fb));
      ValueId lower = trace::where(t, batch_like(t, sub, s_rows), s_rows, zero);
      return std::vector<ValueId>{trace::where(t, batch_like(t, top, f_rows), f_rows, lower)};
    });
  });
}

Value module_fn(Interp& I, const char* module, const char* name) { return I.getattr(I.import_module(module, I.current_loc()), name); }

void fill_scipy_linalg(Interp& I, ModuleObj& m) {
  add_structured_matrices(m);
  // eigh_tridiagonal: the dense symmetric tridiagonal matrix through eigh (JAX bisects for the
  // eigenvalues and inverse-iterates for the vectors: the same values; vectors up to sign).
  def_jnp(m, "eigh_tridiagonal", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "eigh_tridiagonal", {"d", "e", "*", "eigvals_only=", "select=", "select_range=", "tol=", "key="});
    const bool only = bool_arg(I, p.get("eigvals_only"), false);
    const std::string select = p.get("select") ? I.str(p.get("select")) : "a";
    Value dv = p.get("d"), ev = p.get("e");
    for (auto v : {dv, ev})
      if (!is_array_like(v)) I.raise("TypeError", fmt::format("eigh_tridiagonal requires arrays, got {}", I.type_name(v)));
    const DType dd = type_of(dv).dtype(), ed = type_of(ev).dtype();
    if (dd != ed)
      I.raise("TypeError", fmt::format("diagonal and off-diagonal values must have same dtype, got {} and {}", types::dtype_name(dd),
                                       types::dtype_name(ed)));
    if (dd != DType::F32 && dd != DType::F64)
      I.raise("TypeError", fmt::format("Only float32 and float64 inputs are supported as inputs to jax.scipy.linalg.eigh_tridiagonal, got "
                                       "{} and {}", types::dtype_name(dd), types::dtype_name(ed)));
    const int64_t n = type_of(dv).shape().empty() ? 1 : type_of(dv).shape()[0];
    int64_t lo = 0, hi = n - 1;
    if (n > 1) {
      if (select == "i") {
        if (is_none(p.get("select_range"))) I.raise("ValueError", "for select='i', select_range must be specified.");
        auto r = I.to_vector(p.get("select_range"));
        lo = int_arg(I, r.at(0), "select_range");
        hi = int_arg(I, r.at(1), "select_range");
        if (lo > hi) I.raise("ValueError", "Got empty index range in select_range.");
      } else if (select == "v") {
        I.raise("NotImplementedError", "eigh_tridiagonal(..., select='v') is not implemented");
      } else if (select != "a") {
        I.raise("ValueError", "'select must have a value in {'a', 'i', 'v'}.");
      }
    }
    auto r = apply_multi(I, "eigh_tridiagonal", {dv, ev}, [&](Trace& t, const std::vector<ValueId>& ids) {
      if (n <= 1) {
        if (only) return std::vector<ValueId>{ids[0]};
        return std::vector<ValueId>{ids[0], trace::eye(t, n, n, 0, dtw(t, ids[0]), std::nullopt)};
      }
      // T = diag(d) + diag(e, 1) + diag(e, -1), by one-hot masks
      ValueId rows = trace::iota(t, DType::I32, {n, n}, 0, std::nullopt), cols = trace::iota(t, DType::I32, {n, n}, 1, std::nullopt);
      ValueId zero = trace::scalar_constant(t, 0, {dd, false});
      ValueId diag = trace::where(t, trace::binary(t, "eq", ir::EwOp::Eq, rows, cols), trace::broadcast_to(t, ids[0], {n, n}), zero);
      // e padded to n: row i of the superdiagonal holds e[i] at column i + 1; the subdiagonal is its transpose
      ValueId e_pad = trace::pad(t, ids[1], zero, {0}, {n - t.type(ids[1]).shape()[0]});
      ValueId e_rows = trace::broadcast_in_dim(t, e_pad, {n, n}, {0});
      ValueId one = trace::scalar_constant(t, 1, {DType::I32, true});
      ValueId upper = trace::where(t, trace::binary(t, "eq", ir::EwOp::Eq, cols, trace::binary(t, "add", ir::EwOp::Add, rows, one)), e_rows, zero);
      ValueId tri = trace::binary(t, "add", ir::EwOp::Add, trace::binary(t, "add", ir::EwOp::Add, diag, upper), la::mT(t, upper));
      auto eh = trace::eigh(t, tri, true);
      ValueId w = eh.w, v = eh.v;
      if (lo != 0 || hi != n - 1) {
        w = trace::slice(t, w, {lo}, {hi + 1}, {1});
        v = trace::slice(t, v, {0, lo}, {n, hi + 1}, {1, 1});
      }
      if (only) return std::vector<ValueId>{w};
      return std::vector<ValueId>{w, v};
    });
    return only ? r.at(0) : interp::make_tuple(r);
  });
  // qr_multiply: Q @ c (left) or c @ Q (right, its first k columns) with R, from the complete QR.
  def_jnp(m, "qr_multiply", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "qr_multiply", {"a", "c", "mode=", "pivoting=", "conjugate=", "overwrite_a=", "overwrite_c="});
    const std::string mode = p.get("mode") ? I.str(p.get("mode")) : "right";
    if (bool_arg(I, p.get("pivoting"), false)) I.raise("NotImplementedError", "jax.scipy.linalg.qr_multiply: pivoting=True is not supported");
    if (mode != "right" && mode != "left") I.raise("ValueError", fmt::format("mode must be 'right' or 'left', got {}", I.repr(p.get("mode"))));
    auto r = apply_multi(I, "qr_multiply", {p.get("a"), p.get("c")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      auto [x, c] = inexact_pair(t, ids[0], ids[1]);
      const bool onedim = t.type(c).rank() == 1;
      if (onedim) c = trace::expand_dims(t, c, {mode == "left" ? -1 : 0});
      const auto xt = t.type(x), ct = t.type(c);
      la::require_matrix(xt, "qr");
      const int64_t rows = xt.shape()[xt.rank() - 2], cols = xt.shape()[xt.rank() - 1], k = std::min(rows, cols);
      if (mode == "left" && ct.shape()[ct.rank() - 2] != k)
        throw types::ShardingError("ValueError", fmt::format("Array shapes are not compatible for Q @ c operation: a has shape {} so Q has {} "
                                                             "columns, but c has {} rows (expected {}).", types::py_int_tuple(xt.shape()), k,
                                                             ct.shape()[ct.rank() - 2], k));
      if (mode == "right" && ct.shape().back() != rows)
        throw types::ShardingError("ValueError", fmt::format("Array shapes are not compatible for c @ Q operation: a has shape {} so Q has {} "
                                                             "rows, but c has {} columns (expected {}).", types::py_int_tuple(xt.shape()),
                                                             rows, ct.shape().back(), rows));
      auto d = trace::qr(t, x, true);
      const size_t rk = xt.rank();
      types::Shape lo(rk, 0), hi = xt.shape(), st(rk, 1);
      ValueId cq;
      if (mode == "left") {
        hi[rk - 2] = rows;
        hi[rk - 1] = k;
        cq = la::matmul(t, trace::slice(t, d.q, lo, hi, st), c);  // Q[:, :k] @ c
      } else {
        ValueId full = la::matmul(t, c, d.q);
        const auto ft = t.type(full);
        types::Shape flo(ft.rank(), 0), fhi = ft.shape(), fst(ft.rank(), 1);
        fhi.back() = k;
        cq = trace::slice(t, full, flo, fhi, fst);
      }
      if (onedim) cq = trace::reshape(t, cq, {types::shape_product(t.type(cq).shape())});
      hi = t.type(d.r).shape();
      hi[rk - 2] = k;
      ValueId rr = la::triu(t, trace::slice(t, d.r, lo, hi, st));
      return std::vector<ValueId>{cq, rr};
    });
    return interp::make_tuple(r);
  });
  // expm_frechet: jax.jvp of expm, as JAX computes it.
  def_jnp(m, "expm_frechet", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "expm_frechet", {"A", "E", "*", "method=", "compute_expm="});
    const bool compute_expm = bool_arg(I, p.get("compute_expm"), true);
    Value av = p.get("A"), ev = p.get("E");
    const auto as = is_array_like(av) ? type_of(av).shape() : types::Shape{};
    const auto es = is_array_like(ev) ? type_of(ev).shape() : types::Shape{};
    if (as.size() < 2 || as[as.size() - 2] != as[1])
      I.raise("ValueError", fmt::format("expected A to be a (batched) square matrix, got A.shape={}", types::py_int_tuple(as)));
    if (es.size() < 2 || es[es.size() - 2] != es[es.size() - 1])
      I.raise("ValueError", fmt::format("expected E to be a (batched) square matrix, got E.shape={}", types::py_int_tuple(es)));
    if (as != es)
      I.raise("ValueError", fmt::format("expected A and E to be the same shape, got A.shape={} E.shape={}", types::py_int_tuple(as),
                                        types::py_int_tuple(es)));
    Value r = I.call(module_fn(I, "jax", "jvp"), {module_fn(I, "jax.scipy.linalg", "expm"), interp::make_tuple({av}), interp::make_tuple({ev})});
    if (compute_expm) return r;
    return I.to_vector(r).at(1);
  });
  // convolution_matrix: the Toeplitz matrix of the zero-padded a, trimmed by mode, as JAX.
  def_jnp(m, "convolution_matrix", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "convolution_matrix", {"a", "n", "mode="});
    Value nv = p.get("n");
    if (!nv || !(nv->kind == interp::ObjKind::Int || nv->kind == interp::ObjKind::Bool))
      I.raise("TypeError", fmt::format("'{}' object cannot be interpreted as an integer", I.type_name(nv)));
    const int64_t n = int_arg(I, nv, "n");
    if (n <= 0) I.raise("ValueError", fmt::format("n must be a positive integer; got {}.", n));
    Value av = p.get("a");
    if (!is_array_like(av) && !python_scalar_type(av, false))
      I.raise("TypeError", fmt::format("convolution_matrix requires ndarray or scalar arguments, got {} at position 0.", I.type_name(av)));
    const auto shape = is_array_like(av) ? type_of(av).shape() : types::Shape{};
    if (shape.empty()) I.raise("ValueError", "convolution_matrix: a must be at least 1-dimensional, got a scalar.");
    const int64_t mlen = shape.back();
    if (mlen < 1) I.raise("ValueError", fmt::format("len(a) must be at least 1; got shape {}.", types::py_int_tuple(shape)));
    const std::string mode = p.get("mode") ? I.str(p.get("mode")) : "full";
    if (mode != "full" && mode != "valid" && mode != "same")
      I.raise("ValueError", fmt::format("mode must be one of 'full', 'valid', 'same'; got {}.", I.repr(p.get("mode"))));
    const int64_t len = mlen + n - 1;
    int64_t tb = 0, te = 0;
    if (mode == "same") {
      const int64_t trim = std::min(n, mlen) - 1;
      tb = trim / 2;
      te = trim - tb;
    } else if (mode == "valid") {
      tb = te = std::min(n, mlen) - 1;
    }
    auto cr = apply_multi(I, "convolution_matrix", {av}, [&](Trace& t, const std::vector<ValueId>& ids) {
      const ValueId x = ids[0];
      const auto xt = t.type(x);
      const size_t r = xt.rank();
      types::Shape low(r, 0), high(r, 0);
      high.back() = n - 1;
      ValueId zero = trace::scalar_constant(t, 0, dtw(t, x));
      ValueId az = trace::pad(t, x, zero, low, high);
      ValueId raz = trace::pad(t, trace::rev(t, x, {static_cast<int64_t>(r) - 1}), zero, low, high);
      auto cut = [&](ValueId v, int64_t from, int64_t to) {
        types::Shape lo(r, 0), hi = t.type(v).shape(), st(r, 1);
        lo.back() = from;
        hi.back() = to;
        return trace::slice(t, v, lo, hi, st);
      };
      return std::vector<ValueId>{cut(az, tb, len - te), cut(raz, len - n - tb, len - tb)};
    });
    return I.call(module_fn(I, "jax.scipy.linalg", "toeplitz"), {cr.at(0), cr.at(1)});
  });
  def_jnp(m, "toeplitz", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "toeplitz", {"c", "r="});
    std::vector<Value> ops = {p.get("c")};
    const bool has_r = !is_none(p.get("r"));
    if (has_r) ops.push_back(p.get("r"));
    return apply(I, "toeplitz", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
      ValueId c = at_least_1d(t, ids[0]);
      ValueId r = has_r ? at_least_1d(t, ids[1]) : c;  // conj(c) of a real c
      auto [cb, rb] = broadcast_vectors(t, c, r);
      const int64_t rows = t.type(cb).shape().back(), cols = t.type(rb).shape().back();
      // elems = c[::-1] ++ r[1:]: A[i, j] = elems[rows - 1 - i + j]
      ValueId rev = trace::rev(t, cb, {static_cast<int64_t>(t.type(cb).rank()) - 1});
      ValueId elems = trace::concatenate(t, {rev, tail_from(t, rb, 1)}, static_cast<int64_t>(t.type(cb).rank()) - 1);
      if (rows == 0 || cols == 0) {
        types::Shape out = la::batch_shape(t.type(cb), 1);
        out.push_back(rows);
        out.push_back(cols);
        return std::vector<ValueId>{trace::full(t, out, 0, dtw(t, cb), std::nullopt)};
      }
      return std::vector<ValueId>{gather_matrix(t, elems, rows, cols, [rows](int64_t i, int64_t j) { return rows - 1 - i + j; })};
    });
  });
  def_jnp(m, "hankel", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "hankel", {"c", "r="});
    std::vector<Value> ops = {p.get("c")};
    const bool has_r = !is_none(p.get("r"));
    if (has_r) ops.push_back(p.get("r"));
    return apply(I, "hankel", ops, [&](Trace& t, const std::vector<ValueId>& ids) {
      if (t.type(ids[0]).rank() == 0) throw types::ShardingError("ValueError", "hankel: c must be at least 1-dimensional, got a scalar.");
      if (has_r && t.type(ids[1]).rank() == 0)
        throw types::ShardingError("ValueError", "hankel: r must be at least 1-dimensional, got a scalar.");
      ValueId c = ids[0];
      ValueId r = has_r ? ids[1] : trace::full(t, t.type(c).shape(), 0, dtw(t, c), std::nullopt);
      auto [cb, rb] = broadcast_vectors(t, c, r);
      const int64_t rows = t.type(cb).shape().back(), cols = t.type(rb).shape().back();
      if (rows == 0 || cols == 0) {
        types::Shape out = la::batch_shape(t.type(cb), 1);
        out.push_back(rows);
        out.push_back(cols);
        return std::vector<ValueId>{trace::full(t, out, 0, dtw(t, cb), std::nullopt)};
      }
      ValueId v = trace::concatenate(t, {cb, tail_from(t, rb, 1)}, static_cast<int64_t>(t.type(cb).rank()) - 1);
      return std::vector<ValueId>{gather_matrix(t, v, rows, cols, [](int64_t i, int64_t j) { return i + j; })};
    });
  });
  def_jnp(m, "circulant", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "circulant", {"c"});
    return apply(I, "circulant", {p.get("c")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      ValueId c = at_least_1d(t, ids[0]);
      const int64_t n = t.type(c).shape().back();
      return std::vector<ValueId>{gather_matrix(t, c, n, n, [n](int64_t i, int64_t j) { return ((i - j) % n + n) % n; })};
    });
  });
  def_jnp(m, "expm", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "expm", {"A", "*", "upper_triangular=", "max_squarings="});
    const bool upper = bool_arg(I, p.get("upper_triangular"), false);
    const int64_t max_sq = p.get("max_squarings") ? int_arg(I, p.get("max_squarings"), "max_squarings") : 16;
    return apply(I, "expm", {p.get("A")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{expm(t, inexact(t, ids[0]), upper, max_sq)};
    });
  });
  def_jnp(m, "polar", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "polar", {"a", "side=", "*", "method=", "eps=", "max_iterations="});
    const std::string side = p.get("side") ? I.str(p.get("side")) : "right";
    const std::string method = p.get("method") ? I.str(p.get("method")) : "qdwh";
    auto r = apply_multi(I, "polar", {p.get("a")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      ValueId x = inexact(t, ids[0]);
      const auto xt = t.type(x);
      if (xt.rank() < 2) throw types::ShardingError("ValueError", "The input `a` must be at least a 2-D array.");
      if (side != "right" && side != "left")
        throw types::ShardingError("ValueError", "The argument `side` must be either 'right' or 'left'.");
      const int64_t rows = xt.shape()[xt.rank() - 2], cols = xt.shape()[xt.rank() - 1];
      if (method == "qdwh") {
        if (!((rows >= cols && side == "right") || (rows < cols && side == "left")))
          throw types::ShardingError("NotImplementedError",
                                     fmt::format("method='qdwh' only supports mxn matrices where m < n where side='right' and m >= n "
                                                 "side='left', got {} with side='{}'", types::py_int_tuple({rows, cols}), side));
      } else if (method != "svd") {
        throw types::ShardingError("ValueError", fmt::format("Unknown polar decomposition method {}.", method));
      }
      // Both methods by the SVD (QDWH converges to the same factors): u = U Vh, and
      // p = V S Vh (right) or U S U^T (left).
      auto d = trace::svd(t, x, false, true);
      ValueId unitary = la::matmul(t, d.u, d.vt);
      ValueId s = trace::expand_dims(t, d.s, {-2});  // (..., 1, k): scales columns
      ValueId posdef = side == "right" ? la::matmul(t, trace::binary(t, "mul", ir::EwOp::Mul, la::mT(t, d.vt), s), d.vt)
                                       : la::matmul(t, trace::binary(t, "mul", ir::EwOp::Mul, d.u, s), la::mT(t, d.u));
      return std::vector<ValueId>{unitary, posdef};
    });
    return interp::make_tuple(r);
  });
  def_jnp(m, "block_diag", [](Interp& I, CallArgs& a) {
    std::vector<Value> arrs = a.args;
    if (!a.kwargs.empty()) I.raise("TypeError", fmt::format("block_diag() got an unexpected keyword argument '{}'", a.kwargs[0].first));
    const bool none = arrs.empty();
    for (size_t i = 0; i < arrs.size(); ++i) {
      if (!is_array_like(arrs[i]) && !python_scalar_type(arrs[i], false))
        I.raise("TypeError", fmt::format("block_diag requires ndarray or scalar arguments, got {} at position {}.", I.type_name(arrs[i]), i));
      if (is_array_like(arrs[i]) && type_of(arrs[i]).rank() > 2)
        I.raise("ValueError", fmt::format("Arguments to jax.scipy.linalg.block_diag must have at most 2 dimensions, got {} at argument {}.",
                                          I.str(arrs[i]), i));
    }
    return apply(I, "block_diag", arrs, [&](Trace& t, const std::vector<ValueId>& ids) {
      if (none) return std::vector<ValueId>{trace::full(t, {1, 0}, 0, {types::default_float_dtype(), false}, std::nullopt)};
      DTypeW common = dtw(t, ids[0]);
      for (auto id : ids) common = trace::promote(common, dtw(t, id));
      std::vector<ValueId> blocks;
      int64_t total = 0;
      for (auto id : ids) {
        ValueId x = trace::convert(t, id, common);
        const auto xt = t.type(x);
        if (xt.rank() == 0) x = trace::reshape(t, x, {1, 1});
        else if (xt.rank() == 1) x = trace::reshape(t, x, {1, xt.shape()[0]});
        blocks.push_back(x);
        total += t.type(x).shape()[1];
      }
      std::vector<ValueId> padded;
      int64_t col = 0;
      ValueId zero = trace::scalar_constant(t, 0, common);
      for (auto x : blocks) {
        const int64_t cols = t.type(x).shape()[1];
        padded.push_back(trace::pad(t, x, zero, {0, col}, {0, total - cols - col}));
        col += cols;
      }
      return std::vector<ValueId>{trace::concatenate(t, padded, 0)};
    });
  });
  def_jnp(m, "hilbert", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "hilbert", {"n"});
    const int64_t n = int_arg(I, p.get("n"), "n");
    return apply(I, "hilbert", {}, [&](Trace& t, const std::vector<ValueId>&) {
      const DTypeW f{types::default_float_dtype(), false};
      ValueId i = trace::convert(t, trace::iota(t, DType::I32, {n, n}, 0, std::nullopt), f);
      ValueId j = trace::convert(t, trace::iota(t, DType::I32, {n, n}, 1, std::nullopt), f);
      ValueId den = trace::binary(t, "add", ir::EwOp::Add, trace::binary(t, "add", ir::EwOp::Add, i, j),
                                  trace::scalar_constant(t, 1, {f.dtype, false}));
      return std::vector<ValueId>{trace::binary(t, "div", ir::EwOp::Div, trace::scalar_constant(t, 1, {f.dtype, false}), den)};
    });
  });
  def_jnp(m, "lu_factor", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "lu_factor", {"a", "overwrite_a=", "check_finite="});
    auto r = apply_multi(I, "lu_factor", {p.get("a")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      auto f = trace::lu(t, inexact(t, ids[0]));
      return std::vector<ValueId>{f.lu, f.pivots};
    });
    return interp::make_tuple(r);
  });
  def_jnp(m, "lu_solve", lu_solve);
  def_jnp(m, "solve_triangular", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "solve_triangular", {"a", "b", "trans=", "lower=", "unit_diagonal=", "overwrite_b=", "debug=", "check_finite="});
    ir::attr::TriangularSolve params{.lower = bool_arg(I, p.get("lower"), false), .transpose_a = trans_arg(I, p.get("trans")),
                                     .unit_diagonal = bool_arg(I, p.get("unit_diagonal"), false)};
    return apply(I, "solve_triangular", {p.get("a"), p.get("b")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      auto [x, y] = inexact_pair(t, ids[0], ids[1]);
      return std::vector<ValueId>{solve_left(t, x, y, params)};
    });
  });
  def_jnp(m, "cholesky", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "cholesky", {"a", "lower=", "overwrite_a=", "check_finite="});
    const bool lower = bool_arg(I, p.get("lower"), false);
    return apply(I, "cholesky", {p.get("a")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{cholesky_factor(t, inexact(t, ids[0]), lower)};
    });
  });
  def_jnp(m, "cho_factor", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "cho_factor", {"a", "lower=", "overwrite_a=", "check_finite="});
    const bool lower = bool_arg(I, p.get("lower"), false);
    Value c = apply(I, "cho_factor", {p.get("a")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{cholesky_factor(t, inexact(t, ids[0]), lower)};
    });
    return interp::make_tuple({c, interp::make_bool(lower)});
  });
  def_jnp(m, "cho_solve", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "cho_solve", {"c_and_lower", "b", "overwrite_b=", "check_finite="});
    auto pair = I.to_vector(p.get("c_and_lower"));
    if (pair.size() != 2) I.raise("ValueError", "cho_solve: c_and_lower must be a pair (c, lower), as cho_factor returns");
    const bool lower = I.truthy(pair[1]);
    return apply(I, "cho_solve", {pair[0], p.get("b")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      auto [c, b] = inexact_pair(t, ids[0], ids[1]);
      return std::vector<ValueId>{cho_solve(t, c, b, lower)};
    });
  });
  def_jnp(m, "lu", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "lu", {"a", "permute_l=", "overwrite_a=", "check_finite="});
    const bool permute_l = bool_arg(I, p.get("permute_l"), false);
    auto r = apply_multi(I, "lu", {p.get("a")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      ValueId x = inexact(t, ids[0]);
      const auto xt = t.type(x);
      la::require_matrix(xt, "lu");
      const int64_t rows = xt.shape()[xt.rank() - 2], cols = xt.shape()[xt.rank() - 1], k = std::min(rows, cols);
      auto f = trace::lu(t, x);
      const size_t r = xt.rank();
      types::Shape start(r, 0), lim = xt.shape(), strides(r, 1);
      lim[r - 1] = k;
      ValueId below = la::tril(t, trace::slice(t, f.lu, start, lim, strides), -1);
      ValueId unit_diagonal = trace::eye(t, rows, k, 0, dtw(t, x), std::nullopt);
      ValueId l = trace::binary(t, "add", ir::EwOp::Add, below, unit_diagonal);
      lim = xt.shape();
      lim[r - 2] = k;
      ValueId u = la::triu(t, trace::slice(t, f.lu, start, lim, strides));
      // a[perm] = l u, so a = p l u with p[perm[i], i] = 1: the transposed one-hot of perm.
      ValueId pt = la::permute_rows(t, la::eye_like(t, x, rows), f.permutation);
      ValueId pm = la::mT(t, pt);
      if (permute_l) return std::vector<ValueId>{la::matmul(t, pm, l), u};
      return std::vector<ValueId>{pm, l, u};
    });
    return interp::make_tuple(r);
  });
  def_jnp(m, "det", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "det", {"a", "overwrite_a=", "check_finite="});
    return apply(I, "det", {p.get("a")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{trace::det(t, inexact(t, ids[0]))};
    });
  });
  def_jnp(m, "inv", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "inv", {"a", "overwrite_a=", "check_finite="});
    return apply(I, "inv", {p.get("a")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{trace::inv(t, inexact(t, ids[0]))};
    });
  });
  def_jnp(m, "solve", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "solve", {"a", "b", "lower=", "overwrite_a=", "overwrite_b=", "debug=", "check_finite=", "assume_a="});
    const std::string assume = is_none(p.get("assume_a")) ? "gen" : I.str(p.get("assume_a"));
    if (assume != "gen" && assume != "sym" && assume != "her" && assume != "pos")
      I.raise("ValueError", fmt::format("Expected assume_a to be one of 'gen', 'sym', 'her', or 'pos'; got {}", I.repr(p.get("assume_a"))));
    const bool lower = bool_arg(I, p.get("lower"), false);
    return apply(I, "solve", {p.get("a"), p.get("b")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      auto [x, y] = inexact_pair(t, ids[0], ids[1]);
      if (assume == "pos") return std::vector<ValueId>{cho_solve(t, cholesky_factor(t, x, lower), y, lower)};
      return std::vector<ValueId>{trace::solve(t, x, y)};
    });
  });
  def_jnp(m, "eigh", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "eigh", {"a", "b=", "lower=", "eigvals_only=", "overwrite_a=", "overwrite_b=", "turbo=", "eigvals=", "type=",
                               "check_finite="});
    if (!is_none(p.get("b"))) I.raise("NotImplementedError", "Only the b=None case of eigh is implemented");
    const bool lower = bool_arg(I, p.get("lower"), true), only = bool_arg(I, p.get("eigvals_only"), false);
    auto r = apply_multi(I, "eigh", {p.get("a")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      auto e = trace::eigh(t, inexact(t, ids[0]), lower);
      if (only) return std::vector<ValueId>{e.w};
      return std::vector<ValueId>{e.w, e.v};
    });
    return only ? r.at(0) : interp::make_tuple(r);
  });
  def_jnp(m, "svd", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "svd", {"a", "full_matrices=", "compute_uv=", "overwrite_a=", "check_finite=", "lapack_driver="});
    const bool full = bool_arg(I, p.get("full_matrices"), true), uv = bool_arg(I, p.get("compute_uv"), true);
    auto r = apply_multi(I, "svd", {p.get("a")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      auto d = trace::svd(t, inexact(t, ids[0]), full, uv);
      if (!uv) return std::vector<ValueId>{d.s};
      return std::vector<ValueId>{d.u, d.s, d.vt};
    });
    return uv ? interp::make_tuple(r) : r.at(0);
  });
  def_jnp(m, "qr", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "qr", {"a", "overwrite_a=", "lwork=", "mode=", "pivoting=", "check_finite="});
    const std::string mode = is_none(p.get("mode")) ? "full" : I.str(p.get("mode"));
    if (bool_arg(I, p.get("pivoting"), false)) I.raise("NotImplementedError", "jax.scipy.linalg.qr: pivoting=True is not supported");
    if (mode != "full" && mode != "economic" && mode != "r") I.raise("ValueError", fmt::format("Unsupported QR decomposition mode '{}'", mode));
    auto r = apply_multi(I, "qr", {p.get("a")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      auto d = trace::qr(t, inexact(t, ids[0]), mode != "economic");
      if (mode == "r") return std::vector<ValueId>{d.r};
      return std::vector<ValueId>{d.q, d.r};
    });
    return interp::make_tuple(r);  // mode 'r': a 1-tuple (r,), as scipy
  });
  (void)I;
}

}  // namespace

void register_scipy_linalg_module() { Interp::register_builtin_module("jax.scipy.linalg", fill_scipy_linalg); }

}  // namespace shard::api
