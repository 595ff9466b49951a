// §3 reshape, and tile/repeat, which JAX builds from broadcast + reshape.
//
// The reshape rule groups operand and result dims (ignoring size-1 dims) into minimal blocks
// of equal element count. A block of one dim on each side keeps its spec; with a sharded
// operand exactly one other block is allowed, a split (one dim -> several) or a merge
// (several -> one); anything else needs out_sharding, as in JAX.
#include <fmt/format.h>

#include <algorithm>

#include "sharding/rules.hpp"

namespace shard::sharding {

using types::throw_type_error;
using types::throw_value_error;

namespace {

struct Group {
  std::vector<size_t> ops, outs;  // operand dims, result dims (all of size != 1)
  bool identity() const { return ops.size() == 1 && outs.size() == 1; }
};

std::vector<size_t> non_unit_dims(const Shape& s) {
  std::vector<size_t> out;
  for (size_t d = 0; d < s.size(); ++d)
    if (s[d] != 1) out.push_back(d);
  return out;
}

// Minimal blocks of equal product; empty when the shapes cannot be grouped (zero-size).
std::vector<Group> group_dims(const Shape& in, const Shape& out) {
  auto a = non_unit_dims(in), b = non_unit_dims(out);
  std::vector<Group> groups;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    Group g{{a[i]}, {b[j]}};
    int64_t p = in[a[i]], q = out[b[j]];
    if (p == 0 || q == 0) return {};
    while (p != q) {
      if (p < q) {
        if (++i == a.size()) return {};
        g.ops.push_back(a[i]);
        p *= in[a[i]];
      } else {
        if (++j == b.size()) return {};
        g.outs.push_back(b[j]);
        q *= out[b[j]];
      }
    }
    groups.push_back(std::move(g));
    ++i;
    ++j;
  }
  if (i != a.size() || j != b.size()) return {};
  return groups;
}

[[noreturn]] void reshape_error(const RuleContext& ctx, const ArrayType& x, const Shape& new_sizes,
                                const std::vector<Group>& groups) {
  // A legal suggestion: dims that map one-to-one keep their sharding, the rest replicated.
  std::vector<Entry> suggestion(new_sizes.size());
  auto in = spec_entries(x);
  for (const auto& g : groups)
    if (g.identity()) suggestion[g.outs[0]] = in[g.ops[0]];
  throw_sharding_type_error(fmt::format(
      "`{}`: This reshape is not supported. Please specify the sharding of the output via the "
      "`out_sharding` argument of jax.lax.reshape. Got operand type: {}, new sizes: {}. For "
      "example `jax.lax.reshape(x, {}, out_sharding={})`, or reshard the operand first "
      "(`reshard(x, P())`).",
      ctx.op, x.str_short(), shape_tuple(new_sizes), shape_tuple(new_sizes),
      paste_spec(suggestion)));
}

// (4): the axes of one dim go to the major-most result pieces in order; each axis must divide
// what remains of its piece, moving on only once a piece is split down to single elements.
bool split_spec(const AbstractMesh& mesh, const Entry& axes, const std::vector<size_t>& outs,
                const Shape& new_sizes, std::vector<Entry>& spec) {
  size_t piece = 0;
  int64_t rem = new_sizes[outs[0]];
  for (const auto& a : axes) {
    int64_t n = mesh.axis_size(a);
    while (rem == 1 && piece + 1 < outs.size()) rem = new_sizes[outs[++piece]];
    if (rem % n != 0) return false;
    rem /= n;
    spec[outs[piece]].push_back(a);
  }
  return true;
}

// (5): the specs flattened in order with trailing None dropped; a None before a sharded dim
// is an error, and so is a sharded dim not split down to single elements before another
// sharded dim (the merged blocks would not be contiguous).
bool merge_spec(const AbstractMesh& mesh, const ArrayType& x, const std::vector<size_t>& ops,
                Entry& merged) {
  auto in = spec_entries(x);
  size_t last_sharded = ops.size();
  for (size_t k = 0; k < ops.size(); ++k)
    if (!in[ops[k]].empty()) last_sharded = k;
  if (last_sharded == ops.size()) return true;  // nothing sharded
  for (size_t k = 0; k < last_sharded; ++k) {
    const Entry& e = in[ops[k]];
    if (e.empty() || x.shape()[ops[k]] != entry_size(mesh, e)) return false;
  }
  for (size_t k = 0; k <= last_sharded; ++k)
    merged.insert(merged.end(), in[ops[k]].begin(), in[ops[k]].end());
  return true;
}

Shape resolve_sizes(const RuleContext& ctx, const ArrayType& x, const Shape& new_sizes) {
  Shape out = new_sizes;
  int64_t known = 1;
  std::optional<size_t> infer;
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] == -1 && !infer) {
      infer = d;
    } else if (out[d] < 0) {
      throw_type_error(fmt::format("`{}`: can only specify one unknown dimension and sizes must "
                                   "be non-negative, got new sizes {}",
                                   ctx.op, shape_tuple(new_sizes)));
    } else {
      known *= out[d];
    }
  }
  int64_t total = x.num_elements();
  if (infer) {
    if (known == 0 || total % known != 0)
      throw_type_error(fmt::format("`{}`: cannot reshape array of shape {} (size {}) into shape "
                                   "{}",
                                   ctx.op, shape_tuple(x.shape()), total, shape_tuple(new_sizes)));
    out[*infer] = total / known;
  } else if (known != total) {
    throw_type_error(fmt::format(
        "`{}` total size must be unchanged, got new_sizes {} (of total size {}) for shape {} (of "
        "total size {}).",
        ctx.op, shape_tuple(new_sizes), known, shape_tuple(x.shape()), total));
  }
  return out;
}

}  // namespace

ArrayType propagate_reshape(const RuleContext& ctx, const ArrayType& x, const Shape& new_sizes_in,
                            const OptOutSharding& out_sharding) {
  Shape new_sizes = resolve_sizes(ctx, x, new_sizes_in);
  OutputPlan plan = plan_output(ctx, {x});
  reject_unreduced(ctx, {x});
  if (out_sharding) {  // (1)
    NamedSharding s = resolve_out_sharding(ctx, *out_sharding, ctx.op);
    return make_result(ctx, {x}, x.dtype(), new_sizes, s.abstract_mesh(), s.spec(), plan.vma,
                       x.weak_type());
  }
  std::vector<Entry> spec(new_sizes.size());
  if (plan.rule_runs && x.is_sharded()) {  // else (2): replicated
    auto groups = group_dims(x.shape(), new_sizes);
    bool all_unit = non_unit_dims(x.shape()).empty() && non_unit_dims(new_sizes).empty();
    if (x.num_elements() == 0 || (groups.empty() && !all_unit))
      reshape_error(ctx, x, new_sizes, groups);
    auto in = spec_entries(x);
    const Group* irregular = nullptr;
    for (const auto& g : groups) {
      if (g.identity()) {
        spec[g.outs[0]] = in[g.ops[0]];  // (3) and the untouched dims
      } else if (irregular) {
        reshape_error(ctx, x, new_sizes, groups);  // (6) two splits / split + merge
      } else {
        irregular = &g;
      }
    }
    if (irregular) {
      bool ok;
      if (irregular->ops.size() == 1)  // (4)
        ok = split_spec(plan.mesh, in[irregular->ops[0]], irregular->outs, new_sizes, spec);
      else if (irregular->outs.size() == 1)  // (5)
        ok = merge_spec(plan.mesh, x, irregular->ops, spec[irregular->outs[0]]);
      else
        ok = false;  // (6) regroup, e.g. (6, 4) -> (4, 6)
      if (!ok) reshape_error(ctx, x, new_sizes, groups);
    }
  }
  return make_result(ctx, {x}, x.dtype(), new_sizes, plan.mesh, PartitionSpec(spec, {}, x.spec().reduced()), plan.vma,
                     x.weak_type());
}

ArrayType propagate_tile(const RuleContext& ctx, const ArrayType& x,
                         const std::vector<int64_t>& reps_in) {
  for (int64_t r : reps_in)
    if (r < 0)
      throw_value_error(fmt::format("`{}`: negative repetitions are not allowed, got reps {}",
                                    ctx.op, types::py_int_tuple(reps_in)));
  size_t rank = std::max(x.rank(), reps_in.size());
  size_t lead = rank - x.rank();
  std::vector<int64_t> reps(rank - reps_in.size(), 1);
  reps.insert(reps.end(), reps_in.begin(), reps_in.end());
  OutputPlan plan = plan_output(ctx, {x});
  reject_unreduced(ctx, {x});
  auto in = spec_entries(x);
  Shape shape;
  std::vector<Entry> spec;
  for (size_t d = 0; d < rank; ++d) {
    bool original = d >= lead;
    int64_t size = original ? x.shape()[d - lead] : 1;
    Entry e = original && plan.rule_runs ? in[d - lead] : Entry{};
    if (!e.empty() && reps[d] != 1) {
      std::vector<Entry> fixed = in;
      fixed[d - lead].clear();
      throw_sharding_type_error(fmt::format(
          "`{}` repeats dimension {} of {}, which is sharded over {}: JAX builds tile from "
          "broadcast and reshape, and reshape cannot merge a new replicated dimension into a "
          "sharded one. Reshard that dimension first, e.g. `reshard(x, {})`, or wrap the call "
          "in `auto_axes(f, out_sharding=P(...))`.",
          ctx.op, d - lead, x.str_short(), entry_str(e), paste_spec(fixed)));
    }
    shape.push_back(size * reps[d]);
    spec.push_back(e);
  }
  return make_result(ctx, {x}, x.dtype(), shape, plan.mesh, PartitionSpec(spec, {}, x.spec().reduced()), plan.vma,
                     x.weak_type());
}

ArrayType propagate_repeat(const RuleContext& ctx, const ArrayType& x, int64_t repeats,
                           std::optional<int64_t> axis) {
  if (repeats < 0)
    throw_value_error(fmt::format("`{}`: repeats may not contain negative values, got {}", ctx.op,
                                  repeats));
  if (!axis) {  // jnp.repeat(x, r) flattens first
    ArrayType flat = propagate_reshape(ctx, x, {x.num_elements()});
    return propagate_repeat(ctx, flat, repeats, 0);
  }
  size_t dim = normalize_axis(ctx, *axis, x.rank(), "axis");
  OutputPlan plan = plan_output(ctx, {x});
  reject_unreduced(ctx, {x});
  Shape shape = x.shape();
  shape[dim] *= repeats;
  // expand_dims + broadcast + a (d@X, r) -> d*r merge: the dim keeps its sharding.
  PartitionSpec spec = plan.rule_runs ? x.spec() : PartitionSpec();
  return make_result(ctx, {x}, x.dtype(), shape, plan.mesh, spec, plan.vma, x.weak_type());
}

}  // namespace shard::sharding
