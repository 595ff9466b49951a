// Interp construction, running modules, the frame stack and error helpers.
#include <cstdint>
#include <pthread.h>

#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>

#include "ast/source.hpp"
#include "grammar/parse.hpp"
#include "interp/gc.hpp"
#include "interp/interp_impl.hpp"
#include "interp/module_names.hpp"
#include "interp/missing_attribute_hint.hpp"

namespace shard::interp {

namespace {
constexpr size_t kValueStackSize = size_t(1) << 16;  // fast-slot values shared by all frames
}  // namespace

// Lowest usable address of this thread's C++ stack (with a safety margin for the error
// path); deep recursion raises RecursionError before reaching it.
thread_local char* t_stack_floor = nullptr;

char* compute_stack_floor() {
  char probe;
  // Addresses as integers: only the range is wanted, never the local itself.
  const uintptr_t here = reinterpret_cast<uintptr_t>(&probe);
  size_t size = 8u << 20;
  uintptr_t lo = here - size;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* addr = nullptr;
    size_t sz = 0;
    if (pthread_attr_getstack(&attr, &addr, &sz) == 0 && addr && sz) {
      lo = reinterpret_cast<uintptr_t>(addr);
      size = sz;
    }
    pthread_attr_destroy(&attr);
  }
  if (size > (size_t(256) << 20)) lo = here - (size_t(256) << 20);  // "unlimited" stacks
  size_t margin = size >= (size_t(4) << 20) ? (size_t(512) << 10) : size / 4;
  t_stack_floor = reinterpret_cast<char*>(lo + margin);
  return t_stack_floor;
}

std::atomic<bool> g_interrupt_requested{false};

void request_interrupt() { g_interrupt_requested.store(true, std::memory_order_relaxed); }
void Interp::clear_interrupt() { g_interrupt_requested.store(false, std::memory_order_relaxed); }

void Interp::Impl::raise_interrupt() {
  g_interrupt_requested.store(false, std::memory_order_relaxed);
  I.raise("KeyboardInterrupt", "");
}

// ---------------------------------------------------------------- construction

Interp::Interp(Options opts) : opts_(std::move(opts)), impl_(std::make_unique<Impl>(*this)) {
  static std::once_flag once;
  std::call_once(once, [] {
    init_builtin_types();
    register_host_modules();
  });
  Impl& P = *impl_;
  P.vstack.reset(new Value[kValueStackSize]);
  P.vstack_size = kValueStackSize;
  P.stack.reserve(Impl::kMaxDepth + 64);
  P.builtins_mod = std::make_shared<ModuleObj>(T().module, "builtins");
  P.builtins_mod->dict.set("__name__", make_str("builtins"));
  P.builtins_mod->dict.set("__doc__", none());
  P.modules["builtins"] = P.builtins_mod;
  // Natives raising during initialisation need a frame for current_loc().
  P.stack.push_back(TraceEntry{ast::Loc{}, "<module>"});
  init_builtins_module(*this, *P.builtins_mod);
  P.stack.pop_back();
  P.main_mod = std::make_shared<ModuleObj>(T().module, "__main__");
  P.main_mod->dict.set("__name__", make_str("__main__"));
  P.main_mod->dict.set("__doc__", none());
  P.main_mod->dict.set("__builtins__", P.builtins_mod);
  P.modules["__main__"] = P.main_mod;
}

// As CPython's finalisation: the interpreter's caches let go of what they hold, every module
// dict is emptied (which breaks the module <-> function cycles), and the collector frees the
// cycles left among the values those dicts held. Values an embedder still holds stay alive.
Interp::~Interp() {
  Impl& P = *impl_;
  // Code run by the teardown (a generator's finally block) needs a frame for its locations.
  P.stack.push_back(TraceEntry{ast::Loc{}, "<module>"});
  P.acaches.clear();
  P.gcaches.clear();
  P.new_plans.clear();
  P.handling.clear();
  // The builtins module goes last, as in CPython: a generator closed while the others are
  // emptied runs its finally blocks (CPython's behaviour at exit) and still finds `print`.
  auto empty_modules = [&](bool builtins) {
    std::vector<Value> held;
    for (auto& [name, m] : P.modules) {
      if ((m == P.builtins_mod) != builtins) continue;
      for (auto& [key, v] : m->dict.entries)
        if (v) held.push_back(std::move(v));
      m->dict.entries.clear();
      m->dict.index.clear();
    }
    release_values(held);
    while (gc::collect() > 0) {
    }
  };
  empty_modules(false);
  empty_modules(true);
  P.shutting_down = true;  // anything still alive is dropped without running more code
}

std::shared_ptr<ModuleObj> Interp::main_module() { return impl_->main_mod; }
std::shared_ptr<ModuleObj> Interp::builtins() { return impl_->builtins_mod; }
const std::vector<TraceEntry>& Interp::stack() const { return impl_->stack; }
ast::Loc Interp::current_loc() const {
  return impl_->stack.empty() ? ast::Loc{} : impl_->stack.back().loc;
}

// ---------------------------------------------------------------- errors

ClassP Interp::builtin_class(std::string_view name) {
  if (!impl_->builtins_mod) return nullptr;
  Value* v = impl_->builtins_mod->dict.find(name);
  if (v && *v && (*v)->kind == ObjKind::Class) return std::static_pointer_cast<ClassObj>(*v);
  return nullptr;
}

Value Interp::make_exception(std::string_view type, std::string msg) {
  ClassP cls = builtin_class(type);
  if (!cls) cls = builtin_class("RuntimeError");
  std::vector<Value> args;
  if (!msg.empty()) args.push_back(make_str(std::move(msg)));
  Value exc;
  if (cls) {
    exc = impl_->instantiate(cls, args, nullptr, current_loc());
  } else {  // builtins not initialised yet
    auto inst = std::make_shared<InstanceObj>(T().exception ? T().exception : T().object);
    inst->dict.set("args", make_tuple(args));
    exc = inst;
  }
  impl_->exc_info(exc);
  return exc;
}

void Interp::raise(std::string_view type, std::string msg) {
  throw PyError{make_exception(type, std::move(msg))};
}

ExcInfo& Interp::Impl::exc_info(const Value& exc) {
  static ExcInfo dummy;
  if (!is(exc, ObjKind::Instance)) {
    dummy = ExcInfo{};
    return dummy;
  }
  auto& inst = as<InstanceObj>(exc);
  if (!inst.exc) inst.exc = std::make_shared<ExcInfo>();
  return *inst.exc;
}

void Interp::Impl::note(const PyError& e) {
  if (!e.exc) return;
  ExcInfo& info = exc_info(e.exc);
  if (info.loc.line == 0 && !stack.empty()) info.loc = stack.back().loc;
  if (!info.context && !handling.empty() && handling.back().exc != e.exc) {
    // Never make a cycle in the context chain.
    const Value& ctx = handling.back().exc;
    Value walk = ctx;
    bool cycle = false;
    for (int i = 0; walk && i < 100; ++i) {
      if (walk == e.exc) {
        cycle = true;
        break;
      }
      walk = is(walk, ObjKind::Instance) && as<InstanceObj>(walk).exc ? as<InstanceObj>(walk).exc->context : nullptr;
    }
    if (!cycle) info.context = ctx;
  }
}

void Interp::Impl::raise_at(const ast::Loc& l, std::string_view type, std::string msg) {
  if (!stack.empty() && l.line) at(l);
  I.raise(type, std::move(msg));
}

void Interp::Impl::raise_value(Value exc) { throw PyError{std::move(exc)}; }

void Interp::Impl::check_stack() {
  if (stack_nearly_exhausted()) I.raise("RecursionError", "maximum recursion depth exceeded");
}

void Interp::Impl::name_error(const std::string& name, const Frame* f) {
  Value exc = I.make_exception("NameError", "name '" + name + "' is not defined");
  if (is(exc, ObjKind::Instance)) {
    auto& inst = as<InstanceObj>(exc);
    inst.dict.set("name", make_str(name));
    if (f) {  // CPython's suggestion: the frame's locals, then its globals, then builtins
      std::optional<std::string> hint = suggest_name(f->code->varnames, name);
      auto keys = [](AttrTable& t) {
        std::vector<std::string> out;
        for (auto& [k, v] : t.entries)
          if (v) out.push_back(k);
        return out;
      };
      if (!hint && f->globals) hint = suggest_name(keys(f->globals->dict), name);
      if (!hint) hint = suggest_name(keys(builtins_mod->dict), name);
      if (hint) inst.dict.set("__shard_suggestion__", make_str(*hint));
    }
  }
  throw PyError{exc};
}

void Interp::Impl::unbound_local(const std::string& name) {
  I.raise("UnboundLocalError", "cannot access local variable '" + name + "' where it is not associated with a value");
}

// ---------------------------------------------------------------- value stack

Value* Interp::Impl::alloc_slots(size_t n, std::unique_ptr<Value[]>& heap) {
  if (vsp + n <= vstack_size) {
    Value* p = vstack.get() + vsp;
    vsp += n;
    return p;
  }
  heap.reset(new Value[n]);
  return heap.get();
}

void Interp::Impl::free_slots(Value* slots, size_t n) {
  if (slots >= vstack.get() && slots < vstack.get() + vstack_size) {
    for (size_t i = 0; i < n; ++i) slots[i].reset();
    vsp -= n;
  }
}

// ---------------------------------------------------------------- running modules

namespace {

Value syntax_error_value(Interp& I, const grammar::SyntaxError& e) {
  std::string kind = e.kind.empty() ? "SyntaxError" : e.kind;
  Value exc = I.make_exception(kind, e.what());
  if (is(exc, ObjKind::Instance)) {
    auto& inst = as<InstanceObj>(exc);
    if (!inst.exc) inst.exc = std::make_shared<ExcInfo>();
    inst.exc->loc = e.loc;
    inst.dict.set("msg", make_str(e.what()));
    inst.dict.set("lineno", make_int(e.loc.line));
    inst.dict.set("offset", make_int(e.loc.col));
    inst.dict.set("filename", make_str(ast::source(e.loc.file).name));
    inst.dict.set("text", make_str(std::string(ast::source_line(e.loc.file, e.loc.line))));
  }
  return exc;
}

}  // namespace

// Parses and analyses a source file; syntax errors become Python SyntaxError exceptions.
static std::pair<std::shared_ptr<ast::Module>, CodeP> compile_source(Interp& I, Interp::Impl& P, uint32_t file) {
  try {
    auto mod = std::make_shared<ast::Module>(grammar::parse_module(file));
    P.modules_ast.push_back(mod);
    CodeP code = P.analyze_module(*mod);
    return {mod, code};
  } catch (const grammar::SyntaxError& e) {
    throw PyError{syntax_error_value(I, e)};
  }
}

// For an imported file, a syntax error also becomes the innermost traceback entry, so the
// uncaught report shows the chain of imports that reached it.
std::pair<std::shared_ptr<ast::Module>, CodeP> compile_for_import(Interp& I, Interp::Impl& P, uint32_t file) {
  try {
    return compile_source(I, P, file);
  } catch (PyError& e) {
    ExcInfo& info = P.exc_info(e.exc);
    if (info.loc.line) info.traceback.push_back(TraceEntry{info.loc, "<module>"});
    throw;
  }
}

void Interp::Impl::exec_module_body(ast::Module& m, const std::shared_ptr<ModuleObj>& mod, Code& code, bool interactive, Value* echo) {
  if (depth >= kMaxDepth) I.raise("RecursionError", "maximum recursion depth exceeded");
  Frame f;
  f.code = &code;
  f.globals = mod.get();
  f.module = &mod;
  f.ns = &mod->dict;
  StackEntry entry(*this, TraceEntry{ast::Loc{m.file, 1, 1}, "<module>"});
  try {
    if (interactive && echo) {
      // Echoed chunk: earlier expression statements display as they run; a final
      // top-level expression's value goes back to the caller.
      f.echo = true;
      const bool last_is_expr = !m.body.empty() && m.body.back()->kind == ast::StmtKind::ExprStmt;
      const size_t n = m.body.size() - (last_is_expr ? 1 : 0);
      for (size_t i = 0; i < n; ++i)
        if (exec(*m.body[i], f) != Flow::Normal) return;
      if (last_is_expr) {
        at(m.body.back()->loc);
        *echo = eval(*m.body.back()->value, f);
      }
      return;
    }
    exec_block(m.body, f);
  } catch (PyError& e) {
    leave_frame(e);
    throw;
  } catch (const grammar::SyntaxError& e) {
    throw PyError{syntax_error_value(I, e)};
  } catch (const std::bad_alloc&) {
    PyError err{I.make_exception("MemoryError", "")};
    leave_frame(err);
    throw err;
  } catch (const std::exception& e) {
    PyError err{I.make_exception("RuntimeError", std::string("internal error: ") + e.what())};
    leave_frame(err);
    throw err;
  }
}

void Interp::run_source(const std::string& name, const std::string& text) {
  uint32_t file = ast::add_source(name, text);
  auto [mod, code] = compile_source(*this, *impl_, file);
  impl_->exec_module_body(*mod, impl_->main_mod, *code, false, nullptr);
}

void Interp::run_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) raise("FileNotFoundError", "[Errno 2] No such file or directory: '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  impl_->main_mod->dict.set("__file__", make_str(path));
  run_source(path, ss.str());
}

Value Interp::run_interactive(const std::string& name, const std::string& text, bool echo) {
  uint32_t file = ast::add_source(name, text);
  auto [mod, code] = compile_source(*this, *impl_, file);
  Value result = none();
  impl_->exec_module_body(*mod, impl_->main_mod, *code, true, echo ? &result : nullptr);
  return result ? result : none();
}

void Interp::display(const Value& v) {
  if (!v || is(v, ObjKind::None)) return;
  // As CPython: `_` is None while repr runs, so a failing repr leaves no stale value.
  impl_->builtins_mod->dict.set("_", none());
  std::string shown = repr(v);
  std::cout << shown << "\n";
  impl_->builtins_mod->dict.set("_", v);
}

// ---------------------------------------------------------------- modules registry

namespace {
std::map<std::string, Interp::ModuleInit>& module_registry() {
  static std::map<std::string, Interp::ModuleInit> registry;
  return registry;
}
}  // namespace

void Interp::register_builtin_module(const std::string& dotted, ModuleInit init) {
  module_registry()[dotted] = std::move(init);
}

namespace {
MissingAttributeHint& missing_attribute_hint_fn() {
  static MissingAttributeHint hint;
  return hint;
}
}  // namespace

void set_missing_attribute_hint(MissingAttributeHint hint) { missing_attribute_hint_fn() = std::move(hint); }

std::optional<std::string> missing_attribute_hint(const std::string& module, std::string_view name) {
  auto& hint = missing_attribute_hint_fn();
  return hint ? hint(module, name) : std::nullopt;
}

const Interp::ModuleInit* find_builtin_module(const std::string& dotted) {
  auto& r = module_registry();
  auto it = r.find(dotted);
  return it == r.end() ? nullptr : &it->second;
}

std::vector<std::string> builtin_module_names() {
  std::vector<std::string> names;
  for (const auto& [name, init] : module_registry()) names.push_back(name);
  return names;
}

bool builtin_module_has_children(const std::string& dotted) {
  auto& r = module_registry();
  auto it = r.lower_bound(dotted + ".");
  return it != r.end() && it->first.compare(0, dotted.size() + 1, dotted + ".") == 0;
}

Value Interp::import_module(const std::string& dotted, ast::Loc loc) {
  return impl_->import_dotted(dotted, loc);
}

}  // namespace shard::interp
