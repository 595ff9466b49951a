// The host interpreter: runs a parsed module with Python semantics. This is the public
// surface used by the CLI, the built-in modules (src/api, src/interp/builtins) and tests.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ast/ast.hpp"
#include "interp/value.hpp"

namespace shard::interp {

struct Options {
  std::vector<std::string> argv;        // sys.argv
  std::vector<std::string> module_path; // directories searched for `import foo` (foo.shard)
};

class Interp {
 public:
  explicit Interp(Options opts = {});
  ~Interp();
  Interp(const Interp&) = delete;
  Interp& operator=(const Interp&) = delete;

  // Parse and run a whole file/string as module `__main__`. Uncaught Python errors and
  // syntax errors propagate as PyError (the CLI formats them with format_uncaught).
  void run_file(const std::string& path);
  void run_source(const std::string& name, const std::string& text);
  // Runs one chunk in the persistent __main__ namespace (REPL), as CPython's interactive
  // mode does. With `echo`, expression statements outside function and class bodies show
  // their value through display() as they run (`print(x); f(4)`, `1; 2`, `for i in r: i`),
  // except when the chunk's last top-level statement is an expression: its value is
  // returned instead (the caller displays it, or uses it: the embedding API's eval). None
  // otherwise, and always without `echo`.
  Value run_interactive(const std::string& name, const std::string& text, bool echo = true);
  // CPython's default sys.displayhook: unless v is None, prints repr(v) on stdout and
  // binds it to builtins `_`.
  void display(const Value& v);
  // Forgets a pending request_interrupt() (a Ctrl-C that landed as a computation ended), so
  // it does not stop the next chunk the REPL runs.
  void clear_interrupt();
  std::shared_ptr<ModuleObj> main_module();

  // ---- object protocol (dispatches dunders on the type; used everywhere) ----
  Value call(const Value& fn, CallArgs& args);
  Value call(const Value& fn, std::vector<Value> args);
  Value getattr(const Value& obj, std::string_view name);                 // raises AttributeError
  std::optional<Value> try_getattr(const Value& obj, std::string_view name);
  void setattr(const Value& obj, const std::string& name, Value v);
  void delattr(const Value& obj, const std::string& name);
  // Calls type(obj).name(obj, args...) if the type has it; nullopt if it does not.
  std::optional<Value> call_method(const Value& obj, std::string_view name, std::vector<Value> args);

  Value binary_op(ast::BinOpKind op, const Value& a, const Value& b);    // a + b etc. (with __radd__)
  Value inplace_op(ast::BinOpKind op, const Value& a, const Value& b);   // a += b (__iadd__ then binary)
  Value unary_op(ast::UnaryOpKind op, const Value& a);
  Value compare(ast::CmpOpKind op, const Value& a, const Value& b);      // may return non-bool (arrays)
  bool truthy(const Value& v);
  bool eq(const Value& a, const Value& b);
  bool lt(const Value& a, const Value& b);
  size_t hash(const Value& v);
  bool contains(const Value& container, const Value& item);
  Value getitem(const Value& obj, const Value& key);
  void setitem(const Value& obj, const Value& key, Value v);
  void delitem(const Value& obj, const Value& key);
  int64_t len(const Value& v);
  std::string repr(const Value& v);
  std::string str(const Value& v);
  std::string format(const Value& v, const std::string& spec);  // format(v, spec) / __format__
  Value iter(const Value& v);
  std::optional<Value> next(const Value& it);                   // nullopt when exhausted
  // Iterates any iterable; f returns false to stop early.
  void for_each(const Value& iterable, const std::function<bool(const Value&)>& f);
  std::vector<Value> to_vector(const Value& iterable);
  bool isinstance(const Value& v, const ClassObj& cls);
  std::string type_name(const Value& v);  // "int", "MyClass"

  // ---- errors ----
  // Builds an instance of the built-in exception class `type` ("ValueError", ...).
  Value make_exception(std::string_view type, std::string msg);
  [[noreturn]] void raise(std::string_view type, std::string msg);
  ClassP builtin_class(std::string_view name);  // from the builtins module

  // ---- modules ----
  using ModuleInit = std::function<void(Interp&, ModuleObj&)>;
  // Registers a built-in module created lazily on first import (e.g. "jax.numpy").
  static void register_builtin_module(const std::string& dotted, ModuleInit init);
  Value import_module(const std::string& dotted, ast::Loc loc);
  std::shared_ptr<ModuleObj> builtins();

  // The call stack of script frames (innermost last); used for tracebacks and errors raised
  // by natives, which take the location of the innermost executing node.
  const std::vector<TraceEntry>& stack() const;
  ast::Loc current_loc() const;

  const Options& options() const { return opts_; }

  struct Impl;
 private:
  Options opts_;
  std::unique_ptr<Impl> impl_;
};

// Formats an uncaught error the way the CLI prints it:
//   FILE:LINE:COL: ErrorType: message
//       <source line>
//       ^
//   Traceback (most recent call last):
//     FILE:LINE:COL in <module>
//     ...
std::string format_uncaught(Interp& I, const PyError& e);

// Asks running interpreters to raise KeyboardInterrupt at the next loop iteration or
// function call (async-signal-safe: the CLI calls it from its SIGINT handler).
void request_interrupt();

// Installs the built-in types, functions and exception classes into `builtins`.
// (Defined in src/interp/builtins/.)
void init_builtin_types();
void init_builtins_module(Interp& I, ModuleObj& builtins);
// Registers the host modules math, functools, os, time, sys (src/interp/builtins/).
// Called once by the Interp constructor.
void register_host_modules();

// Helper for natives: checks positional/keyword arguments against a signature.
//   auto a = ArgParser(I, args, "sorted", {"iterable", "*", "key=", "reverse="});
// A trailing '=' marks an optional parameter; "*" starts keyword-only ones; "*args" and
// "**kwargs" collect the rest. Raises TypeError with CPython's wording on mismatch.
class ArgParser {
 public:
  ArgParser(Interp& I, CallArgs& args, std::string fname, std::vector<std::string> sig);
  Value get(std::string_view name) const;        // null Value if optional and absent
  bool has(std::string_view name) const;
  const std::vector<Value>& varargs() const { return varargs_; }
  const std::vector<std::pair<std::string, Value>>& varkw() const { return varkw_; }
 private:
  std::vector<std::pair<std::string, Value>> bound_;
  std::vector<Value> varargs_;
  std::vector<std::pair<std::string, Value>> varkw_;
};

}  // namespace shard::interp
