// The gamma family as kernels call it (lax.lgamma, lax.digamma, lax.polygamma): scalar
// functions in float64, called per element from the generated code (scalar_ops.cpp); float32
// (and the 16-bit floats, held in float32 registers) are computed through them and rounded
// once, so they are correctly rounded but for rare double roundings.
#pragma once

namespace shard::codegen {

// log|Gamma(x)| (glibc's lgamma_r: no write to the global signgam, so kernels on several
// device threads may call it at once). +inf at the poles (0, -1, -2, ...) and at +-inf.
double lgamma_f64(double x);
// psi(x) = d/dx log|Gamma(x)|: reflection below 0, the recurrence psi(x) = psi(x + 1) - 1/x
// up to 10, then the asymptotic (Bernoulli) series; a Taylor series around the positive root
// 1.4616... keeps relative accuracy there. NaN at the poles (0, -1, -2, ..., -inf) as XLA.
double digamma_f64(double x);
// psi^(m)(x), the m-th derivative of psi, for a natural number m (NaN otherwise, as XLA):
// m = 0 is digamma; at a pole, +inf for odd m and NaN for even m (XLA's zeta at its poles).
double polygamma_f64(double m, double x);

}  // namespace shard::codegen
