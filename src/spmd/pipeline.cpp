#include "spmd/pipeline.hpp"

#include "spmd/fusion.hpp"

namespace shard::spmd {

void run_device_passes(ir::Function& local) {
  fuse_elementwise(local);  // elementwise chains -> one loop each (spmd/fusion.hpp)
}

}  // namespace shard::spmd
