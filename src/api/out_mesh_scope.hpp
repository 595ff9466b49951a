// out_sharding=NamedSharding(mesh, ...) given with no mesh in context: the sharding's mesh is
// the context mesh for the op while it is traced, so the rule accepts it and the result is
// placed on its devices (jnp's creation functions, jax.random's samplers).
#pragma once
#include <variant>

#include "sharding/common.hpp"
#include "trace/trace.hpp"

namespace shard::api {

struct OutMeshScope {
  bool pushed = false;
  explicit OutMeshScope(const sharding::OptOutSharding& s) {
    auto* ns = s ? std::get_if<types::NamedSharding>(&*s) : nullptr;
    auto& ctx = trace::MeshContext::get();
    if (ns && ns->is_concrete() && !ctx.concrete()) {
      ctx.push(ns->mesh());
      pushed = true;
    }
  }
  ~OutMeshScope() {
    if (pushed) trace::MeshContext::get().pop();
  }
  OutMeshScope(const OutMeshScope&) = delete;
  OutMeshScope& operator=(const OutMeshScope&) = delete;
};

}  // namespace shard::api
