// The dimension map of a data-movement op: how its result indexes its operand. For
// BroadcastInDim, Transpose, Slice and Rev it is one affine map per operand dimension d,
//   operand index[d] = start + step * result index[result_dim]
// (result_dim -1: a size-1 operand dim that is broadcast, always index 0). The sharding
// rules, the Auto-layout plan, the partitioner and both lowerings read this map instead of
// decoding each op's attributes again.
#pragma once
#include <cstdint>
#include <vector>

#include "ir/ir.hpp"

namespace shard::ir {

struct DimMapEntry {
  int64_t result_dim = -1;
  int64_t step = 1;
  int64_t start = 0;
};
using DimMap = std::vector<DimMapEntry>;  // one entry per operand dimension

// BroadcastInDim, Transpose, Slice, Rev.
bool has_dim_map(OpKind k);
DimMap dim_map(const Attrs& attrs, const types::Shape& operand, const types::Shape& result);
inline DimMap dim_map(const Function& f, const Op& op) {
  return dim_map(op.attrs, f.type(op.operands.at(0)).shape(), f.type(op.results.at(0)).shape());
}

// The operand dim maps onto a whole result dim, index for index: a sharding of it carries
// over to that result dim without moving data (a slice or reversal of it does not).
inline bool keeps_whole_dim(const DimMap& m, size_t d, const types::Shape& operand, const types::Shape& result) {
  const auto& e = m[d];
  return e.result_dim >= 0 && e.step == 1 && e.start == 0 && operand[d] == result[static_cast<size_t>(e.result_dim)];
}

}  // namespace shard::ir
