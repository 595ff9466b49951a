// Forward-mode rules of the ops with regions: the body is differentiated into a body that
// also carries tangents (only the nonzero ones; a loop's carried tangents are found by
// iterating to a fixed point, as JAX does), and the op is re-emitted over it. Reverse mode
// through these ops is refused in linearize.cpp until their partial evaluation exists.
#include <fmt/format.h>

#include "autodiff/rules.hpp"

namespace shard::autodiff {

using ir::OpKind;

namespace {

struct RegionJvp {
  std::shared_ptr<const ir::Function> fn;  // params: f's, then nonzero tangents; results likewise
  std::vector<bool> out_nz;                // which results have a tangent result
};

// f's JVP as a function of (primals, tangents of the in_nz params): results f's results,
// then the tangents of those that have one (forced ones as zeros).
RegionJvp jvp_region(const ir::Function& f, const types::AbstractMesh& mesh, const std::vector<bool>& in_nz, const std::vector<bool>& force) {
  auto rt = std::make_shared<Trace>(f.name, mesh);
  std::vector<ValueId> primals;
  std::vector<Tangent> tangents;
  for (auto p : f.params) primals.push_back(rt->param(f.type(p)));
  for (size_t i = 0; i < f.params.size(); ++i)
    tangents.push_back(in_nz[i] ? Tangent(rt->param(f.type(f.params[i]))) : std::nullopt);
  JvpResult r = jvp(*rt, f, primals, tangents);
  RegionJvp out;
  std::vector<ValueId> results = r.primals;
  for (size_t i = 0; i < r.tangents.size(); ++i) {
    const ArrayType type = f.type(f.results[i]);
    const bool nz = r.tangents[i].has_value() || (i < force.size() && force[i]);
    out.out_nz.push_back(nz && is_differentiable(type));
    if (out.out_nz.back()) results.push_back(fit_type(*rt, instantiate(*rt, r.tangents[i], type), type));
  }
  out.fn = std::make_shared<const ir::Function>(rt->finish(results));
  return out;
}

std::vector<bool> nonzero(const std::vector<Tangent>& ts, size_t from, size_t n) {
  std::vector<bool> out;
  for (size_t i = from; i < from + n; ++i) out.push_back(ts.at(i).has_value());
  return out;
}

template <class T>
std::vector<T> cat(std::initializer_list<std::vector<T>> parts) {
  std::vector<T> out;
  for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// The elements at the positions where mask is set.
template <class T>
std::vector<T> masked(const std::vector<T>& v, const std::vector<bool>& mask) {
  std::vector<T> out;
  for (size_t i = 0; i < v.size(); ++i)
    if (mask[i]) out.push_back(v[i]);
  return out;
}
std::vector<bool> vor(std::vector<bool> a, const std::vector<bool>& b) {
  for (size_t i = 0; i < a.size(); ++i) a[i] = a[i] || b[i];
  return a;
}
std::vector<bool> slice_of(const std::vector<bool>& v, size_t from, size_t n) { return {v.begin() + static_cast<long>(from), v.begin() + static_cast<long>(from + n)}; }

// A function with its params / results reordered: groups of positions, concatenated.
std::shared_ptr<const ir::Function> regroup(const ir::Function& f, const std::vector<std::vector<size_t>>& params,
                                            const std::vector<std::vector<size_t>>& results) {
  ir::Function g = f;
  g.params.clear();
  g.results.clear();
  for (auto& grp : params)
    for (auto i : grp) g.params.push_back(f.params.at(i));
  for (auto& grp : results)
    for (auto i : grp) g.results.push_back(f.results.at(i));
  return std::make_shared<const ir::Function>(std::move(g));
}
std::vector<size_t> iota_from(size_t from, size_t n) {
  std::vector<size_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = from + i;
  return out;
}
size_t count(const std::vector<bool>& v) { return static_cast<size_t>(std::count(v.begin(), v.end(), true)); }

// Tangent operands for the mask: the given ones, zeros where a tangent is forced.
std::vector<ValueId> tangent_operands(JvpArgs& a, size_t from, const std::vector<bool>& mask) {
  std::vector<ValueId> out;
  for (size_t i = 0; i < mask.size(); ++i)
    if (mask[i]) out.push_back(instantiate(a.t, a.dx[from + i], a.operand_type(from + i)));
  return out;
}

std::vector<ArrayType> result_types(const JvpArgs& a, size_t from, size_t n) {
  std::vector<ArrayType> out;
  for (size_t i = from; i < from + n; ++i) out.push_back(a.result_type(i));
  return out;
}

// An op's results laid out as (primal results, then the tangents of those with one).
JvpOut primals_then_tangents(const std::vector<ValueId>& rs, size_t n, const std::vector<bool>& nz) {
  JvpOut out;
  out.y.assign(rs.begin(), rs.begin() + static_cast<long>(n));
  out.dy.resize(n);
  size_t pos = n;
  for (size_t i = 0; i < n; ++i)
    if (nz[i]) out.dy[i] = rs[pos++];
  return out;
}

}  // namespace

// scan: (consts, carries, xs) -> (carries, ys); the JVP scan carries the nonzero tangents.
JvpOut jvp_Scan(JvpArgs& a) {
  const auto& s = a.op.attr<ir::attr::Scan>();
  const ir::Function& body = *a.op.regions.at(0);
  const auto nc = static_cast<size_t>(s.num_consts), nk = static_cast<size_t>(s.num_carry);
  const size_t nx = a.x.size() - nc - nk, ny = a.op.results.size() - nk;
  const auto c_nz = nonzero(a.dx, 0, nc), x_nz = nonzero(a.dx, nc + nk, nx);
  auto k_nz = nonzero(a.dx, nc, nk);
  RegionJvp rj;
  for (;;) {
    std::vector<bool> force(nk, false);
    for (size_t i = 0; i < nk; ++i) force[i] = k_nz[i];
    rj = jvp_region(body, a.t.mesh(), cat<bool>({c_nz, k_nz, x_nz}), force);
    auto grown = vor(k_nz, slice_of(rj.out_nz, 0, nk));
    if (grown == k_nz) break;
    k_nz = grown;
  }
  const auto y_nz = slice_of(rj.out_nz, nk, ny);
  const size_t ndc = count(c_nz), ndk = count(k_nz), ndx = count(x_nz), ndy = count(y_nz);
  // g: params [c, k, x, dc, dk, dx] -> [c, dc, k, dk, x, dx]; results [k, y, dk, dy] -> [k, dk, y, dy].
  const size_t np = nc + nk + nx, nr = nk + ny;
  auto fn = regroup(*rj.fn,
                    {iota_from(0, nc), iota_from(np, ndc), iota_from(nc, nk), iota_from(np + ndc, ndk), iota_from(nc + nk, nx),
                     iota_from(np + ndc + ndk, ndx)},
                    {iota_from(0, nk), iota_from(nr, ndk), iota_from(nk, ny), iota_from(nr + ndk, ndy)});
  std::vector<ValueId> xs(a.x.begin(), a.x.end());
  std::vector<ValueId> operands = cat<ValueId>({{xs.begin(), xs.begin() + static_cast<long>(nc)}, tangent_operands(a, 0, c_nz),
                                                {xs.begin() + static_cast<long>(nc), xs.begin() + static_cast<long>(nc + nk)},
                                                tangent_operands(a, nc, k_nz), {xs.begin() + static_cast<long>(nc + nk), xs.end()},
                                                tangent_operands(a, nc + nk, x_nz)});
  auto k_types = result_types(a, 0, nk), y_types = result_types(a, nk, ny);
  std::vector<ArrayType> types = cat<ArrayType>({k_types, masked(k_types, k_nz), y_types, masked(y_types, y_nz)});
  ir::attr::Scan attrs{static_cast<int64_t>(nc + ndc), static_cast<int64_t>(nk + ndk), s.length, s.reverse};
  auto rs = a.t.emit_multi(OpKind::Scan, operands, types, attrs, {fn});
  JvpOut out;
  out.dy.resize(nr);
  size_t pos = 0;
  for (size_t i = 0; i < nk; ++i) out.y.push_back(rs[pos++]);
  for (size_t i = 0; i < nk; ++i)
    if (k_nz[i]) out.dy[i] = rs[pos++];
  for (size_t i = 0; i < ny; ++i) out.y.push_back(rs[pos++]);
  for (size_t i = 0; i < ny; ++i)
    if (y_nz[i]) out.dy[nk + i] = rs[pos++];
  return out;
}

// while: operands (cond consts, body consts, carries); the condition reads primals only.
JvpOut jvp_While(JvpArgs& a) {
  const auto& w = a.op.attr<ir::attr::While>();
  const ir::Function& cond = *a.op.regions.at(0);
  const ir::Function& body = *a.op.regions.at(1);
  const auto ncc = static_cast<size_t>(w.cond_nconsts), nbc = static_cast<size_t>(w.body_nconsts);
  const size_t nk = a.x.size() - ncc - nbc;
  const auto bc_nz = nonzero(a.dx, ncc, nbc);
  auto k_nz = nonzero(a.dx, ncc + nbc, nk);
  RegionJvp rj;
  for (;;) {
    rj = jvp_region(body, a.t.mesh(), cat<bool>({bc_nz, k_nz}), k_nz);
    auto grown = vor(k_nz, rj.out_nz);
    if (grown == k_nz) break;
    k_nz = grown;
  }
  const size_t ndbc = count(bc_nz), ndk = count(k_nz);
  // body: params [bc, k, dbc, dk] -> [bc, dbc, k, dk]; results [k, dk] as they are.
  auto body_fn = regroup(*rj.fn, {iota_from(0, nbc), iota_from(nbc + nk, ndbc), iota_from(nbc, nk), iota_from(nbc + nk + ndbc, ndk)},
                         {iota_from(0, nk + ndk)});
  // cond: its own params, then ones for the tangents it ignores.
  ir::Function cond_fn = cond;
  auto k_types = result_types(a, 0, nk);
  for (auto& ty : masked(k_types, k_nz)) cond_fn.params.push_back(cond_fn.new_value(ty));
  std::vector<ValueId> xs = a.x;
  std::vector<ValueId> operands = cat<ValueId>({{xs.begin(), xs.begin() + static_cast<long>(ncc + nbc)}, tangent_operands(a, ncc, bc_nz),
                                                {xs.begin() + static_cast<long>(ncc + nbc), xs.end()}, tangent_operands(a, ncc + nbc, k_nz)});
  ir::attr::While attrs{static_cast<int64_t>(ncc), static_cast<int64_t>(nbc + ndbc)};
  auto rs = a.t.emit_multi(OpKind::While, operands, cat<ArrayType>({k_types, masked(k_types, k_nz)}), attrs,
                           {std::make_shared<const ir::Function>(std::move(cond_fn)), body_fn});
  return primals_then_tangents(rs, nk, k_nz);
}

// cond: operands (index, branch operands); every branch returns the same tangents.
JvpOut jvp_Cond(JvpArgs& a) {
  const size_t n = a.x.size() - 1, nr = a.op.results.size();
  const auto in_nz = nonzero(a.dx, 1, n);
  std::vector<bool> out_nz(nr, false);
  for (auto& br : a.op.regions) out_nz = vor(out_nz, jvp_region(*br, a.t.mesh(), in_nz, {}).out_nz);
  std::vector<std::shared_ptr<const ir::Function>> branches;
  for (auto& br : a.op.regions) branches.push_back(jvp_region(*br, a.t.mesh(), in_nz, out_nz).fn);
  auto r_types = result_types(a, 0, nr);
  std::vector<ValueId> operands = cat<ValueId>({a.x, tangent_operands(a, 1, in_nz)});
  auto rs = a.t.emit_multi(OpKind::Cond, operands, cat<ArrayType>({r_types, masked(r_types, out_nz)}), a.op.attrs, branches);
  return primals_then_tangents(rs, nr, out_nz);
}

// shard_map: operands (explicit operands, captured consts); tangents enter with their
// primal's in_spec and leave with its out_spec.
JvpOut jvp_ShardMap(JvpArgs& a) {
  const auto& s = a.op.attr<ir::attr::ShardMap>();
  const ir::Function& body = *a.op.regions.at(0);
  const size_t n = a.x.size(), nr = a.op.results.size();
  const types::AbstractMesh inner = s.mesh.with_axis_types(s.manual_axes, types::AxisType::Manual);
  const auto in_nz = nonzero(a.dx, 0, n);
  RegionJvp rj;
  {
    trace::CheckVmaScope vma(s.check_vma);
    rj = jvp_region(body, inner, in_nz, {});
  }
  ir::attr::ShardMap attrs = s;
  attrs.in_specs.resize(n);  // captured consts enter replicated
  for (size_t i = 0; i < n; ++i)
    if (in_nz[i]) attrs.in_specs.push_back(attrs.in_specs[i]);
  for (size_t i = 0; i < nr; ++i)
    if (rj.out_nz[i]) attrs.out_specs.push_back(s.out_specs.at(i));
  auto r_types = result_types(a, 0, nr);
  std::vector<ValueId> operands = cat<ValueId>({a.x, tangent_operands(a, 0, in_nz)});
  auto rs = a.t.emit_multi(OpKind::ShardMap, operands, cat<ArrayType>({r_types, masked(r_types, rj.out_nz)}), attrs, {rj.fn});
  return primals_then_tangents(rs, nr, rj.out_nz);
}

// ---- transposes (of the unknown halves partial_eval_control.cpp makes) ------------------------

// scan: the transposed body runs in the other direction, carrying the cotangents of the
// carries and accumulating those of the linear consts; the cotangents of the ys come in as
// xs and those of the linear xs leave as ys. Operands that are not linear are residuals.
std::vector<Tangent> transpose_Scan(TransposeArgs& a) {
  Trace& t = a.t;
  const auto& s = a.op.attr<ir::attr::Scan>();
  const ir::Function& body = *a.op.regions.at(0);
  const auto nc = static_cast<size_t>(s.num_consts), nk = static_cast<size_t>(s.num_carry);
  const size_t nx = a.op.operands.size() - nc - nk, ny = a.op.results.size() - nk;
  std::vector<size_t> nl_c, lin_c, nl_x, lin_x;
  for (size_t i = 0; i < nc; ++i) (a.linear[i] ? lin_c : nl_c).push_back(i);
  for (size_t i = 0; i < nx; ++i) (a.linear[nc + nk + i] ? lin_x : nl_x).push_back(nc + nk + i);
  // The body with its params as transpose() wants them: residuals first.
  std::vector<size_t> order = nl_c;
  order.insert(order.end(), nl_x.begin(), nl_x.end());
  order.insert(order.end(), lin_c.begin(), lin_c.end());
  for (size_t i = 0; i < nk; ++i) order.push_back(nc + i);
  order.insert(order.end(), lin_x.begin(), lin_x.end());
  auto linear_body = regroup(body, {order}, {iota_from(0, nk + ny)});

  auto bt = std::make_shared<Trace>(body.name, t.mesh());
  bt->set_loc(t.loc());
  auto ptype = [&](size_t i) { return body.type(body.params[i]); };
  std::vector<ValueId> res, acc, ct_k, ct_y;
  for (auto i : nl_c) res.push_back(bt->param(ptype(i)));
  for (auto i : lin_c) acc.push_back(bt->param(ptype(i)));
  for (size_t i = 0; i < nk; ++i) ct_k.push_back(bt->param(ptype(nc + i)));
  for (auto i : nl_x) res.push_back(bt->param(ptype(i)));
  for (size_t i = 0; i < ny; ++i) ct_y.push_back(bt->param(body.type(body.results[nk + i])));
  std::vector<Tangent> cts(ct_k.begin(), ct_k.end());
  cts.insert(cts.end(), ct_y.begin(), ct_y.end());
  auto got = transpose(*bt, *linear_body, res, cts);  // [lin c, carries, lin x]
  std::vector<ValueId> results;
  for (size_t j = 0; j < lin_c.size(); ++j) results.push_back(got[j] ? add(*bt, acc[j], *got[j]) : acc[j]);
  for (size_t i = 0; i < nk; ++i) results.push_back(instantiate(*bt, got[lin_c.size() + i], ptype(nc + i)));
  for (size_t j = 0; j < lin_x.size(); ++j) results.push_back(instantiate(*bt, got[lin_c.size() + nk + j], ptype(lin_x[j])));
  for (size_t i = 0; i < results.size(); ++i) {
    const ArrayType want = i < lin_c.size() ? ptype(lin_c[i]) : i < lin_c.size() + nk ? ptype(nc + i - lin_c.size())
                                                                                        : ptype(lin_x[i - lin_c.size() - nk]);
    results[i] = fit_type(*bt, results[i], want);
  }
  auto fn = std::make_shared<const ir::Function>(bt->finish(results));

  std::vector<ValueId> operands;
  for (auto i : nl_c) operands.push_back(a.x[i]);
  for (auto i : lin_c) operands.push_back(zeros(t, a.operand_type(i)));
  for (size_t i = 0; i < nk; ++i) operands.push_back(a.ct_value(i));
  for (auto i : nl_x) operands.push_back(a.x[i]);
  for (size_t i = 0; i < ny; ++i) operands.push_back(a.ct_value(nk + i));
  std::vector<ArrayType> types;
  for (auto i : lin_c) types.push_back(a.operand_type(i));
  for (size_t i = 0; i < nk; ++i) types.push_back(a.operand_type(nc + i));
  for (auto i : lin_x) types.push_back(a.operand_type(i));
  ir::attr::Scan attrs{static_cast<int64_t>(nl_c.size()), static_cast<int64_t>(lin_c.size() + nk), s.length, !s.reverse};
  auto rs = t.emit_multi(OpKind::Scan, operands, types, attrs, {fn});
  std::vector<Tangent> out(a.op.operands.size());
  size_t pos = 0;
  for (auto i : lin_c) out[i] = rs[pos++];
  for (size_t i = 0; i < nk; ++i) out[nc + i] = rs[pos++];
  for (auto i : lin_x) out[i] = rs[pos++];
  return out;
}

namespace {
// The transpose of a region as a function of (its params at `nl`, which are not linear; the
// cotangents of its results) -> the cotangents of its params at `lin`, typed as those params.
std::shared_ptr<const ir::Function> transposed_region(const ir::Function& body, const types::AbstractMesh& mesh, const std::vector<size_t>& nl,
                                                      const std::vector<size_t>& lin, ast::Loc loc) {
  std::vector<size_t> order = nl;
  order.insert(order.end(), lin.begin(), lin.end());
  auto linear_body = regroup(body, {order}, {iota_from(0, body.results.size())});
  auto bt = std::make_shared<Trace>(body.name, mesh);
  bt->set_loc(loc);
  std::vector<ValueId> res;
  std::vector<Tangent> cts;
  for (auto i : nl) res.push_back(bt->param(body.type(body.params[i])));
  for (auto r : body.results) cts.push_back(bt->param(body.type(r)));
  auto got = transpose(*bt, *linear_body, res, cts);
  std::vector<ValueId> results;
  for (size_t j = 0; j < lin.size(); ++j) {
    const ArrayType want = body.type(body.params[lin[j]]);
    results.push_back(fit_type(*bt, instantiate(*bt, got[j], want), want));
  }
  return std::make_shared<const ir::Function>(bt->finish(results));
}
}  // namespace

// cond: the same branch index picks the transposed branch; operands that are not linear
// (the residuals) are passed to every branch.
std::vector<Tangent> transpose_Cond(TransposeArgs& a) {
  Trace& t = a.t;
  const size_t n = a.op.operands.size() - 1, nr = a.op.results.size();
  std::vector<size_t> nl, lin;
  for (size_t i = 0; i < n; ++i) (a.linear[1 + i] ? lin : nl).push_back(i);
  std::vector<std::shared_ptr<const ir::Function>> branches;
  for (auto& br : a.op.regions) branches.push_back(transposed_region(*br, t.mesh(), nl, lin, t.loc()));
  std::vector<ValueId> operands{a.x[0]};
  for (auto i : nl) operands.push_back(a.x[1 + i]);
  for (size_t i = 0; i < nr; ++i) operands.push_back(a.ct_value(i));
  std::vector<ArrayType> types;
  for (auto i : lin) types.push_back(a.operand_type(1 + i));
  auto rs = t.emit_multi(OpKind::Cond, operands, types, a.op.attrs, branches);
  std::vector<Tangent> out(a.op.operands.size());
  for (size_t j = 0; j < lin.size(); ++j) out[1 + lin[j]] = rs[j];
  return out;
}

// checkpoint: the body's JVP, still marked for recomputation (partial evaluation decides what
// reverse mode saves, partial_eval_control.cpp).
JvpOut jvp_Checkpoint(JvpArgs& a) {
  const ir::Function& body = *a.op.regions.at(0);
  const size_t n = a.x.size(), nr = a.op.results.size();
  const auto in_nz = nonzero(a.dx, 0, n);
  RegionJvp rj = jvp_region(body, a.t.mesh(), in_nz, {});
  auto r_types = result_types(a, 0, nr);
  auto rs = a.t.emit_multi(OpKind::Checkpoint, cat<ValueId>({a.x, tangent_operands(a, 0, in_nz)}),
                           cat<ArrayType>({r_types, masked(r_types, rj.out_nz)}), a.op.attrs, {rj.fn});
  return primals_then_tangents(rs, nr, rj.out_nz);
}

// shard_map: a shard_map of the transposed body; the residuals enter as they entered the
// original, the result cotangents with the original out_specs, and the operands' cotangents
// leave with their in_specs.
std::vector<Tangent> transpose_ShardMap(TransposeArgs& a) {
  Trace& t = a.t;
  const auto& s = a.op.attr<ir::attr::ShardMap>();
  const ir::Function& body = *a.op.regions.at(0);
  const size_t n = a.op.operands.size(), nr = a.op.results.size();
  auto in_spec = [&](size_t i) { return i < s.in_specs.size() ? s.in_specs[i] : types::PartitionSpec(); };
  std::vector<size_t> nl, lin;
  for (size_t i = 0; i < n; ++i) (a.linear[i] ? lin : nl).push_back(i);
  std::shared_ptr<const ir::Function> fn;
  {
    trace::CheckVmaScope vma(s.check_vma);
    fn = transposed_region(body, s.mesh.with_axis_types(s.manual_axes, types::AxisType::Manual), nl, lin, t.loc());
  }
  ir::attr::ShardMap attrs = s;
  attrs.in_specs.clear();
  attrs.out_specs.clear();
  std::vector<ValueId> operands;
  for (auto i : nl) {
    operands.push_back(a.x[i]);
    attrs.in_specs.push_back(in_spec(i));
  }
  for (size_t i = 0; i < nr; ++i) {
    operands.push_back(a.ct_value(i));
    attrs.in_specs.push_back(s.out_specs.at(i));
  }
  std::vector<ArrayType> types;
  for (auto i : lin) {
    types.push_back(a.operand_type(i));
    attrs.out_specs.push_back(in_spec(i));
  }
  auto rs = t.emit_multi(OpKind::ShardMap, operands, types, attrs, {fn});
  std::vector<Tangent> out(n);
  for (size_t j = 0; j < lin.size(); ++j) out[lin[j]] = rs[j];
  return out;
}

// A host callback (jax.debug.print) sees primals; it has no results to differentiate.
JvpOut jvp_HostCallback(JvpArgs& a) { return emit_primal(a); }

JvpOut jvp_Fusion(JvpArgs&) { throw std::logic_error("internal error: a per-device fusion in a traced program"); }

}  // namespace shard::autodiff
