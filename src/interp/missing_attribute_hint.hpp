// A hook for the message of a name a module lacks but the library it mirrors has
// ("jax.numpy", "hfft": JAX has it, shard does not yet). Attribute reads on modules,
// `from M import name` and `import M.name` consult it; the API layer sets it
// (api/modules/unsupported_names.cpp). Without a hint the error is Python's.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace shard::interp {

using MissingAttributeHint =
    std::function<std::optional<std::string>(const std::string& module, std::string_view name)>;

void set_missing_attribute_hint(MissingAttributeHint hint);
// The hint's message for module.name, or nullopt.
std::optional<std::string> missing_attribute_hint(const std::string& module, std::string_view name);

}  // namespace shard::interp
