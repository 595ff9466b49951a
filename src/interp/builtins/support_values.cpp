// Helpers for values of any kind (see support.hpp): fast paths for the common kinds (hash, ==,
// <, repr, str), CPython's hash for the values whose set order we reproduce, the guards that
// bound recursive repr and compare, and how objects and strings print (addresses, qualified
// class names, str repr).
#include <fmt/format.h>

#include <cmath>

#include "interp/builtins/numbers.hpp"
#include "interp/builtins/support.hpp"

namespace shard::interp::bi {

// ---- fast paths ----

std::optional<size_t> fast_hash(const Value& v) {
  switch (v->kind) {
    case ObjKind::Str: {
      uint64_t h = numfmt::hash_bytes(static_cast<StrObj&>(*v).v);
      return size_t(h);
    }
    case ObjKind::Int: return size_t(numfmt::hash_int(static_cast<IntObj&>(*v).v));
    case ObjKind::Bool: return size_t(static_cast<BoolObj&>(*v).v ? 1 : 0);
    case ObjKind::Float: return size_t(numfmt::hash_float(static_cast<FloatObj&>(*v).v));
    case ObjKind::None: return size_t(0xFCA86420);
    case ObjKind::Complex: {
      auto& c = static_cast<ComplexObj&>(*v);
      if (std::isnan(c.re) || std::isnan(c.im)) return std::nullopt;  // by identity, as __hash__
      return size_t(numfmt::hash_complex(c.re, c.im));
    }
    case ObjKind::Tuple: {
      auto& t = static_cast<TupleObj&>(*v);
      if (t.items.size() > 16) return std::nullopt;
      int64_t hs[16];
      for (size_t i = 0; i < t.items.size(); ++i) {
        auto h = fast_hash(t.items[i]);
        if (!h) return std::nullopt;
        hs[i] = int64_t(*h);
      }
      return size_t(numfmt::hash_tuple(hs, t.items.size()));
    }
    default: return std::nullopt;
  }
}

size_t hash_of(Interp& I, const Value& v) {
  if (auto h = fast_hash(v)) return *h;
  return I.hash(v);
}

std::optional<int64_t> cpython_hash(const Value& v) {
  switch (v->kind) {
    case ObjKind::Int: return numfmt::hash_int(static_cast<IntObj&>(*v).v);
    case ObjKind::Bool: return static_cast<BoolObj&>(*v).v ? 1 : 0;
    case ObjKind::Float: {
      double d = static_cast<FloatObj&>(*v).v;
      if (std::isnan(d)) return std::nullopt;
      return numfmt::hash_float(d);
    }
    case ObjKind::Complex: {
      auto& c = static_cast<ComplexObj&>(*v);
      if (std::isnan(c.re) || std::isnan(c.im)) return std::nullopt;
      return numfmt::hash_complex(c.re, c.im);
    }
    case ObjKind::Tuple: {
      auto& t = static_cast<TupleObj&>(*v);
      std::vector<int64_t> hs;
      for (auto& x : t.items) {
        auto h = cpython_hash(x);
        if (!h) return std::nullopt;
        hs.push_back(*h);
      }
      return numfmt::hash_tuple(hs.data(), hs.size());
    }
    default: return std::nullopt;
  }
}

namespace {
// Numeric comparison of two int/float/bool values: -1, 0, 1, or 2 when unordered (nan).
int num_cmp(const Value& a, const Value& b) { return compare_numbers(a, b); }
bool is_num_kind(ObjKind k) { return k == ObjKind::Int || k == ObjKind::Float || k == ObjKind::Bool; }
}  // namespace

bool eq_fast(Interp& I, const Value& a, const Value& b) {
  if (a.get() == b.get()) return true;
  ObjKind ka = a->kind, kb = b->kind;
  if (ka == ObjKind::Int && kb == ObjKind::Int) return static_cast<IntObj&>(*a).v == static_cast<IntObj&>(*b).v;
  if (ka == ObjKind::Str && kb == ObjKind::Str) return static_cast<StrObj&>(*a).v == static_cast<StrObj&>(*b).v;
  if (is_num_kind(ka) && is_num_kind(kb)) return num_cmp(a, b) == 0;
  if ((ka == ObjKind::Str && (is_num_kind(kb) || kb == ObjKind::None)) ||
      (kb == ObjKind::Str && (is_num_kind(ka) || ka == ObjKind::None)))
    return false;
  return I.eq(a, b);
}

bool lt_fast(Interp& I, const Value& a, const Value& b) {
  ObjKind ka = a->kind, kb = b->kind;
  if (ka == ObjKind::Int && kb == ObjKind::Int) return static_cast<IntObj&>(*a).v < static_cast<IntObj&>(*b).v;
  if (ka == ObjKind::Str && kb == ObjKind::Str) return static_cast<StrObj&>(*a).v < static_cast<StrObj&>(*b).v;
  if (is_num_kind(ka) && is_num_kind(kb)) return num_cmp(a, b) == -1;
  return I.lt(a, b);
}

std::string repr_of(Interp& I, const Value& v) {
  switch (v->kind) {
    case ObjKind::Int: return std::to_string(static_cast<IntObj&>(*v).v);
    case ObjKind::Str: return str_repr(static_cast<StrObj&>(*v).v);
    case ObjKind::Float: return numfmt::float_repr(static_cast<FloatObj&>(*v).v);
    case ObjKind::Bool: return static_cast<BoolObj&>(*v).v ? "True" : "False";
    case ObjKind::None: return "None";
    default: return I.repr(v);
  }
}

std::string str_of_value(Interp& I, const Value& v) {
  switch (v->kind) {
    case ObjKind::Str: return static_cast<StrObj&>(*v).v;
    case ObjKind::Int: return std::to_string(static_cast<IntObj&>(*v).v);
    case ObjKind::Float: return numfmt::float_repr(static_cast<FloatObj&>(*v).v);
    default: return I.str(v);
  }
}

// ---- recursion guards ----

namespace {
thread_local std::vector<const Object*> t_repr_stack;
thread_local int t_depth = 0;
constexpr size_t kMaxNativeDepth = 900;
}  // namespace

ReprGuard::ReprGuard(Interp& I, const Object* obj) {
  for (const Object* o : t_repr_stack)
    if (o == obj) {
      active_ = true;
      return;
    }
  if (t_repr_stack.size() >= kMaxNativeDepth)
    I.raise("RecursionError", "maximum recursion depth exceeded while getting the repr of an object");
  t_repr_stack.push_back(obj);
  pushed_ = true;
}

ReprGuard::~ReprGuard() {
  if (pushed_) t_repr_stack.pop_back();
}

DepthGuard::DepthGuard(Interp& I, const char* what) {
  if (t_depth >= int(kMaxNativeDepth))
    I.raise("RecursionError", fmt::format("maximum recursion depth exceeded{}", what));
  ++t_depth;
}

DepthGuard::~DepthGuard() { --t_depth; }

// ---- how objects and strings print ----

std::string addr_of(const void* p) { return fmt::format("0x{:016x}", reinterpret_cast<uintptr_t>(p)); }

std::string class_qualname(const ClassObj& c) {
  std::string qual = c.name;  // nested classes: "Outer.Inner", from the class statement
  if (Value* q = const_cast<ClassObj&>(c).dict.find("__qualname__"); q && *q && (*q)->kind == ObjKind::Str)
    qual = static_cast<StrObj&>(**q).v;
  if (c.module == "builtins" || c.module.empty()) return qual;
  return c.module + "." + qual;
}

namespace {
bool printable_non_ascii(uint32_t cp) {
  if (cp <= 0xA0 || cp == 0xAD || cp == 0x1680) return false;
  if (cp >= 0x2000 && cp <= 0x200F) return false;  // spaces and format characters
  if (cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202F) || (cp >= 0x205F && cp <= 0x206F)) return false;
  if (cp == 0x3000 || cp == 0xFEFF) return false;
  if (cp >= 0xD800 && cp <= 0xF8FF) return false;  // surrogates and private use
  if (cp >= 0xFFF0 && cp <= 0xFFFB) return false;
  return true;
}
}  // namespace

std::string str_repr(std::string_view s, bool ascii) {
  bool has_sq = s.find('\'') != std::string_view::npos;
  bool has_dq = s.find('"') != std::string_view::npos;
  char q = (has_sq && !has_dq) ? '"' : '\'';
  std::string out;
  out.reserve(s.size() + 2);
  out += q;
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      if (c == '\\') out += "\\\\";
      else if (c == char(q)) { out += '\\'; out += q; }
      else if (c == '\n') out += "\\n";
      else if (c == '\r') out += "\\r";
      else if (c == '\t') out += "\\t";
      else if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
      else out += char(c);
      continue;
    }
    size_t start = i;
    uint32_t cp = numfmt::utf8_next(s, i);
    if (!ascii && printable_non_ascii(cp)) {
      out.append(s.substr(start, i - start));
    } else if (cp <= 0xFF) {
      out += fmt::format("\\x{:02x}", cp);
    } else if (cp <= 0xFFFF) {
      out += fmt::format("\\u{:04x}", cp);
    } else {
      out += fmt::format("\\U{:08x}", cp);
    }
  }
  out += q;
  return out;
}

Value str_from_code_point(uint32_t cp) {
  std::string s;
  numfmt::utf8_append(s, cp);
  return make_str(std::move(s));
}

}  // namespace shard::interp::bi
