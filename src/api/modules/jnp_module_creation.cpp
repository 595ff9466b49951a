// jax.numpy creation: array asarray zeros ones full empty *_like arange linspace eye
// identity. Values computed on the host (array, arange, linspace) follow JAX's formulas so
// they match it bit for bit; the rest are traced ops placed by out_sharding= / device=.
#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "api/modules/jnp_module.hpp"
#include "interp/complex_value.hpp"
#include "api/out_mesh_scope.hpp"
#include "api/objects/dtype_value.hpp"
#include "api/objects/sharding_objects.hpp"
#include "exec/run_global.hpp"
#include "interp/builtins/support.hpp"
#include "trace/trace.hpp"
#include "types/x64_mode.hpp"

namespace shard::api {

using interp::ArgParser;
using interp::ObjKind;
using sharding::OptOutSharding;

namespace {

// out_sharding= or device= (JAX accepts a Sharding as device=).
OptOutSharding placement(Interp& I, const ArgParser& p) {
  OptOutSharding s;
  if (p.has("out_sharding")) s = out_sharding_arg(I, p.get("out_sharding"));
  if (!s && p.has("device")) {
    Value d = p.get("device");
    if (!is_none(d) && d->cls && (d->cls->name == "NamedSharding" || d->cls->name == "PartitionSpec")) s = out_sharding_arg(I, d);
  }
  return s;
}

Value create(Interp& I, const std::string& name, const OptOutSharding& out,
             const std::function<ValueId(Trace&)>& body) {
  OutMeshScope scope(out);
  return apply(I, name, {}, [&](Trace& t, const std::vector<ValueId>&) { return std::vector<ValueId>{body(t)}; });
}

// Places a fresh device array per out_sharding / device= (jax.device_put).
Value place(Interp& I, const Value& v, const OptOutSharding& out, const Value& spec_value) {
  if (!out) return v;
  Value jax = I.import_module("jax", I.current_loc());
  return I.call(I.getattr(jax, "device_put"), std::vector<Value>{v, spec_value});
}

// DTypeW of a fill value with dtype=None: Python scalars are weak.
DTypeW fill_dtype(Interp& I, const Value& v, std::optional<DType> dtype) {
  if (dtype) return {storage_dtype(*dtype, false), false};
  if (auto st = python_scalar_type(v, false)) return *st;
  if (is_array_like(v)) {
    auto t = type_of(v);
    return {t.dtype(), t.weak_type()};
  }
  I.raise("TypeError", fmt::format("full: fill_value must be a scalar or an array, got {}", I.type_name(v)));
}

Value full_impl(Interp& I, const std::string& name, const Shape& shape, const Value& fill_value, std::optional<DType> dtype,
                const OptOutSharding& out) {
  // A complex fill value is a (weak) complex scalar array, broadcast.
  const Value fill = interp::is_complex(fill_value) ? to_array(I, fill_value, std::nullopt, false) : fill_value;
  DTypeW dt = fill_dtype(I, fill, dtype);
  if (is_array_like(fill)) {
    OutMeshScope scope(out);
    return apply(I, name, {fill}, [&](Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{trace::broadcast_to(t, trace::convert(t, ids[0], dt), shape, out)};
    });
  }
  double v = float_arg(I, fill, "fill_value");
  return create(I, name, out, [&](Trace& t) { return trace::full(t, shape, v, dt, out); });
}

Value zeros_ones(Interp& I, CallArgs& a, const char* name, double value) {
  ArgParser p(I, a, name, {"shape", "dtype=", "device=", "*", "out_sharding="});
  Shape shape = shape_arg(I, p.get("shape"), name);
  auto dt = dtype_arg(I, p.get("dtype"));
  return full_impl(I, name, shape, interp::make_float(value), dt ? dt : types::default_float_dtype(), placement(I, p));
}

Value like_impl(Interp& I, CallArgs& a, const char* name, std::optional<double> value) {
  std::vector<std::string> sig = {"a"};
  if (!value) sig.push_back("fill_value");
  for (const char* s : {"dtype=", "shape=", "*", "device=", "out_sharding="}) sig.push_back(s);
  ArgParser p(I, a, name, sig);
  Value x = p.get("a");
  if (!is_array_like(x) && !python_scalar_type(x, false)) x = to_array(I, x, std::nullopt, false);
  auto dt = dtype_arg(I, p.get("dtype"));
  std::optional<Shape> shape;
  if (p.has("shape") && !is_none(p.get("shape"))) shape = shape_arg(I, p.get("shape"), name);
  OptOutSharding out = placement(I, p);
  Value fill = value ? interp::make_float(*value) : p.get("fill_value");
  if (interp::is_complex(fill)) fill = to_array(I, fill, std::nullopt, false);
  if (!is_array_like(x)) return full_impl(I, name, shape ? *shape : Shape{}, fill, dt ? dt : python_scalar_type(x, false)->dtype, out);
  auto xt = type_of(x);
  DType d = dt ? storage_dtype(*dt, false) : xt.dtype();
  if (!value && is_array_like(fill)) return full_impl(I, name, shape ? *shape : xt.shape(), fill, d, out);
  double fv = value ? *value : float_arg(I, fill, "fill_value");
  const bool weak = !dt && xt.weak_type();
  OutMeshScope scope(out);
  return apply(I, name, {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
    return std::vector<ValueId>{trace::full_like(t, name, ids[0], fv, {d, weak}, shape, out)};
  });
}

namespace {
// Python ints in nested lists/tuples: whether any float is there, and the first int outside
// int32's range.
void scan_python_numbers(Interp& I, const Value& v, bool& any_float, std::optional<int64_t>& wide) {
  if (!v) return;
  if (v->kind == ObjKind::Float) any_float = true;
  if (v->kind == ObjKind::Int && !wide) {
    const int64_t i = static_cast<interp::IntObj&>(*v).v;
    if (i > INT32_MAX || i < INT32_MIN) wide = i;
  }
  if (v->kind == ObjKind::List || v->kind == ObjKind::Tuple)
    for (auto& x : I.to_vector(v)) scan_python_numbers(I, x, any_float, wide);
}
}  // namespace

// jnp.array / jnp.asarray.
Value array_impl(Interp& I, CallArgs& a, bool copy_default) {
  ArgParser p(I, a, copy_default ? "array" : "asarray",
              {"object", "dtype=", "copy=", "order=", "ndmin=", "*", "device=", "out_sharding="});
  Value obj = p.get("object");
  auto dt = dtype_arg(I, p.get("dtype"));
  OptOutSharding out = placement(I, p);
  int64_t ndmin = p.has("ndmin") ? int_arg(I, p.get("ndmin"), "ndmin") : 0;
  // A list of devices (Haliax's documentation builds meshes with jnp.array(jax.devices())):
  // numpy's object array, which is what Mesh takes.
  if (!dt && obj && (obj->kind == ObjKind::List || obj->kind == ObjKind::Tuple))
    if (auto objects = object_array_from_python(I, obj)) return *objects;
  Value r;
  if (is_array_like(obj)) {
    r = dt ? op_astype(I, obj, storage_dtype(*dt, false)) : (copy_default ? op_astype(I, obj, type_of(obj).dtype()) : obj);
  } else if (obj && (obj->kind == ObjKind::List || obj->kind == ObjKind::Tuple) && [&] {
               for (auto& x : I.to_vector(obj))
                 if (as_tracer(x)) return true;
               return false;
             }()) {
    // A list holding traced values: stack them.
    std::vector<Value> items;
    for (auto& x : I.to_vector(obj)) items.push_back(x);
    r = apply(I, "array", items, [&](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{trace::stack(t, ids, 0)}; });
    if (dt) r = op_astype(I, r, storage_dtype(*dt, false));
  } else {
    // Python ints become int32 (x64 off): one that does not fit is JAX's OverflowError.
    // With x64 on they are int64, which holds every int shard's host ints can hold.
    bool any_float = false;
    std::optional<int64_t> wide;
    scan_python_numbers(I, obj, any_float, wide);
    if (wide && !any_float && !types::x64_enabled() && (!dt || *dt == DType::I32 || *dt == DType::I64))
      I.raise("OverflowError", fmt::format("Python int {} too large to convert to int32", *wide));
    r = to_array(I, obj, dt, false);
  }
  if (ndmin > 0) {
    auto t = type_of(r);
    if (static_cast<int64_t>(t.rank()) < ndmin) {
      Shape s(static_cast<size_t>(ndmin) - t.rank(), 1);
      s.insert(s.end(), t.shape().begin(), t.shape().end());
      r = op_reshape(I, r, s, std::nullopt);
    }
  }
  return place(I, r, out, p.has("out_sharding") && !is_none(p.get("out_sharding")) ? p.get("out_sharding") : p.get("device"));
}

// numpy.arange's fill as JAX runs it (np.arange with the canonical dtype): the first two
// values in double, the rest start + i*delta in the target precision.
Value arange_host(Interp& I, double start, double step, int64_t n, DType dt, bool ints) {
  std::vector<Value> items;
  items.reserve(static_cast<size_t>(n));
  if (ints) {
    for (int64_t i = 0; i < n; ++i) items.push_back(interp::make_int(static_cast<int64_t>(start) + i * static_cast<int64_t>(step)));
  } else if (dt == DType::F32) {
    float s0 = static_cast<float>(start);
    float s1 = static_cast<float>(start + step);
    float delta = s1 - s0;
    for (int64_t i = 0; i < n; ++i) {
      float v = i == 0 ? s0 : i == 1 ? s1 : s0 + static_cast<float>(i) * delta;
      items.push_back(interp::make_float(v));
    }
  } else {
    double delta = (start + step) - start;
    for (int64_t i = 0; i < n; ++i) items.push_back(interp::make_float(i == 0 ? start : start + static_cast<double>(i) * delta));
  }
  return guarded(I, [&] {
    auto h = host_array_from_python(I, interp::make_list(std::move(items)), ints ? DType::I64 : DType::F64);
    if (n == 0) h = host_array_from_python(I, interp::make_list({}), DType::F64);
    return wrap(to_device(h, dt, std::nullopt), false);
  });
}

Value arange(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "arange", {"start", "stop=", "step=", "dtype=", "*", "device=", "out_sharding="});
  Value vstart = p.get("start"), vstop = p.get("stop"), vstep = p.get("step");
  bool any_float = false;
  for (auto& v : {vstart, vstop, vstep}) {
    if (is_none(v)) continue;
    if (v->kind == ObjKind::Float) any_float = true;
    else if (auto* arr = as_array(v); arr && types::is_float(arr->array->type.dtype())) any_float = true;
    else if (as_tracer(v)) raise_concretization(I, v, "arange");
  }
  double start = float_arg(I, vstart, "start"), stop = 0, step = 1;
  if (is_none(vstop)) {
    stop = start;
    start = 0;
  } else {
    stop = float_arg(I, vstop, "stop");
  }
  if (!is_none(vstep)) step = float_arg(I, vstep, "step");
  if (step == 0) I.raise("ZeroDivisionError", "division by zero");
  auto req = dtype_arg(I, p.get("dtype"));
  DType dt = req ? storage_dtype(*req, false) : any_float ? types::default_float_dtype() : types::default_int_dtype();
  // Checked as a double first: a huge or infinite count must not reach the int64 conversion.
  double count = std::ceil((stop - start) / step);
  if (std::isnan(count) || count > static_cast<double>(int64_t{1} << 31)) I.raise("ValueError", "Maximum allowed size exceeded");
  int64_t n = count > 0 ? static_cast<int64_t>(count) : 0;
  OptOutSharding out = placement(I, p);
  const bool ints = !any_float && types::is_int(dt);
  if (out)
    return create(I, "arange", out, [&](Trace& t) { return trace::arange(t, start, stop, step, {dt, false}, out); });
  if (!ints && !types::is_float(dt)) {
    Value r = arange_host(I, start, step, n, types::default_float_dtype(), false);
    return op_astype(I, r, dt);
  }
  return arange_host(I, start, step, n, dt, ints);
}

// JAX's linspace: start*(1-s) + stop*s with s = i/div in the computation dtype.
Value linspace(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "linspace",
              {"start", "stop", "num=", "endpoint=", "retstep=", "dtype=", "axis=", "*", "device=", "out_sharding="});
  double start = float_arg(I, p.get("start"), "start"), stop = float_arg(I, p.get("stop"), "stop");
  int64_t num = p.has("num") ? int_arg(I, p.get("num"), "num") : 50;
  bool endpoint = !p.has("endpoint") || I.truthy(p.get("endpoint"));
  bool retstep = p.has("retstep") && I.truthy(p.get("retstep"));
  if (num < 0) I.raise("ValueError", fmt::format("Number of samples, {}, must be non-negative.", num));
  guarded(I, [&] { trace::check_fits_memory(types::ArrayType(types::default_float_dtype(), {num})); });
  auto req = dtype_arg(I, p.get("dtype"));
  // Computed in the default float dtype (float64 with x64 on), then cast as JAX does.
  const DType work = types::default_float_dtype();
  DType dt = req ? storage_dtype(*req, false) : work;
  OptOutSharding out = placement(I, p);
  const int64_t div = endpoint ? num - 1 : num;
  Value r;
  if (out) {
    r = create(I, "linspace", out, [&](Trace& t) { return trace::linspace(t, start, stop, num, endpoint, {work, false}, out); });
  } else {
    std::vector<Value> items;
    auto fill = [&](auto fs, auto fe) {
      using F = decltype(fs);
      for (int64_t i = 0; i < num; ++i) {
        F v;
        if (endpoint && i == num - 1 && num > 1) v = fe;
        else if (div <= 0) v = fs;
        else {
          F s = static_cast<F>(i) / static_cast<F>(div);
          v = fs * (F(1) - s) + fe * s;
        }
        items.push_back(interp::make_float(v));
      }
    };
    if (work == DType::F64) fill(start, stop);
    else fill(static_cast<float>(start), static_cast<float>(stop));
    r = guarded(I, [&] { return wrap(to_device(host_array_from_python(I, interp::make_list(std::move(items)), DType::F64), work, std::nullopt), false); });
  }
  if (dt != work) r = op_astype(I, r, dt);
  if (retstep) {
    double stepv = div > 0 ? (stop - start) / static_cast<double>(div) : std::nan("");
    return interp::make_tuple({r, to_array(I, interp::make_float(stepv), work, false)});
  }
  return r;
}

Value eye(Interp& I, CallArgs& a) {
  ArgParser p(I, a, "eye", {"N", "M=", "k=", "dtype=", "*", "device=", "out_sharding="});
  int64_t n = int_arg(I, p.get("N"), "N");
  int64_t m = is_none(p.get("M")) ? n : int_arg(I, p.get("M"), "M");
  int64_t k = p.has("k") ? int_arg(I, p.get("k"), "k") : 0;
  if (n < 0 || m < 0) I.raise("ValueError", "negative dimensions are not allowed");
  auto req = dtype_arg(I, p.get("dtype"));
  DType dt = req ? storage_dtype(*req, false) : types::default_float_dtype();
  OptOutSharding out = placement(I, p);
  return create(I, "eye", out, [&](Trace& t) { return trace::eye(t, n, m, k, {dt, false}, out); });
}

}  // namespace

namespace {

using CreationFn = Value (*)(Interp&, CallArgs&);

// device=NamedSharding naming Auto (or Manual) axes outside a trace: the rules take only
// Explicit axes in a creation's out_sharding, but JAX builds such an array from a callback
// over the sharding's devices (lax.full's concrete-sharding path). Here: the array is made
// unplaced, then jax.device_put to that sharding.
Value created_on_device(Interp& I, CallArgs& a, CreationFn make) {
  size_t at = a.kwargs.size();
  for (size_t k = 0; k < a.kwargs.size(); ++k)
    if (a.kwargs[k].first == "device") at = k;
  if (at == a.kwargs.size() || trace::current_trace()) return make(I, a);
  const Value device = a.kwargs[at].second;
  const auto* s = as_sharding(device);
  if (!s || !s->named || !s->named->is_concrete()) return make(I, a);
  const auto& mesh = s->named->abstract_mesh();
  bool non_explicit = false;
  for (const auto& e : s->named->spec().entries())
    for (const auto& ax : e)
      if (mesh.has_axis(ax) && mesh.axis_type(ax) != types::AxisType::Explicit) non_explicit = true;
  if (!non_explicit) return make(I, a);
  CallArgs unplaced = a;
  unplaced.kwargs.erase(unplaced.kwargs.begin() + static_cast<std::ptrdiff_t>(at));
  Value made = make(I, unplaced);
  Value jax = I.import_module("jax", I.current_loc());
  return I.call(I.getattr(jax, "device_put"), std::vector<Value>{made, device});
}

template <CreationFn F>
Value placed(Interp& I, CallArgs& a) {
  return created_on_device(I, a, F);
}

Value zeros(Interp& I, CallArgs& a) { return zeros_ones(I, a, "zeros", 0); }
Value empty(Interp& I, CallArgs& a) { return zeros_ones(I, a, "empty", 0); }
Value ones(Interp& I, CallArgs& a) { return zeros_ones(I, a, "ones", 1); }

}  // namespace

void add_jnp_creation(Interp&, ModuleObj& m) {
  def_jnp(m, "zeros", placed<zeros>);
  def_jnp(m, "empty", placed<empty>);
  def_jnp(m, "ones", placed<ones>);
  def_jnp(m, "full", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "full", {"shape", "fill_value", "dtype=", "*", "device=", "out_sharding="});
    return full_impl(I, "full", shape_arg(I, p.get("shape"), "full"), p.get("fill_value"), dtype_arg(I, p.get("dtype")),
                     placement(I, p));
  });
  def_jnp(m, "zeros_like", [](Interp& I, CallArgs& a) { return like_impl(I, a, "zeros_like", 0.0); });
  def_jnp(m, "empty_like", [](Interp& I, CallArgs& a) { return like_impl(I, a, "empty_like", 0.0); });
  def_jnp(m, "ones_like", [](Interp& I, CallArgs& a) { return like_impl(I, a, "ones_like", 1.0); });
  def_jnp(m, "full_like", [](Interp& I, CallArgs& a) { return like_impl(I, a, "full_like", std::nullopt); });
  def_jnp(m, "array", [](Interp& I, CallArgs& a) { return array_impl(I, a, true); });
  def_jnp(m, "asarray", [](Interp& I, CallArgs& a) { return array_impl(I, a, false); });
  def_jnp(m, "arange", placed<arange>);
  def_jnp(m, "linspace", placed<linspace>);
  def_jnp(m, "eye", placed<eye>);
  def_jnp(m, "identity", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "identity", {"n", "dtype="});
    CallArgs b;
    b.args = {p.get("n")};
    if (p.has("dtype")) b.kwargs.push_back({"dtype", p.get("dtype")});
    return eye(I, b);
  });
}

}  // namespace shard::api
