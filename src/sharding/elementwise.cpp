// §1 Elementwise: unary ops keep the sharding; n-ary ops broadcast shapes and shardings.
#include <fmt/format.h>

#include <algorithm>

#include "sharding/rules.hpp"

namespace shard::sharding {

using types::throw_type_error;

namespace {

struct Broadcast {
  Shape shape;
  std::vector<Entry> spec;
};

// numpy broadcasting of shapes; rank-0 operands take part in shapes only trivially.
Shape broadcast_shapes(const RuleContext& ctx, const std::vector<ArrayType>& operands) {
  size_t rank = 0;
  for (const auto& t : operands) rank = std::max(rank, t.rank());
  Shape out(rank, 1);
  bool ok = true;
  for (const auto& t : operands) {
    size_t off = rank - t.rank();
    for (size_t d = 0; d < t.rank(); ++d) {
      int64_t s = t.shape()[d];
      int64_t& o = out[off + d];
      if (s == o || s == 1) continue;
      if (o == 1)
        o = s;
      else
        ok = false;
    }
  }
  if (!ok) {
    std::string shapes;
    for (size_t i = 0; i < operands.size(); ++i)
      shapes += (i ? ", " : "") + shape_tuple(operands[i].shape());
    throw_type_error(
        fmt::format("`{}` got incompatible shapes for broadcasting: {}.", ctx.op, shapes));
  }
  return out;
}

// Each non-scalar operand's spec with rank aligned by prepending None (and its aligned shape).
struct Aligned {
  Shape shape;
  std::vector<Entry> spec;
  size_t index;  // position among the operands
};

std::vector<Aligned> align(const std::vector<ArrayType>& operands, size_t rank) {
  std::vector<Aligned> out;
  for (size_t i = 0; i < operands.size(); ++i) {
    const ArrayType& t = operands[i];
    if (t.rank() == 0) continue;  // scalars take no part
    Aligned a{Shape(rank - t.rank(), 1), std::vector<Entry>(rank - t.rank()), i};
    a.shape.insert(a.shape.end(), t.shape().begin(), t.shape().end());
    auto e = spec_entries(t);
    a.spec.insert(a.spec.end(), e.begin(), e.end());
    out.push_back(std::move(a));
  }
  return out;
}

// JAX's broadcasting_sharding_rule over rank-aligned specs.
std::vector<Entry> broadcast_specs(const RuleContext& ctx, const std::vector<ArrayType>& operands,
                                   const std::vector<Aligned>& aligned, size_t rank) {
  std::vector<Entry> result(rank);
  for (size_t d = 0; d < rank; ++d) {
    bool all_equal = std::all_of(aligned.begin(), aligned.end(),
                                 [&](const Aligned& a) { return a.spec[d] == aligned[0].spec[d]; });
    if (all_equal) {
      if (!aligned.empty()) result[d] = aligned[0].spec[d];
      continue;
    }
    std::vector<Entry> non_trivial;  // None on a size-1 dim never constrains
    for (const auto& a : aligned)
      if (!(a.shape[d] == 1 && a.spec[d].empty())) non_trivial.push_back(a.spec[d]);
    if (non_trivial.empty()) continue;
    if (std::all_of(non_trivial.begin(), non_trivial.end(),
                    [&](const Entry& e) { return e == non_trivial[0]; })) {
      result[d] = non_trivial[0];
      continue;
    }
    const Aligned* conflicting = nullptr;
    for (const auto& a : aligned) {
      if (a.spec[d].empty()) continue;  // None never conflicts
      if (result[d].empty())
        result[d] = a.spec[d];
      else if (a.spec[d] != result[d] && !conflicting)
        conflicting = &a;
    }
    if (!conflicting) continue;
    // Propose resharding the conflicting operand to the first operand's choice on every dim.
    std::vector<Entry> want;
    for (size_t k = 0; k < rank; ++k) {
      Entry e;
      if (conflicting->shape[k] != 1)
        for (const auto& a : aligned)
          if (!a.spec[k].empty()) {
            e = a.spec[k];
            break;
          }
      want.push_back(e);
    }
    const ArrayType& bad = operands[conflicting->index];
    want.erase(want.begin(), want.begin() + static_cast<long>(rank - bad.rank()));
    std::string specs;
    for (size_t i = 0; i < aligned.size(); ++i)
      specs += (i ? ", " : "") + entries_tuple(aligned[i].spec);
    throw_sharding_type_error(fmt::format(
        "`{}` got incompatible shardings for broadcasting: {}. Operand types: {}. Reshard one "
        "operand so both agree, e.g. `reshard(x, {})` for the operand of type {}.",
        ctx.op, specs, types_list(operands), paste_spec(want), bad.str_short()));
  }
  return result;
}

Broadcast broadcast(const RuleContext& ctx, const std::vector<ArrayType>& operands,
                    bool rule_runs) {
  Broadcast b;
  b.shape = broadcast_shapes(ctx, operands);
  b.spec.assign(b.shape.size(), Entry{});
  if (rule_runs) {
    auto aligned = align(operands, b.shape.size());
    b.spec = broadcast_specs(ctx, operands, aligned, b.shape.size());
  }
  return b;
}

}  // namespace

namespace {
// Unreduced values are pending partial sums: only ops linear in them keep that form (JAX's
// unreduced rules). Others need the sum first, as JAX's "unreduced rule for `op` is not
// implemented".
[[noreturn]] void unreduced_not_linear(const RuleContext& ctx, const ArrayType& t) {
  throw types::ShardingError("NotImplementedError",
                             fmt::format("unreduced rule for `{}` is not implemented: its operand {} holds partial sums "
                                         "over {}. Reduce it first with `reshard(x, {})`.",
                                         ctx.op, t.str_short(), entry_str(t.spec().unreduced()),
                                         paste_spec(t.spec().entries())));
}
bool keeps_unreduced_unary(std::string_view op) { return op == "neg" || op == "convert_element_type" || op == "copy"; }

std::string frozenset_text(const std::vector<std::string>& axes) {
  std::string out;
  for (size_t i = 0; i < axes.size(); ++i) out += (i ? ", " : "") + types::py_str_repr(axes[i]);
  return "frozenset({" + out + "})";
}

// JAX's default_nary_reduced_rule: a reduced operand is replicated over its reduced axes and its
// cotangent will be a partial sum there, so every operand must be reduced over the same axes:
// one replicated or sharded there would make the result's cotangent ambiguous. Rank-0 operands
// (Python numbers included) are made reduced, as JAX's insert_reduced_reshard does. Returns
// the result's reduced axes.
std::vector<std::string> nary_reduced_axes(const RuleContext& ctx, const std::vector<ArrayType>& operands) {
  std::vector<std::vector<std::string>> sets;
  for (const auto& t : operands)
    if (!t.spec().reduced().empty() && std::find(sets.begin(), sets.end(), t.spec().reduced()) == sets.end())
      sets.push_back(t.spec().reduced());
  if (sets.empty()) return {};
  if (sets.size() > 1) {
    std::string specs;
    for (size_t i = 0; i < sets.size(); ++i) specs += (i ? ", " : "") + frozenset_text(sets[i]);
    throw_sharding_type_error(fmt::format("All inputs should be reduced across the same mesh axes. Got specs: {{{}}}", specs));
  }
  const auto& reduced = sets[0];
  auto has = [](const std::vector<std::string>& v, const std::string& a) { return std::find(v.begin(), v.end(), a) != v.end(); };
  for (const auto& t : operands) {
    if (t.rank() == 0 && t.spec().reduced().empty() && t.spec().unreduced().empty()) continue;
    for (const auto& a : reduced) {
      bool sharded = has(t.spec().used_axes(), a) || has(t.vma(), a);
      if (sharded)
        throw_sharding_type_error(fmt::format(
            "Inputs cannot be sharded/varying on the same axes that another input is reduced on. Reshard the input which is "
            "reduced to be sharded on the mesh axes it is reduced on via `jax.sharding.reshard(inp, jax.P(...))`. Got input "
            "type: {} and reduced spec: {}",
            t.repr(), frozenset_text(reduced)));
      if (!has(t.spec().unreduced(), a) && !has(t.spec().reduced(), a))
        throw_sharding_type_error(fmt::format(
            "Inputs cannot be replicated on the same axes that another input is reduced on. Got input type: {} and reduced "
            "spec: {}",
            t.repr(), frozenset_text(reduced)));
    }
  }
  return reduced;
}
}  // namespace

ArrayType propagate_unary(const RuleContext& ctx, const ArrayType& x, DType out_dtype) {
  if (!x.spec().unreduced().empty() && !keeps_unreduced_unary(ctx.op)) unreduced_not_linear(ctx, x);
  OutputPlan plan = plan_output(ctx, {x});
  PartitionSpec spec = plan.rule_runs ? x.spec() : PartitionSpec();
  return make_result(ctx, {x}, out_dtype, x.shape(), plan.mesh, spec, plan.vma,
                     x.weak_type() && out_dtype == x.dtype());
}

ArrayType propagate_elementwise(const RuleContext& ctx, const std::vector<ArrayType>& operands,
                                DType out_dtype) {
  if (operands.empty()) throw_type_error(fmt::format("`{}` needs at least one operand", ctx.op));
  OutputPlan plan = plan_output(ctx, operands);
  Broadcast b = broadcast(ctx, operands, plan.rule_runs);
  std::vector<std::string> reduced = nary_reduced_axes(ctx, operands);
  // Unreduced operands (partial sums): add and sub need every operand unreduced over the same
  // axes (a reduced one, a Python number too, would be added once per device); mul and div
  // scale one unreduced operand by reduced ones; nothing else is linear.
  std::vector<std::string> unreduced;
  const ArrayType* partial = nullptr;
  size_t n_unreduced = 0;
  for (const auto& t : operands)
    if (!t.spec().unreduced().empty()) {
      ++n_unreduced;
      if (!partial) partial = &t;
    }
  if (partial) {
    unreduced = partial->spec().unreduced();
    const bool sum_like = ctx.op == "add" || ctx.op == "sub" || ctx.op == "add_any";  // add_any: autodiff's cotangent sum
    const bool scale = (ctx.op == "mul" && n_unreduced == 1) || (ctx.op == "div" && n_unreduced == 1 && !operands.at(0).spec().unreduced().empty());
    if (sum_like) {
      for (const auto& t : operands)
        if (t.spec().unreduced() != unreduced)
          throw_sharding_type_error(fmt::format(
              "`{}` operands should be unreduced along the same axes; got {}. Reduce them first with "
              "`reshard(x, P(...))`.",
              ctx.op, types_list(operands)));
    } else if (!scale) {
      unreduced_not_linear(ctx, *partial);
    }
  }
  // A partial sum scaled by reduced operands stays a partial sum, no longer reduced (JAX's
  // _mul_ur_rule).
  if (!unreduced.empty()) reduced.clear();
  return make_result(ctx, operands, out_dtype, b.shape, plan.mesh,
                     PartitionSpec(b.spec, unreduced, reduced), plan.vma, all_weak(operands));
}

ArrayType propagate_where(const RuleContext& ctx, const ArrayType& pred, const ArrayType& on_true,
                          const ArrayType& on_false) {
  std::vector<ArrayType> all{pred, on_true, on_false};
  OutputPlan plan = plan_output(ctx, all);
  reject_unreduced(ctx, all);
  if (plan.rule_runs && on_true.shape() == on_false.shape() && !on_true.mesh().empty() &&
      !on_false.mesh().empty() && on_true.spec() != on_false.spec())
    throw_sharding_type_error(fmt::format(
        "`{}`: select cases must have the same shardings, got [{}, {}]. Reshard one case to "
        "match the other, e.g. `reshard(on_false, {})`.",
        ctx.op, on_true.str_short(), on_false.str_short(), paste_spec(spec_entries(on_true))));
  Broadcast b = broadcast(ctx, all, plan.rule_runs);
  return make_result(ctx, all, on_true.dtype(), b.shape, plan.mesh, PartitionSpec(b.spec),
                     plan.vma, on_true.weak_type() && on_false.weak_type());
}

ArrayType propagate_clamp(const RuleContext& ctx, const ArrayType& lo, const ArrayType& x,
                          const ArrayType& hi) {
  std::vector<ArrayType> all{lo, x, hi};
  OutputPlan plan = plan_output(ctx, all);
  reject_unreduced(ctx, all);
  Shape shape = broadcast_shapes(ctx, all);
  if (shape == x.shape()) {  // the bounds follow the operand
    PartitionSpec spec = plan.rule_runs ? x.spec() : PartitionSpec();
    return make_result(ctx, all, x.dtype(), shape, plan.mesh, spec, plan.vma, x.weak_type());
  }
  Broadcast b = broadcast(ctx, all, plan.rule_runs);
  return make_result(ctx, all, x.dtype(), b.shape, plan.mesh, PartitionSpec(b.spec), plan.vma,
                     x.weak_type());
}

}  // namespace shard::sharding
