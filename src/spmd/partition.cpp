#include "spmd/partition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <stdexcept>

#include "ir/dim_map.hpp"
#include "ir/layout_probe.hpp"
#include "spmd/auto_layouts.hpp"
#include "spmd/local_builder.hpp"
#include "spmd/partitioner.hpp"
#include "spmd/reshape_layout.hpp"

namespace shard::spmd {

using ir::OpKind;
using types::AxisType;
using types::DType;

types::Shape local_shape(const types::Shape& global, const PartitionSpec& layout, const types::AbstractMesh& mesh) {
  types::Shape s = global;
  for (size_t d = 0; d < s.size() && d < layout.size(); ++d)
    if (!layout[d].empty()) s[d] /= mesh.axes_size(layout[d]);
  return s;
}

void remove_dead_ops(ir::Function& f) {
  std::vector<bool> used(f.value_types.size(), false);
  for (auto r : f.results) used[r] = true;
  std::vector<bool> keep(f.ops.size(), false);
  for (size_t i = f.ops.size(); i-- > 0;) {
    const auto& op = f.ops[i];
    bool live = op.kind == OpKind::HostCallback || !op.regions.empty();
    for (auto r : op.results) live |= used[r];
    if (!live) continue;
    keep[i] = true;
    for (auto v : op.operands) used[v] = true;
  }
  std::vector<ir::Op> ops;
  for (size_t i = 0; i < f.ops.size(); ++i)
    if (keep[i]) ops.push_back(std::move(f.ops[i]));
  f.ops = std::move(ops);
}

Partitioned Partitioner::run(const std::vector<PartitionSpec>& in_layouts, const std::vector<PartitionSpec>& want) {
  map_.resize(g_.value_types.size());
  def_.assign(g_.value_types.size(), nullptr);
  users_.assign(g_.value_types.size(), {});
  for (const auto& op : g_.ops) {
    for (auto r : op.results) def_[r] = &op;
    for (auto v : op.operands) users_[v].push_back(&op);
  }
  for (auto v : g_.results) users_[v].push_back(nullptr);  // a result leaves in its type's layout
  for (size_t i = 0; i < g_.params.size(); ++i) {
    auto p = g_.params[i];
    const auto& t = g_.type(p);
    PartitionSpec layout = normalized(i < in_layouts.size() ? in_layouts[i] : PartitionSpec(), t.rank());
    map_[p] = {b_.param(t.dtype(), b_.local_shape(t.shape(), layout)), layout};
  }
  for (const auto& op : g_.ops) {
    b_.set_loc(op.loc);
    partition_op(op);
  }
  Partitioned out;
  for (size_t i = 0; i < g_.results.size(); ++i) {
    auto r = g_.results[i];
    Local l = map_[r];
    if (i < want.size() && !(normalized(l.layout, gtype(r).rank()) == normalized(want[i], gtype(r).rank()))) {
      l.id = b_.reshard(l.id, gtype(r).dtype(), gtype(r).shape(), l.layout, want[i], "loop carry");
      l.layout = want[i];
    }
    out.local.results.push_back(l.id);
    out.out_layouts.push_back(l.layout);
  }
  auto& fn = b_.fn();
  out.local.name = g_.name;
  out.local.value_types = fn.value_types;
  out.local.params = fn.params;
  out.local.ops = fn.ops;
  remove_dead_ops(out.local);
  return out;
}

ir::ValueId Partitioner::in_layout(const ir::Op& op, ir::ValueId v, const PartitionSpec& to) {
  const auto& t = gtype(v);
  const ir::Op* def = def_[v];
  if (def && def->kind == OpKind::BroadcastInDim && map_[v].layout.all_none() && !to.all_none() && to.size() == t.rank()) {
    for (auto& [key, local] : rebroadcast_)
      if (key.first == v && key.second == to) return local;
    auto x = in_layout(*def, def->operands[0], broadcast_operand_layout(*def, to));
    auto local = b_.emit(OpKind::BroadcastInDim, {x}, t.dtype(), b_.local_shape(t.shape(), to), def->attrs);
    rebroadcast_.push_back({{v, to}, local});
    return local;
  }
  return b_.reshard(map_[v].id, t.dtype(), t.shape(), map_[v].layout, to, why(op));
}

PartitionSpec Partitioner::result_layout(const ir::ArrayType& t, const PartitionSpec* hint) const {
  auto entries = normalized(t.spec(), t.rank()).entries();
  std::set<std::string> used;
  for (auto& e : entries) used.insert(e.begin(), e.end());
  // Explicit in the value's own mesh (inside auto_axes an outer-Explicit axis is Auto).
  auto free_auto = [&](const Entry& axes, int64_t size) {
    if (axes.empty()) return false;
    for (auto& a : axes)
      if ((t.mesh().empty() ? is_explicit(a) : t.mesh().axis_type(a) == AxisType::Explicit) || used.count(a)) return false;
    return size % am_.axes_size(axes) == 0;
  };
  auto take = [&](size_t d, const Entry& axes) {
    if (!entries[d].empty() || !free_auto(axes, t.shape()[d])) return;
    entries[d] = axes;
    used.insert(axes.begin(), axes.end());
  };
  if (hint)
    for (size_t d = 0; d < entries.size() && d < hint->size(); ++d) take(d, (*hint)[d]);
  // `t` is always a reference into g_.value_types (see gtype), so its index is the value.
  const auto* base = g_.value_types.data();
  if (&t >= base && &t < base + g_.value_types.size()) {
    if (!plan_) {
      std::vector<PartitionSpec> in_layouts;
      for (auto p : g_.params) in_layouts.push_back(map_[p].layout);
      plan_ = plan_auto_layouts(g_, am_, in_layouts);
    }
    if (const auto& pref = (*plan_)[static_cast<size_t>(&t - base)]) {
      auto pe = pref->normalized(t.rank()).entries();
      for (size_t d = 0; d < entries.size(); ++d) take(d, pe[d]);
    }
  }
  return PartitionSpec(entries, t.spec().unreduced());  // an unreduced type: partial sums stay
}

PartitionSpec Partitioner::broadcast_operand_layout(const ir::Op& broadcast, const PartitionSpec& result_layout) const {
  const auto& it = gtype(broadcast.operands[0]);
  const auto& rt = gtype(broadcast.results[0]);
  auto map = ir::dim_map(g_, broadcast);
  PartitionSpec need = PartitionSpec::replicated(it.rank());
  for (size_t i = 0; i < map.size(); ++i)
    if (ir::keeps_whole_dim(map, i, it.shape(), rt.shape())) need = with_entry(need, i, result_layout[map[i].result_dim]);
  return need;
}

void Partitioner::partition_op(const ir::Op& op) {
  const auto& a = op.attrs;  // unchanged, except where a rewrite says otherwise
  // Partial sums (unreduced layouts) reach only the ops that keep or reduce them: linear
  // elementwise ops, reshards and sharding constraints. Any other op sees their sum, added up
  // once here for every later user (whose layout rules then never see unreduced axes).
  const bool takes_partial_sums = op.kind == OpKind::Elementwise || op.kind == OpKind::Reshard || op.kind == OpKind::ShardingConstraint;
  // A loop carry typed unreduced enters the body as the partial sums it is (the body's carry
  // has the same type), so accumulating partial sums in a loop costs no all-reduce per loop.
  auto is_loop_carry = [&](size_t i) {
    if (op.kind == OpKind::Scan) {
      const auto& s = op.attr<ir::attr::Scan>();
      return i >= static_cast<size_t>(s.num_consts) && i < static_cast<size_t>(s.num_consts + s.num_carry);
    }
    if (op.kind == OpKind::While) {
      const auto& w = op.attr<ir::attr::While>();
      return i >= static_cast<size_t>(w.cond_nconsts + w.body_nconsts);
    }
    return false;
  };
  if (!takes_partial_sums)
    for (size_t i = 0; i < op.operands.size(); ++i)
      if (const auto v = op.operands[i]; !map_[v].layout.unreduced().empty() && !is_loop_carry(i)) {
        const auto& t = gtype(v);
        PartitionSpec summed = map_[v].layout.with_unreduced({});
        map_[v] = {b_.reshard(map_[v].id, t.dtype(), t.shape(), map_[v].layout, summed, why(op)), summed};
      }
  if (op.kind == OpKind::HostCallback) {  // the host sees whole values
    if (const auto& cb = op.attr<ir::attr::HostCallback>(); ir::is_layout_probe(cb) && op.operands.size() == 1) {
      const auto v = op.operands[0];  // only its layout is wanted (ir/layout_probe.hpp)
      b_.emit_multi(op.kind, {}, {}, ir::with_probed_layout(cb, normalized(map_[v].layout, gtype(v).rank()), am_), {});
      return;
    }
    std::vector<ir::ValueId> ins;
    for (auto v : op.operands) ins.push_back(in_layout(op, v, PartitionSpec::replicated(gtype(v).rank())));
    b_.emit_multi(op.kind, ins, {}, a, {});
    return;
  }
  if (op.kind == OpKind::ShardMap) return partition_shard_map(op);  // may have no results
  if (ir::is_collective(op.kind) || op.kind == OpKind::AxisIndex) return partition_collective(op);  // from shard_map bodies
  const auto& rt = gtype(op.results[0]);
  switch (op.kind) {
    case OpKind::Elementwise: {
      const PartitionSpec* hint = nullptr;
      for (auto v : op.operands)
        if (gtype(v).shape() == rt.shape() && !map_[v].layout.all_none()) { hint = &map_[v].layout; break; }
      PartitionSpec layout = result_layout(rt, hint);
      std::vector<ir::ValueId> ins;
      // Ops linear in unreduced operands (sharding/elementwise.cpp) run on the partial sums;
      // a reduced operand (a scale) is taken whole.
      for (auto v : op.operands)
        ins.push_back(in_layout(op, v, gtype(v).spec().unreduced().empty() ? layout.with_unreduced({}) : layout));
      define(op.results[0], b_.emit(op.kind, ins, rt.dtype(), b_.local_shape(rt.shape(), layout), a), layout);
      return;
    }
    case OpKind::Constant: case OpKind::Iota: {
      auto full = b_.emit(op.kind, {}, rt.dtype(), rt.shape(), a);
      define_conformed(op, full, PartitionSpec::replicated(rt.rank()));
      return;
    }
    case OpKind::BroadcastInDim: {  // layouts follow whole dims through the dimension map
      const auto& it = gtype(op.operands[0]);
      auto map = ir::dim_map(op.attrs, it.shape(), rt.shape());
      auto whole = [&](size_t i) { return ir::keeps_whole_dim(map, i, it.shape(), rt.shape()); };
      PartitionSpec hint = PartitionSpec::replicated(rt.rank());
      for (size_t i = 0; i < map.size(); ++i)
        if (whole(i)) hint = with_entry(hint, map[i].result_dim, map_[op.operands[0]].layout[i]);
      PartitionSpec layout = result_layout(rt, &hint);
      auto x = in_layout(op, op.operands[0], broadcast_operand_layout(op, layout));
      define(op.results[0], b_.emit(op.kind, {x}, rt.dtype(), b_.local_shape(rt.shape(), layout), a), layout);
      return;
    }
    case OpKind::Transpose: {
      const auto& in = map_[op.operands[0]];
      std::vector<Entry> entries;
      entries.resize(rt.rank());
      auto map = ir::dim_map(op.attrs, gtype(op.operands[0]).shape(), rt.shape());
      for (size_t d = 0; d < map.size(); ++d) entries[static_cast<size_t>(map[d].result_dim)] = in.layout[d];
      PartitionSpec layout(entries);
      define_conformed(op, b_.emit(op.kind, {in.id}, rt.dtype(), b_.local_shape(rt.shape(), layout), a), layout);
      return;
    }
    case OpKind::Reshape: return partition_reshape(op);
    case OpKind::Slice: case OpKind::Pad: case OpKind::Rev: return partition_gathering_dims(op);
    case OpKind::Concatenate: {
      PartitionSpec layout = with_entry(map_[op.operands[0]].layout, op.attr<ir::attr::Concatenate>().dimension, {});
      std::vector<ir::ValueId> ins;
      for (auto v : op.operands) ins.push_back(in_layout(op, v, layout));
      define_conformed(op, b_.emit(op.kind, ins, rt.dtype(), b_.local_shape(rt.shape(), layout), a), layout);
      return;
    }
    case OpKind::Reduce: {
      const auto& in = map_[op.operands[0]];
      const auto& reduce = op.attr<ir::attr::Reduce>();
      Entry axes;
      std::vector<Entry> kept;
      for (size_t d = 0; d < in.layout.size(); ++d) {
        bool reduced = std::find(reduce.axes.begin(), reduce.axes.end(), static_cast<int64_t>(d)) != reduce.axes.end();
        if (reduced) axes.insert(axes.end(), in.layout[d].begin(), in.layout[d].end());
        else kept.push_back(in.layout[d]);
      }
      PartitionSpec layout(kept);
      auto local = b_.emit(op.kind, {in.id}, rt.dtype(), b_.local_shape(rt.shape(), layout), a);
      if (!axes.empty()) {
        axes = am_.order_wrt_mesh(axes);
        local = b_.collective(ir::attr::AllReduce{.kind = reduce.kind, .axes = axes}, local, rt.dtype(),
                              fmt::format("{} over a dim sharded on {}", why(op), entry_text(axes)));
      }
      define_conformed(op, local, layout);
      return;
    }
    case OpKind::Sort: {  // the sorted axis must be whole; payloads take the keys' layout
      PartitionSpec need = with_entry(map_[op.operands[0]].layout, op.attr<ir::attr::Sort>().dimension, {});
      std::vector<ir::ValueId> ins;
      std::vector<std::pair<DType, types::Shape>> results;
      for (auto v : op.operands) ins.push_back(in_layout(op, v, need));
      for (auto r : op.results) results.emplace_back(gtype(r).dtype(), b_.local_shape(gtype(r).shape(), need));
      auto locals = b_.emit_multi(op.kind, ins, results, op.attrs, {});
      for (size_t k = 0; k < op.results.size(); ++k) {
        const auto& t = gtype(op.results[k]);
        PartitionSpec want = result_layout(t, &need);
        ir::ValueId local = locals[k];
        if (!(normalized(need, t.rank()) == want)) local = b_.reshard(local, t.dtype(), t.shape(), need, want, why(op));
        define(op.results[k], local, want);
      }
      return;
    }
    case OpKind::ArgReduce: case OpKind::Cumulative: {  // the op's axis must be whole
      const int64_t axis = op.kind == OpKind::ArgReduce ? op.attr<ir::attr::ArgReduce>().axis : op.attr<ir::attr::Cumulative>().axis;
      const auto& have = map_[op.operands[0]].layout;
      PartitionSpec need = with_entry(have, axis, {});
      // Rather than gathering the whole array onto every device (each then computing all of
      // it), move the axis's mesh axes to another whole dim they divide (an all-to-all): every
      // device computes its part of the result once.
      const Entry moved = have.entries().at(static_cast<size_t>(axis));
      if (!moved.empty()) {
        const auto& shape = gtype(op.operands[0]).shape();
        int64_t best = -1;
        for (size_t d = 0; d < shape.size(); ++d)
          if (static_cast<int64_t>(d) != axis && have.entries()[d].empty() && shape[d] % b_.axes_size(moved) == 0 &&
              (best < 0 || shape[d] > shape[static_cast<size_t>(best)]))
            best = static_cast<int64_t>(d);
        if (best >= 0) need = with_entry(need, static_cast<size_t>(best), moved);
      }
      auto x = in_layout(op, op.operands[0], need);
      PartitionSpec layout = need;
      if (op.kind == OpKind::ArgReduce) {
        auto e = need.entries();
        e.erase(e.begin() + axis);
        layout = PartitionSpec(e);
      }
      define_conformed(op, b_.emit(op.kind, {x}, rt.dtype(), b_.local_shape(rt.shape(), layout), a), layout);
      return;
    }
    case OpKind::DotGeneral: return partition_dot(op);
    case OpKind::Cholesky: case OpKind::Lu: case OpKind::TriangularSolve: case OpKind::Eigh: case OpKind::Svd: case OpKind::Qr:
    case OpKind::Fft:
      return partition_linalg(op);
    case OpKind::While: case OpKind::Scan: case OpKind::Cond: return partition_control(op);
    case OpKind::Reshard: {
      PartitionSpec layout = normalized(rt.spec(), rt.rank());
      define(op.results[0], in_layout(op, op.operands[0], layout), layout);
      return;
    }
    case OpKind::ShardingConstraint: {
      const auto& wanted = op.attr<ir::attr::ShardingConstraint>().sharding;
      PartitionSpec layout = normalized(wanted ? *wanted : rt.spec(), rt.rank());
      define(op.results[0], in_layout(op, op.operands[0], layout), layout);
      return;
    }
    case OpKind::DynamicSlice: case OpKind::DynamicUpdateSlice: {
      std::vector<ir::ValueId> ins;
      for (auto v : op.operands) ins.push_back(in_layout(op, v, PartitionSpec::replicated(gtype(v).rank())));
      define_conformed(op, b_.emit(op.kind, ins, rt.dtype(), rt.shape(), a), PartitionSpec::replicated(rt.rank()));
      return;
    }
    default:
      throw std::logic_error(fmt::format("internal error: the partitioner has no rewrite for `{}`", ir::op_display_name(op)));
  }
}

// Slice, Pad, Rev: dims the op moves data along must be whole; the others keep their layout
// (a slice then takes its local extent of them).
void Partitioner::partition_gathering_dims(const ir::Op& op) {
  const auto& it = gtype(op.operands[0]);
  const auto& rt = gtype(op.results[0]);
  PartitionSpec need = map_[op.operands[0]].layout;
  std::vector<bool> touched(it.rank(), false);
  if (op.kind == OpKind::Pad) {
    const auto& pad = op.attr<ir::attr::Pad>();
    for (size_t d = 0; d < it.rank(); ++d) touched[d] = pad.low[d] != 0 || pad.high[d] != 0;
  } else {
    auto map = ir::dim_map(op.attrs, it.shape(), rt.shape());
    for (size_t d = 0; d < it.rank(); ++d) touched[d] = !ir::keeps_whole_dim(map, d, it.shape(), rt.shape());
  }
  for (size_t d = 0; d < it.rank(); ++d)
    if (touched[d]) need = with_entry(need, d, {});
  auto x = in_layout(op, op.operands[0], need);
  auto local_in = b_.local_shape(it.shape(), need);
  ir::Attrs local_attrs = op.attrs;
  if (auto* slice = std::get_if<ir::attr::Slice>(&local_attrs))
    for (size_t d = 0; d < it.rank(); ++d)
      if (!touched[d]) {
        slice->start_indices[d] = 0;
        slice->limit_indices[d] = local_in[d];
      }
  std::vector<ir::ValueId> ins{x};
  for (size_t i = 1; i < op.operands.size(); ++i) ins.push_back(in_layout(op, op.operands[i], PartitionSpec()));
  define_conformed(op, b_.emit(op.kind, ins, rt.dtype(), b_.local_shape(rt.shape(), need), local_attrs), need);
}

void Partitioner::partition_reshape(const ir::Op& op) {
  const auto& it = gtype(op.operands[0]);
  const auto& rt = gtype(op.results[0]);
  const auto& in = map_[op.operands[0]];
  PartitionSpec want = result_layout(rt, nullptr);
  if (auto out = local_reshape_layout(it.shape(), in.layout, rt.shape(), want, am_)) {
    define_conformed(op, b_.emit(op.kind, {in.id}, rt.dtype(), b_.local_shape(rt.shape(), *out), op.attrs), *out);
    return;
  }
  // Not expressible per shard: make the operand whole, reshape, then split as the type asks.
  auto x = in_layout(op, op.operands[0], PartitionSpec::replicated(it.rank()));
  define_conformed(op, b_.emit(op.kind, {x}, rt.dtype(), rt.shape(), op.attrs), PartitionSpec::replicated(rt.rank()));
}

void Partitioner::partition_dot(const ir::Op& op) {
  const auto& dot = op.attr<ir::attr::DotGeneral>();
  const auto &lc_dims = dot.lhs_contracting, &rc_dims = dot.rhs_contracting, &lb_dims = dot.lhs_batch, &rb_dims = dot.rhs_batch;
  const auto& lt = gtype(op.operands[0]);
  const auto& rt2 = gtype(op.operands[1]);
  const auto& ot = gtype(op.results[0]);
  PartitionSpec ll = map_[op.operands[0]].layout, rl = map_[op.operands[1]].layout;
  Entry partial;
  for (size_t i = 0; i < lc_dims.size(); ++i) {
    auto lc = lc_dims[i], rc = rc_dims[i];
    if (!ll[lc].empty() && ll[lc] == rl[rc]) {
      partial.insert(partial.end(), ll[lc].begin(), ll[lc].end());
    } else {
      ll = with_entry(ll, lc, {});
      rl = with_entry(rl, rc, {});
    }
  }
  for (size_t i = 0; i < lb_dims.size(); ++i) rl = with_entry(rl, rb_dims[i], ll[lb_dims[i]]);
  std::set<std::string> used(partial.begin(), partial.end());
  auto is_free = [](const std::vector<int64_t>& c, const std::vector<int64_t>& b, int64_t d) {
    return std::find(c.begin(), c.end(), d) == c.end() && std::find(b.begin(), b.end(), d) == b.end();
  };
  std::vector<Entry> out;
  for (auto d : lb_dims) {
    out.push_back(ll[d]);
    used.insert(ll[d].begin(), ll[d].end());
  }
  for (int64_t d = 0; d < static_cast<int64_t>(lt.rank()); ++d)
    if (is_free(lc_dims, lb_dims, d)) {
      bool clash = false;
      for (auto& ax : ll[d]) clash |= used.count(ax) > 0;
      if (clash) ll = with_entry(ll, d, {});
      out.push_back(ll[d]);
      used.insert(ll[d].begin(), ll[d].end());
    }
  for (int64_t d = 0; d < static_cast<int64_t>(rt2.rank()); ++d)
    if (is_free(rc_dims, rb_dims, d)) {
      bool clash = false;
      for (auto& ax : rl[d]) clash |= used.count(ax) > 0;
      if (clash) rl = with_entry(rl, d, {});
      out.push_back(rl[d]);
      used.insert(rl[d].begin(), rl[d].end());
    }
  auto x = in_layout(op, op.operands[0], ll);
  auto y = in_layout(op, op.operands[1], rl);
  // Partial sums over the axes the result's type leaves unreduced stay on the devices.
  const auto& keep = ot.spec().unreduced();
  Entry pending, summed;
  for (auto& ax : partial) (std::find(keep.begin(), keep.end(), ax) != keep.end() ? pending : summed).push_back(ax);
  partial = summed;
  PartitionSpec layout(out, pending);
  auto local = b_.emit(op.kind, {x, y}, ot.dtype(), b_.local_shape(ot.shape(), layout), op.attrs);
  if (!partial.empty()) {
    partial = am_.order_wrt_mesh(partial);
    // When the result is wanted sharded over exactly the partial axes on a dim it leaves
    // whole, reduce-scatter onto that dim (half the traffic of all-reduce, no slicing).
    PartitionSpec want = result_layout(ot, &layout);
    // A result only ever resharded (the transpose of a gather: a weight gradient under
    // FSDP) can be left as its reshards want it: sum and scatter are one reduce-scatter.
    if (auto resharded = common_reshard_layout(op.results[0])) want = *resharded;
    int64_t scatter = -1;
    for (size_t d = 0; d < ot.rank() && scatter < 0; ++d)
      if (layout[d].empty() && want[d] == partial && ot.shape()[d] % am_.axes_size(partial) == 0) scatter = static_cast<int64_t>(d);
    const std::string why = fmt::format("dot_general contracting dims sharded on {}", entry_text(partial));
    if (scatter >= 0) {
      local = b_.collective(ir::attr::ReduceScatter{.kind = ir::ReduceKind::Sum, .axes = partial, .scatter_dimension = scatter, .tiled = true}, local,
                            ot.dtype(), why);
      layout = with_entry(layout, static_cast<size_t>(scatter), partial);
    } else {
      local = b_.collective(ir::attr::AllReduce{.kind = ir::ReduceKind::Sum, .axes = partial}, local, ot.dtype(), why);
    }
  }
  define_conformed(op, local, layout);
}

std::optional<PartitionSpec> Partitioner::common_reshard_layout(ir::ValueId v) const {
  std::optional<PartitionSpec> common;
  const auto rank = gtype(v).rank();
  for (const ir::Op* u : users_[v]) {
    if (u && u->kind == OpKind::Transpose) {  // through a transpose: its layout, permuted back
      auto after = common_reshard_layout(u->results[0]);
      if (!after) return std::nullopt;
      const auto& perm = u->attr<ir::attr::Transpose>().permutation;
      std::vector<PartitionSpec::Entry> e(rank);
      for (size_t j = 0; j < perm.size(); ++j) e[static_cast<size_t>(perm[j])] = (*after)[j];
      PartitionSpec l(e);
      if (common && !(*common == l)) return std::nullopt;
      common = l;
      continue;
    }
    if (!u || (u->kind != OpKind::Reshard && u->kind != OpKind::ShardingConstraint)) return std::nullopt;
    PartitionSpec l = u->kind == OpKind::Reshard ? normalized(gtype(u->results[0]).spec(), rank)
                      : u->attr<ir::attr::ShardingConstraint>().sharding ? normalized(*u->attr<ir::attr::ShardingConstraint>().sharding, rank)
                                                                          : normalized(gtype(u->results[0]).spec(), rank);
    if (common && !(*common == l)) return std::nullopt;
    common = l;
  }
  return common;
}

Partitioned partition(const ir::Function& global, const types::Mesh& mesh, const std::vector<PartitionSpec>& in_layouts) {
  std::vector<CollectiveRecord> ledger;
  Partitioner p(global, mesh, ledger);
  Partitioned out = p.run(in_layouts);
  out.ledger = std::move(ledger);
  auto problems = ir::verify(out.local);
  if (!problems.empty())
    throw std::logic_error(fmt::format("internal error: the partitioner produced invalid IR: {}", fmt::join(problems, "; ")));
  return out;
}

}  // namespace shard::spmd
