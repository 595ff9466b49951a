// jax.debug.visualize_array_sharding / visualize_sharding / inspect_array_sharding.
#pragma once
#include <string>

#include "interp/value.hpp"
#include "types/named_sharding.hpp"

namespace shard::api {

struct VisualizeOptions {
  bool color = false;  // rich's colours (only when stdout is a terminal)
  double scale = 1.0;
  int64_t min_width = 9, max_width = 80;
};

// The picture JAX's visualize_sharding prints for an array of `shape` laid out by
// `sharding` (a concrete NamedSharding), ending with a newline. Rank >= 3 draws one grid per
// block of the leading dims. Throws ShardingError(ValueError) for rank 0.
std::string visualize_sharding_text(const types::Shape& shape, const types::NamedSharding& sharding,
                                    const VisualizeOptions& options);

// Binds visualize_array_sharding, visualize_sharding and inspect_array_sharding into jax.debug.
void install_visualize(interp::ModuleObj& m);

}  // namespace shard::api
