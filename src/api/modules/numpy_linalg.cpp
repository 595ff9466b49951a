// numpy.linalg on host arrays, with numpy 1.24's semantics: every decomposition and solver is
// computed in float64 (ints and bools too) and cast back to float32 when every operand was
// float32, as numpy's _commonType does; float16 is refused. The bodies trace the primitives
// of primitives/linalg/ (LAPACK kernels) and run on the host device. Where numpy differs from
// jax.numpy.linalg this file implements numpy: LinAlgError on singular input (an exact zero
// pivot of the LU factorisation, read back from the host result), on a matrix that is not
// positive definite and on NaN input to an SVD; det as sign * exp(logdet); pinv's rcond=1e-15;
// matrix_rank's absolute tol; lstsq's rcond as LAPACK's gelsd reads it; norm's algorithm.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <numeric>
#include <set>

#include "api/modules/numpy_internal.hpp"
#include "ast/source.hpp"
#include "interp/builtins/support.hpp"
#include "primitives/linalg/linalg.hpp"

namespace shard::api::np {

namespace bi = interp::bi;
using ir::EwOp;
using ir::ReduceKind;
using trace::Trace;
using Ids = std::vector<ValueId>;

namespace {

// ---- errors and checks -----------------------------------------------------------------------

interp::ClassP g_linalg_error;

[[noreturn]] void linalg_error(Interp& I, const std::string& msg) {
  throw interp::PyError{I.call(g_linalg_error, std::vector<Value>{interp::make_str(msg)})};
}

// A shape as numpy's gufunc messages print it: (3,2,2), (4,).
std::string np_shape(const Shape& s, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> parts;
  for (auto d : s) parts.push_back(std::to_string(d));
  for (auto& e : extra) parts.push_back(e);
  if (parts.size() == 1 && extra.empty()) return "(" + parts[0] + ",)";
  return "(" + fmt::format("{}", fmt::join(parts, ",")) + ")";
}

void assert_stacked_2d(Interp& I, const exec::ArrayRef& a) {
  if (a->type.rank() < 2)
    linalg_error(I, fmt::format("{}-dimensional array given. Array must be at least two-dimensional", a->type.rank()));
}

void assert_stacked_square(Interp& I, const exec::ArrayRef& a) {
  const auto& s = a->type.shape();
  if (s[s.size() - 1] != s[s.size() - 2]) linalg_error(I, "Last 2 dimensions of the array must be square");
}

void assert_2d(Interp& I, size_t rank) {
  if (rank != 2) linalg_error(I, fmt::format("{}-dimensional array given. Array must be two-dimensional", rank));
}

// numpy's _commonType: the computation is float64; the result float32 only when every
// operand is float32 (ints and bools compute and return float64).
DType common_type(Interp& I, const char* fn, const std::vector<exec::ArrayRef>& xs) {
  DType r = DType::F32;
  for (auto& x : xs) {
    const DType d = x->type.dtype();
    if (types::is_complex(d))
      I.raise("NotImplementedError", fmt::format("numpy.linalg.{} of complex arrays is not supported by shard yet (there is no complex "
                                                 "LAPACK kernel); numpy.linalg takes float32, float64, int and bool arrays",
                                                 fn));
    if (types::is_float(d)) {
      if (d == DType::F64) r = DType::F64;
      else if (d != DType::F32) I.raise("TypeError", fmt::format("array type {} is unsupported in linalg", types::dtype_name(d)));
    } else {
      r = DType::F64;
    }
  }
  return r;
}

int64_t size_of(const Shape& s) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

bool contains_nan(const exec::ArrayRef& a) {
  const DType d = a->type.dtype();
  if (d != DType::F64 && d != DType::F32) return false;
  auto bytes = exec::array_to_host(*a);
  if (d == DType::F64) {
    for (size_t i = 0; i + 8 <= bytes.size(); i += 8) {
      double x;
      std::memcpy(&x, bytes.data() + i, 8);
      if (std::isnan(x)) return true;
    }
  } else {
    for (size_t i = 0; i + 4 <= bytes.size(); i += 4) {
      float x;
      std::memcpy(&x, bytes.data() + i, 4);
      if (std::isnan(x)) return true;
    }
  }
  return false;
}

bool flag(const exec::ArrayRef& a) {
  auto bytes = exec::array_to_host(*a);
  return !bytes.empty() && bytes[0] != 0;
}

// LAPACK's gesdd refuses NaN input (numpy raises); inf goes through as NaN results.
void check_svd_input(Interp& I, const exec::ArrayRef& a, const char* msg = "SVD did not converge") {
  if (contains_nan(a)) linalg_error(I, msg);
}

Value numpy_fn(Interp& I, const char* name) { return I.getattr(I.import_module("numpy", I.current_loc()), name); }

// ---- trace helpers ---------------------------------------------------------------------------

ValueId c(Trace& t, double v, ValueId like) { return trace::scalar_constant(t, v, {t.type(like).dtype(), true}); }
ValueId ew(Trace& t, EwOp op, ValueId a, ValueId b) { return trace::binary(t, "linalg", op, a, b); }
ValueId abs_of(Trace& t, ValueId x) { return trace::unary(t, "abs", EwOp::Abs, x); }

std::vector<int64_t> all_dims(Trace& t, ValueId x) {
  std::vector<int64_t> d(t.type(x).rank());
  std::iota(d.begin(), d.end(), 0);
  return d;
}

// Whether pred (bool) holds anywhere: a bool scalar.
ValueId any_of(Trace& t, ValueId pred) {
  ValueId n = trace::convert(t, pred, {DType::I32, false});
  ValueId m = trace::reduce(t, "any", ReduceKind::Max, n, all_dims(t, n), false);
  return ew(t, EwOp::Gt, m, trace::scalar_constant(t, 0, {DType::I32, true}));
}

ValueId false_flag(Trace& t) { return trace::full(t, {}, 0, {DType::Bool, false}, std::nullopt); }

ValueId zeros(Trace& t, const Shape& s, DType d) { return trace::full(t, s, 0, {d, false}, std::nullopt); }

// x[..., i] over the last dim.
ValueId last_at(Trace& t, ValueId x, int64_t i) {
  const auto xt = t.type(x);
  const size_t r = xt.rank();
  Shape start(r, 0), limit = xt.shape(), strides(r, 1);
  start[r - 1] = i;
  limit[r - 1] = i + 1;
  Shape out = xt.shape();
  out.pop_back();
  return trace::reshape(t, trace::slice(t, x, start, limit, strides), out);
}

struct Solved {
  ValueId x, singular;  // singular: any exact zero pivot (gesv's info > 0)
  ValueId diag;         // the pivots, batch + (m,)
};

// a (..., m, m) and b (..., m, k) of one batch shape, float64: gesv's LU with partial
// pivoting and the two triangular solves.
Solved lu_solve(Trace& t, ValueId a, ValueId b) {
  auto f = trace::lu(t, a);
  ValueId pb = trace::linalg::permute_rows(t, b, f.permutation);
  ValueId y = trace::triangular_solve(t, f.lu, pb, {.left_side = true, .lower = true, .unit_diagonal = true});
  ValueId x = trace::triangular_solve(t, f.lu, y, {.left_side = true, .lower = false});
  ValueId diag = trace::linalg::diagonal(t, f.lu);
  return {x, any_of(t, ew(t, EwOp::Eq, diag, c(t, 0, diag))), diag};
}

// The inverse of a float64 stack, and its singular flag.
Solved inverse(Trace& t, ValueId a) {
  const int64_t n = t.type(a).shape().back();
  return lu_solve(t, a, trace::linalg::eye_like(t, a, n));
}

// ---- inv, solve ------------------------------------------------------------------------------

exec::ArrayRef inv_array(Interp& I, const exec::ArrayRef& x) {
  assert_stacked_2d(I, x);
  assert_stacked_square(I, x);
  const DType rt = common_type(I, "inv", {x});
  auto r = run(I, "inv", {x}, [&](Trace& t, const Ids& ids) {
    if (size_of(x->type.shape()) == 0) return Ids{zeros(t, x->type.shape(), rt), false_flag(t)};
    auto s = inverse(t, cast(t, ids[0], DType::F64));
    return Ids{cast(t, s.x, rt), s.singular};
  });
  if (flag(r[1])) linalg_error(I, "Singular matrix");
  return r[0];
}

Value inv(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "inv", {"a"});
  return wrap(inv_array(I, host_array(I, p.get("a"))), true);
}

// numpy's gufunc broadcasting of the loop (batch) dims, with its message.
Shape broadcast_loops(Interp& I, const std::vector<Shape>& originals, const std::vector<Shape>& loops, size_t core_out,
                      const Shape& out_core) {
  size_t rank = 0;
  for (auto& l : loops) rank = std::max(rank, l.size());
  Shape out(rank, 1);
  bool ok = true;
  for (auto& l : loops)
    for (size_t i = 0; i < l.size(); ++i) {
      int64_t& o = out[rank - l.size() + i];
      if (l[i] == 1) continue;
      if (o != 1 && o != l[i]) ok = false;
      o = l[i];
    }
  if (!ok) {
    std::string msg = "operands could not be broadcast together with remapped shapes [original->remapped]: ";
    for (size_t k = 0; k < loops.size(); ++k) {
      std::vector<std::string> extra(rank - loops[k].size(), "newaxis");
      for (auto d : loops[k]) extra.push_back(std::to_string(d));
      for (size_t i = 0; i < core_out; ++i) extra.push_back("newaxis");
      msg += np_shape(originals[k]) + "->" + np_shape({}, extra) + " ";
    }
    std::vector<std::string> core;
    for (auto d : out_core) core.push_back(std::to_string(d));
    msg += fmt::format(" and requested shape ({})", fmt::join(core, ","));
    I.raise("ValueError", msg);
  }
  return out;
}

exec::ArrayRef solve_arrays(Interp& I, const exec::ArrayRef& a, const exec::ArrayRef& b) {
  assert_stacked_2d(I, a);
  assert_stacked_square(I, a);
  const DType rt = common_type(I, "solve", {a, b});
  const Shape as = a->type.shape(), bs = b->type.shape();
  const int64_t m = as.back();
  const bool vector = bs.size() + 1 == as.size();  // numpy's solve1: b is a stack of vectors
  const Shape a_loop(as.begin(), as.end() - 2);
  Shape b_loop, out_core;
  if (vector) {
    if (bs.back() != m)
      I.raise("ValueError", fmt::format("solve1: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                                        "(m,m),(m)->(m) (size {} is different from {})", bs.back(), m));
    b_loop.assign(bs.begin(), bs.end() - 1);
    out_core = {m};
  } else {
    if (bs.size() < 2)
      I.raise("ValueError", fmt::format("solve: Input operand 1 does not have enough dimensions (has {}, gufunc core with signature "
                                        "(m,m),(m,n)->(m,n) requires 2)", bs.size()));
    if (bs[bs.size() - 2] != m)
      I.raise("ValueError", fmt::format("solve: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                                        "(m,m),(m,n)->(m,n) (size {} is different from {})", bs[bs.size() - 2], m));
    b_loop.assign(bs.begin(), bs.end() - 2);
    out_core = {m, bs.back()};
  }
  const Shape loop = broadcast_loops(I, {as, bs}, {a_loop, b_loop}, out_core.size(), out_core);
  Shape out_shape = loop;
  out_shape.insert(out_shape.end(), out_core.begin(), out_core.end());
  auto r = run(I, "solve", {a, b}, [&](Trace& t, const Ids& ids) {
    if (size_of(out_shape) == 0 || m == 0) return Ids{zeros(t, out_shape, rt), false_flag(t)};
    ValueId a64 = cast(t, ids[0], DType::F64), b64 = cast(t, ids[1], DType::F64);
    if (vector) b64 = trace::expand_dims(t, b64, {static_cast<int64_t>(bs.size())});
    Shape ash = loop, bsh = loop;
    ash.push_back(m);
    ash.push_back(m);
    bsh.push_back(m);
    bsh.push_back(vector ? 1 : bs.back());
    if (t.type(a64).shape() != ash) a64 = trace::broadcast_to(t, a64, ash);
    if (t.type(b64).shape() != bsh) b64 = trace::broadcast_to(t, b64, bsh);
    auto s = lu_solve(t, a64, b64);
    ValueId x = vector ? trace::reshape(t, s.x, out_shape) : s.x;
    return Ids{cast(t, x, rt), s.singular};
  });
  if (flag(r[1])) linalg_error(I, "Singular matrix");
  return r[0];
}

Value solve(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "solve", {"a", "b"});
  auto x = host_array(I, p.get("a"));
  assert_stacked_2d(I, x);
  assert_stacked_square(I, x);
  return wrap(solve_arrays(I, x, host_array(I, p.get("b"))), true);
}

// ---- det, slogdet ----------------------------------------------------------------------------

struct SignLog {
  ValueId sign, logdet;
};

// numpy's slogdet_single_element: getrf; an exact zero pivot gives (0, -inf); otherwise the
// sign from the row swaps and the negative pivots, the log from the sum of log |pivot|.
SignLog sign_logdet(Trace& t, ValueId a) {
  const auto at = t.type(a);
  const Shape batch = trace::linalg::batch_shape(at);
  const int64_t n = at.shape().back();
  if (n == 0) return {trace::full(t, batch, 1, {DType::F64, false}, std::nullopt), zeros(t, batch, DType::F64)};
  auto f = trace::lu(t, a);
  ValueId d = trace::linalg::diagonal(t, f.lu);
  const int64_t last = static_cast<int64_t>(batch.size());
  const auto pt = t.type(f.pivots);
  ValueId rows = trace::iota(t, DType::I32, pt.shape(), static_cast<int64_t>(pt.rank()) - 1, std::nullopt);
  ValueId swaps = trace::reduce(t, "slogdet", ReduceKind::Sum, trace::convert(t, ew(t, EwOp::Ne, f.pivots, rows), {DType::I32, false}),
                                {last}, false);
  ValueId negs = trace::reduce(t, "slogdet", ReduceKind::Sum, trace::convert(t, ew(t, EwOp::Lt, d, c(t, 0, d)), {DType::I32, false}),
                               {last}, false);
  ValueId odd = ew(t, EwOp::Rem, ew(t, EwOp::Add, swaps, negs), trace::scalar_constant(t, 2, {DType::I32, true}));
  ValueId one = trace::scalar_constant(t, 1, {DType::F64, true});
  ValueId sign = ew(t, EwOp::Sub, one, ew(t, EwOp::Mul, trace::scalar_constant(t, 2, {DType::F64, true}), trace::convert(t, odd, {DType::F64, false})));
  ValueId logdet = trace::reduce(t, "slogdet", ReduceKind::Sum, trace::unary(t, "log", EwOp::Log, abs_of(t, d)), {last}, false);
  ValueId zero_pivot = trace::reduce(t, "slogdet", ReduceKind::Max,
                                     trace::convert(t, ew(t, EwOp::Eq, d, c(t, 0, d)), {DType::I32, false}), {last}, false);
  ValueId singular = ew(t, EwOp::Gt, zero_pivot, trace::scalar_constant(t, 0, {DType::I32, true}));
  sign = trace::where(t, singular, trace::full(t, batch, 0, {DType::F64, false}, std::nullopt), sign);
  logdet = trace::where(t, singular, trace::full(t, batch, -INFINITY, {DType::F64, false}, std::nullopt), logdet);
  return {sign, logdet};
}

Value slogdet(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "slogdet", {"a"});
  auto x = host_array(I, p.get("a"));
  assert_stacked_2d(I, x);
  assert_stacked_square(I, x);
  const DType rt = common_type(I, "slogdet", {x});
  auto r = run(I, "slogdet", {x}, [&](Trace& t, const Ids& ids) {
    auto s = sign_logdet(t, cast(t, ids[0], DType::F64));
    return Ids{cast(t, s.sign, rt), cast(t, s.logdet, rt)};
  });
  return interp::make_tuple({result(r[0]), result(r[1])});
}

Value det(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "det", {"a"});
  auto x = host_array(I, p.get("a"));
  assert_stacked_2d(I, x);
  assert_stacked_square(I, x);
  const DType rt = common_type(I, "det", {x});
  return result(run1(I, "det", {x}, [&](Trace& t, const Ids& ids) {
    auto s = sign_logdet(t, cast(t, ids[0], DType::F64));
    ValueId d = ew(t, EwOp::Mul, s.sign, trace::unary(t, "exp", EwOp::Exp, s.logdet));  // numpy's det_from_slogdet
    return Ids{cast(t, d, rt)};
  }));
}

// ---- cholesky, qr, svd, eigh -----------------------------------------------------------------

Value cholesky(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "cholesky", {"a"});
  auto x = host_array(I, p.get("a"));
  assert_stacked_2d(I, x);
  assert_stacked_square(I, x);
  const DType rt = common_type(I, "cholesky", {x});
  const Shape s = x->type.shape();
  const int64_t n = s.back();
  auto r = run(I, "cholesky", {x}, [&](Trace& t, const Ids& ids) {
    if (size_of(s) == 0) return Ids{zeros(t, s, rt), false_flag(t)};
    ValueId a64 = cast(t, ids[0], DType::F64);
    ValueId l = trace::cholesky(t, a64);
    // potrf's failure leaves the whole factor NaN (its upper corner, zero otherwise); NaN input
    // that potrf accepts (numpy returns its NaN factor) leaves that corner zero.
    ValueId failed;
    if (n >= 2) {
      failed = any_of(t, trace::unary(t, "isnan", EwOp::IsNan, last_at(t, last_at(t, trace::linalg::mT(t, l), 0), n - 1)));
    } else {
      ValueId nan_out = trace::unary(t, "isnan", EwOp::IsNan, l), nan_in = trace::unary(t, "isnan", EwOp::IsNan, a64);
      failed = any_of(t, ew(t, EwOp::And, nan_out, trace::unary(t, "not", EwOp::Not, nan_in)));
    }
    return Ids{cast(t, l, rt), failed};
  });
  if (flag(r[1])) linalg_error(I, "Matrix is not positive definite");
  return wrap(r[0], true);
}

Value qr(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "qr", {"a", "mode="});
  std::string mode = p.get("mode") ? I.str(p.get("mode")) : "reduced";
  if (mode == "f" || mode == "full") mode = "reduced";  // numpy's deprecated spelling of the default
  if (mode == "raw" || mode == "e" || mode == "economic")
    I.raise("NotImplementedError", fmt::format("numpy.linalg.qr: mode '{}' (LAPACK's Householder reflectors) is not supported by shard; "
                                               "use mode='reduced', 'complete' or 'r'", mode));
  if (mode != "reduced" && mode != "complete" && mode != "r") I.raise("ValueError", fmt::format("Unrecognized mode '{}'", mode));
  auto x = host_array(I, p.get("a"));
  assert_stacked_2d(I, x);
  const DType rt = common_type(I, "qr", {x});
  auto r = run(I, "qr", {x}, [&](Trace& t, const Ids& ids) {
    auto d = trace::qr(t, cast(t, ids[0], DType::F64), mode == "complete");
    if (mode == "r") return Ids{cast(t, d.r, rt)};
    return Ids{cast(t, d.q, rt), cast(t, d.r, rt)};
  });
  if (mode == "r") return wrap(r[0], true);
  return interp::make_tuple({wrap(r[0], true), wrap(r[1], true)});
}

// The singular values (and vectors) of a float64 stack, cast to `rt`.
trace::SvdResult svd_body(Trace& t, ValueId a, bool full, bool uv, DType rt) {
  auto d = trace::svd(t, cast(t, a, DType::F64), full, uv);
  d.s = cast(t, d.s, rt);
  if (uv) {
    d.u = cast(t, d.u, rt);
    d.vt = cast(t, d.vt, rt);
  }
  return d;
}

// numpy's svd(hermitian=True): the eigendecomposition (in `rt`), the singular values |w| in
// descending order (argsort ascending, reversed), the signs of w moved into vt.
trace::SvdResult hermitian_svd(Trace& t, ValueId a, bool uv, DType rt) {
  auto e = trace::eigh(t, cast(t, a, DType::F64), true);
  ValueId w = cast(t, e.w, rt);
  const auto wt = t.type(w);
  const int64_t last = static_cast<int64_t>(wt.rank()) - 1, n = wt.shape().back();
  ValueId s = abs_of(t, w);
  if (!uv) return {trace::rev(t, trace::sort(t, s, last), {last})};
  ValueId idx = trace::rev(t, trace::argsort(t, s, last), {last});
  // onehot[..., i, j] = (idx[..., j] == i): column j of the result is column idx[j].
  Shape sq = wt.shape();
  sq.push_back(n);
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < last; ++d) dims.push_back(d);
  dims.push_back(last + 1);
  ValueId onehot = ew(t, EwOp::Eq, trace::broadcast_in_dim(t, idx, sq, dims), trace::iota(t, DType::I32, sq, last, std::nullopt));
  auto take = [&](ValueId v) {  // v[..., idx] over the last dim
    ValueId col = trace::broadcast_in_dim(t, v, sq, [&] {
      std::vector<int64_t> d;
      for (int64_t k = 0; k <= last; ++k) d.push_back(k);
      return d;
    }());
    return trace::reduce(t, "svd", ReduceKind::Sum, trace::where(t, onehot, col, zeros(t, sq, rt)), {last}, false);
  };
  ValueId u = trace::linalg::matmul(t, cast(t, e.v, rt), trace::convert(t, onehot, {rt, false}));
  ValueId sgn = take(trace::unary(t, "sign", EwOp::Sign, w));
  ValueId vt = trace::linalg::mT(t, ew(t, EwOp::Mul, u, trace::expand_dims(t, sgn, {last})));
  return {take(s), u, vt};
}

Value svd(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "svd", {"a", "full_matrices=", "compute_uv=", "hermitian="});
  const bool full = bool_arg(I, p.get("full_matrices"), true), uv = bool_arg(I, p.get("compute_uv"), true);
  auto x = host_array(I, p.get("a"));
  const bool hermitian = bool_arg(I, p.get("hermitian"), false);
  assert_stacked_2d(I, x);
  if (hermitian) assert_stacked_square(I, x);
  const DType rt = common_type(I, "svd", {x});
  if (!hermitian) check_svd_input(I, x);
  auto r = run(I, "svd", {x}, [&](Trace& t, const Ids& ids) {
    auto d = hermitian ? hermitian_svd(t, ids[0], uv, rt) : svd_body(t, ids[0], full, uv, rt);
    if (!uv) return Ids{d.s};
    return Ids{d.u, d.s, d.vt};
  });
  if (!uv) return wrap(r[0], true);
  return interp::make_tuple({wrap(r[0], true), wrap(r[1], true), wrap(r[2], true)});
}

bool uplo_lower(Interp& I, const Value& v) {
  if (!v) return true;
  if (v->kind != ObjKind::Str) I.raise("AttributeError", fmt::format("'{}' object has no attribute 'upper'", I.type_name(v)));
  std::string s = I.str(v);
  for (auto& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (s != "L" && s != "U") I.raise("ValueError", "UPLO argument must be 'L' or 'U'");
  return s == "L";
}

Value eigh_impl(Interp& I, CallArgs& a, bool vectors) {
  const char* name = vectors ? "eigh" : "eigvalsh";
  interp::ArgParser p(I, a, name, {"a", "UPLO="});
  const bool lower = uplo_lower(I, p.get("UPLO"));
  auto x = host_array(I, p.get("a"));
  assert_stacked_2d(I, x);
  assert_stacked_square(I, x);
  const DType rt = common_type(I, name, {x});
  auto r = run(I, name, {x}, [&](Trace& t, const Ids& ids) {
    if (size_of(x->type.shape()) == 0) {
      Shape ws = x->type.shape();
      ws.pop_back();
      return Ids{zeros(t, ws, rt), zeros(t, x->type.shape(), rt)};
    }
    auto e = trace::eigh(t, cast(t, ids[0], DType::F64), lower);
    return Ids{cast(t, e.w, rt), cast(t, e.v, rt)};
  });
  if (!vectors) return wrap(r[0], true);
  return interp::make_tuple({wrap(r[0], true), wrap(r[1], true)});
}

Value eig_unsupported(Interp& I, CallArgs& a, const char* name) {
  interp::ArgParser p(I, a, name, {"a"});
  auto x = host_array(I, p.get("a"));
  assert_stacked_2d(I, x);
  assert_stacked_square(I, x);
  common_type(I, name, {x});
  if (contains_nan(x)) linalg_error(I, "Array must not contain infs or NaNs");
  I.raise("NotImplementedError", fmt::format("numpy.linalg.{}: general (complex) eigenvalues are not supported by shard yet (there is no "
                                             "geev kernel); for a symmetric matrix use numpy.linalg.{}",
                                             name, std::string(name) == "eig" ? "eigh" : "eigvalsh"));
}

// ---- norm ------------------------------------------------------------------------------------

struct Ord {
  enum Kind { None, Number, Str } kind = None;
  double v = 0;
  std::string s;
  bool is(double x) const { return kind == Number && v == x; }
  bool none_or(double x) const { return kind == None || is(x); }
};

Ord ord_arg(Interp& I, const Value& v) {
  Ord o;
  if (!v || v->kind == ObjKind::None) return o;
  if (v->kind == ObjKind::Str) {
    o.kind = Ord::Str;
    o.s = I.str(v);
    return o;
  }
  o.kind = Ord::Number;
  o.v = number_arg(I, v, "ord");
  return o;
}

[[noreturn]] void value_error(const std::string& msg) { throw types::ShardingError("ValueError", msg); }

ValueId reduce_nonempty(Trace& t, ReduceKind k, ValueId x, int64_t axis, bool keepdims) {
  if (t.type(x).shape()[static_cast<size_t>(axis)] == 0)
    value_error(fmt::format("zero-size array to reduction operation {} which has no identity", k == ReduceKind::Max ? "maximum" : "minimum"));
  return trace::reduce(t, "norm", k, x, {axis}, keepdims);
}

// numpy.linalg.norm of an inexact x, at trace level (the caller refuses NaN input to the SVD norms).
ValueId norm_body(Trace& t, ValueId x, const Ord& ord, std::optional<std::vector<int64_t>> axis, bool keepdims) {
  const size_t nd = t.type(x).rank();
  if (!axis && (ord.kind == Ord::None || (ord.kind == Ord::Str && (ord.s == "f" || ord.s == "fro") && nd == 2) ||
                (ord.is(2) && nd == 1))) {
    ValueId flat = trace::reshape(t, x, {size_of(t.type(x).shape())});
    ValueId r = trace::unary(t, "sqrt", EwOp::Sqrt, trace::reduce(t, "norm", ReduceKind::Sum, ew(t, EwOp::Mul, flat, flat), {0}, false));
    if (keepdims) r = trace::reshape(t, r, Shape(nd, 1));
    return r;
  }
  if (!axis) {
    axis.emplace();
    for (size_t d = 0; d < nd; ++d) axis->push_back(static_cast<int64_t>(d));
  }
  auto sum = [&](ValueId v, std::vector<int64_t> dims, bool kd) { return trace::reduce(t, "norm", ReduceKind::Sum, v, std::move(dims), kd); };
  if (axis->size() == 1) {
    const int64_t ax = trace::normalize_axis("norm", (*axis)[0], nd);
    if (ord.is(INFINITY)) return reduce_nonempty(t, ReduceKind::Max, abs_of(t, x), ax, keepdims);
    if (ord.is(-INFINITY)) return reduce_nonempty(t, ReduceKind::Min, abs_of(t, x), ax, keepdims);
    if (ord.is(0)) return sum(trace::convert(t, ew(t, EwOp::Ne, x, c(t, 0, x)), {t.type(x).dtype(), false}), {ax}, keepdims);
    if (ord.is(1)) return sum(abs_of(t, x), {ax}, keepdims);
    if (ord.none_or(2)) return trace::unary(t, "sqrt", EwOp::Sqrt, sum(ew(t, EwOp::Mul, x, x), {ax}, keepdims));
    if (ord.kind == Ord::Str) value_error(fmt::format("Invalid norm order '{}' for vectors", ord.s));
    const DType dt = t.type(x).dtype();
    ValueId powered = ew(t, EwOp::Pow, abs_of(t, x), trace::scalar_constant(t, ord.v, {dt, false}));
    ValueId total = sum(powered, {ax}, keepdims);
    ValueId recip = trace::convert(t, trace::scalar_constant(t, 1.0 / ord.v, {DType::F64, false}), {dt, false});
    return ew(t, EwOp::Pow, total, recip);
  }
  if (axis->size() != 2) value_error("Improper number of dimensions to norm.");
  int64_t row = trace::normalize_axis("norm", (*axis)[0], nd), col = trace::normalize_axis("norm", (*axis)[1], nd);
  if (row == col) value_error("Duplicate axes given.");
  ValueId r;
  auto svd_norm = [&](ReduceKind k) {
    if (t.type(x).dtype() != DType::F64 && t.type(x).dtype() != DType::F32)
      throw types::ShardingError("TypeError", fmt::format("array type {} is unsupported in linalg", types::dtype_name(t.type(x).dtype())));
    std::vector<int64_t> perm;
    for (int64_t d = 0; d < static_cast<int64_t>(nd); ++d)
      if (d != row && d != col) perm.push_back(d);
    perm.push_back(row);
    perm.push_back(col);
    ValueId m = trace::transpose(t, x, perm);
    ValueId s = svd_body(t, m, false, false, t.type(x).dtype()).s;
    const int64_t last = static_cast<int64_t>(t.type(s).rank()) - 1;
    if (k == ReduceKind::Sum) return sum(s, {last}, false);
    return reduce_nonempty(t, k, s, last, false);
  };
  auto abs_sum_then = [&](int64_t summed, int64_t then, ReduceKind k) {
    if (then > summed) then -= 1;
    return reduce_nonempty(t, k, sum(abs_of(t, x), {summed}, false), then, false);
  };
  if (ord.is(2)) r = svd_norm(ReduceKind::Max);
  else if (ord.is(-2)) r = svd_norm(ReduceKind::Min);
  else if (ord.is(1)) r = abs_sum_then(row, col, ReduceKind::Max);
  else if (ord.is(INFINITY)) r = abs_sum_then(col, row, ReduceKind::Max);
  else if (ord.is(-1)) r = abs_sum_then(row, col, ReduceKind::Min);
  else if (ord.is(-INFINITY)) r = abs_sum_then(col, row, ReduceKind::Min);
  else if (ord.kind == Ord::None || (ord.kind == Ord::Str && (ord.s == "fro" || ord.s == "f")))
    r = trace::unary(t, "sqrt", EwOp::Sqrt, sum(ew(t, EwOp::Mul, x, x), {row, col}, false));
  else if (ord.kind == Ord::Str && ord.s == "nuc") r = svd_norm(ReduceKind::Sum);
  else value_error("Invalid norm order for matrices.");
  if (keepdims) {
    Shape s = t.type(x).shape();
    s[static_cast<size_t>(row)] = 1;
    s[static_cast<size_t>(col)] = 1;
    r = trace::reshape(t, r, s);
  }
  return r;
}

bool uses_svd(const Ord& ord, const std::optional<std::vector<int64_t>>& axis, size_t nd) {
  const size_t n = axis ? axis->size() : nd;
  return n == 2 && (ord.is(2) || ord.is(-2) || (ord.kind == Ord::Str && ord.s == "nuc"));
}

std::optional<std::vector<int64_t>> norm_axis_arg(Interp& I, const Value& v) {
  if (!v || v->kind == ObjKind::None) return std::nullopt;
  if (v->kind == ObjKind::Tuple) {
    std::vector<int64_t> out;
    for (auto& x : I.to_vector(v)) out.push_back(bi::index_of(I, x, "'tuple' object cannot be interpreted as an integer"));
    return out;
  }
  if (auto i = bi::try_index(I, v)) return std::vector<int64_t>{*i};
  if (auto d = bi::real_of(v); d && std::isfinite(*d)) return std::vector<int64_t>{static_cast<int64_t>(std::trunc(*d))};  // int(axis)
  I.raise("TypeError", "'axis' must be None, an integer or a tuple of integers");
}

// x as numpy's norm takes it: float and complex stay, the rest become float64.
exec::ArrayRef norm_input(Interp& I, const Value& v) {
  auto x = host_array(I, v);
  const DType d = x->type.dtype();
  if (types::is_complex(d))
    I.raise("NotImplementedError", "numpy.linalg.norm of complex arrays is not supported by shard yet; it takes real arrays");
  return x;
}

Value norm(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "norm", {"x", "ord=", "axis=", "keepdims="});
  auto x = norm_input(I, p.get("x"));
  const Ord ord = ord_arg(I, p.get("ord"));
  auto axis = norm_axis_arg(I, p.get("axis"));
  const bool keepdims = bool_arg(I, p.get("keepdims"), false);
  if (uses_svd(ord, axis, x->type.rank())) check_svd_input(I, x);
  return result(run1(I, "norm", {x}, [&](Trace& t, const Ids& ids) {
    ValueId v = types::is_float(x->type.dtype()) ? ids[0] : cast(t, ids[0], DType::F64);
    return Ids{norm_body(t, v, ord, axis, keepdims)};
  }));
}

// ---- pinv, matrix_rank, cond, matrix_power ---------------------------------------------------

Value pinv(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "pinv", {"a", "rcond=", "hermitian="});
  auto x = host_array(I, p.get("a"));
  auto rc = p.get("rcond") ? host_array(I, p.get("rcond")) : host_array(I, interp::make_float(1e-15));
  const Shape s = x->type.shape();
  if (!s.empty() && size_of(s) == 0 && (s.size() < 2 ? s.back() : s[s.size() - 1] * s[s.size() - 2]) == 0) {
    if (s.size() < 2) I.raise("ValueError", fmt::format("not enough values to unpack (expected 2, got {})", s.size()));
    Shape out(s.begin(), s.end() - 2);
    out.push_back(s.back());
    out.push_back(s[s.size() - 2]);
    return wrap(run1(I, "pinv", {}, [&](Trace& t, const Ids&) { return Ids{zeros(t, out, x->type.dtype())}; }), true);
  }
  const bool hermitian = bool_arg(I, p.get("hermitian"), false);
  assert_stacked_2d(I, x);
  if (hermitian) assert_stacked_square(I, x);
  const DType rt = common_type(I, "pinv", {x});
  if (!hermitian) check_svd_input(I, x);
  return wrap(run1(I, "pinv", {x, rc}, [&](Trace& t, const Ids& ids) {
    auto d = hermitian ? hermitian_svd(t, ids[0], true, rt) : svd_body(t, ids[0], false, true, rt);
    const int64_t last = static_cast<int64_t>(t.type(d.s).rank()) - 1;
    ValueId rcond = trace::expand_dims(t, cast(t, ids[1], rt), {static_cast<int64_t>(rc->type.rank())});
    ValueId cutoff = ew(t, EwOp::Mul, rcond, trace::reduce(t, "pinv", ReduceKind::Max, d.s, {last}, true));
    ValueId large = ew(t, EwOp::Gt, d.s, cutoff);
    ValueId one = c(t, 1, d.s);
    ValueId inv_s = trace::where(t, large, ew(t, EwOp::Div, one, trace::where(t, large, d.s, trace::broadcast_to(t, one, t.type(d.s).shape()))),
                                 zeros(t, t.type(d.s).shape(), rt));
    ValueId scaled = ew(t, EwOp::Mul, trace::expand_dims(t, inv_s, {last + 1}), trace::linalg::mT(t, d.u));
    return Ids{trace::linalg::matmul(t, trace::linalg::mT(t, d.vt), scaled)};
  }), true);
}

Value matrix_rank(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "matrix_rank", {"A", "tol=", "hermitian="});
  auto x = host_array(I, p.get("A"));
  const Shape s = x->type.shape();
  if (s.size() < 2) {
    auto r = run1(I, "matrix_rank", {x}, [&](Trace& t, const Ids& ids) {
      if (size_of(s) == 0) return Ids{false_flag(t)};
      return Ids{any_of(t, ew(t, EwOp::Ne, ids[0], c(t, 0, ids[0])))};
    });
    return interp::make_int(flag(r) ? 1 : 0);
  }
  const bool hermitian = bool_arg(I, p.get("hermitian"), false);
  if (hermitian) assert_stacked_square(I, x);
  const DType rt = common_type(I, "matrix_rank", {x});
  if (!hermitian) check_svd_input(I, x);
  const Value tolv = p.get("tol");
  const bool has_tol = tolv && tolv->kind != ObjKind::None;
  const int64_t m = s[s.size() - 2], n = s[s.size() - 1];
  if (!has_tol && std::min(m, n) == 0) I.raise("ValueError", "zero-size array to reduction operation maximum which has no identity");
  std::vector<exec::ArrayRef> inputs = {x};
  if (has_tol) inputs.push_back(host_array(I, tolv));
  return result(run1(I, "matrix_rank", inputs, [&](Trace& t, const Ids& ids) {
    ValueId sv;
    if (hermitian) sv = abs_of(t, cast(t, trace::eigh(t, cast(t, ids[0], DType::F64), true).w, rt));
    else sv = svd_body(t, ids[0], false, false, rt).s;
    const int64_t last = static_cast<int64_t>(t.type(sv).rank()) - 1;
    ValueId above;
    if (!has_tol) {
      const double eps = rt == DType::F64 ? std::numeric_limits<double>::epsilon() : std::numeric_limits<float>::epsilon();
      ValueId tol = trace::reduce(t, "matrix_rank", ReduceKind::Max, sv, {last}, true);
      tol = ew(t, EwOp::Mul, tol, c(t, static_cast<double>(std::max(m, n)), tol));
      tol = ew(t, EwOp::Mul, tol, c(t, eps, tol));
      above = ew(t, EwOp::Gt, sv, tol);
    } else {
      const DType ct = promote(rt, inputs[1]->type.dtype());
      ValueId tol = trace::expand_dims(t, cast(t, ids[1], ct), {static_cast<int64_t>(inputs[1]->type.rank())});
      above = ew(t, EwOp::Gt, cast(t, sv, ct), tol);
    }
    return Ids{trace::reduce(t, "matrix_rank", ReduceKind::Sum, trace::convert(t, above, {DType::I64, false}), {last}, false)};
  }));
}

Value cond(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "cond", {"x", "p="});
  auto x = host_array(I, p.get("x"));
  const Shape s = x->type.shape();
  if (size_of(s) == 0) {
    int64_t tail = 1;
    for (size_t i = s.size() >= 2 ? s.size() - 2 : 0; i < s.size(); ++i) tail *= s[i];
    if (tail == 0) linalg_error(I, "cond is not defined on empty arrays");
  }
  const Ord ord = ord_arg(I, p.get("p"));
  const bool svd_way = ord.kind == Ord::None || ord.is(2) || ord.is(-2);
  assert_stacked_2d(I, x);
  if (!svd_way) assert_stacked_square(I, x);
  const DType rt = common_type(I, "cond", {x});
  if (svd_way) check_svd_input(I, x);
  const bool nuc = ord.kind == Ord::Str && ord.s == "nuc";
  if (nuc) check_svd_input(I, x);
  const int64_t k = std::min(s[s.size() - 1], s[s.size() - 2]);
  const std::vector<int64_t> axes = {-2, -1};
  auto r = run(I, "cond", {x}, [&](Trace& t, const Ids& ids) {
    ValueId v = ids[0];
    ValueId res, singular = false_flag(t);
    if (svd_way) {
      ValueId sv = svd_body(t, v, false, false, rt).s;
      ValueId first = last_at(t, sv, 0), lastv = last_at(t, sv, k - 1);
      res = ord.is(-2) ? ew(t, EwOp::Div, lastv, first) : ew(t, EwOp::Div, first, lastv);
    } else {
      // inv without raising: numpy's gufunc leaves NaN where the inversion failed.
      ValueId a64 = cast(t, v, DType::F64);
      auto inv = inverse(t, a64);
      ValueId d = inv.diag;
      ValueId bad = trace::reduce(t, "cond", ReduceKind::Max, trace::convert(t, ew(t, EwOp::Eq, d, c(t, 0, d)), {DType::I32, false}), {-1}, true);
      bad = trace::expand_dims(t, ew(t, EwOp::Gt, bad, trace::scalar_constant(t, 0, {DType::I32, true})), {-1});
      ValueId invx = trace::where(t, trace::broadcast_to(t, bad, t.type(inv.x).shape()), trace::full(t, t.type(inv.x).shape(), NAN, {DType::F64, false}, std::nullopt), inv.x);
      singular = inv.singular;
      ValueId xv = types::is_float(x->type.dtype()) ? v : cast(t, v, DType::F64);
      ValueId n1 = cast(t, norm_body(t, xv, ord, axes, false), DType::F64);
      ValueId n2 = norm_body(t, invx, ord, axes, false);
      res = cast(t, ew(t, EwOp::Mul, n1, n2), rt);
    }
    // NaN becomes inf unless x itself had a NaN.
    ValueId x_nan = trace::reduce(t, "cond", ReduceKind::Max, trace::convert(t, trace::unary(t, "isnan", EwOp::IsNan, v), {DType::I32, false}),
                                  {static_cast<int64_t>(s.size()) - 2, static_cast<int64_t>(s.size()) - 1}, false);
    ValueId clean = ew(t, EwOp::Eq, x_nan, trace::scalar_constant(t, 0, {DType::I32, true}));
    ValueId fix = ew(t, EwOp::And, trace::unary(t, "isnan", EwOp::IsNan, res), clean);
    res = trace::where(t, fix, trace::full(t, t.type(res).shape(), INFINITY, {rt, false}, std::nullopt), res);
    return Ids{res, singular};
  });
  if (nuc && flag(r[1])) linalg_error(I, "SVD did not converge");  // the SVD of inv's NaN
  return result(r[0]);
}

Value matrix_power(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "matrix_power", {"a", "n"});
  Value av = p.get("a");
  auto x = host_array(I, av);
  assert_stacked_2d(I, x);
  assert_stacked_square(I, x);
  auto idx = bi::try_index(I, p.get("n"));
  if (!idx) I.raise("TypeError", "exponent must be an integer");
  int64_t n = *idx;
  if (n == 0) {
    const Shape s = x->type.shape();
    return wrap(run1(I, "matrix_power", {}, [&](Trace& t, const Ids&) {
      ValueId e = trace::eye(t, s.back(), s.back(), 0, {x->type.dtype(), false}, std::nullopt);
      return Ids{trace::broadcast_to(t, e, s)};
    }), true);
  }
  Value base = as_array(av) && as_array(av)->host ? av : wrap(x, true);
  if (n < 0) {
    base = wrap(inv_array(I, x), true);
    n = -n;
  }
  Value matmul = numpy_fn(I, "matmul");
  auto mul = [&](const Value& l, const Value& r) { return I.call(matmul, std::vector<Value>{l, r}); };
  if (n == 1) return base;
  if (n == 2) return mul(base, base);
  if (n == 3) return mul(mul(base, base), base);
  Value z, res;
  while (n > 0) {
    z = z ? mul(z, z) : base;
    const bool bit = n % 2 == 1;
    n /= 2;
    if (bit) res = res ? mul(res, z) : z;
  }
  return res;
}

// ---- lstsq -----------------------------------------------------------------------------------

Value lstsq(Interp& I, CallArgs& args) {
  interp::ArgParser p(I, args, "lstsq", {"a", "b", "rcond="});
  auto a = host_array(I, p.get("a"));
  auto b = host_array(I, p.get("b"));
  const bool is_1d = b->type.rank() == 1;
  if (b->type.rank() == 0) I.raise("IndexError", "too many indices for array: array is 0-dimensional, but 1 were indexed");
  assert_2d(I, a->type.rank());
  assert_2d(I, is_1d ? 2 : b->type.rank());
  const int64_t m = a->type.shape()[0], n = a->type.shape()[1];
  const int64_t m2 = b->type.shape()[0], nrhs = is_1d ? 1 : b->type.shape()[1];
  if (m != m2) linalg_error(I, "Incompatible dimensions");
  const DType rt = common_type(I, "lstsq", {a, b});
  double rcond;
  const Value rv = p.get("rcond");
  if (!rv) {
    const ast::Loc loc = I.current_loc();
    static std::set<std::pair<uint32_t, uint32_t>> warned;  // once per call site, as Python's default warning filter
    if (warned.insert({loc.file, loc.line}).second)
      std::cerr << fmt::format("{}:{}: FutureWarning: `rcond` parameter will change to the default of machine precision times ``max(M, N)`` "
                             "where M and N are the input matrix dimensions.\nTo use the future default and silence this warning we "
                             "advise to pass `rcond=None`, to keep using the old, explicitly pass `rcond=-1`.\n",
                             loc.file ? ast::source(loc.file).name : "<unknown>", loc.line);
    rcond = -1;
  } else if (rv->kind == ObjKind::None) {
    rcond = std::numeric_limits<double>::epsilon() * static_cast<double>(std::max(n, m));
  } else {
    rcond = number_arg(I, rv, "rcond");
  }
  // gelsd (dlalsd) treats an rcond outside (0, 1) as the relative machine precision.
  const double rcnd = rcond <= 0 || rcond >= 1 ? std::numeric_limits<double>::epsilon() / 2 : rcond;
  check_svd_input(I, a, "SVD did not converge in Linear Least Squares");
  const int64_t k = std::min(m, n);
  auto r = run(I, "lstsq", {a, b}, [&](Trace& t, const Ids& ids) {
    ValueId a64 = cast(t, ids[0], DType::F64), b64 = cast(t, ids[1], DType::F64);
    if (is_1d) b64 = trace::reshape(t, b64, {m, 1});
    ValueId x, rank, sv;
    if (k == 0 || nrhs == 0) {
      x = zeros(t, {n, nrhs}, DType::F64);
      sv = zeros(t, {k}, DType::F64);
      rank = trace::full(t, {}, 0, {DType::I64, false}, std::nullopt);
      if (k > 0) {
        sv = trace::svd(t, a64, false, false).s;
        ValueId s0 = last_at(t, sv, 0);
        ValueId big = ew(t, EwOp::Gt, sv, ew(t, EwOp::Mul, c(t, rcnd, sv), s0));
        rank = trace::reduce(t, "lstsq", ReduceKind::Sum, trace::convert(t, big, {DType::I64, false}), {0}, false);
      }
    } else {
      auto d = trace::svd(t, a64, false, true);
      sv = d.s;
      ValueId s0 = last_at(t, sv, 0);
      ValueId big = ew(t, EwOp::Gt, sv, ew(t, EwOp::Mul, c(t, rcnd, sv), s0));
      rank = trace::reduce(t, "lstsq", ReduceKind::Sum, trace::convert(t, big, {DType::I64, false}), {0}, false);
      ValueId one = c(t, 1, sv);
      ValueId s_inv = trace::where(t, big, ew(t, EwOp::Div, one, trace::where(t, big, sv, trace::broadcast_to(t, one, {k}))), zeros(t, {k}, DType::F64));
      ValueId utb = trace::linalg::matmul(t, trace::transpose(t, d.u, {1, 0}), b64);
      ValueId scaled = ew(t, EwOp::Mul, trace::reshape(t, s_inv, {k, 1}), utb);
      x = trace::linalg::matmul(t, trace::transpose(t, d.vt, {1, 0}), scaled);
    }
    ValueId resid;
    if (n == 0) {
      resid = trace::reduce(t, "lstsq", ReduceKind::Sum, ew(t, EwOp::Mul, b64, b64), {0}, false);
    } else {
      ValueId diff = ew(t, EwOp::Sub, b64, trace::linalg::matmul(t, a64, x));
      resid = trace::reduce(t, "lstsq", ReduceKind::Sum, ew(t, EwOp::Mul, diff, diff), {0}, false);
    }
    if (is_1d) x = trace::reshape(t, x, {n});
    return Ids{cast(t, x, rt), cast(t, resid, rt), rank, cast(t, sv, rt)};
  });
  auto bytes = exec::array_to_host(*r[2]);
  int64_t rank;
  std::memcpy(&rank, bytes.data(), 8);
  Value resid = wrap(r[1], true);
  if (rank != n || m <= n) resid = wrap(run1(I, "lstsq", {}, [&](Trace& t, const Ids&) { return Ids{zeros(t, {0}, rt)}; }), true);
  return interp::make_tuple({wrap(r[0], true), resid, interp::make_int(rank), wrap(r[3], true)});
}

// ---- multi_dot, tensorinv, tensorsolve -------------------------------------------------------

exec::ArrayRef reshaped(Interp& I, const exec::ArrayRef& x, const Shape& s) {
  if (x->type.shape() == s) return x;
  return run1(I, "reshape", {x}, [&](Trace& t, const Ids& ids) { return Ids{trace::reshape(t, ids[0], s)}; });
}

// numpy's reshape with one -1 and its message.
Shape infer_shape(Interp& I, const Shape& from, int64_t first) {
  const int64_t total = size_of(from);
  if (first == 0 || total % first != 0)
    I.raise("ValueError", fmt::format("cannot reshape array of size {} into shape ({},newaxis)", total, first));
  return {first, total / first};
}

// numpy.dot of 1-D / 2-D host arrays (numpy's promotion; its "not aligned" message).
Value dot2(Interp& I, const Value& lv, const Value& rv) {
  Operand l = operand(I, lv), r = operand(I, rv);
  const Shape ls = l.array->type.shape(), rs = r.array->type.shape();
  const int64_t lk = static_cast<int64_t>(ls.size()) - 1;
  if (ls.back() != rs.front())
    I.raise("ValueError", fmt::format("shapes {} and {} not aligned: {} (dim {}) != {} (dim 0)", np_shape(ls), np_shape(rs), ls.back(), lk,
                                      rs.front()));
  const DType dt = result_type({l, r});
  return result(run1(I, "dot", {l.array, r.array}, [&](Trace& t, const Ids& ids) {
    return Ids{trace::matmul(t, cast(t, ids[0], dt), cast(t, ids[1], dt))};
  }));
}

Value multi_dot(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "multi_dot", {"arrays", "*", "out="});
  if (p.get("out") && p.get("out")->kind != ObjKind::None) I.raise("NotImplementedError", "numpy.linalg.multi_dot: out= is not supported by shard");
  auto items = I.to_vector(p.get("arrays"));
  const size_t n = items.size();
  if (n < 2) I.raise("ValueError", "Expecting at least two arrays.");
  if (n == 2) return I.call(numpy_fn(I, "dot"), std::vector<Value>{items[0], items[1]});
  auto mul = [&](const Value& l, const Value& r) { return dot2(I, l, r); };
  std::vector<exec::ArrayRef> arrs;
  for (auto& v : items) arrs.push_back(host_array(I, v));
  const size_t nd_first = arrs.front()->type.rank(), nd_last = arrs.back()->type.rank();
  if (nd_first == 1) arrs.front() = reshaped(I, arrs.front(), {1, arrs.front()->type.shape()[0]});
  if (nd_last == 1) arrs.back() = reshaped(I, arrs.back(), {arrs.back()->type.shape()[0], 1});
  for (auto& x : arrs) assert_2d(I, x->type.rank());
  std::vector<Value> ms;
  for (auto& x : arrs) ms.push_back(wrap(x, true));
  Value r;
  if (n == 3) {
    const double a0 = double(arrs[0]->type.shape()[0]), a1b0 = double(arrs[0]->type.shape()[1]);
    const double b1c0 = double(arrs[2]->type.shape()[0]), c1 = double(arrs[2]->type.shape()[1]);
    const double cost1 = a0 * b1c0 * (a1b0 + c1), cost2 = a1b0 * c1 * (a0 + b1c0);
    r = cost1 < cost2 ? mul(mul(ms[0], ms[1]), ms[2]) : mul(ms[0], mul(ms[1], ms[2]));
  } else {
    std::vector<double> dims;
    for (auto& x : arrs) dims.push_back(double(x->type.shape()[0]));
    dims.push_back(double(arrs.back()->type.shape()[1]));
    std::vector<std::vector<double>> cost(n, std::vector<double>(n, 0));
    std::vector<std::vector<size_t>> split(n, std::vector<size_t>(n, 0));
    for (size_t len = 1; len < n; ++len)
      for (size_t i = 0; i + len < n; ++i) {
        const size_t j = i + len;
        cost[i][j] = INFINITY;
        for (size_t k = i; k < j; ++k) {
          const double q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1];
          if (q < cost[i][j]) {
            cost[i][j] = q;
            split[i][j] = k;
          }
        }
      }
    std::function<Value(size_t, size_t)> chain = [&](size_t i, size_t j) -> Value {
      if (i == j) return ms[i];
      return mul(chain(i, split[i][j]), chain(split[i][j] + 1, j));
    };
    r = chain(0, n - 1);
  }
  if (nd_first == 1 || nd_last == 1) {
    auto h = host_array(I, r);
    Shape s;
    if (!(nd_first == 1 && nd_last == 1)) s.push_back(size_of(h->type.shape()));
    return result(reshaped(I, h, s));
  }
  return r;
}

Value tensorinv(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "tensorinv", {"a", "ind="});
  auto x = host_array(I, p.get("a"));
  const int64_t ind = p.get("ind") ? bi::index_of(I, p.get("ind"), "") : 2;
  if (ind <= 0) I.raise("ValueError", "Invalid ind argument.");
  const Shape s = x->type.shape();
  const size_t cut = std::min(static_cast<size_t>(ind), s.size());
  Shape inv_shape(s.begin() + static_cast<std::ptrdiff_t>(cut), s.end());
  inv_shape.insert(inv_shape.end(), s.begin(), s.begin() + static_cast<std::ptrdiff_t>(cut));
  int64_t prod = 1;
  for (size_t i = cut; i < s.size(); ++i) prod *= s[i];
  auto flat = reshaped(I, x, infer_shape(I, s, prod));
  return wrap(reshaped(I, inv_array(I, flat), inv_shape), true);
}

Value tensorsolve(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "tensorsolve", {"a", "b", "axes="});
  auto x = host_array(I, p.get("a"));
  auto b = host_array(I, p.get("b"));
  const int64_t an = static_cast<int64_t>(x->type.rank());
  Value axes = p.get("axes");
  if (axes && axes->kind != ObjKind::None) {
    std::vector<int64_t> all(static_cast<size_t>(an));
    std::iota(all.begin(), all.end(), 0);
    for (auto& kv : I.to_vector(axes)) {
      const int64_t k = bi::index_of(I, kv, "");
      auto it = std::find(all.begin(), all.end(), k);
      if (it == all.end()) I.raise("ValueError", "list.remove(x): x not in list");
      all.erase(it);
      all.push_back(k);
    }
    x = run1(I, "tensorsolve", {x}, [&](Trace& t, const Ids& ids) { return Ids{trace::transpose(t, ids[0], all)}; });
  }
  const Shape s = x->type.shape();
  const int64_t tail = an - static_cast<int64_t>(b->type.rank());
  // a.shape[-(an - b.ndim):], as Python slices it (the whole shape when the ranks are equal)
  const int64_t start = tail > 0 ? an - tail : std::min(-tail, an);
  const Shape old(s.begin() + start, s.end());
  int64_t prod = 1;
  for (auto d : old) prod *= d;
  if (size_of(s) != prod * prod)
    linalg_error(I, "Input arrays must satisfy the requirement             prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])");
  auto am = reshaped(I, x, {prod, prod});
  auto bv = reshaped(I, b, {size_of(b->type.shape())});
  return wrap(reshaped(I, solve_arrays(I, am, bv), old), true);
}

}  // namespace

void fill_linalg_module(Interp& I, ModuleObj& m) {
  (void)I;
  if (!g_linalg_error) {
    g_linalg_error = bi::native_class("LinAlgError", bi::exc_class("Exception"), "numpy.linalg");
    g_linalg_error->dict.set("__doc__", interp::make_str(
        "\n    Generic Python-exception-derived object raised by linalg functions.\n\n    General purpose exception class, derived "
        "from Python's ValueError\n    class, programmatically raised in linalg functions when a Linear\n    Algebra-related condition "
        "would prevent further correct execution of the\n    function.\n    "));
  }
  m.dict.set("LinAlgError", g_linalg_error);
  add(m, "inv", inv);
  add(m, "solve", solve);
  add(m, "det", det);
  add(m, "slogdet", slogdet);
  add(m, "cholesky", cholesky);
  add(m, "qr", qr);
  add(m, "svd", svd);
  add(m, "eigh", [](Interp& I2, CallArgs& a) { return eigh_impl(I2, a, true); });
  add(m, "eigvalsh", [](Interp& I2, CallArgs& a) { return eigh_impl(I2, a, false); });
  add(m, "eig", [](Interp& I2, CallArgs& a) { return eig_unsupported(I2, a, "eig"); });
  add(m, "eigvals", [](Interp& I2, CallArgs& a) { return eig_unsupported(I2, a, "eigvals"); });
  add(m, "norm", norm);
  add(m, "pinv", pinv);
  add(m, "matrix_rank", matrix_rank);
  add(m, "cond", cond);
  add(m, "matrix_power", matrix_power);
  add(m, "lstsq", lstsq);
  add(m, "multi_dot", multi_dot);
  add(m, "tensorinv", tensorinv);
  add(m, "tensorsolve", tensorsolve);
}

void register_linalg_module() { interp::Interp::register_builtin_module("numpy.linalg", fill_linalg_module); }

}  // namespace shard::api::np
