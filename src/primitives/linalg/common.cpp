// What the linalg primitives share: their sharding rule (matrix dims whole, batch dims as
// the operands have them) and the matrix helpers their rules and the jnp compositions use.
#include <fmt/format.h>

#include "primitives/linalg/linalg.hpp"
#include "trace/ops.hpp"

namespace shard::sharding {

std::vector<ArrayType> propagate_linalg(const RuleContext& ctx, const std::vector<ArrayType>& operands,
                                        const std::vector<LinalgResult>& results) {
  for (auto& x : operands) trace::reject_complex(ctx.op, x.dtype());
  for (auto& x : operands)
    if (!types::is_float(x.dtype()))
      throw ShardingError("TypeError", fmt::format("{} does not accept dtype {}. Accepted dtypes are subtypes of floating, complexfloating.",
                                                   ctx.op, types::dtype_name(x.dtype())));
  OutputPlan plan = plan_output(ctx, operands);
  reject_unreduced(ctx, operands);
  const ArrayType& first = operands.at(0);
  const size_t nbatch = first.rank() - 2;
  std::vector<Entry> batch;
  if (plan.rule_runs) {
    batch = spec_entries(first);
    batch.resize(nbatch);
    for (auto& x : operands) {
      auto e = spec_entries(x);
      if (!e[x.rank() - 1].empty() || !e[x.rank() - 2].empty()) {
        auto fixed = e;
        fixed[x.rank() - 1].clear();
        fixed[x.rank() - 2].clear();
        throw_sharding_type_error(fmt::format(
            "`{}`: the last two dimensions of its operands (the matrix dimensions) must be unsharded; batch dimensions may be "
            "sharded. Got operand type={}. Reshard it first, e.g. `reshard(x, {})`.",
            ctx.op, x.str_short(), paste_spec(fixed)));
      }
      e.resize(nbatch);
      if (e != batch)
        throw_sharding_type_error(fmt::format("`{}`: the batch dimensions of its operands must be sharded alike. Got {}.", ctx.op,
                                              types_list(operands)));
    }
  }
  Shape bshape(first.shape().begin(), first.shape().begin() + static_cast<std::ptrdiff_t>(nbatch));
  std::vector<ArrayType> out;
  for (auto& r : results) {
    Shape s = bshape;
    s.insert(s.end(), r.trailing.begin(), r.trailing.end());
    PartitionSpec spec;
    if (plan.rule_runs) {
      auto e = batch;
      e.resize(s.size());
      spec = PartitionSpec(e);
    }
    out.push_back(make_result(ctx, operands, r.dtype, s, plan.mesh, spec, plan.vma, false));
  }
  return out;
}

}  // namespace shard::sharding

namespace shard::trace::linalg {

types::Shape batch_shape(const ArrayType& x, size_t trailing) {
  return types::Shape(x.shape().begin(), x.shape().end() - static_cast<std::ptrdiff_t>(trailing));
}

void require_matrix(const ArrayType& x, const std::string& primitive) {
  if (x.rank() < 2)
    throw types::ShardingError("ValueError", fmt::format("Argument to {} must have rank >= 2, got shape {}", primitive,
                                                         types::py_int_tuple(x.shape())));
}

void require_square(const ArrayType& x, const std::string& message) {
  if (x.rank() < 2 || x.shape()[x.rank() - 1] != x.shape()[x.rank() - 2])
    throw types::ShardingError("ValueError", fmt::format(fmt::runtime(message), types::py_int_tuple(x.shape())));
}

ValueId mT(Trace& t, ValueId x) {
  const int64_t r = static_cast<int64_t>(t.type(x).rank());
  std::vector<int64_t> perm(static_cast<size_t>(r));
  for (int64_t i = 0; i < r; ++i) perm[static_cast<size_t>(i)] = i;
  std::swap(perm[static_cast<size_t>(r - 1)], perm[static_cast<size_t>(r - 2)]);
  return transpose(t, x, perm);
}

namespace {
// A bool (m, n) mask of col - row compared with k, broadcast against x by the caller's where.
ValueId band_mask(Trace& t, const ArrayType& xt, int64_t k, EwOp cmp) {
  const size_t r = xt.rank();
  Shape s = {xt.shape()[r - 2], xt.shape()[r - 1]};
  ValueId rows = iota(t, DType::I32, s, 0, std::nullopt);
  ValueId cols = iota(t, DType::I32, s, 1, std::nullopt);
  ValueId diff = binary(t, "sub", EwOp::Sub, cols, rows);
  ValueId kk = scalar_constant(t, static_cast<double>(k), {DType::I32, true});
  return binary(t, "tri", cmp, diff, kk);
}
ValueId masked(Trace& t, ValueId x, ValueId mask) {
  const auto xt = t.type(x);
  ValueId zero = scalar_constant(t, 0, {xt.dtype(), true});
  ValueId zeros = broadcast_to(t, zero, xt.shape(), xt.is_sharded() ? OptOutSharding(sharding::OutSharding{xt.spec()}) : std::nullopt);
  ValueId m = broadcast_to(t, mask, xt.shape(), xt.is_sharded() ? OptOutSharding(sharding::OutSharding{xt.spec()}) : std::nullopt);
  return where(t, m, x, zeros);
}
}  // namespace

ValueId tril(Trace& t, ValueId x, int64_t k) { return masked(t, x, band_mask(t, t.type(x), k, EwOp::Le)); }
ValueId triu(Trace& t, ValueId x, int64_t k) { return masked(t, x, band_mask(t, t.type(x), k, EwOp::Ge)); }

ValueId eye_like(Trace& t, ValueId x, int64_t n) {
  const auto xt = t.type(x);
  ValueId e = eye(t, n, n, 0, {xt.dtype(), false}, std::nullopt);
  Shape s = batch_shape(xt);
  if (s.empty()) return e;
  s.push_back(n);
  s.push_back(n);
  auto entries = sharding::spec_entries(xt);
  entries.resize(s.size());
  if (xt.is_sharded()) {
    entries[s.size() - 1].clear();
    entries[s.size() - 2].clear();
    return broadcast_to(t, e, s, sharding::OutSharding{types::PartitionSpec(entries)});
  }
  return broadcast_to(t, e, s);
}

ValueId diagonal(Trace& t, ValueId x) {
  const auto xt = t.type(x);
  const size_t r = xt.rank();
  const int64_t m = xt.shape()[r - 2], n = xt.shape()[r - 1], k = std::min(m, n);
  ValueId sq = x;
  if (m != n) {
    Shape start(r, 0), limit = xt.shape(), strides(r, 1);
    limit[r - 2] = k;
    limit[r - 1] = k;
    sq = slice(t, x, start, limit, strides);
  }
  ValueId on_diagonal = masked(t, sq, band_mask(t, t.type(sq), 0, EwOp::Eq));
  return reduce(t, "diagonal", ReduceKind::Sum, on_diagonal, {static_cast<int64_t>(r) - 1}, false);
}

std::vector<ValueId> broadcast_batch(Trace& t, std::vector<ValueId> xs) {
  for (auto x : xs)
    if (t.type(x).rank() < 2) return xs;  // not matrices: the primitive's shape check says so
  std::vector<Shape> batches;
  for (auto x : xs) batches.push_back(batch_shape(t.type(x)));
  const Shape common = broadcast_shapes("broadcast_batch", batches);
  // The batch sharding of an operand that has the whole batch already: broadcast operands
  // take it, so that the batch dims agree as the primitives require.
  std::optional<std::vector<types::PartitionSpec::Entry>> batch_entries;
  for (auto x : xs) {
    const auto xt = t.type(x);
    if (batch_shape(xt) == common && xt.is_sharded()) {
      auto e = sharding::spec_entries(xt);
      e.resize(common.size());
      batch_entries = e;
      break;
    }
  }
  for (auto& x : xs) {
    const auto xt = t.type(x);
    if (batch_shape(xt) == common) continue;
    Shape s = common;
    s.push_back(xt.shape()[xt.rank() - 2]);
    s.push_back(xt.shape()[xt.rank() - 1]);
    OptOutSharding out;
    if (batch_entries) {
      auto e = *batch_entries;
      e.resize(s.size());
      out = sharding::OutSharding{types::PartitionSpec(e)};
    }
    x = broadcast_to(t, x, s, out);
  }
  return xs;
}

ValueId matmul(Trace& t, ValueId a, ValueId b) {
  auto ab = broadcast_batch(t, {a, b});
  return trace::matmul(t, ab[0], ab[1]);
}

ValueId permute_rows(Trace& t, ValueId x, ValueId permutation) {
  const auto xt = t.type(x);
  const auto pt = t.type(permutation);
  const int64_t m = pt.shape().back();
  // onehot[..., i, j] = (permutation[..., i] == j): row i of the product is row permutation[i] of x.
  Shape s = pt.shape();
  s.push_back(m);
  std::vector<int64_t> dims(pt.rank());
  for (size_t i = 0; i < dims.size(); ++i) dims[i] = static_cast<int64_t>(i);
  ValueId p = broadcast_in_dim(t, permutation, s, dims);
  ValueId cols = iota(t, DType::I32, s, static_cast<int64_t>(s.size()) - 1, std::nullopt);
  ValueId onehot = convert(t, binary(t, "eq", EwOp::Eq, p, cols), {xt.dtype(), false});
  return linalg::matmul(t, onehot, x);
}

}  // namespace shard::trace::linalg
