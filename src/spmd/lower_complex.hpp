// Complex arithmetic as real arithmetic. A complex64 (complex128) array is stored as numpy
// stores it: each element its real part then its imaginary part, so its bytes are those of a
// float32 (float64) array with one more trailing dim of 2. This pass rewrites a per-device
// program so that every complex value becomes that real array and every op on complex values
// becomes real ops on its parts: a complex multiply is four real multiplies and two adds on
// the slices [..., 0:1] and [..., 1:2], joined again by a concatenate; data movement and
// collectives only gain the trailing dim; `fft` keeps its attributes and reads the
// interleaved parts. Everything after it (fusion, codegen, the runtime) sees real dtypes only,
// and the fusion pass that follows turns each complex expression into one element loop.
//
// Comparisons, maximum / minimum and sorts order lexicographically (real parts first), as
// numpy and jnp do. Ops shard does not support on complex values yet (products and extremes
// over an axis, linear algebra on complex matrices) are refused earlier, at trace time; one
// reaching this pass is an internal error.
#pragma once
#include "ir/ir.hpp"

namespace shard::spmd {

// Rewrites `f` (a per-device program) in place; region bodies of control flow included.
// A program without complex values is left as it is.
void lower_complex(ir::Function& f);

}  // namespace shard::spmd
