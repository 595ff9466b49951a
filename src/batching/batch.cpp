// The batching driver: each op's rule in program order; ops without a batched operand are
// copied as they are (collectives over the vmap axis excepted: they always need their rule).
#include "batching/rules.hpp"

namespace shard::batching {

ValueId materialize(Trace& t, const Batched& v, int64_t size, const types::PartitionSpec::Entry& batch_axes) {
  if (v.batched) return v.value;
  const ArrayType vt = t.type(v.value);
  std::vector<int64_t> dims;
  for (size_t d = 0; d < vt.rank(); ++d) dims.push_back(static_cast<int64_t>(d) + 1);
  sharding::OptOutSharding out;
  if (!batch_axes.empty()) out = sharding::OutSharding{batch_spec(batch_axes, vt)};
  return trace::broadcast_in_dim(t, v.value, with_batch(size, vt.shape()), dims, out);
}

types::PartitionSpec::Entry BatchArgs::batch_axes() const {
  for (auto& v : x)
    if (v.batched)
      if (auto e = batch_entry(t, v.value); !e.empty()) return e;
  return {};
}

ArrayType BatchArgs::batched_result(size_t i) const {
  const ArrayType rt = result_type(i);
  return rt.with_shape(with_batch(size, rt.shape()), batch_spec(batch_axes(), rt));
}

bool BatchArgs::any_batched() const {
  for (auto& v : x)
    if (v.batched) return true;
  return false;
}

std::vector<Batched> batch(Trace& t, const ir::Function& f, const std::vector<Batched>& args, int64_t size, const std::string& axis_name) {
  std::vector<Batched> m(f.value_types.size());
  for (size_t i = 0; i < f.params.size(); ++i) m[static_cast<size_t>(f.params[i])] = args.at(i);
  const ast::Loc outer = t.loc();
  for (const auto& op : f.ops) {
    t.set_loc(op.loc);
    BatchArgs a{t, op, f, {}, size, axis_name};
    for (auto v : op.operands) a.x.push_back(m[static_cast<size_t>(v)]);
    std::vector<Batched> rs;
    if (a.any_batched() || names_batch_axis(a)) {
      rs = batch_rule(op.kind)(a);
    } else {
      std::vector<ValueId> operands;
      for (auto& v : a.x) operands.push_back(v.value);
      for (auto r : emit_like(t, f, op, operands)) rs.push_back({r, false});
    }
    for (size_t k = 0; k < op.results.size(); ++k) m[static_cast<size_t>(op.results[k])] = rs.at(k);
  }
  t.set_loc(outer);
  std::vector<Batched> out;
  for (auto v : f.results) out.push_back(m[static_cast<size_t>(v)]);
  return out;
}

}  // namespace shard::batching
