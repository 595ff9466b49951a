// Binds each op kind to its batching rule, and the helpers the rules share.
#include "batching/rules.hpp"

namespace shard::batching {

using ir::OpKind;

BatchRule batch_rule(OpKind k) {
  switch (k) {
#define X(e, n, a, r, l, lin) \
  case OpKind::e: return &batch_##e;
    SHARD_IR_OPS(X)
#undef X
  }
  return nullptr;
}

void unsupported(const std::string& what) { throw types::ShardingError("NotImplementedError", what); }

bool names_batch_axis(const BatchArgs& a) {
  if (a.axis_name.empty() || !ir::is_collective(a.op.kind) && a.op.kind != OpKind::AxisIndex) return false;
  for (auto& n : ir::collective_axes(a.op))
    if (n == a.axis_name) return true;
  return false;
}

Batched batched(ValueId v) { return {v, true}; }

std::vector<Batched> all_batched(const std::vector<ValueId>& vs) {
  std::vector<Batched> out;
  for (auto v : vs) out.push_back({v, true});
  return out;
}

std::vector<int64_t> shifted(const std::vector<int64_t>& dims) {
  std::vector<int64_t> out;
  for (auto d : dims) out.push_back(d + 1);
  return out;
}

types::Shape with_batch(int64_t size, const types::Shape& s) {
  types::Shape out{size};
  out.insert(out.end(), s.begin(), s.end());
  return out;
}

types::PartitionSpec batch_spec(const types::PartitionSpec::Entry& batch, const ArrayType& t) {
  auto e = t.spec().normalized(t.rank()).entries();
  e.insert(e.begin(), batch);
  return types::PartitionSpec(e);
}

types::PartitionSpec::Entry batch_entry(const Trace& t, ValueId v) {
  const ArrayType vt = t.type(v);
  auto e = vt.spec().normalized(vt.rank()).entries();
  return e.empty() ? types::PartitionSpec::Entry{} : e[0];
}

}  // namespace shard::batching
