// jax.scipy.special's special functions over the elementwise primitives of
// codegen/special_functions.cpp (ops_special.cpp): the ternary betainc primitive's trace entry
// point, and the compositions JAX writes over lax (rel_entr, kl_div, poch, i0, i1, exp1).
// Operands are promoted to a common inexact dtype first, as promote_args_inexact.
#pragma once
#include "trace/ops.hpp"

namespace shard::trace {

// lax.betainc(a, b, x): the regularized incomplete beta primitive; float operands only
// (JAX's TypeError), broadcast to one shape.
ValueId betainc(Trace& t, ValueId a, ValueId b, ValueId x);
// The binary special primitives (igamma, igammac, zeta, expn) after promote_args_inexact.
ValueId special_binary(Trace& t, ir::EwOp op, ValueId a, ValueId b);
// The unary ones (bessel_i0e, bessel_i1e, erfcx, expi), integers made floating first.
ValueId special_unary(Trace& t, ir::EwOp op, ValueId x);
// exp(|x|) i0e(x) and exp(|x|) i1e(x), as JAX's i0 and i1.
ValueId bessel_i0(Trace& t, ValueId x);
ValueId bessel_i1(Trace& t, ValueId x);
// p log(p / q) for p, q > 0, 0 for p = 0 <= q, inf otherwise; kl_div adds q - p.
ValueId rel_entr(Trace& t, ValueId p, ValueId q);
ValueId kl_div(Trace& t, ValueId p, ValueId q);
// The Pochhammer symbol gamma(z + m) / gamma(z), 1 where m = 0.
ValueId poch(Trace& t, ValueId z, ValueId m);
// d/dx zeta(x, q): the x-derivative of JAX's series expansion of zeta (Johansson's formula
// (5): N terms, the integral, 2M Euler-Maclaurin terms; N = M = 8 below float64, else 16),
// what jax.scipy.special.zeta's custom JVP differentiates.
ValueId zeta_dx(Trace& t, ValueId x, ValueId q);
// (x^lmbda - 1) / lmbda (log x at lmbda = 0) as expm1(lmbda log x) / lmbda, and the same of 1 + x.
ValueId boxcox(Trace& t, ValueId x, ValueId lmbda);
ValueId boxcox1p(Trace& t, ValueId x, ValueId lmbda);
// N choose k by gammaln (0 outside 0 <= k <= N); with repetition, N + k - 1 choose k.
ValueId comb(Trace& t, ValueId n, ValueId k, bool repetition);
// log Gamma(x) for real x: lgamma where x > 0, NaN elsewhere.
ValueId loggamma(Trace& t, ValueId x);
// spence(x) = Li2(1 - x) for x >= 0 (NaN below): Cephes' reductions (x > 2 to 1/x, then the
// reflections about 1/2 and 3/2) around a power series of Li2 on |z| <= 1/2 in the dtype.
ValueId spence(Trace& t, ValueId x);
// sici(x) = (Si(x), Ci(x)): power series for |x| <= 4, above E1(i|x|) by its continued fraction
// (60 terms, evaluated backwards) with Ci = -Re E1, Si = Im E1 + pi/2; Si odd, Ci of |x|, Ci(-inf)
// NaN (JAX's rules). Narrower floats are computed in float64 and rounded once.
struct SiCi {
  ValueId si, ci;
};
SiCi sici(Trace& t, ValueId x);
// fresnel(x) = (S(x), C(x)), the integrals of sin / cos(pi t^2 / 2) from 0: power series below
// |x| = 1.5, above the continued fraction of erfc (Numerical Recipes' frenel, 60 terms,
// backwards); odd; 1/2 beyond |x| = 36974 (Cephes). Narrower floats through float64.
struct Fresnel {
  ValueId s, c;
};
Fresnel fresnel(Trace& t, ValueId x);
// dawsn(x) = e^-x^2 int_0^x e^t^2 dt: e^-x^2 sum x^(2n+1) / (n! (2n+1)) below |x| = 6 (x^2 split
// exactly in two parts so e^-x^2 keeps its accuracy), Laplace's continued fraction of
// 1 / (2 F) = x - (1/2) / (x - 1 / (x - (3/2) / ...)) above; odd. Narrower floats are computed
// in float64 and rounded once.
ValueId dawsn(Trace& t, ValueId x);
// jax.scipy.special.bessel_jn: J_0..J_v at z by JAX's backward (Miller) recurrence of n_iter + 1
// steps, normalised by J_0 + 2 sum J_2k = 1; shape (v + 1,) + z.shape.
ValueId bessel_jn(Trace& t, ValueId z, int64_t v, int64_t n_iter);
// jax.scipy.special.logsumexp with JAX's `where` (elements left out) and b (a where b is 0
// left out): (log|sum b exp(a)|, sign of the sum) over `axes` (empty: all).
struct SignedLogSumExp {
  ValueId out, sign;
};
SignedLogSumExp logsumexp_signed(Trace& t, ValueId a, std::vector<int64_t> axes, bool keepdims, std::optional<ValueId> b,
                                 std::optional<ValueId> where_mask);

}  // namespace shard::trace
