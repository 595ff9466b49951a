// Expression evaluation: literals, displays, operators, calls, f-strings (names are in
// names.cpp, comprehensions in comprehension.cpp). Every operation that may raise first
// records its node's location in the frame's stack entry (Impl::at) so errors and
// tracebacks point at the user's code.
#include "interp/interp_impl.hpp"

namespace shard::interp {

using ast::Expr;
using ast::ExprKind;

namespace {

// The `ascii()` form of a repr: non-ASCII characters escaped as \xNN, \uNNNN, \UNNNNNNNN.
std::string ascii_escape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      out += char(c);
      ++i;
      continue;
    }
    uint32_t cp = 0;
    int len = (c >= 0xF0) ? 4 : (c >= 0xE0) ? 3 : (c >= 0xC0) ? 2 : 1;
    cp = (len == 1) ? c : (c & (0x7F >> len));
    for (int k = 1; k < len && i + k < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    i += len;
    char buf[16];
    if (cp <= 0xFF) snprintf(buf, sizeof buf, "\\x%02x", cp);
    else if (cp <= 0xFFFF) snprintf(buf, sizeof buf, "\\u%04x", cp);
    else snprintf(buf, sizeof buf, "\\U%08x", cp);
    out += buf;
  }
  return out;
}


}  // namespace

// ---------------------------------------------------------------- helpers

void Interp::Impl::eval_elements(const std::vector<ast::ExprP>& elts, Frame& f, std::vector<Value>& out) {
  out.reserve(out.size() + elts.size());
  for (auto& x : elts) {
    if (x->kind == ExprKind::Starred) {
      Value it = eval(*x->a, f);
      if (is(it, ObjKind::Tuple) || is(it, ObjKind::List)) {
        auto& items = is(it, ObjKind::Tuple) ? as<TupleObj>(it).items : as<ListObj>(it).items;
        out.insert(out.end(), items.begin(), items.end());
      } else {
        at(x->loc);
        I.for_each(it, [&](const Value& v) {
          out.push_back(v);
          return true;
        });
      }
    } else {
      out.push_back(eval(*x, f));
    }
  }
}

Value Interp::Impl::eval_slice(const Expr& e, Frame& f) {
  Value lo = e.a ? eval(*e.a, f) : none();
  Value hi = e.b ? eval(*e.b, f) : none();
  Value st = e.c ? eval(*e.c, f) : none();
  return std::make_shared<SliceObj>(T().slice, std::move(lo), std::move(hi), std::move(st));
}

Value Interp::Impl::eval_compare(const Expr& e, Frame& f) {
  Value left = eval(*e.a, f);
  const size_t n = e.cmp_ops.size();
  for (size_t i = 0; i < n; ++i) {
    Value right = eval(*e.elts[i], f);
    at(e.loc);
    Value r = I.compare(e.cmp_ops[i], left, right);
    if (i + 1 == n) return r;
    if (!I.truthy(r)) return r;
    left = std::move(right);
  }
  return make_bool(true);
}

Value Interp::Impl::eval_fstring(const Expr& e, Frame& f) {
  std::string out;
  for (auto& part : e.elts) {
    if (part->kind == ExprKind::Str) {
      out += part->str_value;
      continue;
    }
    if (part->kind != ExprKind::FormattedValue) {
      out += I.str(eval(*part, f));
      continue;
    }
    out += part->str_value;  // the "expr=" text of {expr=}
    Value v = eval(*part->a, f);
    at(part->loc);
    char conv = part->conversion;
    if (conv == 0 && !part->str_value.empty() && !part->b) conv = 'r';
    if (conv == 'r') v = make_str(I.repr(v));
    else if (conv == 's') v = make_str(I.str(v));
    else if (conv == 'a') v = make_str(ascii_escape(I.repr(v)));
    std::string spec;
    if (part->b) {
      Value sv = eval(*part->b, f);
      spec = is(sv, ObjKind::Str) ? as<StrObj>(sv).v : I.str(sv);
    }
    at(part->loc);
    if (spec.empty() && is(v, ObjKind::Str)) out += as<StrObj>(v).v;
    else out += I.format(v, spec);
  }
  return make_str(std::move(out));
}

Value Interp::Impl::make_function(Code* code, const ast::Params& params, Frame& f, const std::string& doc) {
  auto fn = std::make_shared<FunctionObj>(T().function);
  fn->name = code->name;
  fn->qualname = code->qualname;
  fn->params = &params;
  for (auto& p : params.positional)
    if (p.default_value) fn->defaults.push_back(eval(*p.default_value, f));
  for (auto& p : params.kwonly)
    if (p.default_value) fn->kwdefaults.set(p.name, eval(*p.default_value, f));
  fn->closure.reserve(code->freenames.size());
  for (uint32_t src : code->closure_src) fn->closure.push_back(f.cells[src]);
  fn->globals = *f.module;
  if (!doc.empty()) fn->dict.set("__doc__", make_str(doc));
  return fn;
}

// ---------------------------------------------------------------- calls

Value Interp::Impl::eval_call(const Expr& e, Frame& f) {
  const Expr& fe = *e.a;
  Value callee;
  std::vector<Value> args;
  args.reserve(e.elts.size() + 1);
  if (fe.kind == ExprKind::Attribute) {
    Value obj = eval(*fe.a, f);
    at(fe.loc);
    bool prepend = false;
    callee = load_method_at(obj, fe, prepend);
    if (prepend) args.push_back(std::move(obj));
  } else {
    callee = eval(fe, f);
  }
  bool simple = e.keywords.empty();
  for (auto& x : e.elts)
    if (x->kind == ExprKind::Starred) simple = false;
  if (!simple || (fe.kind == ExprKind::Name && fe.id == "super")) return eval_call_general(e, f, callee, args);
  for (auto& x : e.elts) args.push_back(eval(*x, f));
  at(e.loc);
  return call(callee, args, nullptr, e.loc);
}

// Calls with *args, **kwargs, keywords, or super(): out of line to keep eval_call small.
__attribute__((noinline)) Value Interp::Impl::eval_call_general(const Expr& e, Frame& f, const Value& callee,
                                                                std::vector<Value>& args) {
  const Expr& fe = *e.a;
  {
    for (auto& x : e.elts) {
      if (x->kind != ExprKind::Starred) {
        args.push_back(eval(*x, f));
        continue;
      }
      Value it = eval(*x->a, f);
      if (is(it, ObjKind::Tuple) || is(it, ObjKind::List)) {
        auto& items = is(it, ObjKind::Tuple) ? as<TupleObj>(it).items : as<ListObj>(it).items;
        args.insert(args.end(), items.begin(), items.end());
        continue;
      }
      at(x->loc);
      bool iterable = true;
      Value iterator;
      try {
        iterator = I.iter(it);
      } catch (PyError& err) {
        if (!I.isinstance(err.exc, *I.builtin_class("TypeError"))) throw;
        iterable = false;
      }
      if (!iterable)
        I.raise("TypeError", func_display_name(I, callee) + " argument after * must be an iterable, not " + I.type_name(it));
      while (auto v = I.next(iterator)) args.push_back(std::move(*v));
    }
  }
  std::vector<std::pair<std::string, Value>> kwargs;
  if (!e.keywords.empty()) {
    kwargs.reserve(e.keywords.size());
    for (auto& kw : e.keywords) {
      if (!kw.name.empty()) {
        kwargs.emplace_back(kw.name, eval(*kw.value, f));
        continue;
      }
      Value m = eval(*kw.value, f);
      at(kw.value->loc);
      auto add = [&](const Value& k, Value v) {
        if (!is(k, ObjKind::Str)) I.raise("TypeError", "keywords must be strings");
        const std::string& name = as<StrObj>(k).v;
        for (auto& [n, _] : kwargs)
          if (n == name)
            I.raise("TypeError", func_display_name(I, callee) + " got multiple values for keyword argument '" + name + "'");
        kwargs.emplace_back(name, std::move(v));
      };
      if (is(m, ObjKind::Dict)) {
        for (auto& [k, v] : as<DictObj>(m).items()) add(k, v);
      } else if (auto keys = I.call_method(m, "keys", {})) {
        for (auto& k : I.to_vector(*keys)) add(k, I.getitem(m, k));
      } else {
        I.raise("TypeError", func_display_name(I, callee) + " argument after ** must be a mapping, not " + I.type_name(m));
      }
    }
  }
  // Zero-argument super() reads the method's __class__ cell and first argument.
  if (fe.kind == ExprKind::Name && fe.id == "super" && args.empty() && kwargs.empty() &&
      (callee.get() == T().super_.get())) {
    at(e.loc);
    return call_zero_arg_super(f);
  }
  at(e.loc);
  return call(callee, args, kwargs.empty() ? nullptr : &kwargs, e.loc);
}

// ---------------------------------------------------------------- eval

__attribute__((noinline)) Value Interp::Impl::make_const(const Expr& e) {
  Value v = e.kind == ExprKind::Float ? make_float(e.float_value)
            : e.kind == ExprKind::Imag ? make_complex(0.0, e.float_value)
                                       : make_str(e.str_value);
  consts.push_back(v);
  const_cast<Expr&>(e).int_value = int64_t(consts.size());
  return v;
}

// The less frequent expression kinds, out of line so that eval's own stack frame stays
// small (it is on the C++ stack once per nesting level and per Python call).
__attribute__((noinline)) Value Interp::Impl::eval_display(const Expr& e, Frame& f) {
  switch (e.kind) {
    case ExprKind::FormattedValue: {
      ast::Expr wrapper(ExprKind::FString, e.loc);
      wrapper.elts.push_back(std::make_shared<ast::Expr>(e));
      return eval_fstring(wrapper, f);
    }
    case ExprKind::Tuple: {
      std::vector<Value> items;
      eval_elements(e.elts, f, items);
      return make_tuple(std::move(items));
    }
    case ExprKind::List: {
      std::vector<Value> items;
      eval_elements(e.elts, f, items);
      return make_list(std::move(items));
    }
    case ExprKind::Set: {
      std::vector<Value> items;
      eval_elements(e.elts, f, items);
      auto s = make_set(false);
      at(e.loc);
      for (auto& v : items) s->set(I, v, none());
      return s;
    }
    case ExprKind::Dict: {
      auto d = make_dict();
      for (size_t i = 0; i < e.keys.size() && i < e.elts.size(); ++i) {
        if (!e.keys[i]) {
          Value m = eval(*e.elts[i], f);
          at(e.elts[i]->loc);
          if (is(m, ObjKind::Dict)) {
            for (auto& [k, v] : as<DictObj>(m).items()) d->set(I, k, v);
          } else if (auto keys = I.call_method(m, "keys", {})) {
            for (auto& k : I.to_vector(*keys)) d->set(I, k, I.getitem(m, k));
          } else {
            I.raise("TypeError", "'" + I.type_name(m) + "' object is not a mapping");
          }
          continue;
        }
        Value k = eval(*e.keys[i], f);
        Value v = eval(*e.elts[i], f);
        at(e.keys[i]->loc);
        d->set(I, k, std::move(v));
      }
      return d;
    }
    case ExprKind::Lambda: {
      const CodeP& code = code_of(e);
      if (!code) I.raise("SystemError", "lambda was not analysed");
      Value fn = make_function(code.get(), *e.params, f, "");
      auto& fo = as<FunctionObj>(fn);
      // ASTs live as long as the interpreter (modules_ast), so a non-owning pointer is safe.
      fo.lambda = std::shared_ptr<Expr>(std::shared_ptr<Expr>{}, const_cast<Expr*>(&e));
      fo.code = code;
      return fn;
    }
    case ExprKind::Starred:
      at(e.loc);
      I.raise("SyntaxError", "can't use starred expression here");
    case ExprKind::NamedExpr: {
      Value v = eval(*e.b, f);
      if (e.a->kind == ExprKind::Name) store_name(*e.a, v, f);
      else assign(*e.a, v, f);
      return v;
    }
    case ExprKind::FString:
      return eval_fstring(e, f);
    case ExprKind::Slice:
      return eval_slice(e, f);
    case ExprKind::ListComp:
    case ExprKind::SetComp:
    case ExprKind::DictComp:
    case ExprKind::GeneratorExp:
      return eval_comprehension(e, f);
    case ExprKind::Yield:
      return eval_yield(e, f);
    case ExprKind::YieldFrom:
      return eval_yield_from(e, f);
    case ExprKind::BoolOp: {
      Value v = eval(*e.elts[0], f);
      const bool is_and = e.boolop == ast::BoolOpKind::And;
      for (size_t i = 1; i < e.elts.size(); ++i) {
        at(e.elts[i - 1]->loc);
        if (I.truthy(v) != is_and) return v;
        v = eval(*e.elts[i], f);
      }
      return v;
    }
    default:
      return none();
  }
}

Value Interp::Impl::eval(const Expr& e, Frame& f) {
  if (stack_nearly_exhausted()) {
    at(e.loc);
    I.raise("RecursionError", "maximum recursion depth exceeded");
  }
  switch (e.kind) {
    case ExprKind::Name:
      return load_name(e, f);
    case ExprKind::Int:
      return make_int(e.int_value);
    case ExprKind::Float:
    case ExprKind::Imag:
    case ExprKind::Str:
      // Literals are immutable: each node makes its value once (int_value = slot + 1).
      if (e.int_value > 0 && size_t(e.int_value) <= consts.size()) return consts[size_t(e.int_value - 1)];
      return make_const(e);
    case ExprKind::Bool:
      return make_bool(e.bool_value);
    case ExprKind::NoneLit:
      return none();
    case ExprKind::EllipsisLit:
      return ellipsis();
    case ExprKind::BinOp: {
      Value a = eval(*e.a, f);
      Value b = eval(*e.b, f);
      at(e.loc);
      return I.binary_op(e.binop, a, b);
    }
    case ExprKind::UnaryOp: {
      Value a = eval(*e.a, f);
      at(e.loc);
      if (e.unop == ast::UnaryOpKind::Not) return make_bool(!I.truthy(a));
      return I.unary_op(e.unop, a);
    }
    case ExprKind::Compare:
      return eval_compare(e, f);
    case ExprKind::IfExp: {
      Value t = eval(*e.a, f);
      at(e.a->loc);
      return I.truthy(t) ? eval(*e.b, f) : eval(*e.c, f);
    }
    case ExprKind::Call:
      return eval_call(e, f);
    case ExprKind::Attribute: {
      Value obj = eval(*e.a, f);
      at(e.loc);
      return getattr_at(obj, e);
    }
    case ExprKind::Subscript: {
      Value obj = eval(*e.a, f);
      Value key = eval(*e.b, f);
      at(e.loc);
      return I.getitem(obj, key);
    }
    default:
      return eval_display(e, f);
  }
}

}  // namespace shard::interp