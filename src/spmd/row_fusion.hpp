// Row fusion of per-device programs: a reduction over the trailing dims of an array, the
// elementwise ops that produce its operand and the ones that consume its result broadcast
// back over the same rows become one `fusion` op whose region holds reductions. Its lowering
// (exec/lower_fusion) is one loop over the rows that, per row, runs each reduction's loop and
// then the loop writing the result: a row is read from memory once and revisited in cache.
// softmax (max, exp, sum, divide), layernorm (mean, variance, normalise), var, and a reduction
// of a computed value (`all(a > 0)`) each become one pass over memory. Reductions over
// leading dims group the same way (one value per column: var(a, 0), any(a > c, 0)); their
// kernel walks blocks of columns down the rows, one pass per dependent reduction, except that
// a mean and the centred squares' sum (var, std) share one tiled pass
// (codegen/column_reduce_kernel). A variance over a sharded dim has a psum between its two
// sums; spmd/moments rewrites it, before this pass, into one fusion with three results.
//
// A group lives in one "row space": full values have the reduced operand's shape S, per-row
// (per-column) values have its kept dims (or S's rank with ones in the reduced dims, as
// keepdims makes them), and one-element values are the same everywhere. Members are
// reductions of full values over exactly the space's dims, elementwise ops, broadcasts of
// per-row or one-element values, reshapes between the per-row shapes; one-element constants
// (and what is computed from constants only) are copied into each group that reads them.
// A group is kept when it computes something (an elementwise member), exactly one of its
// values is read outside it (the fusion's result, a full or per-row value) and that is its
// last member, so nothing outside reads a member and feeds another (which would be a cycle
// once it is one op); otherwise its ops stay as they are, for the elementwise fusion that
// runs next.
#pragma once
#include "ir/ir.hpp"

namespace shard::spmd {

// Rewrites `f` (a per-device program) in place; bodies of control flow included.
void fuse_rows(ir::Function& f);

}  // namespace shard::spmd
