#include "ir/dim_map.hpp"

#include <stdexcept>
#include <string>

namespace shard::ir {

bool has_dim_map(OpKind k) {
  return k == OpKind::BroadcastInDim || k == OpKind::Transpose || k == OpKind::Slice || k == OpKind::Rev;
}

DimMap dim_map(const Attrs& attrs, const types::Shape& operand, const types::Shape& result) {
  DimMap m(operand.size());
  if (auto* b = std::get_if<attr::BroadcastInDim>(&attrs)) {  // operand dim i is result dim dims[i], unless a broadcast 1
    const auto& dims = b->broadcast_dimensions;
    for (size_t i = 0; i < operand.size(); ++i)
      if (operand[i] == result.at(static_cast<size_t>(dims.at(i)))) m[i].result_dim = dims[i];
  } else if (auto* t = std::get_if<attr::Transpose>(&attrs)) {  // result dim j is operand dim perm[j]
    for (size_t j = 0; j < t->permutation.size(); ++j) m.at(static_cast<size_t>(t->permutation[j])).result_dim = static_cast<int64_t>(j);
  } else if (auto* s = std::get_if<attr::Slice>(&attrs)) {
    for (size_t d = 0; d < operand.size(); ++d)
      m[d] = {static_cast<int64_t>(d), s->strides.empty() ? 1 : s->strides.at(d), s->start_indices.at(d)};
  } else if (auto* r = std::get_if<attr::Rev>(&attrs)) {
    for (size_t d = 0; d < operand.size(); ++d) m[d].result_dim = static_cast<int64_t>(d);
    for (auto d : r->dimensions) m.at(static_cast<size_t>(d)) = {d, -1, operand[static_cast<size_t>(d)] - 1};
  } else {
    throw std::logic_error("internal error: an op without a dimension map");
  }
  return m;
}

}  // namespace shard::ir
