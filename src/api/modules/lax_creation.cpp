// jax.lax creation: broadcasted_iota, iota and full, placed by sharding= / out_sharding=.
#include "api/modules/lax_module.hpp"
#include "api/objects/dtype_value.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api::lax {

using interp::ArgParser;

void add_creation(ModuleObj& m) {
  def_lax(m, "broadcasted_iota", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "broadcasted_iota", {"dtype", "shape", "dimension", "*", "out_sharding=", "sharding="});
    DType dt = storage_dtype(require_dtype(I, p.get("dtype")), false);
    Shape shape = shape_arg(I, p.get("shape"), "broadcasted_iota");
    int64_t dim = int_arg(I, p.get("dimension"), "dimension");
    auto out = out_sharding_arg(I, p.has("out_sharding") ? p.get("out_sharding") : p.get("sharding"));
    return apply(I, "broadcasted_iota", {}, [&](Trace& t, const std::vector<ValueId>&) {
      int64_t d = trace::normalize_axis("broadcasted_iota", dim, shape.size());
      return std::vector<ValueId>{trace::iota(t, dt, shape, d, out)};
    });
  });
  def_lax(m, "iota", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "iota", {"dtype", "size", "*", "sharding="});
    DType dt = storage_dtype(require_dtype(I, p.get("dtype")), false);
    int64_t n = int_arg(I, p.get("size"), "size");
    auto out = out_sharding_arg(I, p.get("sharding"));
    return apply(I, "iota", {}, [&](Trace& t, const std::vector<ValueId>&) { return std::vector<ValueId>{trace::iota(t, dt, {n}, 0, out)}; });
  });
  def_lax(m, "full", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "full", {"shape", "fill_value", "dtype=", "*", "sharding="});
    Shape shape = shape_arg(I, p.get("shape"), "full");
    Value fill = p.get("fill_value");
    auto dt = dtype_arg(I, p.get("dtype"));
    auto out = out_sharding_arg(I, p.get("sharding"));
    auto st = python_scalar_type(fill, false);
    if (!st && !is_array_like(fill)) I.raise("TypeError", "lax.full: fill_value must be a scalar");
    DTypeW w = dt ? DTypeW{storage_dtype(*dt, false), false} : st ? *st : DTypeW{type_of(fill).dtype(), false};
    double v = float_arg(I, fill, "fill_value");
    return apply(I, "full", {}, [&](Trace& t, const std::vector<ValueId>&) { return std::vector<ValueId>{trace::full(t, shape, v, w, out)}; });
  });
}

}  // namespace shard::api::lax
