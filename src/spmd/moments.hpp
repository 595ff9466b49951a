// Centred second moments across a collective. A variance over a sharded dim, as jnp.var
// traces it (mean, then the mean of the squared deviations), becomes per device
//   s = reduce_sum(x); m = psum(s) / N; q = reduce_sum((x - m)^2); psum(q) / N
// and the psum between the two reductions keeps them apart: two passes over x. This pass
// rewrites q about the local mean c = s / n (n the local count along the reduced dims):
//   sum((x - m)^2) = M2 + (c - m) * (2 e + n (c - m)),  M2 = sum((x - c)^2), e = sum(x - c)
// s, M2 and e need only x, so they become one three-result row fusion over x, whose kernel
// computes them in one pass (codegen's column kernel takes M2 and e with s in a tiled pass; a
// row kernel revisits each row in cache), and the per-row / per-column correction after the
// psum is small elementwise work. c is the float the division gives, so e (the rounding of c,
// summed) is kept rather than taken as 0: with a mean far from zero, n (c - m)^2 alone, from
// rounded means, would lose the digits the correction needs; c - m itself is exact.
//
// Matched: a float32 / float64 reduce_sum over a run of leading or trailing dims of X whose
// operand is (X - broadcast(m))^2 (a multiply of the deviation by itself, square or
// integer_pow 2), where m is computed from an all-reduce of reduce_sum(X) over the same dims
// (the first reduction in the program). Without a collective in between, row fusion already
// makes the two reductions one pass and this pass leaves them alone.
#pragma once
#include "ir/ir.hpp"

namespace shard::spmd {

// Rewrites `f` (a per-device program) in place; control-flow bodies are left as they are.
void fuse_moments(ir::Function& f);

}  // namespace shard::spmd
