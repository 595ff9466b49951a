// Generator objects: what calling a generator function returns, and what a generator
// expression evaluates to. Private to src/interp.
//
// A generator function's body runs on its own coroutine stack (coroutine.hpp) in a frame
// the generator owns; `yield` suspends that stack. While the body runs, its entry is on the
// interpreter's call stack and the exceptions it is handling are on Impl::handling; both
// are taken off again when it suspends, so the consumer never sees them.
//
// A generator expression needs no stack: it cannot catch exceptions or receive values, so
// it steps its loops (comprehension.cpp) and shares the generator protocol through `step`.
#pragma once
#include <memory>
#include <optional>

#include "interp/coroutine.hpp"
#include "interp/interp_impl.hpp"

namespace shard::interp {

struct GeneratorObj : IteratorObj {
  enum class State : uint8_t { Created, Suspended, Running, Finished };

  GeneratorObj(Interp::Impl* p, std::string name, std::string qualname);
  ~GeneratorObj() override;

  // Runs the body until its next yield (returned) or its end (nullopt; `retval` is then
  // what it returned). `send_value` becomes the value of the paused yield (null = None);
  // `throw_exc`, if set, is raised there instead. Errors leaving the body propagate.
  std::optional<Value> resume(Value send_value, Value throw_exc);
  // close(): GeneratorExit at the paused yield; RuntimeError if the body yields again.
  void close();
  // Body side: `yield v`. Returns the value sent in, or raises what was thrown in.
  Value yield_value(Value v);

  Interp::Impl* P;
  std::string name, qualname;
  State state = State::Created;
  Value retval;  // set when the body returns

  // ---- a generator function's body ----
  std::unique_ptr<Coroutine> co;
  CodeP code;
  std::shared_ptr<ast::Stmt> def;     // the FunctionDef (null for a lambda)
  std::shared_ptr<ast::Expr> lambda;  // the Lambda (non-owning; the AST outlives it)
  std::shared_ptr<ModuleObj> module;
  std::unique_ptr<Value[]> slots;
  Frame frame;
  TraceEntry entry;              // its traceback line; where it is paused
  std::vector<Handled> handling;  // exceptions the paused body is handling

  // ---- a generator expression ----
  std::function<std::optional<Value>()> step;

  void run_body();  // on the coroutine stack (started by the coroutine)

 private:
  void release_frame();
  Value sent, thrown, yielded;
  bool force_unwind = false;  // destroyed while its body ignores GeneratorExit
};

// The `generator` class (created with its methods on first use).
ClassP generator_class();
// A generator expression's generator: `step` gives the next value or nullopt at the end.
Value make_step_generator(Interp::Impl* p, std::string name, std::string qualname,
                          std::function<std::optional<Value>()> step);

}  // namespace shard::interp
