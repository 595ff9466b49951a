#include "spmd/pipeline.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "spmd/fusion.hpp"

namespace shard::spmd {

void run_device_passes(ir::Function& local) {
  fuse_elementwise(local);  // elementwise chains -> one loop each (spmd/fusion.hpp)
  // A pass that breaks the program is a bug in shard: say so before anything is lowered.
  auto problems = ir::verify(local);
  if (!problems.empty())
    throw std::logic_error(fmt::format("internal error: per-device passes produced invalid IR: {}\n{}", fmt::join(problems, "; "),
                                       ir::print(local)));
}

}  // namespace shard::spmd
