// def and class statements: functions with defaults/closures/decorators; classes with
// their body run in a namespace, the __class__ cell, __init_subclass__, the C3 MRO for
// several bases, and metaclasses defined in C++ (ClassObj::native_class_new).
#include "interp/interp_impl.hpp"

namespace shard::interp {

using ast::Expr;
using ast::ExprKind;
using ast::Stmt;
using ast::StmtKind;

namespace {

// CPython's C3 method resolution order, for classes with several bases.
std::vector<ClassObj*> c3_linearize(Interp& I, ClassObj& cls) {
  if (auto mro = c3_mro(cls)) return std::move(*mro);
  std::string names;
  for (auto& b : cls.bases) names += (names.empty() ? "" : ", ") + b->name;
  I.raise("TypeError", "Cannot create a consistent method resolution order (MRO) for bases " + names);
}


// `metaclass=M`: only metaclasses defined in C++ are honoured (a user subclass of `type`
// would need its __new__ / __init__ run, which the interpreter does not do; it is ignored,
// as is `type`). The class's metaclass is the most derived of M and its bases' metaclasses.
void use_metaclass(Interp& I, ClassObj& cls, const Value& meta) {
  if (!is(meta, ObjKind::Class)) return;
  auto m = std::static_pointer_cast<ClassObj>(meta);
  if (is_user_class(m.get()) || !m->is_subclass_of(T().type.get())) return;
  if (cls.cls->is_subclass_of(m.get())) return;
  if (!m->is_subclass_of(cls.cls.get()))
    I.raise("TypeError", "metaclass conflict: the metaclass of a derived class must be a (non-strict) subclass of "
                         "the metaclasses of all its bases");
  cls.cls = std::move(m);
}

}  // namespace

void Interp::Impl::exec_funcdef(const Stmt& s, Frame& f) {
  std::vector<Value> decorators;
  for (auto& d : s.decorators) decorators.push_back(eval(*d, f));
  const CodeP& code = code_of(s);
  if (!code) I.raise("SystemError", "function was not analysed");
  std::string doc = code->has_docstring ? s.body[0]->value->str_value : "";
  Value fn = make_function(code.get(), *s.params, f, doc);
  auto& fo = as<FunctionObj>(fn);
  fo.def = std::shared_ptr<Stmt>(std::shared_ptr<Stmt>{}, const_cast<Stmt*>(&s));  // ASTs outlive functions
  fo.code = code;
  for (size_t i = decorators.size(); i-- > 0;) {
    at(s.decorators[i]->loc);
    fn = I.call(decorators[i], std::vector<Value>{fn});
  }
  assign_name(s.name, std::move(fn), f);
}

void Interp::Impl::exec_classdef(const Stmt& s, Frame& f) {
  std::vector<Value> decorators;
  for (auto& d : s.decorators) decorators.push_back(eval(*d, f));
  std::vector<ClassP> bases;
  for (auto& b : s.bases) {
    Value v = eval(*b, f);
    at(b->loc);
    if (!is(v, ObjKind::Class)) I.raise("TypeError", "bases must be types");
    bases.push_back(std::static_pointer_cast<ClassObj>(v));
  }
  if (bases.empty()) bases.push_back(T().object);
  const CodeP& code = code_of(s);
  if (!code) I.raise("SystemError", "class was not analysed");
  std::string module_name = "__main__";
  if (Value* n = f.globals->dict.find("__name__"); n && is(*n, ObjKind::Str)) module_name = as<StrObj>(*n).v;

  AttrTable ns;
  ns.set("__module__", make_str(module_name));
  ns.set("__qualname__", make_str(code->qualname));
  if (!s.body.empty() && s.body[0]->kind == StmtKind::ExprStmt && s.body[0]->value->kind == ExprKind::Str)
    ns.set("__doc__", make_str(s.body[0]->value->str_value));

  Frame cf;
  cf.code = code.get();
  cf.globals = f.globals;
  cf.module = f.module;
  cf.ns = &ns;
  for (size_t i = 0; i < code->cellnames.size(); ++i) cf.cells.push_back(std::make_shared<CellObj>(T().cell));
  for (uint32_t src : code->closure_src) cf.cells.push_back(f.cells[src]);
  if (depth >= kMaxDepth) I.raise("RecursionError", "maximum recursion depth exceeded");
  check_stack();
  {
    StackEntry entry(*this, TraceEntry{s.loc, s.name});
    try {
      exec_block(s.body, cf);
    } catch (PyError& e) {
      leave_frame(e);
      throw;
    }
  }
  at(s.loc);
  ClassP cls = make_class(s.name, bases, module_name);
  for (auto& [name, v] : ns.entries)
    if (v) cls->dict.set(name, v);
  // A class defining __eq__ without __hash__ is unhashable, as in CPython.
  if (ns.find("__eq__") && !ns.find("__hash__")) cls->dict.set("__hash__", none());
  if (cls->mro.empty()) finish_class(*cls);
  if (bases.size() > 1) {
    at(s.loc);
    cls->mro = c3_linearize(I, *cls);
  }
  std::vector<std::pair<std::string, Value>> class_kwargs;
  Value explicit_meta;
  for (auto& kw : s.keywords) {
    if (kw.name.empty()) continue;
    Value v = eval(*kw.value, f);
    if (kw.name == "metaclass") explicit_meta = std::move(v);
    else class_kwargs.emplace_back(kw.name, std::move(v));
  }
  at(s.loc);
  if (explicit_meta) use_metaclass(I, *cls, explicit_meta);
  for (ClassObj* m : cls->cls->mro) {
    if (!m->native_class_new) continue;
    if (ClassP made = m->native_class_new(I, cls)) cls = std::move(made);
    break;
  }
  if (code->class_cell >= 0) cf.cells[size_t(code->class_cell)]->v = cls;
  // The parent's __init_subclass__ (implicitly a classmethod) sees the new class and the
  // class keywords.
  if (!cls->bases.empty()) {
    ClassObj* owner = nullptr;
    Value* hook = lookup_type(cls->bases[0].get(), "__init_subclass__", &owner);
    Value fn = hook ? *hook : nullptr;
    if (fn && (is(fn, ObjKind::ClassMethod) || is(fn, ObjKind::StaticMethod))) fn = as<WrapperObj>(fn).fget;
    at(s.loc);
    if (fn && is(fn, ObjKind::Function)) {
      std::vector<Value> args{cls};
      call(fn, args, class_kwargs.empty() ? nullptr : &class_kwargs, s.loc);
    } else if (!class_kwargs.empty()) {
      I.raise("TypeError", s.name + ".__init_subclass__() takes no keyword arguments");
    }
  }
  Value result = cls;
  for (size_t i = decorators.size(); i-- > 0;) {
    at(s.decorators[i]->loc);
    result = I.call(decorators[i], std::vector<Value>{result});
  }
  assign_name(s.name, std::move(result), f);
}

}  // namespace shard::interp
