// The `jax` module's placement API (devices, typeof, device_put, make_mesh, ...) and the
// submodules jax.sharding, jax.experimental(.shard) and a minimal jax.debug.
#include <fmt/format.h>

#include "api/device_count.hpp"
#include "api/modules/debug_print.hpp"
#include "api/modules/registration.hpp"
#include "api/modules/visualize.hpp"
#include "api/objects/array_placement_specs.hpp"
#include "api/objects/array_value.hpp"
#include "api/objects/sharding_objects.hpp"
#include "api/transforms/axis_type_scopes.hpp"
#include "api/transforms/jit.hpp"
#include "api/transforms/shard_map.hpp"
#include "api/transforms/vmap.hpp"
#include "api/transforms/grad.hpp"
#include "api/transforms/custom_derivatives.hpp"
#include "api/transforms/checkpoint.hpp"
#include "api/transforms/eval_shape.hpp"
#include "api/modules/global_arrays.hpp"
#include "api/modules/jax_config.hpp"
#include "types/jax_version.hpp"
#include "exec/run_global.hpp"
#include "interp/builtins/support.hpp"
#include "runtime/device_runtime.hpp"
#include "trace/trace.hpp"

namespace shard::api {

using interp::CallArgs;
using interp::ModuleObj;
using interp::ObjKind;
namespace bi = interp::bi;

namespace {


void add(ModuleObj& m, const std::string& name, interp::NativeFn fn) { m.dict.set(name, interp::make_builtin(name, std::move(fn))); }

std::vector<int> all_device_ids() {
  std::vector<int> ids(static_cast<size_t>(device_count()));
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int>(i);
  return ids;
}

// ---- placement ------------------------------------------------------------------------------

// Where device_put puts a leaf.
struct Target {
  enum Kind { Default, Device, Named } kind = Default;
  int device = 0;
  std::optional<types::NamedSharding> named;  // concrete
};

Target target_of(Interp& I, const Value& v) {
  Target t;
  if (!v || v->kind == ObjKind::None) return t;
  if (auto id = device_id_of(v)) {
    t.kind = Target::Device;
    t.device = *id;
    return t;
  }
  if (auto* s = as_sharding(v)) {
    if (!s->named) {
      t.kind = Target::Device;
      t.device = s->device;
      return t;
    }
    if (!s->named->is_concrete())
      I.raise("ValueError", fmt::format("device_put needs a NamedSharding over a concrete jax.sharding.Mesh, got {}", s->named->repr()));
    t.kind = Target::Named;
    t.named = s->named;
    return t;
  }
  if (auto p = spec_of(v)) {
    auto& ctx = trace::MeshContext::get();
    auto concrete = ctx.concrete();
    guarded(I, [&] {
      // The error for a PartitionSpec without a mesh in context.
      sharding::resolve_out_sharding(sharding::RuleContext{ctx.abstract(), "device_put"}, *p, "device_put", true);
      if (!concrete) throw types::ShardingError("ValueError", "device_put of a PartitionSpec needs a concrete mesh in context (`jax.sharding.use_mesh(mesh)`)");
      t.named.emplace(concrete->with_axis_types(ctx.abstract().axis_types()), *p);
    });
    t.kind = Target::Named;
    return t;
  }
  I.raise("TypeError", fmt::format("device_put: the destination must be a Device, a Sharding or a PartitionSpec, got {}", I.repr(v)));
}

// JAX's device_put checks (pjit_check_aval_sharding with what_aval="device_put args").
void check_device_put(const types::NamedSharding& ns, const types::Shape& shape) {
  try {
    ns.check_rank(shape.size());
  } catch (const types::ShardingError& e) {
    throw types::ShardingError("ValueError", fmt::format("One of device_put args is incompatible with its sharding annotation {}: {}", ns.repr(), e.what()));
  }
  auto parts = ns.dim_partitions(shape.size());
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] % parts[d] != 0)
      throw types::ShardingError(
          "ValueError", fmt::format("One of device_put args was given the sharding of {}, which implies that the global size of its dimension {} "
                                    "should be divisible by {}, but it is equal to {} (full shape: {})",
                                    ns.repr(), d, parts[d], shape[d], types::py_int_tuple(shape)));
}

exec::ArrayRef place_host(const exec::ArrayRef& host, const Target& t, bool weak) {
  switch (t.kind) {
    case Target::Default: return to_device(host, std::nullopt, std::nullopt, weak);
    case Target::Named: return to_device(host, std::nullopt, t.named, weak);
    case Target::Device: {
      auto dev = to_device(host, std::nullopt, std::nullopt, weak);
      if (t.device == 0) return dev;
      types::ArrayType ty(dev->type.dtype(), dev->type.shape(), {}, {}, {}, weak);
      return exec::reshard_array(dev, exec::single_device_mesh(t.device), types::PartitionSpec(), ty, true);
    }
  }
  return host;
}

exec::ArrayRef place_device(const exec::ArrayRef& a, const Target& t) {
  switch (t.kind) {
    case Target::Default: return a;
    case Target::Device: {
      if (a->single_device && a->device_of(0) == t.device) return a;
      types::ArrayType ty(a->type.dtype(), a->type.shape(), {}, {}, {}, a->type.weak_type());
      return exec::reshard_array(a, exec::single_device_mesh(t.device), types::PartitionSpec(), ty, true);
    }
    case Target::Named: {
      const auto& ns = *t.named;
      check_device_put(ns, a->type.shape());
      auto spec = ns.spec().normalized(a->type.rank());
      // The result takes the sharding as given (JAX's _device_put_sharding_impl).
      if (!a->single_device && a->sharding.mesh() == ns.mesh() && a->sharding.spec().normalized(a->type.rank()) == spec)
        return with_reported_spec(a, ns.spec());
      auto ty = types::ArrayType::from_sharding(a->type.dtype(), a->type.shape(), ns, {}, a->type.weak_type());
      return with_reported_spec(exec::reshard_array(a, ns.mesh(), spec, ty, false), ns.spec());
    }
  }
  return a;
}

Value device_put_leaf(Interp& I, const Value& x, const Value& dest) {
  if (x->kind == ObjKind::None) return x;
  Target t = target_of(I, dest);
  if (as_tracer(x)) {
    // Under jit: a sharding constraint whose result type is device_put's.
    if (t.kind != Target::Named) return x;
    auto named = *t.named;
    return apply(I, "device_put", {x}, [named](trace::Trace& tc, const std::vector<ir::ValueId>& ids) {
      auto rt = sharding::propagate_device_put(tc.ctx("device_put"), tc.type(ids[0]), named);
      return std::vector<ir::ValueId>{trace::sharding_constraint(tc, ids[0], rt, named.spec())};
    });
  }
  return guarded(I, [&]() -> Value {
    ensure_device_runtime();
    if (auto* a = as_array(x)) {
      if (a->host) {
        if (t.kind == Target::Named) check_device_put(*t.named, a->array->type.shape());
        return wrap(place_host(a->array, t, false));
      }
      return wrap(place_device(a->array, t));
    }
    if (auto st = python_scalar_type(x, false)) {
      auto host = host_array_from_python(I, x, std::nullopt);
      if (t.kind == Target::Named) check_device_put(*t.named, host->type.shape());
      return wrap(place_host(host, t, st->weak));
    }
    if (as_object_array(x)) I.raise("TypeError", "device_put: arrays of Python objects cannot be placed on devices");
    I.raise("TypeError", fmt::format("Argument '{}' of type <class '{}'> is not a valid JAX type", I.str(x), bi::class_qualname(*x->cls)));
  });
}

bool is_pytree_node(const Value& v) {
  return v->kind == ObjKind::List || v->kind == ObjKind::Tuple || v->kind == ObjKind::Dict;
}

// device_put over a pytree: containers map their leaves; the destination may be one value
// for all leaves or a matching container (a pytree prefix, as JAX allows).
Value device_put_tree(Interp& I, const Value& x, const Value& dest, int depth) {
  if (depth > 200) I.raise("RecursionError", "maximum recursion depth exceeded in device_put");
  if (!is_pytree_node(x)) return device_put_leaf(I, x, dest);
  const bool dest_tree = dest && is_pytree_node(dest) && dest->kind == x->kind;
  if (x->kind == ObjKind::Dict) {
    auto out = interp::make_dict();
    for (auto& [k, v] : static_cast<interp::DictObj&>(*x).items()) {
      Value d = dest;
      if (dest_tree) {
        Value* f = static_cast<interp::DictObj&>(*dest).find(I, k);
        if (!f) I.raise("ValueError", "device_put: the destination tree does not match the argument's structure");
        d = *f;
      }
      out->set(I, k, device_put_tree(I, v, d, depth + 1));
    }
    return out;
  }
  const auto& items = x->kind == ObjKind::List ? static_cast<interp::ListObj&>(*x).items : static_cast<interp::TupleObj&>(*x).items;
  const std::vector<Value>* dests = nullptr;
  if (dest_tree) {
    dests = dest->kind == ObjKind::List ? &static_cast<interp::ListObj&>(*dest).items : &static_cast<interp::TupleObj&>(*dest).items;
    if (dests->size() != items.size()) I.raise("ValueError", "device_put: the destination tree does not match the argument's structure");
  }
  std::vector<Value> out;
  for (size_t i = 0; i < items.size(); ++i) out.push_back(device_put_tree(I, items[i], dests ? (*dests)[i] : dest, depth + 1));
  return x->kind == ObjKind::List ? interp::make_list(std::move(out)) : interp::make_tuple(std::move(out));
}

Value jax_device_put(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "device_put", {"x", "device=", "*", "src=", "donate=", "may_alias="});
  return device_put_tree(I, p.get("x"), p.get("device"), 0);
}

// ---- reshard --------------------------------------------------------------------------------

Value reshard_leaf(Interp& I, const Value& x, const sharding::OptOutSharding& target) {
  Value operand = x;
  if (auto* a = as_array(x); a && a->host) {
    operand = guarded(I, [&] { ensure_device_runtime(); return wrap(to_device(a->array, std::nullopt, std::nullopt)); });
  } else if (!as_array(x) && !as_tracer(x)) {
    auto st = python_scalar_type(x, false);
    operand = guarded(I, [&] {
      ensure_device_runtime();
      return wrap(to_device(host_array_from_python(I, x, std::nullopt), std::nullopt, std::nullopt, st && st->weak));
    });
  }
  // A NamedSharding target without a mesh in context runs on the sharding's mesh.
  auto& ctx = trace::MeshContext::get();
  bool pushed = false;
  if (target && !as_tracer(operand) && ctx.abstract().empty())
    if (const auto* ns = std::get_if<types::NamedSharding>(&*target); ns && ns->is_concrete()) {
      ctx.push(ns->mesh());
      pushed = true;
    }
  try {
    Value r = apply(I, "reshard", {operand}, [&](trace::Trace& t, const std::vector<ir::ValueId>& ids) {
      return std::vector<ir::ValueId>{trace::reshard(t, ids[0], target)};
    });
    if (pushed) ctx.pop();
    return r;
  } catch (...) {
    if (pushed) ctx.pop();
    throw;
  }
}

Value reshard_tree(Interp& I, const Value& x, const Value& spec, int depth) {
  if (depth > 200) I.raise("RecursionError", "maximum recursion depth exceeded in reshard");
  if (x->kind == ObjKind::List || x->kind == ObjKind::Tuple) {
    const auto& items = I.to_vector(x);
    std::vector<Value> out;
    const bool spec_tree = spec->kind == x->kind;
    std::vector<Value> specs = spec_tree ? I.to_vector(spec) : std::vector<Value>{};
    if (spec_tree && specs.size() != items.size()) I.raise("ValueError", "reshard: the sharding tree does not match the argument's structure");
    for (size_t i = 0; i < items.size(); ++i) out.push_back(reshard_tree(I, items[i], spec_tree ? specs[i] : spec, depth + 1));
    return x->kind == ObjKind::List ? interp::make_list(std::move(out)) : interp::make_tuple(std::move(out));
  }
  return reshard_leaf(I, x, out_sharding_arg(I, spec, "reshard's out_shardings"));
}

Value jax_reshard(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "reshard", {"xs", "out_shardings"});
  return reshard_tree(I, p.get("xs"), p.get("out_shardings"), 0);
}

// ---- typeof / meshes --------------------------------------------------------------------------

Value jax_typeof(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "typeof", {"x"});
  Value x = p.get("x");
  if (auto* arr = as_array(x)) {
    const auto& t = arr->array->type;
    if (!arr->host) return shaped_array_value(t);
    return shaped_array_value(types::ArrayType(trace::canonicalize_device(t.dtype()), t.shape()));
  }
  if (as_tracer(x)) return shaped_array_value(type_of(x));
  if (auto st = python_scalar_type(x, false)) return shaped_array_value(types::ArrayType(st->dtype, {}, {}, {}, {}, st->weak));
  I.raise("TypeError", fmt::format("Value {} with type <class '{}'> is not a valid JAX type", I.repr(x), interp::bi::class_qualname(*x->cls)));
}

Value jax_make_mesh(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "make_mesh", {"axis_shapes", "axis_names", "axis_types=", "*", "devices="});
  std::vector<int64_t> shape;
  for (auto& s : I.to_vector(p.get("axis_shapes"))) shape.push_back(bi::index_of(I, s, ""));
  auto names = axis_names_arg(I, p.get("axis_names"), "axis_names");
  auto types_ = axis_types_arg(I, p.get("axis_types"), names.size());
  // JAX after 0.6 makes meshes Explicit unless told otherwise.
  if ((!p.get("axis_types") || p.get("axis_types")->kind == ObjKind::None) && types::jax_version() == types::JaxVersion::Current)
    types_ = std::vector<types::AxisType>(names.size(), types::AxisType::Explicit);
  Value devices = p.get("devices");
  return guarded(I, [&]() -> Value {
    if (!devices || devices->kind == ObjKind::None)
      return mesh_value(types::make_mesh(shape, names, types_, device_count()));
    std::vector<Value> items;
    if (auto* oa = as_object_array(devices)) items = oa->items;
    else items = I.to_vector(devices);
    std::vector<int> ids;
    for (auto& d : items) {
      auto id = device_id_of(d);
      if (!id) I.raise("TypeError", fmt::format("make_mesh devices must be jax devices, got {}", I.repr(d)));
      ids.push_back(*id);
    }
    const int64_t n = types::checked_mesh_size(shape);
    if (static_cast<int64_t>(ids.size()) < n)
      I.raise("ValueError", fmt::format("Number of devices {} must be >= the product of mesh_shape {}", ids.size(), types::py_int_tuple(shape)));
    ids.resize(static_cast<size_t>(n));
    return mesh_value(types::Mesh(ids, shape, names, types_));
  });
}

types::Mesh mesh_arg(Interp& I, const Value& v, const char* fname) {
  auto m = mesh_of(v);
  if (!m) I.raise("TypeError", fmt::format("{} expects a jax.sharding.Mesh, got {}", fname, I.repr(v)));
  return *m;
}

Value jax_set_mesh(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "set_mesh", {"mesh"});
  Value v = p.get("mesh");
  if (v->kind == ObjKind::None) {
    trace::MeshContext::get().set(std::nullopt);
    return interp::none();
  }
  return set_mesh_now(mesh_arg(I, v, "set_mesh"));
}

Value jax_use_mesh(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "use_mesh", {"mesh"});
  return use_mesh_context(mesh_arg(I, p.get("mesh"), "use_mesh"));
}

// with use_abstract_mesh(AbstractMesh(...)): the context's abstract mesh for the block (what
// tracing and get_abstract_mesh see), with no concrete devices.
Value jax_use_abstract_mesh(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "use_abstract_mesh", {"mesh"});
  auto* am = dynamic_cast<AbstractMeshObj*>(p.get("mesh").get());
  if (!am) I.raise("TypeError", fmt::format("use_abstract_mesh needs a jax.sharding.AbstractMesh, got {}", I.repr(p.get("mesh"))));
  types::AbstractMesh mesh = am->mesh;
  return context_manager([mesh] { trace::MeshContext::get().push_abstract(mesh); return interp::none(); },
                         [] { trace::MeshContext::get().pop_abstract(); });
}

Value jax_get_abstract_mesh(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "get_abstract_mesh", {});
  return abstract_mesh_value(trace::MeshContext::get().abstract());
}

Value jax_get_mesh(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "get_mesh", {});
  auto m = trace::MeshContext::get().concrete();
  return m ? mesh_value(*m) : mesh_value(types::Mesh());
}

// ---- modules --------------------------------------------------------------------------------

void bind_submodule(Interp& I, ModuleObj& parent, const std::string& dotted, const std::string& leaf) {
  try {
    parent.dict.set(leaf, I.import_module(dotted, I.current_loc()));
  } catch (const interp::PyError& e) {
    if (!bi::exc_is(e, "ModuleNotFoundError")) throw;  // not registered (yet): leave it out
  }
}

void init_classes() {
  init_device_classes();
  init_mesh_classes();
  init_sharding_classes();
}

void fill_jax(Interp& I, ModuleObj& m) {
  init_classes();
  m.dict.set("__version__", interp::make_str(types::jax_version_string(types::jax_version())));
  m.dict.set("config", jax_config());
  add(m, "default_backend", [](Interp& I2, CallArgs& a) {
    interp::ArgParser p(I2, a, "default_backend", {});
    return interp::make_str("cpu");
  });
  auto devices = [](Interp& I2, CallArgs& a) {
    interp::ArgParser p(I2, a, "devices", {"backend="});
    return device_list(all_device_ids());
  };
  add(m, "devices", devices);
  add(m, "local_devices", [](Interp& I2, CallArgs& a) {
    interp::ArgParser p(I2, a, "local_devices", {"process_index=", "backend=", "host_id="});
    if (Value v = p.get("process_index"); v && v->kind != ObjKind::None && interp::bi::index_of(I2, v, "process_index") != process_index())
      I2.raise("NotImplementedError", "jax.local_devices(process_index=...) of another process: shard knows only this process's devices; "
                                      "use [d for d in jax.devices() if d.process_index == i]");
    return device_list(local_device_ids());
  });
  add(m, "device_count", [](Interp& I2, CallArgs& a) {
    interp::ArgParser p(I2, a, "device_count", {"backend="});
    return interp::make_int(device_count());
  });
  add(m, "local_device_count", [](Interp& I2, CallArgs& a) {
    interp::ArgParser p(I2, a, "local_device_count", {"backend="});
    return interp::make_int(local_device_count());
  });
  add(m, "process_index", [](Interp& I2, CallArgs& a) {
    interp::ArgParser p(I2, a, "process_index", {"backend="});
    return interp::make_int(process_index());
  });
  add(m, "process_count", [](Interp& I2, CallArgs& a) {
    interp::ArgParser p(I2, a, "process_count", {"backend="});
    return interp::make_int(process_count());
  });
  add(m, "typeof", jax_typeof);
  add(m, "device_put", jax_device_put);
  add(m, "block_until_ready", [](Interp& I2, CallArgs& a) {
    interp::ArgParser p(I2, a, "block_until_ready", {"x"});
    return p.get("x");  // eager work has finished when a binding returns
  });
  add(m, "make_mesh", jax_make_mesh);
  install_jit(I, m);
  install_shard_map(I, m);
  install_vmap(m);
  install_grad(m);
  install_custom_derivatives(m);
  install_checkpoint(m);
  install_eval_shape(m);
  install_global_arrays(m);
  add(m, "set_mesh", jax_set_mesh);
  m.dict.set("Array", array_class());
  m.dict.set("P", spec_class());  // current JAX's top-level aliases
  m.dict.set("NamedSharding", named_sharding_class());
  add(m, "reshard", jax_reshard);
  m.dict.set("Device", device_class());
  for (auto [dotted, leaf] : {std::pair{"jax.sharding", "sharding"}, std::pair{"jax.experimental", "experimental"},
                              std::pair{"jax.debug", "debug"}, std::pair{"jax.core", "core"}, std::pair{"jax.numpy", "numpy"}, std::pair{"jax.lax", "lax"},
                              std::pair{"jax.tree_util", "tree_util"}, std::pair{"jax.tree", "tree"}, std::pair{"jax.random", "random"},
                              std::pair{"jax.scipy", "scipy"}, std::pair{"jax.nn", "nn"},
                              std::pair{"jax.checkpoint_policies", "checkpoint_policies"}, std::pair{"jax.distributed", "distributed"},
                              std::pair{"jax.profiler", "profiler"}, std::pair{"jax.dtypes", "dtypes"}})
    bind_submodule(I, m, dotted, leaf);
  if (Value* lax = m.dict.find("lax"); lax && (*lax)->kind == ObjKind::Module)
    install_with_sharding_constraint(static_cast<ModuleObj&>(**lax));
}

void fill_sharding(Interp& I, ModuleObj& m) {
  init_classes();
  m.dict.set("Mesh", mesh_class());
  m.dict.set("AbstractMesh", abstract_mesh_class());
  m.dict.set("AxisType", axis_type_class());
  m.dict.set("PartitionSpec", spec_class());
  m.dict.set("NamedSharding", named_sharding_class());
  m.dict.set("SingleDeviceSharding", single_device_sharding_class());
  m.dict.set("Sharding", sharding_base_class());
  add(m, "use_mesh", jax_use_mesh);
  add(m, "set_mesh", jax_set_mesh);
  add(m, "use_abstract_mesh", jax_use_abstract_mesh);
  add(m, "get_abstract_mesh", jax_get_abstract_mesh);
  add(m, "get_mesh", jax_get_mesh);
  add(m, "reshard", jax_reshard);
  install_axis_type_scopes(m);
}

// jax.core: the Tracer class (what `isinstance(x, jax.core.Tracer)` checks under a trace).
void fill_core(Interp&, ModuleObj& m) { m.dict.set("Tracer", core_tracer_class()); }

void fill_experimental(Interp& I, ModuleObj& m) {
  bind_submodule(I, m, "jax.experimental.mesh_utils", "mesh_utils");
  bind_submodule(I, m, "jax.experimental.shard", "shard");
  bind_submodule(I, m, "jax.experimental.shard_map", "shard_map");
  bind_submodule(I, m, "jax.experimental.multihost_utils", "multihost_utils");
}

void fill_experimental_shard(Interp& I, ModuleObj& m) {
  init_classes();
  add(m, "reshard", jax_reshard);
  install_axis_type_scopes(m);
}

// jax.debug: visualize/inspect_array_sharding (visualize.cpp); print (debug_print.cpp).
void fill_debug(Interp& I, ModuleObj& m) {
  install_visualize(m);
  add(m, "print", jax_debug_print);
  (void)I;
}

}  // namespace

void register_jax_modules() {
  interp::Interp::register_builtin_module("jax", fill_jax);
  interp::Interp::register_builtin_module("jax.sharding", fill_sharding);
  interp::Interp::register_builtin_module("jax.experimental", fill_experimental);
  interp::Interp::register_builtin_module("jax.experimental.shard", fill_experimental_shard);
  interp::Interp::register_builtin_module("jax.experimental.shard_map", fill_experimental_shard_map);
  interp::Interp::register_builtin_module("jax.debug", fill_debug);
  interp::Interp::register_builtin_module("jax.core", fill_core);
  init_classes();
  install_array_placement();
}

}  // namespace shard::api
