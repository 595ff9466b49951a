#include "api/modules/docstrings.hpp"

#include <map>
#include <memory>
#include <string>

#include "interp/interp.hpp"
#include "interp/native_docs.hpp"

namespace shard::api {

namespace {

using DocP = std::shared_ptr<const interp::NativeDoc>;

const std::map<std::string, DocP>& doc_table() {
  static const std::map<std::string, DocP> table = [] {
    std::map<std::string, DocP> t;
    for (auto docs : {jax_docs(), jnp_docs(), lax_docs(), random_docs()})
      for (const ApiDoc& d : docs) {
        std::string name = d.name;
        std::string module = name.substr(0, name.rfind('.'));
        t[name] = std::make_shared<interp::NativeDoc>(interp::NativeDoc{module, "function", d.signature, d.text});
      }
    return t;
  }();
  return table;
}

void attach_module_docs(interp::ModuleObj& m) {
  const auto& table = doc_table();
  for (const auto& [name, v] : m.dict.entries) {
    if (!v || name.empty() || name[0] == '_') continue;
    auto it = table.find(m.name + "." + name);
    if (v->kind == interp::ObjKind::Class) {
      auto& cls = static_cast<interp::ClassObj&>(*v);
      if (it != table.end() && !cls.dict.find("__doc__")) cls.dict.set("__doc__", interp::make_str(it->second->text));
      continue;
    }
    if (v->kind != interp::ObjKind::Builtin || static_cast<interp::BuiltinObj&>(*v).self) continue;
    auto current = interp::native_doc(v.get());
    if (it != table.end()) {
      // A documented name wins over a module-only record another module left on the same native.
      if (!current || current->text.empty()) interp::set_native_doc(v, it->second);
    } else if (!current) {
      // Undocumented: still say which module it belongs to (the first that binds it).
      interp::set_native_doc(v, std::make_shared<interp::NativeDoc>(interp::NativeDoc{m.name, "built-in function", "", ""}));
    }
  }
}

// A module's init may also add names to a submodule created before it (jax's adds
// jax.lax.with_sharding_constraint): its submodules are looked at again.
void attach_docs(interp::Interp&, interp::ModuleObj& m) {
  attach_module_docs(m);
  for (const auto& [name, v] : m.dict.entries)
    if (v && v->kind == interp::ObjKind::Module) {
      auto& sub = static_cast<interp::ModuleObj&>(*v);
      if (sub.name.rfind(m.name + ".", 0) == 0) attach_module_docs(sub);
    }
}

}  // namespace

void install_api_docstrings() { interp::add_builtin_module_hook(attach_docs); }

}  // namespace shard::api
