#include "api/objects/dtype_value.hpp"

#include <fmt/format.h>

#include <map>

#include "api/objects/array_value.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using interp::CallArgs;
using interp::ClassP;
using interp::ObjKind;
using interp::Value;
using types::DType;

namespace {

DTypeObj* as_dtype(const Value& v) {
  if (!v || v->kind != interp::ObjKind::Native) return nullptr;
  return dynamic_cast<DTypeObj*>(v.get());
}

std::string numpy_name(DType d) { return std::string(types::dtype_name(d)); }

// numpy's dtype.kind: ml_dtypes registers bfloat16 with kind 'V' (so numpy 1.x does not take
// it for float16).
char numpy_kind(DType d) { return d == DType::BF16 ? 'V' : types::dtype_kind(d); }

// dtype.str: '<f4', '|b1', '|u1' (one-byte types have no byte order), '<V2' for bfloat16.
std::string dtype_str(DType d) {
  const size_t n = types::dtype_size(d);
  return fmt::format("{}{}{}", n == 1 ? '|' : '<', numpy_kind(d), n);
}

// numpy's type numbers (dtype.num): NPY_BOOL 0, NPY_UBYTE 2, NPY_USHORT 4, NPY_INT 5, NPY_UINT 6,
// NPY_LONG 7, NPY_FLOAT 11, NPY_DOUBLE 12, NPY_CFLOAT 14, NPY_CDOUBLE 15, NPY_HALF 23; bfloat16's
// is assigned when ml_dtypes registers it (the first user type number, 256, is typical).
int dtype_num(DType d) {
  switch (d) {
    case DType::Bool: return 0;
    case DType::U8: return 2;
    case DType::U16: return 4;
    case DType::I32: return 5;
    case DType::U32: return 6;
    case DType::I64: return 7;
    case DType::F32: return 11;
    case DType::F64: return 12;
    case DType::C64: return 14;
    case DType::C128: return 15;
    case DType::F16: return 23;
    case DType::BF16: return 256;
  }
  return -1;
}

ClassP dtype_class() {
  static ClassP c = [] {
    auto k = interp::make_class("dtype", {interp::T().object}, "numpy");
    auto dt = [](const CallArgs& a) { return as_dtype(a.args[0])->dtype; };
    interp::bi::def(k, "__repr__", [dt](Interp&, CallArgs& a) {
      const DType d = dt(a);
      // ml_dtypes' dtypes print without quotes: dtype(bfloat16).
      return interp::make_str(d == DType::BF16 ? "dtype(bfloat16)" : fmt::format("dtype('{}')", numpy_name(d)));
    });
    interp::bi::def(k, "__str__", [dt](Interp&, CallArgs& a) { return interp::make_str(numpy_name(dt(a))); });
    interp::bi::def(k, "__eq__", [dt](Interp& I, CallArgs& a) {
      auto other = dtype_from_value(I, a.args[1]);
      return interp::make_bool(other && *other == dt(a));
    });
    interp::bi::def(k, "__ne__", [dt](Interp& I, CallArgs& a) {
      auto other = dtype_from_value(I, a.args[1]);
      return interp::make_bool(!(other && *other == dt(a)));
    });
    interp::bi::def(k, "__hash__", [dt](Interp&, CallArgs& a) {
      return interp::make_int(static_cast<int64_t>(std::hash<std::string>{}(numpy_name(dt(a)))));
    });
    interp::bi::def_property(k, "name", [dt](Interp&, CallArgs& a) { return interp::make_str(numpy_name(dt(a))); });
    interp::bi::def_property(k, "itemsize", [dt](Interp&, CallArgs& a) {
      return interp::make_int(static_cast<int64_t>(types::dtype_size(dt(a))));
    });
    interp::bi::def_property(k, "alignment", [dt](Interp&, CallArgs& a) {
      const DType d = dt(a);
      return interp::make_int(static_cast<int64_t>(types::is_complex(d) ? types::dtype_size(d) / 2 : types::dtype_size(d)));
    });
    interp::bi::def_property(k, "kind", [dt](Interp&, CallArgs& a) { return interp::make_str(std::string(1, numpy_kind(dt(a)))); });
    interp::bi::def_property(k, "char", [dt](Interp&, CallArgs& a) { return interp::make_str(std::string(1, dtype_char(dt(a)))); });
    interp::bi::def_property(k, "str", [dt](Interp&, CallArgs& a) { return interp::make_str(dtype_str(dt(a))); });
    interp::bi::def_property(k, "byteorder", [dt](Interp&, CallArgs& a) {
      return interp::make_str(types::dtype_size(dt(a)) == 1 ? "|" : "=");
    });
    interp::bi::def_property(k, "num", [dt](Interp&, CallArgs& a) { return interp::make_int(dtype_num(dt(a))); });
    interp::bi::def_property(k, "type", [dt](Interp&, CallArgs& a) -> Value { return host_scalar_type(dt(a)); });
    interp::bi::def_property(k, "ndim", [](Interp&, CallArgs&) { return interp::make_int(0); });
    interp::bi::def_property(k, "shape", [](Interp&, CallArgs&) { return interp::make_tuple({}); });
    interp::bi::def_property(k, "isnative", [](Interp&, CallArgs&) { return interp::make_bool(true); });
    interp::bi::def_property(k, "isbuiltin", [dt](Interp&, CallArgs& a) { return interp::make_int(dt(a) == DType::BF16 ? 0 : 1); });
    interp::bi::def_property(k, "hasobject", [](Interp&, CallArgs&) { return interp::make_bool(false); });
    interp::bi::def_property(k, "base", [dt](Interp&, CallArgs& a) { return dtype_value(dt(a)); });
    for (const char* none_attr : {"names", "fields", "subdtype", "metadata"})
      interp::bi::def_property(k, none_attr, [](Interp&, CallArgs&) { return interp::none(); });
    // np.dtype(obj, align=False, copy=False): a dtype specifier, or a device array's / tracer's
    // dtype (numpy reads a .dtype attribute; a numpy array itself it refuses).
    k->native_new = [](Interp& I, const ClassP&, CallArgs& a) -> Value {
      interp::ArgParser p(I, a, "dtype", {"dtype", "align=", "copy=", "metadata="});
      const Value v = p.get("dtype");
      if (auto* arr = as_array(v); (arr && !arr->host) || as_tracer(v)) return dtype_value(type_of(v).dtype());
      return dtype_value(require_dtype(I, v));
    };
    return k;
  }();
  return c;
}

// The metaclass of numpy's scalar types (printed as `type`, as numpy's are): isinstance(v, T)
// for a 0-d numpy array v (shard's numpy scalars) asks whether v's scalar type is T or below it.
// jnp.float32 & co. use it too: JAX's _ScalarMeta answers isinstance(np.float32(1), jnp.float32).
ClassP scalar_meta() {
  static ClassP m = [] {
    auto k = interp::make_class("type", {interp::T().type}, "builtins");
    k->instance_kind = ObjKind::Class;
    interp::bi::def(k, "__instancecheck__", [](Interp& I, CallArgs& a) -> Value {
      interp::bi::method_nargs(I, a, "__instancecheck__", 1, 1);
      auto* arr = as_array(a.args[1]);
      if (!arr || !arr->host || arr->array->type.rank() != 0) return interp::make_bool(false);
      const DType d = arr->array->type.dtype();
      auto& cls = static_cast<interp::ClassObj&>(*a.args[0]);
      if (cls.module == "jax.numpy") return interp::make_bool(dtype_from_value(I, a.args[0]) == d);
      return interp::make_bool(host_scalar_type(d)->is_subclass_of(&cls));
    });
    // JAX's _ScalarMeta: jnp.float32 == np.float32 (either way round) and their hashes agree.
    auto concrete = [](Interp& I, const Value& c) -> std::optional<DType> {
      if (!c || c->kind != ObjKind::Class) return std::nullopt;
      return dtype_from_value(I, c);
    };
    interp::bi::def(k, "__eq__", [concrete](Interp& I, CallArgs& a) -> Value {
      if (a.args[0].get() == a.args[1].get()) return interp::make_bool(true);
      if (!a.args[1] || a.args[1]->kind != ObjKind::Class) return interp::not_implemented();
      auto x = concrete(I, a.args[0]), y = concrete(I, a.args[1]);
      return interp::make_bool(x && y && *x == *y);
    });
    interp::bi::def(k, "__ne__", [concrete](Interp& I, CallArgs& a) -> Value {
      if (a.args[0].get() == a.args[1].get()) return interp::make_bool(false);
      if (!a.args[1] || a.args[1]->kind != ObjKind::Class) return interp::not_implemented();
      auto x = concrete(I, a.args[0]), y = concrete(I, a.args[1]);
      return interp::make_bool(!(x && y && *x == *y));
    });
    interp::bi::def(k, "__hash__", [concrete](Interp& I, CallArgs& a) -> Value {
      if (auto d = concrete(I, a.args[0])) return interp::make_int(0x5ca1a7 + static_cast<int64_t>(*d));
      return interp::make_int(static_cast<int64_t>(reinterpret_cast<uintptr_t>(a.args[0].get()) >> 4));
    });
    return k;
  }();
  return m;
}

struct Abstract {
  const char* name;
  const char* base;
};
constexpr Abstract kAbstract[] = {
    {"generic", nullptr},          {"number", "generic"},        {"integer", "number"},
    {"signedinteger", "integer"},  {"unsignedinteger", "integer"}, {"inexact", "number"},
    {"floating", "inexact"},       {"complexfloating", "inexact"}, {"flexible", "generic"},
    {"character", "flexible"},
};

const std::map<std::string, ClassP, std::less<>>& abstract_types() {
  static const std::map<std::string, ClassP, std::less<>> m = [] {
    std::map<std::string, ClassP, std::less<>> out;
    for (const auto& a : kAbstract) {
      ClassP k = a.base ? interp::make_class(a.name, {out.at(a.base)}, "numpy") : interp::make_class(a.name, {interp::T().object}, "numpy");
      if (!a.base) {
        k->cls = scalar_meta();
      }
      k->native_new = [name = std::string(a.name)](Interp& I, const ClassP&, CallArgs&) -> Value {
        I.raise("TypeError", fmt::format("cannot create 'numpy.{}' instances", name));
      };
      out[a.name] = k;
    }
    return out;
  }();
  return m;
}

// Where each scalar type sits in numpy's hierarchy.
ClassP scalar_base(DType d) {
  const auto& a = abstract_types();
  switch (types::dtype_kind(d)) {
    case 'i': return a.at("signedinteger");
    case 'u': return a.at("unsignedinteger");
    case 'f': return d == DType::BF16 ? a.at("generic") : a.at("floating");
    case 'c': return a.at("complexfloating");
    default: return a.at("generic");
  }
}

// The scalar types: `<class 'jax.numpy.float32'>` / `<class 'numpy.float32'>` (bfloat16's host
// type is `<class 'ml_dtypes.bfloat16'>`); calling one converts its argument to that dtype.
ClassP scalar_type_class(DType d, bool host) {
  const std::string name = numpy_name(d) == "bool" ? "bool_" : numpy_name(d);
  ClassP k;
  if (host) {
    k = interp::make_class(name, {scalar_base(d)}, d == DType::BF16 ? "ml_dtypes" : "numpy");
  } else {
    k = interp::make_class(name, {interp::T().object}, "jax.numpy");
    k->cls = scalar_meta();
    k->dict.set("dtype", dtype_value(d));  // JAX's _ScalarMeta: jnp.float32.dtype
  }
  k->native_new = [d, host](Interp& I, const ClassP&, CallArgs& a) -> Value {
    if (a.args.size() != 1) I.raise("TypeError", fmt::format("{}() takes exactly one argument", numpy_name(d)));
    return guarded(I, [&] {
      auto h = host_array_from_python(I, a.args[0], std::nullopt);
      return host ? wrap(host_astype(h, d), true) : wrap(to_device(h, d, std::nullopt), false);
    });
  };
  return k;
}

}  // namespace

ClassP dtype_type() { return dtype_class(); }

char dtype_char(DType d) {
  switch (d) {
    case DType::Bool: return '?';
    case DType::I32: return 'i';
    case DType::I64: return 'l';
    case DType::U8: return 'B';
    case DType::U16: return 'H';
    case DType::U32: return 'I';
    case DType::F16: return 'e';
    case DType::BF16: return 'E';
    case DType::F32: return 'f';
    case DType::F64: return 'd';
    case DType::C64: return 'F';
    case DType::C128: return 'D';
  }
  return '?';
}

std::optional<DType> dtype_from_string(std::string_view s) {
  if (auto d = types::dtype_from_name(s)) return d;
  struct Alias {
    std::string_view name;
    DType d;
  };
  static constexpr Alias kAliases[] = {
      {"float", DType::F64},      {"int", DType::I64},        {"complex", DType::C128},   {"double", DType::F64},
      {"single", DType::F32},     {"half", DType::F16},       {"float_", DType::F64},     {"int_", DType::I64},
      {"complex_", DType::C128},  {"cdouble", DType::C128},   {"csingle", DType::C64},    {"cfloat", DType::C128},
      {"intc", DType::I32},       {"longlong", DType::I64},   {"long", DType::I64},       {"intp", DType::I64},
      {"ubyte", DType::U8},       {"ushort", DType::U16},     {"uintc", DType::U32},      {"bool8", DType::Bool},
  };
  for (const auto& a : kAliases)
    if (a.name == s) return a.d;
  // Type codes, with an optional native / little-endian / not-applicable byte order.
  std::string_view code = s;
  if (!code.empty() && (code[0] == '<' || code[0] == '=' || code[0] == '|')) code.remove_prefix(1);
  if (code.size() == 1) {
    for (DType d : {DType::Bool, DType::I32, DType::I64, DType::U8, DType::U16, DType::U32, DType::F16, DType::F32,
                    DType::F64, DType::C64, DType::C128})
      if (code[0] == dtype_char(d)) return d;
    if (code == "q") return DType::I64;
    return std::nullopt;
  }
  static constexpr Alias kCodes[] = {
      {"b1", DType::Bool}, {"i4", DType::I32}, {"i8", DType::I64}, {"u1", DType::U8},  {"u2", DType::U16},
      {"u4", DType::U32},  {"f2", DType::F16}, {"f4", DType::F32}, {"f8", DType::F64}, {"c8", DType::C64},
      {"c16", DType::C128},
  };
  for (const auto& a : kCodes)
    if (a.name == code) return a.d;
  return std::nullopt;
}

ClassP numpy_abstract_type(std::string_view name) {
  const auto& a = abstract_types();
  auto it = a.find(name);
  return it == a.end() ? nullptr : it->second;
}

ClassP host_scalar_type(DType d) { return std::static_pointer_cast<interp::ClassObj>(scalar_type_value(d, true)); }

bool is_numpy_scalar_class(const interp::ClassObj& c) { return c.is_subclass_of(abstract_types().at("generic").get()); }

Value dtype_value(DType d) { return std::make_shared<DTypeObj>(dtype_class(), d, false); }

Value scalar_type_value(DType d, bool host) {
  static std::map<std::pair<int, bool>, interp::ClassP> made;  // one class per dtype, so `is` works
  auto& c = made[{static_cast<int>(d), host}];
  if (!c) c = scalar_type_class(d, host);
  return c;
}

std::optional<DType> dtype_from_value(Interp& I, const Value& v) {
  if (!v) return std::nullopt;
  if (auto* d = as_dtype(v)) return d->dtype;
  if (v->kind == interp::ObjKind::Class) {
    auto& c = static_cast<interp::ClassObj&>(*v);
    if (c.module == "numpy" || c.module == "jax.numpy" || c.module == "ml_dtypes") return types::dtype_from_name(c.name);
    if (&c == interp::T().float_.get()) return DType::F64;
    if (&c == interp::T().int_.get()) return DType::I64;
    if (&c == interp::T().bool_.get()) return DType::Bool;
    if (&c == interp::T().complex.get()) return DType::C128;
  }
  if (v->kind == interp::ObjKind::Str) return dtype_from_string(static_cast<interp::StrObj&>(*v).v);
  return std::nullopt;
}

namespace {
// numpy dtype names and codes that shard has no dtype for, with numpy's name of the dtype.
std::optional<std::string_view> numpy_dtype_shard_lacks(std::string_view s) {
  if (!s.empty() && (s[0] == '<' || s[0] == '>' || s[0] == '=' || s[0] == '|') && s.size() > 1) s.remove_prefix(1);
  struct Lack {
    std::string_view spec, name;
  };
  static constexpr Lack kLacks[] = {
      {"int8", "int8"},         {"i1", "int8"},           {"b", "int8"},          {"byte", "int8"},
      {"int16", "int16"},       {"i2", "int16"},          {"h", "int16"},         {"short", "int16"},
      {"uint64", "uint64"},     {"u8", "uint64"},         {"L", "uint64"},        {"Q", "uint64"},
      {"uint", "uint64"},       {"ulonglong", "uint64"},  {"float128", "float128"}, {"longdouble", "float128"},
      {"g", "float128"},        {"f16", "float128"},      {"complex256", "complex256"}, {"clongdouble", "complex256"},
      {"G", "complex256"},      {"c32", "complex256"},    {"object", "object"},   {"O", "object"},
      {"str", "str"},           {"U", "str"},             {"bytes", "bytes"},     {"S", "bytes"},
      {"void", "void"},         {"V", "void"},            {"datetime64", "datetime64"}, {"M", "datetime64"},
      {"timedelta64", "timedelta64"}, {"m", "timedelta64"},
  };
  for (const auto& l : kLacks)
    if (l.spec == s) return l.name;
  return std::nullopt;
}
}  // namespace

DType require_dtype(Interp& I, const Value& v) {
  if (auto d = dtype_from_value(I, v)) return *d;
  if (v && v->kind == interp::ObjKind::Str) {
    const std::string& spec = static_cast<interp::StrObj&>(*v).v;
    if (auto lack = numpy_dtype_shard_lacks(spec))
      I.raise("TypeError", fmt::format("data type {}{} is not supported by shard (its dtypes: bool, int32, int64, uint8, "
                                       "uint16, uint32, float16, bfloat16, float32, float64, complex64, complex128)",
                                       I.repr(v), *lack == spec ? "" : fmt::format(" ({})", *lack)));
    if (spec.size() > 1 && spec[0] == '>' && dtype_from_string(spec.substr(1)))
      I.raise("TypeError", fmt::format("data type {} is big-endian; shard's arrays are little-endian only (use '{}')", I.repr(v), spec.substr(1)));
    I.raise("TypeError", fmt::format("data type {} not understood", I.repr(v)));
  }
  if (auto* a = as_array(v); a && a->host) I.raise("TypeError", "Cannot construct a dtype from an array");
  I.raise("TypeError", fmt::format("Cannot interpret '{}' as a data type", I.repr(v)));
}

}  // namespace shard::api
