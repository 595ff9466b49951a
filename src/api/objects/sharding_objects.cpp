// PartitionSpec, NamedSharding, SingleDeviceSharding and ShapedArray objects, and the
// conversions from Python values that bindings taking `out_sharding=` share.
#include "api/objects/sharding_objects.hpp"

#include <fmt/format.h>

#include "api/device_count.hpp"
#include "api/objects/array_value.hpp"
#include "api/objects/dtype_value.hpp"
#include "api/objects/value_methods.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using interp::CallArgs;
using interp::ObjKind;
using types::PartitionSpec;
namespace bi = interp::bi;
using bi::int_tuple;
using bi::str_tuple;

namespace {

Value frozenset_of(Interp& I, const std::vector<std::string>& names) {
  auto s = interp::make_set(true);
  for (auto& n : names) s->set(I, interp::make_str(n), interp::none());
  return s;
}
std::vector<int64_t> shape_arg(Interp& I, const Value& v) {
  std::vector<int64_t> out;
  for (auto& x : I.to_vector(v)) out.push_back(bi::index_of(I, x, ""));
  return out;
}

}  // namespace

// ---- PartitionSpec ------------------------------------------------------------------------

ClassP spec_class() {
  static ClassP c = interp::make_class("PartitionSpec", {interp::T().object}, "jax._src.partition_spec");
  return c;
}

Value spec_value(const PartitionSpec& s) { return std::make_shared<SpecObj>(spec_class(), s); }

std::optional<PartitionSpec> spec_of(const Value& v) {
  if (!v || v->kind != ObjKind::Native) return std::nullopt;
  if (auto* s = dynamic_cast<SpecObj*>(v.get())) return s->spec;
  return std::nullopt;
}

PartitionSpec::Entry spec_entry_arg(Interp& I, const Value& v) {
  auto bad = [&] {
    I.raise("TypeError", fmt::format("PartitionSpec entries must be None, a mesh axis name (str) or a tuple of mesh axis "
                                     "names, got {}",
                                     I.repr(v)));
  };
  if (v->kind == ObjKind::None) return {};
  if (v->kind == ObjKind::Str) return {static_cast<interp::StrObj&>(*v).v};
  if (v->kind == ObjKind::Tuple || v->kind == ObjKind::List) {
    PartitionSpec::Entry e;
    for (auto& x : I.to_vector(v)) {
      if (x->kind == ObjKind::None) continue;  // JAX drops None inside a tuple entry
      if (x->kind != ObjKind::Str) bad();
      e.push_back(static_cast<interp::StrObj&>(*x).v);
    }
    return e;
  }
  bad();
  return {};
}

namespace {

Value entry_value(const PartitionSpec::Entry& e) {
  if (e.empty()) return interp::none();
  if (e.size() == 1) return interp::make_str(e[0]);
  return str_tuple(e);
}

const PartitionSpec& self_spec(Interp& I, CallArgs& a) {
  auto* s = a.args.empty() || a.args[0]->kind != ObjKind::Native ? nullptr : dynamic_cast<SpecObj*>(a.args[0].get());
  if (!s) I.raise("TypeError", "descriptor requires a 'PartitionSpec' object");
  return s->spec;
}

Value spec_new(Interp& I, const ClassP&, CallArgs& a) {
  std::vector<PartitionSpec::Entry> entries;
  for (auto& v : a.args) entries.push_back(spec_entry_arg(I, v));
  std::vector<std::string> unreduced, reduced;
  for (auto& [k, v] : a.kwargs) {
    if (k != "unreduced" && k != "reduced")
      I.raise("TypeError", fmt::format("PartitionSpec() got an unexpected keyword argument '{}'", k));
    auto& names = k == "unreduced" ? unreduced : reduced;
    // JAX takes a set or frozenset of mesh axis names (a str would be iterated character by
    // character, so it is refused); None in the set is its own error.
    if (v->kind != ObjKind::Set && v->kind != ObjKind::FrozenSet)
      I.raise("TypeError", fmt::format("{} argument of PartitionSpec should of type `frozenset` or `set`. Got type <class '{}'>", k,
                                       I.type_name(v)));
    for (auto& x : I.to_vector(v)) {
      if (x->kind == ObjKind::None)
        I.raise("ValueError", fmt::format("{} cannot contain None. All elements in {} should refer to the mesh axes.", k, k));
      if (x->kind != ObjKind::Str) I.raise("TypeError", fmt::format("{} must be a set of mesh axis names, got {}", k, I.repr(v)));
      names.push_back(static_cast<interp::StrObj&>(*x).v);
    }
  }
  return guarded(I, [&] { return spec_value(PartitionSpec(std::move(entries), std::move(unreduced), std::move(reduced))); });
}

// The entries as a Python tuple (PartitionSpec is a tuple subclass in JAX).
std::vector<Value> spec_items(const PartitionSpec& s) {
  std::vector<Value> xs;
  for (auto& e : s.entries()) xs.push_back(entry_value(e));
  return xs;
}

std::optional<PartitionSpec> spec_or_tuple(Interp& I, const Value& v) {
  if (auto s = spec_of(v)) return s;
  if (v->kind == ObjKind::Tuple) {
    std::vector<PartitionSpec::Entry> entries;
    for (auto& x : static_cast<interp::TupleObj&>(*v).items) {
      if (x->kind != ObjKind::None && x->kind != ObjKind::Str && x->kind != ObjKind::Tuple) return std::nullopt;
      entries.push_back(spec_entry_arg(I, x));
    }
    return PartitionSpec(std::move(entries));
  }
  return std::nullopt;
}

void init_spec_class() {
  auto c = spec_class();
  c->native_new = spec_new;
  def_value_repr(c, self_spec);
  def_value_equality(c, self_spec, spec_or_tuple);
  bi::def(c, "__len__", [](Interp& I, CallArgs& a) { return interp::make_int(static_cast<int64_t>(self_spec(I, a).size())); });
  bi::def(c, "__getitem__", [](Interp& I, CallArgs& a) {
    bi::method_nargs(I, a, "__getitem__", 1, 1);
    // As a tuple: ints give an entry, slices a tuple.
    return I.getitem(interp::make_tuple(spec_items(self_spec(I, a))), a.args[1]);
  });
  bi::def(c, "__iter__", [](Interp& I, CallArgs& a) { return I.iter(interp::make_tuple(spec_items(self_spec(I, a)))); });
  bi::def(c, "__contains__", [](Interp& I, CallArgs& a) {
    bi::method_nargs(I, a, "__contains__", 1, 1);
    return interp::make_bool(I.contains(interp::make_tuple(spec_items(self_spec(I, a))), a.args[1]));
  });
  bi::def(c, "__add__", [](Interp& I, CallArgs& a) -> Value {
    bi::method_nargs(I, a, "__add__", 1, 1);
    auto other = spec_or_tuple(I, a.args[1]);
    if (!other) return interp::not_implemented();
    auto entries = self_spec(I, a).entries();
    for (auto& e : other->entries()) entries.push_back(e);
    const auto& self = self_spec(I, a);
    // JAX unions both sets (a plain tuple has none).
    auto unreduced = self.unreduced(), reduced = self.reduced();
    unreduced.insert(unreduced.end(), other->unreduced().begin(), other->unreduced().end());
    reduced.insert(reduced.end(), other->reduced().begin(), other->reduced().end());
    return guarded(I, [&] { return spec_value(PartitionSpec(entries, unreduced, reduced)); });
  });
  bi::def_property(c, "unreduced", [](Interp& I, CallArgs& a) { return frozenset_of(I, self_spec(I, a).unreduced()); });
  bi::def_property(c, "reduced", [](Interp& I, CallArgs& a) { return frozenset_of(I, self_spec(I, a).reduced()); });
  bi::def(c, "count", [](Interp& I, CallArgs& a) {
    bi::method_nargs(I, a, "count", 1, 1);
    int64_t n = 0;
    for (auto& x : spec_items(self_spec(I, a))) n += I.eq(x, a.args[1]) ? 1 : 0;
    return interp::make_int(n);
  });
  bi::def(c, "index", [](Interp& I, CallArgs& a) -> Value {
    bi::method_nargs(I, a, "index", 1, 1);
    auto xs = spec_items(self_spec(I, a));
    for (size_t i = 0; i < xs.size(); ++i)
      if (I.eq(xs[i], a.args[1])) return interp::make_int(static_cast<int64_t>(i));
    I.raise("ValueError", "tuple.index(x): x not in tuple");
  });
}

}  // namespace

// ---- NamedSharding / SingleDeviceSharding -------------------------------------------------

ClassP sharding_base_class() {
  static ClassP c = interp::make_class("Sharding", {interp::T().object}, "jax._src.sharding");
  return c;
}
ClassP named_sharding_class() {
  // type(x.sharding) prints <class 'jaxlib.xla_extension.NamedSharding'> in the seeds.
  static ClassP c = interp::make_class("NamedSharding", {sharding_base_class()}, "jaxlib.xla_extension");
  return c;
}
ClassP single_device_sharding_class() {
  static ClassP c = interp::make_class("SingleDeviceSharding", {sharding_base_class()}, "jaxlib.xla_extension");
  return c;
}

Value named_sharding_value(const types::NamedSharding& s) {
  auto o = std::make_shared<ShardingObj>(named_sharding_class(), s, 0);
  if (s.memory_kind()) o->memory_kind = *s.memory_kind();
  return o;
}
Value single_device_sharding_value(int device) {
  return std::make_shared<ShardingObj>(single_device_sharding_class(), std::nullopt, device);
}

ShardingObj* as_sharding(const Value& v) {
  if (!v || v->kind != ObjKind::Native) return nullptr;
  return dynamic_cast<ShardingObj*>(v.get());
}

std::optional<types::NamedSharding> named_sharding_of(const Value& v) {
  if (auto* s = as_sharding(v)) return s->named;
  return std::nullopt;
}

Value array_sharding_value(const exec::Array& a) {
  if (a.single_device) return single_device_sharding_value(a.device_of(0));
  return named_sharding_value(a.sharding);
}

sharding::OptOutSharding out_sharding_arg(Interp& I, const Value& v, std::string_view what) {
  if (!v || v->kind == ObjKind::None) return std::nullopt;
  if (auto s = spec_of(v)) return sharding::OutSharding(*s);
  if (auto n = named_sharding_of(v)) return sharding::OutSharding(*n);
  I.raise("TypeError", fmt::format("{} must be a PartitionSpec or a NamedSharding, got {}", what, I.repr(v)));
}

namespace {

ShardingObj& self_sharding(Interp& I, CallArgs& a) {
  auto* s = a.args.empty() ? nullptr : as_sharding(a.args[0]);
  if (!s) I.raise("TypeError", "descriptor requires a Sharding object");
  return *s;
}
const types::NamedSharding& self_named(Interp& I, CallArgs& a) {
  auto& s = self_sharding(I, a);
  if (!s.named) I.raise("TypeError", "descriptor requires a 'NamedSharding' object");
  return *s.named;
}

std::vector<int> sharding_devices(const ShardingObj& s) {
  if (!s.named) return {s.device};
  if (!s.named->is_concrete()) return {};
  return s.named->mesh().device_ids();
}

Value named_sharding_new(Interp& I, const ClassP&, CallArgs& a) {
  interp::ArgParser p(I, a, "NamedSharding", {"mesh", "spec", "*", "memory_kind="});
  Value mesh = p.get("mesh"), spec = p.get("spec");
  auto ps = spec_of(spec);
  if (!ps)
    I.raise("TypeError", fmt::format("NamedSharding spec must be a jax.sharding.PartitionSpec, got {}", I.repr(spec)));
  std::optional<std::string> kind;
  if (Value k = p.get("memory_kind"); k && k->kind != ObjKind::None) kind = bi::str_arg(I, k, "memory_kind");
  return guarded(I, [&]() -> Value {
    if (auto m = mesh_of(mesh)) return named_sharding_value(types::NamedSharding(*m, *ps, kind ? kind : std::string(types::kDefaultMemoryKind)));
    if (auto am = abstract_mesh_of(mesh)) return named_sharding_value(types::NamedSharding(*am, *ps, kind));
    I.raise("TypeError", fmt::format("NamedSharding mesh must be a jax.sharding.Mesh or AbstractMesh, got {}", I.repr(mesh)));
  });
}

Value single_device_sharding_new(Interp& I, const ClassP&, CallArgs& a) {
  interp::ArgParser p(I, a, "SingleDeviceSharding", {"device", "*", "memory_kind="});
  auto id = device_id_of(p.get("device"));
  if (!id) I.raise("TypeError", fmt::format("SingleDeviceSharding needs a device, got {}", I.repr(p.get("device"))));
  auto v = single_device_sharding_value(*id);
  if (Value k = p.get("memory_kind"); k && k->kind != ObjKind::None) as_sharding(v)->memory_kind = bi::str_arg(I, k, "memory_kind");
  return v;
}

}  // namespace

Value index_tuple(const types::ShardIndex& idx, const std::vector<int64_t>& parts) {
  std::vector<Value> xs;
  for (size_t d = 0; d < idx.size(); ++d) {
    bool whole = d >= parts.size() || parts[d] == 1;
    xs.push_back(std::make_shared<interp::SliceObj>(interp::T().slice, whole ? interp::none() : interp::make_int(idx[d].start),
                                                     whole ? interp::none() : interp::make_int(idx[d].stop), interp::none()));
  }
  return interp::make_tuple(std::move(xs));
}

namespace {

Value devices_indices_map(Interp& I, const ShardingObj& s, const std::vector<int64_t>& shape, bool addressable_only = false) {
  auto d = interp::make_dict();
  if (!s.named) {
    std::vector<int64_t> parts(shape.size(), 1);
    types::ShardIndex idx;
    for (auto n : shape) idx.push_back({0, n});
    d->set(I, device_value(s.device), index_tuple(idx, parts));
    return d;
  }
  auto parts = s.named->dim_partitions(shape.size());
  for (auto& [dev, idx] : s.named->device_indices(shape))
    if (!addressable_only || is_local_device(dev)) d->set(I, device_value(dev), index_tuple(idx, parts));
  return d;
}

void init_named_sharding_classes() {
  auto c = named_sharding_class();
  c->native_new = named_sharding_new;
  def_value_repr(c, self_named);
  def_value_equality(c, self_named, [](Interp&, const Value& v) { return named_sharding_of(v); });
  bi::def_property(c, "mesh", [](Interp& I, CallArgs& a) {
    const auto& s = self_named(I, a);
    return s.is_concrete() ? mesh_value(s.mesh()) : abstract_mesh_value(s.abstract_mesh());
  });
  bi::def_property(c, "spec", [](Interp& I, CallArgs& a) { return spec_value(self_named(I, a).spec()); });
  bi::def_property(c, "memory_kind", [](Interp& I, CallArgs& a) -> Value {
    const auto& k = self_named(I, a).memory_kind();
    return k ? interp::make_str(*k) : interp::none();
  });
  bi::def(c, "with_spec", [](Interp& I, CallArgs& a) {
    interp::ArgParser p(I, a, "with_spec", {"$self", "spec"});
    auto ps = spec_of(p.get("spec"));
    if (!ps) I.raise("TypeError", fmt::format("with_spec needs a PartitionSpec, got {}", I.repr(p.get("spec"))));
    return guarded(I, [&] { return named_sharding_value(self_named(I, a).with_spec(*ps)); });
  });

  auto sd = single_device_sharding_class();
  sd->native_new = single_device_sharding_new;
  auto sd_repr = [](Interp& I, CallArgs& a) {
    auto& s = self_sharding(I, a);
    return interp::make_str(fmt::format("SingleDeviceSharding(device=CpuDevice(id={}), memory_kind={})", s.device, s.memory_kind));
  };
  bi::def(sd, "__repr__", sd_repr);
  bi::def(sd, "__str__", sd_repr);
  bi::def(sd, "__hash__", [](Interp& I, CallArgs& a) { return interp::make_int(self_sharding(I, a).device); });
  bi::def(sd, "__eq__", [](Interp& I, CallArgs& a) -> Value {
    auto* o = a.args.size() > 1 ? as_sharding(a.args[1]) : nullptr;
    if (!o) return interp::not_implemented();
    auto& s = self_sharding(I, a);
    return interp::make_bool(!o->named && o->device == s.device && o->memory_kind == s.memory_kind);
  });
  bi::def_property(sd, "memory_kind", [](Interp& I, CallArgs& a) { return interp::make_str(self_sharding(I, a).memory_kind); });

  // Shared by both classes.
  for (const auto& k : {c, sd}) {
    bi::def_property(k, "device_set", [](Interp& I, CallArgs& a) { return device_set(I, sharding_devices(self_sharding(I, a))); });
    bi::def_property(k, "addressable_devices", [](Interp& I, CallArgs& a) {
      std::vector<int> local;
      for (int id : sharding_devices(self_sharding(I, a)))
        if (is_local_device(id)) local.push_back(id);
      return device_set(I, local);
    });
    bi::def_property(k, "_device_assignment", [](Interp& I, CallArgs& a) {
      std::vector<Value> xs;
      for (int id : sharding_devices(self_sharding(I, a))) xs.push_back(device_value(id));
      return interp::make_tuple(std::move(xs));
    });
    bi::def_property(k, "num_devices", [](Interp& I, CallArgs& a) {
      auto& s = self_sharding(I, a);
      if (s.named && !s.named->is_concrete()) return interp::make_int(s.named->abstract_mesh().size());
      return interp::make_int(static_cast<int64_t>(sharding_devices(s).size()));
    });
    bi::def_property(k, "is_fully_replicated", [](Interp& I, CallArgs& a) {
      auto& s = self_sharding(I, a);
      return interp::make_bool(!s.named || s.named->is_fully_replicated());
    });
    bi::def_property(k, "is_fully_addressable", [](Interp& I, CallArgs& a) {
      for (int id : sharding_devices(self_sharding(I, a)))
        if (!is_local_device(id)) return interp::make_bool(false);
      return interp::make_bool(true);
    });
    bi::def(k, "shard_shape", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "shard_shape", {"$self", "global_shape"});
      auto shape = shape_arg(I, p.get("global_shape"));
      auto& s = self_sharding(I, a);
      if (!s.named) return int_tuple(shape);
      return guarded(I, [&] { return int_tuple(s.named->shard_shape(shape)); });
    });
    bi::def(k, "devices_indices_map", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "devices_indices_map", {"$self", "global_shape"});
      auto shape = shape_arg(I, p.get("global_shape"));
      return guarded(I, [&] { return devices_indices_map(I, self_sharding(I, a), shape); });
    });
    bi::def(k, "addressable_devices_indices_map", [](Interp& I, CallArgs& a) {
      interp::ArgParser p(I, a, "addressable_devices_indices_map", {"$self", "global_shape"});
      auto shape = shape_arg(I, p.get("global_shape"));
      return guarded(I, [&] { return devices_indices_map(I, self_sharding(I, a), shape, true); });
    });
  }
}

}  // namespace

// ---- ShapedArray --------------------------------------------------------------------------

ClassP shaped_array_class() {
  static ClassP c = interp::make_class("ShapedArray", {interp::T().object}, "jax._src.core");
  return c;
}

Value shaped_array_value(const types::ArrayType& t) { return std::make_shared<ShapedArrayObj>(shaped_array_class(), t); }

namespace {

const types::ArrayType& self_type(Interp& I, CallArgs& a) {
  auto* s = a.args.empty() || a.args[0]->kind != ObjKind::Native ? nullptr : dynamic_cast<ShapedArrayObj*>(a.args[0].get());
  if (!s) I.raise("TypeError", "descriptor requires a 'ShapedArray' object");
  return s->type;
}

// jax.sharding.ManualAxisType (current JAX): how a value inside shard_map relates to the
// manual axes: the axes it varies over (the vma), and those it is unreduced / reduced over.
ClassP manual_axis_type_class() {
  static ClassP c = [] {
    auto k = interp::make_class("ManualAxisType", {interp::T().object}, "jax._src.core");
    bi::def(k, "__repr__", [](Interp& I, CallArgs& a) {
      const Value& self = a.args.at(0);
      // JAX's own repr (its closing parenthesis stands before unreduced_kind).
      return interp::make_str(fmt::format("ManualAxisType(varying={}, unreduced={}, reduced={}), unreduced_kind={}",
                                          I.repr(I.getattr(self, "varying")), I.repr(I.getattr(self, "unreduced")),
                                          I.repr(I.getattr(self, "reduced")), I.repr(I.getattr(self, "unreduced_kind"))));
    });
    return k;
  }();
  return c;
}

Value manual_axis_type_value(Interp& I, const std::vector<std::string>& varying, const std::vector<std::string>& unreduced) {
  auto obj = std::make_shared<interp::InstanceObj>(manual_axis_type_class());
  obj->dict.set("varying", frozenset_of(I, varying));
  obj->dict.set("unreduced", frozenset_of(I, unreduced));
  obj->dict.set("reduced", frozenset_of(I, {}));
  obj->dict.set("unreduced_kind", unreduced.empty() ? interp::none() : interp::make_str("sum"));
  return obj;
}

void init_shaped_array_class() {
  auto c = shaped_array_class();
  def_value_repr(c, self_type);
  bi::def(c, "str_short", [](Interp& I, CallArgs& a) { return interp::make_str(self_type(I, a).str_short()); });
  def_value_equality(c, self_type, [](Interp&, const Value& v) -> const types::ArrayType* {
    auto* o = v->kind == ObjKind::Native ? dynamic_cast<ShapedArrayObj*>(v.get()) : nullptr;
    return o ? &o->type : nullptr;
  });
  bi::def_property(c, "shape", [](Interp& I, CallArgs& a) { return int_tuple(self_type(I, a).shape()); });
  bi::def_property(c, "dtype", [](Interp& I, CallArgs& a) { return dtype_value(self_type(I, a).dtype()); });
  bi::def_property(c, "ndim", [](Interp& I, CallArgs& a) { return interp::make_int(static_cast<int64_t>(self_type(I, a).rank())); });
  bi::def_property(c, "size", [](Interp& I, CallArgs& a) { return interp::make_int(self_type(I, a).num_elements()); });
  bi::def_property(c, "weak_type", [](Interp& I, CallArgs& a) { return interp::make_bool(self_type(I, a).weak_type()); });
  bi::def_property(c, "sharding", [](Interp& I, CallArgs& a) { return named_sharding_value(self_type(I, a).sharding()); });
  bi::def_property(c, "vma", [](Interp& I, CallArgs& a) { return frozenset_of(I, self_type(I, a).vma()); });
  bi::def_property(c, "manual_axis_type", [](Interp& I, CallArgs& a) { return manual_axis_type_value(I, self_type(I, a).vma(), {}); });
}

}  // namespace

void init_sharding_classes() {
  static bool done = false;
  if (done) return;
  done = true;
  init_spec_class();
  init_named_sharding_classes();
  init_shaped_array_class();
}

bool is_sharding_leaf(const Value& v) { return v->kind == ObjKind::None || spec_of(v) || as_sharding(v); }

}  // namespace shard::api
