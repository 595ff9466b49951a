// Batching of the ops with regions. Bodies are batched into new bodies; a loop's batched
// carries are found by iterating to a fixed point. A cond whose index is batched runs every
// branch and selects; a while_loop whose predicate is batched runs until every lane is done,
// lanes that finished keeping their values (as JAX does).
#include <fmt/format.h>

#include <functional>

#include "autodiff/autodiff.hpp"
#include "autodiff/custom_rules.hpp"
#include "batching/rules.hpp"

namespace shard::batching {

using ir::OpKind;

namespace {

using types::stacked_type;
using types::unstacked_type;

struct RegionBatch {
  std::shared_ptr<const ir::Function> fn;
  std::vector<bool> out_batched;
};

// f batched: params typed `param_types` (batched ones with the batch dim), results batched
// where the body makes them so or `force` asks.
RegionBatch batch_region(const ir::Function& f, const types::AbstractMesh& mesh, const std::vector<ArrayType>& param_types,
                         const std::vector<bool>& in_batched, const std::vector<bool>& force, int64_t size, const std::string& axis_name) {
  auto rt = std::make_shared<Trace>(f.name, mesh);
  std::vector<Batched> args;
  for (size_t i = 0; i < f.params.size(); ++i) args.push_back({rt->param(param_types[i]), in_batched[i]});
  auto res = batch(*rt, f, args, size, axis_name);
  RegionBatch out;
  std::vector<ValueId> results;
  for (size_t i = 0; i < res.size(); ++i) {
    const bool b = res[i].batched || (i < force.size() && force[i]);
    out.out_batched.push_back(b);
    results.push_back(b ? materialize(*rt, res[i], size) : res[i].value);
  }
  out.fn = std::make_shared<const ir::Function>(rt->finish(results));
  return out;
}

std::vector<bool> flags(const std::vector<Batched>& x, size_t from, size_t n) {
  std::vector<bool> out;
  for (size_t i = from; i < from + n; ++i) out.push_back(x.at(i).batched);
  return out;
}


// pred [B] broadcast against a value of shape [B, ...].
ValueId lanes(Trace& t, ValueId pred, const ArrayType& like) { return trace::broadcast_in_dim(t, pred, like.shape(), {0}); }

}  // namespace

// scan: batched xs are scanned with the batch as their second dim (the scan takes the first),
// batched ys come out that way and are moved back.
std::vector<Batched> batch_Scan(BatchArgs& a) {
  Trace& t = a.t;
  const auto& s = a.op.attr<ir::attr::Scan>();
  const ir::Function& body = *a.op.regions.at(0);
  const auto nc = static_cast<size_t>(s.num_consts), nk = static_cast<size_t>(s.num_carry);
  const size_t nx = a.x.size() - nc - nk, ny = a.op.results.size() - nk;
  std::vector<ValueId> xs;
  for (size_t i = 0; i < nx; ++i) {
    const Batched& v = a.x[nc + nk + i];
    xs.push_back(v.batched ? trace::move_dim(t, v.value, 0, 1) : v.value);
  }
  auto k_b = flags(a.x, nc, nk);
  RegionBatch rb;
  std::vector<ValueId> carries;
  for (;;) {
    carries.clear();
    std::vector<ArrayType> types;
    std::vector<bool> in_b;
    for (size_t i = 0; i < nc; ++i) {
      types.push_back(t.type(a.x[i].value));
      in_b.push_back(a.x[i].batched);
    }
    for (size_t i = 0; i < nk; ++i) {
      carries.push_back(k_b[i] ? a.full(nc + i) : a.x[nc + i].value);
      types.push_back(t.type(carries.back()));
      in_b.push_back(k_b[i]);
    }
    for (size_t i = 0; i < nx; ++i) {
      types.push_back(unstacked_type(t.type(xs[i])));
      in_b.push_back(a.x[nc + nk + i].batched);
    }
    std::vector<bool> force(k_b.begin(), k_b.end());
    force.resize(nk + ny, false);
    rb = batch_region(body, t.mesh(), types, in_b, force, a.size, a.axis_name);
    bool grown = false;
    for (size_t i = 0; i < nk; ++i)
      if (rb.out_batched[i] && !k_b[i]) k_b[i] = grown = true;
    if (!grown) break;
  }
  std::vector<ValueId> operands;
  for (size_t i = 0; i < nc; ++i) operands.push_back(a.x[i].value);
  operands.insert(operands.end(), carries.begin(), carries.end());
  operands.insert(operands.end(), xs.begin(), xs.end());
  std::vector<ArrayType> types;
  for (auto c : carries) types.push_back(t.type(c));
  for (size_t i = 0; i < ny; ++i) types.push_back(stacked_type(rb.fn->type(rb.fn->results[nk + i]), s.length));
  auto rs = t.emit_multi(OpKind::Scan, operands, types, a.op.attrs, {rb.fn});
  std::vector<Batched> out;
  for (size_t i = 0; i < nk; ++i) out.push_back({rs[i], static_cast<bool>(k_b[i])});
  for (size_t i = 0; i < ny; ++i) {
    const bool b = rb.out_batched[nk + i];
    out.push_back({b ? trace::move_dim(t, rs[nk + i], 1, 0) : rs[nk + i], b});
  }
  return out;
}

std::vector<Batched> batch_While(BatchArgs& a) {
  Trace& t = a.t;
  const auto& w = a.op.attr<ir::attr::While>();
  const ir::Function& cond = *a.op.regions.at(0);
  const ir::Function& body = *a.op.regions.at(1);
  const auto ncc = static_cast<size_t>(w.cond_nconsts), nbc = static_cast<size_t>(w.body_nconsts);
  const size_t nk = a.x.size() - ncc - nbc;
  auto k_b = flags(a.x, ncc + nbc, nk);
  auto consts_of = [&](size_t from, size_t n, std::vector<ArrayType>& types, std::vector<bool>& in_b) {
    for (size_t i = from; i < from + n; ++i) {
      types.push_back(t.type(a.x[i].value));
      in_b.push_back(a.x[i].batched);
    }
  };
  auto carries_now = [&]() {
    std::vector<ValueId> c;
    for (size_t i = 0; i < nk; ++i) c.push_back(k_b[i] ? a.full(ncc + nbc + i) : a.x[ncc + nbc + i].value);
    return c;
  };
  RegionBatch rb, rc;
  std::vector<ValueId> carries;
  for (int pass = 0;; ++pass) {
    carries = carries_now();
    std::vector<ArrayType> types, ctypes;
    std::vector<bool> in_b, cin_b;
    consts_of(ncc, nbc, types, in_b);
    consts_of(0, ncc, ctypes, cin_b);
    for (size_t i = 0; i < nk; ++i) {
      types.push_back(t.type(carries[i]));
      in_b.push_back(k_b[i]);
      ctypes.push_back(t.type(carries[i]));
      cin_b.push_back(k_b[i]);
    }
    rb = batch_region(body, t.mesh(), types, in_b, k_b, a.size, a.axis_name);
    rc = batch_region(cond, t.mesh(), ctypes, cin_b, {}, a.size, a.axis_name);
    bool grown = false;
    for (size_t i = 0; i < nk; ++i)
      if (rb.out_batched[i] && !k_b[i]) k_b[i] = grown = true;
    if (rc.out_batched[0])  // a batched predicate: every lane carries its own values
      for (size_t i = 0; i < nk; ++i)
        if (!k_b[i]) k_b[i] = grown = true;
    if (!grown) break;
  }
  std::vector<ValueId> operands;
  for (size_t i = 0; i < ncc + nbc; ++i) operands.push_back(a.x[i].value);
  operands.insert(operands.end(), carries.begin(), carries.end());
  std::vector<ArrayType> types;
  for (auto c : carries) types.push_back(t.type(c));
  if (!rc.out_batched[0]) {
    auto rs = t.emit_multi(OpKind::While, operands, types, a.op.attrs, {rc.fn, rb.fn});
    std::vector<Batched> out;
    for (size_t i = 0; i < nk; ++i) out.push_back({rs[i], static_cast<bool>(k_b[i])});
    return out;
  }
  // Batched predicate: loop while any lane goes on; the body advances only those lanes.
  auto ct = std::make_shared<Trace>("cond", t.mesh());
  std::vector<ValueId> cparams;
  for (size_t i = 0; i < ncc; ++i) cparams.push_back(ct->param(t.type(a.x[i].value)));
  for (auto c : carries) cparams.push_back(ct->param(t.type(c)));
  ValueId any = trace::reduce(*ct, "reduce_or", ir::ReduceKind::Or, inline_function(*ct, *rc.fn, cparams).at(0), {}, false);
  auto cond_fn = std::make_shared<const ir::Function>(ct->finish({any}));
  auto bt = std::make_shared<Trace>("body", t.mesh());
  std::vector<ValueId> cc, bc, ks;
  for (size_t i = 0; i < ncc; ++i) cc.push_back(bt->param(t.type(a.x[i].value)));
  for (size_t i = ncc; i < ncc + nbc; ++i) bc.push_back(bt->param(t.type(a.x[i].value)));
  for (auto c : carries) ks.push_back(bt->param(t.type(c)));
  std::vector<ValueId> cargs = cc, bargs = bc;
  cargs.insert(cargs.end(), ks.begin(), ks.end());
  bargs.insert(bargs.end(), ks.begin(), ks.end());
  ValueId going = inline_function(*bt, *rc.fn, cargs).at(0);
  auto next = inline_function(*bt, *rb.fn, bargs);
  std::vector<ValueId> results;
  for (size_t i = 0; i < nk; ++i) results.push_back(trace::where(*bt, lanes(*bt, going, bt->type(ks[i])), next[i], ks[i]));
  auto body_fn = std::make_shared<const ir::Function>(bt->finish(results));
  std::vector<ValueId> ops2;
  for (size_t i = 0; i < ncc; ++i) ops2.push_back(a.x[i].value);
  for (size_t i = 0; i < ncc + nbc; ++i) ops2.push_back(a.x[i].value);
  ops2.insert(ops2.end(), carries.begin(), carries.end());
  ir::attr::While attrs{static_cast<int64_t>(ncc), static_cast<int64_t>(ncc + nbc)};
  auto rs = t.emit_multi(OpKind::While, ops2, types, attrs, {cond_fn, body_fn});
  return all_batched(rs);
}

// cond: an unbatched index picks a batched branch; a batched one runs every branch on every
// lane and selects (clamped as lax.switch clamps).
std::vector<Batched> batch_Cond(BatchArgs& a) {
  Trace& t = a.t;
  const size_t n = a.x.size() - 1, nr = a.op.results.size();
  const auto in_b = flags(a.x, 1, n);
  std::vector<ArrayType> types;
  for (size_t i = 0; i < n; ++i) types.push_back(t.type(a.x[1 + i].value));
  if (!a.x[0].batched) {
    std::vector<bool> out_b(nr, false);
    for (auto& br : a.op.regions) {
      auto rb = batch_region(*br, t.mesh(), types, in_b, {}, a.size, a.axis_name);
      for (size_t i = 0; i < nr; ++i) out_b[i] = out_b[i] || rb.out_batched[i];
    }
    std::vector<std::shared_ptr<const ir::Function>> branches;
    for (auto& br : a.op.regions) branches.push_back(batch_region(*br, t.mesh(), types, in_b, out_b, a.size, a.axis_name).fn);
    std::vector<ValueId> operands;
    for (auto& v : a.x) operands.push_back(v.value);
    std::vector<ArrayType> rtypes;
    for (size_t i = 0; i < nr; ++i) rtypes.push_back(branches[0]->type(branches[0]->results[i]));
    auto rs = t.emit_multi(OpKind::Cond, operands, rtypes, a.op.attrs, branches);
    std::vector<Batched> out;
    for (size_t i = 0; i < nr; ++i) out.push_back({rs[i], static_cast<bool>(out_b[i])});
    return out;
  }
  std::vector<Batched> args(a.x.begin() + 1, a.x.end());
  std::vector<std::vector<ValueId>> outs;
  for (auto& br : a.op.regions) {
    auto res = batch(t, *br, args, a.size, a.axis_name);
    std::vector<ValueId> full;
    for (auto& r : res) full.push_back(materialize(t, r, a.size));
    outs.push_back(full);
  }
  const auto nb = static_cast<int64_t>(a.op.regions.size());
  ValueId first = trace::scalar_constant(t, 0, {types::DType::I32, false});
  ValueId last = trace::scalar_constant(t, static_cast<double>(nb - 1), {types::DType::I32, false});
  ValueId index = trace::clip(t, a.x[0].value, first, last);
  std::vector<Batched> out;
  for (size_t i = 0; i < nr; ++i) {
    ValueId r = outs.back()[i];
    for (int64_t k = nb - 2; k >= 0; --k) {
      ValueId is_k = trace::binary(t, "eq", ir::EwOp::Eq, index, trace::scalar_constant(t, static_cast<double>(k), {types::DType::I32, false}));
      r = trace::where(t, lanes(t, is_k, t.type(r)), outs[static_cast<size_t>(k)][i], r);
    }
    out.push_back(batched(r));
  }
  return out;
}

// shard_map: the batch is one more local dim, unsharded by in_specs and out_specs.
std::vector<Batched> batch_ShardMap(BatchArgs& a) {
  Trace& t = a.t;
  const auto& s = a.op.attr<ir::attr::ShardMap>();
  const ir::Function& body = *a.op.regions.at(0);
  const size_t n = a.x.size(), nr = a.op.results.size();
  const types::AbstractMesh inner = s.mesh.with_axis_types(s.manual_axes, types::AxisType::Manual);
  std::vector<ArrayType> types;
  std::vector<bool> in_b;
  for (size_t i = 0; i < n; ++i) {
    const ArrayType p = body.type(body.params[i]);
    types.push_back(a.x[i].batched ? stacked_type(p, a.size) : p);
    in_b.push_back(a.x[i].batched);
  }
  RegionBatch rb;
  {
    trace::CheckVmaScope vma(s.check_vma);
    rb = batch_region(body, inner, types, in_b, {}, a.size, a.axis_name);
  }
  auto prefixed = [](const types::PartitionSpec& spec) {
    auto e = spec.entries();
    e.insert(e.begin(), types::PartitionSpec::Entry{});
    return types::PartitionSpec(e);
  };
  ir::attr::ShardMap attrs = s;
  attrs.in_specs.resize(n);
  for (size_t i = 0; i < n; ++i)
    if (a.x[i].batched) attrs.in_specs[i] = prefixed(attrs.in_specs[i].normalized(a.operand_type(i).rank()));
  std::vector<ArrayType> rtypes;
  for (size_t i = 0; i < nr; ++i) {
    const ArrayType rt = a.result_type(i);
    if (rb.out_batched[i]) {
      attrs.out_specs[i] = prefixed(attrs.out_specs[i].normalized(rt.rank()));
      rtypes.push_back(stacked_type(rt, a.size));
    } else {
      rtypes.push_back(rt);
    }
  }
  std::vector<ValueId> operands;
  for (auto& v : a.x) operands.push_back(v.value);
  auto rs = t.emit_multi(OpKind::ShardMap, operands, rtypes, attrs, {rb.fn});
  std::vector<Batched> out;
  for (size_t i = 0; i < nr; ++i) out.push_back({rs[i], static_cast<bool>(rb.out_batched[i])});
  return out;
}

namespace {
// The body of a one-region op (checkpoint, custom_jvp_call, custom_vjp_call) batched on the
// op's operands; every result batched when `all_batched`.
RegionBatch batch_body(BatchArgs& a, bool all_batched) {
  std::vector<ArrayType> types;
  std::vector<bool> in_b;
  for (auto& v : a.x) {
    types.push_back(a.t.type(v.value));
    in_b.push_back(v.batched);
  }
  std::vector<bool> force;
  if (all_batched) force.assign(a.op.results.size(), true);
  return batch_region(*a.op.regions.at(0), a.t.mesh(), types, in_b, force, a.size, a.axis_name);
}

// The op re-emitted over its batched body with `attrs`.
std::vector<Batched> emit_over_body(BatchArgs& a, const RegionBatch& rb, ir::Attrs attrs) {
  std::vector<ValueId> operands;
  for (auto& v : a.x) operands.push_back(v.value);
  std::vector<ArrayType> rtypes;
  for (auto r : rb.fn->results) rtypes.push_back(rb.fn->type(r));
  auto rs = a.t.emit_multi(a.op.kind, operands, rtypes, std::move(attrs), {rb.fn});
  std::vector<Batched> out;
  for (size_t i = 0; i < rs.size(); ++i) out.push_back({rs[i], static_cast<bool>(rb.out_batched[i])});
  return out;
}

// The operands' types for one example (the rules are traced on them) and their batching.
std::pair<std::vector<ArrayType>, std::vector<bool>> one_example(const BatchArgs& a) {
  std::vector<ArrayType> one;
  std::vector<bool> in_b;
  for (size_t i = 0; i < a.x.size(); ++i) {
    one.push_back(a.operand_type(i));
    in_b.push_back(a.x[i].batched);
  }
  return {one, in_b};
}
}  // namespace

std::vector<Batched> batch_Checkpoint(BatchArgs& a) { return emit_over_body(a, batch_body(a, false), a.op.attrs); }

namespace {
// Traces `emit` on fresh params of `types` into a function, then batches that function on
// `args` (flags from them); results materialized (given the batch dim) where `want(i)`.
std::vector<ValueId> batched_call(Trace& t, const std::vector<ArrayType>& types, const std::vector<Batched>& args, int64_t size,
                                  const std::function<std::vector<ValueId>(Trace&, const std::vector<ValueId>&)>& emit,
                                  const std::function<bool(size_t)>& want) {
  auto rt = std::make_shared<Trace>("rule", t.mesh());
  std::vector<ValueId> params;
  for (auto& ty : types) params.push_back(rt->param(ty));
  auto outs = emit(*rt, params);
  const ir::Function fn = rt->finish(outs);
  auto res = batch(t, fn, args, size);
  std::vector<ValueId> out;
  for (size_t i = 0; i < res.size(); ++i) out.push_back(want(i) ? materialize(t, res[i], size) : res[i].value);
  return out;
}
}  // namespace

// custom_jvp under vmap: the body batched, and the user's rule batched the same way (traced on
// one example's types, then batched), so derivatives taken after vmap still use the rule.
std::vector<Batched> batch_CustomJvpCall(BatchArgs& a) {
  // Every output batched: the rule's outputs may be batched where the body's are not.
  auto rb = batch_body(a, true);
  const auto [one, in_b] = one_example(a);
  const auto& c = a.op.attr<ir::attr::CustomJvpCall>();
  auto rule = std::static_pointer_cast<const autodiff::CustomJvpRule>(c.rule);
  const int64_t size = a.size;
  const std::vector<bool> out_b = rb.out_batched;
  auto batched_rule = std::make_shared<const autodiff::CustomJvpRule>(
      [rule, one, in_b, out_b, size](Trace& t2, const std::vector<ValueId>& primals, const std::vector<ValueId>& tangents) {
        std::vector<ArrayType> types = one;
        types.insert(types.end(), one.begin(), one.end());
        std::vector<Batched> args;
        for (size_t i = 0; i < primals.size(); ++i) args.push_back({primals[i], static_cast<bool>(in_b[i])});
        for (size_t i = 0; i < tangents.size(); ++i) args.push_back({tangents[i], static_cast<bool>(in_b[i])});
        auto outs = batched_call(t2, types, args, size, [&](Trace& rt, const std::vector<ValueId>& ps) {
          std::vector<ValueId> p(ps.begin(), ps.begin() + static_cast<long>(one.size()));
          std::vector<ValueId> d(ps.begin() + static_cast<long>(one.size()), ps.end());
          auto [o, to] = (*rule)(rt, p, d);
          o.insert(o.end(), to.begin(), to.end());
          return o;
        }, [](size_t) { return true; });
        const size_t nr = outs.size() / 2;
        return std::pair{std::vector<ValueId>(outs.begin(), outs.begin() + static_cast<long>(nr)),
                         std::vector<ValueId>(outs.begin() + static_cast<long>(nr), outs.end())};
      });
  return emit_over_body(a, rb, ir::attr::CustomJvpCall{c.identity, batched_rule});
}

// custom_vjp under vmap: the body batched; the forward pass batched like custom_jvp's rule,
// its residuals all batched, and the backward pass batched over them.
std::vector<Batched> batch_CustomVjpCall(BatchArgs& a) {
  auto rb = batch_body(a, true);
  const auto [one, in_b] = one_example(a);
  const auto& c = a.op.attr<ir::attr::CustomVjpCall>();
  auto fwd = std::static_pointer_cast<const autodiff::CustomVjpFwd>(c.fwd);
  const int64_t size = a.size;
  std::vector<ArrayType> out_one;
  for (size_t i = 0; i < a.op.results.size(); ++i) out_one.push_back(a.result_type(i));
  auto batched_fwd = std::make_shared<const autodiff::CustomVjpFwd>([fwd, one, in_b, out_one, size](Trace& t2, const std::vector<ValueId>& primals) {
    std::vector<Batched> args;
    for (size_t i = 0; i < primals.size(); ++i) args.push_back({primals[i], static_cast<bool>(in_b[i])});
    std::shared_ptr<const autodiff::CustomVjpBwd> bwd;
    std::vector<ArrayType> res_one;
    size_t nout = 0;
    auto outs = batched_call(t2, one, args, size, [&](Trace& rt, const std::vector<ValueId>& ps) {
      auto fw = (*fwd)(rt, ps);
      bwd = fw.bwd;
      nout = fw.outputs.size();
      for (auto r : fw.residuals) res_one.push_back(rt.type(r));
      std::vector<ValueId> o = fw.outputs;
      o.insert(o.end(), fw.residuals.begin(), fw.residuals.end());
      return o;
    }, [](size_t) { return true; });  // every output and residual batched
    autodiff::CustomVjpForward out;
    out.outputs.assign(outs.begin(), outs.begin() + static_cast<long>(nout));
    out.residuals.assign(outs.begin() + static_cast<long>(nout), outs.end());
    out.bwd = std::make_shared<const autodiff::CustomVjpBwd>(
        [bwd, res_one, out_one, one, in_b, size](Trace& t3, const std::vector<ValueId>& res, const std::vector<ValueId>& cts) {
          std::vector<ArrayType> types = res_one;
          types.insert(types.end(), out_one.begin(), out_one.end());
          std::vector<Batched> args;
          for (auto r : res) args.push_back({r, true});
          for (auto ct : cts) args.push_back({ct, true});
          auto got = batched_call(t3, types, args, size, [&](Trace& rt, const std::vector<ValueId>& ps) {
            std::vector<ValueId> r(ps.begin(), ps.begin() + static_cast<long>(res_one.size()));
            std::vector<ValueId> g(ps.begin() + static_cast<long>(res_one.size()), ps.end());
            auto cot = (*bwd)(rt, r, g);
            std::vector<ValueId> o;
            for (size_t i = 0; i < cot.size(); ++i) o.push_back(cot[i] ? *cot[i] : autodiff::zeros(rt, one[i]));
            return o;
          }, [&](size_t i) { return in_b[i]; });
          std::vector<autodiff::Tangent> out;
          for (size_t i = 0; i < got.size(); ++i) {
            // an unbatched operand's cotangent sums over the lanes
            const ArrayType gt = t3.type(got[i]);
            out.push_back(!in_b[i] && gt.rank() == one[i].rank() + 1 ? trace::reduce(t3, "reduce_sum", ir::ReduceKind::Sum, got[i], {0}, false) : got[i]);
          }
          return out;
        });
    return out;
  });
  return emit_over_body(a, rb, ir::attr::CustomVjpCall{c.identity, batched_fwd});
}
std::vector<Batched> batch_CustomVjpLin(BatchArgs&) {
  unsupported("vmap of the linear part of a custom_vjp function (jax.vjp's function under vmap) is not supported yet");
}

std::vector<Batched> batch_HostCallback(BatchArgs& a) {
  std::vector<ValueId> operands;
  for (auto& v : a.x) operands.push_back(v.value);
  emit_like(a.t, a.fn, a.op, operands);
  return {};
}

std::vector<Batched> batch_Fusion(BatchArgs&) { throw std::logic_error("internal error: a per-device fusion in a traced program"); }

}  // namespace shard::batching
