// jax.Array / numpy.ndarray (and jit tracers): printing, properties, conversions to Python
// scalars and lists, len/iter, and the methods that share their implementation with the
// jax.numpy functions. Operators are in array_methods_operators.cpp, indexing and .at[] in
// array_methods_indexing.cpp.
#include <fmt/format.h>

#include <cstring>

#include "api/transforms/shard_map_eager.hpp"
#include "api/modules/registration.hpp"
#include "api/objects/dtype_value.hpp"
#include "api/op_args.hpp"
#include "array/array_format.hpp"
#include "interp/complex_value.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using interp::ObjKind;
namespace bi = interp::bi;

void install_array_operators(const ClassP& c);
void install_array_indexing(const ClassP& c);

namespace {

struct HostCopy {
  std::vector<uint8_t> bytes;
  array::ArrayView view;
};
HostCopy host_copy(const exec::Array& a) {
  HostCopy h;
  h.bytes = exec::array_to_host(a);
  h.view = array::ArrayView{a.type.dtype(), a.type.shape(), h.bytes.data()};
  return h;
}

const Value& self(CallArgs& a) { return a.args.at(0); }

// A value of an eager shard_map body shows every device's block (JAX's ShardMapTracer).
std::string tracer_repr(const TracerObj& t) {
  if (auto* eager = EagerShardMap::of(*t.trace)) return eager->block_text(t.id);
  return fmt::format("Traced<{}>with<DynamicJaxprTrace>", t.type().str_short());
}

Value array_repr(Interp& I, CallArgs& a) {
  const Value& x = self(a);
  if (auto* t = as_tracer(x)) return interp::make_str(tracer_repr(*t));
  auto* arr = as_array(x);
  if (!arr) I.raise("TypeError", "expected an array");
  auto h = host_copy(*arr->array);
  if (arr->host) {
    if (arr->array->type.rank() == 0) return interp::make_str(array::format_scalar_str(h.view.dtype, h.view.data));
    return interp::make_str(array::format_array_repr(h.view));
  }
  return interp::make_str(array::format_jax_repr(h.view, arr->array->type.weak_type()));
}

Value array_str(Interp& I, CallArgs& a) {
  const Value& x = self(a);
  if (auto* t = as_tracer(x)) return interp::make_str(tracer_repr(*t));
  auto* arr = as_array(x);
  if (!arr) I.raise("TypeError", "expected an array");
  auto h = host_copy(*arr->array);
  return interp::make_str(array::format_array_str(h.view));
}

// The single element of a scalar array as a Python value (`what` names the conversion).
Value scalar_element(Interp& I, const Value& x, const std::string& what) {
  const auto& arr = concrete(I, x, what);
  auto vals = array_elements(arr);
  return vals.at(0);
}

// JAX's check_scalar_conversion / numpy's size-1 rule.
void check_scalar_conversion(Interp& I, const Value& x, const std::string& what) {
  if (as_tracer(x)) raise_concretization(I, x, what);
  auto* arr = as_array(x);
  const auto& t = arr->array->type;
  if (arr->host) {
    if (t.num_elements() != 1) I.raise("TypeError", "only size-1 arrays can be converted to Python scalars");
  } else if (t.rank() > 0) {
    I.raise("TypeError", fmt::format("Only scalar arrays can be converted to Python scalars; got arr.ndim={}", t.rank()));
  }
}

Value to_python_int(Interp& I, const Value& v) {
  if (v->kind == ObjKind::Float) {
    double d = static_cast<interp::FloatObj&>(*v).v;
    if (std::isnan(d)) I.raise("ValueError", "cannot convert float NaN to integer");
    if (std::isinf(d)) I.raise("OverflowError", "cannot convert float infinity to integer");
    return interp::make_int(static_cast<int64_t>(d));
  }
  if (v->kind == ObjKind::Bool) return interp::make_int(static_cast<interp::BoolObj&>(*v).v ? 1 : 0);
  return v;
}

Value nested_list(const std::vector<Value>& flat, const Shape& shape, size_t dim, size_t& pos) {
  if (dim == shape.size()) return flat.at(pos++);
  std::vector<Value> items;
  for (int64_t i = 0; i < shape[dim]; ++i) items.push_back(nested_list(flat, shape, dim + 1, pos));
  return interp::make_list(std::move(items));
}

Value shape_tuple_value(const Shape& s) {
  std::vector<Value> items;
  for (auto d : s) items.push_back(interp::make_int(d));
  return interp::make_tuple(std::move(items));
}

// reshape(*shape) or reshape(shape), with order= and out_sharding= keywords.
Value method_reshape(Interp& I, CallArgs& a) {
  Shape shape;
  if (a.args.size() == 2 && (a.args[1]->kind == ObjKind::Tuple || a.args[1]->kind == ObjKind::List)) {
    shape = shape_arg(I, a.args[1], "reshape");
  } else {
    for (size_t i = 1; i < a.args.size(); ++i) shape.push_back(int_arg(I, a.args[i], "shape"));
  }
  sharding::OptOutSharding out;
  for (auto& [k, v] : a.kwargs) {
    if (k == "out_sharding") out = out_sharding_arg(I, v);
    else if (k == "shape") shape = shape_arg(I, v, "reshape");
    else if (k == "order") {
      if (I.str(v) != "C") I.raise("NotImplementedError", "reshape: only order='C' is supported");
    } else {
      I.raise("TypeError", fmt::format("reshape() got an unexpected keyword argument '{}'", k));
    }
  }
  return op_reshape(I, self(a), shape, out);
}

Value method_transpose(Interp& I, CallArgs& a) {
  bi::no_kwargs(I, a, "transpose");
  std::vector<int64_t> perm;
  if (a.args.size() == 2 && is_none(a.args[1])) return op_transpose(I, self(a), {});
  if (a.args.size() == 2 && (a.args[1]->kind == ObjKind::Tuple || a.args[1]->kind == ObjKind::List)) {
    perm = required_axes_arg(I, a.args[1]);
  } else {
    for (size_t i = 1; i < a.args.size(); ++i) perm.push_back(int_arg(I, a.args[i], "axes"));
  }
  return op_transpose(I, self(a), perm);
}

Value method_astype(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "astype", {"$self", "dtype", "copy=", "device="});
  DType d = require_dtype(I, p.get("dtype"));
  return op_astype(I, self(a), storage_dtype(d, as_array(self(a)) && as_array(self(a))->host));
}

Value method_iter(Interp& I, CallArgs& a) {
  Value x = self(a);
  types::ArrayType t = type_of(x);
  if (t.rank() == 0) I.raise("TypeError", "iteration over a 0-d array");
  int64_t n = t.shape()[0];
  int64_t i = 0;
  static ClassP it_cls = interp::make_class("array_iterator", {interp::T().object}, "builtins");
  Interp* ip = &I;
  return bi::make_iterator(it_cls, [ip, x, n, i]() mutable -> std::optional<Value> {
    if (i >= n) return std::nullopt;
    return op_getitem(*ip, x, interp::make_int(i++));
  });
}

Value array_format(Interp& I, CallArgs& a) {
  const Value& x = self(a);
  std::string spec = a.args.size() > 1 ? I.str(a.args[1]) : "";
  if (auto* arr = as_array(x)) {
    if (arr->array->type.rank() == 0) {
      if (spec.empty()) {
        auto h = host_copy(*arr->array);
        return interp::make_str(array::format_scalar_str(h.view.dtype, h.view.data));
      }
      return interp::make_str(I.format(scalar_element(I, x, "format"), spec));
    }
    if (spec.empty()) return array_str(I, a);
    I.raise("TypeError", "unsupported format string passed to numpy.ndarray.__format__");
  }
  if (spec.empty()) return array_str(I, a);
  raise_concretization(I, x, "format");
}

}  // namespace

namespace {

void install_on(const ClassP& c) {
  bi::def(c, "__repr__", array_repr);
  bi::def(c, "__str__", array_str);
  bi::def(c, "__format__", array_format);
  c->dict.set("__hash__", interp::none());

  bi::def_property(c, "shape", [](Interp&, CallArgs& a) { return shape_tuple_value(type_of(self(a)).shape()); });
  bi::def_property(c, "dtype", [](Interp&, CallArgs& a) { return dtype_value(type_of(self(a)).dtype()); });
  bi::def_property(c, "ndim", [](Interp&, CallArgs& a) { return interp::make_int(static_cast<int64_t>(type_of(self(a)).rank())); });
  bi::def_property(c, "size", [](Interp&, CallArgs& a) { return interp::make_int(type_of(self(a)).num_elements()); });
  bi::def_property(c, "itemsize", [](Interp&, CallArgs& a) {
    return interp::make_int(static_cast<int64_t>(types::dtype_size(type_of(self(a)).dtype())));
  });
  bi::def_property(c, "nbytes", [](Interp&, CallArgs& a) {
    auto t = type_of(self(a));
    return interp::make_int(t.num_elements() * static_cast<int64_t>(types::dtype_size(t.dtype())));
  });
  bi::def_property(c, "T", [](Interp& I, CallArgs& a) { return op_transpose(I, self(a), {}); });
  bi::def_property(c, "mT", [](Interp& I, CallArgs& a) {
    auto r = type_of(self(a)).rank();
    if (r < 2) I.raise("ValueError", fmt::format("Matrix transpose requires ndim >= 2, got ndim={}", r));
    std::vector<int64_t> perm;
    for (size_t i = 0; i + 2 < r; ++i) perm.push_back(static_cast<int64_t>(i));
    perm.push_back(static_cast<int64_t>(r - 1));
    perm.push_back(static_cast<int64_t>(r - 2));
    return op_transpose(I, self(a), perm);
  });
  bi::def_property(c, "weak_type", [](Interp&, CallArgs& a) { return interp::make_bool(type_of(self(a)).weak_type()); });
  // Complex parts (a real array's real part is itself, its imaginary part zeros).
  using PartFn = ir::ValueId (*)(trace::Trace&, ir::ValueId);
  auto part = [](const char* name, PartFn fn) {
    return [name, fn](Interp& I, CallArgs& a) {
      return apply(I, name, {self(a)}, [fn](trace::Trace& t, const std::vector<ir::ValueId>& ids) { return std::vector<ir::ValueId>{fn(t, ids[0])}; });
    };
  };
  bi::def_property(c, "real", part("real", trace::real));
  bi::def_property(c, "imag", part("imag", trace::imag));
  bi::def(c, "conj", part("conj", trace::conj));
  bi::def(c, "conjugate", part("conjugate", trace::conj));

  bi::def(c, "reshape", method_reshape);
  bi::def(c, "transpose", method_transpose);
  bi::def(c, "astype", method_astype);
  bi::def(c, "sum", jnp_sum);
  bi::def(c, "prod", jnp_prod);
  bi::def(c, "max", jnp_max);
  bi::def(c, "min", jnp_min);
  bi::def(c, "mean", jnp_mean);
  bi::def(c, "var", jnp_var);
  bi::def(c, "std", jnp_std);
  bi::def(c, "all", jnp_all);
  bi::def(c, "any", jnp_any);
  bi::def(c, "argmax", jnp_argmax);
  bi::def(c, "argmin", jnp_argmin);
  bi::def(c, "cumsum", jnp_cumsum);
  bi::def(c, "cumprod", jnp_cumprod);
  bi::def(c, "squeeze", jnp_squeeze);
  bi::def(c, "ravel", jnp_ravel);
  bi::def(c, "clip", jnp_clip);
  bi::def(c, "sort", jnp_sort);
  bi::def(c, "swapaxes", jnp_swapaxes);
  bi::def(c, "round", jnp_round);
  bi::def(c, "dot", jnp_dot);
  bi::def(c, "flatten", [](Interp& I, CallArgs& a) {
    bi::method_nargs(I, a, "flatten", 0, 1);
    return op_reshape(I, self(a), {type_of(self(a)).num_elements()}, std::nullopt);
  });
  bi::def(c, "copy", [](Interp& I, CallArgs& a) {
    bi::method_nargs(I, a, "copy", 0, 0);
    return op_astype(I, self(a), type_of(self(a)).dtype());
  });
  bi::def(c, "block_until_ready", [](Interp&, CallArgs& a) { return self(a); });
  bi::def(c, "item", [](Interp& I, CallArgs& a) {
    const Value& x = self(a);
    if (as_tracer(x)) raise_concretization(I, x, "item");
    auto t = type_of(x);
    if (a.args.size() > 1) {
      int64_t i = int_arg(I, a.args[1], "index");
      int64_t n = t.num_elements();
      if (i < -n || i >= n) I.raise("IndexError", "index " + std::to_string(i) + " is out of bounds for size " + std::to_string(n));
      return array_elements(*as_array(x)->array).at(static_cast<size_t>(i < 0 ? i + n : i));
    }
    if (t.num_elements() != 1) I.raise("ValueError", "can only convert an array of size 1 to a Python scalar");
    return scalar_element(I, x, "item");
  });
  bi::def(c, "tolist", [](Interp& I, CallArgs& a) {
    const auto& arr = concrete(I, self(a), "tolist");
    auto flat = array_elements(arr);
    size_t pos = 0;
    return nested_list(flat, arr.type.shape(), 0, pos);
  });
  bi::def(c, "__len__", [](Interp& I, CallArgs& a) {
    auto t = type_of(self(a));
    if (t.rank() == 0) I.raise("TypeError", "len() of unsized object");
    return interp::make_int(t.shape()[0]);
  });
  bi::def(c, "__iter__", method_iter);
  bi::def(c, "__bool__", [](Interp& I, CallArgs& a) {
    const Value& x = self(a);
    if (as_tracer(x)) raise_concretization(I, x, "bool");
    auto t = type_of(x);
    if (t.num_elements() == 0) {
      if (as_array(x)->host) return interp::make_bool(false);
      I.raise("ValueError", "The truth value of an empty array is ambiguous. Use `array.size > 0` to check that an array is not empty.");
    }
    if (t.num_elements() > 1)
      I.raise("ValueError", "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()");
    return interp::make_bool(I.truthy(scalar_element(I, x, "bool")));
  });
  bi::def(c, "__int__", [](Interp& I, CallArgs& a) {
    check_scalar_conversion(I, self(a), "int");
    auto v = scalar_element(I, self(a), "int");
    if (interp::is_complex(v)) v = interp::make_float(interp::complex_of(v).real());
    return to_python_int(I, v);
  });
  bi::def(c, "__float__", [](Interp& I, CallArgs& a) {
    check_scalar_conversion(I, self(a), "float");
    auto v = scalar_element(I, self(a), "float");
    // numpy: a complex value's imaginary part is discarded (with a ComplexWarning)
    if (interp::is_complex(v)) return interp::make_float(interp::complex_of(v).real());
    return interp::make_float(*bi::real_of(v));
  });
  bi::def(c, "__complex__", [](Interp& I, CallArgs& a) {
    check_scalar_conversion(I, self(a), "complex");
    return interp::make_complex(interp::complex_of(scalar_element(I, self(a), "complex")));
  });
  bi::def(c, "__index__", [](Interp& I, CallArgs& a) {
    const Value& x = self(a);
    if (as_tracer(x)) raise_concretization(I, x, "index");
    auto t = type_of(x);
    if (t.rank() != 0 || !(types::is_int(t.dtype()) || t.dtype() == DType::Bool)) {
      if (as_array(x)->host) I.raise("TypeError", "only integer scalar arrays can be converted to a scalar index");
      I.raise("TypeError", "Only integer scalar arrays can be converted to a scalar index.");
    }
    return to_python_int(I, scalar_element(I, x, "index"));
  });
  install_array_operators(c);
  install_array_indexing(c);
}

}  // namespace

void install_array_methods() {
  install_on(array_class());
  install_on(ndarray_class());
  install_on(tracer_class());
}

}  // namespace shard::api
