// The public names of JAX's modules and of numpy, as data read from their sources
// (jax_public_names.cpp, written by scripts/gen_jax_public_names.py). Shard's modules are
// live objects; this table says which of JAX's names they lack, so that a missing name can
// be reported as "not supported by shard yet" rather than as a typo.
#pragma once

#include <compare>
#include <span>
#include <string_view>

namespace shard::api {

struct PublicName {
  std::string_view module;  // "jax.numpy"
  std::string_view name;    // "hfft"; empty for the module's own row
  auto operator<=>(const PublicName&) const = default;
};

// Sorted by (module, name).
std::span<const PublicName> public_names_table();

// Whether JAX (0.6 or 0.10) or numpy has the module `module` ("jax.image").
bool is_public_module(std::string_view module);
// Whether that module has the public attribute `name`.
bool has_public_name(std::string_view module, std::string_view name);

// Makes the interpreter report a name of these modules that shard lacks as unsupported
// (AttributeError, ImportError, ModuleNotFoundError).
void install_unsupported_name_hints();

}  // namespace shard::api
