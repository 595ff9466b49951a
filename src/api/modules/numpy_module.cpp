// The `numpy` module: host arrays (numpy.ndarray) with numpy's dtypes (float64 / int64 by
// default). Functions that compute run as kernels through the same tracer as jax.numpy, on
// host (device-0, single-device) arrays; this file holds the shared helpers, the creation
// functions and the module's registration.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "api/device_count.hpp"
#include "api/modules/numpy_internal.hpp"
#include "api/modules/registration.hpp"
#include "api/modules/dtype_info.hpp"
#include "api/objects/dtype_value.hpp"
#include "api/objects/sharding_objects.hpp"
#include "exec/run_global.hpp"

namespace shard::api::np {

namespace bi = interp::bi;

// ---- helpers --------------------------------------------------------------------------------

namespace {
exec::ArrayRef host_from_bytes(const void* data, DType dt, const Shape& shape) {
  types::ArrayType t(dt, shape);
  return exec::array_from_host(data, t, types::NamedSharding(exec::single_device_mesh(), types::PartitionSpec()), true);
}
}  // namespace

exec::ArrayRef host_array(Interp& I, const Value& v, std::optional<DType> dtype) {
  ensure_device_runtime();
  if (auto* a = as_array(v)) {
    exec::ArrayRef h = a->array;
    if (!a->host) {
      h = guarded(I, [&] {
        auto one = exec::gather_to_single_device(a->array);
        types::ArrayType t(one->type.dtype(), one->type.shape());  // numpy arrays are never weak
        return std::make_shared<const exec::Array>(exec::Array{t, one->sharding, true, one->shards});
      });
    }
    if (dtype && *dtype != h->type.dtype()) h = guarded(I, [&] { return host_astype(h, *dtype); });
    return h;
  }
  if (auto* t = as_tracer(v))
    I.raise("TypeError", fmt::format("The numpy.ndarray conversion method __array__() was called on traced array with shape {}. "
                                     "numpy functions cannot run on values being traced by jax.jit: use jax.numpy instead.",
                                     t->type().str_short()));
  if (as_object_array(v)) I.raise("TypeError", "this numpy function does not support arrays of Python objects (dtype=object)");
  return guarded(I, [&] { return host_array_from_python(I, v, dtype); });
}

Operand operand(Interp& I, const Value& v) {
  Operand o;
  o.array = host_array(I, v);
  o.scalar = o.array->type.rank() == 0;
  return o;
}

namespace {
int kind_rank(DType d) { return d == DType::Bool ? 0 : types::is_int(d) ? 1 : 2; }
}  // namespace

DType promote(DType a, DType b) { return trace::numpy_promote_types(a, b); }

DType result_type(const std::vector<Operand>& ops) {
  // numpy 1.24 value-based casting: scalars (Python numbers, 0-d arrays) only take part when
  // their kind (bool < int < float) is above every array's.
  int array_kind = -1, scalar_kind = -1;
  std::optional<DType> arrays, scalars;
  for (auto& o : ops) {
    DType d = o.array->type.dtype();
    if (o.scalar) {
      scalar_kind = std::max(scalar_kind, kind_rank(d));
      scalars = scalars ? promote(*scalars, d) : d;
    } else {
      array_kind = std::max(array_kind, kind_rank(d));
      arrays = arrays ? promote(*arrays, d) : d;
    }
  }
  if (!arrays) return scalars ? *scalars : DType::F64;
  if (!scalars || scalar_kind <= array_kind) return *arrays;
  return promote(*arrays, *scalars);
}

std::vector<exec::ArrayRef> run(Interp& I, const std::string& name, const std::vector<exec::ArrayRef>& inputs, const Body& body) {
  ensure_device_runtime();
  return guarded(I, [&] {
    trace::Trace t(name, types::AbstractMesh());
    t.set_loc(I.current_loc());
    std::vector<ValueId> ids;
    for (auto& a : inputs) ids.push_back(t.param(a->type));
    auto results = body(t, ids);
    auto fn = t.finish(results);
    auto r = exec::run_global(fn, inputs, std::nullopt);
    return r.outputs;
  });
}

exec::ArrayRef run1(Interp& I, const std::string& name, const std::vector<exec::ArrayRef>& inputs, const Body& body) {
  return run(I, name, inputs, body).at(0);
}

Value result(const exec::ArrayRef& a) {
  const DType d = a->type.dtype();
  if (a->type.rank() == 0 && (d == DType::F64 || d == DType::I64 || d == DType::Bool)) {
    auto bytes = exec::array_to_host(*a);
    if (d == DType::F64) {
      double x;
      std::memcpy(&x, bytes.data(), 8);
      return interp::make_float(x);
    }
    if (d == DType::I64) {
      int64_t x;
      std::memcpy(&x, bytes.data(), 8);
      return interp::make_int(x);
    }
    return interp::make_bool(bytes[0] != 0);
  }
  return wrap(a, true);
}

ValueId cast(trace::Trace& t, ValueId x, DType to) {
  if (t.type(x).dtype() == to && !t.type(x).weak_type()) return x;
  return trace::convert(t, x, {to, false});
}

std::optional<DType> dtype_arg(Interp& I, const Value& v) {
  if (!v || v->kind == ObjKind::None) return std::nullopt;
  return require_dtype(I, v);
}

Shape shape_arg(Interp& I, const Value& v) {
  Shape s;
  if (auto i = bi::try_index(I, v)) {
    s.push_back(*i);
  } else if (v->kind == ObjKind::Tuple || v->kind == ObjKind::List) {
    for (auto& x : I.to_vector(v)) s.push_back(bi::index_of(I, x, ""));
  } else {
    I.raise("TypeError", fmt::format("'{}' object cannot be interpreted as an integer", I.type_name(v)));
  }
  for (auto d : s)
    if (d < 0) I.raise("ValueError", "negative dimensions are not allowed");
  check_size(I, s);
  return s;
}

void check_size(Interp& I, const Shape& shape) {
  int64_t n = 1;
  for (auto d : shape)
    if (d > 0 && (__builtin_mul_overflow(n, d, &n) || n > kMaxHostElements))
      I.raise("MemoryError", fmt::format("Unable to allocate an array with shape {}: shard's host arrays hold at most {} elements",
                                         types::py_int_tuple(shape), kMaxHostElements));
}

std::optional<std::vector<int64_t>> axes_arg(Interp& I, const Value& v) {
  if (!v || v->kind == ObjKind::None) return std::nullopt;
  if (v->kind == ObjKind::Tuple || v->kind == ObjKind::List) {
    std::vector<int64_t> out;
    for (auto& x : I.to_vector(v)) out.push_back(bi::index_of(I, x, "'tuple' object cannot be interpreted as an integer"));
    return out;
  }
  return std::vector<int64_t>{bi::index_of(I, v, "")};
}

bool bool_arg(Interp& I, const Value& v, bool dflt) { return v ? I.truthy(v) : dflt; }

double number_arg(Interp& I, const Value& v, const char* what) {
  if (auto d = bi::real_of(v)) return *d;
  if (auto* a = as_array(v); a && a->array->type.rank() == 0) {
    auto h = host_array(I, v, DType::F64);
    auto bytes = exec::array_to_host(*h);
    double x;
    std::memcpy(&x, bytes.data(), 8);
    return x;
  }
  I.raise("TypeError", fmt::format("{} must be a number, got {}", what, I.type_name(v)));
}

void add(ModuleObj& m, const std::string& name, interp::NativeFn fn) { m.dict.set(name, interp::make_builtin(name, std::move(fn))); }

// ---- creation -------------------------------------------------------------------------------

namespace {

// The numpy dtype of a Python number or 0-d array argument (arange/full inference).
DType number_dtype(const Value& v) {
  if (auto* a = as_array(v)) return a->array->type.dtype();
  if (v->kind == ObjKind::Float) return DType::F64;
  if (v->kind == ObjKind::Bool) return DType::Bool;
  return DType::I64;
}

Value filled(Interp& I, const char* name, const Shape& shape, double value, DType dt) {
  return result(run1(I, name, {}, [&](trace::Trace& t, const std::vector<ValueId>&) {
    return std::vector<ValueId>{trace::full(t, shape, value, {dt, false}, std::nullopt)};
  }));
}

Value np_array(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "array", {"object", "dtype=", "*", "copy=", "order=", "ndmin="});
  Value obj = p.get("object");
  auto dt = dtype_arg(I, p.get("dtype"));
  if (auto* oa = as_object_array(obj)) return make_object_array(oa->shape, oa->items);
  if (!as_array(obj) && !dt)
    if (auto o = object_array_from_python(I, obj)) return *o;
  auto h = host_array(I, obj, dt);
  if (auto* src = as_array(obj); src && src->host && h == src->array) {
    // A copy: fresh buffers, so the new array never aliases the old one.
    auto bytes = exec::array_to_host(*h);
    h = guarded(I, [&] { return host_from_bytes(bytes.data(), h->type.dtype(), h->type.shape()); });
  }
  int64_t ndmin = p.get("ndmin") ? bi::index_of(I, p.get("ndmin"), "") : 0;
  if (ndmin > static_cast<int64_t>(h->type.rank())) {
    Shape s(static_cast<size_t>(ndmin) - h->type.rank(), 1);
    s.insert(s.end(), h->type.shape().begin(), h->type.shape().end());
    h = run1(I, "array", {h}, [&](trace::Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{trace::reshape(t, ids[0], s)};
    });
  }
  return wrap(h, true);
}

Value np_asarray(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "asarray", {"a", "dtype=", "*", "order="});
  Value obj = p.get("a");
  auto dt = dtype_arg(I, p.get("dtype"));
  if (as_object_array(obj)) return obj;
  if (auto* src = as_array(obj); src && src->host && (!dt || *dt == src->array->type.dtype())) return obj;
  if (!as_array(obj) && !dt)
    if (auto o = object_array_from_python(I, obj)) return *o;
  return wrap(host_array(I, obj, dt), true);
}

Value np_arange(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "arange", {"start", "stop=", "step=", "dtype=", "*", "like="});
  Value start = p.get("start"), stop = p.get("stop"), step = p.get("step");
  if (stop && stop->kind == ObjKind::None) stop = nullptr;
  if (step && step->kind == ObjKind::None) step = nullptr;
  if (!stop) std::swap(start, stop), start = interp::make_int(0);
  DType inferred = DType::I64;
  for (const Value& v : {start, stop, step})
    if (v) inferred = promote(inferred, number_dtype(v) == DType::Bool ? DType::I64 : number_dtype(v));
  DType dt = dtype_arg(I, p.get("dtype")).value_or(inferred);
  double x0 = number_arg(I, start, "arange start"), x1 = number_arg(I, stop, "arange stop");
  double dx = step ? number_arg(I, step, "arange step") : 1.0;
  if (dx == 0) I.raise("ZeroDivisionError", "division by zero");
  double n = std::ceil((x1 - x0) / dx);
  if (!(n < static_cast<double>(kMaxHostElements))) I.raise("ValueError", "Maximum allowed size exceeded");
  // Computed in float64 (or int64) then cast, as numpy fills start + i*step.
  DType compute = types::is_float(inferred) || types::is_float(dt) ? DType::F64 : DType::I64;
  return result(run1(I, "arange", {}, [&](trace::Trace& t, const std::vector<ValueId>&) {
    return std::vector<ValueId>{cast(t, trace::arange(t, x0, x1, dx, {compute, false}, std::nullopt), dt)};
  }));
}

Value np_zeros_ones(Interp& I, CallArgs& a, const char* name, double value) {
  interp::ArgParser p(I, a, name, {"shape", "dtype=", "order=", "*", "like="});
  return filled(I, name, shape_arg(I, p.get("shape")), value, dtype_arg(I, p.get("dtype")).value_or(DType::F64));
}

Value np_full(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "full", {"shape", "fill_value", "dtype=", "order=", "*", "like="});
  Value fill = p.get("fill_value");
  DType dt = dtype_arg(I, p.get("dtype")).value_or(number_dtype(fill));
  return filled(I, "full", shape_arg(I, p.get("shape")), number_arg(I, fill, "fill_value"), dt);
}

Value np_like(Interp& I, CallArgs& a, const char* name, std::optional<double> value) {
  std::vector<std::string> sig = {"a"};
  if (!value) sig.push_back("fill_value");
  for (const char* s : {"dtype=", "order=", "subok=", "shape="}) sig.push_back(s);
  interp::ArgParser p(I, a, name, sig);
  auto h = host_array(I, p.get("a"));
  Value fill = value ? Value() : p.get("fill_value");
  DType dt = dtype_arg(I, p.get("dtype")).value_or(h->type.dtype());
  Shape shape = p.get("shape") && p.get("shape")->kind != ObjKind::None ? shape_arg(I, p.get("shape")) : h->type.shape();
  return filled(I, name, shape, value ? *value : number_arg(I, fill, "fill_value"), dt);
}

Value np_eye(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "eye", {"N", "M=", "k=", "dtype=", "order=", "*", "like="});
  int64_t n = bi::index_of(I, p.get("N"), "");
  int64_t m = p.get("M") && p.get("M")->kind != ObjKind::None ? bi::index_of(I, p.get("M"), "") : n;
  int64_t k = p.get("k") ? bi::index_of(I, p.get("k"), "") : 0;
  if (n < 0 || m < 0) I.raise("ValueError", "negative dimensions are not allowed");
  check_size(I, {n, m});
  DType dt = dtype_arg(I, p.get("dtype")).value_or(DType::F64);
  return result(run1(I, "eye", {}, [&](trace::Trace& t, const std::vector<ValueId>&) {
    return std::vector<ValueId>{trace::eye(t, n, m, k, {dt, false}, std::nullopt)};
  }));
}

Value np_identity(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "identity", {"n", "dtype=", "*", "like="});
  int64_t n = bi::index_of(I, p.get("n"), "");
  if (n < 0) I.raise("ValueError", "negative dimensions are not allowed");
  check_size(I, {n, n});
  DType dt = dtype_arg(I, p.get("dtype")).value_or(DType::F64);
  return result(run1(I, "identity", {}, [&](trace::Trace& t, const std::vector<ValueId>&) {
    return std::vector<ValueId>{trace::eye(t, n, n, 0, {dt, false}, std::nullopt)};
  }));
}

Value np_linspace(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "linspace", {"start", "stop", "num=", "endpoint=", "retstep=", "dtype=", "axis="});
  double x0 = number_arg(I, p.get("start"), "linspace start"), x1 = number_arg(I, p.get("stop"), "linspace stop");
  int64_t num = p.get("num") ? bi::index_of(I, p.get("num"), "") : 50;
  if (num < 0) I.raise("ValueError", fmt::format("Number of samples, {}, must be non-negative.", num));
  check_size(I, {num});
  bool endpoint = bool_arg(I, p.get("endpoint"), true);
  DType dt = dtype_arg(I, p.get("dtype")).value_or(DType::F64);
  Value arr = result(run1(I, "linspace", {}, [&](trace::Trace& t, const std::vector<ValueId>&) {
    return std::vector<ValueId>{cast(t, trace::linspace(t, x0, x1, num, endpoint, {DType::F64, false}, std::nullopt), dt)};
  }));
  if (!bool_arg(I, p.get("retstep"), false)) return arr;
  const double div = endpoint ? static_cast<double>(num - 1) : static_cast<double>(num);
  double step = div > 0 ? (x1 - x0) / div : std::numeric_limits<double>::quiet_NaN();
  return interp::make_tuple({arr, interp::make_float(step)});
}

Value np_copy(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "copy", {"a", "order=", "subok="});
  Value obj = p.get("a");
  if (auto* oa = as_object_array(obj)) return make_object_array(oa->shape, oa->items);
  auto h = host_array(I, obj);
  auto bytes = exec::array_to_host(*h);
  return wrap(guarded(I, [&] { return host_from_bytes(bytes.data(), h->type.dtype(), h->type.shape()); }), true);
}

}  // namespace

void add_creation_functions(Interp&, ModuleObj& m) {
  add(m, "array", np_array);
  add(m, "asarray", np_asarray);
  add(m, "asanyarray", np_asarray);
  add(m, "ascontiguousarray", np_asarray);
  add(m, "arange", np_arange);
  add(m, "zeros", [](Interp& I, CallArgs& a) { return np_zeros_ones(I, a, "zeros", 0); });
  add(m, "empty", [](Interp& I, CallArgs& a) { return np_zeros_ones(I, a, "empty", 0); });
  add(m, "ones", [](Interp& I, CallArgs& a) { return np_zeros_ones(I, a, "ones", 1); });
  add(m, "full", np_full);
  add(m, "zeros_like", [](Interp& I, CallArgs& a) { return np_like(I, a, "zeros_like", 0.0); });
  add(m, "empty_like", [](Interp& I, CallArgs& a) { return np_like(I, a, "empty_like", 0.0); });
  add(m, "ones_like", [](Interp& I, CallArgs& a) { return np_like(I, a, "ones_like", 1.0); });
  add(m, "full_like", [](Interp& I, CallArgs& a) { return np_like(I, a, "full_like", std::nullopt); });
  add(m, "eye", np_eye);
  add(m, "identity", np_identity);
  add(m, "linspace", np_linspace);
  add(m, "copy", np_copy);
}

namespace {

void fill_numpy(Interp& I, ModuleObj& m) {
  init_device_classes();
  m.dict.set("__version__", interp::make_str("1.24.2"));
  m.dict.set("ndarray", ndarray_class());
  for (DType d : {DType::Bool, DType::I32, DType::I64, DType::U8, DType::U16, DType::U32, DType::F16, DType::F32, DType::F64,
                  DType::C64, DType::C128})
    m.dict.set(d == DType::Bool ? "bool_" : std::string(types::dtype_name(d)), scalar_type_value(d, true));
  m.dict.set("int_", scalar_type_value(DType::I64, true));
  m.dict.set("float_", scalar_type_value(DType::F64, true));
  m.dict.set("double", scalar_type_value(DType::F64, true));
  m.dict.set("single", scalar_type_value(DType::F32, true));
  m.dict.set("csingle", scalar_type_value(DType::C64, true));
  m.dict.set("cdouble", scalar_type_value(DType::C128, true));
  m.dict.set("complex_", scalar_type_value(DType::C128, true));
  m.dict.set("half", scalar_type_value(DType::F16, true));
  m.dict.set("intc", scalar_type_value(DType::I32, true));
  m.dict.set("pi", interp::make_float(M_PI));
  m.dict.set("e", interp::make_float(M_E));
  m.dict.set("inf", interp::make_float(std::numeric_limits<double>::infinity()));
  m.dict.set("Inf", interp::make_float(std::numeric_limits<double>::infinity()));
  m.dict.set("nan", interp::make_float(std::numeric_limits<double>::quiet_NaN()));
  m.dict.set("NaN", interp::make_float(std::numeric_limits<double>::quiet_NaN()));
  m.dict.set("newaxis", interp::none());
  add_dtype_info(I, m, true);  // dtype (the class), finfo, issubdtype, ... (dtype_info.cpp)
  add_creation_functions(I, m);
  add_math_functions(I, m);
  add_indexing_functions(I, m);
  add_nan_stats_functions(I, m);
  add_histogram_functions(I, m);
  add_reorder_functions(I, m);
  add_product_functions(I, m);
  add_log_space_functions(I, m);
  add_contraction_functions(I, m);
  m.dict.set("random", I.import_module("numpy.random", I.current_loc()));
  m.dict.set("fft", I.import_module("numpy.fft", I.current_loc()));  // fft_module.cpp
  m.dict.set("linalg", I.import_module("numpy.linalg", I.current_loc()));  // numpy_linalg.cpp
  add_io_functions(I, m);
}

}  // namespace

}  // namespace shard::api::np

namespace shard::api {

void register_numpy_module() {
  interp::Interp::register_builtin_module("numpy", np::fill_numpy);
  interp::Interp::register_builtin_module("numpy.random", np::fill_random_module);
  np::register_linalg_module();
}

}  // namespace shard::api
