#include "ir/builder.hpp"

namespace shard::ir {

ValueId Builder::param(ArrayType t) {
  auto v = f_.new_value(std::move(t));
  f_.params.push_back(v);
  return v;
}

ValueId Builder::op(OpKind kind, std::vector<ValueId> operands, ArrayType result, Attrs attrs) {
  return op_multi(kind, std::move(operands), {std::move(result)}, std::move(attrs)).front();
}

std::vector<ValueId> Builder::op_multi(OpKind kind, std::vector<ValueId> operands, const std::vector<ArrayType>& results,
                                       Attrs attrs, std::vector<std::shared_ptr<const Function>> regions) {
  std::vector<ValueId> rs;
  rs.reserve(results.size());
  for (const auto& t : results) rs.push_back(f_.new_value(t));
  // Kinds without attributes need not spell them out.
  if (std::holds_alternative<attr::Unset>(attrs)) attrs = default_attrs(kind);
  Op o{kind, std::move(operands), rs, std::move(attrs), loc_};
  o.regions = std::move(regions);
  f_.ops.push_back(std::move(o));
  return rs;
}

}  // namespace shard::ir
