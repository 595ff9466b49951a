#include "interp/native_docs.hpp"

#include <mutex>
#include <unordered_map>
#include <vector>

namespace shard::interp {

namespace {

std::vector<std::function<void(Interp&, ModuleObj&)>>& hooks() {
  static std::vector<std::function<void(Interp&, ModuleObj&)>> h;
  return h;
}

struct DocEntry {
  std::weak_ptr<Object> owner;  // an address is reused once its object is freed
  std::shared_ptr<const NativeDoc> doc;
};

std::mutex docs_mu;
std::unordered_map<const Object*, DocEntry>& docs() {
  static std::unordered_map<const Object*, DocEntry> d;
  return d;
}

}  // namespace

void add_builtin_module_hook(std::function<void(Interp&, ModuleObj&)> hook) { hooks().push_back(std::move(hook)); }

void run_builtin_module_hooks(Interp& I, ModuleObj& m) {
  for (auto& hook : hooks()) hook(I, m);
}

void set_native_doc(const Value& fn, std::shared_ptr<const NativeDoc> doc) {
  std::lock_guard<std::mutex> lock(docs_mu);
  auto& table = docs();
  // Drop entries whose objects are gone before the table grows (interpreters are recreated
  // by the REPL's :reset and by the test runner).
  if (table.size() > 4096 && table.size() % 1024 == 0)
    for (auto it = table.begin(); it != table.end();) it = it->second.owner.expired() ? table.erase(it) : std::next(it);
  table[fn.get()] = DocEntry{fn, std::move(doc)};
}

std::shared_ptr<const NativeDoc> native_doc(const Object* fn) {
  std::lock_guard<std::mutex> lock(docs_mu);
  auto it = docs().find(fn);
  if (it == docs().end()) return nullptr;
  auto owner = it->second.owner.lock();
  if (owner.get() != fn) return nullptr;
  return it->second.doc;
}

}  // namespace shard::interp
