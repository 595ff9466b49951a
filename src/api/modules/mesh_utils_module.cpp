// jax.experimental.mesh_utils: create_device_mesh(mesh_shape, devices=None, ...) lays the
// devices out row-major in an array of the mesh's shape (CPU devices have no physical
// topology to follow, so JAX does the same), and create_hybrid_device_mesh for one process.
#include <fmt/format.h>

#include "api/op_args.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using interp::CallArgs;
using interp::Interp;
using interp::ObjKind;
using interp::Value;

namespace {

Value device_array(Interp& I, const Value& devices_arg, const types::Shape& shape) {
  Value jax = I.import_module("jax", I.current_loc());
  Value np = I.import_module("numpy", I.current_loc());
  Value devices = devices_arg && devices_arg->kind != ObjKind::None ? devices_arg : I.call(I.getattr(jax, "devices"), std::vector<Value>{});
  auto list = I.to_vector(devices);
  const int64_t want = types::shape_product(shape);
  if (static_cast<int64_t>(list.size()) != want)
    I.raise("ValueError", fmt::format("Number of devices {} must equal the product of mesh_shape {}", list.size(), types::py_int_tuple(shape)));
  Value arr = I.call(I.getattr(np, "array"), {interp::make_list(std::move(list))});
  return I.call(I.getattr(arr, "reshape"), {interp::bi::int_tuple(shape)});
}

Value create_device_mesh(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "create_device_mesh",
                      {"mesh_shape", "devices=", "*", "contiguous_submeshes=", "allow_split_physical_axes="});
  return device_array(I, p.get("devices"), shape_arg(I, p.get("mesh_shape"), "create_device_mesh"));
}

// One process: the DCN mesh has size 1 along every axis, so the mesh is ICI x DCN elementwise.
Value create_hybrid_device_mesh(Interp& I, CallArgs& a) {
  interp::ArgParser p(I, a, "create_hybrid_device_mesh",
                      {"mesh_shape", "dcn_mesh_shape", "devices=", "*", "process_is_granule=", "should_sort_granules_by_key=",
                       "allow_split_physical_axes="});
  auto ici = shape_arg(I, p.get("mesh_shape"), "create_hybrid_device_mesh");
  auto dcn = shape_arg(I, p.get("dcn_mesh_shape"), "create_hybrid_device_mesh");
  if (ici.size() != dcn.size()) I.raise("ValueError", "create_hybrid_device_mesh: mesh_shape and dcn_mesh_shape must have the same length");
  types::Shape shape;
  for (size_t i = 0; i < ici.size(); ++i) shape.push_back(ici[i] * dcn[i]);
  return device_array(I, p.get("devices"), shape);
}

void fill_mesh_utils(Interp&, interp::ModuleObj& m) {
  m.dict.set("create_device_mesh", interp::make_builtin("create_device_mesh", create_device_mesh));
  m.dict.set("create_hybrid_device_mesh", interp::make_builtin("create_hybrid_device_mesh", create_hybrid_device_mesh));
}

}  // namespace

void register_mesh_utils_module() { Interp::register_builtin_module("jax.experimental.mesh_utils", fill_mesh_utils); }

}  // namespace shard::api
