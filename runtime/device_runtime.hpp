// DeviceRuntime: this process's simulated devices, each a thread that owns its work. The host
// thread launches a per-device function on a set of devices and waits for all of them; array
// arithmetic never runs on the host (interpreter) thread. Waiting is by condition variable,
// never by long spinning: 8 device threads share 2 cores here.
//
// Device ids are global (runtime/process_layout.hpp): with several processes, this process
// has threads only for its own devices, and a launch on a list of global devices runs the
// local ones — each process runs its part of the same program.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace shard::runtime {

class DeviceThread;

class DeviceRuntime {
 public:
  // `num_local` device threads for the global ids first_device .. first_device+num_local-1,
  // out of `num_global` devices in all.
  DeviceRuntime(int num_local, int first_device = 0, int num_global = 0);
  ~DeviceRuntime();
  DeviceRuntime(const DeviceRuntime&) = delete;
  DeviceRuntime& operator=(const DeviceRuntime&) = delete;

  int size() const { return num_global_; }  // devices of all processes
  int local_size() const { return static_cast<int>(threads_.size()); }
  int first_device() const { return first_device_; }
  bool is_local(int device) const { return device >= first_device_ && device < first_device_ + local_size(); }

  // Runs fn(device_id) on the thread of each listed device of this process (other processes'
  // devices are skipped: they run their part there) and waits for all to finish.
  // If any device throws, the first error (lowest device id) is rethrown here once every
  // device has returned, so no device is left running on freed state.
  void launch(const std::vector<int>& devices, const std::function<void(int)>& fn);
  void launch_all(const std::function<void(int)>& fn);  // every local device

  // The id of the device whose thread is calling, or -1 on a non-device thread.
  static int current_device();

 private:
  std::vector<std::unique_ptr<DeviceThread>> threads_;  // [global id - first_device_]
  int first_device_ = 0;
  int num_global_ = 0;
};

// Interrupts (Ctrl-C): the CLI's SIGINT handler requests a cancel (async-signal-safe); device
// code polls it — between steps, on every iteration of a loop, while waiting at a collective —
// and stops with Interrupted, which the host turns into KeyboardInterrupt. The host clears it
// when it raises.
struct Interrupted : std::runtime_error {
  Interrupted() : std::runtime_error("interrupted") {}
};
void request_cancel();
bool cancel_requested();
void clear_cancel();
void throw_if_cancelled();
// The flag itself, for compiled loops that poll it (nonzero: stop).
const volatile int* cancel_flag_address();

// Whether a device of this process is running a launched task (set for every device of a
// launch before any starts): a collective waiting for a device that is not has waited for a
// device that finished its program without executing it.
bool device_running(int device);

// The process-wide runtime, created on first use with `n` local devices placed by the process
// layout (later calls pass 0 to mean "whatever exists"). Device count comes from --devices /
// SHARD_DEVICES / XLA_FLAGS through the CLI.
DeviceRuntime& global_runtime(int n = 0);
bool global_runtime_started();

}  // namespace shard::runtime
