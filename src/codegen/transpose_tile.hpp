// An in-register transpose of a square tile: N vectors of N elements (one AVX-512 register
// each: 16 floats, 8 doubles) become the N columns, by log2(N) rounds of two-input shuffles.
// The elementwise generator stages each transposed input through it, so a transpose reads
// and writes whole vectors instead of gathering one element per lane.
#pragma once
#include <vector>

#include "jit/llvm_headers.hpp"

namespace shard::codegen {

// rows[r] holds element (r, c) in lane c; the result's vector c holds (r, c) in lane r.
// rows.size() must be a power of two equal to each vector's lane count.
std::vector<llvm::Value*> transpose_square(llvm::IRBuilder<>& b, std::vector<llvm::Value*> rows);

}  // namespace shard::codegen
