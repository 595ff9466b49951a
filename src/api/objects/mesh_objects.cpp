// jax.sharding.AxisType, Mesh and AbstractMesh objects, and the context mesh as Python
// context managers (use_mesh, set_mesh, `with mesh:`).
#include <fmt/format.h>

#include <array>
#include <cstring>

#include "api/device_count.hpp"
#include "api/objects/array_value.hpp"
#include "api/objects/sharding_objects.hpp"
#include "api/objects/value_methods.hpp"
#include "array/array_format.hpp"
#include "interp/builtins/support.hpp"
#include "trace/trace.hpp"

namespace shard::api {

using interp::CallArgs;
using interp::ObjKind;
using types::AxisType;
namespace bi = interp::bi;
using bi::int_tuple;
using bi::str_tuple;

// ---- AxisType -----------------------------------------------------------------------------

ClassP axis_type_class() {
  static ClassP c = interp::make_class("AxisType", {interp::T().object}, "jax._src.mesh");
  return c;
}

Value axis_type_value(AxisType t) {
  static std::array<Value, 3> made;
  auto& v = made[static_cast<size_t>(t)];
  if (!v) v = std::make_shared<AxisTypeObj>(axis_type_class(), t);
  return v;
}

std::optional<AxisType> axis_type_of(const Value& v) {
  if (!v || v->kind != ObjKind::Native) return std::nullopt;
  if (auto* a = dynamic_cast<AxisTypeObj*>(v.get())) return a->type;
  return std::nullopt;
}

Value axis_types_tuple(const std::vector<AxisType>& ts) {
  std::vector<Value> xs;
  for (auto t : ts) xs.push_back(axis_type_value(t));
  return interp::make_tuple(std::move(xs));
}

std::optional<std::vector<AxisType>> axis_types_arg(Interp& I, const Value& v, size_t naxes) {
  if (!v || v->kind == ObjKind::None) return std::nullopt;
  if (auto t = axis_type_of(v)) return std::vector<AxisType>(naxes, *t);
  if (v->kind != ObjKind::Tuple && v->kind != ObjKind::List)
    I.raise("TypeError", fmt::format("axis_types must be a tuple of jax.sharding.AxisType, got {}", I.repr(v)));
  std::vector<AxisType> out;
  for (auto& x : I.to_vector(v)) {
    auto t = axis_type_of(x);
    if (!t) I.raise("TypeError", fmt::format("axis_types must be a tuple of jax.sharding.AxisType, got {}", I.repr(v)));
    out.push_back(*t);
  }
  return out;
}

types::AxisNames axis_names_arg(Interp& I, const Value& v, std::string_view what) {
  if (v->kind == ObjKind::Str) return {static_cast<interp::StrObj&>(*v).v};
  if (v->kind != ObjKind::Tuple && v->kind != ObjKind::List)
    I.raise("TypeError", fmt::format("{} must be a tuple of str, got {}", what, I.repr(v)));
  types::AxisNames names;
  for (auto& x : I.to_vector(v)) {
    if (x->kind != ObjKind::Str) I.raise("TypeError", fmt::format("{} must be a tuple of str, got {}", what, I.repr(v)));
    names.push_back(static_cast<interp::StrObj&>(*x).v);
  }
  return names;
}

namespace {

AxisType self_axis_type(Interp& I, CallArgs& a) {
  auto t = a.args.empty() ? std::nullopt : axis_type_of(a.args[0]);
  if (!t) I.raise("TypeError", "descriptor requires an 'AxisType' object");
  return *t;
}

void init_axis_type_class() {
  auto c = axis_type_class();
  // JAX's AxisType is an enum whose repr is the bare member name.
  bi::def(c, "__repr__", [](Interp& I, CallArgs& a) { return interp::make_str(std::string(types::axis_type_name(self_axis_type(I, a)))); });
  bi::def(c, "__str__", [](Interp& I, CallArgs& a) {
    return interp::make_str("AxisType." + std::string(types::axis_type_name(self_axis_type(I, a))));
  });
  bi::def(c, "__hash__", [](Interp& I, CallArgs& a) { return interp::make_int(static_cast<int64_t>(self_axis_type(I, a)) + 1); });
  bi::def_property(c, "name", [](Interp& I, CallArgs& a) { return interp::make_str(std::string(types::axis_type_name(self_axis_type(I, a)))); });
  bi::def_property(c, "value", [](Interp& I, CallArgs& a) {
    // enum.auto() order in JAX: Auto = 1, Explicit = 2, Manual = 3.
    switch (self_axis_type(I, a)) {
      case AxisType::Auto: return interp::make_int(1);
      case AxisType::Explicit: return interp::make_int(2);
      case AxisType::Manual: return interp::make_int(3);
    }
    return interp::make_int(0);
  });
  for (auto t : {AxisType::Auto, AxisType::Explicit, AxisType::Manual})
    c->dict.set(std::string(types::axis_type_name(t)), axis_type_value(t));
}

}  // namespace

// ---- context mesh -------------------------------------------------------------------------

namespace {

// set_mesh's base mesh, mirrored here so a `with set_mesh(m):` can restore the previous one
// (MeshContext does not expose its base under a use_mesh).
std::optional<types::Mesh>& set_mesh_base() {
  static std::optional<types::Mesh> base;
  return base;
}

struct ContextObj : interp::NativeObj {
  std::function<Value()> enter;
  std::function<void()> exit;
  ContextObj(ClassP c, std::function<Value()> en, std::function<void()> ex)
      : NativeObj(std::move(c)), enter(std::move(en)), exit(std::move(ex)) {}
};

ClassP context_class() {
  static ClassP c = [] {
    auto k = interp::make_class("_GeneratorContextManager", {interp::T().object}, "contextlib");
    bi::def(k, "__enter__", [](Interp& I, CallArgs& a) -> Value {
      auto* o = dynamic_cast<ContextObj*>(a.args[0].get());
      if (!o) I.raise("TypeError", "bad context manager");
      return o->enter ? o->enter() : interp::none();
    });
    bi::def(k, "__exit__", [](Interp& I, CallArgs& a) -> Value {
      auto* o = dynamic_cast<ContextObj*>(a.args[0].get());
      if (!o) I.raise("TypeError", "bad context manager");
      if (o->exit) o->exit();
      return interp::make_bool(false);
    });
    return k;
  }();
  return c;
}

}  // namespace

void push_context_mesh(const types::Mesh& m) { trace::MeshContext::get().push(m); }
void pop_context_mesh() { trace::MeshContext::get().pop(); }

Value context_manager(std::function<Value()> enter, std::function<void()> exit) {
  return std::make_shared<ContextObj>(context_class(), std::move(enter), std::move(exit));
}

Value use_mesh_context(const types::Mesh& m) {
  return std::make_shared<ContextObj>(
      context_class(), [m] { push_context_mesh(m); return interp::none(); }, [] { pop_context_mesh(); });
}

Value set_mesh_now(const types::Mesh& m) {
  auto prev = set_mesh_base();
  trace::MeshContext::get().set(m);
  set_mesh_base() = m;
  return std::make_shared<ContextObj>(
      context_class(), [] { return interp::none(); },
      [prev] {
        trace::MeshContext::get().set(prev);
        set_mesh_base() = prev;
      });
}

// ---- Mesh / AbstractMesh ------------------------------------------------------------------

ClassP mesh_class() {
  static ClassP c = interp::make_class("Mesh", {interp::T().object}, "jax._src.mesh");
  return c;
}
ClassP abstract_mesh_class() {
  static ClassP c = interp::make_class("AbstractMesh", {interp::T().object}, "jax._src.mesh");
  return c;
}

Value mesh_value(const types::Mesh& m) { return std::make_shared<MeshObj>(mesh_class(), m); }
Value abstract_mesh_value(const types::AbstractMesh& m) { return std::make_shared<AbstractMeshObj>(abstract_mesh_class(), m); }

std::optional<types::Mesh> mesh_of(const Value& v) {
  if (!v || v->kind != ObjKind::Native) return std::nullopt;
  if (auto* m = dynamic_cast<MeshObj*>(v.get())) return m->mesh;
  return std::nullopt;
}

std::optional<types::AbstractMesh> abstract_mesh_of(const Value& v) {
  if (!v || v->kind != ObjKind::Native) return std::nullopt;
  if (auto* m = dynamic_cast<MeshObj*>(v.get())) return m->mesh.abstract_mesh();
  if (auto* m = dynamic_cast<AbstractMeshObj*>(v.get())) return m->mesh;
  return std::nullopt;
}

Value mesh_shape_dict(Interp& I, const std::vector<std::pair<std::string, int64_t>>& shape) {
  auto collections = I.import_module("collections", I.current_loc());
  auto odict = I.getattr(collections, "OrderedDict");
  std::vector<Value> pairs;
  for (auto& [name, size] : shape) pairs.push_back(interp::make_tuple({interp::make_str(name), interp::make_int(size)}));
  return I.call(odict, std::vector<Value>{interp::make_list(std::move(pairs))});
}

namespace {

Value shape_tuple_pairs(const std::vector<std::pair<std::string, int64_t>>& shape) {
  std::vector<Value> xs;
  for (auto& [n, s] : shape) xs.push_back(interp::make_tuple({interp::make_str(n), interp::make_int(s)}));
  return interp::make_tuple(std::move(xs));
}

const types::Mesh& self_mesh(Interp& I, CallArgs& a) {
  auto* m = a.args.empty() || a.args[0]->kind != ObjKind::Native ? nullptr : dynamic_cast<MeshObj*>(a.args[0].get());
  if (!m) I.raise("TypeError", "descriptor requires a 'Mesh' object");
  return m->mesh;
}
const types::AbstractMesh& self_abstract(Interp& I, CallArgs& a) {
  auto* m = a.args.empty() || a.args[0]->kind != ObjKind::Native ? nullptr : dynamic_cast<AbstractMeshObj*>(a.args[0].get());
  if (!m) I.raise("TypeError", "descriptor requires an 'AbstractMesh' object");
  return m->mesh;
}

// mesh.device_ids: a numpy int64 array shaped like the mesh.
Value device_ids_array(const types::Mesh& m) {
  ensure_device_runtime();
  std::vector<int64_t> ids(m.device_ids().begin(), m.device_ids().end());
  types::Shape shape = m.axis_sizes();
  types::ArrayType t(types::DType::I64, shape);
  auto arr = exec::array_from_host(ids.data(), t, types::NamedSharding(exec::single_device_mesh(), types::PartitionSpec()), true);
  return wrap(arr, true);
}

std::string mesh_repr(const types::Mesh& m) {
  if (m.empty()) return "Mesh(device_ids=[], axis_names=())";
  std::vector<int64_t> ids(m.device_ids().begin(), m.device_ids().end());
  array::ArrayView view{types::DType::I64, m.axis_sizes(), ids.data()};
  return fmt::format("Mesh(device_ids={}, axis_names={}, axis_types={})", array::format_array_repr(view),
                     types::py_str_tuple(m.axis_names()), types::axis_types_repr(m.axis_types()));
}

// Mesh(devices, axis_names, axis_types=None)
Value mesh_new(Interp& I, const ClassP&, CallArgs& a) {
  interp::ArgParser p(I, a, "Mesh", {"devices", "axis_names", "axis_types="});
  Value devices = p.get("devices");
  types::Shape shape;
  std::vector<Value> items;
  if (auto* oa = as_object_array(devices)) {
    shape = oa->shape;
    items = oa->items;
  } else if (devices->kind == ObjKind::List || devices->kind == ObjKind::Tuple) {
    auto arr = object_array_from_python(I, devices);
    if (!arr) I.raise("TypeError", "Mesh devices must be an array of jax devices (e.g. np.array(jax.devices()))");
    auto* oa2 = as_object_array(*arr);
    shape = oa2->shape;
    items = oa2->items;
  } else if (device_id_of(devices)) {
    items = {devices};
  } else {
    I.raise("TypeError", fmt::format("Mesh devices must be an array of jax devices (e.g. np.array(jax.devices())), got {}",
                                     I.type_name(devices)));
  }
  std::vector<int> ids;
  for (auto& d : items) {
    auto id = device_id_of(d);
    if (!id) I.raise("TypeError", fmt::format("Mesh devices must be jax devices, got {}", I.repr(d)));
    ids.push_back(*id);
  }
  auto names = axis_names_arg(I, p.get("axis_names"), "axis_names");
  auto types_ = axis_types_arg(I, p.get("axis_types"), names.size());
  return guarded(I, [&] { return mesh_value(types::Mesh(ids, shape, names, types_)); });
}

// AbstractMesh(axis_sizes, axis_names, axis_types=None) (current JAX takes axis_types
// positionally too); also the older AbstractMesh(shape_tuple) with (('dp', 4), ('mp', 2)).
Value abstract_mesh_new(Interp& I, const ClassP&, CallArgs& a) {
  interp::ArgParser p(I, a, "AbstractMesh", {"axis_sizes", "axis_names=", "axis_types="});
  std::vector<int64_t> sizes;
  types::AxisNames names;
  auto first = I.to_vector(p.get("axis_sizes"));
  if (!p.has("axis_names")) {
    for (auto& pair : first) {
      auto kv = I.to_vector(pair);
      if (kv.size() != 2 || kv[0]->kind != ObjKind::Str) I.raise("TypeError", "AbstractMesh shape_tuple entries must be (name, size) pairs");
      names.push_back(static_cast<interp::StrObj&>(*kv[0]).v);
      sizes.push_back(bi::index_of(I, kv[1], ""));
    }
  } else {
    for (auto& s : first) sizes.push_back(bi::index_of(I, s, ""));
    names = axis_names_arg(I, p.get("axis_names"), "axis_names");
  }
  auto types_ = axis_types_arg(I, p.get("axis_types"), names.size());
  return guarded(I, [&] { return abstract_mesh_value(types::AbstractMesh(names, sizes, types_)); });
}

template <class Get>
void def_common_mesh_props(const ClassP& c, Get get) {
  bi::def_property(c, "shape", [get](Interp& I, CallArgs& a) { return mesh_shape_dict(I, get(I, a).shape()); });
  bi::def_property(c, "shape_tuple", [get](Interp& I, CallArgs& a) { return shape_tuple_pairs(get(I, a).shape()); });
  bi::def_property(c, "axis_names", [get](Interp& I, CallArgs& a) { return str_tuple(get(I, a).axis_names()); });
  bi::def_property(c, "axis_sizes", [get](Interp& I, CallArgs& a) { return int_tuple(get(I, a).axis_sizes()); });
  bi::def_property(c, "axis_types", [get](Interp& I, CallArgs& a) { return axis_types_tuple(get(I, a).axis_types()); });
  bi::def_property(c, "size", [get](Interp& I, CallArgs& a) { return interp::make_int(get(I, a).size()); });
  bi::def_property(c, "empty", [get](Interp& I, CallArgs& a) { return interp::make_bool(get(I, a).empty()); });
  bi::def_property(c, "explicit_axes", [get](Interp& I, CallArgs& a) { return str_tuple(get(I, a).abstract_mesh().explicit_axes()); });
  bi::def_property(c, "auto_axes", [get](Interp& I, CallArgs& a) { return str_tuple(get(I, a).abstract_mesh().auto_axes()); });
  bi::def_property(c, "manual_axes", [get](Interp& I, CallArgs& a) { return str_tuple(get(I, a).abstract_mesh().manual_axes()); });
}

// AbstractMesh has no abstract_mesh(); this adapter gives both the same accessors.
struct AbstractView {
  const types::AbstractMesh& m;
  std::vector<std::pair<std::string, int64_t>> shape() const { return m.shape(); }
  const types::AxisNames& axis_names() const { return m.axis_names(); }
  const std::vector<int64_t>& axis_sizes() const { return m.axis_sizes(); }
  const std::vector<AxisType>& axis_types() const { return m.axis_types(); }
  int64_t size() const { return m.size(); }
  bool empty() const { return m.empty(); }
  const types::AbstractMesh& abstract_mesh() const { return m; }
};

void init_mesh_class() {
  auto c = mesh_class();
  c->native_new = mesh_new;
  bi::def(c, "__repr__", [](Interp& I, CallArgs& a) { return interp::make_str(mesh_repr(self_mesh(I, a))); });
  bi::def(c, "__str__", [](Interp& I, CallArgs& a) { return interp::make_str(self_mesh(I, a).repr()); });
  def_value_equality(c, self_mesh, [](Interp&, const Value& v) { return mesh_of(v); });
  def_common_mesh_props(c, [](Interp& I, CallArgs& a) -> const types::Mesh& { return self_mesh(I, a); });
  bi::def_property(c, "devices", [](Interp& I, CallArgs& a) {
    const auto& m = self_mesh(I, a);
    std::vector<Value> items;
    for (int id : m.device_ids()) items.push_back(device_value(id));
    return make_object_array(m.axis_sizes(), std::move(items));
  });
  bi::def_property(c, "device_ids", [](Interp& I, CallArgs& a) { return device_ids_array(self_mesh(I, a)); });
  bi::def_property(c, "local_devices", [](Interp& I, CallArgs& a) {
    std::vector<int> local;
    for (int id : self_mesh(I, a).device_ids())
      if (is_local_device(id)) local.push_back(id);
    return device_list(local);
  });
  bi::def_property(c, "_flat_devices_tuple", [](Interp& I, CallArgs& a) {
    std::vector<Value> xs;
    for (int id : self_mesh(I, a).device_ids()) xs.push_back(device_value(id));
    return interp::make_tuple(std::move(xs));
  });
  bi::def_property(c, "abstract_mesh", [](Interp& I, CallArgs& a) { return abstract_mesh_value(self_mesh(I, a).abstract_mesh()); });
  bi::def(c, "__enter__", [](Interp& I, CallArgs& a) {
    push_context_mesh(self_mesh(I, a));
    return a.args[0];
  });
  bi::def(c, "__exit__", [](Interp&, CallArgs&) {
    pop_context_mesh();
    return interp::make_bool(false);
  });

  auto am = abstract_mesh_class();
  am->native_new = abstract_mesh_new;
  def_value_repr(am, self_abstract);
  def_value_equality(am, self_abstract, [](Interp&, const Value& v) -> const types::AbstractMesh* {
    auto* o = v->kind == ObjKind::Native ? dynamic_cast<AbstractMeshObj*>(v.get()) : nullptr;
    return o ? &o->mesh : nullptr;
  });
  def_common_mesh_props(am, [](Interp& I, CallArgs& a) { return AbstractView{self_abstract(I, a)}; });
  bi::def_property(am, "abstract_mesh", [](Interp&, CallArgs& a) { return a.args[0]; });
}

}  // namespace

void init_mesh_classes() {
  static bool done = false;
  if (done) return;
  done = true;
  init_axis_type_class();
  init_mesh_class();
}

}  // namespace shard::api
