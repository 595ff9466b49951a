// ProcessLayout: where the devices live when several processes form one global device set
// (JAX's multi-controller model). Process p of P owns the D devices p*D .. p*D+D-1; every
// process runs the same program on its own devices, and collectives whose groups span
// processes go over MPI (runtime/mpi_transport). A single process is the layout {0, 1, D}.
#pragma once

namespace shard::runtime {

struct ProcessLayout {
  int process_index = 0;
  int process_count = 1;
  int local_device_count = 0;  // D, the same in every process; 0 until the runtime starts

  int global_device_count() const { return process_count * local_device_count; }
  int first_local_device() const { return process_index * local_device_count; }
  int process_of(int device) const { return local_device_count > 0 ? device / local_device_count : 0; }
  bool is_local(int device) const { return process_of(device) == process_index; }
};

// The layout of this process (read freely; written once, before the device runtime starts).
const ProcessLayout& process_layout();
// Sets index and count (jax.distributed.initialize); the local device count comes with the
// runtime. Throws std::logic_error once devices have started.
void set_process_layout(int process_index, int process_count);

// The first device of this process: where arrays without a sharding live (JAX's default
// device is jax.local_devices()[0]).
int default_device();

namespace detail {
void set_local_device_count(int n);  // by global_runtime() when it starts the devices
}

}  // namespace shard::runtime
