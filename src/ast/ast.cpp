// AST constructors, kind names and the debug dump.
#include "ast/ast.hpp"

#include <fmt/format.h>

namespace shard::ast {

const char* expr_kind_name(ExprKind k) {
  switch (k) {
#define X(n) \
  case ExprKind::n: return #n;
    SHARD_EXPR_KINDS(X)
#undef X
  }
  return "?";
}

const char* stmt_kind_name(StmtKind k) {
  switch (k) {
#define X(n) \
  case StmtKind::n: return #n;
    SHARD_STMT_KINDS(X)
#undef X
  }
  return "?";
}

const char* binop_symbol(BinOpKind k) {
  switch (k) {
    case BinOpKind::Add: return "+";
    case BinOpKind::Sub: return "-";
    case BinOpKind::Mul: return "*";
    case BinOpKind::Div: return "/";
    case BinOpKind::FloorDiv: return "//";
    case BinOpKind::Mod: return "%";
    case BinOpKind::Pow: return "**";
    case BinOpKind::MatMul: return "@";
    case BinOpKind::LShift: return "<<";
    case BinOpKind::RShift: return ">>";
    case BinOpKind::BitOr: return "|";
    case BinOpKind::BitXor: return "^";
    case BinOpKind::BitAnd: return "&";
  }
  return "?";
}

const char* cmpop_symbol(CmpOpKind k) {
  switch (k) {
    case CmpOpKind::Eq: return "==";
    case CmpOpKind::NotEq: return "!=";
    case CmpOpKind::Lt: return "<";
    case CmpOpKind::LtE: return "<=";
    case CmpOpKind::Gt: return ">";
    case CmpOpKind::GtE: return ">=";
    case CmpOpKind::Is: return "is";
    case CmpOpKind::IsNot: return "is not";
    case CmpOpKind::In: return "in";
    case CmpOpKind::NotIn: return "not in";
  }
  return "?";
}

ExprP make_expr(ExprKind k, Loc loc) { return std::make_shared<Expr>(k, loc); }
StmtP make_stmt(StmtKind k, Loc loc) { return std::make_shared<Stmt>(k, loc); }

namespace {

const char* unop_symbol(UnaryOpKind k) {
  switch (k) {
    case UnaryOpKind::Neg: return "-";
    case UnaryOpKind::Pos: return "+";
    case UnaryOpKind::Invert: return "~";
    case UnaryOpKind::Not: return "not";
  }
  return "?";
}

// A string shown with Python-like escapes, in single quotes.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (unsigned char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\'': out += "\\'"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
        else out += static_cast<char>(c);
    }
  }
  return out + "'";
}

// One node per line; children indented by two spaces and labelled with their field.
class Dumper {
 public:
  std::string out;

  void expr(const Expr* e, int depth, const std::string& label) {
    line(depth, label);
    if (!e) {
      out += "<null>\n";
      return;
    }
    out += expr_kind_name(e->kind);
    switch (e->kind) {
      case ExprKind::Name: out += " " + e->id; break;
      case ExprKind::Int: out += fmt::format(" {}", e->int_value); break;
      case ExprKind::Float: {
        // As Python's repr: always a '.' or an exponent.
        std::string f = fmt::format("{}", e->float_value);
        if (f.find_first_of(".eEn") == std::string::npos) f += ".0";
        out += " " + f;
        break;
      }
      case ExprKind::Imag: {
        std::string f = fmt::format("{}", e->float_value);
        out += " " + f + "j";
        break;
      }
      case ExprKind::Str: out += " " + quoted(e->str_value); break;
      case ExprKind::Bool: out += e->bool_value ? " True" : " False"; break;
      case ExprKind::BinOp: out += fmt::format(" {}", binop_symbol(e->binop)); break;
      case ExprKind::UnaryOp: out += fmt::format(" {}", unop_symbol(e->unop)); break;
      case ExprKind::BoolOp: out += e->boolop == BoolOpKind::And ? " and" : " or"; break;
      case ExprKind::Compare:
        for (auto op : e->cmp_ops) out += fmt::format(" [{}]", cmpop_symbol(op));
        break;
      case ExprKind::Attribute: out += " ." + e->id; break;
      case ExprKind::FormattedValue:
        if (e->conversion) out += fmt::format(" !{}", e->conversion);
        if (!e->str_value.empty()) out += " text=" + quoted(e->str_value);
        break;
      default: break;
    }
    out += fmt::format(" @{}:{}\n", e->loc.line, e->loc.col);
    const int d = depth + 1;
    switch (e->kind) {
      case ExprKind::Dict:  // values are kept in elts, parallel to keys
        for (size_t i = 0; i < e->keys.size() && i < e->elts.size(); ++i) {
          if (e->keys[i]) expr(e->keys[i].get(), d, "key=");
          else line(d, "**\n");
          expr(e->elts[i].get(), d, "value=");
        }
        return;
      case ExprKind::Lambda:
        params(e->params.get(), d);
        expr(e->a.get(), d, "body=");
        return;
      case ExprKind::Call:
        expr(e->a.get(), d, "func=");
        for (auto& x : e->elts) expr(x.get(), d, "arg=");
        for (auto& k : e->keywords) expr(k.value.get(), d, k.name.empty() ? "kw **" : "kw " + k.name + "=");
        return;
      case ExprKind::Slice:
        if (e->a) expr(e->a.get(), d, "lower=");
        if (e->b) expr(e->b.get(), d, "upper=");
        if (e->c) expr(e->c.get(), d, "step=");
        return;
      case ExprKind::FormattedValue:
        expr(e->a.get(), d, "value=");
        if (e->b) expr(e->b.get(), d, "spec=");
        return;
      default: break;
    }
    if (e->a) expr(e->a.get(), d, "");
    if (e->b) expr(e->b.get(), d, "");
    if (e->c) expr(e->c.get(), d, "");
    for (auto& x : e->elts) expr(x.get(), d, "");
    for (auto& c : e->comps) {
      expr(c.target.get(), d, "for ");
      expr(c.iter.get(), d, "in ");
      for (auto& i : c.ifs) expr(i.get(), d, "if ");
    }
  }

  void params(const Params* p, int depth) {
    if (!p) return;
    auto one = [&](const Param& prm, const std::string& prefix) {
      line(depth, "param " + prefix + prm.name + fmt::format(" @{}:{}\n", prm.loc.line, prm.loc.col));
      if (prm.default_value) expr(prm.default_value.get(), depth + 1, "default=");
    };
    for (auto& prm : p->positional) one(prm, "");
    if (p->vararg) one(*p->vararg, "*");
    for (auto& prm : p->kwonly) one(prm, "kwonly ");
    if (p->kwarg) one(*p->kwarg, "**");
  }

  void body(const Body& b, int depth, const char* label) {
    line(depth, std::string(label) + ":\n");
    for (auto& s : b) stmt(s.get(), depth + 1);
  }

  void stmt(const Stmt* s, int depth) {
    line(depth, stmt_kind_name(s->kind));
    switch (s->kind) {
      case StmtKind::FunctionDef:
      case StmtKind::ClassDef: out += " " + s->name; break;
      case StmtKind::AugAssign: out += fmt::format(" {}=", binop_symbol(s->binop)); break;
      case StmtKind::ImportFrom: out += fmt::format(" {}{}", std::string(s->level, '.'), s->name); break;
      case StmtKind::Global:
      case StmtKind::Nonlocal:
        for (auto& n : s->names) out += " " + n;
        break;
      default: break;
    }
    out += fmt::format(" @{}:{}\n", s->loc.line, s->loc.col);
    const int d = depth + 1;
    for (auto& dec : s->decorators) expr(dec.get(), d, "decorator=");
    for (auto& t : s->targets) expr(t.get(), d, "target=");
    if (s->target) expr(s->target.get(), d, "target=");
    if (s->annotation) expr(s->annotation.get(), d, "annotation=");
    if (s->iter) expr(s->iter.get(), d, "iter=");
    if (s->test) expr(s->test.get(), d, "test=");
    if (s->value) expr(s->value.get(), d, s->kind == StmtKind::Raise ? "exc=" : "value=");
    if (s->cause) expr(s->cause.get(), d, "cause=");
    if (s->msg) expr(s->msg.get(), d, "msg=");
    params(s->params.get(), d);
    for (auto& b : s->bases) expr(b.get(), d, "base=");
    for (auto& k : s->keywords) expr(k.value.get(), d, k.name.empty() ? "kw **" : "kw " + k.name + "=");
    for (auto& a : s->aliases)
      line(d, "alias " + a.name + (a.asname.empty() ? "" : " as " + a.asname) +
                  fmt::format(" @{}:{}\n", a.loc.line, a.loc.col));
    for (auto& it : s->items) {
      expr(it.context.get(), d, "with=");
      if (it.target) expr(it.target.get(), d + 1, "as=");
    }
    if (!s->body.empty()) body(s->body, d, "body");
    for (auto& h : s->handlers) {
      line(d, "except" + (h.name.empty() ? "" : " as " + h.name) + fmt::format(" @{}:{}\n", h.loc.line, h.loc.col));
      if (h.type) expr(h.type.get(), d + 1, "type=");
      body(h.body, d + 1, "body");
    }
    if (!s->orelse.empty()) body(s->orelse, d, "orelse");
    if (!s->finalbody.empty()) body(s->finalbody, d, "finally");
  }

 private:
  void line(int depth, const std::string& text) {
    out.append(static_cast<size_t>(depth) * 2, ' ');
    out += text;
  }
};

}  // namespace

std::string dump(const Module& m) {
  Dumper d;
  d.out = "Module\n";
  for (auto& s : m.body) d.stmt(s.get(), 1);
  return d.out;
}

std::string dump(const Expr& e) {
  Dumper d;
  d.expr(&e, 0, "");
  return d.out;
}

namespace {
thread_local std::vector<ExprP>* g_expr_queue = nullptr;  // set while the outermost ~Expr drains
}  // namespace

Expr::~Expr() {
  std::vector<ExprP> held;
  auto take = [&](ExprP& e) {
    if (e && e.use_count() == 1) held.push_back(std::move(e));
  };
  take(a);
  take(b);
  take(c);
  for (auto& e : elts) take(e);
  for (auto& e : keys) take(e);
  if (held.empty()) return;
  if (g_expr_queue) {
    for (auto& e : held) g_expr_queue->push_back(std::move(e));
    return;
  }
  g_expr_queue = &held;
  while (!held.empty()) {
    ExprP e = std::move(held.back());
    held.pop_back();
    e.reset();  // its destructor queues its children
  }
  g_expr_queue = nullptr;
}

}  // namespace shard::ast
