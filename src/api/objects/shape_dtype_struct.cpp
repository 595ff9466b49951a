#include "api/objects/shape_dtype_struct.hpp"

#include <fmt/format.h>

#include "api/objects/dtype_value.hpp"
#include "api/objects/sharding_objects.hpp"
#include "api/objects/array_value.hpp"
#include "api/op_args.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using interp::CallArgs;
using interp::ClassP;
using interp::Interp;
using interp::ObjKind;
using interp::Value;
namespace bi = interp::bi;

types::ArrayType ShapeDtypeStructObj::type() const {
  if (sharding) return types::ArrayType::from_sharding(dtype, shape, *sharding, {}, weak_type);
  return types::ArrayType(dtype, shape, {}, {}, {}, weak_type);
}

namespace {

ShapeDtypeStructObj& self_sds(Interp& I, const CallArgs& a, const char* m) {
  return bi::native_self<ShapeDtypeStructObj>(I, a, shape_dtype_struct_class(), "ShapeDtypeStruct", m);
}

// ShapeDtypeStruct(shape, dtype, *, sharding=None, weak_type=False)
Value sds_new(Interp& I, const ClassP& cls, CallArgs& a) {
  interp::ArgParser p(I, a, "ShapeDtypeStruct", {"shape", "dtype", "*", "sharding=", "weak_type="});
  types::Shape shape = shape_arg(I, p.get("shape"), "ShapeDtypeStruct");
  types::DType dtype = require_dtype(I, p.get("dtype"));
  std::optional<types::NamedSharding> sharding;
  if (Value s = p.get("sharding"); s && s->kind != ObjKind::None) {
    auto* sh = as_sharding(s);
    if (!sh || !sh->named) I.raise("TypeError", fmt::format("ShapeDtypeStruct sharding must be a NamedSharding, got {}", I.repr(s)));
    sharding = *sh->named;
    guarded(I, [&] { sharding->check_divisible(shape); });
  }
  const bool weak = p.get("weak_type") && I.truthy(p.get("weak_type"));
  return std::make_shared<ShapeDtypeStructObj>(cls, std::move(shape), dtype, std::move(sharding), weak);
}

std::string sds_repr(Interp& I, const ShapeDtypeStructObj& s) {
  std::string out = fmt::format("ShapeDtypeStruct(shape={}, dtype={}", I.repr(bi::int_tuple(s.shape)), types::dtype_name(s.dtype));
  if (s.sharding) out += ", sharding=" + I.repr(named_sharding_value(*s.sharding));
  if (s.weak_type) out += ", weak_type=True";
  return out + ")";
}

}  // namespace

ClassP shape_dtype_struct_class() {
  static ClassP c = [] {
    auto k = bi::native_class("ShapeDtypeStruct", interp::T().object, "jax");
    k->native_new = sds_new;
    bi::def(k, "__repr__", [](Interp& I, CallArgs& a) -> Value { return interp::make_str(sds_repr(I, self_sds(I, a, "__repr__"))); });
    bi::def(k, "__eq__", [](Interp& I, CallArgs& a) -> Value {
      auto& x = self_sds(I, a, "__eq__");
      auto* y = a.args.size() > 1 ? as_shape_dtype_struct(a.args[1]) : nullptr;
      return interp::make_bool(y && x.shape == y->shape && x.dtype == y->dtype && x.sharding == y->sharding && x.weak_type == y->weak_type);
    });
    bi::def(k, "__hash__", [](Interp& I, CallArgs& a) -> Value {
      auto& s = self_sds(I, a, "__hash__");
      size_t h = std::hash<int>()(static_cast<int>(s.dtype));
      for (auto d : s.shape) h = h * 1000003 + std::hash<int64_t>()(d);
      return interp::make_int(static_cast<int64_t>(h >> 1));
    });
    bi::def_property(k, "shape", [](Interp& I, CallArgs& a) -> Value { return bi::int_tuple(self_sds(I, a, "shape").shape); });
    bi::def_property(k, "dtype", [](Interp& I, CallArgs& a) -> Value { return dtype_value(self_sds(I, a, "dtype").dtype); });
    bi::def_property(k, "ndim", [](Interp& I, CallArgs& a) -> Value { return interp::make_int(static_cast<int64_t>(self_sds(I, a, "ndim").shape.size())); });
    bi::def_property(k, "size", [](Interp& I, CallArgs& a) -> Value { return interp::make_int(types::shape_product(self_sds(I, a, "size").shape)); });
    bi::def_property(k, "weak_type", [](Interp& I, CallArgs& a) -> Value { return interp::make_bool(self_sds(I, a, "weak_type").weak_type); });
    bi::def_property(k, "sharding", [](Interp& I, CallArgs& a) -> Value {
      auto& s = self_sds(I, a, "sharding");
      return s.sharding ? named_sharding_value(*s.sharding) : interp::none();
    });
    return k;
  }();
  return c;
}

ShapeDtypeStructObj* as_shape_dtype_struct(const Value& v) { return dynamic_cast<ShapeDtypeStructObj*>(v.get()); }

Value shape_dtype_struct_value(types::Shape shape, types::DType dtype, std::optional<types::NamedSharding> sharding, bool weak_type) {
  return std::make_shared<ShapeDtypeStructObj>(shape_dtype_struct_class(), std::move(shape), dtype, std::move(sharding), weak_type);
}

}  // namespace shard::api
