#include "api/objects/dtype_value.hpp"

#include <fmt/format.h>

#include <map>

#include "api/objects/array_value.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api {

using interp::CallArgs;
using interp::Value;
using types::DType;

namespace {

DTypeObj* as_dtype(const Value& v) {
  if (!v || v->kind != interp::ObjKind::Native) return nullptr;
  return dynamic_cast<DTypeObj*>(v.get());
}

std::string numpy_name(DType d) { return std::string(types::dtype_name(d)); }

interp::ClassP dtype_class() {
  static interp::ClassP c = [] {
    auto k = interp::make_class("dtype", {interp::T().object}, "numpy");
    interp::bi::def(k, "__repr__", [](Interp&, CallArgs& a) {
      auto* d = as_dtype(a.args[0]);
      return interp::make_str(fmt::format("dtype('{}')", numpy_name(d->dtype)));
    });
    interp::bi::def(k, "__str__", [](Interp&, CallArgs& a) { return interp::make_str(numpy_name(as_dtype(a.args[0])->dtype)); });
    interp::bi::def(k, "__eq__", [](Interp& I, CallArgs& a) {
      auto other = dtype_from_value(I, a.args[1]);
      return interp::make_bool(other && *other == as_dtype(a.args[0])->dtype);
    });
    interp::bi::def(k, "__ne__", [](Interp& I, CallArgs& a) {
      auto other = dtype_from_value(I, a.args[1]);
      return interp::make_bool(!(other && *other == as_dtype(a.args[0])->dtype));
    });
    interp::bi::def(k, "__hash__", [](Interp&, CallArgs& a) {
      return interp::make_int(static_cast<int64_t>(std::hash<std::string>{}(numpy_name(as_dtype(a.args[0])->dtype))));
    });
    interp::bi::def_property(k, "name", [](Interp&, CallArgs& a) { return interp::make_str(numpy_name(as_dtype(a.args[0])->dtype)); });
    interp::bi::def_property(k, "itemsize", [](Interp&, CallArgs& a) {
      return interp::make_int(static_cast<int64_t>(types::dtype_size(as_dtype(a.args[0])->dtype)));
    });
    interp::bi::def_property(k, "kind", [](Interp&, CallArgs& a) {
      char c = types::dtype_kind(as_dtype(a.args[0])->dtype);
      return interp::make_str(std::string(1, c));
    });
    return k;
  }();
  return c;
}

// The scalar types: `<class 'jax.numpy.float32'>` / `<class 'numpy.float32'>`; calling one
// converts its argument to that dtype.
interp::ClassP scalar_type_class(DType d, bool host) {
  auto k = interp::make_class(numpy_name(d) == "bool" ? "bool_" : numpy_name(d), {interp::T().object}, host ? "numpy" : "jax.numpy");
  k->native_new = [d, host](Interp& I, const interp::ClassP&, CallArgs& a) -> Value {
    if (a.args.size() != 1) I.raise("TypeError", fmt::format("{}() takes exactly one argument", numpy_name(d)));
    return guarded(I, [&] {
      auto h = host_array_from_python(I, a.args[0], std::nullopt);
      return host ? wrap(host_astype(h, d), true) : wrap(to_device(h, d, std::nullopt), false);
    });
  };
  return k;
}

}  // namespace

Value dtype_value(DType d) { return std::make_shared<DTypeObj>(dtype_class(), d, false); }

Value scalar_type_value(DType d, bool host) {
  static std::map<std::pair<int, bool>, interp::ClassP> made;  // one class per dtype, so `is` works
  auto& c = made[{static_cast<int>(d), host}];
  if (!c) c = scalar_type_class(d, host);
  return c;
}

std::optional<DType> dtype_from_value(Interp& I, const Value& v) {
  if (!v) return std::nullopt;
  if (auto* d = as_dtype(v)) return d->dtype;
  if (v->kind == interp::ObjKind::Class) {
    auto& c = static_cast<interp::ClassObj&>(*v);
    if (c.module == "numpy" || c.module == "jax.numpy") return types::dtype_from_name(c.name);
    if (&c == interp::T().float_.get()) return DType::F64;
    if (&c == interp::T().int_.get()) return DType::I64;
    if (&c == interp::T().bool_.get()) return DType::Bool;
  }
  if (v->kind == interp::ObjKind::Str) return types::dtype_from_name(static_cast<interp::StrObj&>(*v).v);
  return std::nullopt;
}

DType require_dtype(Interp& I, const Value& v) {
  if (auto d = dtype_from_value(I, v)) return *d;
  if (v && v->kind == interp::ObjKind::Str)
    I.raise("TypeError", fmt::format("data type {} not understood", I.repr(v)));
  I.raise("TypeError", fmt::format("Cannot interpret '{}' as a data type", I.repr(v)));
}

}  // namespace shard::api
