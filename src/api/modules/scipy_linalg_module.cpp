// jax.scipy.linalg over the linalg primitives (primitives/linalg/): solve_triangular,
// cholesky, cho_factor, cho_solve, lu, det, inv, solve, eigh, svd, qr, with scipy's
// conventions (cholesky's upper factor by default, qr's 'full' mode, lu's p @ l @ u).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include "api/modules/jnp_module.hpp"
#include "api/modules/linalg_module.hpp"
#include "api/modules/numpy_internal.hpp"
#include "api/modules/scipy_linalg_module.hpp"
#include "interp/builtins/support.hpp"
#include "primitives/linalg/linalg.hpp"

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

void fill_scipy_linalg(Interp& I, ModuleObj& m) {
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
