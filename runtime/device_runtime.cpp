#include "runtime/device_runtime.hpp"

#include "runtime/device_buffer.hpp"
#include "runtime/process_layout.hpp"

#include <atomic>
#include <deque>
#include <stdexcept>

namespace shard::runtime {

namespace {
thread_local int tls_device = -1;
std::atomic<bool> g_running[kMaxDevices];

// Counts down device completions for one launch; the host waits on it.
struct LaunchLatch {
  std::mutex mu;
  std::condition_variable cv;
  int pending = 0;
  std::vector<std::exception_ptr> errors;  // indexed by position in the launch list
  void done(size_t slot, std::exception_ptr err) {
    std::lock_guard<std::mutex> lock(mu);
    errors[slot] = std::move(err);
    if (--pending == 0) cv.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return pending == 0; });
  }
};
}  // namespace

class DeviceThread {
 public:
  explicit DeviceThread(int id) : id_(id), thread_([this] { loop(); }) {}
  ~DeviceThread() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  void post(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(std::move(task));
    }
    cv_.notify_one();
  }

 private:
  void loop() {
    tls_device = id_;
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stop requested and nothing left
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      task();
    }
  }
  int id_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stop_ = false;
  std::thread thread_;  // last: started after the state above exists
};

DeviceRuntime::DeviceRuntime(int num_local, int first_device, int num_global)
    : first_device_(first_device), num_global_(num_global > 0 ? num_global : first_device + num_local) {
  if (num_local < 1 || num_global_ > 1024 || first_device < 0 || first_device + num_local > num_global_)
    throw std::invalid_argument("device count must be between 1 and 1024, got " + std::to_string(num_global_));
  threads_.reserve(num_local);
  for (int i = 0; i < num_local; ++i) threads_.push_back(std::make_unique<DeviceThread>(first_device + i));
}

DeviceRuntime::~DeviceRuntime() = default;

int DeviceRuntime::current_device() { return tls_device; }

void DeviceRuntime::launch(const std::vector<int>& devices, const std::function<void(int)>& fn) {
  std::vector<int> local;
  for (int d : devices) {
    if (d < 0 || d >= size()) throw std::out_of_range("no device with id " + std::to_string(d));
    if (is_local(d)) local.push_back(d);
  }
  if (local.empty()) return;
  if (tls_device >= 0) throw std::logic_error("internal error: launch from a device thread would deadlock");
  LaunchLatch latch;
  latch.pending = static_cast<int>(local.size());
  latch.errors.resize(local.size());
  for (int d : local) g_running[d].store(true, std::memory_order_release);
  for (size_t slot = 0; slot < local.size(); ++slot) {
    int d = local[slot];
    threads_[d - first_device_]->post([&latch, &fn, d, slot] {
      std::exception_ptr err;
      try {
        fn(d);
      } catch (...) {
        err = std::current_exception();
      }
      g_running[d].store(false, std::memory_order_release);
      // Moved, not copied: the device thread keeps no reference, so the host, which rethrows
      // the error, frees it after reading it. A copy released here could be the last one and
      // free the error while the host reads it under an ordering only libstdc++'s (atomic,
      // uninstrumented) reference count gives: TSan's report in shard_map/skipped_collective.
      latch.done(slot, std::move(err));
    });
  }
  latch.wait();
  for (auto& e : latch.errors)
    if (e) std::rethrow_exception(e);
}

void DeviceRuntime::launch_all(const std::function<void(int)>& fn) {
  std::vector<int> all(local_size());
  for (int i = 0; i < local_size(); ++i) all[i] = first_device_ + i;
  launch(all, fn);
}

namespace {
volatile int g_cancel = 0;  // a plain int: written from a signal handler, read by compiled code
}

bool device_running(int device) {
  return device >= 0 && device < kMaxDevices && g_running[device].load(std::memory_order_acquire);
}

void request_cancel() { g_cancel = 1; }
bool cancel_requested() { return g_cancel != 0; }
void clear_cancel() { g_cancel = 0; }
void throw_if_cancelled() {
  if (g_cancel) throw Interrupted();
}
const volatile int* cancel_flag_address() { return &g_cancel; }

namespace {
std::mutex g_mu;
std::unique_ptr<DeviceRuntime> g_runtime;
}  // namespace

DeviceRuntime& global_runtime(int n) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_runtime) {
    const int local = n > 0 ? n : 8;
    const ProcessLayout& layout = process_layout();
    if (local * layout.process_count > kMaxDevices)
      throw std::invalid_argument("device count must be between 1 and 1024 over all processes, got " +
                                  std::to_string(local) + " per process x " + std::to_string(layout.process_count) +
                                  " processes");
    detail::set_local_device_count(local);
    g_runtime = std::make_unique<DeviceRuntime>(local, layout.process_index * local, local * layout.process_count);
  }
  return *g_runtime;
}

bool global_runtime_started() {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_runtime != nullptr;
}

}  // namespace shard::runtime
