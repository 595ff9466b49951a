// Scope analysis, like CPython's symtable: for every module, class, function, lambda and
// comprehension, decide whether each name is a fast local, a cell, a free variable from an
// enclosing function, a global, or a dynamic (module/class namespace) name. The result is
// a Code per scope, and each Name node gets its resolution stamped into Expr::int_value.
#include <unordered_set>

#include "grammar/parse.hpp"
#include "interp/interp_impl.hpp"

namespace shard::interp {
namespace {

using ast::Expr;
using ast::ExprKind;
using ast::Stmt;
using ast::StmtKind;

struct Scope {
  ScopeKind kind;
  Scope* parent = nullptr;
  std::string name, qualname;
  std::vector<std::unique_ptr<Scope>> children;
  std::vector<std::string> order;  // every name, in order of first appearance
  std::unordered_set<std::string> seen, bound, used, globals, nonlocals, params;
  std::vector<std::string> free_order, cell_order;
  std::unordered_set<std::string> free, cells;
  std::unordered_map<std::string, ast::Loc> nonlocal_loc;
  std::vector<Expr*> name_nodes;
  const ast::Params* param_list = nullptr;
  const Stmt* stmt = nullptr;  // FunctionDef / ClassDef
  Expr* expr = nullptr;        // Lambda / comprehension
  std::unordered_map<std::string, SymKind> kinds;  // phase A result
  CodeP code;
  bool has_docstring = false;
  bool is_generator = false;  // a `yield` in this scope's own body

  bool function_like() const {
    return kind == ScopeKind::Function || kind == ScopeKind::Lambda || kind == ScopeKind::Comprehension;
  }
  void note(const std::string& n) {
    if (seen.insert(n).second) order.push_back(n);
  }
  void add_free(const std::string& n) {
    if (free.insert(n).second) free_order.push_back(n);
  }
  void add_cell(const std::string& n) {
    if (cells.insert(n).second) cell_order.push_back(n);
  }
};

[[noreturn]] void syntax_error(ast::Loc loc, const std::string& msg) {
  throw grammar::SyntaxError(loc, "SyntaxError", msg);
}

// CPython refuses deeper nesting the same way ("... during compilation").
constexpr int kMaxNesting = 2500;

class Builder {
 public:
  std::unique_ptr<Scope> root;

  void build(ast::Module& m) {
    root = std::make_unique<Scope>();
    root->kind = ScopeKind::Module;
    root->name = "<module>";
    visit_body(m.body, *root);
  }

 private:
  int loop_depth_ = 0;

  static std::string child_prefix(const Scope& parent) {
    if (parent.kind == ScopeKind::Module) return "";
    if (parent.kind == ScopeKind::Class) return parent.qualname + ".";
    return parent.qualname + ".<locals>.";
  }

  Scope& new_child(Scope& parent, ScopeKind kind, const std::string& name) {
    auto child = std::make_unique<Scope>();
    child->kind = kind;
    child->parent = &parent;
    child->name = name;
    child->qualname = child_prefix(parent) + name;
    Scope& ref = *child;
    parent.children.push_back(std::move(child));
    return ref;
  }

  void bind(Scope& s, const std::string& n, ast::Loc loc) {
    if (s.globals.count(n) == 0 && s.nonlocals.count(n) == 0) s.bound.insert(n);
    s.note(n);
  }
  void use(Scope& s, const std::string& n) {
    s.used.insert(n);
    s.note(n);
  }

  void visit_body(const ast::Body& body, Scope& s) {
    for (auto& st : body) visit_stmt(*st, s);
  }

  void visit_params(const ast::Params& p, Scope& outer, Scope& inner, ast::Loc loc) {
    // Defaults are evaluated where the function is defined.
    for (auto& prm : p.positional)
      if (prm.default_value) visit_expr(*prm.default_value, outer);
    for (auto& prm : p.kwonly)
      if (prm.default_value) visit_expr(*prm.default_value, outer);
    auto add = [&](const ast::Param& prm) {
      if (!inner.params.insert(prm.name).second)
        syntax_error(prm.loc.line ? prm.loc : loc, "duplicate argument '" + prm.name + "' in function definition");
      bind(inner, prm.name, prm.loc);
    };
    for (auto& prm : p.positional) add(prm);
    for (auto& prm : p.kwonly) add(prm);
    if (p.vararg) add(*p.vararg);
    if (p.kwarg) add(*p.kwarg);
    inner.param_list = &p;
  }

  void declare_global(Scope& s, const Stmt& st, bool nonlocal) {
    for (auto& n : st.names) {
      const char* what = nonlocal ? "nonlocal" : "global";
      if (s.params.count(n))
        syntax_error(st.loc, "name '" + n + "' is parameter and " + what);
      if ((nonlocal && s.globals.count(n)) || (!nonlocal && s.nonlocals.count(n)))
        syntax_error(st.loc, "name '" + n + "' is nonlocal and global");
      if (s.bound.count(n))
        syntax_error(st.loc, "name '" + n + "' is assigned to before " + what + " declaration");
      if (s.used.count(n))
        syntax_error(st.loc, "name '" + n + "' is used prior to " + what + " declaration");
      if (nonlocal) {
        if (s.kind == ScopeKind::Module) syntax_error(st.loc, "nonlocal declaration not allowed at module level");
        s.nonlocals.insert(n);
        s.nonlocal_loc[n] = st.loc;
      } else {
        s.globals.insert(n);
      }
      s.note(n);
    }
  }

  struct Nest {
    int& depth;
    Nest(int& d, ast::Loc loc) : depth(d) {
      if (++depth > kMaxNesting || stack_nearly_exhausted())
        throw grammar::SyntaxError(loc, "RecursionError", "maximum recursion depth exceeded during compilation");
    }
    ~Nest() { --depth; }
  };
  int nesting_ = 0;

  void visit_stmt(Stmt& st, Scope& s) {
    Nest nest(nesting_, st.loc);
    switch (st.kind) {
      case StmtKind::ExprStmt:
        visit_expr(*st.value, s);
        break;
      case StmtKind::Assign:
        visit_expr(*st.value, s);
        for (auto& t : st.targets) visit_target(*t, s);
        break;
      case StmtKind::AugAssign:
        if (st.target->kind == ExprKind::Name) use(s, st.target->id);
        visit_target(*st.target, s);
        visit_expr(*st.value, s);
        break;
      case StmtKind::AnnAssign:
        if (st.value) visit_expr(*st.value, s);
        visit_target(*st.target, s);
        // Annotations are evaluated in module and class bodies only (never in functions).
        if (!s.function_like()) visit_expr(*st.annotation, s);
        break;
      case StmtKind::FunctionDef: {
        for (auto& d : st.decorators) visit_expr(*d, s);
        Scope& fn = new_child(s, ScopeKind::Function, st.name);
        fn.stmt = &st;
        visit_params(*st.params, s, fn, st.loc);
        bind(s, st.name, st.loc);
        if (!st.body.empty() && st.body[0]->kind == StmtKind::ExprStmt && st.body[0]->value &&
            st.body[0]->value->kind == ExprKind::Str)
          fn.has_docstring = true;
        int saved = loop_depth_;
        loop_depth_ = 0;
        visit_body(st.body, fn);
        loop_depth_ = saved;
        break;
      }
      case StmtKind::ClassDef: {
        for (auto& d : st.decorators) visit_expr(*d, s);
        for (auto& b : st.bases) visit_expr(*b, s);
        for (auto& k : st.keywords) visit_expr(*k.value, s);
        Scope& cls = new_child(s, ScopeKind::Class, st.name);
        cls.stmt = &st;
        bind(s, st.name, st.loc);
        int saved = loop_depth_;
        loop_depth_ = 0;
        visit_body(st.body, cls);
        loop_depth_ = saved;
        break;
      }
      case StmtKind::Return:
        if (!s.function_like()) syntax_error(st.loc, "'return' outside function");
        if (st.value) visit_expr(*st.value, s);
        break;
      case StmtKind::If:
        visit_expr(*st.test, s);
        visit_body(st.body, s);
        visit_body(st.orelse, s);
        break;
      case StmtKind::For:
        visit_expr(*st.iter, s);
        visit_target(*st.target, s);
        ++loop_depth_;
        visit_body(st.body, s);
        --loop_depth_;
        visit_body(st.orelse, s);
        break;
      case StmtKind::While:
        visit_expr(*st.test, s);
        ++loop_depth_;
        visit_body(st.body, s);
        --loop_depth_;
        visit_body(st.orelse, s);
        break;
      case StmtKind::Break:
        if (loop_depth_ == 0) syntax_error(st.loc, "'break' outside loop");
        break;
      case StmtKind::Continue:
        if (loop_depth_ == 0) syntax_error(st.loc, "'continue' not properly in loop");
        break;
      case StmtKind::Pass:
        break;
      case StmtKind::With:
        for (auto& item : st.items) {
          visit_expr(*item.context, s);
          if (item.target) visit_target(*item.target, s);
        }
        visit_body(st.body, s);
        break;
      case StmtKind::Try:
        visit_body(st.body, s);
        for (auto& h : st.handlers) {
          if (h.type) visit_expr(*h.type, s);
          if (!h.name.empty()) bind(s, h.name, h.loc);
          visit_body(h.body, s);
        }
        visit_body(st.orelse, s);
        visit_body(st.finalbody, s);
        break;
      case StmtKind::Raise:
        if (st.value) visit_expr(*st.value, s);
        if (st.cause) visit_expr(*st.cause, s);
        break;
      case StmtKind::Assert:
        visit_expr(*st.test, s);
        if (st.msg) visit_expr(*st.msg, s);
        break;
      case StmtKind::Import:
        for (auto& a : st.aliases) {
          std::string n = a.asname.empty() ? a.name.substr(0, a.name.find('.')) : a.asname;
          bind(s, n, a.loc);
        }
        break;
      case StmtKind::ImportFrom:
        for (auto& a : st.aliases) {
          if (a.name == "*") {
            if (s.kind != ScopeKind::Module) syntax_error(st.loc, "import * only allowed at module level");
            continue;
          }
          bind(s, a.asname.empty() ? a.name : a.asname, a.loc);
        }
        break;
      case StmtKind::Global:
        declare_global(s, st, false);
        break;
      case StmtKind::Nonlocal:
        declare_global(s, st, true);
        break;
      case StmtKind::Delete:
        for (auto& t : st.targets) visit_target(*t, s);
        break;
    }
  }

  // An assignment target: names are bound; attribute/subscript parts are evaluated.
  void visit_target(Expr& e, Scope& s) {
    Nest nest(nesting_, e.loc);
    switch (e.kind) {
      case ExprKind::Name:
        bind(s, e.id, e.loc);
        s.name_nodes.push_back(&e);
        break;
      case ExprKind::Tuple:
      case ExprKind::List:
        for (auto& x : e.elts) visit_target(*x, s);
        break;
      case ExprKind::Starred:
        visit_target(*e.a, s);
        break;
      default:
        visit_expr(e, s);  // Attribute / Subscript (and invalid targets, rejected at run time)
        break;
    }
  }

  static const char* comp_name(ExprKind k) {
    switch (k) {
      case ExprKind::ListComp: return "<listcomp>";
      case ExprKind::SetComp: return "<setcomp>";
      case ExprKind::DictComp: return "<dictcomp>";
      default: return "<genexpr>";
    }
  }

  void visit_expr(Expr& e, Scope& s) {
    Nest nest(nesting_, e.loc);
    switch (e.kind) {
      case ExprKind::Name:
        use(s, e.id);
        s.name_nodes.push_back(&e);
        // Zero-argument super() needs the enclosing class through the __class__ cell.
        if (e.id == "super" && s.function_like()) use(s, "__class__");
        return;
      case ExprKind::Lambda: {
        Scope& fn = new_child(s, ScopeKind::Lambda, "<lambda>");
        fn.expr = &e;
        visit_params(*e.params, s, fn, e.loc);
        int saved = loop_depth_;
        loop_depth_ = 0;
        visit_expr(*e.a, fn);
        loop_depth_ = saved;
        return;
      }
      case ExprKind::ListComp:
      case ExprKind::SetComp:
      case ExprKind::DictComp:
      case ExprKind::GeneratorExp: {
        if (e.comps.empty()) return;
        visit_expr(*e.comps[0].iter, s);  // the first iterable is evaluated outside
        Scope& c = new_child(s, ScopeKind::Comprehension, comp_name(e.kind));
        c.expr = &e;
        int saved = loop_depth_;
        loop_depth_ = 0;
        for (size_t i = 0; i < e.comps.size(); ++i) {
          auto& comp = e.comps[i];
          if (i > 0) visit_expr(*comp.iter, c);
          visit_target(*comp.target, c);
          for (auto& cond : comp.ifs) visit_expr(*cond, c);
        }
        if (e.a) visit_expr(*e.a, c);
        if (e.b) visit_expr(*e.b, c);
        loop_depth_ = saved;
        return;
      }
      case ExprKind::Yield:
      case ExprKind::YieldFrom:
        if (s.kind == ScopeKind::Module || s.kind == ScopeKind::Class) syntax_error(e.loc, "'yield' outside function");
        if (s.kind == ScopeKind::Comprehension) {
          const ExprKind k = s.expr ? s.expr->kind : ExprKind::GeneratorExp;
          syntax_error(e.loc, std::string("'yield' inside ") +
                                  (k == ExprKind::ListComp  ? "list comprehension"
                                   : k == ExprKind::SetComp ? "set comprehension"
                                   : k == ExprKind::DictComp ? "dict comprehension"
                                                             : "generator expression"));
        }
        s.is_generator = true;
        break;
      case ExprKind::NamedExpr: {
        visit_expr(*e.b, s);
        Expr& target = *e.a;
        if (target.kind != ExprKind::Name) {
          visit_expr(target, s);
          return;
        }
        if (s.kind == ScopeKind::Comprehension) {
          // The walrus binds in the nearest enclosing non-comprehension scope.
          Scope* t = s.parent;
          while (t && t->kind == ScopeKind::Comprehension) t = t->parent;
          if (t->kind == ScopeKind::Class)
            syntax_error(e.loc, "assignment expression within a comprehension cannot be used in a class body");
          bind(*t, target.id, target.loc);
          use(s, target.id);
        } else {
          bind(s, target.id, target.loc);
        }
        s.name_nodes.push_back(&target);
        return;
      }
      default:
        break;
    }
    if (e.a) visit_expr(*e.a, s);
    if (e.b) visit_expr(*e.b, s);
    if (e.c) visit_expr(*e.c, s);
    for (auto& x : e.keys)
      if (x) visit_expr(*x, s);
    for (auto& x : e.elts)
      if (x) visit_expr(*x, s);
    for (auto& k : e.keywords)
      if (k.value) visit_expr(*k.value, s);
  }
};

// Phase A: decide local / global / free for every name, marking cells in the binders and
// free pass-through in intermediate scopes.
class Resolver {
 public:
  void resolve(Scope& s) {
    for (auto& n : s.order) s.kinds[n] = kind_of(s, n);
    for (auto& c : s.children) resolve(*c);
  }

 private:
  // The scope that binds `n` for a reference from `s`, or null for a global.
  static Scope* find_binder(Scope& s, const std::string& n) {
    for (Scope* p = s.parent; p; p = p->parent) {
      if (p->kind == ScopeKind::Module) return nullptr;
      if (p->kind == ScopeKind::Class) {
        if (n == "__class__") return p;
        continue;
      }
      if (p->globals.count(n)) return nullptr;
      if (p->nonlocals.count(n) || p->bound.count(n)) return p;
    }
    return nullptr;
  }

  static void mark_free(Scope& s, Scope& binder, const std::string& n) {
    for (Scope* p = &s; p != &binder; p = p->parent) p->add_free(n);
    if (binder.kind == ScopeKind::Class || !binder.nonlocals.count(n)) binder.add_cell(n);
  }

  SymKind kind_of(Scope& s, const std::string& n) {
    if (s.kind == ScopeKind::Module) return SymKind::Dynamic;
    if (s.globals.count(n)) return SymKind::Global;
    if (s.nonlocals.count(n)) {
      Scope* b = find_binder(s, n);
      if (!b || b->kind == ScopeKind::Class) syntax_error(s.nonlocal_loc[n], "no binding for nonlocal '" + n + "' found");
      mark_free(s, *b, n);
      return SymKind::Deref;
    }
    if (s.kind == ScopeKind::Class) {
      if (s.bound.count(n)) return SymKind::Dynamic;
      if (n == "__class__") return SymKind::Dynamic;
      if (Scope* b = find_binder(s, n)) {
        mark_free(s, *b, n);
        return SymKind::ClassDeref;
      }
      return SymKind::Dynamic;
    }
    if (s.bound.count(n)) return SymKind::Fast;  // may become a cell when a child captures it
    if (Scope* b = find_binder(s, n)) {
      mark_free(s, *b, n);
      return SymKind::Deref;
    }
    return SymKind::Global;
  }
};

// Phase B: slots, cell indices, Code objects and Name annotations.
class Emitter {
 public:
  explicit Emitter(Interp::Impl& P) : P_(P) {}

  void emit(Scope& s) {
    auto code = std::make_shared<Code>();
    s.code = code;
    code->kind = s.kind;
    code->name = s.name;
    code->qualname = s.qualname;
    code->has_docstring = s.has_docstring;
    code->is_generator = s.is_generator;
    code->cellnames = s.cell_order;
    code->freenames = s.free_order;
    std::unordered_map<std::string, uint32_t> cell_index;
    for (size_t i = 0; i < code->cellnames.size(); ++i) cell_index[code->cellnames[i]] = uint32_t(i);
    std::unordered_map<std::string, uint32_t> free_index;
    for (size_t i = 0; i < code->freenames.size(); ++i)
      free_index[code->freenames[i]] = uint32_t(code->cellnames.size() + i);

    std::unordered_map<std::string, uint32_t> slot;
    if (s.function_like()) {
      auto add_slot = [&](const std::string& n) {
        if (slot.count(n)) return;
        slot[n] = uint32_t(code->varnames.size());
        code->varnames.push_back(n);
      };
      if (s.param_list) {
        const ast::Params& p = *s.param_list;
        for (auto& prm : p.positional) add_slot(prm.name);
        for (auto& prm : p.kwonly) add_slot(prm.name);
        code->npos = uint32_t(p.positional.size());
        code->nkwonly = uint32_t(p.kwonly.size());
        if (p.vararg) {
          code->vararg_slot = int32_t(code->varnames.size());
          add_slot(p.vararg->name);
        }
        if (p.kwarg) {
          code->kwarg_slot = int32_t(code->varnames.size());
          add_slot(p.kwarg->name);
        }
      }
      for (auto& n : s.order)
        if (s.kinds[n] == SymKind::Fast && !s.cells.count(n)) add_slot(n);
    }
    code->cell_param.assign(code->cellnames.size(), -1);
    for (size_t i = 0; i < code->cellnames.size(); ++i) {
      auto it = slot.find(code->cellnames[i]);
      if (it != slot.end() && s.params.count(code->cellnames[i])) code->cell_param[i] = int32_t(it->second);
    }
    if (auto it = cell_index.find("__class__"); it != cell_index.end() && s.kind == ScopeKind::Class)
      code->class_cell = int32_t(it->second);
    if (auto it = free_index.find("__class__"); it != free_index.end() && s.kind != ScopeKind::Class)
      code->class_cell = int32_t(it->second);

    for (auto& n : s.order) {
      SymKind k = s.kinds[n];
      Sym sym{k, 0};
      switch (k) {
        case SymKind::Fast:
          if (s.cells.count(n)) sym = Sym{SymKind::Deref, cell_index[n]};
          else sym.index = slot[n];
          break;
        case SymKind::Deref:
          sym.index = s.cells.count(n) ? cell_index[n] : free_index[n];
          break;
        case SymKind::ClassDeref:
          sym.index = free_index[n];
          break;
        default:
          break;
      }
      code->syms[n] = sym;
    }
    for (Expr* node : s.name_nodes) {
      Sym sym = code->lookup(node->id);
      // Module-level and global names get an inline cache (class bodies look in their
      // namespace first, so they are not cached).
      if (sym.kind == SymKind::Global || (sym.kind == SymKind::Dynamic && s.kind == ScopeKind::Module))
        sym.index = P_.new_global_cache();
      node->int_value = encode_sym(sym);
    }

    for (auto& c : s.children) {
      emit(*c);
      Code& cc = *c->code;
      for (auto& fn : cc.freenames) {
        uint32_t idx = cell_index.count(fn) ? cell_index[fn] : free_index[fn];
        cc.closure_src.push_back(idx);
      }
      if (c->stmt) {
        P_.stmt_codes[c->stmt] = c->code;
      } else if (c->expr) {
        P_.expr_codes.push_back(c->code);
        c->expr->int_value = int64_t(P_.expr_codes.size());
      }
    }
  }

 private:
  Interp::Impl& P_;
};

}  // namespace

CodeP Interp::Impl::analyze_module(ast::Module& m) {
  Builder b;
  b.build(m);
  Resolver().resolve(*b.root);
  Emitter(*this).emit(*b.root);
  return b.root->code;
}

static const CodeP kNoCode;

const CodeP& Interp::Impl::code_of(const ast::Stmt& s) {
  auto it = stmt_codes.find(&s);
  return it == stmt_codes.end() ? kNoCode : it->second;
}

const CodeP& Interp::Impl::code_of(const ast::Expr& e) {
  if (e.int_value <= 0 || size_t(e.int_value) > expr_codes.size()) return kNoCode;
  return expr_codes[size_t(e.int_value - 1)];
}

}  // namespace shard::interp
