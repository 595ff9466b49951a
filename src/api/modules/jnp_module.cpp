// The jax.numpy module: dtypes, constants, and the op families (jnp_module_*.cpp). Every
// jnp function returns device arrays: numpy (host) operands are moved to the device first.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "api/device_count.hpp"
#include "api/modules/dtype_info.hpp"
#include "api/modules/fft_module.hpp"
#include "api/modules/jnp_module.hpp"
#include "api/modules/registration.hpp"
#include "api/objects/dtype_value.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using interp::ObjKind;

namespace {

Value to_device_value(Interp& I, const Value& v) {
  auto* a = as_array(v);
  if (!a || !a->host) return v;
  return guarded(I, [&] { return wrap(to_device(a->array, std::nullopt, std::nullopt), false); });
}

// Host arrays among the arguments (and inside list/tuple arguments) moved to the device.
Value device_args(Interp& I, const Value& v) {
  if (v && (v->kind == ObjKind::List || v->kind == ObjKind::Tuple)) {
    const auto& items = v->kind == ObjKind::List ? static_cast<interp::ListObj&>(*v).items : static_cast<interp::TupleObj&>(*v).items;
    bool any = false;
    for (auto& x : items) any |= as_array(x) && as_array(x)->host;
    if (!any) return v;
    std::vector<Value> out;
    for (auto& x : items) out.push_back(to_device_value(I, x));
    return v->kind == ObjKind::List ? interp::make_list(std::move(out)) : interp::make_tuple(std::move(out));
  }
  return to_device_value(I, v);
}

}  // namespace

void def_jnp(ModuleObj& m, const std::string& name, NativeFn fn) {
  def_fn(m, name, [fn](Interp& I, CallArgs& a) {
    ensure_device_runtime();
    for (auto& v : a.args) v = device_args(I, v);
    for (auto& kv : a.kwargs) kv.second = device_args(I, kv.second);
    return fn(I, a);
  });
}

void check_arraylike(Interp& I, const std::string& fname, const std::vector<Value>& args) {
  for (size_t i = 0; i < args.size(); ++i)
    if (!is_array_like(args[i]) && !python_scalar_type(args[i], false) && !interp::bi::str_of(args[i]))  // np.isscalar(str)
      I.raise("TypeError", fmt::format("{} requires ndarray or scalar arguments, got <class '{}'> at position {}.", fname, I.type_name(args[i]), i));
}

void register_jnp_module() {
  Interp::register_builtin_module("jax.numpy", [](Interp& I, ModuleObj& m) {
    using types::DType;
    struct D {
      const char* name;
      DType d;
    };
    for (D d : {D{"float32", DType::F32}, D{"float64", DType::F64}, D{"int32", DType::I32}, D{"int64", DType::I64},
                D{"uint8", DType::U8}, D{"uint16", DType::U16}, D{"uint32", DType::U32},
                D{"bool_", DType::Bool}, D{"bool", DType::Bool}, D{"bfloat16", DType::BF16}, D{"float16", DType::F16},
                D{"complex64", DType::C64}, D{"complex128", DType::C128}, D{"csingle", DType::C64}, D{"cdouble", DType::C128},
                D{"complex_", DType::C128}})
      m.dict.set(d.name, scalar_type_value(d.d, false));
    m.dict.set("float_", scalar_type_value(DType::F64, false));
    m.dict.set("int_", scalar_type_value(DType::I64, false));
    m.dict.set("pi", interp::make_float(M_PI));
    m.dict.set("e", interp::make_float(M_E));
    m.dict.set("euler_gamma", interp::make_float(0.5772156649015329));
    m.dict.set("inf", interp::make_float(std::numeric_limits<double>::infinity()));
    m.dict.set("nan", interp::make_float(std::numeric_limits<double>::quiet_NaN()));
    m.dict.set("newaxis", interp::none());
    m.dict.set("ndarray", array_class());
    add_dtype_info(I, m, false);  // dtype (np.dtype, the class), finfo, issubdtype, ... (dtype_info.cpp)
    add_jnp_creation(I, m);
    add_jnp_elementwise(I, m);
    add_jnp_reductions(I, m);
    add_jnp_shape(I, m);
    add_jnp_linalg(I, m);
    add_jnp_indexing(I, m);
    add_jnp_nan_stats(I, m);
    add_jnp_histogram(I, m);
    add_jnp_reorder(I, m);
    add_jnp_products(I, m);
    add_jnp_log_spaces(I, m);
    m.dict.set("linalg", I.import_module("jax.numpy.linalg", I.current_loc()));
    m.dict.set("fft", I.import_module("jax.numpy.fft", I.current_loc()));
  });
  register_jnp_linalg_module();
  register_jax_dtypes_module();  // dtype_info.cpp
  register_jnp_fft_module();
}

}  // namespace shard::api
