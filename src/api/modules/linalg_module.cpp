// jax.numpy.linalg's decompositions and solvers (inv, solve, det, slogdet, cholesky, qr, svd,
// eigh, eigvalsh, pinv, matrix_power, matrix_rank) and jax.lax.linalg's primitives (cholesky, lu,
// triangular_solve, eigh, svd, qr) with lu_pivots_to_permutation (a fori_loop, as JAX's generic
// lowering), over the primitives of primitives/linalg/.
#include <fmt/format.h>

#include "api/modules/jnp_module.hpp"
#include "api/modules/lax_module.hpp"
#include "api/modules/linalg_module.hpp"
#include "api/modules/numpy_internal.hpp"
#include "interp/builtins/support.hpp"
#include "primitives/linalg/linalg.hpp"

namespace shard::api {

using interp::ArgParser;
using np::bool_arg;

namespace {

// jnp promotes linalg operands to an inexact dtype first (ints and bools become float32).
ValueId inexact(Trace& t, ValueId x) { return trace::convert(t, x, trace::to_inexact(dtw(t, x))); }

Value operand(Interp& I, const Value& v, const std::string& name) {
  if (is_array_like(v) || python_scalar_type(v, false)) return v;
  I.raise("TypeError", fmt::format("{} requires ndarray or scalar arguments, got {} at position 0.", name, I.type_name(v)));
}

// A namedtuple class of jnp.linalg's results (EighResult, SVDResult, ...).
Value result_class(Interp& I, const std::string& name, const std::vector<std::string>& fields) {
  Value make = I.getattr(I.import_module("collections", I.current_loc()), "namedtuple");
  std::vector<Value> names;
  for (auto& f : fields) names.push_back(interp::make_str(f));
  return I.call(make, {interp::make_str(name), interp::make_list(names)});
}

std::string uplo_arg(Interp& I, const Value& v) {
  if (is_none(v)) return "L";
  std::string s = I.str(v);
  if (s != "L" && s != "U") I.raise("ValueError", fmt::format("UPLO must be 'L' or 'U', got {}", I.repr(v)));
  return s;
}

void add_jnp_decompositions(Interp& I, ModuleObj& m) {
  def_jnp(m, "solve", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "solve", {"a", "b"});
    return apply(I, "solve", {operand(I, p.get("a"), "jnp.linalg.solve"), operand(I, p.get("b"), "jnp.linalg.solve")},
                 [](Trace& t, const std::vector<ValueId>& ids) {
                   const DTypeW common = trace::to_inexact(trace::promote(dtw(t, ids[0]), dtw(t, ids[1])));
                   ValueId a = trace::convert(t, ids[0], common), b = trace::convert(t, ids[1], common);
                   return std::vector<ValueId>{trace::solve(t, a, b)};
                 });
  });
  auto unary = [&](const char* name, ValueId (*fn)(Trace&, ValueId)) {
    def_jnp(m, name, [name, fn](Interp& I, CallArgs& a) {
      ArgParser p(I, a, name, {"a"});
      return apply(I, name, {operand(I, p.get("a"), fmt::format("jnp.linalg.{}", name))},
                   [fn](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{fn(t, inexact(t, ids[0]))}; });
    });
  };
  unary("inv", trace::inv);
  unary("det", trace::det);
  Value slogdet_result = result_class(I, "SlogdetResult", {"sign", "logabsdet"});
  def_jnp(m, "slogdet", [slogdet_result](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "slogdet", {"a", "*", "method="});
    if (!is_none(p.get("method")) && I.str(p.get("method")) != "lu")
      I.raise("ValueError", fmt::format("Unknown slogdet method '{}'. Supported methods are 'lu' (`None`).", I.str(p.get("method"))));
    auto r = apply_multi(I, "slogdet", {operand(I, p.get("a"), "jnp.linalg.slogdet")}, [](Trace& t, const std::vector<ValueId>& ids) {
      auto s = trace::slogdet(t, inexact(t, ids[0]));
      return std::vector<ValueId>{s.sign, s.logabsdet};
    });
    return I.call(slogdet_result, r);
  });
  def_jnp(m, "cholesky", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "cholesky", {"a", "*", "upper=", "symmetrize_input="});
    const bool upper = bool_arg(I, p.get("upper"), false), sym = bool_arg(I, p.get("symmetrize_input"), true);
    return apply(I, "cholesky", {operand(I, p.get("a"), "jnp.linalg.cholesky")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{trace::jnp_cholesky(t, inexact(t, ids[0]), upper, sym)};
    });
  });
  Value eigh_result = result_class(I, "EighResult", {"eigenvalues", "eigenvectors"});
  def_jnp(m, "eigh", [eigh_result](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "eigh", {"a", "UPLO=", "symmetrize_input="});
    const bool lower = uplo_arg(I, p.get("UPLO")) == "L", sym = bool_arg(I, p.get("symmetrize_input"), true);
    auto r = apply_multi(I, "eigh", {operand(I, p.get("a"), "jnp.linalg.eigh")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      auto e = trace::jnp_eigh(t, inexact(t, ids[0]), lower, sym);
      return std::vector<ValueId>{e.w, e.v};
    });
    return I.call(eigh_result, r);
  });
  def_jnp(m, "eigvalsh", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "eigvalsh", {"a", "UPLO=", "*", "symmetrize_input="});
    const bool lower = uplo_arg(I, p.get("UPLO")) == "L", sym = bool_arg(I, p.get("symmetrize_input"), true);
    return apply(I, "eigvalsh", {operand(I, p.get("a"), "jnp.linalg.eigvalsh")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{trace::jnp_eigh(t, inexact(t, ids[0]), lower, sym).w};
    });
  });
  Value qr_result = result_class(I, "QRResult", {"Q", "R"});
  def_jnp(m, "qr", [qr_result](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "qr", {"a", "mode="});
    const std::string mode = is_none(p.get("mode")) ? "reduced" : I.str(p.get("mode"));
    if (mode == "raw") I.raise("NotImplementedError", "The 'raw' mode of jnp.linalg.qr is not supported");
    if (mode != "reduced" && mode != "complete" && mode != "r")
      I.raise("ValueError", fmt::format("Unsupported QR decomposition mode '{}'", mode));
    auto r = apply_multi(I, "qr", {operand(I, p.get("a"), "jnp.linalg.qr")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      auto d = trace::qr(t, inexact(t, ids[0]), mode == "complete");
      if (mode == "r") return std::vector<ValueId>{d.r};
      return std::vector<ValueId>{d.q, d.r};
    });
    if (mode == "r") return r.at(0);
    return I.call(qr_result, r);
  });
  Value svd_result = result_class(I, "SVDResult", {"U", "S", "Vh"});
  def_jnp(m, "svd", [svd_result](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "svd", {"a", "full_matrices=", "compute_uv=", "hermitian=", "subset_by_index="});
    const bool full = bool_arg(I, p.get("full_matrices"), true), uv = bool_arg(I, p.get("compute_uv"), true);
    if (bool_arg(I, p.get("hermitian"), false)) I.raise("NotImplementedError", "jnp.linalg.svd: hermitian=True is not supported");
    if (!is_none(p.get("subset_by_index"))) I.raise("NotImplementedError", "jnp.linalg.svd: subset_by_index is not supported");
    auto r = apply_multi(I, "svd", {operand(I, p.get("a"), "jnp.linalg.svd")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      auto d = trace::svd(t, inexact(t, ids[0]), full, uv);
      if (!uv) return std::vector<ValueId>{d.s};
      return std::vector<ValueId>{d.u, d.s, d.vt};
    });
    if (!uv) return r.at(0);
    return I.call(svd_result, r);
  });
  def_jnp(m, "svdvals", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "svdvals", {"x"});
    return apply(I, "svdvals", {operand(I, p.get("x"), "jnp.linalg.svdvals")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{trace::svd(t, inexact(t, ids[0]), false, false).s};
    });
  });
  def_jnp(m, "pinv", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "pinv", {"a", "rtol=", "hermitian=", "*", "rcond="});
    if (bool_arg(I, p.get("hermitian"), false)) I.raise("NotImplementedError", "jnp.linalg.pinv: hermitian=True is not supported");
    std::optional<double> rtol;
    if (!is_none(p.get("rtol"))) rtol = float_arg(I, p.get("rtol"), "rtol");
    if (!is_none(p.get("rcond"))) rtol = float_arg(I, p.get("rcond"), "rcond");
    return apply(I, "pinv", {operand(I, p.get("a"), "jnp.linalg.pinv")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{trace::pinv(t, inexact(t, ids[0]), rtol)};
    });
  });
  def_jnp(m, "matrix_rank", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "matrix_rank", {"M", "rtol=", "*", "tol="});
    std::optional<double> rtol;
    if (!is_none(p.get("rtol"))) rtol = float_arg(I, p.get("rtol"), "rtol");
    if (!is_none(p.get("tol"))) rtol = float_arg(I, p.get("tol"), "tol");
    return apply(I, "matrix_rank", {operand(I, p.get("M"), "jnp.linalg.matrix_rank")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{trace::matrix_rank(t, inexact(t, ids[0]), rtol)};
    });
  });
  def_jnp(m, "matrix_power", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "matrix_power", {"a", "n"});
    Value nv = p.get("n");
    if (!nv || !(nv->kind == interp::ObjKind::Int || nv->kind == interp::ObjKind::Bool))
      I.raise("TypeError", fmt::format("exponent must be an integer, got {}", I.repr(nv)));
    const int64_t n = int_arg(I, nv, "n");
    return apply(I, "matrix_power", {operand(I, p.get("a"), "jnp.linalg.matrix_power")},
                 [&](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{trace::matrix_power(t, ids[0], n)}; });
  });
}

}  // namespace

void add_jnp_linalg_decompositions(Interp& I, ModuleObj& m) { add_jnp_decompositions(I, m); }

// lax.linalg.lu_pivots_to_permutation: JAX's generic lowering, a fori_loop over the k swaps
// of a permutation that starts as iota; step i swaps entries i and pivots[..., i]. Each step
// reads and writes by one-hot masks over the last dim (the batch dims keep their sharding).
Value lu_pivots_to_permutation(Interp& I, const Value& pivots, int64_t permutation_size) {
  const char* name = "lu_pivots_to_permutation";
  if (!is_array_like(pivots)) I.raise("TypeError", fmt::format("{} requires an array of pivots, got {}", name, I.type_name(pivots)));
  const auto pt = type_of(pivots);
  if (pt.dtype() != DType::I32)
    I.raise("TypeError", fmt::format("{} does not accept dtype {} at position 0. Accepted dtypes at position 0 are subtypes of int32.",
                                     name, types::dtype_name(pt.dtype())));
  if (pt.rank() < 1)
    I.raise("TypeError", fmt::format("Input 0 to {} must have rank at least 1, but got shape={}", name, types::py_int_tuple(pt.shape())));
  const int64_t k = pt.shape().back(), m = permutation_size;
  if (!(m >= k))
    I.raise("ValueError", fmt::format("Output permutation size {} has to exceed the trailing dimension of the pivots. Got pivots size {}",
                                      m, k));
  if (pt.is_sharded()) {
    auto e = sharding::spec_entries(pt);
    if (!e.back().empty())
      guarded(I, [&] {
        sharding::throw_sharding_type_error(fmt::format("Input 0 to {} must be unsharded on non-batch dimensions, but got {}.", name,
                                                        sharding::paste_spec(pt.spec())));
        return 0;
      });
  }
  // permutation = iota over the last dim, batch dims (and their sharding) as the pivots'.
  Value perm = apply(I, name, {pivots}, [&](Trace& t, const std::vector<ValueId>& ids) {
    ValueId iota = trace::iota(t, DType::I32, {m}, 0, std::nullopt);
    types::Shape s = pt.shape();
    s.back() = m;
    sharding::OptOutSharding out;
    const auto it = t.type(ids[0]);
    if (it.is_sharded()) {
      auto e = sharding::spec_entries(it);
      e.back().clear();
      out = sharding::OutSharding{types::PartitionSpec(e)};
    }
    ValueId perm0 = trace::broadcast_to(t, iota, s, out);
    // Inside shard_map the loop carry must vary over the axes the pivots vary over.
    if (!it.vma().empty()) perm0 = trace::pvary(t, perm0, types::AxisNames(it.vma().begin(), it.vma().end()));
    return std::vector<ValueId>{perm0};
  });
  if (m == 0 || k == 0) return perm;
  Value body = interp::make_builtin(name, [m, k, name](Interp& I, CallArgs& a) {
    Value i = a.args.at(0);
    auto carry = I.to_vector(a.args.at(1));
    Value next = apply(I, name, {i, carry.at(0), carry.at(1)}, [&](Trace& t, const std::vector<ValueId>& ids) {
      const ValueId iv = trace::convert(t, ids[0], {DType::I32, false}), perm = ids[1], swaps = ids[2];
      ValueId zero = trace::scalar_constant(t, 0, {DType::I32, true});
      auto take = [&](ValueId x, int64_t n, ValueId at) {  // x[..., at] with keepdims, at of shape () or batch + (1,)
        ValueId cols = trace::iota(t, DType::I32, {n}, 0, std::nullopt);
        ValueId hit = trace::binary(t, "eq", ir::EwOp::Eq, cols, at);
        return trace::reduce(t, name, ir::ReduceKind::Sum, trace::where(t, hit, x, zero), {-1}, true);
      };
      ValueId j = take(swaps, k, iv);
      ValueId x = take(perm, m, iv);
      ValueId y = take(perm, m, j);
      ValueId cols = trace::iota(t, DType::I32, {m}, 0, std::nullopt);
      ValueId at_i = trace::binary(t, "eq", ir::EwOp::Eq, cols, iv);
      ValueId at_j = trace::binary(t, "eq", ir::EwOp::Eq, cols, j);
      ValueId swapped = trace::where(t, at_j, x, perm);
      return std::vector<ValueId>{trace::where(t, at_i, y, swapped)};
    });
    return interp::make_tuple({next, carry.at(1)});
  });
  Value lax = I.import_module("jax.lax", I.current_loc());
  Value r = I.call(I.getattr(lax, "fori_loop"), {interp::make_int(0), interp::make_int(k), body, interp::make_tuple({perm, pivots})});
  return I.to_vector(r).at(0);
}

// jax.lax.linalg: the primitives as lax binds them (operands taken as they are: float only).
void register_lax_linalg_module() {
  Interp::register_builtin_module("jax.lax.linalg", [](Interp& I, ModuleObj& m) {
    using lax::def_lax;
    using lax::lax_operand;
    def_lax(m, "cholesky", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "cholesky", {"x", "*", "symmetrize_input="});
      const bool sym = bool_arg(I, p.get("symmetrize_input"), true);
      return apply(I, "cholesky", {lax_operand(I, p.get("x"), "cholesky", 0)}, [&](Trace& t, const std::vector<ValueId>& ids) {
        return std::vector<ValueId>{trace::jnp_cholesky(t, ids[0], false, sym)};
      });
    });
    def_lax(m, "lu", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "lu", {"x"});
      auto r = apply_multi(I, "lu", {lax_operand(I, p.get("x"), "lu", 0)}, [&](Trace& t, const std::vector<ValueId>& ids) {
        auto f = trace::lu(t, ids[0]);
        return std::vector<ValueId>{f.lu, f.pivots, f.permutation};
      });
      return interp::make_tuple(r);
    });
    def_lax(m, "lu_pivots_to_permutation", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "lu_pivots_to_permutation", {"pivots", "permutation_size"});
      return lu_pivots_to_permutation(I, p.get("pivots"), int_arg(I, p.get("permutation_size"), "permutation_size"));
    });
    def_lax(m, "triangular_solve", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "triangular_solve", {"a", "b", "*", "left_side=", "lower=", "transpose_a=", "conjugate_a=", "unit_diagonal="});
      ir::attr::TriangularSolve params{.left_side = bool_arg(I, p.get("left_side"), false),
                                       .lower = bool_arg(I, p.get("lower"), false),
                                       .transpose_a = bool_arg(I, p.get("transpose_a"), false),
                                       .conjugate_a = false,  // real dtypes only: conjugation does nothing
                                       .unit_diagonal = bool_arg(I, p.get("unit_diagonal"), false)};
      return apply(I, "triangular_solve", {lax_operand(I, p.get("a"), "triangular_solve", 0), lax_operand(I, p.get("b"), "triangular_solve", 1)},
                   [&](Trace& t, const std::vector<ValueId>& ids) {
                     // A b with one dim less than a is a vector per batch (JAX's singleton case).
                     const auto at = t.type(ids[0]), bt = t.type(ids[1]);
                     if (bt.rank() + 1 == at.rank()) {
                       ValueId b = trace::expand_dims(t, ids[1], {params.left_side ? -1 : -2});
                       ValueId x = trace::triangular_solve(t, ids[0], b, params);
                       return std::vector<ValueId>{trace::reshape(t, x, bt.shape())};
                     }
                     return std::vector<ValueId>{trace::triangular_solve(t, ids[0], ids[1], params)};
                   });
    });
    def_lax(m, "eigh", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "eigh", {"x", "*", "lower=", "symmetrize_input=", "sort_eigenvalues="});
      const bool lower = bool_arg(I, p.get("lower"), true), sym = bool_arg(I, p.get("symmetrize_input"), true);
      auto r = apply_multi(I, "eigh", {lax_operand(I, p.get("x"), "eigh", 0)}, [&](Trace& t, const std::vector<ValueId>& ids) {
        auto e = trace::jnp_eigh(t, ids[0], lower, sym);
        return std::vector<ValueId>{e.v, e.w};
      });
      return interp::make_tuple(r);
    });
    def_lax(m, "svd", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "svd", {"x", "*", "full_matrices=", "compute_uv="});
      const bool full = bool_arg(I, p.get("full_matrices"), true), uv = bool_arg(I, p.get("compute_uv"), true);
      auto r = apply_multi(I, "svd", {lax_operand(I, p.get("x"), "svd", 0)}, [&](Trace& t, const std::vector<ValueId>& ids) {
        auto d = trace::svd(t, ids[0], full, uv);
        if (!uv) return std::vector<ValueId>{d.s};
        return std::vector<ValueId>{d.u, d.s, d.vt};
      });
      if (!uv) return r.at(0);
      return interp::make_tuple(r);
    });
    def_lax(m, "qr", [](Interp& I, CallArgs& a) {
      ArgParser p(I, a, "qr", {"x", "*", "full_matrices="});
      const bool full = bool_arg(I, p.get("full_matrices"), true);
      auto r = apply_multi(I, "qr", {lax_operand(I, p.get("x"), "qr", 0)}, [&](Trace& t, const std::vector<ValueId>& ids) {
        auto d = trace::qr(t, ids[0], full);
        return std::vector<ValueId>{d.q, d.r};
      });
      return interp::make_tuple(r);
    });
    (void)I;
  });
}

}  // namespace shard::api
