// Global arrays from per-device data, and back to the host: jax.make_array_from_callback,
// make_array_from_single_device_arrays, make_array_from_process_local_data, device_get.
// With several processes (mpirun + jax.distributed.initialize) each process supplies the
// blocks of its own devices, as in JAX's multi-controller model; with one, that is all of them.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <functional>
#include <map>

#include "api/modules/global_arrays.hpp"
#include "api/device_count.hpp"
#include "api/objects/array_value.hpp"
#include "api/objects/dtype_value.hpp"
#include "api/objects/sharding_objects.hpp"
#include "api/op_args.hpp"
#include "api/pytree/pytree.hpp"
#include "exec/array.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using interp::CallArgs;
using interp::Interp;
using interp::ObjKind;
using interp::Value;
namespace bi = interp::bi;

namespace {

const types::NamedSharding& named_sharding_arg(Interp& I, const Value& v, const char* fname) {
  auto* s = as_sharding(v);
  if (!s || !s->named || !s->named->is_concrete())
    I.raise("TypeError", fmt::format("{}: sharding must be a NamedSharding over a concrete Mesh, got {}", fname, I.repr(v)));
  return *s->named;
}

// The device array of one block: `v` (any array-like) on `device`, of the block's shape.
exec::ArrayRef block_on_device(Interp& I, const Value& v, int device, const types::Shape& block, types::DType dtype, const char* fname) {
  exec::ArrayRef host;
  if (auto* a = as_array(v)) host = a->array;
  else host = host_array_from_python(I, v, std::nullopt);
  if (host->type.shape() != block)
    I.raise("ValueError", fmt::format("{}: the data for device {} has shape {}, but its shard of the global array has shape {}", fname,
                                      device, types::py_int_tuple(host->type.shape()), types::py_int_tuple(block)));
  auto bytes = exec::array_to_host(*host);
  auto data = host->type.dtype() == dtype ? bytes : exec::array_to_host(*host_astype(host, dtype));
  types::ArrayType t(dtype, block);
  return exec::array_from_host(data.data(), t, types::NamedSharding(exec::single_device_mesh(device), types::PartitionSpec()), true);
}

// The global array of `shape` laid out by `sharding` whose block at each mesh position of this
// process is `block_at(position)`, a single-device array on that position's device.
Value assemble(const types::Shape& shape, types::DType dtype, const types::NamedSharding& sharding,
               const std::function<exec::ArrayRef(int64_t position)>& block_at) {
  std::vector<exec::BufferRef> shards;
  for (int64_t p = 0; p < sharding.mesh().size(); ++p)
    shards.push_back(is_local_device(sharding.mesh().device_at(p)) ? block_at(p)->shards.at(0) : nullptr);
  return wrap(std::make_shared<const exec::Array>(
      exec::Array{types::ArrayType::from_sharding(dtype, shape, sharding), sharding, false, std::move(shards)}));
}

// make_array_from_callback(shape, sharding, data_callback): the callback gets each device's
// index (a tuple of slices) and returns that block.
Value make_array_from_callback(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "make_array_from_callback", {"shape", "sharding", "data_callback", "dtype="});
  types::Shape shape = shape_arg(I, p.get("shape"), "make_array_from_callback");
  const auto& ns = named_sharding_arg(I, p.get("sharding"), "make_array_from_callback");
  guarded(I, [&] { ns.check_divisible(shape); });
  ensure_device_runtime();
  const auto parts = ns.dim_partitions(shape.size());
  std::optional<types::DType> dtype;
  if (Value d = p.get("dtype"); d && d->kind != ObjKind::None) dtype = require_dtype(I, d);
  std::vector<exec::ArrayRef> blocks(static_cast<size_t>(ns.mesh().size()));
  for (int64_t pos = 0; pos < ns.mesh().size(); ++pos) {
    const int device = ns.mesh().device_at(pos);
    if (!is_local_device(device)) continue;  // its process calls the callback for it
    auto idx = ns.position_index(pos, shape);
    Value data = I.call(p.get("data_callback"), {index_tuple(idx, parts)});
    if (!dtype) {
      if (auto* arr = as_array(data)) dtype = arr->array->type.dtype();
      else dtype = host_array_from_python(I, data, std::nullopt)->type.dtype();
      if (*dtype == types::DType::F64) dtype = types::DType::F32;  // JAX's default (64-bit off)
      if (*dtype == types::DType::I64) dtype = types::DType::I32;
    }
    types::Shape block;
    for (auto& r : idx) block.push_back(r.size());
    blocks[static_cast<size_t>(pos)] = block_on_device(I, data, device, block, *dtype, "make_array_from_callback");
  }
  return guarded(I, [&] { return assemble(shape, *dtype, ns, [&](int64_t pos) { return blocks[static_cast<size_t>(pos)]; }); });
}

// make_array_from_single_device_arrays(shape, sharding, arrays): one single-device array per
// device of the sharding's mesh in this process, each holding that device's block.
Value make_array_from_single_device_arrays(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "make_array_from_single_device_arrays", {"shape", "sharding", "arrays", "*", "dtype="});
  types::Shape shape = shape_arg(I, p.get("shape"), "make_array_from_single_device_arrays");
  const auto& ns = named_sharding_arg(I, p.get("sharding"), "make_array_from_single_device_arrays");
  guarded(I, [&] { ns.check_divisible(shape); });
  auto arrays = I.to_vector(p.get("arrays"));
  const auto& mesh = ns.mesh();
  int64_t addressable = 0;
  for (int d : mesh.device_ids()) addressable += is_local_device(d);
  if (static_cast<int64_t>(arrays.size()) != addressable)
    I.raise("ValueError", fmt::format("make_array_from_single_device_arrays: expected {} arrays, one per addressable device of the sharding, got {}",
                                      addressable, arrays.size()));
  std::map<int, exec::ArrayRef> by_device;
  for (auto& v : arrays) {
    auto* arr = as_array(v);
    if (!arr || arr->host || !arr->array->single_device)
      I.raise("TypeError", fmt::format("make_array_from_single_device_arrays: every array must be a jax.Array on one device, got {}", I.repr(v)));
    const int dev = arr->array->device_of(0);
    if (!mesh.contains_device(dev))
      I.raise("ValueError", fmt::format("make_array_from_single_device_arrays: an array is on device {}, which is not in the sharding's mesh", dev));
    by_device[dev] = arr->array;
  }
  if (static_cast<int64_t>(by_device.size()) != addressable)
    I.raise("ValueError", "make_array_from_single_device_arrays: the arrays must be on distinct devices, one per addressable device of the sharding");
  const types::DType dtype = by_device.begin()->second->type.dtype();
  const auto block = ns.shard_shape(shape);
  for (auto& [dev, arr] : by_device)
    if (arr->type.shape() != block || arr->type.dtype() != dtype)
      I.raise("ValueError", fmt::format("make_array_from_single_device_arrays: the array on device {} is {}[{}], expected {}[{}] (the shard shape of "
                                        "{} under {})", dev, types::dtype_name(arr->type.dtype()), fmt::join(arr->type.shape(), ","),
                                        types::dtype_name(dtype), fmt::join(block, ","), types::py_int_tuple(shape), ns.repr()));
  return guarded(I, [&] { return assemble(shape, dtype, ns, [&](int64_t pos) { return by_device.at(mesh.device_at(pos)); }); });
}

// make_array_from_process_local_data(sharding, local_data, global_shape=None): local_data is
// the part of the global array this process's devices hold (with one process, all of it). The
// global shape, when not given, scales each dimension by how many of its shards are elsewhere.
Value make_array_from_process_local_data(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "make_array_from_process_local_data", {"sharding", "local_data", "global_shape="});
  const auto& ns = named_sharding_arg(I, p.get("sharding"), "make_array_from_process_local_data");
  ensure_device_runtime();
  Value data = p.get("local_data");
  exec::ArrayRef local = as_array(data) ? as_array(data)->array : host_array_from_python(I, data, std::nullopt);
  const types::Shape have = local->type.shape();
  types::Shape shape;
  if (Value g = p.get("global_shape"); g && g->kind != ObjKind::None) {
    shape = shape_arg(I, g, "make_array_from_process_local_data");
    if (shape.size() != have.size())
      I.raise("ValueError", fmt::format("make_array_from_process_local_data: global_shape {} and the local data's shape {} have different ranks",
                                        types::py_int_tuple(shape), types::py_int_tuple(have)));
  } else {
    // Shards along each dimension in all, and how many distinct ones this process holds.
    const auto parts = ns.dim_partitions(have.size());
    types::Shape probe(have.size());
    for (size_t d = 0; d < have.size(); ++d) probe[d] = parts[d];
    std::vector<std::vector<int64_t>> mine(have.size());
    for (auto& [device, idx] : ns.device_indices(probe))
      if (is_local_device(device))
        for (size_t d = 0; d < have.size(); ++d)
          if (std::find(mine[d].begin(), mine[d].end(), idx[d].start) == mine[d].end()) mine[d].push_back(idx[d].start);
    for (size_t d = 0; d < have.size(); ++d) shape.push_back(have[d] * parts[d] / std::max<int64_t>(1, static_cast<int64_t>(mine[d].size())));
  }
  return guarded(I, [&] {
    ns.check_divisible(shape);
    const exec::Region region = exec::local_region(ns, shape);
    if (region.size != have)
      throw types::ShardingError("ValueError", fmt::format("make_array_from_process_local_data: process {} holds the block {} of the global array "
                                                           "of shape {}, but its local data has shape {}",
                                                           process_index(), types::py_int_tuple(region.size), types::py_int_tuple(shape),
                                                           types::py_int_tuple(have)));
    types::DType dtype = local->type.dtype();
    if (dtype == types::DType::F64) dtype = types::DType::F32;  // JAX's default (64-bit off)
    if (dtype == types::DType::I64) dtype = types::DType::I32;
    auto bytes = exec::array_to_host(local->type.dtype() == dtype ? *local : *host_astype(local, dtype));
    return wrap(exec::array_from_local_region(bytes.data(), region, types::ArrayType::from_sharding(dtype, shape, ns), ns));
  });
}

// device_get(x): every jax.Array leaf of the pytree as a numpy array; other leaves unchanged.
Value device_get(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "device_get", {"x"});
  std::vector<Value> leaves;
  FlattenOptions opts;
  opts.key_arrays_as_leaves = true;
  TreeDef def = tree_flatten(I, p.get("x"), leaves, opts);
  Value asarray = I.getattr(I.import_module("numpy", I.current_loc()), "asarray");
  for (auto& l : leaves)
    if (auto* arr = as_array(l); arr && !arr->host) l = I.call(asarray, {l});
  size_t pos = 0;
  return tree_unflatten(I, def, leaves, pos);
}

}  // namespace

void install_global_arrays(interp::ModuleObj& jax) {
  auto add = [&](const char* name, interp::NativeFn fn) { jax.dict.set(name, interp::make_builtin(name, std::move(fn))); };
  add("make_array_from_callback", make_array_from_callback);
  add("make_array_from_single_device_arrays", make_array_from_single_device_arrays);
  add("make_array_from_process_local_data", make_array_from_process_local_data);
  add("device_get", device_get);
}

}  // namespace shard::api
