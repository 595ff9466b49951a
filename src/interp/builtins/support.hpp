// Internal helpers shared by the files that implement the built-in types and functions:
//   support.cpp            registering native methods on classes, checking arguments with
//                          CPython's messages, unwrapping receivers (including user
//                          subclasses of built-in types)
//   support_values.cpp     fast paths for the common value kinds, guards for recursive
//                          repr/compare, how objects and strings print
//   support_sequences.cpp  iterators, collecting iterables, slice indices, a stable sort
#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "interp/builtins/numfmt.hpp"
#include "interp/interp.hpp"
#include "interp/value.hpp"

namespace shard::interp::bi {

// ---- classes ----
// A class created by the runtime whose instances are the native object itself (a DictObj
// for OrderedDict, ...) rather than an InstanceObj; native constructors use this to decide
// whether to wrap (user subclasses get an InstanceObj whose `native` holds the value).
ClassP native_class(std::string name, ClassP base, std::string module = "builtins",
                    ObjKind instance_kind = ObjKind::Instance);
bool is_native_layout(const ClassObj* c);
void mark_native_layout(const ClassObj* c);
// Puts a native method (self = args[0]) into the class dict.
void def(const ClassP& cls, const std::string& name, NativeFn fn);
void def_property(const ClassP& cls, const std::string& name, NativeFn get, NativeFn set = nullptr);
void def_classmethod(const ClassP& cls, const std::string& name, NativeFn fn);
void def_staticmethod(const ClassP& cls, const std::string& name, NativeFn fn);
// The shared pointer of `target` (a class in root's MRO, which holds raw pointers), found
// among `root` and its bases; null if it is not there.
ClassP class_ptr(const ClassP& root, const ClassObj* target);
// Wraps `v` as an instance of `cls` when cls is a user subclass (InstanceObj.native = v).
Value wrap_for_class(const ClassP& cls, Value v);

// ---- exceptions ----
ClassP exc_class(std::string_view name);  // the built-in exception classes, by name
void register_exc_class(const ClassP& c);
bool exc_is(const PyError& e, std::string_view type);  // isinstance(e.exc, type)

// ---- arguments ----
void no_kwargs(Interp& I, const CallArgs& a, std::string_view fname);
// For methods (args[0] is self): checks the count of the remaining arguments.
void method_nargs(Interp& I, const CallArgs& a, std::string_view fname, size_t min, size_t max);
// The same with the older wording "f() takes at least 1 argument (0 given)" (str.find, ...).
void method_nargs_old(Interp& I, const CallArgs& a, std::string_view fname, size_t min, size_t max);
// For functions: checks the count of positional arguments.
void func_nargs(Interp& I, const CallArgs& a, std::string_view fname, size_t min, size_t max);
const Value* find_kwarg(const CallArgs& a, std::string_view name);
// The call `a` with its first `n` positional arguments dropped (keywords and call site
// kept): how a method forwards its arguments after self (and any it consumed itself).
CallArgs args_after(const CallArgs& a, size_t n);
inline CallArgs args_without_self(const CallArgs& a) { return args_after(a, 1); }

// ---- small tuples ----
Value int_tuple(const std::vector<int64_t>& xs);      // (2, 4)
Value str_tuple(const std::vector<std::string>& xs);  // ('x', 'y')

// ---- unwrapping ----
template <class O>
O* unwrap(const Value& v, ObjKind k) {
  if (!v) return nullptr;
  if (v->kind == k) return static_cast<O*>(v.get());
  if (v->kind == ObjKind::Instance) {
    auto& inst = static_cast<InstanceObj&>(*v);
    if (inst.native && inst.native->kind == k) return static_cast<O*>(inst.native.get());
  }
  return nullptr;
}
// The underlying native value (InstanceObj.native for user subclasses), else v itself.
const Value& native_of(const Value& v);
// int or bool value (or a user subclass of int); nullopt otherwise.
std::optional<int64_t> int_of(const Value& v);
// float, int or bool as a double; nullopt otherwise.
std::optional<double> real_of(const Value& v);
StrObj* str_of(const Value& v);
inline bool is_float(const Value& v) { return unwrap<FloatObj>(v, ObjKind::Float) != nullptr; }
// Receiver checks for methods: raises CPython's descriptor TypeError on a wrong self.
[[noreturn]] void bad_self(Interp& I, const CallArgs& a, std::string_view type, std::string_view meth);
template <class O>
O& self_as(Interp& I, const CallArgs& a, ObjKind k, std::string_view type, std::string_view meth) {
  O* o = a.args.empty() ? nullptr : unwrap<O>(a.args[0], k);
  if (!o) bad_self(I, a, type, meth);
  return *o;
}
// The receiver of a method of a native class whose instances are NativeObj subclasses
// (`O`); raises the descriptor TypeError instead of a bad cast for anything else.
template <class O>
O& native_self(Interp& I, const CallArgs& a, const ClassP& cls, std::string_view type, std::string_view meth) {
  if (a.args.empty() || a.args[0]->kind != ObjKind::Native || !cls || !a.args[0]->cls->is_subclass_of(cls.get()))
    bad_self(I, a, type, meth);
  return static_cast<O&>(*a.args[0]);
}
// `__index__` protocol: ints/bools, or objects with __index__. `what` completes the
// TypeError "... must be integers or slices, not X" style messages (see callers).
int64_t index_of(Interp& I, const Value& v, const std::string& err_prefix);
std::optional<int64_t> try_index(Interp& I, const Value& v);
// Text of a str argument, or TypeError "<fname>() argument must be str, not int".
const std::string& str_arg(Interp& I, const Value& v, std::string_view what);

// Results beyond ~1G elements would exhaust memory: raise MemoryError as CPython would.
constexpr int64_t kMaxAlloc = int64_t(1) << 30;
inline void check_alloc(Interp& I, int64_t n) {
  if (n > kMaxAlloc || n < 0) I.raise("MemoryError", "");
}

// ---- fast paths used by containers ----
std::optional<size_t> fast_hash(const Value& v);  // for str/int/float/bool/None and tuples of them
size_t hash_of(Interp& I, const Value& v);
bool eq_fast(Interp& I, const Value& a, const Value& b);  // identity, then common kinds, then I.eq
bool lt_fast(Interp& I, const Value& a, const Value& b);
std::string repr_of(Interp& I, const Value& v);           // common kinds directly, else I.repr
std::string str_of_value(Interp& I, const Value& v);       // str(v)
// CPython's deterministic hash for values whose set order we reproduce (ints, floats,
// bools, tuples of those); nullopt for others (strs are randomised in CPython).
std::optional<int64_t> cpython_hash(const Value& v);

// ---- recursion guards ----
// Guards repr of containers: `active()` is true when `obj` is already being printed
// ("[...]"). Also bounds nesting depth with RecursionError.
class ReprGuard {
 public:
  ReprGuard(Interp& I, const Object* obj);
  ~ReprGuard();
  bool active() const { return active_; }
 private:
  bool active_ = false;
  bool pushed_ = false;
};
// Bounds native recursion (nested compares/hashes) with RecursionError.
class DepthGuard {
 public:
  DepthGuard(Interp& I, const char* what);
  ~DepthGuard();
};

// ---- misc ----
std::string addr_of(const void* p);        // "0x7f..." as CPython prints ids
std::string class_qualname(const ClassObj& c);  // "int" or "__main__.Outer.Foo"
Value make_iterator(ClassP cls, std::function<std::optional<Value>()> next);
ClassP iter_class(std::string_view name);  // list_iterator, dict_keyiterator, ...
// Iterates any iterable with fast paths for lists/tuples.
std::vector<Value> collect(Interp& I, const Value& iterable);
// Python's string repr (quote choice and escapes); ascii=true escapes non-ASCII too.
std::string str_repr(std::string_view s, bool ascii = false);
Value str_from_code_point(uint32_t cp);
std::string ascii_repr(Interp& I, const Value& v);  // ascii(v)
// Throws the Python equivalent of a numfmt::FormatError.
[[noreturn]] void raise_format_error(Interp& I, const numfmt::FormatError& e);

// Normalised slice indices (PySlice_GetIndicesEx).
struct SliceIdx {
  int64_t start, stop, step, length;
};
SliceIdx slice_indices(Interp& I, const SliceObj& s, int64_t len);
// Wraps a negative index, returns -1 when out of range.
inline int64_t norm_index(int64_t i, int64_t len) {
  if (i < 0) i += len;
  return (i < 0 || i >= len) ? -1 : i;
}

// Stable merge sort whose comparator may throw (PyError); `v` is only reordered on success.
void stable_sort(Interp& I, std::vector<Value>& v, const std::vector<Value>* keys, bool reverse);

// Initialisers for each group of types (called from init_builtin_types).
void init_object_types();
void init_number_types();
void init_complex_type();
void init_str_type();
void init_sequence_types();
void init_dict_types();
void init_set_types();
void init_range_slice_types();
void init_iterator_types();
void init_exception_types();
// Builtin functions, split by theme (called from init_builtins_module).
void add_core_functions(Interp& I, ModuleObj& m);
void add_iter_functions(Interp& I, ModuleObj& m);
void add_numeric_functions(Interp& I, ModuleObj& m);
// Host modules.
void register_math_module();
void register_cmath_module();
void register_functools_module();
void register_sys_os_time_modules();
void register_collections_module();
void register_itertools_module();
void register_typing_modules();
void register_copy_module();
void register_random_module();
void register_string_operator_bisect_heapq_modules();
void register_json_module();
void register_re_module();
void register_enum_module();
void register_abc_module();
void register_textwrap_module();
void register_gc_module();
// list[int] / int | None support on `type` (called once the core types exist).
void init_typing_support();
// The members of an `int | str` union object (false when spec is not one).
bool union_members(const Value& spec, std::vector<Value>& out);

// Shared native implementations used by several files.
Value int_new(Interp& I, const ClassP& cls, CallArgs& a);
Value float_new(Interp& I, const ClassP& cls, CallArgs& a);
Value complex_new(Interp& I, const ClassP& cls, CallArgs& a);
// x ** y as a complex when a negative float has a fractional power (null otherwise).
Value float_pow_complex(Interp& I, double x, double y);
Value str_format_method(Interp& I, const std::string& fmt, CallArgs& a, size_t first);
Value percent_format(Interp& I, const std::string& fmt, const Value& args);
std::string format_value(Interp& I, const Value& v, const std::string& spec);
Value dict_from_args(Interp& I, const std::shared_ptr<DictObj>& d, CallArgs& a, size_t first,
                     std::string_view fname);
void dict_update_from(Interp& I, DictObj& d, const Value& src, std::string_view fname);
void set_add_all(Interp& I, SetObj& s, const Value& iterable);
std::vector<Value> set_ordered_keys(const SetObj& s);
Value range_getitem(Interp& I, const RangeObj& r, const Value& key);
int64_t range_len(const RangeObj& r);

}  // namespace shard::interp::bi

namespace shard::interp::bi {
// sys.stdout / sys.stderr: objects print() writes to directly.
Value make_stream(std::ostream* os, std::string name);
std::ostream* stream_of(const Value& v);  // null when v is not one of them
[[noreturn]] void raise_stop_iteration(Interp& I);
}  // namespace shard::interp::bi
