// The call protocol: user functions (argument binding with CPython's errors, frames),
// natives, bound methods, classes (instantiation) and callable instances.
#include <fmt/format.h>

#include <algorithm>

#include "grammar/parse.hpp"
#include "interp/interp_impl.hpp"
#include "types/type_common.hpp"

namespace shard::interp {

using Kwargs = std::vector<std::pair<std::string, Value>>;

std::string func_display_name(Interp& I, const Value& fn) {
  if (!fn) return "object";
  switch (fn->kind) {
    case ObjKind::Function: return as<FunctionObj>(fn).qualname + "()";
    case ObjKind::Builtin: return as<BuiltinObj>(fn).name + "()";
    case ObjKind::BoundMethod: return func_display_name(I, as<BoundMethodObj>(fn).func);
    case ObjKind::Class: return as<ClassObj>(fn).name + "()";
    default: return I.type_name(fn) + " object";
  }
}

Value Interp::call(const Value& fn, CallArgs& args) {
  return impl_->call(fn, args.args, args.kwargs.empty() ? nullptr : &args.kwargs,
                     args.loc.line ? args.loc : current_loc());
}

Value Interp::call(const Value& fn, std::vector<Value> args) {
  return impl_->call(fn, args, nullptr, current_loc());
}

// ---------------------------------------------------------------- argument binding

namespace {

std::string join_names(const std::vector<std::string>& names) {
  auto q = [](const std::string& n) { return "'" + n + "'"; };
  if (names.size() == 1) return q(names[0]);
  if (names.size() == 2) return q(names[0]) + " and " + q(names[1]);
  std::string out;
  for (size_t i = 0; i + 2 < names.size(); ++i) out += q(names[i]) + ", ";
  return out + q(names[names.size() - 2]) + ", and " + q(names.back());
}

}  // namespace

void Interp::Impl::bind_arguments(FunctionObj& fn, Code& code, Value* fast, std::vector<Value>& args,
                                  Kwargs* kwargs) {
  const size_t npos = code.npos;
  const size_t nparams = npos + code.nkwonly;
  const size_t nargs = args.size();
  const size_t ncopy = std::min(nargs, npos);
  for (size_t i = 0; i < ncopy; ++i) fast[i] = std::move(args[i]);
  if (code.vararg_slot >= 0) {
    std::vector<Value> rest;
    if (nargs > npos)
      rest.assign(std::make_move_iterator(args.begin() + npos), std::make_move_iterator(args.end()));
    fast[code.vararg_slot] = make_tuple(std::move(rest));
  }
  std::shared_ptr<DictObj> kwdict;
  if (code.kwarg_slot >= 0) {
    kwdict = make_dict();
    fast[code.kwarg_slot] = kwdict;
  }
  if (kwargs) {
    for (auto& [name, v] : *kwargs) {
      size_t j = nparams;
      for (size_t k = 0; k < nparams; ++k)
        if (code.varnames[k] == name) {
          j = k;
          break;
        }
      if (j < nparams) {
        if (fast[j]) I.raise("TypeError", fn.qualname + "() got multiple values for argument '" + name + "'");
        fast[j] = v;
      } else if (kwdict) {
        kwdict->set(I, make_str(name), v);
      } else {
        I.raise("TypeError", fn.qualname + "() got an unexpected keyword argument '" + name + "'");
      }
    }
  }
  if (nargs > npos && code.vararg_slot < 0) {
    size_t kwonly_given = 0;
    for (size_t k = npos; k < nparams; ++k)
      if (fast[k]) ++kwonly_given;
    const size_t ndef = fn.defaults.size();
    std::string sig;
    bool plural;
    if (ndef) {
      sig = fmt::format("from {} to {}", npos - ndef, npos);
      plural = true;
    } else {
      sig = std::to_string(npos);
      plural = npos != 1;
    }
    std::string kwonly_sig;
    if (kwonly_given)
      kwonly_sig = fmt::format(" positional argument{} (and {} keyword-only argument{})", nargs != 1 ? "s" : "",
                               kwonly_given, kwonly_given != 1 ? "s" : "");
    I.raise("TypeError", fmt::format("{}() takes {} positional argument{} but {}{} {} given", fn.qualname, sig,
                                     plural ? "s" : "", nargs, kwonly_sig,
                                     nargs == 1 && !kwonly_given ? "was" : "were"));
  }
  const size_t ndef = std::min(fn.defaults.size(), npos);
  const size_t first_default = npos - ndef;
  std::vector<std::string> missing;
  for (size_t i = 0; i < npos; ++i) {
    if (fast[i]) continue;
    if (i >= first_default) fast[i] = fn.defaults[i - first_default];
    else missing.push_back(code.varnames[i]);
  }
  if (!missing.empty())
    I.raise("TypeError", fmt::format("{}() missing {} required positional argument{}: {}", fn.qualname,
                                     missing.size(), missing.size() == 1 ? "" : "s", join_names(missing)));
  for (size_t k = npos; k < nparams; ++k) {
    if (fast[k]) continue;
    Value* d = fn.kwdefaults.find(code.varnames[k]);
    if (d && *d) fast[k] = *d;
    else missing.push_back(code.varnames[k]);
  }
  if (!missing.empty())
    I.raise("TypeError", fmt::format("{}() missing {} required keyword-only argument{}: {}", fn.qualname,
                                     missing.size(), missing.size() == 1 ? "" : "s", join_names(missing)));
}

// ---------------------------------------------------------------- user functions

Value Interp::Impl::call_function(FunctionObj& fn, std::vector<Value>& args, Kwargs* kwargs) {
  Code* codep = static_cast<Code*>(fn.code.get());
  if (!codep || !fn.params) I.raise("SystemError", "function has no code");
  Code& code = *codep;
  if (depth >= kMaxDepth) I.raise("RecursionError", "maximum recursion depth exceeded");
  check_stack();
  poll_interrupt();
  if (code.is_generator) return make_generator_call(fn, code, args, kwargs);
  std::unique_ptr<Value[]> heap;
  const size_t nslots = code.varnames.size();
  Value* fast = alloc_slots(nslots, heap);
  struct Slots {
    Impl& P;
    Value* p;
    size_t n;
    ~Slots() { P.free_slots(p, n); }
  } slots{*this, fast, nslots};
  bind_arguments(fn, code, fast, args, kwargs);

  Frame fr;
  fr.code = &code;
  fr.fast = fast;
  fr.globals = fn.globals.get();
  fr.module = &fn.globals;
  fr.ns = &fn.globals->dict;
  if (size_t nc = code.ncells()) {
    fr.cells.reserve(nc);
    for (size_t i = 0; i < code.cellnames.size(); ++i) {
      auto cell = std::make_shared<CellObj>(T().cell);
      if (code.cell_param[i] >= 0) cell->v = std::move(fast[code.cell_param[i]]);
      fr.cells.push_back(std::move(cell));
    }
    for (auto& c : fn.closure) fr.cells.push_back(c);
  }
  const ast::Loc start = fn.def ? fn.def->loc : fn.lambda ? fn.lambda->loc : ast::Loc{};
  StackEntry entry(*this, TraceEntry{start, code.name});
  try {
    if (fn.lambda) return eval(*fn.lambda->a, fr);
    Flow fl = exec_block(fn.def->body, fr);
    if (fl == Flow::Return && fr.retval) return std::move(fr.retval);
    return none();
  } catch (PyError& e) {
    leave_frame(e);
    throw;
  }
}

// ---------------------------------------------------------------- natives

Value Interp::Impl::call_native(BuiltinObj& b, std::vector<Value>& args, Kwargs* kwargs, const ast::Loc& loc) {
  CallArgs ca;
  if (b.self) {
    ca.args.reserve(args.size() + 1);
    ca.args.push_back(b.self);
    for (auto& a : args) ca.args.push_back(std::move(a));
  } else {
    ca.args = std::move(args);
  }
  if (kwargs) ca.kwargs = std::move(*kwargs);
  ca.loc = loc;
  try {
    Value r = b.fn(I, ca);
    return r ? r : none();
  } catch (PyError&) {
    throw;
  } catch (const grammar::SyntaxError& e) {
    Value exc = I.make_exception(e.kind.empty() ? "SyntaxError" : e.kind, e.what());
    exc_info(exc).loc = e.loc;
    throw PyError{exc};
  } catch (const std::bad_alloc&) {
    I.raise("MemoryError", "");
  } catch (const types::ShardingError& e) {  // a user error the array stack names the class of
    I.raise(e.py_type(), e.what());
  } catch (const std::exception& e) {
    I.raise("RuntimeError", "internal error in " + b.name + "(): " + e.what());
  }
}

// ---------------------------------------------------------------- dispatch

Value Interp::Impl::call(const Value& fn, std::vector<Value>& args, Kwargs* kwargs, const ast::Loc& loc) {
  if (!fn) I.raise("TypeError", "'NoneType' object is not callable");
  check_stack();
  switch (fn->kind) {
    case ObjKind::Function: {
      Value keep = fn;  // `fn` may refer into a dict the callee changes; the frame uses it
      return call_function(as<FunctionObj>(keep), args, kwargs);
    }
    case ObjKind::Builtin: {
      Value keep = fn;
      return call_native(as<BuiltinObj>(keep), args, kwargs, loc);
    }
    case ObjKind::BoundMethod: {
      auto& bm = as<BoundMethodObj>(fn);
      args.insert(args.begin(), bm.self);
      return call(bm.func, args, kwargs, loc);
    }
    case ObjKind::Class:
      if (fn->cls.get() != T().type.get()) {
        // A metaclass's own __call__ replaces type's (enum.EnumType: Color(1) finds a member).
        ClassObj* owner = nullptr;
        Value* mc = lookup_type(fn->cls.get(), "__call__", &owner);
        if (mc && owner != T().type.get() && owner != T().object.get() && !is(*mc, ObjKind::None)) {
          Value meta_call = *mc;
          args.insert(args.begin(), fn);
          return call(meta_call, args, kwargs, loc);
        }
      }
      return instantiate(std::static_pointer_cast<ClassObj>(fn), args, kwargs, loc);
    case ObjKind::StaticMethod:
      if (as<WrapperObj>(fn).fget) return call(as<WrapperObj>(fn).fget, args, kwargs, loc);
      break;
    default:
      break;
  }
  ClassObj* owner = nullptr;
  Value* c = lookup_type(fn->cls.get(), "__call__", &owner);
  if (c && *c && !is(*c, ObjKind::None)) {
    if (is(*c, ObjKind::Function) || (is(*c, ObjKind::Builtin) && !as<BuiltinObj>(*c).self)) {
      args.insert(args.begin(), fn);
      return call(*c, args, kwargs, loc);
    }
    Value bound = bind(*c, fn, owner);
    return call(bound, args, kwargs, loc);
  }
  I.raise("TypeError", "'" + I.type_name(fn) + "' object is not callable");
}

Value Interp::Impl::call_unbound(const Value& fn, const Value& self, std::vector<Value> rest) {
  if (is(fn, ObjKind::Function) || (is(fn, ObjKind::Builtin) && !as<BuiltinObj>(fn).self)) {
    rest.insert(rest.begin(), self);
    return call(fn, rest, nullptr, I.current_loc());
  }
  Value bound = bind(fn, self, nullptr);
  return call(bound, rest, nullptr, I.current_loc());
}

// ---------------------------------------------------------------- classes

namespace {

// The names in a class's own __abstractmethods__ (set by abc.ABCMeta), sorted.
std::vector<std::string> abstract_methods(ClassObj& cls) {
  std::vector<std::string> names;
  Value* set = cls.dict.find("__abstractmethods__");
  if (!set || !*set || ((*set)->kind != ObjKind::FrozenSet && (*set)->kind != ObjKind::Set)) return names;
  for (auto& e : as<SetObj>(*set).entries)
    if (e.first && is(e.first, ObjKind::Str)) names.push_back(as<StrObj>(e.first).v);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

void check_not_abstract(Interp& I, ClassObj& cls) {
  std::vector<std::string> names = abstract_methods(cls);
  if (names.empty()) return;
  std::string list;
  for (auto& n : names) list += (list.empty() ? "" : ", ") + n;
  I.raise("TypeError", fmt::format("Can't instantiate abstract class {} with abstract method{} {}", cls.name,
                                   names.size() == 1 ? "" : "s", list));
}

// How instances of a class are made, cached per class (recomputed when a class dict
// changes through setattr/delattr).
const NewPlan& Interp::Impl::new_plan(const ClassP& cls) {
  NewPlan& p = new_plans[cls.get()];
  if (p.keep.get() == cls.get() && p.epoch == class_epoch) return p;
  p = NewPlan{};
  p.keep = cls;
  p.epoch = class_epoch;
  ClassObj& c = *cls;
  p.abstract = !abstract_methods(c).empty();
  const std::vector<ClassObj*> single{&c};
  const std::vector<ClassObj*>& mro = c.mro.empty() ? single : c.mro;
  for (ClassObj* k : mro) {
    if (is_user_class(k)) {
      Value* nv = k->dict.find("__new__");
      if (nv && *nv) {
        p.user_new = is(*nv, ObjKind::StaticMethod) ? as<WrapperObj>(*nv).fget : *nv;
        break;
      }
      continue;
    }
    if (k->native_new) {
      p.native_owner = k;
      break;
    }
  }
  Value* init = lookup_type(&c, "__init__", &p.init_owner);
  // Exact built-in classes are fully built by native_new; instances of user classes get
  // whatever __init__ their MRO provides (user-defined or the built-in one).
  if (init && *init && !is(*init, ObjKind::None) && (!is(*init, ObjKind::Builtin) || is_user_class(&c)))
    p.init = *init;
  return p;
}

Value Interp::Impl::instantiate(const ClassP& cls, std::vector<Value>& args, Kwargs* kwargs, const ast::Loc& loc) {
  ClassObj& c = *cls;
  // type(x) and super(C, x) are answered here so they never depend on natives.
  if (&c == T().type.get() && args.size() == 1 && !kwargs) return args[0]->cls;
  if (&c == T().super_.get() && args.size() == 2 && !kwargs) {
    if (!is(args[0], ObjKind::Class)) I.raise("TypeError", "super() argument 1 must be a type, not " + I.type_name(args[0]));
    auto& k = as<ClassObj>(args[0]);
    const Value& obj = args[1];
    bool ok = is(obj, ObjKind::Class) ? as<ClassObj>(obj).is_subclass_of(&k) : obj->cls->is_subclass_of(&k);
    if (!ok) I.raise("TypeError", "super(type, obj): obj must be an instance or subtype of type");
    return std::make_shared<SuperObj>(T().super_, std::static_pointer_cast<ClassObj>(args[0]), obj);
  }
  const NewPlan plan = new_plan(cls);  // a copy: the calls below may refill the cache
  // object.__new__ refuses abstract classes (abc); other constructors do not check.
  if (plan.abstract && !plan.user_new && (!plan.native_owner || plan.native_owner == T().object.get()))
    check_not_abstract(I, c);
  Value obj;
  if (plan.user_new) {
    std::vector<Value> new_args;
    new_args.reserve(args.size() + 1);
    new_args.push_back(cls);
    new_args.insert(new_args.end(), args.begin(), args.end());
    Kwargs kw_copy = kwargs ? *kwargs : Kwargs{};
    obj = call(plan.user_new, new_args, kwargs ? &kw_copy : nullptr, loc);
  } else if (plan.native_owner) {
    CallArgs ca;
    if (plan.init) {
      ca.args = args;  // __init__ gets them too
      if (kwargs) ca.kwargs = *kwargs;
    } else {
      ca.args = std::move(args);
      if (kwargs) ca.kwargs = std::move(*kwargs);
    }
    ca.loc = loc;
    try {
      obj = plan.native_owner->native_new(I, cls, ca);
    } catch (PyError&) {
      throw;
    } catch (const std::bad_alloc&) {
      I.raise("MemoryError", "");
    } catch (const types::ShardingError& e) {
      I.raise(e.py_type(), e.what());
    } catch (const std::exception& e) {
      I.raise("RuntimeError", "internal error in " + c.name + "(): " + e.what());
    }
  } else {
    obj = std::make_shared<InstanceObj>(cls);
  }
  if (!obj) return none();
  if (plan.init && obj->cls && (obj->cls.get() == &c || obj->cls->is_subclass_of(&c))) {
    {
      std::vector<Value> init_args;
      init_args.reserve(args.size() + 1);
      init_args.push_back(obj);
      for (auto& a : args) init_args.push_back(std::move(a));
      Value r;
      if (is(plan.init, ObjKind::Function)) {
        r = call(plan.init, init_args, kwargs, loc);
      } else {
        Value bound = bind(plan.init, obj, plan.init_owner);
        init_args.erase(init_args.begin());
        r = call(bound, init_args, kwargs, loc);
      }
      if (r && !is(r, ObjKind::None))
        I.raise("TypeError", "__init__() should return None, not '" + I.type_name(r) + "'");
    }
  }
  return obj;
}

Value Interp::Impl::call_zero_arg_super(Frame& f) {
  Code& code = *f.code;
  if (code.class_cell < 0) I.raise("RuntimeError", "super(): __class__ cell not found");
  Value cls = f.cells[size_t(code.class_cell)]->v;
  if (!cls) I.raise("RuntimeError", "super(): empty __class__ cell");
  if (code.npos == 0 && code.vararg_slot < 0) I.raise("RuntimeError", "super(): no arguments");
  Value first;
  for (size_t i = 0; i < code.cellnames.size(); ++i)
    if (code.cell_param[i] == 0) first = f.cells[i]->v;
  if (!first && f.fast) {
    first = f.fast[0];
    if (code.npos == 0 && first && is(first, ObjKind::Tuple) && !as<TupleObj>(first).items.empty())
      first = as<TupleObj>(first).items[0];  // def m(*args): super() uses args[0]
  }
  if (!first) I.raise("RuntimeError", "super(): arg[0] deleted");
  auto& k = as<ClassObj>(cls);
  bool ok = is(first, ObjKind::Class) ? as<ClassObj>(first).is_subclass_of(&k) : first->cls->is_subclass_of(&k);
  if (!ok) I.raise("TypeError", "super(type, obj): obj must be an instance or subtype of type");
  return std::make_shared<SuperObj>(T().super_, std::static_pointer_cast<ClassObj>(cls), first);
}

}  // namespace shard::interp
