// Builtin functions about numbers: abs, round, divmod, pow, hex, bin, oct.
#include <fmt/format.h>

#include "interp/builtins/numbers.hpp"
#include "interp/complex_value.hpp"

namespace shard::interp::bi {

namespace {

Value dispatch_or(Interp& I, const Value& v, const char* dunder, const std::string& err, std::vector<Value> args = {}) {
  if (v->cls->lookup(dunder)) {
    auto r = I.call_method(v, dunder, std::move(args));
    if (r) return *r;
  }
  I.raise("TypeError", err);
}

Value builtin_divmod(Interp& I, CallArgs& a) {
  func_nargs(I, a, "divmod", 2, 2);
  const Value &x = a.args[0], &y = a.args[1];
  if (x->cls->lookup("__divmod__")) {
    auto r = I.call_method(x, "__divmod__", {y});
    if (r && (*r)->kind != ObjKind::NotImplemented) return *r;
  }
  if (y->cls->lookup("__rdivmod__")) {
    auto r = I.call_method(y, "__rdivmod__", {x});
    if (r && (*r)->kind != ObjKind::NotImplemented) return *r;
  }
  I.raise("TypeError", fmt::format("unsupported operand type(s) for divmod(): '{}' and '{}'", I.type_name(x), I.type_name(y)));
}

Value builtin_pow(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "pow", {"$clinic", "base", "exp", "mod="});
  Value base = p.get("base"), exp = p.get("exp"), mod = p.get("mod");
  if (!mod || mod->kind == ObjKind::None) return I.binary_op(ast::BinOpKind::Pow, base, exp);
  auto b = int_of(base), e = int_of(exp), m = int_of(mod);
  if (b && e && m) return int_pow_mod(I, *b, *e, *m);
  if (real_of(base) && real_of(exp) && real_of(mod))
    I.raise("TypeError", "pow() 3rd argument not allowed unless all arguments are integers");
  if (base->cls->lookup("__pow__")) {
    auto r = I.call_method(base, "__pow__", {exp, mod});
    if (r && (*r)->kind != ObjKind::NotImplemented) return *r;
  }
  // Then the exponent's built-in power (ternary_op; a class's __rpow__ is never called with a
  // modulus): pow(2, 1j, 3) is complex's "complex modulo".
  if (exp->cls.get() != base->cls.get() && is_complex(exp)) {
    auto r = I.call_method(exp, "__rpow__", {base, mod});
    if (r && (*r)->kind != ObjKind::NotImplemented) return *r;
  }
  I.raise("TypeError", fmt::format("unsupported operand type(s) for ** or pow(): '{}', '{}', '{}'", I.type_name(base),
                                   I.type_name(exp), I.type_name(mod)));
}

void add_numeric_functions_impl(ModuleObj& m) {
  auto add = [&](const char* name, NativeFn fn) { m.dict.set(name, make_builtin(name, std::move(fn))); };
  add("abs", [](Interp& I, CallArgs& a) {
    func_nargs(I, a, "abs", 1, 1);
    const Value& v = a.args[0];
    if (v->kind == ObjKind::Int) {
      int64_t x = static_cast<IntObj&>(*v).v;
      if (x == INT64_MIN) int_overflow(I);
      return x < 0 ? make_int(-x) : v;
    }
    if (v->kind == ObjKind::Float) return make_float(std::fabs(static_cast<FloatObj&>(*v).v));
    return dispatch_or(I, v, "__abs__", fmt::format("bad operand type for abs(): '{}'", I.type_name(v)));
  });
  add("round", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "round", {"$clinic", "number", "ndigits="});
    Value n = p.get("number"), nd = p.get("ndigits");
    std::vector<Value> args;
    if (nd && nd->kind != ObjKind::None) args.push_back(nd);
    return dispatch_or(I, n, "__round__", fmt::format("type {} doesn't define __round__ method", I.type_name(n)), args);
  });
  add("divmod", builtin_divmod);
  add("pow", builtin_pow);
  struct Base {
    const char* name;
    int base;
  };
  for (Base b : {Base{"hex", 16}, Base{"oct", 8}, Base{"bin", 2}}) {
    add(b.name, [b](Interp& I, CallArgs& a) {
      func_nargs(I, a, b.name, 1, 1);
      return make_str(numfmt::int_with_prefix(index_of(I, a.args[0], ""), b.base));
    });
  }
}

}  // namespace

void add_numeric_functions(Interp&, ModuleObj& m) { add_numeric_functions_impl(m); }

}  // namespace shard::interp::bi
