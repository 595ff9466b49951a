// Hashing (CPython's algorithms for ints, floats and tuples, so hash() prints the same),
// containment, subscripting and len, with fast paths for the exact built-in types.
#include <cmath>

#include "interp/builtins/numfmt.hpp"
#include "interp/interp_impl.hpp"

namespace shard::interp {

// ---------------------------------------------------------------- hashing

size_t Interp::hash(const Value& v) {
  switch (v->kind) {
    case ObjKind::None: return 0xFCA86420u;
    case ObjKind::Bool: return static_cast<BoolObj&>(*v).v ? 1 : 0;
    default: break;
  }
  if (exact_int(v)) return size_t(numfmt::hash_int(as<IntObj>(v).v));
  if (exact_float(v)) {
    double d = as<FloatObj>(v).v;
    if (std::isnan(d)) {
      uintptr_t p = reinterpret_cast<uintptr_t>(v.get());
      return (p >> 4) | (p << 60);
    }
    return size_t(numfmt::hash_float(d));
  }
  if (exact_str(v)) {
    // FNV-1a; CPython's string hashes are randomised per process anyway.
    const std::string& s = as<StrObj>(v).v;
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ull;
    }
    if (h == uint64_t(-1)) h = uint64_t(-2);
    return size_t(h);
  }
  if (exact(v, ObjKind::Tuple, T().tuple)) {
    impl_->check_stack();
    constexpr uint64_t P1 = 11400714785074694791ull, P2 = 14029467366897019727ull, P5 = 2870177450012600261ull;
    uint64_t acc = P5;
    auto& items = as<TupleObj>(v).items;
    for (auto& x : items) {
      uint64_t lane = hash(x);
      acc += lane * P2;
      acc = (acc << 31) | (acc >> 33);
      acc *= P1;
    }
    acc += items.size() ^ (P5 ^ 3527539ull);
    if (acc == uint64_t(-1)) return 1546275796;
    return size_t(acc);
  }
  if (v->kind == ObjKind::FrozenSet) {
    uint64_t h = 0;
    for (auto& [k, _] : as<SetObj>(v).items()) {
      uint64_t x = hash(k);
      h ^= ((x ^ 89869747ull) ^ (x << 16)) * 3644798167ull;
    }
    h ^= (uint64_t(as<SetObj>(v).live) + 1) * 1927868237ull;
    h ^= (h >> 11) ^ (h >> 25);
    h = h * 69069u + 907133923ull;
    if (h == uint64_t(-1)) h = 590923713ull;
    return size_t(h);
  }
  if (exact(v, ObjKind::List, T().list) || exact(v, ObjKind::Dict, T().dict) || exact(v, ObjKind::Set, T().set))
    raise("TypeError", "unhashable type: '" + type_name(v) + "'");
  Impl& P = *impl_;
  ClassObj* owner = nullptr;
  Value* m = P.lookup_type(v->cls.get(), "__hash__", &owner);
  if (m && is(*m, ObjKind::None)) raise("TypeError", "unhashable type: '" + type_name(v) + "'");
  if (m && owner != T().object.get()) {
    Value r = P.call_unbound(*m, v, {});
    if (is(r, ObjKind::Int)) return size_t(as<IntObj>(r).v == -1 ? -2 : as<IntObj>(r).v);
    if (is(r, ObjKind::Bool)) return as<BoolObj>(r).v ? 1 : 0;
    raise("TypeError", "__hash__ method should return an integer");
  }
  uintptr_t p = reinterpret_cast<uintptr_t>(v.get());
  return (p >> 4) | (p << 60);
}

// ---------------------------------------------------------------- containers

namespace {

size_t utf8_length(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

int64_t range_length(const RangeObj& r) {
  if (r.step > 0 && r.start < r.stop) return int64_t((uint64_t(r.stop) - uint64_t(r.start) - 1) / uint64_t(r.step) + 1);
  if (r.step < 0 && r.start > r.stop)
    return int64_t((uint64_t(r.start) - uint64_t(r.stop) - 1) / (uint64_t(0) - uint64_t(r.step)) + 1);
  return 0;
}

}  // namespace

bool Interp::contains(const Value& container, const Value& item) {
  const Value& c = container;
  if (exact(c, ObjKind::List, T().list) || exact(c, ObjKind::Tuple, T().tuple)) {
    auto& items = c->kind == ObjKind::List ? as<ListObj>(c).items : as<TupleObj>(c).items;
    for (size_t i = 0; i < items.size(); ++i) {
      Value x = items[i];  // the list may change while comparing
      if (x.get() == item.get() || eq(x, item)) return true;
    }
    return false;
  }
  if (exact(c, ObjKind::Dict, T().dict) || exact(c, ObjKind::Set, T().set) ||
      exact(c, ObjKind::FrozenSet, T().frozenset))
    return as<DictObj>(c).find(*this, item) != nullptr;
  if (exact_str(c)) {
    if (!is(item, ObjKind::Str))
      raise("TypeError", "'in <string>' requires string as left operand, not " + type_name(item));
    return as<StrObj>(c).v.find(as<StrObj>(item).v) != std::string::npos;
  }
  if (exact(c, ObjKind::Range, T().range) && exact_int(item)) {
    auto& r = as<RangeObj>(c);
    int64_t x = as<IntObj>(item).v;
    if (r.step > 0 ? (x < r.start || x >= r.stop) : (x > r.start || x <= r.stop)) return false;
    return (int64_t(uint64_t(x) - uint64_t(r.start)) % r.step) == 0;
  }
  Impl& P = *impl_;
  if (Value* m = P.lookup_type_no_object(c->cls.get(), "__contains__"); m && !is(*m, ObjKind::None))
    return truthy(P.call_unbound(*m, c, {item}));
  Value it = P.iter_or_null(c);
  if (!it) raise("TypeError", "argument of type '" + type_name(c) + "' is not iterable");
  while (auto x = next(it))
    if (x->get() == item.get() || eq(*x, item)) return true;
  return false;
}

Value Interp::getitem(const Value& obj, const Value& key) {
  if (exact_int(key)) {
    if (exact(obj, ObjKind::List, T().list) || exact(obj, ObjKind::Tuple, T().tuple)) {
      auto& items = obj->kind == ObjKind::List ? as<ListObj>(obj).items : as<TupleObj>(obj).items;
      int64_t i = as<IntObj>(key).v;
      if (i < 0) i += int64_t(items.size());
      if (i < 0 || i >= int64_t(items.size()))
        raise("IndexError", obj->kind == ObjKind::List ? "list index out of range" : "tuple index out of range");
      return items[size_t(i)];
    }
  }
  if (exact(obj, ObjKind::Dict, T().dict)) {
    if (Value* v = as<DictObj>(obj).find(*this, key)) return *v;
  }
  Impl& P = *impl_;
  if (Value* m = P.lookup_type(obj->cls.get(), "__getitem__"); m && !is(*m, ObjKind::None))
    return P.call_unbound(*m, obj, {key});
  if (is(obj, ObjKind::Class)) {
    if (Value* cg = P.lookup_type(&as<ClassObj>(obj), "__class_getitem__"))
      return call(P.bind(*cg, obj, nullptr), std::vector<Value>{key});
    if (!is_user_class(&as<ClassObj>(obj))) return obj;  // list[int] etc. in annotations
    raise("TypeError", "type '" + as<ClassObj>(obj).name + "' is not subscriptable");
  }
  if (exact(obj, ObjKind::Dict, T().dict)) {
    std::vector<Value> args{key};
    throw PyError{impl_->instantiate(builtin_class("KeyError"), args, nullptr, current_loc())};
  }
  raise("TypeError", "'" + type_name(obj) + "' object is not subscriptable");
}

void Interp::setitem(const Value& obj, const Value& key, Value v) {
  if (exact(obj, ObjKind::List, T().list) && exact_int(key)) {
    auto& items = as<ListObj>(obj).items;
    int64_t i = as<IntObj>(key).v;
    if (i < 0) i += int64_t(items.size());
    if (i < 0 || i >= int64_t(items.size())) raise("IndexError", "list assignment index out of range");
    items[size_t(i)] = std::move(v);
    return;
  }
  if (exact(obj, ObjKind::Dict, T().dict)) {
    as<DictObj>(obj).set(*this, key, std::move(v));
    return;
  }
  Impl& P = *impl_;
  if (Value* m = P.lookup_type(obj->cls.get(), "__setitem__"); m && !is(*m, ObjKind::None)) {
    P.call_unbound(*m, obj, {key, std::move(v)});
    return;
  }
  raise("TypeError", "'" + type_name(obj) + "' object does not support item assignment");
}

void Interp::delitem(const Value& obj, const Value& key) {
  Impl& P = *impl_;
  if (Value* m = P.lookup_type(obj->cls.get(), "__delitem__"); m && !is(*m, ObjKind::None)) {
    P.call_unbound(*m, obj, {key});
    return;
  }
  if (exact(obj, ObjKind::Dict, T().dict)) {
    if (as<DictObj>(obj).erase(*this, key)) return;
    std::vector<Value> args{key};
    throw PyError{impl_->instantiate(builtin_class("KeyError"), args, nullptr, current_loc())};
  }
  raise("TypeError", "'" + type_name(obj) + "' object doesn't support item deletion");
}

int64_t Interp::len(const Value& v) {
  switch (v->kind) {
    case ObjKind::Str:
      if (exact_str(v)) return int64_t(utf8_length(as<StrObj>(v).v));
      break;
    case ObjKind::List:
      if (exact(v, ObjKind::List, T().list)) return int64_t(as<ListObj>(v).items.size());
      break;
    case ObjKind::Tuple:
      if (exact(v, ObjKind::Tuple, T().tuple)) return int64_t(as<TupleObj>(v).items.size());
      break;
    case ObjKind::Dict:
    case ObjKind::Set:
    case ObjKind::FrozenSet:
      if (v->cls.get() == T().dict.get() || v->cls.get() == T().set.get() || v->cls.get() == T().frozenset.get())
        return int64_t(as<DictObj>(v).live);
      break;
    case ObjKind::Range:
      return range_length(as<RangeObj>(v));
    default:
      break;
  }
  Impl& P = *impl_;
  if (Value* m = P.lookup_type(v->cls.get(), "__len__"); m && !is(*m, ObjKind::None)) {
    Value r = P.call_unbound(*m, v, {});
    int64_t n;
    if (is(r, ObjKind::Int)) n = as<IntObj>(r).v;
    else if (is(r, ObjKind::Bool)) n = as<BoolObj>(r).v;
    else raise("TypeError", "'" + type_name(r) + "' object cannot be interpreted as an integer");
    if (n < 0) raise("ValueError", "__len__() should return >= 0");
    return n;
  }
  raise("TypeError", "object of type '" + type_name(v) + "' has no len()");
}

bool Interp::isinstance(const Value& v, const ClassObj& cls) {
  return v && v->cls && v->cls->is_subclass_of(&cls);
}

std::string Interp::type_name(const Value& v) {
  if (!v) return "NoneType";
  if (!v->cls) return "object";
  return v->cls->name;
}

}  // namespace shard::interp
