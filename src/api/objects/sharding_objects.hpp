// The Python objects of device placement as JAX users see them: CpuDevice, numpy object
// arrays (mesh.devices), AxisType, Mesh, AbstractMesh, PartitionSpec, NamedSharding,
// SingleDeviceSharding and ShapedArray (jax.typeof). Each wraps the immutable value of the
// types library; the helpers convert between Python values and those types for every
// binding that takes `out_sharding=`, a mesh or a spec.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exec/array.hpp"
#include "interp/interp.hpp"
#include "sharding/common.hpp"
#include "types/array_type.hpp"

namespace shard::api {

using interp::ClassP;
using interp::Interp;
using interp::Value;

// ---- devices (devices.cpp) ----------------------------------------------------------------

struct DeviceObj : interp::NativeObj {
  int id;
  DeviceObj(ClassP c, int i) : NativeObj(std::move(c)), id(i) {}
};
ClassP device_class();                  // CpuDevice
Value device_value(int id);             // one object per id (so `is` and sets behave)
std::optional<int> device_id_of(const Value& v);
Value device_list(const std::vector<int>& ids);  // [CpuDevice(id=0), ...]
Value device_set(Interp& I, std::vector<int> ids);  // {CpuDevice(id=0), ...} (ascending ids)

// numpy arrays of dtype=object (np.array(jax.devices()), mesh.devices): a shape and
// row-major items, printed as numpy prints them.
struct ObjectArrayObj : interp::NativeObj {
  types::Shape shape;
  std::vector<Value> items;
  ObjectArrayObj(ClassP c, types::Shape s, std::vector<Value> xs)
      : NativeObj(std::move(c)), shape(std::move(s)), items(std::move(xs)) {}
};
ClassP object_array_class();
Value make_object_array(types::Shape shape, std::vector<Value> items);
ObjectArrayObj* as_object_array(const Value& v);
// Nested lists/tuples whose leaves are not numbers (e.g. devices) as an object array, or
// nullopt when the data holds only numbers/bools/arrays (a numeric array instead).
std::optional<Value> object_array_from_python(Interp& I, const Value& data);
// numpy's str / repr of an object array (elements by repr, no padding, width 75).
std::string object_array_str(Interp& I, const ObjectArrayObj& a);
std::string object_array_repr(Interp& I, const ObjectArrayObj& a);

// ---- meshes (mesh_objects.cpp) ------------------------------------------------------------

struct AxisTypeObj : interp::NativeObj {
  types::AxisType type;
  AxisTypeObj(ClassP c, types::AxisType t) : NativeObj(std::move(c)), type(t) {}
};
ClassP axis_type_class();  // jax.sharding.AxisType (members Explicit, Auto, Manual)
Value axis_type_value(types::AxisType t);
std::optional<types::AxisType> axis_type_of(const Value& v);
Value axis_types_tuple(const std::vector<types::AxisType>& ts);
// axis_types= as passed: None, one AxisType, or a sequence of them (raises TypeError).
std::optional<std::vector<types::AxisType>> axis_types_arg(Interp& I, const Value& v, size_t naxes);
// axis_names= as passed: a str or a sequence of str.
types::AxisNames axis_names_arg(Interp& I, const Value& v, std::string_view what);

struct MeshObj : interp::NativeObj {
  types::Mesh mesh;
  MeshObj(ClassP c, types::Mesh m) : NativeObj(std::move(c)), mesh(std::move(m)) {}
};
struct AbstractMeshObj : interp::NativeObj {
  types::AbstractMesh mesh;
  AbstractMeshObj(ClassP c, types::AbstractMesh m) : NativeObj(std::move(c)), mesh(std::move(m)) {}
};
ClassP mesh_class();           // jax.sharding.Mesh
ClassP abstract_mesh_class();  // jax.sharding.AbstractMesh
Value mesh_value(const types::Mesh& m);
Value abstract_mesh_value(const types::AbstractMesh& m);
std::optional<types::Mesh> mesh_of(const Value& v);
std::optional<types::AbstractMesh> abstract_mesh_of(const Value& v);  // either kind of mesh
// collections.OrderedDict([('dp', 4), ('mp', 2)]) — mesh.shape.
Value mesh_shape_dict(Interp& I, const std::vector<std::pair<std::string, int64_t>>& shape);

// use_mesh / set_mesh: the context mesh (trace::MeshContext) as context managers.
// A context manager object: `enter` runs at __enter__ (its value is what `as` binds), `exit`
// at __exit__.
Value context_manager(std::function<Value()> enter, std::function<void()> exit);
Value use_mesh_context(const types::Mesh& m);   // `with use_mesh(m):` / `with m:`
Value set_mesh_now(const types::Mesh& m);       // sets now; the result restores on __exit__
void push_context_mesh(const types::Mesh& m);
void pop_context_mesh();

// ---- specs and shardings (sharding_objects.cpp) -------------------------------------------

struct SpecObj : interp::NativeObj {
  types::PartitionSpec spec;
  SpecObj(ClassP c, types::PartitionSpec s) : NativeObj(std::move(c)), spec(std::move(s)) {}
};
ClassP spec_class();  // jax.sharding.PartitionSpec
Value spec_value(const types::PartitionSpec& s);
std::optional<types::PartitionSpec> spec_of(const Value& v);
// One PartitionSpec entry from Python: None, 'dp', ('dp', 'mp') (raises TypeError).
types::PartitionSpec::Entry spec_entry_arg(Interp& I, const Value& v);

// NamedSharding (concrete or abstract) and SingleDeviceSharding.
struct ShardingObj : interp::NativeObj {
  std::optional<types::NamedSharding> named;  // NamedSharding
  int device = 0;                             // SingleDeviceSharding
  std::string memory_kind = types::kDefaultMemoryKind;
  ShardingObj(ClassP c, std::optional<types::NamedSharding> n, int d)
      : NativeObj(std::move(c)), named(std::move(n)), device(d) {}
};
// slice(start, stop, None) per dimension (slice(None) where the dim is whole): a block's index
// as JAX's devices_indices_map gives it.
Value index_tuple(const types::ShardIndex& idx, const std::vector<int64_t>& parts);
ClassP sharding_base_class();           // jax.sharding.Sharding (base of both)
ClassP named_sharding_class();          // jax.sharding.NamedSharding
ClassP single_device_sharding_class();  // jax.sharding.SingleDeviceSharding
Value named_sharding_value(const types::NamedSharding& s);
Value single_device_sharding_value(int device);
ShardingObj* as_sharding(const Value& v);
// A leaf of a tree of shardings (jit's in/out_shardings, with_sharding_constraint's): None
// (unspecified), a PartitionSpec or a Sharding.
bool is_sharding_leaf(const Value& v);
std::optional<types::NamedSharding> named_sharding_of(const Value& v);
// x.sharding: NamedSharding over the array's mesh, or SingleDeviceSharding.
Value array_sharding_value(const exec::Array& a);

// `out_sharding=` (and reshard / device_put targets) as passed: None -> nullopt, a
// PartitionSpec or a NamedSharding; anything else raises TypeError naming `what`.
sharding::OptOutSharding out_sharding_arg(Interp& I, const Value& v, std::string_view what);

// jax.typeof(x): ShapedArray.
struct ShapedArrayObj : interp::NativeObj {
  types::ArrayType type;
  ShapedArrayObj(ClassP c, types::ArrayType t) : NativeObj(std::move(c)), type(std::move(t)) {}
};
ClassP shaped_array_class();
Value shaped_array_value(const types::ArrayType& t);

// Registration of the classes' methods (idempotent; called by register_jax_modules).
void init_device_classes();
void init_mesh_classes();
void init_sharding_classes();
// .sharding, .devices(), .is_fully_replicated, .addressable_shards on jax.Array
// (array_placement.cpp).
void install_array_placement();

}  // namespace shard::api
