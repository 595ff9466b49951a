// Which JAX's behaviour shard shows where JAX changed after 0.6 (the seeds' version, the
// default): `Current` follows JAX 0.10 — jax.make_mesh's axis types default to Explicit,
// jax.typeof prints `float32[8@X,4@Y]` (no ShapedArray(...)), varying axes print `{V:i}`.
// Set by --jax-version, SHARD_JAX_VERSION or jax.config.update('shard_jax_version', ...).
#pragma once
#include <optional>
#include <string_view>

namespace shard::types {

enum class JaxVersion { V0_6, Current };

JaxVersion jax_version();
void set_jax_version(JaxVersion v);
// "0.6" / "0.6.0" -> V0_6; "current" / "latest" / "0.10" / "0.10.0" -> Current.
std::optional<JaxVersion> parse_jax_version(std::string_view s);
const char* jax_version_string(JaxVersion v);  // jax.__version__: "0.6.0" / "0.10.0"

}  // namespace shard::types
