// The reduction monoids, declared once: reductions (reduce_sum, argmax, cumsum), the
// all-reduce collectives (psum, pmax) and the runtime's collective kernels all name them
// from here. Header-only and dependency-free so the runtime can use it too.
#pragma once
#include <cstdint>

namespace shard::ir {

// X(Enum, "name" (reduce_<name>, cum<name>, arg<name>), "all-reduce primitive")
#define SHARD_REDUCE_KINDS(X) \
  X(Sum, "sum", "psum")       \
  X(Max, "max", "pmax")       \
  X(Min, "min", "pmin")       \
  X(Prod, "prod", "pprod")    \
  X(And, "and", "pand")       \
  X(Or, "or", "por")

enum class ReduceKind : uint8_t {
#define X(e, n, p) e,
  SHARD_REDUCE_KINDS(X)
#undef X
};

// "sum", "max", ...
constexpr const char* reduce_kind_name(ReduceKind k) {
  switch (k) {
#define X(e, n, p) case ReduceKind::e: return n;
    SHARD_REDUCE_KINDS(X)
#undef X
  }
  return "?";
}

// The all-reduce primitive over this monoid: "psum", "pmax", ...
constexpr const char* all_reduce_name(ReduceKind k) {
  switch (k) {
#define X(e, n, p) case ReduceKind::e: return p;
    SHARD_REDUCE_KINDS(X)
#undef X
  }
  return "?";
}

}  // namespace shard::ir
