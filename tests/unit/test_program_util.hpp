// Helpers for unit tests that build IR functions by hand and run them through the
// partitioner and the runtime (test_spmd, test_control_flow, test_auto_layouts).
#pragma once
#include <cstring>
#include <vector>

#include "exec/array.hpp"
#include "ir/builder.hpp"

namespace shard::testing {

// Appends op `k` with one result of type `t` to `f`; returns the result.
inline ir::ValueId op1(ir::Function& f, ir::OpKind k, std::vector<ir::ValueId> ins, ir::ArrayType t, ir::Attrs a = {}) {
  return ir::Builder(f).op(k, std::move(ins), std::move(t), std::move(a));
}

inline ir::attr::Elementwise ew(ir::EwOp op) { return {op}; }

// A float32 array from host data, placed on `m` as `spec` says.
inline exec::ArrayRef put(const types::Mesh& m, const std::vector<float>& host, types::Shape shape, types::PartitionSpec spec) {
  types::NamedSharding sh(m, spec);
  return exec::array_from_host(host.data(), ir::ArrayType::from_sharding(types::DType::F32, shape, sh), sh, false);
}

inline std::vector<float> fetch(const exec::ArrayRef& a) {
  auto bytes = exec::array_to_host(*a);
  std::vector<float> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

}  // namespace shard::testing
