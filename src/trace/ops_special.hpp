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

}  // namespace shard::trace
