// The placement side of jax.Array: .sharding, .devices(), .is_fully_replicated,
// .addressable_shards / .global_shards (Shard objects with .device, .index, .replica_id,
// .data), .committed.
#include <fmt/format.h>

#include "api/objects/array_value.hpp"
#include "api/objects/sharding_objects.hpp"
#include "interp/builtins/support.hpp"
#include "runtime/process_layout.hpp"

namespace shard::api {

using interp::CallArgs;
using interp::ObjKind;
namespace bi = interp::bi;

namespace {

const exec::ArrayRef& self_array(Interp& I, CallArgs& a, const char* what) {
  auto* arr = a.args.empty() ? nullptr : as_array(a.args[0]);
  if (!arr || arr->host) I.raise("TypeError", fmt::format("descriptor '{}' requires a 'jax.Array' object", what));
  return arr->array;
}

std::vector<int> array_devices(const exec::Array& a) {
  std::vector<int> ids;
  for (size_t p = 0; p < a.shards.size(); ++p) ids.push_back(a.device_of(p));
  return ids;
}

// One block of an array on one device.
struct ShardObj : interp::NativeObj {
  exec::ArrayRef array;
  size_t position;
  ShardObj(ClassP c, exec::ArrayRef a, size_t p) : NativeObj(std::move(c)), array(std::move(a)), position(p) {}
};

ClassP shard_class();

ShardObj& self_shard(Interp& I, CallArgs& a) {
  auto* s = a.args.empty() || a.args[0]->kind != ObjKind::Native ? nullptr : dynamic_cast<ShardObj*>(a.args[0].get());
  if (!s) I.raise("TypeError", "descriptor requires a 'Shard' object");
  return *s;
}

Value shard_index(const ShardObj& s) {
  const auto& a = *s.array;
  auto idx = a.sharding.position_index(static_cast<int64_t>(s.position), a.type.shape());
  auto parts = a.sharding.dim_partitions(a.type.rank());
  std::vector<Value> xs;
  for (size_t d = 0; d < idx.size(); ++d) {
    bool whole = parts[d] == 1;
    xs.push_back(std::make_shared<interp::SliceObj>(interp::T().slice, whole ? interp::none() : interp::make_int(idx[d].start),
                                                     whole ? interp::none() : interp::make_int(idx[d].stop), interp::none()));
  }
  return interp::make_tuple(std::move(xs));
}

// The replica number of the block at `position` among the devices holding the same block
// (mesh order), as JAX numbers them.
int64_t replica_id(const ShardObj& s) {
  const auto& a = *s.array;
  auto mine = a.sharding.position_index(static_cast<int64_t>(s.position), a.type.shape());
  int64_t n = 0;
  for (size_t p = 0; p < s.position; ++p)
    if (a.sharding.position_index(static_cast<int64_t>(p), a.type.shape()) == mine) ++n;
  return n;
}

Value shard_data(const ShardObj& s) {
  const auto& a = *s.array;
  int dev = a.device_of(s.position);
  if (!a.shards[s.position])
    throw types::ShardingError("RuntimeError", fmt::format("the shard on device {} belongs to process {}: its data is not addressable "
                                                           "from process {}", dev, runtime::process_layout().process_of(dev),
                                                           runtime::process_layout().process_index));
  types::ArrayType t(a.type.dtype(), a.local_shape(), {}, {}, {}, a.type.weak_type());
  auto block = std::make_shared<exec::Array>(
      exec::Array{t, types::NamedSharding(exec::single_device_mesh(dev), types::PartitionSpec()), true, {a.shards[s.position]}});
  return wrap(block, false);
}

ClassP shard_class() {
  static ClassP c = [] {
    auto k = interp::make_class("Shard", {interp::T().object}, "jax._src.array");
    bi::def_property(k, "device", [](Interp& I, CallArgs& a) {
      auto& s = self_shard(I, a);
      return device_value(s.array->device_of(s.position));
    });
    bi::def_property(k, "index", [](Interp& I, CallArgs& a) { return shard_index(self_shard(I, a)); });
    bi::def_property(k, "replica_id", [](Interp& I, CallArgs& a) { return interp::make_int(replica_id(self_shard(I, a))); });
    bi::def_property(k, "data", [](Interp& I, CallArgs& a) { return guarded(I, [&] { return shard_data(self_shard(I, a)); }); });
    bi::def(k, "__repr__", [](Interp& I, CallArgs& a) {
      auto& s = self_shard(I, a);
      return interp::make_str(fmt::format("Shard(device={}, index={}, replica_id={}, data={})", I.repr(device_value(s.array->device_of(s.position))),
                                          I.repr(shard_index(s)), replica_id(s), I.str(guarded(I, [&] { return shard_data(s); }))));
    });
    return k;
  }();
  return c;
}

// Shards of other processes' devices have no data here (their .data raises).
Value shards_list(const exec::ArrayRef& a, bool addressable_only) {
  std::vector<Value> xs;
  for (size_t p = 0; p < a->shards.size(); ++p)
    if (!addressable_only || a->shards[p]) xs.push_back(std::make_shared<ShardObj>(shard_class(), a, p));
  return interp::make_list(std::move(xs));
}

}  // namespace

void install_array_placement() {
  static bool done = false;
  if (done) return;
  done = true;
  auto c = array_class();
  bi::def_property(c, "sharding", [](Interp& I, CallArgs& a) { return array_sharding_value(*self_array(I, a, "sharding")); });
  bi::def(c, "devices", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "devices", {"$self"});
    return device_set(I, array_devices(*self_array(I, a, "devices")));
  });
  bi::def_property(c, "is_fully_replicated", [](Interp& I, CallArgs& a) {
    const auto& arr = self_array(I, a, "is_fully_replicated");
    return interp::make_bool(arr->single_device || arr->sharding.is_fully_replicated());
  });
  bi::def_property(c, "is_fully_addressable", [](Interp& I, CallArgs& a) {
    return interp::make_bool(self_array(I, a, "is_fully_addressable")->is_fully_addressable());
  });
  bi::def_property(c, "committed", [](Interp& I, CallArgs& a) { return interp::make_bool(!self_array(I, a, "committed")->single_device); });
  bi::def_property(c, "addressable_shards", [](Interp& I, CallArgs& a) { return shards_list(self_array(I, a, "addressable_shards"), true); });
  bi::def_property(c, "global_shards", [](Interp& I, CallArgs& a) { return shards_list(self_array(I, a, "global_shards"), false); });
  bi::def(c, "is_deleted", [](Interp&, CallArgs&) { return interp::make_bool(false); });
  bi::def(c, "copy_to_host_async", [](Interp&, CallArgs&) { return interp::none(); });
}

}  // namespace shard::api
