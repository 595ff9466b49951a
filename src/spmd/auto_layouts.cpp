#include "spmd/auto_layouts.hpp"

#include <algorithm>
#include <set>

#include "ir/dim_map.hpp"
#include "spmd/reshape_layout.hpp"

namespace shard::spmd {

using ir::OpKind;
using types::AxisType;
using types::PartitionSpec;

namespace {
bool is_reduced(const std::vector<int64_t>& axes, size_t d) {
  return std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
}
}  // namespace
using Entry = PartitionSpec::Entry;
using Layout = std::vector<Entry>;  // one entry per dim; Auto axes only

namespace {

class Planner {
 public:
  Planner(const ir::Function& f, const types::AbstractMesh& mesh) : f_(f), mesh_(mesh), known_(f.value_types.size()) {
    pinned_.assign(f.value_types.size(), false);
  }

  std::vector<std::optional<PartitionSpec>> run(const std::vector<PartitionSpec>& in_layouts) {
    for (size_t i = 0; i < f_.params.size() && i < in_layouts.size(); ++i) {
      auto p = f_.params[i];
      auto entries = in_layouts[i].normalized(f_.type(p).rank()).entries();
      for (size_t d = 0; d < entries.size(); ++d) fill(p, d, entries[d]);
      pinned_[static_cast<size_t>(p)] = true;
    }
    forward();
    backward();
    forward();
    std::vector<std::optional<PartitionSpec>> out(known_.size());
    for (size_t v = 0; v < known_.size(); ++v)
      if (!known_[v].empty()) out[v] = PartitionSpec(known_[v]);
    return out;
  }

 private:
  const types::AbstractMesh& mesh_of(ir::ValueId v) const {
    const auto& m = f_.type(v).mesh();
    return m.empty() ? mesh_ : m;
  }

  Layout& at(ir::ValueId v) {
    auto& l = known_[static_cast<size_t>(v)];
    if (l.empty()) l.assign(f_.type(v).rank(), Entry{});
    return l;
  }
  Entry get(ir::ValueId v, size_t d) const {
    const auto& l = known_[static_cast<size_t>(v)];
    return d < l.size() ? l[d] : Entry{};
  }

  // Sets dim `d` of `v` to the Auto axes of `e` when that dim has no preference yet, the
  // type leaves it unsharded, the axes are Auto for v and unused on its other dims, and the
  // dim divides.
  void fill(ir::ValueId v, size_t d, const Entry& e) {
    if (e.empty() || pinned_[static_cast<size_t>(v)]) return;
    const auto& t = f_.type(v);
    if (d >= t.rank()) return;
    const auto& mesh = mesh_of(v);
    auto type_entries = t.spec().normalized(t.rank()).entries();
    if (!type_entries[d].empty()) return;
    Entry axes;
    for (auto& a : e)
      if (mesh.has_axis(a) && mesh.axis_type(a) == AxisType::Auto) axes.push_back(a);
    if (axes.empty()) return;
    Layout& l = at(v);
    if (!l[d].empty()) return;
    std::set<std::string> used;
    for (auto& te : type_entries) used.insert(te.begin(), te.end());
    for (auto& le : l) used.insert(le.begin(), le.end());
    for (auto& a : axes)
      if (used.count(a)) return;
    if (t.shape()[d] % mesh.axes_size(axes) != 0) return;
    l[d] = axes;
  }
  void fill_all(ir::ValueId to, ir::ValueId from) {
    if (f_.type(to).shape() != f_.type(from).shape()) return;
    for (size_t d = 0; d < f_.type(to).rank(); ++d) fill(to, d, get(from, d));
  }

  void forward() {
    for (const auto& op : f_.ops) forward_op(op);
  }

  void forward_op(const ir::Op& op) {
    if (op.results.empty()) return;
    const ir::ValueId r = op.results[0];
    switch (op.kind) {
      case OpKind::Elementwise:
        for (auto v : op.operands) fill_all(r, v);
        return;
      case OpKind::BroadcastInDim: case OpKind::Transpose: {  // along whole dims (ir/dim_map.hpp)
        const auto& in = f_.type(op.operands[0]).shape();
        auto map = ir::dim_map(f_, op);
        for (size_t d = 0; d < map.size(); ++d)
          if (ir::keeps_whole_dim(map, d, in, f_.type(r).shape())) fill(r, static_cast<size_t>(map[d].result_dim), get(op.operands[0], d));
        return;
      }
      case OpKind::Reshape: {
        const auto& it = f_.type(op.operands[0]);
        Layout in(it.rank());
        for (size_t d = 0; d < in.size(); ++d) in[d] = get(op.operands[0], d);
        if (auto out = local_reshape_layout(it.shape(), PartitionSpec(in), f_.type(r).shape(), PartitionSpec(), mesh_of(op.operands[0]))) {
          auto e = out->normalized(f_.type(r).rank()).entries();
          for (size_t d = 0; d < e.size(); ++d) fill(r, d, e[d]);
        }
        return;
      }
      case OpKind::Reduce: {
        size_t k = 0;
        for (size_t d = 0; d < f_.type(op.operands[0]).rank(); ++d)
          if (!is_reduced(op.attr<ir::attr::Reduce>().axes, d)) fill(r, k++, get(op.operands[0], d));
        return;
      }
      case OpKind::ArgReduce: {
        size_t k = 0;
        for (size_t d = 0; d < f_.type(op.operands[0]).rank(); ++d)
          if (static_cast<int64_t>(d) != op.attr<ir::attr::ArgReduce>().axis) fill(r, k++, get(op.operands[0], d));
        return;
      }
      case OpKind::Cumulative: case OpKind::Sort: {
        const int64_t axis = op.kind == OpKind::Sort ? op.attr<ir::attr::Sort>().dimension : op.attr<ir::attr::Cumulative>().axis;
        for (auto res : op.results)  // a sort's payloads move with its keys
          for (size_t d = 0; d < f_.type(res).rank(); ++d)
            if (static_cast<int64_t>(d) != axis) fill(res, d, get(op.operands[0], d));
        return;
      }
      case OpKind::Slice: case OpKind::Pad: case OpKind::Rev: {
        const auto& it = f_.type(op.operands[0]);
        std::optional<ir::DimMap> map;  // slice and rev; a pad touches the dims whose size it changes
        if (op.kind != OpKind::Pad) map = ir::dim_map(f_, op);
        for (size_t d = 0; d < it.rank(); ++d) {
          bool touched = map ? !ir::keeps_whole_dim(*map, d, it.shape(), f_.type(r).shape()) : it.shape()[d] != f_.type(r).shape()[d];
          if (!touched) fill(r, d, get(op.operands[0], d));
        }
        return;
      }
      case OpKind::Concatenate:
        for (auto v : op.operands)
          for (size_t d = 0; d < f_.type(r).rank(); ++d)
            if (static_cast<int64_t>(d) != op.attr<ir::attr::Concatenate>().dimension) fill(r, d, get(v, d));
        return;
      case OpKind::DotGeneral: return forward_dot(op);
      case OpKind::ShardingConstraint: {
        const auto& wanted = op.attr<ir::attr::ShardingConstraint>().sharding;
        if (!wanted) return;
        auto e = wanted->normalized(f_.type(r).rank()).entries();
        for (size_t d = 0; d < e.size(); ++d) fill(r, d, e[d]);
        pinned_[static_cast<size_t>(r)] = true;  // what the user asked for, whatever follows
        return;
      }
      case OpKind::While: return forward_while(op);
      case OpKind::Scan: return forward_scan(op);
      default:
        return;  // constants, iota, dynamic slices, reshard, callbacks: nothing to carry
    }
  }

  // dot_general: batch dims from either side, then lhs free dims, then rhs free dims.
  void forward_dot(const ir::Op& op) {
    const auto& a = op.attr<ir::attr::DotGeneral>();
    const ir::ValueId r = op.results[0], l = op.operands[0], rh = op.operands[1];
    auto is_free = [](const std::vector<int64_t>& c, const std::vector<int64_t>& b, size_t d) {
      auto di = static_cast<int64_t>(d);
      return std::find(c.begin(), c.end(), di) == c.end() && std::find(b.begin(), b.end(), di) == b.end();
    };
    size_t k = 0;
    for (size_t i = 0; i < a.lhs_batch.size(); ++i, ++k) {
      fill(r, k, get(l, static_cast<size_t>(a.lhs_batch[i])));
      fill(r, k, get(rh, static_cast<size_t>(a.rhs_batch[i])));
    }
    for (size_t d = 0; d < f_.type(l).rank(); ++d)
      if (is_free(a.lhs_contracting, a.lhs_batch, d)) fill(r, k++, get(l, d));
    for (size_t d = 0; d < f_.type(rh).rank(); ++d)
      if (is_free(a.rhs_contracting, a.rhs_batch, d)) fill(r, k++, get(rh, d));
  }

  // while: the carries keep their initial values' layouts; a carry with no preference takes
  // the one the body gives its new value (planned over the body with these layouts).
  void forward_while(const ir::Op& op) {
    const auto& w = op.attr<ir::attr::While>();
    const auto ncc = static_cast<size_t>(w.cond_nconsts), nbc = static_cast<size_t>(w.body_nconsts);
    const size_t ncarry = op.results.size();
    for (size_t k = 0; k < ncarry; ++k) fill_all(op.results[k], op.operands[ncc + nbc + k]);
    if (op.regions.size() < 2) return;
    const ir::Function& body = *op.regions[1];
    std::vector<PartitionSpec> body_in;
    for (size_t i = ncc; i < op.operands.size(); ++i) {
      auto v = i < ncc + nbc ? op.operands[i] : op.results[i - ncc - nbc];
      Layout l(f_.type(v).rank());
      for (size_t d = 0; d < l.size(); ++d) l[d] = get(v, d);
      body_in.push_back(PartitionSpec(l));
    }
    if (body.params.size() != body_in.size() || body.results.size() != ncarry) return;
    Planner sub(body, mesh_);
    auto plan = sub.run(body_in);
    for (size_t k = 0; k < ncarry; ++k)
      if (const auto& p = plan[static_cast<size_t>(body.results[k])]) {
        auto e = p->normalized(f_.type(op.results[k]).rank()).entries();
        for (size_t d = 0; d < e.size(); ++d) fill(op.results[k], d, e[d]);
      }
  }

  // A layout without dim 0 (a scanned slice) / with a whole dim 0 in front (stacked ys).
  static PartitionSpec drop_lead(const Layout& l) { return PartitionSpec(Layout(l.begin() + (l.empty() ? 0 : 1), l.end())); }

  // scan: like while; the body sees consts, carries, then one slice of each scanned input.
  void forward_scan(const ir::Op& op) {
    const auto& scan = op.attr<ir::attr::Scan>();
    const auto nc = static_cast<size_t>(scan.num_consts), nk = static_cast<size_t>(scan.num_carry);
    for (size_t k = 0; k < nk && k < op.results.size(); ++k) fill_all(op.results[k], op.operands[nc + k]);
    if (op.regions.empty()) return;
    const ir::Function& body = *op.regions[0];
    auto layout_of = [&](ir::ValueId v) {
      Layout l(f_.type(v).rank());
      for (size_t d = 0; d < l.size(); ++d) l[d] = get(v, d);
      return l;
    };
    std::vector<PartitionSpec> body_in;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      if (i < nc) body_in.push_back(PartitionSpec(layout_of(op.operands[i])));
      else if (i < nc + nk) body_in.push_back(PartitionSpec(layout_of(op.results[i - nc])));
      else body_in.push_back(drop_lead(layout_of(op.operands[i])));
    }
    if (body.params.size() != body_in.size() || body.results.size() != op.results.size()) return;
    Planner sub(body, mesh_);
    auto plan = sub.run(body_in);
    for (size_t k = 0; k < nk; ++k)
      if (const auto& p = plan[static_cast<size_t>(body.results[k])]) {
        auto e = p->normalized(f_.type(op.results[k]).rank()).entries();
        for (size_t d = 0; d < e.size(); ++d) fill(op.results[k], d, e[d]);
      }
  }

  // Values with no preference adopt their users' (only where that costs no communication
  // later: the user's own layout came from its other operands or a constraint).
  void backward() {
    for (size_t i = f_.ops.size(); i-- > 0;) {
      const auto& op = f_.ops[i];
      if (op.results.empty()) continue;
      const ir::ValueId r = op.results[0];
      switch (op.kind) {
        case OpKind::Elementwise: case OpKind::ShardingConstraint:
          for (auto v : op.operands) fill_all(v, r);
          break;
        case OpKind::BroadcastInDim: case OpKind::Transpose: {
          const auto& in = f_.type(op.operands[0]).shape();
          auto map = ir::dim_map(f_, op);
          for (size_t d = 0; d < map.size(); ++d)
            if (ir::keeps_whole_dim(map, d, in, f_.type(r).shape())) fill(op.operands[0], d, get(r, static_cast<size_t>(map[d].result_dim)));
          break;
        }
        case OpKind::While: case OpKind::Scan: {  // a carry's initial value takes the carry's layout
          size_t first = 0, ncarry = op.results.size();
          if (auto* w = std::get_if<ir::attr::While>(&op.attrs)) first = static_cast<size_t>(w->cond_nconsts + w->body_nconsts);
          if (auto* scan = std::get_if<ir::attr::Scan>(&op.attrs)) {
            first = static_cast<size_t>(scan->num_consts);
            ncarry = static_cast<size_t>(scan->num_carry);
          }
          for (size_t k = 0; k < ncarry && first + k < op.operands.size(); ++k) fill_all(op.operands[first + k], op.results[k]);
          break;
        }
        default:
          break;
      }
    }
  }

  const ir::Function& f_;
  const types::AbstractMesh& mesh_;
  std::vector<Layout> known_;
  std::vector<bool> pinned_;
};

}  // namespace

std::vector<std::optional<PartitionSpec>> plan_auto_layouts(const ir::Function& f, const types::AbstractMesh& mesh,
                                                            const std::vector<PartitionSpec>& in_layouts) {
  return Planner(f, mesh).run(in_layouts);
}

}  // namespace shard::spmd
