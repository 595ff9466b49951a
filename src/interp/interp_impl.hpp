// Private to src/interp: the interpreter's internal state (Interp::Impl), the per-scope
// analysis (Code), frames, inline caches, and the evaluator's entry points.
//   scope.cpp            symtable-like analysis: slots, cells, Name resolution
//   interp.cpp           construction, running modules, errors, stack guard
//   names.cpp            loading/storing names (global inline caches)
//   eval_expr.cpp        expressions, calls;  comprehension.cpp  comprehensions, genexprs
//   exec_stmt.cpp        statements, assignment/unpacking, loops
//   exec_try.cpp         try/with/raise;  exec_def.cpp  def/class
//   call.cpp             argument binding, frames, natives, instantiation, super()
//   attr*.cpp            attribute protocol, special attributes, per-node caches
//   ops.cpp              operators, comparison, truth;  containers.cpp  hash/in/[]/len
//   iter.cpp             iteration, repr/str/format;  import.cpp  modules
//   errors.cpp           format_uncaught, "Did you mean" suggestions
//   generator.cpp        generators (yield, yield from, send/throw/close) on the stackful
//                        coroutines of coroutine.cpp
// AST nodes carry interpreter data in Expr::int_value where the parser leaves it unused:
// Name -> Sym (+ global cache slot), Lambda/comprehensions -> Code slot, Attribute -> cache
// slot, Str/Float -> constant slot. Each module's AST is analysed by one Impl only.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ast/ast.hpp"
#include "interp/interp.hpp"

namespace shard::interp {

// How one name is reached in one scope (CPython's symtable outcome).
enum class SymKind : uint8_t {
  Unresolved = 0,
  Fast,        // a local in an indexed slot of the frame
  Deref,       // a cell: own cell variable or a free variable from the closure (cells[index])
  Global,      // module globals, then builtins
  Dynamic,     // the frame's namespace (module dict or class body), then globals, then builtins
  ClassDeref,  // class body reading a free variable: class namespace first, then the cell
};

struct Sym {
  SymKind kind = SymKind::Unresolved;
  uint32_t index = 0;
};

// Name nodes carry their resolution in Expr::int_value (unused by the parser for names);
// the tag keeps 0 meaning "not analysed".
inline int64_t encode_sym(Sym s) { return (int64_t(s.kind) << 32) | int64_t(s.index); }
inline Sym decode_sym(int64_t v) { return Sym{SymKind(uint8_t(v >> 32)), uint32_t(v & 0xffffffff)}; }

// Set by request_interrupt(); polled at loop back-edges and calls (Impl::poll_interrupt).
extern std::atomic<bool> g_interrupt_requested;

enum class ScopeKind : uint8_t { Module, Class, Function, Lambda, Comprehension };

// The result of analysing one scope: slots, cells, and how each name resolves.
struct Code {
  ScopeKind kind = ScopeKind::Module;
  std::string name;      // "f", "<lambda>", "<listcomp>", class name, "<module>"
  std::string qualname;  // "A.f", "f.<locals>.g"
  std::vector<std::string> varnames;   // fast slots; parameters first
  std::vector<std::string> cellnames;  // cells owned by this scope (cells[0..ncell))
  std::vector<std::string> freenames;  // cells from the closure (cells[ncell..))
  std::vector<int32_t> cell_param;     // for each cellname: the parameter slot it starts from, or -1
  std::vector<uint32_t> closure_src;   // for a nested scope: each free var's index in the parent's cells
  std::unordered_map<std::string, Sym> syms;  // every name bound or used here
  // Parameter layout: positional [0,npos), kw-only [npos,npos+nkwonly), then *args, **kwargs.
  uint32_t npos = 0, nkwonly = 0;
  int32_t vararg_slot = -1, kwarg_slot = -1;
  int32_t class_cell = -1;  // index in cells of `__class__` (class: own cell; method: free)
  bool has_docstring = false;
  bool is_generator = false;  // a function or lambda whose own body contains `yield`

  size_t ncells() const { return cellnames.size() + freenames.size(); }
  Sym lookup(const std::string& n) const {
    auto it = syms.find(n);
    return it == syms.end() ? Sym{SymKind::Global, 0} : it->second;
  }
};
using CodeP = std::shared_ptr<Code>;

// Inline cache of one Attribute node (see attr_cache.cpp).
struct AttrCache {
  ClassP cls;            // instances of this class (strong: its address is never reused)
  uint64_t epoch = 0;    // Impl::class_epoch when filled
  Value attr;            // what the class MRO provides for the name, or null
  ClassObj* owner = nullptr;
  bool plain_store = false;  // no user __setattr__, no property: stores go to the dict
  bool method = false;       // `attr` binds to the instance (function or native method)
  uint32_t hint = 0;         // index of the name in the last instance/module dict seen
};

// How `cls(...)` builds an instance (per class; see Impl::new_plan).
struct NewPlan {
  ClassP keep;  // strong: the key's address is never reused while cached
  uint64_t epoch = 0;
  ClassObj* native_owner = nullptr;  // first class in the MRO with native_new
  Value user_new;                    // a user-defined __new__ before it, if any
  Value init;                        // the __init__ to run afterwards, if any
  ClassObj* init_owner = nullptr;
  bool abstract = false;             // non-empty __abstractmethods__: object.__new__ refuses
};
// TypeError "Can't instantiate abstract class ..." when cls has abstract methods (abc).
void check_not_abstract(Interp& I, ClassObj& cls);

enum class Flow : uint8_t { Normal, Return, Break, Continue };

// Inline cache of one global Name node (Sym::index - 1 indexes Impl::gcaches): the table
// and entry where the name was last found. Hits are validated by content (entry name and
// liveness); a builtins hit also requires that no module dict gained a key since
// (Impl::globals_epoch), since a new global could shadow the builtin. Keys added to module
// dicts by the interpreter bump the epoch; natives writing module dicts of running code
// directly would not (they do not today).
struct GlobalCache {
  const AttrTable* table = nullptr;
  uint32_t index = 0;
  uint64_t epoch = 0;
};

// One executing scope. Fast slots live in the interpreter's value stack.
struct Frame {
  Code* code = nullptr;
  Value* fast = nullptr;
  std::vector<std::shared_ptr<CellObj>> cells;
  ModuleObj* globals = nullptr;
  const std::shared_ptr<ModuleObj>* module = nullptr;  // owning pointer of `globals`
  AttrTable* ns = nullptr;  // Dynamic names: module dict or class namespace
  Value retval;
  bool echo = false;  // interactive top level: expression statements display their value
};

// An exception being handled by an `except` clause (for bare `raise` and __context__).
struct Handled {
  Value exc;
  ast::Loc loc;  // the frame's location when it was caught (bare raise restores it)
};

struct GeneratorObj;

struct Interp::Impl {
  explicit Impl(Interp& interp) : I(interp) {}
  Interp& I;
  std::shared_ptr<ModuleObj> builtins_mod, main_mod;
  std::unordered_map<std::string, std::shared_ptr<ModuleObj>> modules;
  std::vector<std::string> initializing;  // modules whose body is running (circular imports)
  std::vector<TraceEntry> stack;
  std::vector<Handled> handling;
  int depth = 0;
  static constexpr int kMaxDepth = 1000;
  // Analysis results for FunctionDef/ClassDef statements (Lambda/comprehension codes are
  // indexed by Expr::int_value into `expr_codes`). ASTs are kept alive so keys stay unique.
  std::unordered_map<const ast::Stmt*, CodeP> stmt_codes;
  std::vector<CodeP> expr_codes;
  std::vector<std::shared_ptr<ast::Module>> modules_ast;
  std::vector<GlobalCache> gcaches;
  std::vector<AttrCache> acaches;
  std::vector<Value> consts;  // Str/Float literal values, by node (Expr::int_value - 1)
  std::unordered_map<const ClassObj*, NewPlan> new_plans;
  uint64_t class_epoch = 1;  // bumped when a class dict changes through setattr/delattr
  uint64_t globals_epoch = 1;
  uint32_t new_global_cache() {
    gcaches.emplace_back();
    return uint32_t(gcaches.size());
  }
  // A stack of values for frames' fast slots (no allocation per call).
  std::unique_ptr<Value[]> vstack;
  size_t vstack_size = 0, vsp = 0;

  // ---- locations / errors ----
  void at(const ast::Loc& l) { stack.back().loc = l; }
  // First sight of an error in this interpreter: stamp its location and __context__.
  void note(const PyError& e);
  ExcInfo& exc_info(const Value& exc);
  [[noreturn]] void raise_at(const ast::Loc& l, std::string_view type, std::string msg);
  [[noreturn]] void raise_value(Value exc);  // throws an existing exception instance
  void check_stack();  // RecursionError when the C++ stack is nearly exhausted
  void poll_interrupt() {
    if (g_interrupt_requested.load(std::memory_order_relaxed)) raise_interrupt();
  }
  [[noreturn]] void raise_interrupt();
  [[noreturn]] void name_error(const std::string& name, const Frame* f = nullptr);
  [[noreturn]] void unbound_local(const std::string& name);
  // While a module, class or function body runs: its entry on the script call stack (and
  // the depth count), removed however the body ends.
  struct StackEntry {
    Impl& P;
    StackEntry(Impl& p, TraceEntry e) : P(p) {
      P.stack.push_back(std::move(e));
      ++P.depth;
    }
    ~StackEntry() {
      P.stack.pop_back();
      --P.depth;
    }
    StackEntry(const StackEntry&) = delete;
    StackEntry& operator=(const StackEntry&) = delete;
  };
  // An error leaving the body of the innermost stack entry: noted, and that entry put
  // first in its traceback (callers rethrow it).
  void leave_frame(const PyError& e) {
    note(e);
    ExcInfo& info = exc_info(e.exc);
    info.traceback.insert(info.traceback.begin(), stack.back());
  }

  // ---- scopes ----
  CodeP analyze_module(ast::Module& m);  // throws grammar::SyntaxError
  const CodeP& code_of(const ast::Stmt& s);
  const CodeP& code_of(const ast::Expr& e);

  // ---- execution ----
  void exec_module_body(ast::Module& m, const std::shared_ptr<ModuleObj>& mod, Code& code, bool interactive, Value* echo);
  Flow exec_block(const ast::Body& body, Frame& f);
  Flow exec(const ast::Stmt& s, Frame& f);
  Flow exec_for(const ast::Stmt& s, Frame& f);
  Flow exec_while(const ast::Stmt& s, Frame& f);
  Flow exec_try(const ast::Stmt& s, Frame& f);
  Flow exec_try_except(const ast::Stmt& s, Frame& f);
  Flow exec_with(const ast::Stmt& s, Frame& f, size_t item);
  void exec_raise(const ast::Stmt& s, Frame& f);
  void exec_funcdef(const ast::Stmt& s, Frame& f);
  void exec_classdef(const ast::Stmt& s, Frame& f);
  void record_annotation(const ast::Stmt& s, Frame& f);  // `x: T` in a module or class body
  void exec_import(const ast::Stmt& s, Frame& f);
  void exec_import_from(const ast::Stmt& s, Frame& f);
  void assign(const ast::Expr& target, Value v, Frame& f);
  void assign_name(const std::string& name, Value v, Frame& f);  // def/class/import/except names
  void unpack(const ast::Expr& target, const Value& v, Frame& f);
  void del_target(const ast::Expr& target, Frame& f);
  void del_name(const std::string& name, Frame& f, bool quiet);

  Value eval(const ast::Expr& e, Frame& f);
  Value eval_display(const ast::Expr& e, Frame& f);
  Value make_const(const ast::Expr& e);  // displays, lambdas, comprehensions, ...
  Value load_name(const ast::Expr& e, Frame& f);
  void store_name(const ast::Expr& e, Value v, Frame& f);
  Value load_global(const ast::Expr& e, uint32_t cache, Frame& f);
  void store_global(const std::string& name, uint32_t cache, Value v, Frame& f);
  Value eval_call(const ast::Expr& e, Frame& f);
  Value eval_call_general(const ast::Expr& e, Frame& f, const Value& callee, std::vector<Value>& args);
  Value eval_compare(const ast::Expr& e, Frame& f);
  Value eval_fstring(const ast::Expr& e, Frame& f);
  Value eval_comprehension(const ast::Expr& e, Frame& f);
  Value make_generator(const ast::Expr& e, const CodeP& code, Frame& f, Value first_iter);  // lazy genexpr
  // Generators (generator.cpp): calling a generator function, and `yield` in its body.
  GeneratorObj* gen_running = nullptr;  // the generator whose body is executing, innermost
  bool shutting_down = false;           // set by ~Interp: unfinished generators are not closed
  Value make_generator_call(FunctionObj& fn, Code& code, std::vector<Value>& args,
                            std::vector<std::pair<std::string, Value>>* kwargs);
  Value eval_yield(const ast::Expr& e, Frame& f);
  Value eval_yield_from(const ast::Expr& e, Frame& f);
  Value make_function(Code* code, const ast::Params& params, Frame& f, const std::string& doc);
  void eval_elements(const std::vector<ast::ExprP>& elts, Frame& f, std::vector<Value>& out);
  Value eval_slice(const ast::Expr& e, Frame& f);

  // ---- calls ----
  Value call(const Value& fn, std::vector<Value>& args, std::vector<std::pair<std::string, Value>>* kwargs,
             const ast::Loc& loc);
  Value call_function(FunctionObj& fn, std::vector<Value>& args, std::vector<std::pair<std::string, Value>>* kwargs);
  Value call_native(BuiltinObj& b, std::vector<Value>& args, std::vector<std::pair<std::string, Value>>* kwargs,
                    const ast::Loc& loc);
  const NewPlan& new_plan(const ClassP& cls);
  Value instantiate(const ClassP& cls, std::vector<Value>& args, std::vector<std::pair<std::string, Value>>* kwargs,
                    const ast::Loc& loc);
  Value call_zero_arg_super(Frame& f);
  // Calls a dunder found on a type with `self` first (no bound-method allocation).
  Value call_unbound(const Value& fn, const Value& self, std::vector<Value> rest);
  void bind_arguments(FunctionObj& fn, Code& code, Value* fast, std::vector<Value>& args,
                      std::vector<std::pair<std::string, Value>>* kwargs);
  Value run_frame(FunctionObj& fn, Code& code, Frame& f);

  // ---- attributes ----
  // Looks `name` up along type(obj)'s MRO; `owner` receives the defining class.
  Value* lookup_type(const ClassObj* cls, std::string_view name, ClassObj** owner = nullptr);
  Value* lookup_type_no_object(const ClassObj* cls, std::string_view name);
  Value bind(const Value& attr, const Value& obj, ClassObj* owner);
  std::optional<Value> getattr_opt(const Value& obj, std::string_view name);
  std::optional<Value> special_attr(const Value& obj, std::string_view name);
  // For `obj.name(args)`: the callable and whether obj must be prepended (no binding alloc).
  Value load_method(const Value& obj, const std::string& name, bool& prepend_self);
  // The same at an Attribute node, through its inline cache (attr_cache.cpp).
  AttrCache& attr_cache(const ast::Expr& e);
  AttrCache& attr_cache_for(const ast::Expr& e, const ClassP& cls);
  Value getattr_at(const Value& obj, const ast::Expr& e);
  void setattr_at(const Value& obj, const ast::Expr& e, Value v);
  Value load_method_at(const Value& obj, const ast::Expr& e, bool& prepend_self);

  // ---- imports ----
  std::shared_ptr<ModuleObj> import_dotted(const std::string& dotted, const ast::Loc& loc);
  std::shared_ptr<ModuleObj> load_module(const std::string& name, const ast::Loc& loc);
  std::shared_ptr<ModuleObj> load_file_module(const std::string& name, const std::string& path, bool package);
  std::string resolve_relative(const std::string& module, int level, Frame& f, const ast::Loc& loc);

  // ---- iteration ----
  Value iter_or_null(const Value& v);  // an iterator, or null when v is not iterable

  // ---- frames ----
  Value* alloc_slots(size_t n, std::unique_ptr<Value[]>& heap);
  void free_slots(Value* slots, size_t n);
};

// Exactly the built-in type (not a user subclass): the fast paths apply.
inline bool exact(const Value& v, ObjKind k, const ClassP& c) { return v->kind == k && v->cls.get() == c.get(); }
inline bool exact_int(const Value& v) { return v->kind == ObjKind::Int && v->cls.get() == T().int_.get(); }
inline bool exact_float(const Value& v) { return v->kind == ObjKind::Float && v->cls.get() == T().float_.get(); }
inline bool exact_str(const Value& v) { return v->kind == ObjKind::Str && v->cls.get() == T().str.get(); }
inline bool is_not_impl(const Value& v) { return v && v->kind == ObjKind::NotImplemented; }

// An AttrTable entry, or null when absent or deleted.
inline Value* find_live(AttrTable& t, std::string_view name) {
  Value* v = t.find(name);
  return (v && *v) ? v : nullptr;
}
Value property_get(Interp& I, const Value& prop, const Value& obj, std::string_view name);
void generic_setattr(Interp& I, const Value& obj, const std::string& name, Value v);  // object.__setattr__
Value* object_fallback(std::string_view name);  // object's default methods (attr_special.cpp)
std::optional<std::string> suggest_name(const std::vector<std::string>& candidates, const std::string& name);
// True when this thread's C++ stack is within its safety margin (RecursionError time).
extern thread_local char* t_stack_floor;
char* compute_stack_floor();
inline bool stack_nearly_exhausted() {
  char* floor = t_stack_floor;
  if (!floor) floor = compute_stack_floor();
  return static_cast<char*>(__builtin_frame_address(0)) < floor;
}
std::string utf8_char_at(const std::string& s, size_t& i);
bool is_user_class(const ClassObj* c);
std::string class_display_name(const ClassObj& c);    // "Foo" or "mod.Foo" as tracebacks show it
std::string qualified_class_name(const ClassObj& c);  // "__main__.Foo" as reprs show it
std::string func_display_name(Interp& I, const Value& fn);  // "f()" as CPython's call errors show it

}  // namespace shard::interp
