// Array: the host-side handle of a jax.Array — its type (dtype, shape, sharding on Explicit
// axes), its concrete sharding (all mesh axes), and one buffer per mesh position holding that
// position's block. The interpreter thread only ever holds handles: element data is produced
// and consumed by kernels on device threads (host <-> device copies happen at device_put and
// when the host needs values, e.g. printing).
#pragma once
#include <memory>
#include <optional>
#include <vector>

#include "runtime/device_buffer.hpp"
#include "types/array_type.hpp"
#include "types/named_sharding.hpp"

namespace shard::exec {

using runtime::BufferRef;
using types::ArrayType;
using types::NamedSharding;

struct Array {
  ArrayType type;
  // The concrete sharding over a concrete mesh. Arrays created without a mesh live on a
  // one-device mesh (no axes) holding the process's first device: JAX's SingleDeviceSharding.
  NamedSharding sharding;
  bool single_device = false;   // prints as SingleDeviceSharding
  std::vector<BufferRef> shards;  // indexed by mesh position (row-major); each a full local block

  types::Shape local_shape() const { return sharding.shard_shape(type.shape()); }
  // With several processes (runtime/process_layout.hpp) a process holds only the shards of its
  // own devices; the others' entries in `shards` are null.
  bool is_fully_addressable() const;
  bool has_local_copy_of_every_block() const;  // then the host value can be read here
  size_t local_bytes() const;
  int device_of(size_t position) const;
};
using ArrayRef = std::shared_ptr<const Array>;

// The mesh of a single-device array: no axes, `device` (by default this process's first
// device, JAX's default device).
types::Mesh single_device_mesh(int device = -1);

// Host <-> device. from_host splits a row-major host buffer into the blocks of `sharding`
// (copied on the devices' own threads); to_host assembles the global array from one copy
// of each block.
ArrayRef array_from_host(const void* data, const ArrayType& type, const NamedSharding& sharding, bool single_device);
std::vector<uint8_t> array_to_host(const Array& a);
// The whole array in one buffer on this process's default device (numpy's view of a jax.Array):
// one copy per distinct block straight into it; a single-device array is returned as it is
// (buffers are immutable).
ArrayRef gather_to_single_device(const ArrayRef& a);
// Places a single-device array on `sharding` (JAX's device_put of host data): a replicated
// layout shares the one buffer on every device of this process; otherwise each device copies
// its block straight from it.
ArrayRef place_single_device(const ArrayRef& a, const ArrayType& type, const NamedSharding& sharding);

// The bytes of a concrete array a trace captures as a constant. With several processes that
// needs the whole array here: JAX's error otherwise.
std::vector<uint8_t> constant_bytes(const Array& a);

// With several processes: the box of the global array the blocks of this process's devices
// cover (start and size per dimension). Throws ShardingError(ValueError) when they do not form
// one box (the mesh interleaves processes along a sharded dimension).
struct Region {
  std::vector<int64_t> start;
  types::Shape size;
};
Region local_region(const NamedSharding& sharding, const types::Shape& shape);
// The global array of `type` laid out by `sharding` whose part in this process, `region`, is
// the row-major buffer `data` (JAX's process-local data); other processes fill theirs.
ArrayRef array_from_local_region(const void* data, const Region& region, const ArrayType& type,
                                 const NamedSharding& sharding);
// This process's region of `a` as one row-major buffer.
std::vector<uint8_t> local_region_to_host(const Array& a, const Region& region);

}  // namespace shard::exec
