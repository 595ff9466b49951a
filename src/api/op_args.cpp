#include "api/op_args.hpp"

#include <fmt/format.h>

#include <cstring>

#include "api/objects/dtype_value.hpp"
#include "api/objects/sharding_objects.hpp"
#include "exec/array.hpp"
#include "interp/builtins/support.hpp"
#include "interp/complex_value.hpp"
#include "trace/trace.hpp"
#include "types/element_io.hpp"

namespace shard::api {

using interp::ObjKind;

// ---- arguments ---------------------------------------------------------------------------------

bool is_none(const Value& v) { return !v || v->kind == ObjKind::None; }

Value kwarg(const CallArgs& a, std::string_view name) {
  for (auto& [k, v] : a.kwargs)
    if (k == name) return v;
  return nullptr;
}

int64_t int_arg(Interp& I, const Value& v, const std::string& what) {
  if (auto i = interp::bi::int_of(v)) return *i;
  if (auto* arr = as_array(v)) {
    const auto& t = arr->array->type;
    if (t.rank() == 0 && (types::is_int(t.dtype()) || t.dtype() == DType::Bool)) {
      auto bytes = exec::array_to_host(*arr->array);
      auto x = element_value(t.dtype(), bytes.data());
      if (auto i = interp::bi::int_of(x)) return *i;
    }
  }
  if (as_tracer(v)) raise_concretization(I, v, what);
  I.raise("TypeError", fmt::format("'{}' object cannot be interpreted as an integer", I.type_name(v)));
}

double float_arg(Interp& I, const Value& v, const std::string& what) {
  if (auto d = interp::bi::real_of(v)) return *d;
  if (auto* arr = as_array(v)) {
    if (arr->array->type.rank() == 0) {
      auto bytes = exec::array_to_host(*arr->array);
      auto x = element_value(arr->array->type.dtype(), bytes.data());
      if (auto d = interp::bi::real_of(x)) return *d;
    }
  }
  if (as_tracer(v)) raise_concretization(I, v, what);
  I.raise("TypeError", fmt::format("{} must be a real number, not {}", what, I.type_name(v)));
}

std::optional<std::vector<int64_t>> axes_arg(Interp& I, const Value& v) {
  if (is_none(v)) return std::nullopt;
  if (v->kind == ObjKind::Tuple || v->kind == ObjKind::List) {
    std::vector<int64_t> out;
    for (auto& x : I.to_vector(v)) out.push_back(int_arg(I, x, "axis"));
    return out;
  }
  return std::vector<int64_t>{int_arg(I, v, "axis")};
}

std::vector<int64_t> required_axes_arg(Interp& I, const Value& v) {
  // JAX's _ensure_index_tuple iterates what is not an index: None is not iterable.
  if (is_none(v)) I.raise("TypeError", "'NoneType' object is not iterable");
  return *axes_arg(I, v);
}

Shape shape_arg(Interp& I, const Value& v, const std::string& fname) {
  Shape out;
  if (v && (v->kind == ObjKind::Tuple || v->kind == ObjKind::List)) {
    for (auto& x : I.to_vector(v)) {
      auto i = interp::bi::int_of(x);
      if (!i || x->kind == ObjKind::Bool)
        I.raise("TypeError", fmt::format("Shapes must be 1D sequences of concrete values of integer type, got {}.", I.repr(v)));
      out.push_back(*i);
    }
  } else if (auto i = interp::bi::int_of(v)) {
    out.push_back(*i);
  } else {
    I.raise("TypeError", fmt::format("Shapes must be 1D sequences of concrete values of integer type, got {}.",
                                     v ? I.repr(v) : "None"));
  }
  (void)fname;
  return out;
}

std::optional<DType> dtype_arg(Interp& I, const Value& v) {
  if (is_none(v)) return std::nullopt;
  return require_dtype(I, v);
}

sharding::OptOutSharding out_sharding_arg(Interp& I, const Value& v) {
  return out_sharding_arg(I, v, "out_sharding");
}

// ---- dtypes ----------------------------------------------------------------------------------

bool host_operands(const std::vector<Value>& operands) {
  bool any_host = false;
  for (auto& v : operands) {
    if (as_tracer(v)) return false;
    if (auto* a = as_array(v)) {
      if (!a->host) return false;
      any_host = true;
    }
  }
  return any_host;
}

DType storage_dtype(DType d, bool host) { return host ? d : trace::canonicalize_device(d); }

namespace {
int category(DType d) { return d == DType::Bool ? 0 : types::is_int(d) ? 1 : types::is_float(d) ? 2 : 3; }

DType numpy_promote(DType a, DType b) { return trace::numpy_promote_types(a, b); }
}  // namespace

std::optional<DType> numpy_binary_dtype(const std::vector<Value>& operands, bool true_divide) {
  std::optional<DType> arrays, scalars;
  int scalar_cat = -1;
  for (auto& v : operands) {
    if (auto* a = as_array(v)) {
      DType d = a->array->type.dtype();
      if (a->array->type.rank() > 0) arrays = arrays ? numpy_promote(*arrays, d) : d;
      else {
        scalars = scalars ? numpy_promote(*scalars, d) : d;
        scalar_cat = std::max(scalar_cat, category(d));
      }
    } else if (auto st = python_scalar_type(v, true)) {
      scalars = scalars ? numpy_promote(*scalars, st->dtype) : st->dtype;
      scalar_cat = std::max(scalar_cat, category(st->dtype));
    }
  }
  std::optional<DType> r;
  if (arrays) {
    r = *arrays;
    // A scalar of a higher kind: the array's dtype widened to that kind (numpy 1.24's
    // value-based casting: int arrays become float64 / complex128, float32 arrays times a
    // complex scalar complex64).
    if (scalars && scalar_cat > category(*arrays))
      r = scalar_cat == 3 ? (types::is_inexact(*arrays) ? numpy_promote(*arrays, DType::C64) : DType::C128)
                          : numpy_promote(*arrays, scalar_cat == 2 ? DType::F64 : DType::I64);
  } else {
    r = scalars;
  }
  if (r && true_divide && !types::is_inexact(*r)) r = DType::F64;
  return r;
}

Value elementwise_operand(Interp& I, const Value& v, const std::string& fname) {
  if (is_array_like(v) || python_scalar_type(v, false)) return v;
  I.raise("TypeError", fmt::format("{} requires ndarray or scalar arguments, got {} at position 0.", fname, I.type_name(v)));
}

void check_broadcast(Trace& t, const std::vector<ValueId>& ids, bool host) {
  std::vector<Shape> shapes;
  for (auto id : ids) shapes.push_back(t.type(id).shape());
  try {
    trace::broadcast_shapes("broadcast", shapes);
  } catch (const types::ShardingError&) {
    if (!host) throw;
    std::string parts;
    for (auto& s : shapes) {
      std::string tup = "(";
      for (size_t i = 0; i < s.size(); ++i) tup += (i ? "," : "") + std::to_string(s[i]);
      parts += tup + (s.size() == 1 ? ",) " : ") ");
    }
    throw types::ShardingError("ValueError", "operands could not be broadcast together with shapes " + parts);
  }
}

DTypeW dtw(Trace& t, ValueId v) { return {t.type(v).dtype(), t.type(v).weak_type()}; }

Value to_array(Interp& I, const Value& v, std::optional<DType> dtype, bool host) {
  return guarded(I, [&]() -> Value {
    if (auto* a = as_array(v)) {
      if (host) return wrap(dtype ? host_astype(a->array, *dtype) : a->array, true);
      if (!a->host && !dtype) return v;
      if (a->host) return wrap(to_device(a->array, dtype, std::nullopt), false);
      return op_astype(I, v, *dtype);
    }
    if (as_tracer(v)) return dtype ? op_astype(I, v, *dtype) : v;
    auto h = host_array_from_python(I, v, std::nullopt);
    if (host) return wrap(dtype ? host_astype(h, *dtype) : h, true);
    const bool weak = !dtype && (v->kind == ObjKind::Int || v->kind == ObjKind::Float || interp::is_complex(v));
    return wrap(to_device(h, dtype, std::nullopt, weak), false);
  });
}

Value as_operand(Interp& I, const Value& v, bool host) {
  if (is_array_like(v) || python_scalar_type(v, host)) return v;
  if (host && v && (v->kind == ObjKind::List || v->kind == ObjKind::Tuple)) return to_array(I, v, std::nullopt, true);
  return nullptr;
}

namespace {
float half_to_float(uint16_t h, bool bf16) {
  if (bf16) {
    uint32_t bits = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) bits = sign << 31;
    else {
      int e = -1;
      do { ++e; mant <<= 1; } while (!(mant & 0x400));
      bits = (sign << 31) | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    bits = (sign << 31) | 0x7f800000u | (mant << 13);
  } else {
    bits = (sign << 31) | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
}  // namespace

Value element_value(DType dt, const uint8_t* p) {
  switch (dt) {
    case DType::Bool: return interp::make_bool(*p != 0);
    case DType::I32: case DType::I64: case DType::U8: case DType::U16: case DType::U32:
      return interp::make_int(types::load_int_element(dt, p));
    case DType::F32: { float x; std::memcpy(&x, p, 4); return interp::make_float(x); }
    case DType::F64: { double x; std::memcpy(&x, p, 8); return interp::make_float(x); }
    case DType::F16: case DType::BF16: { uint16_t h; std::memcpy(&h, p, 2); return interp::make_float(half_to_float(h, dt == DType::BF16)); }
    case DType::C64: { float x[2]; std::memcpy(x, p, 8); return interp::make_complex(x[0], x[1]); }
    case DType::C128: { double x[2]; std::memcpy(x, p, 16); return interp::make_complex(x[0], x[1]); }
  }
  return interp::none();
}

std::vector<Value> array_elements(const exec::Array& a) {
  auto bytes = exec::array_to_host(a);
  const DType dt = a.type.dtype();
  const size_t sz = types::dtype_size(dt);
  const size_t n = static_cast<size_t>(a.type.num_elements());
  std::vector<Value> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(element_value(dt, bytes.data() + i * sz));
  return out;
}

[[noreturn]] void raise_concretization_error(Interp& I, const std::string& message) {
  static ClassP cls = interp::make_class("ConcretizationTypeError", {I.builtin_class("TypeError")}, "jax.errors");
  CallArgs args;
  args.args.push_back(interp::make_str(message));
  throw interp::PyError{I.call(cls, args)};
}

[[noreturn]] void raise_concretization(Interp& I, const Value& tracer, const std::string& what) {
  std::string ty = as_tracer(tracer) ? as_tracer(tracer)->type().str_short() : "?";
  raise_concretization_error(I, fmt::format(
      "Abstract tracer value encountered where concrete value is expected: traced array with shape {}\n"
      "The problem arose with the `{}` function. If trying to convert the data type of a value, try using "
      "`x.astype({})` or `jnp.array(x, {})` instead.",
      ty, what, what, what));
}

const exec::Array& concrete(Interp& I, const Value& v, const std::string& what) {
  if (auto* a = as_array(v)) return *a->array;
  if (as_tracer(v)) raise_concretization(I, v, what);
  I.raise("TypeError", fmt::format("{}: expected an array, got {}", what, I.type_name(v)));
}

void def_fn(ModuleObj& m, const std::string& name, NativeFn fn) { m.dict.set(name, interp::make_builtin(name, std::move(fn))); }

}  // namespace shard::api
