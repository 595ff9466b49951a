// The PartitionSpec a program's outputs report in `x.sharding`, as JAX chooses it (pxla's
// _maybe_get_and_check_out_shardings and maybe_recover_user_shardings). The partitioner's
// layout is always full-rank; JAX reports:
//  - a sharding the user gave for the output (jit's out_shardings) as written;
//  - on a mesh with Explicit axes, the output's type (full rank), unless the compiler sharded
//    it over Auto axes too (then as parsed below);
//  - otherwise the first committed input's sharding as written, when the output has its rank
//    and the same layout; else the compiler's layout parsed back into a spec, which drops the
//    trailing unsharded dims (parse_flatten_op_sharding: P() when replicated).
#pragma once
#include <optional>
#include <vector>

#include "exec/array.hpp"

namespace shard::api {

// An input's sharding as the user wrote it and the input's rank (JAX compares ranks).
struct WrittenSharding {
  types::NamedSharding sharding;
  size_t rank = 0;
};

// The first input placed on a mesh (committed), in argument order.
std::optional<WrittenSharding> first_committed_sharding(const std::vector<exec::ArrayRef>& inputs);

// The layout without its trailing unsharded dims: PartitionSpec('x', None) -> ('x',).
types::PartitionSpec without_trailing_none(const types::PartitionSpec& spec);

// The spec JAX reports for output `out` (its sharding holds the partitioner's layout).
types::PartitionSpec reported_spec(const exec::Array& out, const std::optional<WrittenSharding>& first_input);

// `a` with its sharding's spec replaced (same buffers); `a` itself when the spec is unchanged.
exec::ArrayRef with_reported_spec(const exec::ArrayRef& a, const types::PartitionSpec& spec);

// Applies reported_spec to every output; `given[k]`, when set, is output k's spec as the user
// gave it (jit's out_shardings).
void report_output_specs(std::vector<exec::ArrayRef>& outs, const std::optional<WrittenSharding>& first_input,
                         const std::vector<std::optional<types::PartitionSpec>>& given = {});

}  // namespace shard::api
