// The docstring tables of src/api/modules/docstrings_*.cpp: every entry names an object of
// its module that shows the entry's text as __doc__ (a misspelt name would document
// nothing), its signature names that object, and a documented native says its module.
#include <catch2/catch.hpp>

#include <string>

#include "api/modules/docstrings.hpp"
#include "api/modules/registration.hpp"
#include "interp/interp.hpp"

using namespace shard::interp;

namespace {

std::string str_or_empty(const std::optional<Value>& v) {
  return v && is(*v, ObjKind::Str) ? as<StrObj>(*v).v : std::string("<not a str>");
}

}  // namespace

TEST_CASE("docstring tables: each entry documents an existing API object", "[docstrings]") {
  shard::api::register_api_modules();
  Interp I;
  size_t checked = 0;
  for (auto table : {shard::api::jax_docs(), shard::api::jnp_docs(), shard::api::lax_docs(), shard::api::random_docs()})
    for (const auto& d : table) {
      const std::string name = d.name;
      const std::string module = name.substr(0, name.rfind('.')), attr = name.substr(name.rfind('.') + 1);
      INFO(name);
      auto obj = I.try_getattr(I.import_module(module, shard::ast::Loc{}), attr);
      REQUIRE(obj);
      CHECK(str_or_empty(I.try_getattr(*obj, "__doc__")) == d.text);
      const std::string sig = d.signature;
      CHECK((sig == attr || sig.rfind(attr + "(", 0) == 0));
      if (is(*obj, ObjKind::Builtin)) CHECK(str_or_empty(I.try_getattr(*obj, "__module__")) == module);
      ++checked;
    }
  CHECK(checked > 150);
}
