#include "api/objects/array_value.hpp"

#include "api/device_count.hpp"
#include "api/objects/array_placement_specs.hpp"
#include "api/transforms/shard_map_eager.hpp"

#include <fmt/format.h>

#include <cstring>

#include "exec/run_global.hpp"
#include "interp/builtins/support.hpp"
#include "interp/complex_value.hpp"
#include "runtime/device_runtime.hpp"
#include "runtime/process_layout.hpp"
#include "runtime/rendezvous.hpp"
#include "trace/trace.hpp"
#include "types/element_io.hpp"
#include "types/half_float.hpp"
#include "types/x64_mode.hpp"

namespace shard::api {

using interp::ObjKind;
using types::DType;

ClassP array_class() {
  static ClassP c = [] {
    auto k = interp::make_class("ArrayImpl", {interp::T().object}, "jaxlib.xla_extension");
    return k;
  }();
  return c;
}
ClassP ndarray_class() {
  static ClassP c = interp::make_class("ndarray", {interp::T().object}, "numpy");
  return c;
}
ClassP core_tracer_class() {
  static ClassP c = interp::make_class("Tracer", {interp::T().object}, "jax.core");
  return c;
}

ClassP tracer_class() {
  static ClassP c = interp::make_class("DynamicJaxprTracer", {core_tracer_class()}, "jax._src.interpreters.partial_eval");
  return c;
}

Value wrap(exec::ArrayRef a, bool host) { return std::make_shared<ArrayObj>(host ? ndarray_class() : array_class(), std::move(a), host); }
Value wrap_tracer(std::shared_ptr<trace::Trace> t, ir::ValueId v) { return std::make_shared<TracerObj>(tracer_class(), std::move(t), v); }

ArrayObj* as_array(const Value& v) {
  if (!v || v->kind != ObjKind::Native) return nullptr;
  return dynamic_cast<ArrayObj*>(v.get());
}
TracerObj* as_tracer(const Value& v) {
  if (!v || v->kind != ObjKind::Native) return nullptr;
  return dynamic_cast<TracerObj*>(v.get());
}
bool is_array_like(const Value& v) { return as_array(v) || as_tracer(v); }

types::ArrayType type_of(const Value& v) {
  if (auto* a = as_array(v)) return a->array->type;
  if (auto* t = as_tracer(v)) return t->type();
  throw std::logic_error("internal error: type_of a non-array");
}

std::optional<trace::DTypeW> python_scalar_type(const Value& v, bool host) {
  if (!v) return std::nullopt;
  switch (v->kind) {
    case ObjKind::Bool: return trace::DTypeW{DType::Bool, false};
    case ObjKind::Int: return trace::DTypeW{host ? DType::I64 : types::default_int_dtype(), true};
    case ObjKind::Float: return trace::DTypeW{host ? DType::F64 : types::default_float_dtype(), true};
    default:
      if (interp::is_complex(v)) return trace::DTypeW{host ? DType::C128 : types::complex_of(types::default_float_dtype()), true};
      return std::nullopt;
  }
}

namespace {

// A Python number as a weak constant. An int outside int32's range is kept exactly as a weak
// int64 (still JAX's weak int for promotion): converting it to a narrower integer type raises
// JAX's OverflowError (trace::convert), converting it to a float keeps its value.
ir::ValueId python_scalar_constant(trace::Trace& t, const Value& v, bool host) {
  auto st = *python_scalar_type(v, host);
  if (v->kind == interp::ObjKind::Int) {
    const int64_t i = static_cast<interp::IntObj&>(*v).v;
    if (!host && (i > INT32_MAX || i < INT32_MIN)) st = {DType::I64, true};
    uint8_t buf[8];
    types::store_int_element(st.dtype, i, buf);
    return trace::constant(t, st.dtype, {}, buf, st.weak);
  }
  if (interp::is_complex(v)) {
    const auto z = interp::complex_of(v);
    return trace::complex_constant(t, z.real(), z.imag(), st);
  }
  const double x = v->kind == interp::ObjKind::Float ? static_cast<interp::FloatObj&>(*v).v : (static_cast<interp::BoolObj&>(*v).v ? 1.0 : 0.0);
  return trace::scalar_constant(t, x, st);
}

// Writes double `v` as `dt` at `dst` (a complex dtype gets a zero imaginary part).
void store_as(DType dt, double v, uint8_t* dst) {
  switch (dt) {
    case DType::C64: { float x[2] = {static_cast<float>(v), 0.0f}; std::memcpy(dst, x, 8); break; }
    case DType::C128: { double x[2] = {v, 0.0}; std::memcpy(dst, x, 16); break; }
    case DType::F32: { float x = static_cast<float>(v); std::memcpy(dst, &x, 4); break; }
    case DType::F64: std::memcpy(dst, &v, 8); break;
    case DType::I32: case DType::I64: case DType::U8: case DType::U16: case DType::U32:
      types::store_int_element(dt, types::double_to_int64(v), dst);  // through int64, wrapping
      break;
    case DType::Bool: *dst = v != 0; break;
    case DType::F16: case DType::BF16: {  // as numpy / ml_dtypes round a double (types/half_float.hpp)
      const uint16_t h = types::round_to_half(v, dt);
      std::memcpy(dst, &h, 2);
      break;
    }
  }
}
// The value at `src` as a double (a complex value's real part, as numpy's cast drops the
// imaginary part).
double load_as(DType dt, const uint8_t* src) {
  switch (dt) {
    case DType::C64: { float x; std::memcpy(&x, src, 4); return x; }
    case DType::C128: { double x; std::memcpy(&x, src, 8); return x; }
    case DType::F32: { float x; std::memcpy(&x, src, 4); return x; }
    case DType::F64: { double x; std::memcpy(&x, src, 8); return x; }
    case DType::I32: case DType::I64: case DType::U8: case DType::U16: case DType::U32:
      return static_cast<double>(types::load_int_element(dt, src));
    case DType::Bool: return *src ? 1 : 0;
    case DType::F16: case DType::BF16: { uint16_t h; std::memcpy(&h, src, 2); return types::half_to_float(h, dt); }
  }
  return 0;
}

// Converts row-major data between dtypes on the host (what numpy.asarray(x, dtype) does
// before a transfer). Integer <-> integer goes through int64 exactly (wrapping).
std::vector<uint8_t> convert_host(const std::vector<uint8_t>& in, DType from, DType to) {
  if (from == to) return in;
  const size_t n = in.size() / types::dtype_size(from);
  std::vector<uint8_t> out(n * types::dtype_size(to));
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* s = in.data() + i * types::dtype_size(from);
    uint8_t* d = out.data() + i * types::dtype_size(to);
    if (types::is_int(from) && types::is_int(to)) {
      types::store_int_element(to, types::load_int_element(from, s), d);
    } else if (types::is_complex(from) && types::is_complex(to)) {  // each part converted
      const DType pf = types::complex_part_dtype(from), pt = types::complex_part_dtype(to);
      store_as(pt, load_as(pf, s), d);
      store_as(pt, load_as(pf, s + types::dtype_size(pf)), d + types::dtype_size(pt));
    } else if (types::is_complex(from) && to == DType::Bool) {  // nonzero when either part is
      const DType pf = types::complex_part_dtype(from);
      *d = load_as(pf, s) != 0 || load_as(pf, s + types::dtype_size(pf)) != 0;
    } else {
      store_as(to, load_as(from, s), d);
    }
  }
  return out;
}

struct Collected {
  types::Shape shape;
  std::vector<Value> leaves;
  bool has_float = false, has_int = false, has_bool = false, has_complex = false;
  std::optional<DType> array_dtype;
};

void collect(Interp& I, const Value& v, size_t depth, Collected& c) {
  auto* a = as_array(v);
  if (a) {
    // Arrays inside lists contribute their elements.
    auto bytes = exec::array_to_host(*a->array);
    const auto& shape = a->array->type.shape();
    if (depth == c.shape.size()) c.shape.insert(c.shape.end(), shape.begin(), shape.end());
    DType dt = a->array->type.dtype();
    c.array_dtype = dt;
    const size_t n = static_cast<size_t>(types::shape_product(shape));
    for (size_t i = 0; i < n; ++i) {
      const uint8_t* p = bytes.data() + i * types::dtype_size(dt);
      if (types::is_complex(dt)) {
        const DType part = types::complex_part_dtype(dt);
        c.leaves.push_back(interp::make_complex(load_as(part, p), load_as(part, p + types::dtype_size(part))));
        continue;
      }
      c.leaves.push_back(types::is_float(dt) ? interp::make_float(load_as(dt, p))
                         : dt == DType::Bool ? interp::make_bool(*p != 0)
                                             : interp::make_int(types::load_int_element(dt, p)));
    }
    (types::is_complex(dt) ? c.has_complex : types::is_float(dt) ? c.has_float : dt == DType::Bool ? c.has_bool : c.has_int) = true;
    return;
  }
  if (v->kind == ObjKind::List || v->kind == ObjKind::Tuple) {
    const auto& items = v->kind == ObjKind::List ? static_cast<interp::ListObj&>(*v).items : static_cast<interp::TupleObj&>(*v).items;
    if (depth == c.shape.size()) c.shape.push_back(static_cast<int64_t>(items.size()));
    else if (depth > c.shape.size() || c.shape[depth] != static_cast<int64_t>(items.size()))
      I.raise("ValueError", fmt::format("setting an array element with a sequence. The requested array has an inhomogeneous "
                                        "shape after {} dimensions. The detected shape was {} + inhomogeneous part.",
                                        depth, types::py_int_tuple(types::Shape(c.shape.begin(), c.shape.begin() + depth))));
    for (auto& item : items) collect(I, item, depth + 1, c);
    return;
  }
  if (depth < c.shape.size())
    I.raise("ValueError", fmt::format("setting an array element with a sequence. The requested array has an inhomogeneous "
                                      "shape after {} dimensions. The detected shape was {} + inhomogeneous part.",
                                      depth, types::py_int_tuple(types::Shape(c.shape.begin(), c.shape.begin() + depth))));
  switch (v->kind) {
    case ObjKind::Bool: c.has_bool = true; break;
    case ObjKind::Int: c.has_int = true; break;
    case ObjKind::Float: c.has_float = true; break;
    default:
      if (interp::is_complex(v)) {
        c.has_complex = true;
        break;
      }
      I.raise("TypeError", fmt::format("Cannot interpret '{}' as a data type: only numbers, bools, lists and arrays can be "
                                       "converted to arrays", I.repr(v)));
  }
  c.leaves.push_back(v);
}

}  // namespace

exec::ArrayRef host_array_from_python(Interp& I, const Value& data, std::optional<DType> dtype) {
  Collected c;
  collect(I, data, 0, c);
  DType dt = dtype ? *dtype
             : c.has_complex ? (c.array_dtype && types::is_complex(*c.array_dtype) && !c.has_float ? *c.array_dtype : DType::C128)
             : c.array_dtype && !(c.has_float && !types::is_float(*c.array_dtype)) ? *c.array_dtype
             : c.has_float ? DType::F64 : c.has_int ? DType::I64 : c.has_bool ? DType::Bool : DType::F64;
  std::vector<uint8_t> bytes(c.leaves.size() * types::dtype_size(dt));
  for (size_t i = 0; i < c.leaves.size(); ++i) {
    const Value& v = c.leaves[i];
    uint8_t* d = bytes.data() + i * types::dtype_size(dt);
    if (interp::is_complex(v)) {
      const auto z = interp::complex_of(v);
      if (types::is_complex(dt)) {
        const DType part = types::complex_part_dtype(dt);
        store_as(part, z.real(), d);
        store_as(part, z.imag(), d + types::dtype_size(part));
      } else if (dt == DType::Bool) {
        *d = z != std::complex<double>(0, 0);
      } else {
        store_as(dt, z.real(), d);  // numpy: the imaginary part is discarded
      }
    } else if (v->kind == ObjKind::Int && types::is_int(dt)) {
      types::store_int_element(dt, static_cast<interp::IntObj&>(*v).v, d);
    } else {
      double x = v->kind == ObjKind::Float ? static_cast<interp::FloatObj&>(*v).v
               : v->kind == ObjKind::Int ? static_cast<double>(static_cast<interp::IntObj&>(*v).v)
                                         : (static_cast<interp::BoolObj&>(*v).v ? 1.0 : 0.0);
      store_as(dt, x, d);
    }
  }
  types::ArrayType t(dt, c.shape);
  auto mesh = exec::single_device_mesh();
  return exec::array_from_host(bytes.data(), t, types::NamedSharding(mesh, types::PartitionSpec()), true);
}

exec::ArrayRef host_astype(const exec::ArrayRef& host, DType dtype) {
  if (host->type.dtype() == dtype) return host;
  auto bytes = convert_host(exec::array_to_host(*host), host->type.dtype(), dtype);
  types::ArrayType t(dtype, host->type.shape());
  return exec::array_from_host(bytes.data(), t, types::NamedSharding(exec::single_device_mesh(), types::PartitionSpec()), true);
}

exec::ArrayRef to_device(const exec::ArrayRef& host, std::optional<DType> dtype, const std::optional<types::NamedSharding>& sharding,
                         bool weak) {
  ensure_device_runtime();
  DType from = host->type.dtype();
  DType to = trace::canonicalize_device(dtype ? *dtype : from);
  if (from == to && host->single_device) {  // no conversion: place the host buffer itself
    if (sharding)
      return exec::place_single_device(host, types::ArrayType::from_sharding(to, host->type.shape(), *sharding, {}, weak), *sharding);
    types::ArrayType t(to, host->type.shape(), {}, {}, {}, weak);
    return std::make_shared<exec::Array>(exec::Array{t, host->sharding, true, host->shards});
  }
  auto bytes = convert_host(exec::array_to_host(*host), from, to);
  if (sharding) {
    auto t = types::ArrayType::from_sharding(to, host->type.shape(), *sharding, {}, weak);
    return exec::array_from_host(bytes.data(), t, *sharding, false);
  }
  auto mesh = exec::single_device_mesh();
  types::ArrayType t(to, host->type.shape(), {}, {}, {}, weak);
  return exec::array_from_host(bytes.data(), t, types::NamedSharding(mesh, types::PartitionSpec()), true);
}

[[noreturn]] void raise_array_error(Interp& I, const std::exception& e) {
  if (auto* se = dynamic_cast<const types::ShardingError*>(&e)) {
    if (se->py_type() == "ShardingTypeError") {
      auto cls = I.builtin_class("TypeError");
      // jax's core.ShardingTypeError is a TypeError; shown by its own name.
      static ClassP sharding_type_error = interp::make_class("ShardingTypeError", {I.builtin_class("TypeError")}, "jax._src.core");
      (void)cls;
      CallArgs args;
      args.args.push_back(interp::make_str(se->what()));
      throw interp::PyError{I.call(sharding_type_error, args)};
    }
    I.raise(se->py_type(), se->what());
  }
  if (dynamic_cast<const runtime::Interrupted*>(&e)) {  // Ctrl-C stopped the devices
    runtime::clear_cancel();
    I.clear_interrupt();
    I.raise("KeyboardInterrupt", "");
  }
  if (dynamic_cast<const runtime::CollectiveError*>(&e)) I.raise("RuntimeError", e.what());
  if (dynamic_cast<const exec::IncompatibleDevices*>(&e)) I.raise("ValueError", e.what());
  if (dynamic_cast<const std::logic_error*>(&e)) I.raise("RuntimeError", fmt::format("internal error in shard: {}", e.what()));
  I.raise("RuntimeError", e.what());
}

namespace {
// Eager ops run compiled programs from a cache keyed by the program's structure. A Python number
// recorded as a literal would make `x + i` a new program for every i (and the cache grow without
// bound in a loop); so, once the trace is recorded (trace-time rules such as x ** 2 -> integer_pow
// have seen the value), every weak scalar literal becomes an argument: JAX passes Python scalars
// to its eager primitives as weakly-typed arguments too.
void hoist_scalar_constants(ir::Function& fn, std::vector<exec::ArrayRef>& inputs) {
  std::vector<ir::Op> kept;
  kept.reserve(fn.ops.size());
  for (auto& op : fn.ops) {
    const auto* c = std::get_if<ir::attr::Constant>(&op.attrs);
    const auto& type = op.kind == ir::OpKind::Constant && !op.results.empty() ? fn.type(op.results[0]) : types::ArrayType();
    if (!c || !c->literal || type.rank() != 0 || !type.weak_type()) {
      kept.push_back(std::move(op));
      continue;
    }
    const auto& bytes = c->literal->bytes;
    auto buf = runtime::DeviceBuffer::allocate(runtime::default_device(), bytes.size());
    std::memcpy(buf->data(), bytes.data(), bytes.size());
    types::ArrayType at(type.dtype(), {}, {}, {}, {}, true);
    inputs.push_back(std::make_shared<exec::Array>(
        exec::Array{at, types::NamedSharding(exec::single_device_mesh(), types::PartitionSpec()), true, {std::move(buf)}}));
    fn.params.push_back(op.results[0]);
  }
  fn.ops = std::move(kept);
}
}  // namespace

std::vector<Value> apply_multi(Interp& I, const std::string& name, const std::vector<Value>& operands, const OpBody& body) {
  // Values of an eager shard_map body closed over by a function traced inside one of its ops.
  if (auto imported = EagerShardMap::import_closed_over(I, operands)) return apply_multi(I, name, *imported, body);
  return guarded(I, [&]() -> std::vector<Value> {
    ensure_device_runtime();  // the first device use decides the device count (XLA_FLAGS...)
    std::shared_ptr<trace::Trace> active = trace::current_trace();  // the trace being recorded, if any
    bool any_device = false, any_host = false;
    for (auto& v : operands) {
      if (auto* t = as_tracer(v)) active = trace::innermost(active, t->trace);
      if (auto* a = as_array(v)) (a->host ? any_host : any_device) = true;
    }
    // Inside an eager shard_map body (shard_map_eager.hpp) the op runs now, on every block.
    if (active)
      if (auto* eager = EagerShardMap::of(*active)) return eager->apply(I, name, operands, body);
    const bool host = !active && any_host && !any_device;
    if (active) {
      active->set_loc(I.current_loc());
      std::vector<ir::ValueId> ids;
      for (auto& v : operands) {
        if (auto* t = as_tracer(v)) ids.push_back(active->lift(*t->trace, t->id));  // outer values enter as captures
        else if (auto* a = as_array(v)) {
          auto bytes = exec::constant_bytes(*a->array);
          DType dt = trace::canonicalize_device(a->array->type.dtype());
          auto conv = convert_host(bytes, a->array->type.dtype(), dt);
          // A concrete array on the trace's mesh keeps its sharding in the constant's type.
          sharding::OptOutSharding sh;
          if (a->array->type.is_sharded() && a->array->type.mesh() == active->mesh()) sh = a->array->type.spec();
          ids.push_back(trace::constant(*active, dt, a->array->type.shape(), conv.data(), a->array->type.weak_type(), sh));
        } else if (python_scalar_type(v, false)) {
          ids.push_back(python_scalar_constant(*active, v, false));
        } else {
          I.raise("TypeError", fmt::format("{} requires ndarray or scalar arguments, got {} at position {}.", name,
                                           I.type_name(v), ids.size()));
        }
      }
      std::vector<Value> out;
      for (auto id : body(*active, ids)) out.push_back(wrap_tracer(active, id));
      return out;
    }
    auto& ctx = trace::MeshContext::get();
    auto owned = std::make_shared<trace::Trace>(name, host ? types::AbstractMesh() : ctx.abstract());  // regions link to it
    trace::Trace& t = *owned;
    t.set_loc(I.current_loc());
    std::vector<ir::ValueId> ids;
    std::vector<exec::ArrayRef> inputs;
    std::vector<std::string> input_names;  // args[i]: the operand each input is, for errors
    for (auto& v : operands) {
      if (auto* a = as_array(v)) {
        exec::ArrayRef arr = a->array;
        if (a->host && !host) arr = to_device(arr, std::nullopt, std::nullopt);  // numpy operand of a jax op
        input_names.push_back(fmt::format("args[{}]", ids.size()));
        inputs.push_back(arr);
        ids.push_back(t.param(arr->type));
      } else if (python_scalar_type(v, host)) {
        ids.push_back(python_scalar_constant(t, v, host));
      } else {
        I.raise("TypeError", fmt::format("{} requires ndarray or scalar arguments, got {} at position {}.", name,
                                         I.type_name(v), ids.size()));
      }
    }
    auto results = body(t, ids);
    auto fn = t.finish(results);
    hoist_scalar_constants(fn, inputs);
    exec::GlobalRun run;
    try {
      run = exec::run_global(fn, inputs, host ? std::nullopt : ctx.concrete());
    } catch (const exec::IncompatibleDevices& e) {  // JAX names an eager primitive's operands args[i]
      throw types::ShardingError("ValueError", exec::incompatible_devices_message(e, inputs, input_names, name));
    }
    if (!host) report_output_specs(run.outputs, first_committed_sharding(inputs));  // JAX's x.sharding.spec
    std::vector<Value> out;
    for (auto& r : run.outputs) out.push_back(wrap(r, host));
    return out;
  });
}

Value apply(Interp& I, const std::string& name, const std::vector<Value>& operands, const OpBody& body) {
  auto out = apply_multi(I, name, operands, body);
  return out.at(0);
}

}  // namespace shard::api
