#include "ir/dim_map.hpp"

#include <stdexcept>
#include <string>

namespace shard::ir {

bool has_dim_map(OpKind k) {
  return k == OpKind::BroadcastInDim || k == OpKind::Transpose || k == OpKind::Slice || k == OpKind::Rev;
}

DimMap dim_map(OpKind kind, const Attrs& a, const types::Shape& operand, const types::Shape& result) {
  DimMap m(operand.size());
  switch (kind) {
    case OpKind::BroadcastInDim:  // operand dim i is result dim dims[i], unless it is a broadcast 1
      for (size_t i = 0; i < operand.size(); ++i)
        if (operand[i] == result.at(static_cast<size_t>(a.dims.at(i)))) m[i].result_dim = a.dims[i];
      return m;
    case OpKind::Transpose:  // result dim j is operand dim perm[j]
      for (size_t j = 0; j < a.dims.size(); ++j) m.at(static_cast<size_t>(a.dims[j])).result_dim = static_cast<int64_t>(j);
      return m;
    case OpKind::Slice:
      for (size_t d = 0; d < operand.size(); ++d)
        m[d] = {static_cast<int64_t>(d), a.dims3.empty() ? 1 : a.dims3.at(d), a.dims.at(d)};
      return m;
    case OpKind::Rev:
      for (size_t d = 0; d < operand.size(); ++d) m[d].result_dim = static_cast<int64_t>(d);
      for (auto d : a.dims) m.at(static_cast<size_t>(d)) = {d, -1, operand[static_cast<size_t>(d)] - 1};
      return m;
    default:
      throw std::logic_error(std::string("internal error: ") + op_kind_name(kind) + " has no dimension map");
  }
}

}  // namespace shard::ir
