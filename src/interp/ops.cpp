// Operators: binary/in-place/unary arithmetic with dunder dispatch (and reflected
// operands), rich comparison, truthiness (hashing and containers are in containers.cpp).
// Exact int/float/str values take fast paths; everything else goes through the type.
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "interp/interp_impl.hpp"

namespace shard::interp {

using ast::BinOpKind;
using ast::CmpOpKind;

namespace {

struct OpNames {
  const char* op;
  const char* rop;
  const char* iop;
  const char* sym;
};

const OpNames& op_names(BinOpKind k) {
  static const OpNames names[] = {
      {"__add__", "__radd__", "__iadd__", "+"},
      {"__sub__", "__rsub__", "__isub__", "-"},
      {"__mul__", "__rmul__", "__imul__", "*"},
      {"__truediv__", "__rtruediv__", "__itruediv__", "/"},
      {"__floordiv__", "__rfloordiv__", "__ifloordiv__", "//"},
      {"__mod__", "__rmod__", "__imod__", "%"},
      {"__pow__", "__rpow__", "__ipow__", "**"},
      {"__matmul__", "__rmatmul__", "__imatmul__", "@"},
      {"__lshift__", "__rlshift__", "__ilshift__", "<<"},
      {"__rshift__", "__rrshift__", "__irshift__", ">>"},
      {"__or__", "__ror__", "__ior__", "|"},
      {"__xor__", "__rxor__", "__ixor__", "^"},
      {"__and__", "__rand__", "__iand__", "&"},
  };
  return names[size_t(k)];
}


inline int64_t floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline int64_t floormod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

constexpr int64_t kExactDouble = int64_t(1) << 53;

// An exact float or int as a double (arithmetic: a large int may round, as in CPython).
bool double_of(const Value& v, double& out) {
  if (exact_float(v)) out = static_cast<FloatObj&>(*v).v;
  else if (exact_int(v)) out = double(static_cast<IntObj&>(*v).v);
  else return false;
  return true;
}

// The same for comparisons, which must not round: only ints a double holds exactly.
bool exact_double_of(const Value& v, double& out) {
  if (exact_int(v) && std::llabs(static_cast<IntObj&>(*v).v) > kExactDouble) return false;
  return double_of(v, out);
}

// Fast int/float arithmetic; null when the generic path must decide (overflow, zero
// division, pow, mixed types...).
Value arith_fast(BinOpKind op, const Value& a, const Value& b) {
  if (exact_int(a) && exact_int(b)) {
    const int64_t x = static_cast<IntObj&>(*a).v, y = static_cast<IntObj&>(*b).v;
    int64_t r;
    switch (op) {
      case BinOpKind::Add:
        if (!__builtin_add_overflow(x, y, &r)) return make_int(r);
        return nullptr;
      case BinOpKind::Sub:
        if (!__builtin_sub_overflow(x, y, &r)) return make_int(r);
        return nullptr;
      case BinOpKind::Mul:
        if (!__builtin_mul_overflow(x, y, &r)) return make_int(r);
        return nullptr;
      case BinOpKind::FloorDiv:
        if (y == 0 || (x == INT64_MIN && y == -1)) return nullptr;
        return make_int(floordiv(x, y));
      case BinOpKind::Mod:
        if (y == 0 || (x == INT64_MIN && y == -1)) return nullptr;
        return make_int(floormod(x, y));
      case BinOpKind::Div:
        if (y == 0 || x > kExactDouble || x < -kExactDouble || y > kExactDouble || y < -kExactDouble) return nullptr;
        return make_float(double(x) / double(y));
      case BinOpKind::BitAnd: return make_int(x & y);
      case BinOpKind::BitOr: return make_int(x | y);
      case BinOpKind::BitXor: return make_int(x ^ y);
      case BinOpKind::RShift:
        if (y < 0) return nullptr;
        return make_int(y >= 64 ? (x < 0 ? -1 : 0) : (x >> y));
      case BinOpKind::LShift:
        if (y < 0 || y >= 63) return nullptr;
        if (x == 0) return make_int(0);
        {
          int64_t shifted = int64_t(uint64_t(x) << y);
          if ((shifted >> y) != x) return nullptr;
          return make_int(shifted);
        }
      default:
        return nullptr;
    }
  }
  double x, y;
  if (!double_of(a, x) || !double_of(b, y)) return nullptr;
  switch (op) {
    case BinOpKind::Add: return make_float(x + y);
    case BinOpKind::Sub: return make_float(x - y);
    case BinOpKind::Mul: return make_float(x * y);
    case BinOpKind::Div:
      if (y == 0) return nullptr;
      return make_float(x / y);
    default:
      return nullptr;
  }
}

bool is_sequence_kind(const Value& v) {
  return v->kind == ObjKind::Str || v->kind == ObjKind::List || v->kind == ObjKind::Tuple;
}

}  // namespace

// ---------------------------------------------------------------- arithmetic

static Value try_binary(Interp::Impl& P, BinOpKind op, const Value& a, const Value& b) {
  const OpNames& n = op_names(op);
  ClassObj* ta = a->cls.get();
  ClassObj* tb = b->cls.get();
  Value* rop_b = nullptr;
  // A subclass operand's reflected method goes first (CPython's rule).
  if (ta != tb && tb->is_subclass_of(ta)) {
    ClassObj* owner_b = nullptr;
    rop_b = P.lookup_type(tb, n.rop, &owner_b);
    ClassObj* owner_a = nullptr;
    Value* rop_a = P.lookup_type(ta, n.rop, &owner_a);
    if (rop_b && !is(*rop_b, ObjKind::None) && (!rop_a || rop_a->get() != rop_b->get())) {
      Value r = P.call_unbound(*rop_b, b, {a});
      if (!is_not_impl(r)) return r;
      rop_b = nullptr;
    }
  }
  if (Value* m = P.lookup_type(ta, n.op); m && !is(*m, ObjKind::None)) {
    Value r = P.call_unbound(*m, a, {b});
    if (!is_not_impl(r)) return r;
  }
  if (ta != tb) {
    if (Value* m = P.lookup_type(tb, n.rop); m && !is(*m, ObjKind::None)) {
      Value r = P.call_unbound(*m, b, {a});
      if (!is_not_impl(r)) return r;
    }
  }
  return nullptr;
}

[[noreturn]] static void binary_type_error(Interp& I, BinOpKind op, const Value& a, const Value& b) {
  if (op == BinOpKind::Add && is_sequence_kind(a))
    I.raise("TypeError", fmt::format("can only concatenate {} (not \"{}\") to {}", I.type_name(a), I.type_name(b),
                                     I.type_name(a)));
  if (op == BinOpKind::Mul && (is_sequence_kind(a) || is_sequence_kind(b))) {
    const Value& other = is_sequence_kind(a) ? b : a;
    I.raise("TypeError", fmt::format("can't multiply sequence by non-int of type '{}'", I.type_name(other)));
  }
  const char* sym = op == BinOpKind::Pow ? "** or pow()" : op_names(op).sym;
  I.raise("TypeError", fmt::format("unsupported operand type(s) for {}: '{}' and '{}'", sym, I.type_name(a),
                                   I.type_name(b)));
}

// int * sequence when the sequence type lacks __rmul__: sequence.__mul__(int); null if
// that does not apply.
static Value try_int_times_sequence(Interp::Impl& P, BinOpKind op, const Value& a, const Value& b) {
  if (op != BinOpKind::Mul || !is_sequence_kind(b) || (a->kind != ObjKind::Int && a->kind != ObjKind::Bool)) return nullptr;
  if (Value* m = P.lookup_type(b->cls.get(), "__mul__")) {
    Value r = P.call_unbound(*m, b, {a});
    if (!is_not_impl(r)) return r;
  }
  return nullptr;
}

Value Interp::binary_op(BinOpKind op, const Value& a, const Value& b) {
  if (Value r = arith_fast(op, a, b)) return r;
  if (Value r = try_binary(*impl_, op, a, b)) return r;
  if (Value r = try_int_times_sequence(*impl_, op, a, b)) return r;
  binary_type_error(*this, op, a, b);
}

Value Interp::inplace_op(BinOpKind op, const Value& a, const Value& b) {
  if (Value r = arith_fast(op, a, b)) return r;
  if (Value* m = impl_->lookup_type(a->cls.get(), op_names(op).iop); m && !is(*m, ObjKind::None)) {
    Value r = impl_->call_unbound(*m, a, {b});
    if (!is_not_impl(r)) return r;
  }
  // list += iterable extends in place (keeps aliases), even without a native __iadd__.
  if (op == BinOpKind::Add && exact(a, ObjKind::List, T().list)) {
    auto& items = as<ListObj>(a).items;
    if (a.get() == b.get()) {
      std::vector<Value> copy = items;
      items.insert(items.end(), copy.begin(), copy.end());
    } else {
      std::vector<Value> more = to_vector(b);
      items.insert(items.end(), more.begin(), more.end());
    }
    return a;
  }
  if (Value r = try_binary(*impl_, op, a, b)) return r;
  if (Value r = try_int_times_sequence(*impl_, op, a, b)) return r;
  binary_type_error(*this, op, a, b);
}

Value Interp::unary_op(ast::UnaryOpKind op, const Value& a) {
  using ast::UnaryOpKind;
  if (op == UnaryOpKind::Not) return make_bool(!truthy(a));
  if (exact_int(a)) {
    int64_t v = as<IntObj>(a).v;
    if (op == UnaryOpKind::Neg && v != INT64_MIN) return make_int(-v);
    if (op == UnaryOpKind::Pos) return a;
    if (op == UnaryOpKind::Invert) return make_int(~v);
  } else if (exact_float(a)) {
    double v = as<FloatObj>(a).v;
    if (op == UnaryOpKind::Neg) return make_float(-v);
    if (op == UnaryOpKind::Pos) return a;
  }
  const char* name = op == UnaryOpKind::Neg ? "__neg__" : op == UnaryOpKind::Pos ? "__pos__" : "__invert__";
  if (Value* m = impl_->lookup_type(a->cls.get(), name); m && !is(*m, ObjKind::None)) {
    Value r = impl_->call_unbound(*m, a, {});
    if (!is_not_impl(r)) return r;
  }
  const char* sym = op == UnaryOpKind::Neg ? "-" : op == UnaryOpKind::Pos ? "+" : "~";
  raise("TypeError", fmt::format("bad operand type for unary {}: '{}'", sym, type_name(a)));
}

// ---------------------------------------------------------------- comparison

namespace {

// Three-way comparison of exact numbers / strings; nullopt when not applicable.
std::optional<int> cmp_fast(const Value& a, const Value& b, bool& unordered) {
  unordered = false;
  if (exact_int(a) && exact_int(b)) {
    int64_t x = static_cast<IntObj&>(*a).v, y = static_cast<IntObj&>(*b).v;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (exact_str(a) && exact_str(b)) {
    int c = static_cast<StrObj&>(*a).v.compare(static_cast<StrObj&>(*b).v);
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  }
  double x, y;
  if (!exact_double_of(a, x) || !exact_double_of(b, y)) return std::nullopt;
  if (std::isnan(x) || std::isnan(y)) {
    unordered = true;
    return 0;
  }
  return x < y ? -1 : x > y ? 1 : 0;
}

bool apply_cmp(CmpOpKind op, int c) {
  switch (op) {
    case CmpOpKind::Eq: return c == 0;
    case CmpOpKind::NotEq: return c != 0;
    case CmpOpKind::Lt: return c < 0;
    case CmpOpKind::LtE: return c <= 0;
    case CmpOpKind::Gt: return c > 0;
    case CmpOpKind::GtE: return c >= 0;
    default: return false;
  }
}

const char* cmp_dunder(CmpOpKind op) {
  switch (op) {
    case CmpOpKind::Eq: return "__eq__";
    case CmpOpKind::NotEq: return "__ne__";
    case CmpOpKind::Lt: return "__lt__";
    case CmpOpKind::LtE: return "__le__";
    case CmpOpKind::Gt: return "__gt__";
    case CmpOpKind::GtE: return "__ge__";
    default: return "";
  }
}

CmpOpKind reflected(CmpOpKind op) {
  switch (op) {
    case CmpOpKind::Lt: return CmpOpKind::Gt;
    case CmpOpKind::LtE: return CmpOpKind::GtE;
    case CmpOpKind::Gt: return CmpOpKind::Lt;
    case CmpOpKind::GtE: return CmpOpKind::LtE;
    default: return op;
  }
}

bool is_builtin_container(const Value& v) {
  return exact(v, ObjKind::Tuple, T().tuple) || exact(v, ObjKind::List, T().list);
}

}  // namespace

// Calls type(a).__op__(b) ignoring `object`'s default; NotImplemented if absent. For !=
// without its own __ne__, inverts __eq__ as object.__ne__ does.
static Value rich_call(Interp::Impl& P, CmpOpKind op, const Value& a, const Value& b) {
  if (Value* m = P.lookup_type_no_object(a->cls.get(), cmp_dunder(op)); m && !is(*m, ObjKind::None))
    return P.call_unbound(*m, a, {b});
  if (op == CmpOpKind::NotEq) {
    if (Value* m = P.lookup_type_no_object(a->cls.get(), "__eq__"); m && !is(*m, ObjKind::None)) {
      Value r = P.call_unbound(*m, a, {b});
      if (is_not_impl(r)) return r;
      return make_bool(!P.I.truthy(r));
    }
  }
  return not_implemented();
}

// Element-wise comparison of two tuples or two lists, as CPython's sequence compare.
static Value compare_sequences(Interp& I, CmpOpKind op, const std::vector<Value>& x, const std::vector<Value>& y) {
  // Elements are copied before comparing: a user __eq__ may mutate either list.
  size_t i = 0;
  Value xi, yi;
  for (; i < x.size() && i < y.size(); ++i) {
    xi = x[i];
    yi = y[i];
    if (xi.get() == yi.get()) continue;
    if (!I.eq(xi, yi)) break;
  }
  if (i >= x.size() || i >= y.size()) {
    int c = x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
    return make_bool(apply_cmp(op, c));
  }
  if (op == CmpOpKind::Eq) return make_bool(false);
  if (op == CmpOpKind::NotEq) return make_bool(true);
  return I.compare(op, xi, yi);
}

Value Interp::compare(CmpOpKind op, const Value& a, const Value& b) {
  switch (op) {
    case CmpOpKind::Is: return make_bool(a.get() == b.get());
    case CmpOpKind::IsNot: return make_bool(a.get() != b.get());
    case CmpOpKind::In: return make_bool(contains(b, a));
    case CmpOpKind::NotIn: return make_bool(!contains(b, a));
    default: break;
  }
  bool unordered = false;
  if (auto c = cmp_fast(a, b, unordered)) {
    if (unordered) return make_bool(op == CmpOpKind::NotEq);
    return make_bool(apply_cmp(op, *c));
  }
  if (is_builtin_container(a) && is_builtin_container(b) && a->kind == b->kind) {
    impl_->check_stack();
    auto& x = a->kind == ObjKind::Tuple ? as<TupleObj>(a).items : as<ListObj>(a).items;
    auto& y = b->kind == ObjKind::Tuple ? as<TupleObj>(b).items : as<ListObj>(b).items;
    return compare_sequences(*this, op, x, y);
  }
  Impl& P = *impl_;
  ClassObj* ta = a->cls.get();
  ClassObj* tb = b->cls.get();
  const CmpOpKind rop = reflected(op);
  bool tried_reflected = false;
  if (ta != tb && tb->is_subclass_of(ta)) {
    tried_reflected = true;
    Value r = rich_call(P, rop, b, a);
    if (!is_not_impl(r)) return r;
  }
  Value r = rich_call(P, op, a, b);
  if (!is_not_impl(r)) return r;
  if (!tried_reflected) {
    r = rich_call(P, rop, b, a);
    if (!is_not_impl(r)) return r;
  }
  if (op == CmpOpKind::Eq) return make_bool(a.get() == b.get());
  if (op == CmpOpKind::NotEq) return make_bool(a.get() != b.get());
  raise("TypeError", fmt::format("'{}' not supported between instances of '{}' and '{}'", ast::cmpop_symbol(op),
                                 type_name(a), type_name(b)));
}

// `a OP b` as a bool: the fast path (NaN compares false), else the full protocol.
static bool compare_to_bool(Interp& I, CmpOpKind op, const Value& a, const Value& b) {
  bool unordered = false;
  if (auto c = cmp_fast(a, b, unordered)) return !unordered && apply_cmp(op, *c);
  return I.truthy(I.compare(op, a, b));
}

bool Interp::eq(const Value& a, const Value& b) {
  if (a.get() == b.get() && !exact_float(a)) return true;
  return compare_to_bool(*this, CmpOpKind::Eq, a, b);
}

bool Interp::lt(const Value& a, const Value& b) { return compare_to_bool(*this, CmpOpKind::Lt, a, b); }

// ---------------------------------------------------------------- truthiness

bool Interp::truthy(const Value& v) {
  switch (v->kind) {
    case ObjKind::Bool: return static_cast<BoolObj&>(*v).v;
    case ObjKind::None: return false;
    default: break;
  }
  if (v->cls.get() == T().int_.get() && v->kind == ObjKind::Int) return as<IntObj>(v).v != 0;
  if (exact_float(v)) return as<FloatObj>(v).v != 0.0;
  if (exact_str(v)) return !as<StrObj>(v).v.empty();
  if (exact(v, ObjKind::List, T().list)) return !as<ListObj>(v).items.empty();
  if (exact(v, ObjKind::Tuple, T().tuple)) return !as<TupleObj>(v).items.empty();
  if (exact(v, ObjKind::Dict, T().dict)) return as<DictObj>(v).live != 0;
  Impl& P = *impl_;
  if (Value* m = P.lookup_type_no_object(v->cls.get(), "__bool__"); m && !is(*m, ObjKind::None)) {
    Value r = P.call_unbound(*m, v, {});
    if (!is(r, ObjKind::Bool)) raise("TypeError", "__bool__ should return bool, returned " + type_name(r));
    return as<BoolObj>(r).v;
  }
  if (Value* m = P.lookup_type_no_object(v->cls.get(), "__len__"); m && !is(*m, ObjKind::None)) {
    return len(v) != 0;
  }
  return true;
}

}  // namespace shard::interp
