// jax.ShapeDtypeStruct: an array's shape, dtype and (optionally) sharding without data. What
// jax.eval_shape returns, and what it, make_jaxpr and jit's AOT lowering accept in place of
// arrays.
#pragma once
#include <optional>

#include "interp/interp.hpp"
#include "types/array_type.hpp"

namespace shard::api {

struct ShapeDtypeStructObj : interp::NativeObj {
  types::Shape shape;
  types::DType dtype;
  std::optional<types::NamedSharding> sharding;
  bool weak_type = false;
  ShapeDtypeStructObj(interp::ClassP c, types::Shape s, types::DType d, std::optional<types::NamedSharding> sh, bool weak)
      : NativeObj(std::move(c)), shape(std::move(s)), dtype(d), sharding(std::move(sh)), weak_type(weak) {}
  // The abstract value it stands for (its sharding's Explicit axes in the type).
  types::ArrayType type() const;
};

interp::ClassP shape_dtype_struct_class();
ShapeDtypeStructObj* as_shape_dtype_struct(const interp::Value& v);
interp::Value shape_dtype_struct_value(types::Shape shape, types::DType dtype, std::optional<types::NamedSharding> sharding, bool weak_type);

}  // namespace shard::api
