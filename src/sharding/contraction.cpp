// §4 Contractions: dot_general and the jnp ops built on it (matmul/@, dot, tensordot).
//
// Every contraction is described as a list of result dims (a batch pair, an lhs free dim or an
// rhs free dim) plus the contracting pairs; one function types them all.
//
// Beyond JAX: when both sides shard a contracting pair, the error proposes the out_sharding
// needing the least communication. Each device can multiply its local blocks, leaving partial
// sums over the contracting axes; the cheapest legal result keeps the free dims' shardings and
// reduce-scatters the partial sums onto a result dim that is unsharded and divisible by the
// axes (a reduce-scatter moves half the data of an all-reduce). When no result dim fits, the
// partial sums are all-reduced and the result is replicated over those axes. When the two
// sides use different axes, the smaller operand is all-gathered first.
#include <fmt/format.h>

#include <algorithm>

#include "sharding/rules.hpp"

namespace shard::sharding {

using types::throw_type_error;
using types::throw_value_error;

namespace {

struct ResultDim {
  enum Kind { Batch, LhsFree, RhsFree } kind;
  size_t lhs = 0, rhs = 0;  // operand dims (the unused one is ignored)
};

struct Contraction {
  std::vector<ResultDim> dims;
  std::vector<std::pair<size_t, size_t>> contracting;  // (lhs dim, rhs dim)
};

Shape result_shape(const ArrayType& lhs, const ArrayType& rhs, const Contraction& c) {
  Shape s;
  for (const auto& d : c.dims)
    s.push_back(d.kind == ResultDim::RhsFree ? rhs.shape()[d.rhs] : lhs.shape()[d.lhs]);
  return s;
}

std::vector<Entry> pick(const std::vector<Entry>& spec, const std::vector<size_t>& dims) {
  std::vector<Entry> out;
  for (size_t d : dims) out.push_back(spec[d]);
  return out;
}

// The cheapest legal out_sharding for an ambiguous contraction, and why (see file comment).
std::string propose_out_sharding(const AbstractMesh& mesh, const ArrayType& lhs,
                                 const ArrayType& rhs, const Shape& shape,
                                 std::vector<Entry> base, const std::vector<Entry>& lhs_c,
                                 const std::vector<Entry>& rhs_c) {
  std::vector<std::string> used, reduce, gathered;
  for (auto& e : base) {  // keep each axis on the first dim that uses it
    Entry kept;
    for (const auto& a : e)
      if (std::find(used.begin(), used.end(), a) == used.end()) {
        kept.push_back(a);
        used.push_back(a);
      }
    e = kept;
  }
  std::string gathered_side;
  for (size_t k = 0; k < lhs_c.size(); ++k) {
    const Entry &l = lhs_c[k], &r = rhs_c[k];
    if (l.empty() || r.empty()) continue;
    const Entry* partial = &l;
    if (l != r) {  // all-gather the smaller operand over its axes; the other stays partial
      bool lhs_smaller = lhs.num_elements() < rhs.num_elements();
      partial = lhs_smaller ? &r : &l;
      const Entry& g = lhs_smaller ? l : r;
      gathered.insert(gathered.end(), g.begin(), g.end());
      gathered_side = lhs_smaller ? "lhs" : "rhs";
    }
    for (const auto& a : *partial)
      if (std::find(used.begin(), used.end(), a) == used.end() &&
          std::find(reduce.begin(), reduce.end(), a) == reduce.end())
        reduce.push_back(a);
  }
  std::vector<std::string> scattered;
  std::vector<size_t> targets;
  auto place = [&](const std::vector<std::string>& axes) -> bool {
    int64_t n = mesh.axes_size(axes);
    for (size_t d = 0; d < base.size(); ++d)
      if (base[d].empty() && shape[d] % n == 0) {
        base[d] = axes;
        targets.push_back(d);
        return true;
      }
    return false;
  };
  std::vector<std::string> all_reduced;
  if (!reduce.empty() && place(reduce)) {
    scattered = reduce;
  } else {
    for (const auto& a : reduce) {
      if (place({a}))
        scattered.push_back(a);
      else
        all_reduced.push_back(a);
    }
  }
  std::string how;
  if (!gathered.empty())
    how += fmt::format("the {} is first all-gathered over {} (the smaller operand); ",
                       gathered_side, quoted_axes(gathered));
  how += "each device multiplies its local blocks";
  if (!scattered.empty()) {
    std::string dims;
    for (size_t i = 0; i < targets.size(); ++i)
      dims += (i ? ", " : "") + std::to_string(targets[i]);
    how += fmt::format(
        " and the partial sums over {} are reduce-scattered onto result dimension{} {} (half "
        "the traffic of the all-reduce a replicated result would need)",
        quoted_axes(scattered), targets.size() > 1 ? "s" : "", dims);
  }
  if (!all_reduced.empty())
    how += fmt::format("{} the partial sums over {} are all-reduced (no unsharded result "
                       "dimension divides by their size)",
                       scattered.empty() ? " and" : ";", quoted_axes(all_reduced));
  return fmt::format("`out_sharding={}`: {}", paste_spec(base), how);
}

void check_unreduced(const RuleContext& ctx, const PartitionSpec& out,
                     const std::vector<Entry>& lhs_c, const std::vector<Entry>& rhs_c) {
  if (out.unreduced().empty()) return;
  std::vector<std::string> contracted;
  for (size_t k = 0; k < lhs_c.size(); ++k) {
    if (lhs_c[k] != rhs_c[k])
      throw_sharding_type_error(fmt::format(
          "`{}`: an unreduced result ({}) needs contracting dimensions sharded identically on "
          "both sides, got lhs_contracting_spec={} and rhs_contracting_spec={}.",
          ctx.op, paste_spec(out), entries_tuple(lhs_c), entries_tuple(rhs_c)));
    contracted.insert(contracted.end(), lhs_c[k].begin(), lhs_c[k].end());
  }
  std::sort(contracted.begin(), contracted.end());
  if (contracted != out.unreduced())
    throw_sharding_type_error(fmt::format(
        "`{}`: the unreduced axes of out_sharding={} must be exactly the axes the contracting "
        "dimensions are sharded over ({}).",
        ctx.op, paste_spec(out), contracted.empty() ? "none" : quoted_axes(contracted)));
}

ArrayType contract(const RuleContext& ctx, const ArrayType& lhs, const ArrayType& rhs,
                   const Contraction& c, DType out_dtype, const OptOutSharding& out_sharding) {
  std::vector<ArrayType> inputs{lhs, rhs};
  OutputPlan plan = plan_output(ctx, inputs);
  reject_unreduced(ctx, inputs);
  Shape shape = result_shape(lhs, rhs, c);
  bool weak = lhs.weak_type() && rhs.weak_type();
  auto ls = spec_entries(lhs), rs = spec_entries(rhs);
  std::vector<size_t> lc, rc;
  for (auto [l, r] : c.contracting) {
    lc.push_back(l);
    rc.push_back(r);
  }
  auto lhs_c = pick(ls, lc), rhs_c = pick(rs, rc);
  if (out_sharding) {  // used as is: the partitioner inserts the reduction
    NamedSharding s = resolve_out_sharding(ctx, *out_sharding, ctx.op);
    check_unreduced(ctx, s.spec(), lhs_c, rhs_c);
    return make_result(ctx, inputs, out_dtype, shape, s.abstract_mesh(), s.spec(), plan.vma,
                       weak, ReducedInputs::Dropped);
  }
  if (!plan.rule_runs) return replicated_result(ctx, inputs, out_dtype, shape, plan, weak);

  std::vector<Entry> lhs_b, rhs_b;
  for (const auto& d : c.dims)
    if (d.kind == ResultDim::Batch) {
      lhs_b.push_back(ls[d.lhs]);
      rhs_b.push_back(rs[d.rhs]);
    }
  if (lhs_b != rhs_b) {
    std::vector<Entry> fixed = rs;  // rhs with the lhs's batch sharding, other uses dropped
    std::vector<std::string> taken;
    for (const auto& d : c.dims)
      if (d.kind == ResultDim::Batch) {
        fixed[d.rhs] = ls[d.lhs];
        taken.insert(taken.end(), ls[d.lhs].begin(), ls[d.lhs].end());
      }
    for (size_t d = 0; d < fixed.size(); ++d) {
      bool is_batch = std::any_of(c.dims.begin(), c.dims.end(), [&](const ResultDim& r) {
        return r.kind == ResultDim::Batch && r.rhs == d;
      });
      if (is_batch) continue;
      Entry kept;
      for (const auto& a : fixed[d])
        if (std::find(taken.begin(), taken.end(), a) == taken.end()) kept.push_back(a);
      fixed[d] = kept;
    }
    throw_sharding_type_error(fmt::format(
        "`{}` requires lhs batch dimensions and rhs batch dimensions to have the same "
        "sharding, got {} and {}. Operand types: lhs {}, rhs {}. Reshard one operand so they "
        "match, e.g. `reshard(rhs, {})`.",
        ctx.op, entries_tuple(lhs_b), entries_tuple(rhs_b), lhs.str_short(), rhs.str_short(),
        paste_spec(fixed)));
  }

  std::vector<Entry> out;
  for (const auto& d : c.dims) out.push_back(d.kind == ResultDim::RhsFree ? rs[d.rhs] : ls[d.lhs]);
  for (size_t k = 0; k < lhs_c.size(); ++k) {
    if (lhs_c[k].empty() || rhs_c[k].empty()) continue;  // one side only: gathered
    throw_sharding_type_error(fmt::format(
        "`{}`: Contracting dimensions are sharded and it is ambiguous how the output should be "
        "sharded. Please specify the output sharding via the `out_sharding` parameter. Got "
        "lhs_contracting_spec={} and rhs_contracting_spec={}. Operand types: lhs {}, rhs {}. "
        "The sharding needing the least communication is {}.",
        ctx.op, entries_tuple(lhs_c), entries_tuple(rhs_c), lhs.str_short(), rhs.str_short(),
        propose_out_sharding(plan.mesh, lhs, rhs, shape, out, lhs_c, rhs_c)));
  }
  // Reduced operands are dropped, as JAX's _dot_general_ur_rule does: the product is replicated
  // over those axes, and the transpose makes the operand's cotangent a partial sum there.
  return make_result(ctx, inputs, out_dtype, shape, plan.mesh, PartitionSpec(out), plan.vma,
                     weak, ReducedInputs::Dropped);
}

void check_dim(const RuleContext& ctx, int64_t d, const ArrayType& t, const char* side) {
  if (d < 0 || static_cast<size_t>(d) >= t.rank())
    throw_type_error(fmt::format("`{}`: {} dimension {} is out of range for an operand of shape {}",
                                 ctx.op, side, d, shape_tuple(t.shape())));
}

void check_sizes(const RuleContext& ctx, const ArrayType& lhs, const ArrayType& rhs,
                 const std::vector<std::pair<size_t, size_t>>& pairs, const char* what) {
  for (auto [l, r] : pairs)
    if (lhs.shape()[l] != rhs.shape()[r])
      throw_type_error(fmt::format(
          "`{}` requires {} dimensions to have the same shape, got lhs dimension {} of size {} "
          "and rhs dimension {} of size {} (shapes {} and {}).",
          ctx.op, what, l, lhs.shape()[l], r, rhs.shape()[r], shape_tuple(lhs.shape()),
          shape_tuple(rhs.shape())));
}

// Dims of `t` not in `used`, in order.
std::vector<size_t> free_dims(const ArrayType& t, const std::vector<size_t>& used) {
  std::vector<size_t> out;
  for (size_t d = 0; d < t.rank(); ++d)
    if (std::find(used.begin(), used.end(), d) == used.end()) out.push_back(d);
  return out;
}

// Batch dims first, then the free dims of each side.
Contraction no_batch(const ArrayType& lhs, const ArrayType& rhs, const std::vector<size_t>& lc,
                     const std::vector<size_t>& rc) {
  Contraction c;
  for (size_t k = 0; k < lc.size(); ++k) c.contracting.emplace_back(lc[k], rc[k]);
  for (size_t d : free_dims(lhs, lc)) c.dims.push_back({ResultDim::LhsFree, d, 0});
  for (size_t d : free_dims(rhs, rc)) c.dims.push_back({ResultDim::RhsFree, 0, d});
  return c;
}

}  // namespace

ArrayType propagate_dot_general(const RuleContext& ctx, const ArrayType& lhs, const ArrayType& rhs,
                                const DotDims& dims, DType out_dtype,
                                const OptOutSharding& out_sharding) {
  if (dims.lhs_contracting.size() != dims.rhs_contracting.size() ||
      dims.lhs_batch.size() != dims.rhs_batch.size())
    throw_type_error(fmt::format("`{}` requires equal numbers of lhs and rhs contracting and "
                                 "batch dimensions",
                                 ctx.op));
  std::vector<size_t> lused, rused;
  for (int64_t d : dims.lhs_contracting) check_dim(ctx, d, lhs, "lhs contracting");
  for (int64_t d : dims.lhs_batch) check_dim(ctx, d, lhs, "lhs batch");
  for (int64_t d : dims.rhs_contracting) check_dim(ctx, d, rhs, "rhs contracting");
  for (int64_t d : dims.rhs_batch) check_dim(ctx, d, rhs, "rhs batch");
  Contraction c;
  for (size_t k = 0; k < dims.lhs_batch.size(); ++k) {
    size_t l = static_cast<size_t>(dims.lhs_batch[k]), r = static_cast<size_t>(dims.rhs_batch[k]);
    c.dims.push_back({ResultDim::Batch, l, r});
    lused.push_back(l);
    rused.push_back(r);
  }
  std::vector<std::pair<size_t, size_t>> batch_pairs;
  for (const auto& d : c.dims) batch_pairs.emplace_back(d.lhs, d.rhs);
  for (size_t k = 0; k < dims.lhs_contracting.size(); ++k) {
    size_t l = static_cast<size_t>(dims.lhs_contracting[k]);
    size_t r = static_cast<size_t>(dims.rhs_contracting[k]);
    c.contracting.emplace_back(l, r);
    lused.push_back(l);
    rused.push_back(r);
  }
  auto repeated = [](std::vector<size_t> v) {
    std::sort(v.begin(), v.end());
    return std::adjacent_find(v.begin(), v.end()) != v.end();
  };
  if (repeated(lused) || repeated(rused))
    throw_type_error(fmt::format("`{}` requires contracting and batch dimensions to be distinct",
                                 ctx.op));
  check_sizes(ctx, lhs, rhs, batch_pairs, "batch");
  check_sizes(ctx, lhs, rhs, c.contracting, "contracting");
  for (size_t d : free_dims(lhs, lused)) c.dims.push_back({ResultDim::LhsFree, d, 0});
  for (size_t d : free_dims(rhs, rused)) c.dims.push_back({ResultDim::RhsFree, 0, d});
  return contract(ctx, lhs, rhs, c, out_dtype, out_sharding);
}

ArrayType propagate_matmul(const RuleContext& ctx, const ArrayType& lhs, const ArrayType& rhs,
                           DType out_dtype, const OptOutSharding& out_sharding) {
  if (lhs.rank() == 0 || rhs.rank() == 0)
    throw_value_error(fmt::format("`{}`: operands must have at least one dimension, got shapes "
                                  "{} and {}",
                                  ctx.op, shape_tuple(lhs.shape()), shape_tuple(rhs.shape())));
  bool lhs_mat = lhs.rank() > 1, rhs_mat = rhs.rank() > 1;
  Contraction c;
  c.contracting.emplace_back(lhs.rank() - 1, rhs_mat ? rhs.rank() - 2 : 0);
  check_sizes(ctx, lhs, rhs, c.contracting, "contracting");
  size_t lb = lhs_mat ? lhs.rank() - 2 : 0, rb = rhs_mat ? rhs.rank() - 2 : 0;
  size_t nb = std::max(lb, rb);
  for (size_t i = 0; i < nb; ++i) {  // batch dims aligned from the right
    bool has_l = i >= nb - lb, has_r = i >= nb - rb;
    size_t l = has_l ? i - (nb - lb) : 0, r = has_r ? i - (nb - rb) : 0;
    int64_t sl = has_l ? lhs.shape()[l] : 1, sr = has_r ? rhs.shape()[r] : 1;
    if (!has_l || (sl == 1 && has_r))
      c.dims.push_back({ResultDim::RhsFree, 0, r});
    else if (!has_r || sr == 1)
      c.dims.push_back({ResultDim::LhsFree, l, 0});
    else if (sl == sr)
      c.dims.push_back({ResultDim::Batch, l, r});
    else
      throw_value_error(fmt::format("`{}`: Incompatible shapes for matmul arguments: {} and {}",
                                    ctx.op, shape_tuple(lhs.shape()), shape_tuple(rhs.shape())));
  }
  if (lhs_mat) c.dims.push_back({ResultDim::LhsFree, lhs.rank() - 2, 0});
  if (rhs_mat) c.dims.push_back({ResultDim::RhsFree, 0, rhs.rank() - 1});
  return contract(ctx, lhs, rhs, c, out_dtype, out_sharding);
}

ArrayType propagate_dot(const RuleContext& ctx, const ArrayType& lhs, const ArrayType& rhs,
                        DType out_dtype, const OptOutSharding& out_sharding) {
  if (lhs.rank() == 0 || rhs.rank() == 0) return propagate_elementwise(ctx, {lhs, rhs}, out_dtype);
  std::vector<size_t> lc{lhs.rank() - 1}, rc{rhs.rank() == 1 ? 0 : rhs.rank() - 2};
  Contraction c = no_batch(lhs, rhs, lc, rc);
  check_sizes(ctx, lhs, rhs, c.contracting, "contracting");
  return contract(ctx, lhs, rhs, c, out_dtype, out_sharding);
}

ArrayType propagate_tensordot(const RuleContext& ctx, const ArrayType& lhs, const ArrayType& rhs,
                              const std::vector<int64_t>& lhs_axes,
                              const std::vector<int64_t>& rhs_axes, DType out_dtype,
                              const OptOutSharding& out_sharding) {
  if (lhs_axes.size() != rhs_axes.size())
    throw_type_error(fmt::format("`{}`: axes must have the same length on both sides, got {} "
                                 "and {}",
                                 ctx.op, types::py_int_tuple(lhs_axes),
                                 types::py_int_tuple(rhs_axes)));
  std::vector<size_t> lc, rc;
  for (int64_t a : lhs_axes) lc.push_back(normalize_axis(ctx, a, lhs.rank(), "axis"));
  for (int64_t a : rhs_axes) rc.push_back(normalize_axis(ctx, a, rhs.rank(), "axis"));
  Contraction c = no_batch(lhs, rhs, lc, rc);
  check_sizes(ctx, lhs, rhs, c.contracting, "contracting");
  return contract(ctx, lhs, rhs, c, out_dtype, out_sharding);
}

}  // namespace shard::sharding
