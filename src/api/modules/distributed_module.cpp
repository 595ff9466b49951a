// jax.distributed and jax.experimental.multihost_utils: JAX's multi-controller model on Open MPI.
//
// `mpirun -np P shard --devices D prog.shard` starts P processes running the same program; each
// has D devices of its own until jax.distributed.initialize() joins them into one set of P*D
// devices (process p owns p*D .. p*D+D-1). Without initialize each process runs alone, as JAX's
// processes do. The transport lives in runtime/mpi_transport.
#include <fmt/format.h>

#include "api/device_count.hpp"
#include "api/objects/array_value.hpp"
#include "api/objects/sharding_objects.hpp"
#include "api/op_args.hpp"
#include "exec/array.hpp"
#include "exec/run_global.hpp"
#include "interp/builtins/support.hpp"
#include "runtime/collectives.hpp"
#include "runtime/device_runtime.hpp"
#include "runtime/mpi_transport.hpp"
#include "runtime/process_layout.hpp"

namespace shard::api {

using interp::CallArgs;
using interp::Interp;
using interp::ModuleObj;
using interp::ObjKind;
using interp::Value;
namespace bi = interp::bi;

namespace {

bool is_none(const Value& v) { return !v || v->kind == ObjKind::None; }

bool g_initialize_called = false;  // initialize starts the devices, so a second call is told apart first

// A numpy array of this process holding `data`.
exec::ArrayRef host_array_from_bytes(const void* data, types::DType dtype, const types::Shape& shape) {
  return exec::array_from_host(data, types::ArrayType(dtype, shape), types::NamedSharding(exec::single_device_mesh(), types::PartitionSpec()),
                               true);
}

void add(ModuleObj& m, const std::string& name, interp::NativeFn fn) { m.dict.set(name, interp::make_builtin(name, std::move(fn))); }

// ---- jax.distributed

Value distributed_initialize(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "initialize",
                      {"coordinator_address=", "num_processes=", "process_id=", "local_device_ids=", "cluster_detection_method=",
                       "initialization_timeout=", "coordinator_bind_address=", "*", "service_heartbeat_interval_seconds=",
                       "service_max_missing_heartbeats=", "client_heartbeat_interval_seconds=", "client_max_missing_heartbeats=",
                       "spec_detection_method=", "heartbeat_timeout_seconds=", "shutdown_timeout_seconds="});
  if (g_initialize_called) I.raise("RuntimeError", "distributed.initialize should only be called once.");
  if (runtime::global_runtime_started())
    I.raise("RuntimeError", "jax.distributed.initialize() must be called before any JAX computations are executed.");
  const auto env = runtime::mpi::launch_environment();
  std::optional<int64_t> num_processes, process_id;
  if (!is_none(p.get("num_processes"))) num_processes = bi::index_of(I, p.get("num_processes"), "num_processes");
  if (!is_none(p.get("process_id"))) process_id = bi::index_of(I, p.get("process_id"), "process_id");
  if (env.under_mpirun) {
    // Open MPI's environment decides, as JAX's cluster detection does; explicit values must agree.
    if (num_processes && *num_processes != env.size)
      I.raise("ValueError", fmt::format("num_processes={} but mpirun started {} processes", *num_processes, env.size));
    if (process_id && *process_id != env.rank)
      I.raise("ValueError", fmt::format("process_id={} but Open MPI gives this process rank {}", *process_id, env.rank));
    num_processes = env.size;
    process_id = env.rank;
  } else {
    if (is_none(p.get("coordinator_address")) && !std::getenv("JAX_COORDINATOR_ADDRESS"))
      I.raise("ValueError", "coordinator_address should be defined.");
    if (!num_processes) I.raise("ValueError", "Number of processes must be defined.");
    if (!process_id) I.raise("ValueError", "The process id of the current process must be defined.");
    if (*num_processes != 1)
      I.raise("RuntimeError", fmt::format("shard joins processes through Open MPI: start all {} of them with "
                                          "`mpirun -np {} shard --devices N program.shard` (coordinator_address is not needed)",
                                          *num_processes, *num_processes));
    if (*process_id != 0) I.raise("ValueError", fmt::format("process_id={} is out of range for 1 process", *process_id));
  }
  if (Value ids = p.get("local_device_ids"); !is_none(ids)) {
    std::vector<Value> list = ids->kind == ObjKind::Int ? std::vector<Value>{ids} : I.to_vector(ids);
    if (list.empty()) I.raise("ValueError", "local_device_ids must name at least one device");
    if (!device_count_forced()) set_config_device_count(static_cast<int>(list.size()));
  }
  g_initialize_called = true;
  if (*num_processes > 1) {
    guarded(I, [&] {
      auto [size, rank] = runtime::mpi::initialize();
      runtime::set_process_layout(rank, size);
      return interp::none();
    });
  }
  guarded(I, [&] {
    ensure_device_runtime();
    // Every process must have the same number of devices (the layout assumes it).
    if (runtime::mpi::initialized())
      runtime::mpi::world().agree(fmt::format("jax.distributed.initialize with {} local devices", local_device_count()),
                                  runtime::collective_timeout());
    return interp::none();
  });
  return interp::none();
}

// ---- jax.experimental.multihost_utils

// Applies `fn` to every leaf of `tree` (jax.tree.map).
Value map_leaves(Interp& I, const Value& tree, interp::NativeFn fn) {
  Value jax = I.import_module("jax", I.current_loc());
  Value tree_util = I.getattr(jax, "tree_util");
  return I.call(I.getattr(tree_util, "tree_map"), {interp::make_builtin("leaf", std::move(fn)), tree});
}

// The value of a leaf as a host (numpy) array of this process.
exec::ArrayRef host_leaf(Interp& I, const Value& v) {
  if (auto* arr = as_array(v)) return arr->array;
  return host_array_from_python(I, v, std::nullopt);
}

// A global array's full value in every process: resharded to replicated (collectives across
// processes), then read locally.
Value gathered_global(Interp& I, const exec::ArrayRef& arr) {
  const auto& mesh = arr->sharding.mesh();
  auto rep = types::PartitionSpec::replicated(arr->type.rank());
  auto t = types::ArrayType::from_sharding(arr->type.dtype(), arr->type.shape(), types::NamedSharding(mesh, rep), {}, arr->type.weak_type());
  auto full = guarded(I, [&] { return exec::reshard_array(arr, mesh, rep, t); });
  auto bytes = exec::array_to_host(*full);
  return wrap(host_array_from_bytes(bytes.data(), arr->type.dtype(), arr->type.shape()), true);
}

// Every process's `local` stacked along a new axis 0 (or concatenated along axis 0 if tiled).
Value allgather_host(Interp& I, const exec::ArrayRef& local, bool tiled) {
  auto bytes = exec::array_to_host(*local);
  const int n = process_count();
  types::Shape shape = local->type.shape();
  std::vector<uint8_t> all(bytes.size() * static_cast<size_t>(n));
  if (n == 1) all = bytes;
  else
    guarded(I, [&] {
      auto& world = runtime::mpi::world();
      world.agree(fmt::format("process_allgather {}[{}]", types::dtype_name(local->type.dtype()), fmt::join(shape, ",")),
                  runtime::collective_timeout());
      world.allgather(bytes.data(), all.data(), bytes.size(), "process_allgather", runtime::collective_timeout());
      return interp::none();
    });
  if (tiled) {
    if (shape.empty()) I.raise("ValueError", "process_allgather(tiled=True) needs arrays of at least one dimension");
    shape[0] *= n;
  } else {
    shape.insert(shape.begin(), n);
  }
  return wrap(host_array_from_bytes(all.data(), local->type.dtype(), shape), true);
}

Value process_allgather(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "process_allgather", {"in_tree", "tiled="});
  const bool tiled = !is_none(p.get("tiled")) && I.truthy(p.get("tiled"));
  return map_leaves(I, p.get("in_tree"), [tiled](Interp& I2, CallArgs& la) -> Value {
    Value leaf = la.args.at(0);
    if (auto* arr = as_array(leaf); arr && !arr->host && !arr->array->is_fully_addressable()) return gathered_global(I2, arr->array);
    return allgather_host(I2, host_leaf(I2, leaf), tiled);
  });
}

Value sync_global_devices(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "sync_global_devices", {"name"});
  const std::string name = bi::str_arg(I, p.get("name"), "sync_global_devices");
  if (process_count() > 1)
    guarded(I, [&] {
      runtime::mpi::world().agree("sync_global_devices " + name, runtime::collective_timeout());
      return interp::none();
    });
  return interp::none();
}

Value broadcast_one_to_all(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "broadcast_one_to_all", {"in_tree", "is_source="});
  const bool is_source = is_none(p.get("is_source")) ? process_index() == 0 : I.truthy(p.get("is_source"));
  return map_leaves(I, p.get("in_tree"), [is_source](Interp& I2, CallArgs& la) -> Value {
    auto local = host_leaf(I2, la.args.at(0));
    if (process_count() == 1) return wrap(host_array_from_bytes(exec::array_to_host(*local).data(), local->type.dtype(), local->type.shape()), true);
    auto bytes = exec::array_to_host(*local);
    const int n = process_count();
    std::vector<uint8_t> all(bytes.size() * static_cast<size_t>(n));
    std::vector<uint8_t> flags(static_cast<size_t>(n));
    uint8_t mine = is_source ? 1 : 0;
    guarded(I2, [&] {
      auto& world = runtime::mpi::world();
      world.agree(fmt::format("broadcast_one_to_all {}[{}]", types::dtype_name(local->type.dtype()), fmt::join(local->type.shape(), ",")),
                  runtime::collective_timeout());
      world.allgather(&mine, flags.data(), 1, "broadcast_one_to_all", runtime::collective_timeout());
      world.allgather(bytes.data(), all.data(), bytes.size(), "broadcast_one_to_all", runtime::collective_timeout());
      return interp::none();
    });
    int source = -1;
    for (int q = 0; q < n && source < 0; ++q)
      if (flags[static_cast<size_t>(q)]) source = q;
    if (source < 0) I2.raise("ValueError", "broadcast_one_to_all: no process has is_source=True");
    return wrap(host_array_from_bytes(all.data() + bytes.size() * static_cast<size_t>(source), local->type.dtype(), local->type.shape()),
                true);
  });
}

// host_local_array_to_global_array(local_inputs, global_mesh, pspecs): each leaf is this
// process's part of a global array laid out by its spec (a tree prefix of the inputs).
Value host_local_array_to_global_array(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "host_local_array_to_global_array", {"local_inputs", "global_mesh", "pspecs"});
  Value jax = I.import_module("jax", I.current_loc());
  Value sharding_cls = I.getattr(I.getattr(jax, "sharding"), "NamedSharding");
  Value make = I.getattr(jax, "make_array_from_process_local_data");
  Value mesh = p.get("global_mesh");
  Value tree_util = I.getattr(jax, "tree_util");
  // The specs are a prefix of the inputs: broadcast them to the leaves' positions.
  Value pair = interp::make_builtin("leaf", [mesh, sharding_cls, make](Interp& I2, CallArgs& la) -> Value {
    Value spec = la.args.at(0), leaf = la.args.at(1);
    return I2.call(make, {I2.call(sharding_cls, {mesh, spec}), leaf});
  });
  Value is_leaf = interp::make_builtin("is_spec", [](Interp& I2, CallArgs& la) -> Value {
    return interp::make_bool(la.args.at(0)->cls == spec_class() || la.args.at(0)->kind == ObjKind::None);
  });
  interp::CallArgs args;
  args.args = {pair, p.get("pspecs"), p.get("local_inputs")};
  args.kwargs.emplace_back("is_leaf", is_leaf);
  return I.call(I.getattr(tree_util, "tree_map"), args);
}

// global_array_to_host_local_array(global_inputs, global_mesh, pspecs): this process's part of
// each global array, as a host-local array.
Value global_array_to_host_local_array(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "global_array_to_host_local_array", {"global_inputs", "global_mesh", "pspecs"});
  return map_leaves(I, p.get("global_inputs"), [](Interp& I2, CallArgs& la) -> Value {
    auto* arr = as_array(la.args.at(0));
    if (!arr || arr->host) return la.args.at(0);
    const auto& g = *arr->array;
    return guarded(I2, [&] {
      auto region = exec::local_region(g.sharding, g.type.shape());
      auto bytes = exec::local_region_to_host(g, region);
      return wrap(host_array_from_bytes(bytes.data(), g.type.dtype(), region.size), false);
    });
  });
}

void fill_distributed(Interp&, ModuleObj& m) {
  add(m, "initialize", distributed_initialize);
  add(m, "shutdown", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "shutdown", {});
    return interp::none();  // processes leave together when their programs end (runtime/mpi_transport)
  });
  add(m, "is_initialized", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "is_initialized", {});
    return interp::make_bool(g_initialize_called);
  });
}

void fill_multihost_utils(Interp&, ModuleObj& m) {
  add(m, "process_allgather", process_allgather);
  add(m, "sync_global_devices", sync_global_devices);
  add(m, "broadcast_one_to_all", broadcast_one_to_all);
  add(m, "host_local_array_to_global_array", host_local_array_to_global_array);
  add(m, "global_array_to_host_local_array", global_array_to_host_local_array);
}

}  // namespace

void register_distributed_modules() {
  Interp::register_builtin_module("jax.distributed", fill_distributed);
  Interp::register_builtin_module("jax.experimental.multihost_utils", fill_multihost_utils);
}

}  // namespace shard::api
