// Generators: calling a generator function, `yield` / `yield from` in its body, and the
// generator protocol (__next__, send, throw, close) shared with generator expressions.
#include "interp/generator.hpp"

#include <fmt/format.h>

#include <mutex>

#include "interp/builtins/support.hpp"

namespace shard::interp {

using ast::Expr;

namespace {

// Thrown at the paused yield of a generator destroyed while ignoring GeneratorExit: unwinds
// its C++ stack without running more Python code (no `except` or `finally` catches it).
struct GeneratorUnwind {};

bool instance_of(Interp& I, const Value& exc, std::string_view type) {
  ClassP c = I.builtin_class(type);
  return c && exc && I.isinstance(exc, *c);
}

GeneratorObj& gen_self(Interp& I, const CallArgs& a, std::string_view meth) {
  if (a.args.empty() || !is(a.args[0], ObjKind::Iterator) || a.args[0]->cls.get() != generator_class().get())
    I.raise("TypeError", fmt::format("descriptor '{}' requires a 'generator' object", meth));
  return static_cast<GeneratorObj&>(*a.args[0]);
}

[[noreturn]] void raise_stop(Interp& I, const Value& retval) {
  std::vector<Value> args;
  if (retval && !is(retval, ObjKind::None)) args.push_back(retval);
  Value exc = I.call(bi::exc_class("StopIteration"), std::move(args));
  if (is(exc, ObjKind::Instance) && as<InstanceObj>(exc).exc) as<InstanceObj>(exc).exc->loc = I.current_loc();
  throw PyError{exc};
}

// next()/send() as Python calls them: the yielded value, or StopIteration(return value).
Value send_or_stop(Interp& I, GeneratorObj& g, Value v) {
  std::optional<Value> out = g.resume(std::move(v), nullptr);
  if (!out) raise_stop(I, g.retval);
  return *out;
}

// The exception g.throw(typ[, val]) raises in the generator.
Value exception_to_throw(Interp& I, const CallArgs& a) {
  const Value& typ = a.args[1];
  const Value val = a.args.size() > 2 ? a.args[2] : nullptr;
  const bool has_val = val && !is(val, ObjKind::None);
  if (is(typ, ObjKind::Class) && as<ClassObj>(typ).is_subclass_of(T().base_exception.get())) {
    if (has_val && val->cls->is_subclass_of(&as<ClassObj>(typ))) return val;
    std::vector<Value> args;
    if (has_val) args = is(val, ObjKind::Tuple) ? as<TupleObj>(val).items : std::vector<Value>{val};
    return I.call(typ, std::move(args));
  }
  if (is(typ, ObjKind::Instance) && typ->cls->is_subclass_of(T().base_exception.get())) {
    if (has_val) I.raise("TypeError", "instance exception may not have a separate value");
    return typ;
  }
  I.raise("TypeError", "exceptions must be classes or instances deriving from BaseException, not " + I.type_name(typ));
}

void init_generator_methods(const ClassP& c) {
  bi::def(c, "__next__", [](Interp& I, CallArgs& a) -> Value {
    bi::method_nargs(I, a, "__next__", 0, 0);
    return send_or_stop(I, gen_self(I, a, "__next__"), nullptr);
  });
  bi::def(c, "send", [](Interp& I, CallArgs& a) -> Value {
    bi::method_nargs(I, a, "send", 1, 1);
    return send_or_stop(I, gen_self(I, a, "send"), a.args[1]);
  });
  bi::def(c, "throw", [](Interp& I, CallArgs& a) -> Value {
    bi::method_nargs(I, a, "throw", 1, 3);
    GeneratorObj& g = gen_self(I, a, "throw");
    std::optional<Value> out = g.resume(nullptr, exception_to_throw(I, a));
    if (!out) raise_stop(I, g.retval);
    return *out;
  });
  bi::def(c, "close", [](Interp& I, CallArgs& a) -> Value {
    bi::method_nargs(I, a, "close", 0, 0);
    gen_self(I, a, "close").close();
    return none();
  });
  bi::def(c, "__repr__", [](Interp& I, CallArgs& a) -> Value {
    GeneratorObj& g = gen_self(I, a, "__repr__");
    return make_str(fmt::format("<generator object {} at {}>", g.qualname, bi::addr_of(&g)));
  });
  bi::def_property(c, "gi_running", [](Interp& I, CallArgs& a) -> Value {
    return make_bool(gen_self(I, a, "gi_running").state == GeneratorObj::State::Running);
  });
  // (No __name__/__qualname__ properties: a class dict holding __qualname__ is taken for a
  // user class, and type(g).__name__ must stay "generator".)
}

}  // namespace

ClassP generator_class() {
  static ClassP cls;
  static std::once_flag once;
  std::call_once(once, [] {
    cls = bi::iter_class("generator");
    init_generator_methods(cls);
  });
  return cls;
}

// ---------------------------------------------------------------- the generator object

GeneratorObj::GeneratorObj(Interp::Impl* p, std::string n, std::string qn)
    : IteratorObj(generator_class(), nullptr), P(p), name(std::move(n)), qualname(std::move(qn)) {
  next = [this] { return resume(nullptr, nullptr); };
}

GeneratorObj::~GeneratorObj() {
  if (state != State::Suspended || !co || P->shutting_down) return;
  // Unfinished: close it (its finally blocks run). If it yields again, unwind it anyway.
  try {
    close();
  } catch (...) {
  }
  if (state != State::Suspended) return;
  force_unwind = true;
  try {
    resume(nullptr, nullptr);
  } catch (...) {
  }
}

void GeneratorObj::release_frame() {
  frame.cells.clear();
  frame.fast = nullptr;
  slots.reset();
}

std::optional<Value> GeneratorObj::resume(Value send_value, Value throw_exc) {
  Interp::Impl& p = *P;
  Interp& I = p.I;
  if (state == State::Running) I.raise("ValueError", "generator already executing");
  if (state == State::Finished) {
    retval = none();
    if (throw_exc) p.raise_value(std::move(throw_exc));
    return std::nullopt;
  }
  if (state == State::Created && send_value && !is(send_value, ObjKind::None))
    I.raise("TypeError", "can't send non-None value to a just-started generator");

  if (step) {  // a generator expression
    if (throw_exc) {
      state = State::Finished;
      p.raise_value(std::move(throw_exc));
    }
    state = State::Running;
    struct Done {
      GeneratorObj& g;
      bool yielded = false;
      ~Done() { g.state = yielded ? State::Suspended : State::Finished; }
    } done{*this};
    std::optional<Value> v = step();
    if (!v) {
      retval = none();
      return std::nullopt;
    }
    done.yielded = true;
    return v;
  }

  if (!co) {
    state = State::Finished;
    return std::nullopt;
  }
  if (state == State::Created && throw_exc) {  // thrown in before it ever ran
    state = State::Finished;
    release_frame();
    p.raise_value(std::move(throw_exc));
  }
  if (p.depth >= Interp::Impl::kMaxDepth) I.raise("RecursionError", "maximum recursion depth exceeded");

  sent = send_value ? std::move(send_value) : none();
  thrown = std::move(throw_exc);
  // While the body runs: its frame is the innermost on the call stack, with the exceptions
  // it was handling when it paused, and `yield` finds it through gen_running.
  p.stack.push_back(entry);
  ++p.depth;
  const size_t base = p.handling.size();
  for (auto& h : handling) p.handling.push_back(std::move(h));
  handling.clear();
  struct Switched {
    GeneratorObj& g;
    Interp::Impl& p;
    size_t base;
    GeneratorObj* outer;
    ~Switched() {
      g.entry.loc = p.stack.back().loc;
      p.stack.pop_back();
      --p.depth;
      for (size_t i = base; i < p.handling.size(); ++i) g.handling.push_back(std::move(p.handling[i]));
      if (p.handling.size() > base) p.handling.resize(base);
      p.gen_running = outer;
      // (Not started: the stack could not be had; it is still a fresh generator.)
      g.state = g.co->finished() ? State::Finished : g.co->started() ? State::Suspended : State::Created;
    }
  } switched{*this, p, base, p.gen_running};
  p.gen_running = this;
  state = State::Running;
  co->resume();  // rethrows what left the body
  if (co->finished()) return std::nullopt;
  Value v = std::move(yielded);
  return v;
}

void GeneratorObj::run_body() {
  Interp::Impl& p = *P;
  std::optional<PyError> err;
  try {
    if (lambda) {
      retval = p.eval(*lambda->a, frame);
    } else {
      Flow fl = p.exec_block(def->body, frame);
      retval = fl == Flow::Return && frame.retval ? std::move(frame.retval) : none();
    }
  } catch (PyError& e) {
    err = e;
  }
  release_frame();
  if (!err) return;
  p.note(*err);
  if (instance_of(p.I, err->exc, "StopIteration")) {  // PEP 479
    p.leave_frame(*err);
    Value rt = p.I.make_exception("RuntimeError", "generator raised StopIteration");
    ExcInfo& info = p.exc_info(rt);
    info.cause = err->exc;
    info.context = err->exc;
    info.loc = p.exc_info(err->exc).loc;
    err = PyError{rt};
  }
  p.leave_frame(*err);
  throw *err;
}

Value GeneratorObj::yield_value(Value v) {
  yielded = std::move(v);
  co->suspend();
  if (force_unwind) throw GeneratorUnwind{};
  if (thrown) {
    Value exc = std::move(thrown);
    thrown = nullptr;
    throw PyError{std::move(exc)};
  }
  Value s = std::move(sent);
  return s ? s : none();
}

void GeneratorObj::close() {
  if (state == State::Created) {
    state = State::Finished;
    release_frame();
    step = nullptr;
    return;
  }
  if (state == State::Finished) return;
  Interp& I = P->I;
  std::optional<PyError> err;
  std::optional<Value> out;
  try {
    out = resume(nullptr, I.make_exception("GeneratorExit", ""));
  } catch (PyError& e) {
    err = e;
  }
  if (err) {
    if (instance_of(I, err->exc, "GeneratorExit") || instance_of(I, err->exc, "StopIteration")) return;
    throw *err;
  }
  if (out) I.raise("RuntimeError", "generator ignored GeneratorExit");
}

Value make_step_generator(Interp::Impl* p, std::string name, std::string qualname,
                          std::function<std::optional<Value>()> step) {
  auto g = std::make_shared<GeneratorObj>(p, std::move(name), std::move(qualname));
  g->step = std::move(step);
  return g;
}

// ---------------------------------------------------------------- the interpreter side

Value Interp::Impl::make_generator_call(FunctionObj& fn, Code& code, std::vector<Value>& args,
                                        std::vector<std::pair<std::string, Value>>* kwargs) {
  auto g = std::make_shared<GeneratorObj>(this, fn.name, fn.qualname);
  const size_t nslots = code.varnames.size();
  g->slots.reset(new Value[nslots ? nslots : 1]);
  bind_arguments(fn, code, g->slots.get(), args, kwargs);
  g->code = std::static_pointer_cast<Code>(fn.code);
  g->def = fn.def;
  g->lambda = fn.lambda;
  g->module = fn.globals;
  Frame& fr = g->frame;
  fr.code = &code;
  fr.fast = g->slots.get();
  fr.globals = g->module.get();
  fr.module = &g->module;
  fr.ns = &g->module->dict;
  fr.cells.reserve(code.ncells());
  for (size_t i = 0; i < code.cellnames.size(); ++i) {
    auto cell = std::make_shared<CellObj>(T().cell);
    if (code.cell_param[i] >= 0) cell->v = std::move(fr.fast[code.cell_param[i]]);
    fr.cells.push_back(std::move(cell));
  }
  for (auto& c : fn.closure) fr.cells.push_back(c);
  g->entry = TraceEntry{fn.def ? fn.def->loc : fn.lambda ? fn.lambda->loc : ast::Loc{}, code.name};
  GeneratorObj* raw = g.get();
  g->co = std::make_unique<Coroutine>([raw] { raw->run_body(); });
  return g;
}

namespace {

GeneratorObj* running_generator(Interp::Impl& p, Frame& f) {
  GeneratorObj* g = p.gen_running;
  if (!g || &g->frame != &f) p.I.raise("SystemError", "'yield' outside a running generator");
  return g;
}

// Calls a delegate's method; a StopIteration it raises ends the delegation with its value.
std::optional<Value> call_delegate(Interp& I, const Value& fn, std::vector<Value> args, Value& ret) {
  std::optional<PyError> err;
  Value r;
  try {
    r = I.call(fn, std::move(args));
  } catch (PyError& e) {
    err = e;
  }
  if (!err) return r;
  if (!instance_of(I, err->exc, "StopIteration")) throw *err;
  std::optional<Value> v = I.try_getattr(err->exc, "value");
  ret = v ? *v : none();
  return std::nullopt;
}

}  // namespace

Value Interp::Impl::eval_yield(const Expr& e, Frame& f) {
  Value v = e.a ? eval(*e.a, f) : none();
  GeneratorObj* g = running_generator(*this, f);
  at(e.loc);
  return g->yield_value(std::move(v));
}

Value Interp::Impl::eval_yield_from(const Expr& e, Frame& f) {
  Value src = eval(*e.a, f);
  GeneratorObj* g = running_generator(*this, f);
  at(e.loc);
  Value it = I.iter(src);
  GeneratorObj* sub = is(it, ObjKind::Iterator) && it->cls.get() == generator_class().get()
                          ? static_cast<GeneratorObj*>(it.get())
                          : nullptr;
  Value to_send = none(), to_throw;
  while (true) {
    at(e.loc);
    std::optional<Value> out;
    Value ret = none();
    if (sub) {
      out = sub->resume(to_send, std::move(to_throw));
      if (!out) ret = sub->retval ? sub->retval : none();
    } else if (to_throw) {
      std::optional<Value> thr = I.try_getattr(it, "throw");
      if (!thr) raise_value(std::move(to_throw));
      out = call_delegate(I, *thr, {std::move(to_throw)}, ret);
    } else if (!is(to_send, ObjKind::None)) {
      out = call_delegate(I, I.getattr(it, "send"), {to_send}, ret);
    } else if (is(it, ObjKind::Iterator) && as<IteratorObj>(it).next) {
      out = as<IteratorObj>(it).next();
    } else {
      std::optional<Value> nx = I.try_getattr(it, "__next__");
      if (!nx) I.raise("TypeError", "'" + I.type_name(it) + "' object is not an iterator");
      out = call_delegate(I, *nx, {}, ret);
    }
    to_throw = nullptr;
    if (!out) return ret;
    // Pass the value out; what comes back in goes to the delegate.
    std::optional<PyError> err;
    try {
      to_send = g->yield_value(std::move(*out));
    } catch (PyError& x) {
      err = x;
    }
    if (!err) continue;
    to_send = none();
    if (instance_of(I, err->exc, "GeneratorExit")) {  // close the delegate, then ourselves
      if (sub) sub->close();
      else if (std::optional<Value> cl = I.try_getattr(it, "close")) I.call(*cl, std::vector<Value>{});
      throw *err;
    }
    to_throw = err->exc;
  }
}

}  // namespace shard::interp
