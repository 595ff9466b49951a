// Missing names of the built-in jax and numpy modules: a name JAX (or numpy) has but shard's
// live module lacks is reported as not supported yet, pointing at docs/api_support.md; any
// other name keeps Python's error (with its "Did you mean" suggestion from the module's dir()).
#include <algorithm>
#include <fmt/format.h>

#include "api/modules/jax_public_names.hpp"
#include "interp/missing_attribute_hint.hpp"

namespace shard::api {

bool is_public_module(std::string_view module) { return has_public_name(module, ""); }

bool has_public_name(std::string_view module, std::string_view name) {
  auto table = public_names_table();
  return std::binary_search(table.begin(), table.end(), PublicName{module, name});
}

void install_unsupported_name_hints() {
  interp::set_missing_attribute_hint(
      [](const std::string& module, std::string_view name) -> std::optional<std::string> {
        if (name.empty() || name.front() == '_' || !has_public_name(module, name)) return std::nullopt;
        return fmt::format("{}.{} is not supported by shard yet (see docs/api_support.md)", module, name);
      });
}

}  // namespace shard::api
