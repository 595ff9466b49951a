#include "exec/array.hpp"

#include <algorithm>
#include <climits>
#include <map>

#include "exec/host_kernels.hpp"
#include "exec/run_global.hpp"
#include "runtime/device_runtime.hpp"
#include "runtime/process_layout.hpp"
#include "types/type_common.hpp"

namespace shard::exec {

size_t Array::local_bytes() const {
  return static_cast<size_t>(num_elements(local_shape())) * types::dtype_size(type.dtype());
}

int Array::device_of(size_t position) const { return sharding.mesh().device_at(static_cast<int64_t>(position)); }

types::Mesh single_device_mesh(int device) {
  return types::Mesh({device >= 0 ? device : runtime::default_device()}, {}, {});
}

bool Array::is_fully_addressable() const {
  for (int d : sharding.mesh().device_ids())
    if (!runtime::process_layout().is_local(d)) return false;
  return true;
}

bool Array::has_local_copy_of_every_block() const {
  for (auto& blk : sharding.blocks(type.shape())) {
    bool local = false;
    for (int d : blk.devices) local |= runtime::process_layout().is_local(d);
    if (!local) return false;
  }
  return true;
}

namespace {
std::vector<int64_t> block_starts(const types::ShardIndex& idx) {
  std::vector<int64_t> s;
  for (auto& r : idx) s.push_back(r.start);
  return s;
}
[[noreturn]] void throw_not_addressable() {
  throw types::ShardingError(
      "RuntimeError",
      "Fetching value for `jax.Array` that spans non-addressable (non process local) devices is not possible. "
      "You can use `jax.experimental.multihost_utils.process_allgather` to print the global array or use "
      "`.addressable_shards` method of jax.Array to inspect the addressable (process local) shards.");
}
std::vector<int64_t> block_sizes(const types::ShardIndex& idx) {
  std::vector<int64_t> s;
  for (auto& r : idx) s.push_back(r.size());
  return s;
}
}  // namespace

ArrayRef array_from_host(const void* data, const ArrayType& type, const NamedSharding& sharding, bool single_device) {
  auto a = std::make_shared<Array>(Array{type, sharding, single_device, {}});
  const auto& mesh = sharding.mesh();
  const auto& devices = mesh.device_ids();
  a->shards.resize(devices.size());
  const auto shape = type.shape();
  const size_t esz = types::dtype_size(type.dtype());
  const size_t bytes = a->local_bytes();
  runtime::global_runtime().launch(devices, [&](int device) {
    const int64_t pos = mesh.position_of_device(device);
    auto idx = sharding.device_index(device, shape);
    auto buf = runtime::DeviceBuffer::allocate(device, bytes);
    copy_block(esz, shape, block_starts(idx), block_sizes(idx), data, buf->data(), false);
    a->shards[pos] = std::move(buf);
  });
  return a;
}

std::vector<uint8_t> array_to_host(const Array& a) {
  if (!a.sharding.spec().unreduced().empty()) return array_to_host(*summed_partials(a));
  const auto shape = a.type.shape();
  const size_t esz = types::dtype_size(a.type.dtype());
  std::vector<uint8_t> out(static_cast<size_t>(num_elements(shape)) * esz);
  const auto& mesh = a.sharding.mesh();
  // One holder per distinct block (the lowest device id of this process) writes its block.
  std::vector<int> writers;
  for (auto& blk : a.sharding.blocks(shape)) {
    auto local = std::find_if(blk.devices.begin(), blk.devices.end(),
                              [](int d) { return runtime::process_layout().is_local(d); });
    if (local == blk.devices.end()) throw_not_addressable();
    writers.push_back(*local);
  }
  runtime::global_runtime().launch(writers, [&](int device) {
    const int64_t pos = mesh.position_of_device(device);
    auto idx = a.sharding.device_index(device, shape);
    copy_block(esz, shape, block_starts(idx), block_sizes(idx), a.shards[pos]->data(), out.data(), true);
  });
  return out;
}

}  // namespace shard::exec

namespace shard::exec {

ArrayRef gather_to_single_device(const ArrayRef& a) {
  if (a->single_device) return a;
  if (!a->sharding.spec().unreduced().empty()) return gather_to_single_device(summed_partials(*a));
  const auto shape = a->type.shape();
  const size_t esz = types::dtype_size(a->type.dtype());
  const int device = runtime::default_device();
  auto buf = runtime::DeviceBuffer::allocate(device, static_cast<size_t>(num_elements(shape)) * esz);
  const auto& mesh = a->sharding.mesh();
  std::vector<int> writers;
  for (auto& blk : a->sharding.blocks(shape)) {
    auto local = std::find_if(blk.devices.begin(), blk.devices.end(),
                              [](int d) { return runtime::process_layout().is_local(d); });
    if (local == blk.devices.end()) throw_not_addressable();
    writers.push_back(*local);
  }
  runtime::global_runtime().launch(writers, [&](int d) {
    auto idx = a->sharding.device_index(d, shape);
    copy_block(esz, shape, block_starts(idx), block_sizes(idx), a->shards[mesh.position_of_device(d)]->data(), buf->data(), true);
  });
  types::ArrayType t(a->type.dtype(), shape, {}, {}, {}, a->type.weak_type());
  return std::make_shared<Array>(Array{t, NamedSharding(single_device_mesh(device), types::PartitionSpec()), true, {std::move(buf)}});
}

ArrayRef place_single_device(const ArrayRef& a, const ArrayType& type, const NamedSharding& sharding) {
  const auto& mesh = sharding.mesh();
  if (sharding.spec().normalized(type.rank()) == types::PartitionSpec::replicated(type.rank())) {
    std::vector<BufferRef> shared;
    for (int d : mesh.device_ids()) shared.push_back(runtime::process_layout().is_local(d) ? a->shards.at(0) : nullptr);
    return std::make_shared<Array>(Array{type, sharding, false, std::move(shared)});
  }
  return array_from_host(a->shards.at(0)->data(), type, sharding, false);
}

std::vector<uint8_t> constant_bytes(const Array& a) {
  if (!a.is_fully_addressable())
    throw types::ShardingError("RuntimeError",
                               "Closing over jax.Array that spans non-addressable (non process local) devices is not allowed. "
                               "Got jax.Array: " + a.type.str_short() + " (pass it to the function as an argument instead)");
  return array_to_host(a);
}

Region local_region(const NamedSharding& sharding, const types::Shape& shape) {
  Region r{std::vector<int64_t>(shape.size(), INT64_MAX), types::Shape(shape.size(), 0)};
  std::vector<int64_t> end(shape.size(), 0);
  int64_t local_elements = 0;
  std::vector<types::ShardIndex> seen;
  for (auto& [device, idx] : sharding.device_indices(shape)) {
    if (!runtime::process_layout().is_local(device)) continue;
    if (std::find(seen.begin(), seen.end(), idx) != seen.end()) continue;  // a replica
    seen.push_back(idx);
    int64_t n = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      r.start[d] = std::min(r.start[d], idx[d].start);
      end[d] = std::max(end[d], idx[d].start + idx[d].size());
      n *= idx[d].size();
    }
    local_elements += n;
  }
  int64_t box = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (seen.empty()) r.start[d] = 0;
    r.size[d] = seen.empty() ? 0 : end[d] - r.start[d];
    box *= r.size[d];
  }
  if (!seen.empty() && box != local_elements)
    throw types::ShardingError("ValueError", "the shards of process " + std::to_string(runtime::process_layout().process_index) +
                                                 " do not form one contiguous block of the global array: order the mesh's "
                                                 "devices so that each process's devices are adjacent along the sharded axes");
  return r;
}

ArrayRef array_from_local_region(const void* data, const Region& region, const ArrayType& type,
                                 const NamedSharding& sharding) {
  auto a = std::make_shared<Array>(Array{type, sharding, false, {}});
  const auto& mesh = sharding.mesh();
  a->shards.resize(mesh.device_ids().size());
  const auto shape = type.shape();
  const size_t esz = types::dtype_size(type.dtype());
  const size_t bytes = a->local_bytes();
  runtime::global_runtime().launch(mesh.device_ids(), [&](int device) {
    auto idx = sharding.device_index(device, shape);
    std::vector<int64_t> starts = block_starts(idx);
    for (size_t d = 0; d < starts.size(); ++d) starts[d] -= region.start[d];
    auto buf = runtime::DeviceBuffer::allocate(device, bytes);
    copy_block(esz, region.size, starts, block_sizes(idx), data, buf->data(), false);
    a->shards[mesh.position_of_device(device)] = std::move(buf);
  });
  return a;
}

std::vector<uint8_t> local_region_to_host(const Array& a, const Region& region) {
  if (!a.sharding.spec().unreduced().empty()) return local_region_to_host(*summed_partials(a), region);
  const auto shape = a.type.shape();
  const size_t esz = types::dtype_size(a.type.dtype());
  std::vector<uint8_t> out(static_cast<size_t>(num_elements(region.size)) * esz);
  const auto& mesh = a.sharding.mesh();
  std::vector<int> writers;  // one local holder per distinct block
  for (auto& blk : a.sharding.blocks(shape))
    for (int d : blk.devices)
      if (runtime::process_layout().is_local(d)) {
        writers.push_back(d);
        break;
      }
  runtime::global_runtime().launch(writers, [&](int device) {
    auto idx = a.sharding.device_index(device, shape);
    std::vector<int64_t> starts = block_starts(idx);
    for (size_t d = 0; d < starts.size(); ++d) starts[d] -= region.start[d];
    copy_block(esz, region.size, starts, block_sizes(idx), a.shards[mesh.position_of_device(device)]->data(), out.data(), true);
  });
  return out;
}

}  // namespace shard::exec
