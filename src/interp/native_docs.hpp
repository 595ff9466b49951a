// Docstrings of native functions: what help(), __doc__ and __module__ show for the natives
// of built-in modules. The tables live with the modules' API (src/api/modules/docstrings_*);
// a hook run after each built-in module's init attaches them, so the modules' registration
// code stays as it is. Kept beside the objects (not in BuiltinObj) because most natives have
// none.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "interp/value.hpp"

namespace shard::interp {

class Interp;

struct NativeDoc {
  std::string module;     // "jax.numpy"
  std::string kind;       // how help() names it: "function", "built-in function"
  std::string signature;  // "sum(a, axis=None, ...)"; empty when undocumented
  std::string text;       // the docstring; empty when undocumented (__doc__ is None)
};

// Runs after every built-in module's init, in the order added.
void add_builtin_module_hook(std::function<void(Interp&, ModuleObj&)> hook);
void run_builtin_module_hooks(Interp& I, ModuleObj& m);

// Attaches `doc` to the native `fn` (replacing any); the entry is dropped with the object.
void set_native_doc(const Value& fn, std::shared_ptr<const NativeDoc> doc);
// The doc attached to `fn`, or null.
std::shared_ptr<const NativeDoc> native_doc(const Object* fn);

}  // namespace shard::interp
