// Statement execution. Control flow (return/break/continue) travels as a Flow return
// code; only Python exceptions use C++ exceptions (PyError).
#include "interp/gc.hpp"
#include "interp/interp_impl.hpp"

namespace shard::interp {

using ast::Expr;
using ast::ExprKind;
using ast::Stmt;
using ast::StmtKind;

Flow Interp::Impl::exec_block(const ast::Body& body, Frame& f) {
  for (auto& s : body) {
    Flow fl = exec(*s, f);
    if (fl != Flow::Normal) return fl;
  }
  return Flow::Normal;
}

// ---------------------------------------------------------------- assignment

void Interp::Impl::assign(const Expr& target, Value v, Frame& f) {
  switch (target.kind) {
    case ExprKind::Name:
      store_name(target, std::move(v), f);
      return;
    case ExprKind::Attribute: {
      Value obj = eval(*target.a, f);
      at(target.loc);
      setattr_at(obj, target, std::move(v));
      return;
    }
    case ExprKind::Subscript: {
      Value obj = eval(*target.a, f);
      Value key = eval(*target.b, f);
      at(target.loc);
      I.setitem(obj, key, std::move(v));
      return;
    }
    case ExprKind::Tuple:
    case ExprKind::List:
      unpack(target, v, f);
      return;
    case ExprKind::Starred:
      raise_at(target.loc, "SyntaxError", "starred assignment target must be in a list or tuple");
    default:
      raise_at(target.loc, "SyntaxError", "cannot assign to expression");
  }
}

void Interp::Impl::unpack(const Expr& target, const Value& v, Frame& f) {
  const auto& elts = target.elts;
  const size_t n = elts.size();
  size_t star = n;
  for (size_t i = 0; i < n; ++i)
    if (elts[i]->kind == ExprKind::Starred) {
      if (star != n) raise_at(target.loc, "SyntaxError", "multiple starred expressions in assignment");
      star = i;
    }
  std::vector<Value> items;
  at(target.loc);
  if (is(v, ObjKind::Tuple)) {
    items = as<TupleObj>(v).items;
  } else if (is(v, ObjKind::List)) {
    items = as<ListObj>(v).items;
  } else {
    Value it = iter_or_null(v);
    if (!it) I.raise("TypeError", "cannot unpack non-iterable " + I.type_name(v) + " object");
    if (star == n) {
      // Pull at most one more than needed, as CPython does.
      while (items.size() <= n) {
        auto x = I.next(it);
        if (!x) break;
        items.push_back(std::move(*x));
      }
    } else {
      while (auto x = I.next(it)) items.push_back(std::move(*x));
    }
  }
  if (star == n) {
    if (items.size() < n)
      I.raise("ValueError", "not enough values to unpack (expected " + std::to_string(n) + ", got " +
                                std::to_string(items.size()) + ")");
    if (items.size() > n) I.raise("ValueError", "too many values to unpack (expected " + std::to_string(n) + ")");
    for (size_t i = 0; i < n; ++i) assign(*elts[i], std::move(items[i]), f);
    return;
  }
  if (items.size() < n - 1)
    I.raise("ValueError", "not enough values to unpack (expected at least " + std::to_string(n - 1) + ", got " +
                              std::to_string(items.size()) + ")");
  const size_t after = n - 1 - star;
  for (size_t i = 0; i < star; ++i) assign(*elts[i], std::move(items[i]), f);
  std::vector<Value> rest(std::make_move_iterator(items.begin() + star),
                          std::make_move_iterator(items.end() - after));
  assign(*elts[star]->a, make_list(std::move(rest)), f);
  for (size_t i = 0; i < after; ++i) assign(*elts[star + 1 + i], std::move(items[items.size() - after + i]), f);
}

void Interp::Impl::del_target(const Expr& target, Frame& f) {
  switch (target.kind) {
    case ExprKind::Name: {
      at(target.loc);
      Sym s = decode_sym(target.int_value);
      if (s.kind == SymKind::Fast) {
        if (!f.fast[s.index]) unbound_local(target.id);
        f.fast[s.index].reset();
      } else if (s.kind == SymKind::Deref) {
        if (!f.cells[s.index]->v) unbound_local(target.id);
        f.cells[s.index]->v.reset();
      } else if (s.kind == SymKind::Global) {
        ++globals_epoch;
        if (!f.globals->dict.erase(target.id)) name_error(target.id);
      } else {
        ++globals_epoch;
        if (!(f.ns ? *f.ns : f.globals->dict).erase(target.id)) name_error(target.id);
      }
      return;
    }
    case ExprKind::Attribute: {
      Value obj = eval(*target.a, f);
      at(target.loc);
      I.delattr(obj, target.id);
      return;
    }
    case ExprKind::Subscript: {
      Value obj = eval(*target.a, f);
      Value key = eval(*target.b, f);
      at(target.loc);
      I.delitem(obj, key);
      return;
    }
    case ExprKind::Tuple:
    case ExprKind::List:
      for (auto& x : target.elts) del_target(*x, f);
      return;
    default:
      raise_at(target.loc, "SyntaxError", "cannot delete expression");
  }
}

// ---------------------------------------------------------------- loops

Flow Interp::Impl::exec_for(const Stmt& s, Frame& f) {
  Value seq = eval(*s.iter, f);
  at(s.iter->loc);
  auto run_body = [&](Value item, bool& stop) -> Flow {
    poll_interrupt();
    assign(*s.target, std::move(item), f);
    Flow fl = exec_block(s.body, f);
    if (fl == Flow::Break) {
      stop = true;
      return Flow::Break;
    }
    if (fl == Flow::Return) {
      stop = true;
      return Flow::Return;
    }
    return Flow::Normal;
  };
  bool stop = false;
  Flow result = Flow::Normal;
  if (is(seq, ObjKind::Range)) {
    auto& r = as<RangeObj>(seq);
    const int64_t start = r.start, stop_v = r.stop, step = r.step;
    for (int64_t i = start; step > 0 ? i < stop_v : i > stop_v; i += step) {
      result = run_body(make_int(i), stop);
      if (stop) break;
      if (__builtin_add_overflow(i, step, &i)) break;
      i -= step;
    }
  } else if (is(seq, ObjKind::List) || is(seq, ObjKind::Tuple)) {
    // Index-based, re-reading the size each step: list mutation during the loop is seen.
    for (size_t i = 0;; ++i) {
      auto& items = is(seq, ObjKind::List) ? as<ListObj>(seq).items : as<TupleObj>(seq).items;
      if (i >= items.size()) break;
      result = run_body(items[i], stop);
      if (stop) break;
    }
  } else {
    Value it = I.iter(seq);
    while (true) {
      at(s.iter->loc);
      auto item = I.next(it);
      if (!item) break;
      result = run_body(std::move(*item), stop);
      if (stop) break;
    }
  }
  if (stop) return result == Flow::Return ? Flow::Return : Flow::Normal;
  return exec_block(s.orelse, f);
}

Flow Interp::Impl::exec_while(const Stmt& s, Frame& f) {
  while (true) {
    poll_interrupt();
    Value t = eval(*s.test, f);
    at(s.test->loc);
    if (!I.truthy(t)) break;
    Flow fl = exec_block(s.body, f);
    if (fl == Flow::Break) return Flow::Normal;
    if (fl == Flow::Return) return Flow::Return;
  }
  return exec_block(s.orelse, f);
}

// ---------------------------------------------------------------- annotations

// `name: annotation` in a module or class body evaluates the annotation and records it in
// the namespace's __annotations__ dict (created by the first annotation, as CPython's
// SETUP_ANNOTATIONS does for bodies that have any); other targets only evaluate it.
void Interp::Impl::record_annotation(const Stmt& s, Frame& f) {
  Value ann = eval(*s.annotation, f);
  if (s.target->kind != ExprKind::Name || !f.ns) return;
  Value* slot = f.ns->find("__annotations__");
  if (!slot || !*slot) {
    if (f.code->kind == ScopeKind::Module) ++globals_epoch;  // a new global name
    f.ns->set("__annotations__", make_dict());
    slot = f.ns->find("__annotations__");
  }
  Value dict = *slot;
  at(s.loc);
  I.setitem(dict, make_str(s.target->id), std::move(ann));
}

// ---------------------------------------------------------------- dispatch

Flow Interp::Impl::exec(const Stmt& s, Frame& f) {
  at(s.loc);
  gc::maybe_collect();  // a safe point: every value in use is held by a Value somewhere
  switch (s.kind) {
    case StmtKind::ExprStmt: {
      Value v = eval(*s.value, f);
      if (f.echo) I.display(v);
      return Flow::Normal;
    }
    case StmtKind::Assign: {
      Value v = eval(*s.value, f);
      if (s.targets.size() == 1) {
        assign(*s.targets[0], std::move(v), f);
      } else {
        for (auto& t : s.targets) assign(*t, v, f);
      }
      return Flow::Normal;
    }
    case StmtKind::AugAssign: {
      const Expr& t = *s.target;
      if (t.kind == ExprKind::Name) {
        Value cur = load_name(t, f);
        Value v = eval(*s.value, f);
        at(s.loc);
        store_name(t, I.inplace_op(s.binop, cur, v), f);
      } else if (t.kind == ExprKind::Attribute) {
        Value obj = eval(*t.a, f);
        at(t.loc);
        Value cur = getattr_at(obj, t);
        Value v = eval(*s.value, f);
        at(s.loc);
        Value r = I.inplace_op(s.binop, cur, v);
        at(t.loc);
        setattr_at(obj, t, std::move(r));
      } else if (t.kind == ExprKind::Subscript) {
        Value obj = eval(*t.a, f);
        Value key = eval(*t.b, f);
        at(t.loc);
        Value cur = I.getitem(obj, key);
        Value v = eval(*s.value, f);
        at(s.loc);
        Value r = I.inplace_op(s.binop, cur, v);
        at(t.loc);
        I.setitem(obj, key, std::move(r));
      } else {
        raise_at(t.loc, "SyntaxError", "'" + std::string(ast::expr_kind_name(t.kind)) +
                                           "' is an illegal expression for augmented assignment");
      }
      return Flow::Normal;
    }
    case StmtKind::AnnAssign:
      if (s.value) assign(*s.target, eval(*s.value, f), f);
      if (f.code->kind == ScopeKind::Module || f.code->kind == ScopeKind::Class) record_annotation(s, f);
      return Flow::Normal;
    case StmtKind::FunctionDef:
      exec_funcdef(s, f);
      return Flow::Normal;
    case StmtKind::ClassDef:
      exec_classdef(s, f);
      return Flow::Normal;
    case StmtKind::Return:
      f.retval = s.value ? eval(*s.value, f) : none();
      return Flow::Return;
    case StmtKind::If: {
      Value t = eval(*s.test, f);
      at(s.test->loc);
      return I.truthy(t) ? exec_block(s.body, f) : exec_block(s.orelse, f);
    }
    case StmtKind::For:
      return exec_for(s, f);
    case StmtKind::While:
      return exec_while(s, f);
    case StmtKind::Break:
      return Flow::Break;
    case StmtKind::Continue:
      return Flow::Continue;
    case StmtKind::Pass:
      return Flow::Normal;
    case StmtKind::With:
      return exec_with(s, f, 0);
    case StmtKind::Try:
      return exec_try(s, f);
    case StmtKind::Raise:
      exec_raise(s, f);
      return Flow::Normal;
    case StmtKind::Assert: {
      Value t = eval(*s.test, f);
      at(s.test->loc);
      if (I.truthy(t)) return Flow::Normal;
      std::vector<Value> args;
      if (s.msg) args.push_back(eval(*s.msg, f));
      at(s.loc);
      ClassP cls = I.builtin_class("AssertionError");
      throw PyError{instantiate(cls, args, nullptr, s.loc)};
    }
    case StmtKind::Import:
      exec_import(s, f);
      return Flow::Normal;
    case StmtKind::ImportFrom:
      exec_import_from(s, f);
      return Flow::Normal;
    case StmtKind::Global:
    case StmtKind::Nonlocal:
      return Flow::Normal;
    case StmtKind::Delete:
      for (auto& t : s.targets) del_target(*t, f);
      return Flow::Normal;
  }
  return Flow::Normal;
}

}  // namespace shard::interp
