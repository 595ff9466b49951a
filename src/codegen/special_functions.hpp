// Special functions as kernels call them (lax.igamma, igammac, igamma_grad_a, betainc, zeta,
// bessel_i0e, bessel_i1e, and jax.scipy.special's erfcx, expi, expn): scalar functions in
// float64, called per element from the generated code (scalar_ops.cpp); float32 and the
// 16-bit floats are computed through them and rounded once. Special values follow XLA's
// (JAX's) implementations; the algorithms are the textbook ones (series, continued fractions
// by Lentz's method or Cephes' recurrences, Euler-Maclaurin, asymptotic expansions).
#pragma once

namespace shard::codegen {

// exp(-|x|) I0(x) and exp(-|x|) I1(x): the power series below |x| = 20, the asymptotic
// expansion above (all terms to below 1e-17 relative).
double bessel_i0e_f64(double x);
double bessel_i1e_f64(double x);
// exp(x^2) erfc(x), without overflow for large x: exp(x^2) (x^2 split exactly in two parts)
// times glibc's erfc below 26, the asymptotic series above; 2 exp(x^2) - erfcx(-x) for x < 0.
double erfcx_f64(double x);
// Ei(x) = -E1(-x) for x < 0; the series gamma + log x + sum x^k / (k k!) up to 40, then the
// asymptotic series e^x / x sum k! / x^k. -inf at 0.
double expi_f64(double x);
// E_n(x) for a natural number n (NaN for other n, for n < 0 or x < 0, as JAX): inf at x = 0
// for n < 2, 1 / (n - 1) for n >= 2; e^-x / x for n = 0; the series for x <= 1, the continued
// fraction above, Cephes' asymptotic form for n >= 5000.
double expn_f64(double n, double x);
// Regularized lower / upper incomplete gamma P(a, x), Q(a, x) = 1 - P, and dP/da: the series
// for x < 1 or x <= a, the continued fraction otherwise (Cephes' igam / igamc, and XLA's
// derivative of each with respect to a). NaN where XLA's are: x < 0, a < 0, a = x = 0,
// a = x = inf; P(a, 0) = 0, P(a, inf) = 1, P(inf, x) = 0, P(0, x > 0) = 1.
double igamma_f64(double a, double x);
double igammac_f64(double a, double x);
double igamma_grad_a_f64(double a, double x);
// The Hurwitz zeta function sum_k (k + q)^-x: Euler-Maclaurin summation (Cephes' zeta).
// inf at x = 1, NaN for x < 1; for q <= 0 NaN unless x is an integer, and at the poles
// (integer q <= 0) inf for even x, NaN otherwise (XLA's rules).
double zeta_f64(double x, double q);
// The regularized incomplete beta function I_x(a, b): the continued fraction (DLMF 8.17.22,
// modified Lentz) on the side of (a + 1) / (a + b + 2) where it converges fast, with XLA's
// special values (a = 0 or b = inf: 1 for x > 0; b = 0 or a = inf: 0 for x < 1; NaN outside
// a, b >= 0, 0 <= x <= 1).
double betainc_f64(double a, double b, double x);

}  // namespace shard::codegen
