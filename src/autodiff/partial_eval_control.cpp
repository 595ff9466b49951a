// Partial evaluation of region ops whose operands are partly unknown: the body is split
// like a function, and the op becomes a known op (computing the primal results and the
// residuals the unknown part reads) and an unknown op over the unknown body.
//  - scan: residuals that change per iteration leave the known scan stacked as extra ys and
//    enter the unknown scan as xs; those that are the body's consts or xs are passed as they
//    are. Which carries are unknown is found by iterating to a fixed point.
//  - cond: every branch is split the same way; the known cond returns the residuals of all
//    branches (zeros for the branches not taken), the unknown cond reads its branch's.
//  - checkpoint: the known part runs; of its residuals only those the policy saves are
//    passed, the others are recomputed in the unknown part from the checkpoint's inputs.
//  - shard_map: each device's residuals leave the known shard_map stacked along a new
//    leading dim over all the manual axes (out_spec P((axes...),)) and enter the unknown
//    shard_map the same way, so every device gets back its own.
#include "autodiff/partial_eval.hpp"
#include "autodiff/rules.hpp"
#include "ir/builder.hpp"
#include "sharding/rules.hpp"

namespace shard::autodiff {

using ir::OpKind;
using ir::ValueId;

namespace {
std::vector<bool> operand_unknowns(const PeState& st, const ir::Op& op, size_t from, size_t n) {
  std::vector<bool> out;
  for (size_t i = from; i < from + n; ++i) out.push_back(st.is_unknown[static_cast<size_t>(op.operands[i])] != 0);
  return out;
}

// f with its params taken in the order `order` (indices into f.params).
ir::Function reorder_params(ir::Function f, const std::vector<size_t>& order) {
  std::vector<ValueId> params;
  for (auto i : order) params.push_back(f.params.at(i));
  f.params = params;
  return f;
}
}  // namespace

void partial_eval_scan(PeState& st, const ir::Op& op) {
  const auto& s = op.attr<ir::attr::Scan>();
  const ir::Function& body = *op.regions.at(0);
  const auto nc = static_cast<size_t>(s.num_consts), nk = static_cast<size_t>(s.num_carry);
  const size_t nx = op.operands.size() - nc - nk, ny = op.results.size() - nk;
  const auto uk_c = operand_unknowns(st, op, 0, nc), uk_x = operand_unknowns(st, op, nc + nk, nx);
  auto uk_k = operand_unknowns(st, op, nc, nk);
  PartialEval pe;
  for (;;) {
    std::vector<bool> in = uk_c;
    in.insert(in.end(), uk_k.begin(), uk_k.end());
    in.insert(in.end(), uk_x.begin(), uk_x.end());
    std::vector<bool> force = uk_k;
    force.resize(nk + ny, false);
    pe = partial_eval(body, in, force);
    bool grown = false;
    for (size_t i = 0; i < nk; ++i)
      if (pe.unknown_out[i] && !uk_k[i]) uk_k[i] = grown = true;
    if (!grown) break;
  }
  // Residuals: a body const or x is passed as it is; anything else is stacked.
  const size_t nres = pe.num_residuals();
  std::vector<bool> stacked(nres);
  for (size_t r = 0; r < nres; ++r) {
    const int p = pe.residual_param[r];
    stacked[r] = !(p >= 0 && (static_cast<size_t>(p) < nc || static_cast<size_t>(p) >= nc + nk));
  }
  size_t n_known_results = 0;
  for (size_t i = 0; i < nk + ny; ++i) n_known_results += pe.unknown_out[i] ? 0 : 1;

  // The known scan: known consts, carries and xs -> known carries, known ys, stacked residuals.
  ir::Function kbody = pe.known;
  kbody.results.resize(n_known_results);
  for (size_t r = 0; r < nres; ++r)
    if (stacked[r]) kbody.results.push_back(pe.known.results[n_known_results + r]);
  std::vector<ValueId> k_operands;
  std::vector<types::ArrayType> k_types;
  size_t kc = 0, kk = 0;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const bool u = i < nc ? uk_c[i] : i < nc + nk ? uk_k[i - nc] : uk_x[i - nc - nk];
    if (u) continue;
    k_operands.push_back(st.kmap[static_cast<size_t>(op.operands[i])]);
    if (i < nc) ++kc;
    else if (i < nc + nk) ++kk;
  }
  for (size_t i = 0; i < nk + ny; ++i)
    if (!pe.unknown_out[i]) k_types.push_back(st.f.type(op.results[i]));
  for (size_t r = 0; r < nres; ++r)
    if (stacked[r]) k_types.push_back(types::stacked_type(pe.known.type(pe.known.results[n_known_results + r]), s.length));
  std::vector<ValueId> k_results;
  if (!k_types.empty()) {
    ir::attr::Scan ka{static_cast<int64_t>(kc), static_cast<int64_t>(kk), s.length, s.reverse};
    k_results = ir::Builder(st.known, op.loc).op_multi(OpKind::Scan, k_operands, k_types, ka,
                                                       {std::make_shared<const ir::Function>(std::move(kbody))});
  }
  size_t pos = 0;
  for (size_t i = 0; i < nk + ny; ++i)
    if (!pe.unknown_out[i]) st.kmap[static_cast<size_t>(op.results[i])] = k_results[pos++];
  std::vector<ValueId> stacks;  // known values, one per stacked residual
  for (size_t r = 0; r < nres; ++r)
    if (stacked[r]) stacks.push_back(k_results[pos++]);

  // The unknown scan: consts (passed residuals, unknown consts), unknown carries, xs
  // (stacked and passed residuals, unknown xs) -> unknown carries and ys.
  if (n_known_results == nk + ny) return;  // no unknown results
  const size_t nuc = static_cast<size_t>(std::count(uk_c.begin(), uk_c.end(), true));
  const size_t nuk = static_cast<size_t>(std::count(uk_k.begin(), uk_k.end(), true));
  std::vector<size_t> order;
  std::vector<ValueId> u_operands;
  for (size_t r = 0; r < nres; ++r)
    if (!stacked[r] && static_cast<size_t>(pe.residual_param[r]) < nc) {
      order.push_back(r);
      u_operands.push_back(st.need(op.operands[static_cast<size_t>(pe.residual_param[r])]));
    }
  const size_t u_consts = order.size() + nuc;
  size_t param = nres;
  for (size_t i = 0; i < nc; ++i)
    if (uk_c[i]) {
      order.push_back(param++);
      u_operands.push_back(st.need(op.operands[i]));
    }
  for (size_t i = 0; i < nk; ++i)
    if (uk_k[i]) {
      order.push_back(param++);
      u_operands.push_back(st.need(op.operands[nc + i]));
    }
  size_t stack = 0;
  for (size_t r = 0; r < nres; ++r) {
    if (stacked[r]) {
      order.push_back(r);
      u_operands.push_back(st.pass(stacks[stack], st.known.type(stacks[stack])));
      ++stack;
    } else if (static_cast<size_t>(pe.residual_param[r]) >= nc + nk) {
      order.push_back(r);
      u_operands.push_back(st.need(op.operands[static_cast<size_t>(pe.residual_param[r])]));
    }
  }
  for (size_t i = 0; i < nx; ++i)
    if (uk_x[i]) {
      order.push_back(param++);
      u_operands.push_back(st.need(op.operands[nc + nk + i]));
    }
  std::vector<types::ArrayType> u_types;
  for (size_t i = 0; i < nk + ny; ++i)
    if (pe.unknown_out[i]) u_types.push_back(st.f.type(op.results[i]));
  ir::attr::Scan ua{static_cast<int64_t>(u_consts), static_cast<int64_t>(nuk), s.length, s.reverse};
  auto u_results = ir::Builder(st.unknown, op.loc).op_multi(OpKind::Scan, u_operands, u_types, ua,
                                                            {std::make_shared<const ir::Function>(reorder_params(pe.unknown, order))});
  pos = 0;
  for (size_t i = 0; i < nk + ny; ++i)
    if (pe.unknown_out[i]) {
      st.umap[static_cast<size_t>(op.results[i])] = u_results[pos++];
      st.is_unknown[static_cast<size_t>(op.results[i])] = 1;
    }
}

void partial_eval_cond(PeState& st, const ir::Op& op) {
  const size_t n = op.operands.size() - 1, nr = op.results.size();
  const auto uk_in = operand_unknowns(st, op, 1, n);
  if (st.is_unknown[static_cast<size_t>(op.operands[0])]) throw std::logic_error("internal error: an unknown branch index");
  std::vector<bool> uk_out(nr, false);
  for (auto& br : op.regions) {
    auto pe = partial_eval(*br, uk_in, {});
    for (size_t i = 0; i < nr; ++i) uk_out[i] = uk_out[i] || pe.unknown_out[i];
  }
  std::vector<PartialEval> pes;
  for (auto& br : op.regions) pes.push_back(partial_eval(*br, uk_in, uk_out));
  size_t n_known_out = 0;
  for (size_t i = 0; i < nr; ++i) n_known_out += uk_out[i] ? 0 : 1;
  // All branches' residuals, in branch order.
  std::vector<types::ArrayType> res_types;
  std::vector<size_t> res_offset;
  for (auto& pe : pes) {
    res_offset.push_back(res_types.size());
    for (size_t r = 0; r < pe.num_residuals(); ++r) res_types.push_back(pe.known.type(pe.known.results[n_known_out + r]));
  }
  // The known cond: each branch returns its residuals and zeros for the others'.
  std::vector<std::shared_ptr<const ir::Function>> k_branches;
  for (size_t b = 0; b < pes.size(); ++b) {
    const auto& kf = pes[b].known;
    auto mesh = res_types.empty() ? types::AbstractMesh() : res_types[0].mesh();
    auto bt = std::make_shared<Trace>(kf.name, mesh);
    std::vector<ValueId> params;
    for (auto p : kf.params) params.push_back(bt->param(kf.type(p)));
    auto outs = inline_function(*bt, kf, params);
    std::vector<ValueId> results(outs.begin(), outs.begin() + static_cast<long>(n_known_out));
    for (size_t r = 0; r < res_types.size(); ++r) {
      const bool mine = r >= res_offset[b] && r < res_offset[b] + pes[b].num_residuals();
      results.push_back(mine ? outs[n_known_out + r - res_offset[b]] : zeros(*bt, res_types[r]));
    }
    k_branches.push_back(std::make_shared<const ir::Function>(bt->finish(results)));
  }
  std::vector<ValueId> k_operands{st.kmap[static_cast<size_t>(op.operands[0])]};
  for (size_t i = 0; i < n; ++i)
    if (!uk_in[i]) k_operands.push_back(st.kmap[static_cast<size_t>(op.operands[1 + i])]);
  std::vector<types::ArrayType> k_types;
  for (size_t i = 0; i < nr; ++i)
    if (!uk_out[i]) k_types.push_back(st.f.type(op.results[i]));
  k_types.insert(k_types.end(), res_types.begin(), res_types.end());
  auto k_results = ir::Builder(st.known, op.loc).op_multi(OpKind::Cond, k_operands, k_types, op.attrs, k_branches);
  size_t pos = 0;
  for (size_t i = 0; i < nr; ++i)
    if (!uk_out[i]) st.kmap[static_cast<size_t>(op.results[i])] = k_results[pos++];
  if (n_known_out == nr) return;
  // The unknown cond: (index, all residuals, unknown operands) -> unknown results.
  std::vector<ValueId> u_operands{st.need(op.operands[0])};
  for (size_t r = 0; r < res_types.size(); ++r) u_operands.push_back(st.pass(k_results[n_known_out + r], res_types[r]));
  for (size_t i = 0; i < n; ++i)
    if (uk_in[i]) u_operands.push_back(st.need(op.operands[1 + i]));
  std::vector<std::shared_ptr<const ir::Function>> u_branches;
  for (size_t b = 0; b < pes.size(); ++b) {
    ir::Function uf = pes[b].unknown;
    const size_t own = pes[b].num_residuals();
    std::vector<ValueId> params;
    for (size_t r = 0; r < res_types.size(); ++r) {
      const bool mine = r >= res_offset[b] && r < res_offset[b] + own;
      params.push_back(mine ? uf.params[r - res_offset[b]] : uf.new_value(res_types[r]));
    }
    params.insert(params.end(), uf.params.begin() + static_cast<long>(own), uf.params.end());
    uf.params = params;
    u_branches.push_back(std::make_shared<const ir::Function>(std::move(uf)));
  }
  std::vector<types::ArrayType> u_types;
  for (size_t i = 0; i < nr; ++i)
    if (uk_out[i]) u_types.push_back(st.f.type(op.results[i]));
  auto u_results = ir::Builder(st.unknown, op.loc).op_multi(OpKind::Cond, u_operands, u_types, op.attrs, u_branches);
  pos = 0;
  for (size_t i = 0; i < nr; ++i)
    if (uk_out[i]) {
      st.umap[static_cast<size_t>(op.results[i])] = u_results[pos++];
      st.is_unknown[static_cast<size_t>(op.results[i])] = 1;
    }
}

namespace {
// Ops whose results jax.checkpoint's policy saves (the others are recomputed from them).
bool saved_by_policy(const std::string& policy, const ir::Op& op) {
  if (policy == "everything_saveable") return true;
  if (op.kind != OpKind::DotGeneral) return false;
  if (policy == "dots_saveable" || policy == "checkpoint_dots") return true;
  return policy == "dots_with_no_batch_dims_saveable" && op.attr<ir::attr::DotGeneral>().lhs_batch.empty();
}

}  // namespace

void partial_eval_checkpoint(PeState& st, const ir::Op& op) {
  const ir::Function& body = *op.regions.at(0);
  const std::string& policy = op.attr<ir::attr::Checkpoint>().policy;
  const size_t n = op.operands.size(), nr = op.results.size();
  const auto uk_in = operand_unknowns(st, op, 0, n);
  PartialEval pe = partial_eval(body, uk_in, {});
  const ir::Function& kf = pe.known;
  size_t n_known_out = 0;
  for (size_t i = 0; i < nr; ++i) n_known_out += pe.unknown_out[i] ? 0 : 1;
  // The known part runs here.
  std::vector<ValueId> k_args;
  for (size_t i = 0; i < n; ++i)
    if (!uk_in[i]) k_args.push_back(st.kmap[static_cast<size_t>(op.operands[i])]);
  auto kmap = ir::inline_mapped(st.known, kf, k_args);
  size_t pos = 0;
  for (size_t i = 0; i < nr; ++i)
    if (!pe.unknown_out[i]) st.kmap[static_cast<size_t>(op.results[i])] = kmap[static_cast<size_t>(kf.results[pos++])];
  if (n_known_out == nr) return;
  // The unknown part reads the residuals from a recomputation of the known part, which
  // starts from the checkpoint's inputs and the values the policy saves (passed over).
  std::vector<ValueId> rmap;
  auto recompute = [&]() {
    if (!rmap.empty()) return;
    rmap.assign(kf.value_types.size(), -1);
    size_t k = 0;
    for (size_t i = 0; i < n; ++i)
      if (!uk_in[i]) rmap[static_cast<size_t>(kf.params[k++])] = st.need(op.operands[i]);
    for (const auto& kop : kf.ops) {
      if (saved_by_policy(policy, kop)) {
        for (auto r : kop.results) rmap[static_cast<size_t>(r)] = st.pass(kmap[static_cast<size_t>(r)], kf.type(r));
        continue;
      }
      std::vector<ValueId> operands;
      for (auto v : kop.operands) operands.push_back(rmap[static_cast<size_t>(v)]);
      auto rs = ir::copy_op(st.unknown, kf, kop, operands);
      for (size_t j = 0; j < rs.size(); ++j) rmap[static_cast<size_t>(kop.results[j])] = rs[j];
    }
  };
  std::vector<ValueId> u_args;
  for (size_t r = 0; r < pe.num_residuals(); ++r) {
    const ValueId kv = kf.results[n_known_out + r];
    const int param = pe.residual_param[r];
    if (param >= 0) {
      u_args.push_back(st.need(op.operands[static_cast<size_t>(param)]));
    } else if (policy == "everything_saveable") {
      u_args.push_back(st.pass(kmap[static_cast<size_t>(kv)], kf.type(kv)));
    } else {
      recompute();
      u_args.push_back(rmap[static_cast<size_t>(kv)]);
    }
  }
  for (size_t i = 0; i < n; ++i)
    if (uk_in[i]) u_args.push_back(st.need(op.operands[i]));
  auto u_outs = ir::inline_into(st.unknown, pe.unknown, u_args);
  pos = 0;
  for (size_t i = 0; i < nr; ++i)
    if (pe.unknown_out[i]) {
      st.umap[static_cast<size_t>(op.results[i])] = u_outs[pos++];
      st.is_unknown[static_cast<size_t>(op.results[i])] = 1;
    }
}

void partial_eval_shard_map(PeState& st, const ir::Op& op) {
  const auto& a = op.attr<ir::attr::ShardMap>();
  const ir::Function& body = *op.regions.at(0);
  const size_t n = op.operands.size(), nr = op.results.size();
  const auto uk_in = operand_unknowns(st, op, 0, n);
  PartialEval pe = partial_eval(body, uk_in, {});
  size_t n_known_out = 0;
  for (size_t i = 0; i < nr; ++i) n_known_out += pe.unknown_out[i] ? 0 : 1;
  const size_t nres = pe.num_residuals();
  auto in_spec = [&](size_t i) { return i < a.in_specs.size() ? a.in_specs[i] : types::PartitionSpec(); };
  sharding::ShardMapSpec sm;
  sm.mesh = a.mesh;
  sm.manual_axes = a.manual_axes;
  sm.check_vma = a.check_vma;
  const types::PartitionSpec stack_spec(std::vector<types::PartitionSpec::Entry>{a.manual_axes});
  types::AxisNames all_manual = sm.mesh.order_wrt_mesh(a.manual_axes);
  // A residual per device: [1, ...] varying over every manual axis.
  auto stacked_local = [&](const types::ArrayType& r) {
    types::Shape shape = r.shape();
    shape.insert(shape.begin(), 1);
    auto e = r.spec().entries();
    e.insert(e.begin(), types::PartitionSpec::Entry{});
    return r.with_shape(shape, types::PartitionSpec(e)).with_vma(a.check_vma ? all_manual : r.vma());
  };

  // The known shard_map: known operands -> known results, stacked residuals.
  ir::Function kbody = pe.known;
  std::vector<types::ArrayType> k_types;
  ir::attr::ShardMap ka = a;
  ka.in_specs.clear();
  ka.out_specs.clear();
  std::vector<ValueId> k_operands;
  for (size_t i = 0; i < n; ++i)
    if (!uk_in[i]) {
      k_operands.push_back(st.kmap[static_cast<size_t>(op.operands[i])]);
      ka.in_specs.push_back(in_spec(i));
    }
  for (size_t i = 0; i < nr; ++i)
    if (!pe.unknown_out[i]) {
      k_types.push_back(st.f.type(op.results[i]));
      ka.out_specs.push_back(a.out_specs.at(i));
    }
  std::vector<types::ArrayType> res_local;
  for (size_t r = 0; r < nres; ++r) {
    const ValueId v = pe.known.results[n_known_out + r];
    res_local.push_back(pe.known.type(v));
    const auto local = stacked_local(res_local.back());
    kbody.results[n_known_out + r] = ir::Builder(kbody).op(OpKind::Reshape, {v}, local);
    k_types.push_back(sharding::shard_map_output(sm, local, stack_spec));
    ka.out_specs.push_back(stack_spec);
  }
  auto k_results = ir::Builder(st.known, op.loc).op_multi(OpKind::ShardMap, k_operands, k_types, ka,
                                                          {std::make_shared<const ir::Function>(std::move(kbody))});
  size_t pos = 0;
  for (size_t i = 0; i < nr; ++i)
    if (!pe.unknown_out[i]) st.kmap[static_cast<size_t>(op.results[i])] = k_results[pos++];
  if (n_known_out == nr) return;

  // The unknown shard_map: (stacked residuals, unknown operands) -> unknown results; its body
  // unstacks the residuals first.
  ir::Function ubody;
  ubody.name = pe.unknown.name;
  std::vector<ValueId> u_args;
  ir::attr::ShardMap ua = a;
  ua.in_specs.clear();
  ua.out_specs.clear();
  std::vector<ValueId> u_operands;
  for (size_t r = 0; r < nres; ++r) {
    const ValueId p = ir::Builder(ubody).param(stacked_local(res_local[r]));
    u_args.push_back(ir::Builder(ubody).op(OpKind::Reshape, {p}, res_local[r]));
    u_operands.push_back(st.pass(k_results[n_known_out + r], k_types[n_known_out + r]));
    ua.in_specs.push_back(stack_spec);
  }
  size_t k = nres;
  for (size_t i = 0; i < n; ++i)
    if (uk_in[i]) {
      u_args.push_back(ir::Builder(ubody).param(pe.unknown.type(pe.unknown.params[k++])));
      u_operands.push_back(st.need(op.operands[i]));
      ua.in_specs.push_back(in_spec(i));
    }
  ubody.results = ir::inline_into(ubody, pe.unknown, u_args);
  std::vector<types::ArrayType> u_types;
  for (size_t i = 0; i < nr; ++i)
    if (pe.unknown_out[i]) {
      u_types.push_back(st.f.type(op.results[i]));
      ua.out_specs.push_back(a.out_specs.at(i));
    }
  auto u_results = ir::Builder(st.unknown, op.loc).op_multi(OpKind::ShardMap, u_operands, u_types, ua,
                                                            {std::make_shared<const ir::Function>(std::move(ubody))});
  pos = 0;
  for (size_t i = 0; i < nr; ++i)
    if (pe.unknown_out[i]) {
      st.umap[static_cast<size_t>(op.results[i])] = u_results[pos++];
      st.is_unknown[static_cast<size_t>(op.results[i])] = 1;
    }
}

}  // namespace shard::autodiff
