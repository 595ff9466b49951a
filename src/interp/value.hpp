// The host value model: every Python-level value is a `Value` (a shared pointer to an
// Object). Built-in types are ordinary classes whose dicts hold native functions, so the
// interpreter dispatches operators, attributes and calls the same way for `int`, a user
// class, and (later) device arrays: look the dunder up on the type and call it.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ast/ast.hpp"

namespace shard::interp {

class Interp;
struct Object;
struct ClassObj;
using Value = std::shared_ptr<Object>;
using ClassP = std::shared_ptr<ClassObj>;

enum class ObjKind : uint8_t {
  None, NotImplemented, Ellipsis, Bool, Int, Float, Str, Tuple, List, Dict, Set, FrozenSet,
  Range, Slice, Function, Builtin, BoundMethod, Class, Instance, Module, Iterator, Cell,
  Property, StaticMethod, ClassMethod, Super,
  Native,  // anything defined outside src/interp (arrays, meshes, ...): subclass NativeObj
  Complex,
};

// The cycle collector (gc.cpp) keeps a registry of the objects that can hold references
// (containers, functions, classes, instances, modules, cells and natives that opt in).
// Reference counting frees everything else; the collector finds groups of tracked objects
// that only reference each other, as CPython's gc does, using each object's strong count
// (hence enable_shared_from_this) minus the references it can see between tracked objects.
inline constexpr uint32_t kGcUntracked = UINT32_MAX;
inline constexpr uint32_t kGcTrackedKinds = [] {
  uint32_t m = 0;
  for (ObjKind k : {ObjKind::Tuple, ObjKind::List, ObjKind::Dict, ObjKind::Set, ObjKind::FrozenSet, ObjKind::Function,
                    ObjKind::BoundMethod, ObjKind::Class, ObjKind::Instance, ObjKind::Module, ObjKind::Cell,
                    ObjKind::Property, ObjKind::StaticMethod, ObjKind::ClassMethod})
    m |= 1u << unsigned(k);
  return m;
}();
// Scalars, strings, ranges, iterators and builtins are never tracked; natives opt in.
inline bool gc_tracks_kind(ObjKind k) { return (kGcTrackedKinds >> unsigned(k)) & 1u; }
void gc_track(Object& o);
void gc_untrack(Object& o);

struct Object : std::enable_shared_from_this<Object> {
  ObjKind kind;
  uint32_t gc_slot = kGcUntracked;  // index in the collector's registry, or untracked
  ClassP cls;  // the Python-level type; never null once builtins are initialised
  Object(ObjKind k, ClassP c) : Object(k, std::move(c), gc_tracks_kind(k)) {}
  Object(ObjKind k, ClassP c, bool tracked) : kind(k), cls(std::move(c)) {
    if (tracked) gc_track(*this);
  }
  // A copy is a new object: its own registry slot (never the original's), no owner yet.
  Object(const Object& o) : std::enable_shared_from_this<Object>(), kind(o.kind), cls(o.cls) {
    if (o.gc_slot != kGcUntracked) gc_track(*this);
  }
  Object& operator=(const Object&) = delete;
  virtual ~Object() {
    if (gc_slot != kGcUntracked) gc_untrack(*this);
  }
};

// What the collector asks of an object: each reference it holds, one call per reference
// actually held (a reference reported that is not held would free live objects; one not
// reported only keeps garbage alive).
struct GcVisitor {
  virtual void operator()(const Object* referent) = 0;
  void operator()(const Value& v) {
    if (v) (*this)(v.get());
  }
};

// Ordered string-keyed attribute table (module globals, class dicts, instance __dict__).
struct AttrTable {
  std::vector<std::pair<std::string, Value>> entries;  // insertion order; value null = deleted
  std::unordered_map<std::string, size_t> index;
  Value* find(std::string_view name);
  void set(const std::string& name, Value v);
  bool erase(std::string_view name);
};

// Arguments of a call, as evaluated at the call site.
struct CallArgs {
  std::vector<Value> args;
  std::vector<std::pair<std::string, Value>> kwargs;
  ast::Loc loc;  // the call site
};

using NativeFn = std::function<Value(Interp&, CallArgs&)>;

// Destroying a deep structure (a long linked list of instances, nested lists) recursively
// would overflow the C++ stack. Containers hand the values they hold the last reference to
// here; the outermost destruction releases them one at a time, so depth costs no stack.
void release_values(std::vector<Value>& values);

struct NoneObj : Object { using Object::Object; };
struct BoolObj : Object { bool v; BoolObj(ClassP c, bool b) : Object(ObjKind::Bool, std::move(c)), v(b) {} };
struct IntObj : Object { int64_t v; IntObj(ClassP c, int64_t x) : Object(ObjKind::Int, std::move(c)), v(x) {} };
struct FloatObj : Object { double v; FloatObj(ClassP c, double x) : Object(ObjKind::Float, std::move(c)), v(x) {} };
struct ComplexObj : Object {
  double re, im;
  ComplexObj(ClassP c, double r, double i) : Object(ObjKind::Complex, std::move(c)), re(r), im(i) {}
};
struct StrObj : Object { std::string v; StrObj(ClassP c, std::string s) : Object(ObjKind::Str, std::move(c)), v(std::move(s)) {} };
// True when one of `xs` is tracked. A tuple of untracked values (numbers, strings, arrays)
// can never be part of a cycle, so it is not tracked (as CPython untracks such tuples).
inline bool gc_any_tracked(const std::vector<Value>& xs) {
  for (auto& v : xs)
    if (v && v->gc_slot != kGcUntracked) return true;
  return false;
}
struct TupleObj : Object {
  std::vector<Value> items;
  TupleObj(ClassP c, std::vector<Value> xs) : Object(ObjKind::Tuple, std::move(c), gc_any_tracked(xs)), items(std::move(xs)) {}
  ~TupleObj() override { release_values(items); }
};
struct ListObj : Object {
  std::vector<Value> items;
  ListObj(ClassP c, std::vector<Value> xs) : Object(ObjKind::List, std::move(c)), items(std::move(xs)) {}
  ~ListObj() override { release_values(items); }
};

// Insertion-ordered hash table keyed by Python equality/hash (needs the interpreter for
// user-defined __eq__/__hash__). Deleted slots are tombstones (null key), compacted lazily.
struct DictObj : Object {
  std::vector<std::pair<Value, Value>> entries;
  std::unordered_multimap<size_t, size_t> index;  // hash -> slot in entries
  size_t live = 0;
  explicit DictObj(ClassP c) : Object(ObjKind::Dict, std::move(c)) {}
  ~DictObj() override;
  Value* find(Interp& I, const Value& key);
  void set(Interp& I, const Value& key, Value v);
  bool erase(Interp& I, const Value& key);
  std::vector<std::pair<Value, Value>> items() const;  // live entries in order
};
// set and frozenset: a DictObj whose values are unused (kind Set or FrozenSet).
struct SetObj : DictObj { SetObj(ClassP c, bool frozen) : DictObj(std::move(c)) { kind = frozen ? ObjKind::FrozenSet : ObjKind::Set; } };

struct RangeObj : Object { int64_t start, stop, step; RangeObj(ClassP c, int64_t a, int64_t b, int64_t s) : Object(ObjKind::Range, std::move(c)), start(a), stop(b), step(s) {} };
struct SliceObj : Object { Value start, stop, step; SliceObj(ClassP c, Value a, Value b, Value s) : Object(ObjKind::Slice, std::move(c)), start(std::move(a)), stop(std::move(b)), step(std::move(s)) {} };

// A native iterator: next() returns nullopt when exhausted.
struct IteratorObj : Object {
  std::function<std::optional<Value>()> next;
  IteratorObj(ClassP c, std::function<std::optional<Value>()> n) : Object(ObjKind::Iterator, std::move(c)), next(std::move(n)) {}
};

struct CellObj : Object {
  Value v;
  explicit CellObj(ClassP c) : Object(ObjKind::Cell, std::move(c)) {}
  ~CellObj() override;
};

struct ModuleObj : Object {
  std::string name;
  std::string file;  // "" for built-in modules
  AttrTable dict;
  ModuleObj(ClassP c, std::string n) : Object(ObjKind::Module, std::move(c)), name(std::move(n)) {}
};

// A user function or lambda. `def` is the FunctionDef statement (null for a lambda, then
// `lambda` is the Lambda expression).
struct FunctionObj : Object {
  std::string name, qualname;
  std::shared_ptr<ast::Stmt> def;
  std::shared_ptr<ast::Expr> lambda;
  const ast::Params* params = nullptr;
  std::vector<Value> defaults;     // for positional params with defaults, in order
  AttrTable kwdefaults;            // keyword-only defaults
  std::vector<std::shared_ptr<CellObj>> closure;  // free variables, in the order the interpreter decides
  std::shared_ptr<ModuleObj> globals;
  AttrTable dict;                  // function attributes (f.__name__ is answered from `name`)
  std::shared_ptr<void> code;      // interpreter-private analysis (locals, cells, free vars)
  explicit FunctionObj(ClassP c) : Object(ObjKind::Function, std::move(c)) {}
};

struct BuiltinObj : Object {
  std::string name;  // as Python shows it, e.g. "len" or "append"
  NativeFn fn;
  Value self;        // bound receiver for builtin methods accessed on an instance (or null)
  BuiltinObj(ClassP c, std::string n, NativeFn f) : Object(ObjKind::Builtin, std::move(c)), name(std::move(n)), fn(std::move(f)) {}
};

struct BoundMethodObj : Object {
  Value self, func;
  BoundMethodObj(ClassP c, Value s, Value f) : Object(ObjKind::BoundMethod, std::move(c)), self(std::move(s)), func(std::move(f)) {}
};

// property / staticmethod / classmethod wrappers.
struct WrapperObj : Object {
  Value fget, fset;  // property: getter/setter; staticmethod/classmethod: fget = the function
  WrapperObj(ObjKind k, ClassP c, Value f) : Object(k, std::move(c)), fget(std::move(f)) {}
};

struct SuperObj : Object {
  ClassP start;  // look up after this class in the MRO of type(self)
  Value self;
  SuperObj(ClassP c, ClassP s, Value o) : Object(ObjKind::Super, std::move(c)), start(std::move(s)), self(std::move(o)) {}
};

struct TraceEntry {
  ast::Loc loc;       // the line executing in that frame
  std::string func;   // "<module>" or the function's name
};

// State attached to exception instances.
struct ExcInfo {
  std::vector<TraceEntry> traceback;  // outermost first, like Python's traceback
  ast::Loc loc;                       // where it was raised (innermost)
  Value cause, context;
};

struct ClassObj : Object {
  std::string name;
  std::string module = "builtins";
  std::vector<ClassP> bases;
  std::vector<ClassObj*> mro;  // self first; filled by finish_class()
  AttrTable dict;
  ObjKind instance_kind = ObjKind::Instance;  // what kind of Object its instances are
  // Native construction for built-in types: type(*args) when the class (or a base) is built
  // in. Receives the class being instantiated (may be a user subclass).
  std::function<Value(Interp&, const ClassP&, CallArgs&)> native_new;
  // For a metaclass defined in C++ (enum.EnumType, abc.ABCMeta, ...): run by a class
  // statement making an instance of it once the class exists (body namespace, bases, MRO),
  // before __init_subclass__. Completes the class or returns a replacement for the
  // statement to bind, as the metaclass's __new__ would in CPython.
  std::function<ClassP(Interp&, const ClassP&)> native_class_new;
  explicit ClassObj(ClassP meta, std::string n) : Object(ObjKind::Class, std::move(meta)), name(std::move(n)) {}
  Value* lookup(std::string_view attr);  // along the MRO, or nullptr
  bool is_subclass_of(const ClassObj* other) const;
};

struct InstanceObj : Object {
  AttrTable dict;
  std::shared_ptr<ExcInfo> exc;  // set for exception instances
  Value native;                  // for user subclasses of built-in types (e.g. list): the wrapped value
  explicit InstanceObj(ClassP c) : Object(ObjKind::Instance, std::move(c)) {}
  ~InstanceObj() override;
};

// Base for values defined outside the interpreter (device arrays, meshes, specs...). Their
// classes are ordinary ClassObj with native methods and dunders.
// Natives holding Values opt into the collector (GcTracked) and report those references;
// gc_clear drops them when the object is part of unreachable garbage (the object is then
// destroyed; it must stay destructible).
struct NativeObj : Object {
  enum GcTracked { gc_tracked };
  explicit NativeObj(ClassP c) : Object(ObjKind::Native, std::move(c)) {}
  NativeObj(ClassP c, GcTracked) : Object(ObjKind::Native, std::move(c)) { gc_track(*this); }
  virtual void gc_traverse(GcVisitor& visit) const {}
  virtual void gc_clear() {}
};

// The built-in classes, created once by init_builtin_types().
struct BuiltinTypes {
  ClassP object, type, none, notimplemented, ellipsis, bool_, int_, float_, str, tuple, list,
      dict, set, frozenset, range, slice, function, builtin_function, method, module, iterator,
      cell, property, staticmethod, classmethod, super_;
  ClassP base_exception, exception;  // the rest of the hierarchy is in builtins by name
  ClassP complex;
};
BuiltinTypes& T();

// Constructors (cheap; small ints and the singletons are shared).
Value none();
Value not_implemented();
Value ellipsis();
Value make_bool(bool b);
Value make_int(int64_t v);
Value make_float(double v);
Value make_complex(double re, double im);
Value make_str(std::string s);
Value make_tuple(std::vector<Value> items);
Value make_list(std::vector<Value> items);
std::shared_ptr<DictObj> make_dict();
std::shared_ptr<SetObj> make_set(bool frozen = false);
Value make_builtin(std::string name, NativeFn fn);
// Its metaclass is the most derived metaclass of its bases (`type` for plain classes).
ClassP make_class(std::string name, std::vector<ClassP> bases, std::string module = "builtins");
// Computes mro after bases are set (C3; depth-first when the bases are inconsistent).
void finish_class(ClassObj& c);
// CPython's C3 linearisation of c over its bases' MROs (c first); nullopt when the bases
// admit no consistent order.
std::optional<std::vector<ClassObj*>> c3_mro(ClassObj& c);

// Checked accessors: raise TypeError (through the interpreter) on the wrong kind.
inline bool is(const Value& v, ObjKind k) { return v && v->kind == k; }
template <class T> T& as(const Value& v) { return static_cast<T&>(*v); }

// Python exceptions travel through C++ as PyError. `exc` is an exception instance.
struct PyError {
  Value exc;
};

}  // namespace shard::interp
