// Comprehensions (list/set/dict: run eagerly in their own frame) and generator
// expressions (lazy: a suspended frame plus one iterator per `for` clause).
#include "interp/generator.hpp"

namespace shard::interp {

using ast::Expr;
using ast::ExprKind;

// ---------------------------------------------------------------- comprehensions

namespace {

// A generator expression's suspended state: its own frame (heap slots, cells) and one
// iterator per `for` clause. Each next() resumes the nested loops where they stopped.
struct GenState {
  Interp::Impl* P;
  const Expr* e;
  CodeP code;
  std::shared_ptr<ModuleObj> module;
  std::unique_ptr<Value[]> slots;
  Frame frame;
  std::vector<Value> iters;
  bool running = false;

  std::optional<Value> next() {
    if (iters.empty()) return std::nullopt;
    Interp::Impl& p = *P;
    if (running) p.I.raise("ValueError", "generator already executing");
    if (p.depth >= Interp::Impl::kMaxDepth) p.I.raise("RecursionError", "maximum recursion depth exceeded");
    p.check_stack();
    p.stack.push_back(TraceEntry{e->loc, code->name});
    ++p.depth;
    running = true;
    struct Pop {
      GenState& g;
      ~Pop() {
        g.P->stack.pop_back();
        --g.P->depth;
        g.running = false;
      }
    } pop{*this};
    try {
      while (!iters.empty()) {
        const size_t level = iters.size() - 1;
        const ast::Comprehension& comp = e->comps[level];
        p.at(comp.iter->loc);
        auto item = p.I.next(iters[level]);
        if (!item) {
          iters.pop_back();
          continue;
        }
        p.assign(*comp.target, std::move(*item), frame);
        bool ok = true;
        for (auto& cond : comp.ifs)
          if (!p.I.truthy(p.eval(*cond, frame))) {
            ok = false;
            break;
          }
        if (!ok) continue;
        if (level + 1 < e->comps.size()) {
          const ast::Comprehension& inner = e->comps[level + 1];
          Value src = p.eval(*inner.iter, frame);
          p.at(inner.iter->loc);
          iters.push_back(p.I.iter(src));
          continue;
        }
        return p.eval(*e->a, frame);
      }
      return std::nullopt;
    } catch (PyError& err) {
      iters.clear();  // a generator that raised is finished
      p.note(err);
      ExcInfo& info = p.exc_info(err.exc);
      info.traceback.insert(info.traceback.begin(), p.stack.back());
      throw;
    }
  }
};

}  // namespace

Value Interp::Impl::make_generator(const Expr& e, const CodeP& code, Frame& f, Value first_iter) {
  auto g = std::make_shared<GenState>();
  g->P = this;
  g->e = &e;
  g->code = code;
  g->module = *f.module;
  const size_t nslots = code->varnames.size();
  g->slots.reset(new Value[nslots ? nslots : 1]);
  g->frame.code = code.get();
  g->frame.fast = g->slots.get();
  g->frame.globals = g->module.get();
  g->frame.module = &g->module;
  g->frame.ns = &g->module->dict;
  for (size_t i = 0; i < code->cellnames.size(); ++i) g->frame.cells.push_back(std::make_shared<CellObj>(T().cell));
  for (uint32_t src : code->closure_src) g->frame.cells.push_back(f.cells[src]);
  g->iters.push_back(std::move(first_iter));
  return make_step_generator(this, code->name, code->qualname, [g]() { return g->next(); });
}

Value Interp::Impl::eval_comprehension(const Expr& e, Frame& f) {
  Code* code = code_of(e).get();
  if (!code || e.comps.empty()) I.raise("SystemError", "comprehension was not analysed");
  Value first = eval(*e.comps[0].iter, f);
  at(e.comps[0].iter->loc);
  Value first_iter = I.iter(first);
  if (e.kind == ExprKind::GeneratorExp) return make_generator(e, code_of(e), f, std::move(first_iter));

  at(e.loc);
  if (depth >= kMaxDepth) I.raise("RecursionError", "maximum recursion depth exceeded");
  check_stack();
  std::unique_ptr<Value[]> heap;
  const size_t nslots = code->varnames.size();
  Frame cf;
  cf.code = code;
  cf.fast = alloc_slots(nslots, heap);
  cf.globals = f.globals;
  cf.module = f.module;
  cf.ns = &f.globals->dict;
  cf.cells.reserve(code->ncells());
  for (size_t i = 0; i < code->cellnames.size(); ++i) cf.cells.push_back(std::make_shared<CellObj>(T().cell));
  for (uint32_t src : code->closure_src) cf.cells.push_back(f.cells[src]);
  stack.push_back(TraceEntry{e.loc, code->name});
  ++depth;
  struct Pop {
    Impl& P;
    Value* slots;
    size_t n;
    ~Pop() {
      P.stack.pop_back();
      --P.depth;
      P.free_slots(slots, n);
    }
  } pop{*this, cf.fast, nslots};

  std::shared_ptr<ListObj> list;
  std::shared_ptr<SetObj> set;
  std::shared_ptr<DictObj> dict;
  if (e.kind == ExprKind::SetComp) set = make_set(false);
  else if (e.kind == ExprKind::DictComp) dict = make_dict();
  else list = std::static_pointer_cast<ListObj>(make_list({}));

  std::function<void(size_t, const Value&)> level = [&](size_t li, const Value& iterator) {
    const ast::Comprehension& comp = e.comps[li];
    while (true) {
      poll_interrupt();
      at(comp.iter->loc);
      auto item = I.next(iterator);
      if (!item) break;
      assign(*comp.target, std::move(*item), cf);
      bool ok = true;
      for (auto& cond : comp.ifs)
        if (!I.truthy(eval(*cond, cf))) {
          ok = false;
          break;
        }
      if (!ok) continue;
      if (li + 1 < e.comps.size()) {
        const ast::Comprehension& next = e.comps[li + 1];
        Value src = eval(*next.iter, cf);
        at(next.iter->loc);
        level(li + 1, I.iter(src));
        continue;
      }
      if (list) {
        list->items.push_back(eval(*e.a, cf));
      } else if (set) {
        Value v = eval(*e.a, cf);
        at(e.a->loc);
        set->set(I, v, none());
      } else {
        Value k = eval(*e.a, cf);
        Value v = eval(*e.b, cf);
        at(e.a->loc);
        dict->set(I, k, std::move(v));
      }
    }
  };
  try {
    level(0, first_iter);
  } catch (PyError& err) {
    note(err);
    ExcInfo& info = exc_info(err.exc);
    info.traceback.insert(info.traceback.begin(), stack.back());
    throw;
  }
  if (set) return set;
  if (dict) return dict;
  return list;
}

}  // namespace shard::interp
