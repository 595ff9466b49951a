// jit's call arguments: splitting a call into static values and the dynamic pytree, and
// turning the dynamic leaves into device arrays (with JAX's error for non-array leaves).
#pragma once
#include <string>
#include <vector>

#include "exec/array.hpp"
#include "interp/interp.hpp"

namespace shard::api {

struct JitOptions {
  std::vector<int64_t> static_argnums;
  std::vector<std::string> static_argnames;
  interp::Value in_shardings, out_shardings;  // null when absent
};

// The call split into static values and the dynamic part (one pytree).
struct CallParts {
  std::vector<interp::Value> statics;
  std::vector<bool> pos_static;  // per positional argument
  std::vector<bool> kw_static;   // per keyword argument
  interp::Value dynamic;         // (tuple of dynamic positionals, dict of dynamic kwargs)
};

CallParts split_call(interp::Interp& I, const interp::Value& fun, const JitOptions& opts, const interp::CallArgs& a);
// Rebuilds the call's arguments with the dynamic part replaced by `dynamic`.
interp::CallArgs rebuild_call(interp::Interp& I, const interp::CallArgs& a, const CallParts& parts, const interp::Value& dynamic);
// The dynamic leaves as device arrays (Python scalars weak-typed).
std::vector<exec::ArrayRef> leaf_arrays(interp::Interp& I, const interp::Value& fun, const interp::CallArgs& a, const CallParts& parts,
                                        const std::vector<interp::Value>& values);

}  // namespace shard::api
