// How many simulated devices the process has, decided at the first device use (as JAX
// decides at backend initialisation):
//   1. `--devices N` on the command line (the CLI exports it as SHARD_DEVICES_FORCED, or calls
//      set_forced_device_count),
//   2. jax.config.update('jax_num_cpu_devices', N),
//   3. the script's `os.environ['XLA_FLAGS'] = '--xla_force_host_platform_device_count=N'`
//      (os.environ writes call setenv, so getenv sees them),
//   4. SHARD_DEVICES,
//   5. 8.
#pragma once
#include <vector>

namespace shard::runtime {
class DeviceRuntime;
}

namespace shard::api {

// A command-line device count that beats XLA_FLAGS (0 = none).
void set_forced_device_count(int n);
// jax.config.update('jax_num_cpu_devices', n): after the command line, before XLA_FLAGS.
void set_config_device_count(int n);
// The command line fixed the count (--devices): nothing later changes it.
bool device_count_forced();

// The count the rules above give now (reads the environment each time until the runtime
// starts; afterwards the runtime's size).
int resolve_device_count();

// Starts the device runtime with resolve_device_count() devices if it is not running yet,
// and returns it. Every binding that touches devices calls this first.
runtime::DeviceRuntime& ensure_device_runtime();

// The number of devices of the running (or about to start) runtime: of all processes
// (jax.device_count) and of this one (jax.local_device_count).
int device_count();
int local_device_count();
// This process's devices (global ids), and whether a device is one of them.
std::vector<int> local_device_ids();
bool is_local_device(int id);
int process_index();
int process_count();

}  // namespace shard::api
