// jnp / numpy dtype introspection (see dtype_info.hpp). The values follow numpy 1.24
// (numpy/core/getlimits.py, numerictypes.py, multiarray's can_cast / result_type) for the host
// module and JAX's jax/_src/dtypes.py and jax/_src/numpy/lax_numpy.py for jax.numpy;
// bfloat16's finfo is ml_dtypes' (ml_dtypes/_finfo.py), which JAX's finfo returns.
#include "api/modules/dtype_info.hpp"

#include <fmt/format.h>

#include <cfloat>
#include <cmath>
#include <map>

#include "api/modules/registration.hpp"
#include "api/objects/dtype_value.hpp"
#include "api/op_args.hpp"
#include "interp/builtins/support.hpp"
#include "interp/complex_value.hpp"
#include "trace/promotion.hpp"
#include "types/x64_mode.hpp"

namespace shard::api {

using interp::ClassP;
using interp::ObjKind;

namespace {

// ---- numpy's types, including the integer types shard lacks -----------------------------
// numpy 1.24's value-based casting picks the smallest type holding a value (int8, int16 and
// uint64 among them), so its promotion is modelled over (kind, bits) here.
struct NT {
  char kind;  // 'b' 'i' 'u' 'f' 'c', or 'E' for bfloat16
  int bits;
  bool operator==(const NT& o) const { return kind == o.kind && bits == o.bits; }
};

NT nt_of(DType d) {
  if (d == DType::BF16) return {'E', 16};
  return {types::dtype_kind(d), static_cast<int>(types::dtype_size(d) * 8)};
}

std::string nt_name(NT t) {
  switch (t.kind) {
    case 'b': return "bool";
    case 'i': return fmt::format("int{}", t.bits);
    case 'u': return fmt::format("uint{}", t.bits);
    case 'f': return fmt::format("float{}", t.bits);
    case 'c': return fmt::format("complex{}", t.bits);
    default: return "bfloat16";
  }
}

std::optional<DType> nt_dtype(NT t) {
  if (t.kind == 'E') return DType::BF16;
  return types::dtype_from_name(nt_name(t));
}

bool nt_int(NT t) { return t.kind == 'i' || t.kind == 'u'; }
bool nt_float(NT t) { return t.kind == 'f' || t.kind == 'E'; }

// numpy.promote_types over NT.
NT nt_promote(NT a, NT b) {
  if (a == b) return a;
  if (a.kind == 'b') return b;
  if (b.kind == 'b') return a;
  auto float_join = [](NT x, NT y) -> NT {
    if (x.kind == 'E' || y.kind == 'E') {
      // bfloat16 with float16: float32 (neither holds the other); with wider floats: the wider.
      NT o = x.kind == 'E' ? y : x;
      if (o.kind == 'E') return o;
      return o.bits <= 16 ? NT{'f', 32} : o;
    }
    return x.bits >= y.bits ? x : y;
  };
  // The smallest float holding an integer type's values.
  auto holding_float = [](NT i) -> NT { return i.bits <= 8 ? NT{'f', 16} : i.bits <= 16 ? NT{'f', 32} : NT{'f', 64}; };
  auto as_real = [&](NT x) -> NT { return nt_int(x) ? holding_float(x) : x; };
  if (a.kind == 'c' || b.kind == 'c') {
    auto part = [&](NT x) -> NT { return x.kind == 'c' ? NT{'f', x.bits / 2} : as_real(x); };
    NT r = float_join(part(a), part(b));
    return r.kind == 'f' && r.bits <= 32 ? NT{'c', 64} : NT{'c', 128};
  }
  if (nt_int(a) && nt_int(b)) {
    if (a.kind == b.kind) return a.bits >= b.bits ? a : b;
    NT u = a.kind == 'u' ? a : b, s = a.kind == 'u' ? b : a;
    if (s.bits > u.bits) return s;
    return u.bits < 64 ? NT{'i', u.bits * 2} : NT{'f', 64};
  }
  return float_join(as_real(a), as_real(b));
}

int kind_rank(NT t) {
  switch (t.kind) {
    case 'b': return 0;
    case 'u': return 1;
    case 'i': return 2;
    case 'c': return 4;
    default: return 3;
  }
}

// numpy's can_cast between types. bfloat16 follows the casts ml_dtypes registers as safe
// (from bool / uint8 / int8; to float32, float64, complex64, complex128).
bool nt_can_cast(NT from, NT to, const std::string& casting) {
  if (casting == "unsafe") return true;
  if (casting == "no" || casting == "equiv") return from == to;
  bool safe;
  if (from.kind == 'E' || to.kind == 'E') {
    if (from == to || from.kind == 'b') safe = true;
    else if (to.kind == 'E') safe = from.bits == 8 && nt_int(from);
    else safe = (to.kind == 'f' && to.bits >= 32) || to.kind == 'c';
  } else {
    safe = nt_promote(from, to) == to;
  }
  if (casting == "safe" || safe) return safe;
  return kind_rank(from) <= kind_rank(to);  // same_kind
}

// numpy.min_scalar_type of a Python number (numpy 1.24's value-based casting). `small`: an
// unsigned result whose value also fits the signed type of its width (numpy's
// is_small_unsigned), which counts as that signed type next to signed or inexact types.
struct MinScalar {
  NT t;
  bool small = false;
};

MinScalar min_scalar_type(const Value& v) {
  if (v->kind == ObjKind::Bool) return {{'b', 8}};
  if (v->kind == ObjKind::Int) {
    const int64_t x = static_cast<interp::IntObj&>(*v).v;
    if (x >= 0) {
      if (x < 256) return {{'u', 8}, x <= 127};
      if (x < 65536) return {{'u', 16}, x <= 32767};
      if (x <= 0xffffffffLL) return {{'u', 32}, x <= INT32_MAX};
      return {{'u', 64}, true};
    }
    return {x >= -128 ? NT{'i', 8} : x >= -32768 ? NT{'i', 16} : x >= INT32_MIN ? NT{'i', 32} : NT{'i', 64}};
  }
  auto fits = [](double x, double max) { return !std::isfinite(x) || std::fabs(x) <= max; };
  if (interp::is_complex(v)) {
    const auto z = interp::complex_of(v);
    return {fits(z.real(), FLT_MAX) && fits(z.imag(), FLT_MAX) ? NT{'c', 64} : NT{'c', 128}};
  }
  const double x = static_cast<interp::FloatObj&>(*v).v;
  return {fits(x, 65504.0) ? NT{'f', 16} : fits(x, FLT_MAX) ? NT{'f', 32} : NT{'f', 64}};
}

// A small unsigned minimum type next to `other`: the signed type of its width unless `other`
// is bool or unsigned.
NT adjust_small(const MinScalar& m, NT other) {
  if (m.small && other.kind != 'b' && other.kind != 'u') return {'i', m.t.bits};
  return m.t;
}

DType to_shard_dtype(Interp& I, NT t, const char* fname) {
  if (auto d = nt_dtype(t)) return *d;
  I.raise("TypeError", fmt::format("{}: numpy's result is {}, a dtype shard does not have (its integer dtypes are "
                                   "int32, int64, uint8, uint16 and uint32)", fname, nt_name(t)));
}

// ---- reading arguments ----------------------------------------------------------------------

bool as_dtype_obj(const Value& v) { return v && v->kind == ObjKind::Native && dynamic_cast<DTypeObj*>(v.get()); }

bool is_python_number(const Value& v) {
  return v && (v->kind == ObjKind::Bool || v->kind == ObjKind::Int || v->kind == ObjKind::Float || interp::is_complex(v));
}

// A 0-d numpy array (shard's numpy scalars) as its Python value, else null.
Value host_scalar_value(const Value& v) {
  auto* a = as_array(v);
  if (!a || !a->host || a->array->type.rank() != 0) return nullptr;
  return array_elements(*a->array)[0];
}

// The dtype of an array, tracer or dtype specifier (finfo / iinfo / can_cast / isdtype
// arguments); a Python number gives its type's numpy dtype, as numpy's finfo(1.0) does.
DType dtype_of_arg(Interp& I, const Value& v) {
  if (is_array_like(v)) return type_of(v).dtype();
  if (auto d = dtype_from_value(I, v)) return *d;
  if (v && v->kind == ObjKind::Bool) return DType::Bool;
  if (v && v->kind == ObjKind::Int) return DType::I64;
  if (v && v->kind == ObjKind::Float) return DType::F64;
  if (v && interp::is_complex(v)) return DType::C128;
  return require_dtype(I, v);
}

// A dtype-like argument of issubdtype as a class: numpy's scalar and abstract types stay
// classes, everything else goes through np.dtype(...).type (None is float64, as in numpy).
ClassP sctype_of(Interp& I, const Value& v) {
  if (v && v->kind == ObjKind::Class && is_numpy_scalar_class(static_cast<interp::ClassObj&>(*v)))
    return std::static_pointer_cast<interp::ClassObj>(v);
  if (is_none(v)) return host_scalar_type(DType::F64);
  return host_scalar_type(require_dtype(I, v));
}

// ---- finfo / iinfo --------------------------------------------------------------------------

struct FloatInfo {
  int bits;
  double eps, epsneg, max, tiny, smallest_subnormal, resolution;
  int precision, machep, negep, minexp, maxexp, nexp, nmant;
  const char* fmt;  // how numpy's (ml_dtypes') finfo prints its values in str() / repr()
  bool strip;       // numpy strips the padding; ml_dtypes' bfloat16 finfo keeps it
  bool round_resolution;  // numpy formats the rounded resolution; ml_dtypes formats 0.01
};

const FloatInfo& float_info(DType d) {
  static const FloatInfo f16{16, 0x1p-10, 0x1p-11, 65504.0, 0x1p-14, 0x1p-24, 1e-3, 3, -10, -11, -14, 16, 5, 10, "%12.5e", true, true};
  static const FloatInfo bf16{16, 0x1p-7, 0x1p-8, 0x1.FEp127, 0x1p-126, 0x1p-133, 0.01, 2, -7, -8, -126, 128, 8, 7, "%12.4e", false, false};
  static const FloatInfo f32{32, 0x1p-23, 0x1p-24, FLT_MAX, 0x1p-126, 0x1p-149, 1e-6, 6, -23, -24, -126, 128, 8, 23, "%15.7e", true, true};
  static const FloatInfo f64{64, 0x1p-52, 0x1p-53, DBL_MAX, 0x1p-1022, 0x1p-1074, 1e-15, 15, -52, -53, -1022, 1024, 11, 52, "%24.16e", true, true};
  switch (d) {
    case DType::F16: return f16;
    case DType::BF16: return bf16;
    case DType::F32: return f32;
    default: return f64;
  }
}

struct InfoObj : interp::NativeObj {
  DType dtype;
  InfoObj(ClassP c, DType d) : NativeObj(std::move(c)), dtype(d) {}
};

DType info_dtype(const CallArgs& a) { return static_cast<InfoObj&>(*a.args[0]).dtype; }

// A numpy scalar (0-d host array) of dtype d.
Value np_scalar(Interp& I, double x, DType d) {
  return guarded(I, [&] { return wrap(host_array_from_python(I, interp::make_float(x), d), true); });
}

double rounded(Interp& I, double x, DType d) {
  return static_cast<interp::FloatObj&>(*array_elements(*as_array(np_scalar(I, x, d))->array)[0]).v;
}

std::string cformat(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

std::string finfo_str_field(Interp& I, DType d, double x, bool is_resolution = false) {
  const FloatInfo& fi = float_info(d);
  const double v = is_resolution && !fi.round_resolution ? x : rounded(I, x, d);
  std::string s = cformat(fi.fmt, v);
  if (fi.strip) s.erase(0, s.find_first_not_of(' '));
  return s;
}

ClassP finfo_class() {
  static ClassP k = [] {
    auto c = interp::make_class("finfo", {interp::T().object}, "numpy");
    using interp::bi::def_property;
    auto num = [c](const char* name, double FloatInfo::*field, bool negate = false) {
      def_property(c, name, [field, negate](Interp& I, CallArgs& a) {
        const DType d = info_dtype(a);
        const double x = float_info(d).*field;
        return np_scalar(I, negate ? -x : x, d);
      });
    };
    auto integer = [c](const char* name, int FloatInfo::*field) {
      def_property(c, name, [field](Interp&, CallArgs& a) { return interp::make_int(float_info(info_dtype(a)).*field); });
    };
    num("eps", &FloatInfo::eps);
    num("epsneg", &FloatInfo::epsneg);
    num("max", &FloatInfo::max);
    num("min", &FloatInfo::max, true);
    num("tiny", &FloatInfo::tiny);
    num("smallest_normal", &FloatInfo::tiny);
    num("smallest_subnormal", &FloatInfo::smallest_subnormal);
    num("resolution", &FloatInfo::resolution);
    integer("bits", &FloatInfo::bits);
    integer("precision", &FloatInfo::precision);
    integer("machep", &FloatInfo::machep);
    integer("negep", &FloatInfo::negep);
    integer("minexp", &FloatInfo::minexp);
    integer("maxexp", &FloatInfo::maxexp);
    integer("nexp", &FloatInfo::nexp);
    integer("nmant", &FloatInfo::nmant);
    integer("iexp", &FloatInfo::nexp);
    def_property(c, "dtype", [](Interp&, CallArgs& a) { return dtype_value(info_dtype(a)); });
    interp::bi::def(c, "__repr__", [](Interp& I, CallArgs& a) {
      const DType d = info_dtype(a);
      const FloatInfo& fi = float_info(d);
      const std::string max = finfo_str_field(I, d, fi.max);
      return interp::make_str(fmt::format("finfo(resolution={}, min=-{}, max={}, dtype={})", I.str(np_scalar(I, fi.resolution, d)), max, max,
                                          types::dtype_name(d)));
    });
    interp::bi::def(c, "__str__", [](Interp& I, CallArgs& a) {
      const DType d = info_dtype(a);
      const FloatInfo& fi = float_info(d);
      auto f = [&](double x) { return finfo_str_field(I, d, x); };
      const std::string rule = "---------------------------------------------------------------\n";
      std::string s = fmt::format("Machine parameters for {}\n", types::dtype_name(d)) + rule;
      s += fmt::format("precision = {:>3}   resolution = {}\n", fi.precision, finfo_str_field(I, d, fi.resolution, true));
      s += fmt::format("machep = {:>6}   eps =        {}\n", fi.machep, f(fi.eps));
      s += fmt::format("negep =  {:>6}   epsneg =     {}\n", fi.negep, f(fi.epsneg));
      s += fmt::format("minexp = {:>6}   tiny =       {}\n", fi.minexp, f(fi.tiny));
      s += fmt::format("maxexp = {:>6}   max =        {}\n", fi.maxexp, f(fi.max));
      s += fmt::format("nexp =   {:>6}   min =        -max\n", fi.nexp);
      s += fmt::format("smallest_normal = {}   smallest_subnormal = {}\n", f(fi.tiny), f(fi.smallest_subnormal));
      return interp::make_str(s + rule);
    });
    return c;
  }();
  return k;
}

Value finfo(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "finfo", {"dtype"});
  DType d = dtype_of_arg(I, p.get("dtype"));
  if (types::is_complex(d)) d = types::complex_part_dtype(d);  // finfo(complex64) is float32's
  if (!types::is_float(d)) I.raise("ValueError", fmt::format("data type {} not inexact", I.repr(host_scalar_type(d))));
  static std::map<DType, Value> made;  // one object per dtype: finfo(np.float32) is finfo('f4')
  auto& v = made[d];
  if (!v) v = std::make_shared<InfoObj>(finfo_class(), d);
  return v;
}

std::pair<int64_t, int64_t> int_range(DType d) {
  switch (d) {
    case DType::I32: return {INT32_MIN, INT32_MAX};
    case DType::U8: return {0, 255};
    case DType::U16: return {0, 65535};
    case DType::U32: return {0, 4294967295LL};
    default: return {INT64_MIN, INT64_MAX};
  }
}

ClassP iinfo_class() {
  static ClassP k = [] {
    auto c = interp::make_class("iinfo", {interp::T().object}, "numpy");
    using interp::bi::def_property;
    def_property(c, "bits", [](Interp&, CallArgs& a) { return interp::make_int(static_cast<int64_t>(types::dtype_size(info_dtype(a)) * 8)); });
    def_property(c, "min", [](Interp&, CallArgs& a) { return interp::make_int(int_range(info_dtype(a)).first); });
    def_property(c, "max", [](Interp&, CallArgs& a) { return interp::make_int(int_range(info_dtype(a)).second); });
    def_property(c, "dtype", [](Interp&, CallArgs& a) { return dtype_value(info_dtype(a)); });
    def_property(c, "kind", [](Interp&, CallArgs& a) { return interp::make_str(std::string(1, types::dtype_kind(info_dtype(a)))); });
    interp::bi::def(c, "__repr__", [](Interp&, CallArgs& a) {
      const DType d = info_dtype(a);
      auto [lo, hi] = int_range(d);
      return interp::make_str(fmt::format("iinfo(min={}, max={}, dtype={})", lo, hi, types::dtype_name(d)));
    });
    interp::bi::def(c, "__str__", [](Interp&, CallArgs& a) {
      const DType d = info_dtype(a);
      auto [lo, hi] = int_range(d);
      const std::string rule = "---------------------------------------------------------------\n";
      return interp::make_str(fmt::format("Machine parameters for {}\n{}min = {}\nmax = {}\n{}", types::dtype_name(d), rule, lo, hi, rule));
    });
    return c;
  }();
  return k;
}

Value iinfo(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "iinfo", {"int_type"});
  const DType d = dtype_of_arg(I, p.get("int_type"));
  if (!types::is_int(d)) {
    const char kind = d == DType::BF16 ? 'V' : types::dtype_kind(d);
    I.raise("ValueError", fmt::format("Invalid integer data type '{}'.", kind));
  }
  return std::make_shared<InfoObj>(iinfo_class(), d);
}

// ---- promotion ------------------------------------------------------------------------------

// A jnp.promote_types / jnp.result_type operand: Python's int / float / complex (the types or
// values) are weak, as JAX's _dtype_and_weaktype says.
std::optional<DTypeW> weak_python_type(const Value& v) {
  if (!v || v->kind != ObjKind::Class) return std::nullopt;
  const auto* c = v.get();
  const DType f = types::default_float_dtype();
  if (c == interp::T().int_.get()) return DTypeW{types::default_int_dtype(), true};
  if (c == interp::T().float_.get()) return DTypeW{f, true};
  if (c == interp::T().complex.get()) return DTypeW{types::complex_of(f), true};
  return std::nullopt;
}

// The dtype a weak result stands for in jnp.promote_types: np.dtype(int) is int64, np.dtype(float)
// float64, np.dtype(complex) complex128.
DType weak_as_numpy(DTypeW t) {
  if (!t.weak) return t.dtype;
  if (types::is_complex(t.dtype)) return DType::C128;
  if (types::is_float(t.dtype)) return DType::F64;
  return DType::I64;
}

Value jnp_promote_types(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "promote_types", {"a", "b"});
  auto operand = [&](const Value& v) -> DTypeW {
    if (auto w = weak_python_type(v)) return *w;
    return {require_dtype(I, v), false};
  };
  const DTypeW x = operand(p.get("a")), y = operand(p.get("b"));
  return dtype_value(weak_as_numpy(trace::promote(x, y)));
}

Value np_promote_types(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "promote_types", {"type1", "type2"});
  const DType x = require_dtype(I, p.get("type1")), y = require_dtype(I, p.get("type2"));
  return dtype_value(trace::numpy_promote_types(x, y));
}

// An operand of jnp.result_type, as JAX's dtypes.dtype() and is_weakly_typed see it: arrays and
// tracers keep their dtype and weak flag; everything else is canonicalised (x64 off: 64-bit
// dtypes become 32-bit) and strong, but Python scalars and their types are weak.
DTypeW jnp_operand(Interp& I, const Value& v) {
  if (is_none(v)) return {types::default_float_dtype(), false};
  if (auto w = weak_python_type(v)) return *w;
  if (auto st = python_scalar_type(v, false)) return *st;
  if (auto* arr = as_array(v); arr && arr->host) return {trace::canonicalize_device(arr->array->type.dtype()), false};
  if (is_array_like(v)) {
    const auto t = type_of(v);
    return {t.dtype(), t.weak_type()};
  }
  if (v && (v->kind == ObjKind::List || v->kind == ObjKind::Tuple)) {
    auto h = guarded(I, [&] { return host_array_from_python(I, v, std::nullopt); });
    return {trace::canonicalize_device(h->type.dtype()), false};
  }
  if (v && (v->kind == ObjKind::Str || v->kind == ObjKind::Class || as_dtype_obj(v)))
    return {trace::canonicalize_device(require_dtype(I, v)), false};
  // JAX: np.result_type(x) is object, which is no JAX dtype.
  I.raise("TypeError", fmt::format("Value '{}' with dtype object is not a valid JAX array type. Only arrays of numeric types "
                                   "are supported by JAX.", I.str(v)));
}

DTypeW jnp_result_dtype(Interp& I, const std::vector<Value>& args) {
  if (args.empty()) I.raise("ValueError", "at least one array or dtype is required");
  DTypeW r = jnp_operand(I, args[0]);
  for (size_t i = 1; i < args.size(); ++i) r = trace::promote(r, jnp_operand(I, args[i]));
  return r;  // a weak result is already the default dtype of its kind
}

Value jnp_result_type(Interp& I, CallArgs& a) {
  if (!a.kwargs.empty()) I.raise("TypeError", fmt::format("result_type() got an unexpected keyword argument '{}'", a.kwargs[0].first));
  return dtype_value(jnp_result_dtype(I, a.args).dtype);
}

// jax.dtypes.result_type(*args, return_weak_type_flag=False).
Value jax_dtypes_result_type(Interp& I, CallArgs& a) {
  bool flag = false;
  for (const auto& [k, v] : a.kwargs) {
    if (k != "return_weak_type_flag") I.raise("TypeError", fmt::format("result_type() got an unexpected keyword argument '{}'", k));
    flag = I.truthy(v);
  }
  const DTypeW r = jnp_result_dtype(I, a.args);
  if (flag) return interp::make_tuple({dtype_value(r.dtype), interp::make_bool(r.weak)});
  return dtype_value(r.dtype);
}

int np_category(NT t) { return t.kind == 'b' ? 0 : nt_int(t) ? 1 : 2; }

// numpy 1.24's result_type (PyArray_LegacyResultType): arrays and dtypes by their dtype; Python
// scalars and numpy scalars (0-d arrays) by value (min_scalar_type) when none is of a higher
// kind than the arrays (the kinds: bool, integers, inexact: float and complex are one kind),
// else everything by its dtype.
Value np_result_type(Interp& I, CallArgs& a) {
  if (!a.kwargs.empty()) I.raise("TypeError", fmt::format("result_type() got an unexpected keyword argument '{}'", a.kwargs[0].first));
  if (a.args.empty()) I.raise("ValueError", "at least one array or dtype is required");
  std::optional<NT> arrays;
  struct Scalar {
    NT full;
    MinScalar min;
  };
  std::vector<Scalar> scalars;
  for (const auto& v : a.args) {
    Value value = is_python_number(v) ? v : host_scalar_value(v);
    if (value) {
      NT full = is_python_number(v) ? nt_of(python_scalar_type(v, true)->dtype) : nt_of(as_array(v)->array->type.dtype());
      scalars.push_back({full, full.kind == 'E' ? MinScalar{full} : min_scalar_type(value)});
      continue;
    }
    NT t;
    if (is_array_like(v)) t = nt_of(type_of(v).dtype());
    else if (v && (v->kind == ObjKind::List || v->kind == ObjKind::Tuple))
      t = nt_of(guarded(I, [&] { return host_array_from_python(I, v, std::nullopt); })->type.dtype());
    else if (is_none(v)) t = {'f', 64};
    else t = nt_of(require_dtype(I, v));
    arrays = arrays ? nt_promote(*arrays, t) : t;
  }
  int scalar_cat = -1;
  for (auto& s : scalars) scalar_cat = std::max(scalar_cat, np_category(s.full));
  const bool by_value = arrays && scalar_cat <= np_category(*arrays);
  std::optional<NT> r = arrays;
  for (auto& s : scalars) {
    NT t = by_value ? adjust_small(s.min, *r) : s.full;
    r = r ? nt_promote(*r, t) : t;
  }
  return dtype_value(to_shard_dtype(I, *r, "result_type"));
}

// ---- can_cast -------------------------------------------------------------------------------

void check_casting(Interp& I, const std::string& casting) {
  for (const char* c : {"no", "equiv", "safe", "same_kind", "unsafe"})
    if (casting == c) return;
  I.raise("ValueError", fmt::format("casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe' (got '{}')", casting));
}

std::string casting_arg(Interp& I, const interp::ArgParser& p) {
  Value c = p.get("casting");
  if (!c) return "safe";
  auto* s = interp::bi::str_of(c);
  if (!s) I.raise("TypeError", fmt::format("casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe' (got {})", I.repr(c)));
  check_casting(I, s->v);
  return s->v;
}

// numpy 1.24's can_cast: a Python scalar or numpy scalar (0-d array) that its dtype does not
// allow is checked by value (can_cast_scalar_to): its min_scalar_type, signed when small and
// `to` is not unsigned.
Value np_can_cast(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "can_cast", {"from_", "to", "casting="});
  const std::string casting = casting_arg(I, p);
  const NT to = nt_of(require_dtype(I, p.get("to")));
  const Value from = p.get("from_");
  const NT type = nt_of(dtype_of_arg(I, from));
  if (nt_can_cast(type, to, casting)) return interp::make_bool(true);
  Value value = is_python_number(from) ? from : host_scalar_value(from);
  if (!value || type.kind == 'E') return interp::make_bool(false);
  const MinScalar m = min_scalar_type(value);
  const NT t = m.small && to.kind != 'u' ? NT{'i', m.t.bits} : m.t;
  return interp::make_bool(nt_can_cast(t, to, casting));
}

// jnp.can_cast is numpy 2's can_cast (NEP 50): no value-based casting, Python scalars refused.
Value jnp_can_cast(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "can_cast", {"from_", "to", "casting="});
  const std::string casting = casting_arg(I, p);
  const Value from = p.get("from_");
  if (is_python_number(from))
    I.raise("TypeError",
            "can_cast() does not support Python ints, floats, and complex because the result used to depend on the value.\n"
            "This change was part of adopting NEP 50, we may explicitly allow them again in the future.");
  const NT to = nt_of(require_dtype(I, p.get("to")));
  return interp::make_bool(nt_can_cast(nt_of(dtype_of_arg(I, from)), to, casting));
}

// ---- predicates -----------------------------------------------------------------------------

bool is_complex_obj(Interp& I, const Value& x) {
  if (interp::is_complex(x)) return true;
  if (is_array_like(x)) return types::is_complex(type_of(x).dtype());
  if (!x || x->kind == ObjKind::List || x->kind == ObjKind::Tuple) {
    if (!x) return false;
    try {
      return types::is_complex(host_array_from_python(I, x, std::nullopt)->type.dtype());
    } catch (const interp::PyError&) {
      return false;  // numpy: an object array, not complex
    } catch (const std::exception&) {
      return false;
    }
  }
  if (auto dt = I.try_getattr(x, "dtype")) {  // objects with a dtype: x.dtype.type
    if (auto d = dtype_from_value(I, *dt)) return types::is_complex(*d);
  }
  return false;
}

// numpy.isscalar: Python numbers and strings, and numpy scalars (0-d numpy arrays in shard).
bool np_isscalar(const Value& v) {
  if (is_python_number(v) || (v && v->kind == ObjKind::Str)) return true;
  auto* a = as_array(v);
  return a && a->host && a->array->type.rank() == 0;
}

// jnp.issubdtype: JAX's, which places bfloat16 under floating (numpy's places it under generic).
bool jnp_issubdtype(Interp& I, const Value& x, const Value& y) {
  ClassP a = sctype_of(I, x), b = sctype_of(I, y);
  if (a == host_scalar_type(DType::BF16)) {
    for (const char* n : {"floating", "inexact", "number", "generic"})
      if (b == numpy_abstract_type(n)) return true;
    return b == a;
  }
  return a->is_subclass_of(b.get());
}

// jnp.isdtype's kinds, in JAX's order (_dtype_kinds).
const std::vector<std::string>& isdtype_kinds() {
  static const std::vector<std::string> k = {"bool", "signed integer", "unsigned integer", "integral", "real floating",
                                             "complex floating", "numeric"};
  return k;
}

bool in_kind(const std::string& kind, DType d) {
  const char k = types::dtype_kind(d);
  if (kind == "bool") return k == 'b';
  if (kind == "signed integer") return k == 'i';
  if (kind == "unsigned integer") return k == 'u';
  if (kind == "integral") return k == 'i' || k == 'u';
  if (kind == "real floating") return k == 'f';
  if (kind == "complex floating") return k == 'c';
  return k != 'b';  // numeric
}

Value jnp_isdtype(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "isdtype", {"dtype", "kind"});
  const DType d = require_dtype(I, p.get("dtype"));
  Value kind = p.get("kind");
  std::vector<Value> kinds = kind->kind == ObjKind::Tuple ? static_cast<interp::TupleObj&>(*kind).items : std::vector<Value>{kind};
  bool match = false;
  for (const auto& k : kinds) {
    auto* s = interp::bi::str_of(k);
    if (s) {
      const auto& names = isdtype_kinds();
      if (std::find(names.begin(), names.end(), s->v) != names.end()) {
        match |= in_kind(s->v, d);
        continue;
      }
    }
    auto kd = dtype_from_value(I, k);
    if (!kd) {
      if (s) {
        std::string list;
        for (const auto& n : isdtype_kinds()) list += (list.empty() ? "'" : ", '") + n + "'";
        I.raise("ValueError", fmt::format("Unrecognized kind={} expected one of [{}], or a compatible input for jnp.dtype()", I.repr(k), list));
      }
      I.raise("TypeError", fmt::format("Expected kind to be a dtype, string, or tuple; got kind={}", I.repr(k)));
    }
    match |= *kd == d;
  }
  return interp::make_bool(match);
}

// ---- numpy 1.24's numerictypes helpers ------------------------------------------------------

// numpy.obj2sctype: the scalar type of a scalar type, array, dtype or dtype specifier; null
// (numpy's default) when there is none.
Value obj2sctype(Interp& I, const Value& v) {
  if (v && v->kind == ObjKind::Class && is_numpy_scalar_class(static_cast<interp::ClassObj&>(*v))) return v;
  if (is_array_like(v)) return host_scalar_type(type_of(v).dtype());
  if (is_none(v)) return host_scalar_type(DType::F64);
  if (auto d = dtype_from_value(I, v)) return host_scalar_type(*d);
  return nullptr;
}

Value np_min_scalar_type(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "min_scalar_type", {"a"});
  const Value v = p.get("a");
  Value value = is_python_number(v) ? v : host_scalar_value(v);
  if (value) {
    if (auto* arr = as_array(v); arr && arr->array->type.dtype() == DType::BF16) return dtype_value(DType::BF16);
    return dtype_value(to_shard_dtype(I, min_scalar_type(value).t, "min_scalar_type"));
  }
  if (is_array_like(v)) return dtype_value(type_of(v).dtype());
  if (v && (v->kind == ObjKind::List || v->kind == ObjKind::Tuple))
    return dtype_value(guarded(I, [&] { return host_array_from_python(I, v, std::nullopt); })->type.dtype());
  I.raise("TypeError", fmt::format("min_scalar_type: expected a number or an array, got {}", I.type_name(v)));
}

// numpy.common_type: the inexact scalar type of the arrays (integers count as float64).
Value np_common_type(Interp& I, CallArgs& a) {
  if (!a.kwargs.empty()) I.raise("TypeError", fmt::format("common_type() got an unexpected keyword argument '{}'", a.kwargs[0].first));
  bool is_complex = false;
  int precision = 0;
  for (const auto& v : a.args) {
    if (!is_array_like(v)) I.raise("AttributeError", fmt::format("'{}' object has no attribute 'dtype'", I.type_name(v)));
    const DType d = type_of(v).dtype();
    int bits;
    if (types::is_int(d)) bits = 64;
    else if (types::is_complex(d)) {
      is_complex = true;
      bits = static_cast<int>(types::dtype_size(d) * 4);
    } else if (types::is_float(d) && d != DType::BF16) bits = static_cast<int>(types::dtype_size(d) * 8);
    else I.raise("TypeError", "can't get common type for non-numeric array");
    precision = std::max(precision, bits);
  }
  if (is_complex) return host_scalar_type(precision <= 32 ? DType::C64 : DType::C128);
  return host_scalar_type(precision == 16 ? DType::F16 : precision == 32 ? DType::F32 : DType::F64);
}

void add_numpy_numerictypes(Interp& I, ModuleObj& m) {
  // Aliases numpy 1.24 has on 64-bit Linux (np.intp is np.int64, np.ubyte is np.uint8, ...).
  struct Alias {
    const char* name;
    DType d;
  };
  for (Alias al : {Alias{"intp", DType::I64}, Alias{"ubyte", DType::U8}, Alias{"ushort", DType::U16}, Alias{"uintc", DType::U32},
                   Alias{"cfloat", DType::C128}, Alias{"singlecomplex", DType::C64}})
    m.dict.set(al.name, scalar_type_value(al.d, true));
  auto codes = interp::make_dict();
  for (auto [k, v] : {std::pair{"Character", "c"}, {"Integer", "bhilqp"}, {"UnsignedInteger", "BHILQP"}, {"Float", "efdg"},
                      {"Complex", "FDG"}, {"AllInteger", "bBhHiIlLqQpP"}, {"AllFloat", "efdgFDG"}, {"Datetime", "Mm"},
                      {"All", "?bhilqpBHILQPefdgFDGSUVOMm"}})
    codes->set(I, interp::make_str(k), interp::make_str(v));
  m.dict.set("typecodes", codes);
  def_fn(m, "obj2sctype", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "obj2sctype", {"rep", "default="});
    Value r = obj2sctype(I, p.get("rep"));
    return r ? r : (p.get("default") ? p.get("default") : interp::none());
  });
  def_fn(m, "sctype2char", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "sctype2char", {"sctype"});
    Value t = obj2sctype(I, p.get("sctype"));
    if (!t) I.raise("ValueError", "unrecognized type");
    auto d = dtype_from_value(I, t);
    if (!d) throw interp::PyError{I.call(Value(I.builtin_class("KeyError")), std::vector<Value>{t})};  // numpy: KeyError(sctype)
    return interp::make_str(std::string(1, dtype_char(*d)));
  });
  def_fn(m, "issubclass_", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "issubclass_", {"arg1", "arg2"});
    const Value x = p.get("arg1"), y = p.get("arg2");
    if (!x || x->kind != ObjKind::Class || !y || y->kind != ObjKind::Class) return interp::make_bool(false);
    return interp::make_bool(static_cast<interp::ClassObj&>(*x).is_subclass_of(static_cast<interp::ClassObj*>(y.get())));
  });
  def_fn(m, "issubsctype", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "issubsctype", {"arg1", "arg2"});
    Value x = obj2sctype(I, p.get("arg1")), y = obj2sctype(I, p.get("arg2"));
    if (!x || !y) I.raise("TypeError", "issubclass() arg 1 must be a class");
    return interp::make_bool(static_cast<interp::ClassObj&>(*x).is_subclass_of(static_cast<interp::ClassObj*>(y.get())));
  });
  def_fn(m, "min_scalar_type", np_min_scalar_type);
  def_fn(m, "common_type", np_common_type);
}

// jax.dtypes: the dtype utilities jax.numpy's are built on (jax/_src/dtypes.py).
void fill_jax_dtypes(Interp& I, ModuleObj& m) {
  m.dict.set("bfloat16", host_scalar_type(DType::BF16));  // ml_dtypes.bfloat16
  def_fn(m, "finfo", finfo);
  def_fn(m, "iinfo", iinfo);
  def_fn(m, "issubdtype", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "issubdtype", {"a", "b"});
    return interp::make_bool(jnp_issubdtype(I, p.get("a"), p.get("b")));
  });
  def_fn(m, "result_type", jax_dtypes_result_type);
  def_fn(m, "canonicalize_dtype", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "canonicalize_dtype", {"dtype", "allow_extended_dtype="});
    return dtype_value(trace::canonicalize_device(dtype_of_arg(I, p.get("dtype"))));
  });
  def_fn(m, "itemsize_bits", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "itemsize_bits", {"dtype"});
    if (is_none(p.get("dtype"))) I.raise("ValueError", "dtype cannot be None.");
    return interp::make_int(static_cast<int64_t>(types::dtype_size(require_dtype(I, p.get("dtype"))) * 8));
  });
  // scalar_type_of: the Python type a value's dtype converts to (custom floats: float).
  def_fn(m, "scalar_type_of", [](Interp& I, CallArgs& a) -> Value {
    interp::ArgParser p(I, a, "scalar_type_of", {"x"});
    const DType d = jnp_operand(I, p.get("x")).dtype;
    if (d == DType::Bool) return interp::T().bool_;
    if (types::is_int(d)) return interp::T().int_;
    if (types::is_complex(d)) return interp::T().complex;
    return interp::T().float_;
  });
}

}  // namespace

void register_jax_dtypes_module() { Interp::register_builtin_module("jax.dtypes", fill_jax_dtypes); }

void add_dtype_info(Interp& I, ModuleObj& m, bool host) {
  m.dict.set("dtype", dtype_type());
  for (const char* n : {"generic", "number", "integer", "signedinteger", "unsignedinteger", "inexact", "floating",
                        "complexfloating", "flexible", "character"})
    m.dict.set(n, numpy_abstract_type(n));
  def_fn(m, "finfo", finfo);
  def_fn(m, "iinfo", iinfo);
  def_fn(m, "promote_types", host ? np_promote_types : jnp_promote_types);
  def_fn(m, "result_type", host ? np_result_type : jnp_result_type);
  def_fn(m, "can_cast", host ? np_can_cast : jnp_can_cast);
  def_fn(m, "issubdtype", [host](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "issubdtype", {"arg1", "arg2"});
    if (host) return interp::make_bool(sctype_of(I, p.get("arg1"))->is_subclass_of(sctype_of(I, p.get("arg2")).get()));
    return interp::make_bool(jnp_issubdtype(I, p.get("arg1"), p.get("arg2")));
  });
  def_fn(m, "iscomplexobj", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "iscomplexobj", {"x"});
    return interp::make_bool(is_complex_obj(I, p.get("x")));
  });
  def_fn(m, "isrealobj", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "isrealobj", {"x"});
    return interp::make_bool(!is_complex_obj(I, p.get("x")));
  });
  def_fn(m, "isscalar", [host](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, host ? "isscalar" : "isscalar", {host ? "element" : "element"});
    const Value v = p.get("element");
    // jnp.isscalar also takes 0-d arrays of any kind (JAX's note: jit-invariance).
    if (!host && is_array_like(v)) return interp::make_bool(type_of(v).rank() == 0);
    return interp::make_bool(np_isscalar(v));
  });
  if (host) {
    add_numpy_numerictypes(I, m);
  } else {
    def_fn(m, "isdtype", jnp_isdtype);
    m.dict.set("single", scalar_type_value(DType::F32, false));  // JAX: float32 = single
    m.dict.set("double", scalar_type_value(DType::F64, false));
  }
}

}  // namespace shard::api
