// jax.lax reductions (reduce_sum ... reduce_or, argmax, argmin), cumulative ops (cumsum,
// cumprod, cummax, cummin) and sort.
#include "api/modules/lax_module.hpp"
#include "api/objects/dtype_value.hpp"
#include "interp/builtins/support.hpp"

namespace shard::api::lax {

using ir::ReduceKind;
using interp::ArgParser;

namespace {

Value lax_reduce(Interp& I, CallArgs& a, const char* name, ReduceKind kind) {
  ArgParser p(I, a, name, {"operand", "axes"});
  auto axes = int_list(I, p.get("axes"), "axes");
  Value x = lax_operand(I, p.get("operand"), name, 0);
  return apply(I, name, {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
    if (axes.empty()) return std::vector<ValueId>{ids[0]};
    return std::vector<ValueId>{trace::reduce(t, name, kind, ids[0], axes, false)};
  });
}

Value lax_cumulative(Interp& I, CallArgs& a, const char* name, ReduceKind kind) {
  ArgParser p(I, a, name, {"operand", "axis=", "reverse="});
  int64_t axis = p.has("axis") ? int_arg(I, p.get("axis"), "axis") : 0;
  bool reverse = p.has("reverse") && I.truthy(p.get("reverse"));
  Value x = lax_operand(I, p.get("operand"), name, 0);
  return apply(I, name, {x}, [&](Trace& t, const std::vector<ValueId>& ids) {
    ValueId v = ids[0];
    if (reverse) v = trace::rev(t, v, {axis});
    v = trace::cumulative(t, name, kind, v, axis);
    if (reverse) v = trace::rev(t, v, {axis});
    return std::vector<ValueId>{v};
  });
}

}  // namespace

void add_reductions(ModuleObj& m) {
  def_lax(m, "reduce_sum", [](Interp& I, CallArgs& a) { return lax_reduce(I, a, "reduce_sum", ReduceKind::Sum); });
  def_lax(m, "reduce_prod", [](Interp& I, CallArgs& a) { return lax_reduce(I, a, "reduce_prod", ReduceKind::Prod); });
  def_lax(m, "reduce_max", [](Interp& I, CallArgs& a) { return lax_reduce(I, a, "reduce_max", ReduceKind::Max); });
  def_lax(m, "reduce_min", [](Interp& I, CallArgs& a) { return lax_reduce(I, a, "reduce_min", ReduceKind::Min); });
  def_lax(m, "reduce_and", [](Interp& I, CallArgs& a) { return lax_reduce(I, a, "reduce_and", ReduceKind::And); });
  def_lax(m, "reduce_or", [](Interp& I, CallArgs& a) { return lax_reduce(I, a, "reduce_or", ReduceKind::Or); });
  for (const char* nm : {"argmax", "argmin"}) {
    const ReduceKind kind = std::string(nm) == "argmax" ? ReduceKind::Max : ReduceKind::Min;
    def_lax(m, nm, [nm, kind](Interp& I, CallArgs& a) {
      ArgParser p(I, a, nm, {"operand", "axis", "index_dtype"});
      int64_t axis = int_arg(I, p.get("axis"), "axis");
      DType idt = storage_dtype(require_dtype(I, p.get("index_dtype")), false);
      return apply(I, nm, {lax_operand(I, p.get("operand"), nm, 0)}, [&](Trace& t, const std::vector<ValueId>& ids) {
        ValueId r = trace::argminmax(t, nm, kind, ids[0], axis, false);
        return std::vector<ValueId>{trace::convert(t, r, {idt, false})};
      });
    });
  }
  def_lax(m, "cumsum", [](Interp& I, CallArgs& a) { return lax_cumulative(I, a, "cumsum", ReduceKind::Sum); });
  def_lax(m, "cumprod", [](Interp& I, CallArgs& a) { return lax_cumulative(I, a, "cumprod", ReduceKind::Prod); });
  def_lax(m, "cummax", [](Interp& I, CallArgs& a) { return lax_cumulative(I, a, "cummax", ReduceKind::Max); });
  def_lax(m, "cummin", [](Interp& I, CallArgs& a) { return lax_cumulative(I, a, "cummin", ReduceKind::Min); });
  // lax.sort(operand, dimension=-1, is_stable=True, num_keys=1): a sequence of operands is
  // sorted by its first num_keys and comes back as a tuple.
  def_lax(m, "sort", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "sort", {"operand", "dimension=", "is_stable=", "num_keys="});
    int64_t dim = p.has("dimension") ? int_arg(I, p.get("dimension"), "dimension") : -1;
    const int64_t num_keys = p.has("num_keys") ? int_arg(I, p.get("num_keys"), "num_keys") : 1;
    Value operand = p.get("operand");
    if (operand->kind == interp::ObjKind::Tuple || operand->kind == interp::ObjKind::List) {
      std::vector<Value> ops;
      for (auto& v : I.to_vector(operand)) ops.push_back(lax_operand(I, v, "sort", ops.size()));
      auto outs = apply_multi(I, "sort", ops, [&](Trace& t, const std::vector<ValueId>& ids) { return trace::sort_multi(t, ids, dim, num_keys); });
      return interp::make_tuple(outs);
    }
    return apply(I, "sort", {lax_operand(I, operand, "sort", 0)}, [&](Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{trace::sort(t, ids[0], dim)};
    });
  });
}

}  // namespace shard::api::lax
