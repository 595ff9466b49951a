// Loop fusion of per-device programs: maximal groups of ops that can run as one element loop
// (elementwise ops, and broadcast / transpose / slice / rev / reshape / constant as strided
// reads of the group's inputs) become one `fusion` op whose region holds the group. The
// lowering (exec/lower_fusion) turns each region into one ElementwiseKernel, so a chain like
// sin(a) + b * 2 reads a and b once and writes one buffer instead of one per op.
//
// Grouping rules (see fusion.cpp for the why):
// - an elementwise value with more than one element joins a group only when every use of it
//   is inside that group (it is computed once, in that loop) and it is not a program result;
// - data movement ops, constants and one-element computations are cheap to repeat: each group
//   that reads them gets its own copy; the original op stays only if something else needs it;
// - a view op (broadcast, transpose, slice, rev) reads its operand through strides, so that
//   operand must itself be a view chain, a constant, a one-element value or a group input;
//   reshape additionally needs a contiguous operand (a group input, constant or one element);
// - reductions, dot_general, collectives, control flow, host callbacks and everything else
//   end groups; the bodies of while / scan / cond are fused on their own;
// - a group of one op stays that op (nothing to fuse).
#pragma once
#include "ir/ir.hpp"

namespace shard::spmd {

// Rewrites `f` (a per-device program) in place; region bodies of control flow included.
void fuse_elementwise(ir::Function& f);

}  // namespace shard::spmd
