// Definitions behind value.hpp: the built-in type table, value constructors (shared small
// ints and singletons), the attribute table, the Python dict table and class helpers.
#include <algorithm>

#include "interp/builtins/support.hpp"
#include "interp/interp.hpp"
#include "interp/value.hpp"

namespace shard::interp {

namespace {
BuiltinTypes g_types;
bool g_initialised = false;

constexpr int64_t kSmallIntMin = -5, kSmallIntMax = 256;
Value g_small_ints[kSmallIntMax - kSmallIntMin + 1];
Value g_none, g_true, g_false, g_notimpl, g_ellipsis, g_empty_tuple, g_empty_str;
Value g_ascii_chars[128];

void make_singletons() {
  auto& t = g_types;
  for (int64_t i = kSmallIntMin; i <= kSmallIntMax; ++i)
    g_small_ints[i - kSmallIntMin] = std::make_shared<IntObj>(t.int_, i);
  g_none = std::make_shared<NoneObj>(ObjKind::None, t.none);
  g_notimpl = std::make_shared<NoneObj>(ObjKind::NotImplemented, t.notimplemented);
  g_ellipsis = std::make_shared<NoneObj>(ObjKind::Ellipsis, t.ellipsis);
  g_true = std::make_shared<BoolObj>(t.bool_, true);
  g_false = std::make_shared<BoolObj>(t.bool_, false);
  g_empty_tuple = std::make_shared<TupleObj>(t.tuple, std::vector<Value>{});
  g_empty_str = std::make_shared<StrObj>(t.str, std::string());
  for (int c = 0; c < 128; ++c) g_ascii_chars[c] = std::make_shared<StrObj>(t.str, std::string(1, char(c)));
}
}  // namespace

// Creates the core classes (type, object and the builtins' classes) before anything else
// runs, then the singletons, then lets each group of types fill its class dict.
void init_builtin_types() {
  if (g_initialised) return;
  g_initialised = true;
  auto& t = g_types;
  t.type = std::make_shared<ClassObj>(nullptr, "type");
  t.type->cls = t.type;
  t.object = std::make_shared<ClassObj>(t.type, "object");
  finish_class(*t.object);
  t.type->bases = {t.object};
  finish_class(*t.type);
  auto mk = [](const char* name, ClassP base, ObjKind k) {
    return bi::native_class(name, base ? base : g_types.object, "builtins", k);
  };
  bi::mark_native_layout(t.object.get());
  bi::mark_native_layout(t.type.get());
  t.none = mk("NoneType", nullptr, ObjKind::None);
  t.notimplemented = mk("NotImplementedType", nullptr, ObjKind::NotImplemented);
  t.ellipsis = mk("ellipsis", nullptr, ObjKind::Ellipsis);
  t.int_ = mk("int", nullptr, ObjKind::Int);
  t.bool_ = mk("bool", t.int_, ObjKind::Bool);
  t.float_ = mk("float", nullptr, ObjKind::Float);
  t.complex = mk("complex", nullptr, ObjKind::Complex);
  t.str = mk("str", nullptr, ObjKind::Str);
  t.tuple = mk("tuple", nullptr, ObjKind::Tuple);
  t.list = mk("list", nullptr, ObjKind::List);
  t.dict = mk("dict", nullptr, ObjKind::Dict);
  t.set = mk("set", nullptr, ObjKind::Set);
  t.frozenset = mk("frozenset", nullptr, ObjKind::FrozenSet);
  t.range = mk("range", nullptr, ObjKind::Range);
  t.slice = mk("slice", nullptr, ObjKind::Slice);
  t.function = mk("function", nullptr, ObjKind::Function);
  t.builtin_function = mk("builtin_function_or_method", nullptr, ObjKind::Builtin);
  t.method = mk("method", nullptr, ObjKind::BoundMethod);
  t.module = mk("module", nullptr, ObjKind::Module);
  t.iterator = mk("iterator", nullptr, ObjKind::Iterator);
  t.cell = mk("cell", nullptr, ObjKind::Cell);
  t.property = mk("property", nullptr, ObjKind::Property);
  t.staticmethod = mk("staticmethod", nullptr, ObjKind::StaticMethod);
  t.classmethod = mk("classmethod", nullptr, ObjKind::ClassMethod);
  t.super_ = mk("super", nullptr, ObjKind::Super);
  t.base_exception = mk("BaseException", nullptr, ObjKind::Instance);
  t.exception = mk("Exception", t.base_exception, ObjKind::Instance);
  make_singletons();

  bi::init_object_types();
  bi::init_number_types();
  bi::init_complex_type();
  bi::init_str_type();
  bi::init_sequence_types();
  bi::init_dict_types();
  bi::init_set_types();
  bi::init_range_slice_types();
  bi::init_iterator_types();
  bi::init_exception_types();
  bi::init_typing_support();
}

BuiltinTypes& T() {
  if (!g_initialised) init_builtin_types();
  return g_types;
}

Value none() { return g_none; }
Value not_implemented() { return g_notimpl; }
Value ellipsis() { return g_ellipsis; }
Value make_bool(bool b) { return b ? g_true : g_false; }

Value make_int(int64_t v) {
  if (v >= kSmallIntMin && v <= kSmallIntMax && g_small_ints[0]) return g_small_ints[v - kSmallIntMin];
  return std::make_shared<IntObj>(T().int_, v);
}

Value make_float(double v) { return std::make_shared<FloatObj>(T().float_, v); }
Value make_complex(double re, double im) { return std::make_shared<ComplexObj>(T().complex, re, im); }

Value make_str(std::string s) {
  if (s.empty() && g_empty_str) return g_empty_str;
  if (s.size() == 1 && static_cast<unsigned char>(s[0]) < 128 && g_ascii_chars[0])
    return g_ascii_chars[static_cast<unsigned char>(s[0])];
  return std::make_shared<StrObj>(T().str, std::move(s));
}

namespace {
thread_local std::vector<Value>* g_release_queue = nullptr;  // set while the outermost release drains
}  // namespace

void release_values(std::vector<Value>& values) {
  if (g_release_queue) {  // inside a release: queue the last references, destroy nothing here
    for (auto& v : values)
      if (v && v.use_count() == 1) g_release_queue->push_back(std::move(v));
    values.clear();
    return;
  }
  std::vector<Value> queue;
  for (auto& v : values)
    if (v && v.use_count() == 1) queue.push_back(std::move(v));
  values.clear();
  if (queue.empty()) return;
  g_release_queue = &queue;
  while (!queue.empty()) {
    Value v = std::move(queue.back());
    queue.pop_back();
    v.reset();  // its destructor queues what it held
  }
  g_release_queue = nullptr;
}

DictObj::~DictObj() {
  std::vector<Value> held;
  for (auto& [k, v] : entries) {
    held.push_back(std::move(k));
    held.push_back(std::move(v));
  }
  release_values(held);
}

CellObj::~CellObj() {
  std::vector<Value> held{std::move(v)};
  release_values(held);
}

InstanceObj::~InstanceObj() {
  std::vector<Value> held;
  for (auto& [name, v] : dict.entries) held.push_back(std::move(v));
  held.push_back(std::move(native));
  release_values(held);
}

Value make_tuple(std::vector<Value> items) {
  if (items.empty() && g_empty_tuple) return g_empty_tuple;
  return std::make_shared<TupleObj>(T().tuple, std::move(items));
}

Value make_list(std::vector<Value> items) { return std::make_shared<ListObj>(T().list, std::move(items)); }
std::shared_ptr<DictObj> make_dict() { return std::make_shared<DictObj>(T().dict); }
std::shared_ptr<SetObj> make_set(bool frozen) {
  return std::make_shared<SetObj>(frozen ? T().frozenset : T().set, frozen);
}

Value make_builtin(std::string name, NativeFn fn) {
  return std::make_shared<BuiltinObj>(T().builtin_function, std::move(name), std::move(fn));
}

// ---- AttrTable ----

Value* AttrTable::find(std::string_view name) {
  auto it = index.find(std::string(name));
  if (it == index.end()) return nullptr;
  Value& v = entries[it->second].second;
  return v ? &v : nullptr;
}

void AttrTable::set(const std::string& name, Value v) {
  auto it = index.find(name);
  if (it != index.end()) {
    auto& slot = entries[it->second];
    if (slot.second) {
      slot.second = std::move(v);
      return;
    }
    // re-adding a deleted name puts it last, as a dict would
    it->second = entries.size();
    entries.emplace_back(name, std::move(v));
    return;
  }
  index.emplace(name, entries.size());
  entries.emplace_back(name, std::move(v));
}

bool AttrTable::erase(std::string_view name) {
  auto it = index.find(std::string(name));
  if (it == index.end() || !entries[it->second].second) return false;
  entries[it->second].second = nullptr;
  index.erase(it);
  size_t live = index.size();
  if (entries.size() > 16 && entries.size() > 2 * live) {
    std::vector<std::pair<std::string, Value>> kept;
    kept.reserve(live);
    for (auto& e : entries)
      if (e.second) kept.push_back(std::move(e));
    entries = std::move(kept);
    index.clear();
    for (size_t i = 0; i < entries.size(); ++i) index[entries[i].first] = i;
  }
  return true;
}

// ---- DictObj ----

namespace {
// Slots whose hash equals h, copied so that a user __eq__ mutating the dict is harmless.
void candidates(const DictObj& d, size_t h, std::vector<size_t>& out) {
  auto [b, e] = d.index.equal_range(h);
  for (auto it = b; it != e; ++it) out.push_back(it->second);
}

std::optional<size_t> find_slot(Interp& I, DictObj& d, const Value& key, size_t h) {
  if (d.live == 0) return std::nullopt;
  size_t small[8];
  std::vector<size_t> cands;
  auto [b, e] = d.index.equal_range(h);
  size_t n = 0;
  bool overflow = false;
  for (auto it = b; it != e; ++it) {
    if (n < 8) small[n++] = it->second;
    else overflow = true;
  }
  if (overflow) candidates(d, h, cands);
  else cands.assign(small, small + n);
  for (size_t slot : cands) {
    if (slot >= d.entries.size()) continue;
    Value k = d.entries[slot].first;
    if (!k) continue;
    if (bi::eq_fast(I, k, key)) {
      if (slot < d.entries.size() && d.entries[slot].first == k) return slot;
    }
  }
  return std::nullopt;
}

void compact(DictObj& d) {
  std::vector<size_t> remap(d.entries.size(), SIZE_MAX);
  std::vector<std::pair<Value, Value>> kept;
  kept.reserve(d.live);
  for (size_t i = 0; i < d.entries.size(); ++i) {
    if (!d.entries[i].first) continue;
    remap[i] = kept.size();
    kept.push_back(std::move(d.entries[i]));
  }
  std::unordered_multimap<size_t, size_t> index;
  index.reserve(kept.size());
  for (auto& [h, slot] : d.index)
    if (remap[slot] != SIZE_MAX) index.emplace(h, remap[slot]);
  d.entries = std::move(kept);
  d.index = std::move(index);
}
}  // namespace

Value* DictObj::find(Interp& I, const Value& key) {
  if (live == 0) {
    bi::hash_of(I, key);  // unhashable keys raise even on an empty dict
    return nullptr;
  }
  auto slot = find_slot(I, *this, key, bi::hash_of(I, key));
  return slot ? &entries[*slot].second : nullptr;
}

void DictObj::set(Interp& I, const Value& key, Value v) {
  size_t h = bi::hash_of(I, key);
  if (auto slot = find_slot(I, *this, key, h)) {
    entries[*slot].second = std::move(v);
    return;
  }
  index.emplace(h, entries.size());
  entries.emplace_back(key, std::move(v));
  ++live;
}

bool DictObj::erase(Interp& I, const Value& key) {
  size_t h = bi::hash_of(I, key);
  auto slot = find_slot(I, *this, key, h);
  if (!slot) return false;
  auto [b, e] = index.equal_range(h);
  for (auto it = b; it != e; ++it)
    if (it->second == *slot) {
      index.erase(it);
      break;
    }
  entries[*slot].first = nullptr;
  entries[*slot].second = nullptr;
  --live;
  if (live == 0) {
    entries.clear();
    index.clear();
  } else if (entries.size() > 16 && entries.size() > 2 * live) {
    compact(*this);
  }
  return true;
}

std::vector<std::pair<Value, Value>> DictObj::items() const {
  std::vector<std::pair<Value, Value>> out;
  out.reserve(live);
  for (auto& e : entries)
    if (e.first) out.push_back(e);
  return out;
}

// ---- classes ----

Value* ClassObj::lookup(std::string_view attr) {
  if (!mro.empty()) {
    for (ClassObj* c : mro)
      if (Value* v = c->dict.find(attr)) return v;
    return nullptr;
  }
  if (Value* v = dict.find(attr)) return v;
  for (auto& b : bases)
    if (Value* v = b->lookup(attr)) return v;
  return nullptr;
}

bool ClassObj::is_subclass_of(const ClassObj* other) const {
  if (this == other) return true;
  for (ClassObj* c : mro)
    if (c == other) return true;
  if (mro.empty())
    for (auto& b : bases)
      if (b->is_subclass_of(other)) return true;
  return false;
}

ClassP make_class(std::string name, std::vector<ClassP> bases, std::string module) {
  ClassP meta = T().type;
  for (auto& b : bases)
    if (b && b->cls && b->cls.get() != meta.get() && b->cls->is_subclass_of(meta.get())) meta = b->cls;
  auto c = std::make_shared<ClassObj>(meta, std::move(name));
  c->module = std::move(module);
  if (bases.empty() && T().object) bases.push_back(T().object);
  c->bases = std::move(bases);
  finish_class(*c);
  return c;
}

std::optional<std::vector<ClassObj*>> c3_mro(ClassObj& c) {
  std::vector<std::vector<ClassObj*>> seqs;
  for (auto& b : c.bases) seqs.push_back(b->mro.empty() ? std::vector<ClassObj*>{b.get()} : b->mro);
  std::vector<ClassObj*> bases_seq;
  for (auto& b : c.bases) bases_seq.push_back(b.get());
  seqs.push_back(bases_seq);
  std::vector<ClassObj*> out{&c};
  while (true) {
    bool any = false;
    for (auto& s : seqs)
      if (!s.empty()) any = true;
    if (!any) return out;
    ClassObj* pick = nullptr;
    for (auto& s : seqs) {
      if (s.empty()) continue;
      ClassObj* cand = s.front();
      bool in_tail = false;
      for (auto& t : seqs)
        if (std::find(t.begin() + (t.empty() ? 0 : 1), t.end(), cand) != t.end()) in_tail = true;
      if (!in_tail) {
        pick = cand;
        break;
      }
    }
    if (!pick) return std::nullopt;
    out.push_back(pick);
    for (auto& s : seqs)
      if (!s.empty() && s.front() == pick) s.erase(s.begin());
  }
}

// C3 linearisation (falls back to depth-first order when the bases are inconsistent:
// built-in classes; a class statement raises TypeError instead).
void finish_class(ClassObj& c) {
  for (auto& b : c.bases)
    if (b->mro.empty()) finish_class(*b);
  if (auto mro = c3_mro(c)) {
    c.mro = std::move(*mro);
    return;
  }
  std::vector<ClassObj*> out{&c};
  for (auto& b : c.bases)
    for (ClassObj* m : b->mro)
      if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
  c.mro = std::move(out);
}

}  // namespace shard::interp
