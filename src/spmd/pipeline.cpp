#include "spmd/pipeline.hpp"

#include "spmd/fusion.hpp"
#include "spmd/lower_complex.hpp"
#include "spmd/moments.hpp"
#include "spmd/row_fusion.hpp"

namespace shard::spmd {

void run_device_passes(ir::Function& local) {
  lower_complex(local);     // complex values as float arrays of their parts (spmd/lower_complex.hpp)
  fuse_moments(local);      // var over a sharded dim: both sums in one pass (spmd/moments.hpp)
  fuse_rows(local);         // reductions with their producers and consumers -> one row loop (spmd/row_fusion.hpp)
  fuse_elementwise(local);  // elementwise chains -> one loop each (spmd/fusion.hpp)
}

}  // namespace shard::spmd
