#include "runtime/process_layout.hpp"

#include <stdexcept>
#include <string>

namespace shard::runtime {

namespace {
ProcessLayout g_layout;
}

const ProcessLayout& process_layout() { return g_layout; }

void set_process_layout(int process_index, int process_count) {
  if (g_layout.local_device_count > 0)
    throw std::logic_error("the process layout cannot change once devices have started");
  if (process_count < 1 || process_index < 0 || process_index >= process_count)
    throw std::invalid_argument("process " + std::to_string(process_index) + " of " + std::to_string(process_count) +
                                " is not a valid process index");
  g_layout.process_index = process_index;
  g_layout.process_count = process_count;
}

int default_device() { return g_layout.first_local_device(); }

namespace detail {
void set_local_device_count(int n) { g_layout.local_device_count = n; }
}  // namespace detail

}  // namespace shard::runtime
