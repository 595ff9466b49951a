#include "spmd/row_fusion.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <set>
#include <unordered_map>
#include <vector>

namespace shard::spmd {

namespace {

using ir::OpKind;
using ir::ValueId;
using types::DType;
using types::Shape;

// The space of a group: full values have shape `full`; reductions reduce its dims [lo, hi),
// which are either the trailing dims (hi = rank: one value per row) or leading ones (lo = 0:
// one value per column); "part" values have the kept dims only, or the full rank with ones in
// the reduced dims (keepdims).
struct RowSpace {
  Shape full;
  size_t lo = 0, hi = 0;

  bool per_row() const { return hi == full.size(); }
  bool reduced(size_t d) const { return d >= lo && d < hi; }
  bool is_full(const Shape& s) const { return s == full; }
  bool is_part(const Shape& s) const {
    if (s.size() == full.size()) {
      for (size_t d = 0; d < s.size(); ++d)
        if (s[d] != (reduced(d) ? 1 : full[d])) return false;
      return true;
    }
    if (s.size() != full.size() - (hi - lo)) return false;
    for (size_t d = 0, k = 0; d < full.size(); ++d)
      if (!reduced(d) && s[k++] != full[d]) return false;
    return true;
  }
  static bool is_one(const Shape& s) { return types::shape_product(s) == 1; }
  bool in_space(const Shape& s) const { return is_full(s) || is_part(s) || is_one(s); }
  bool operator==(const RowSpace& o) const { return full == o.full && lo == o.lo && hi == o.hi; }
};

// The space a reduction defines: it reduces a run of trailing or of leading dims.
bool row_reduction(const ir::Function& f, const ir::Op& op, RowSpace* space) {
  if (op.kind != OpKind::Reduce) return false;
  const auto& shape = f.type(op.operands[0]).shape();
  auto axes = op.attr<ir::attr::Reduce>().axes;
  std::sort(axes.begin(), axes.end());
  if (axes.empty()) return false;
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != axes[0] + static_cast<int64_t>(i)) return false;
  const size_t lo = static_cast<size_t>(axes.front()), hi = static_cast<size_t>(axes.back()) + 1;
  if (hi != shape.size() && lo != 0) return false;
  if (space) *space = {shape, lo, hi};
  return true;
}

// Can op be a member of a group in `space`?
bool member_of(const ir::Function& f, const ir::Op& op, const RowSpace& space) {
  if (op.results.size() != 1 || !op.regions.empty()) return false;
  const auto& rt = f.type(op.results[0]);
  const Shape& rs = rt.shape();
  switch (op.kind) {
    case OpKind::Reduce: {
      RowSpace own;
      return row_reduction(f, op, &own) && own == space;
    }
    case OpKind::Elementwise:
      return space.in_space(rs);
    case OpKind::Constant:
      return false;  // copied into each group that reads it (see cloneable)
    case OpKind::Reshape: {
      const Shape& os = f.type(op.operands[0]).shape();
      return (space.is_part(os) && space.is_part(rs)) || (RowSpace::is_one(os) && space.in_space(rs));
    }
    case OpKind::BroadcastInDim: {
      const Shape& os = f.type(op.operands[0]).shape();
      if (!space.in_space(rs)) return false;
      if (RowSpace::is_one(os)) return true;
      // A per-row (per-column) value spread over the reduced dims: its dims stay in place.
      if (!space.is_part(os) || !(space.is_full(rs) || space.is_part(rs))) return false;
      const auto& dims = op.attr<ir::attr::BroadcastInDim>().broadcast_dimensions;
      for (size_t i = 0, d = 0; i < dims.size(); ++i, ++d) {
        if (os.size() != space.full.size())
          while (space.reduced(d)) ++d;  // the operand has the kept dims only
        if (dims[i] != static_cast<int64_t>(d)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

// A one-element constant, or an elementwise op / broadcast / reshape of such values only:
// cheap to repeat, so each group gets its own copy and the original stays for other readers.
bool cloneable(const ir::Function& f, const ir::Op& op, const std::vector<int>& producer) {
  if (op.results.size() != 1 || !op.regions.empty()) return false;
  if (op.kind == OpKind::Constant) return types::shape_product(f.type(op.results[0]).shape()) == 1;
  if (op.kind != OpKind::Elementwise && op.kind != OpKind::BroadcastInDim && op.kind != OpKind::Reshape) return false;
  for (auto v : op.operands)
    if (producer[v] < 0 || !cloneable(f, f.ops[producer[v]], producer)) return false;
  return true;
}

class RowFuser {
 public:
  explicit RowFuser(const ir::Function& f) : f_(f), n_(static_cast<int>(f.ops.size())) {
    producer_.assign(f.value_types.size(), -1);
    users_.resize(f.value_types.size());
    is_result_.assign(f.value_types.size(), false);
    for (int i = 0; i < n_; ++i) {
      for (auto v : f.ops[i].operands) users_[v].push_back(i);
      for (auto v : f.ops[i].results) producer_[v] = i;
    }
    for (auto r : f.results) is_result_[r] = true;
    group_of_.assign(n_, -1);
  }

  ir::Function run() {
    for (int i = 0; i < n_; ++i) {
      RowSpace space;
      if (group_of_[i] >= 0 || !row_reduction(f_, f_.ops[i], &space)) continue;
      auto members = grow(i, space);
      int output = -1;
      if (!valid(members, space, &output)) continue;
      const int gid = static_cast<int>(groups_.size());
      groups_.push_back({std::move(members), output});
      for (int m : groups_.back().members) group_of_[m] = gid;
    }
    return rewrite();
  }

 private:
  struct Group {
    std::set<int> members;
    int output;  // the member whose result is read outside
  };

  // The connected members of `space` around the seed reduction (through operands and users).
  std::set<int> grow(int seed, const RowSpace& space) const {
    std::set<int> members{seed};
    std::vector<int> work{seed};
    auto visit = [&](int op) {
      if (op < 0 || group_of_[op] >= 0 || members.count(op) || cloneable(f_, f_.ops[op], producer_) ||
          !member_of(f_, f_.ops[op], space))
        return;
      members.insert(op);
      work.push_back(op);
    };
    while (!work.empty()) {
      const int op = work.back();
      work.pop_back();
      for (auto v : f_.ops[op].operands) visit(producer_[v]);
      for (auto v : f_.ops[op].results)
        for (int u : users_[v]) visit(u);
    }
    return members;
  }

  bool valid(const std::set<int>& members, const RowSpace& space, int* output) const {
    int reductions = 0, computed = 0;
    for (int m : members) {
      reductions += f_.ops[m].kind == OpKind::Reduce;
      computed += f_.ops[m].kind == OpKind::Elementwise;
    }
    // A reduction with only reshapes or broadcasts around it keeps its own kernel: a group
    // needs computation to fuse with it.
    if (reductions == 0 || computed == 0) return false;
    for (int m : members) {
      const ValueId v = f_.ops[m].results[0];
      bool escapes = is_result_[v];
      for (int u : users_[v]) escapes |= !members.count(u);
      if (!escapes) continue;
      if (*output >= 0) return false;  // one result per fusion
      *output = m;
    }
    // The output is the last member: a member before it feeds only members, so no outside op
    // reads a member and feeds another (no cycle once the group is one op).
    if (*output < 0 || *members.rbegin() != *output) return false;
    // The result is a full array or one value per row: the row loop writes nothing else.
    const Shape& out_shape = f_.type(f_.ops[*output].results[0]).shape();
    return space.is_full(out_shape) || space.is_part(out_shape);
  }

  ir::Op fusion_op(const Group& g) const {
    auto region = std::make_shared<ir::Function>();
    region->name = "fused_rows";
    std::unordered_map<ValueId, ValueId> inner;
    const ValueId out = f_.ops[g.output].results[0];
    ir::Op fusion{OpKind::Fusion, {}, {out}, ir::attr::Fusion{}, f_.ops[g.output].loc, {}};
    // Appends op (a member, or a copy of a cloneable op) with its operands renamed.
    std::function<void(int)> append = [&](int index) {
      ir::Op op = f_.ops[index];
      for (auto& v : op.operands) {
        auto it = inner.find(v);
        if (it == inner.end() && producer_[v] >= 0 && !g.members.count(producer_[v]) &&
            cloneable(f_, f_.ops[producer_[v]], producer_)) {
          append(producer_[v]);  // a cloneable value: computed inside
          it = inner.find(v);
        }
        if (it == inner.end()) {
          const ValueId p = region->new_value(f_.type(v));
          region->params.push_back(p);
          fusion.operands.push_back(v);
          it = inner.emplace(v, p).first;
        }
        v = it->second;
      }
      for (auto& r : op.results) {
        const ValueId nr = region->new_value(f_.type(r));
        inner[r] = nr;
        r = nr;
      }
      region->ops.push_back(std::move(op));
    };
    for (int m : g.members) append(m);
    region->results = {inner.at(out)};
    fusion.regions.push_back(std::move(region));
    return fusion;
  }

  ir::Function rewrite() const {
    ir::Function out = f_;
    out.ops.clear();
    for (int i = 0; i < n_; ++i) {
      const int g = group_of_[i];
      if (g >= 0) {
        if (groups_[g].output == i) out.ops.push_back(fusion_op(groups_[g]));
        continue;
      }
      ir::Op op = f_.ops[i];
      // while / scan / cond bodies are left to the loop kernel (exec/lower_control_kernel), which
      // compiles the whole loop, reductions included, into one function: per-iteration step
      // overhead costs more there than a second pass over a loop's (usually small) carry.
      const bool control_flow = op.kind == OpKind::While || op.kind == OpKind::Scan || op.kind == OpKind::Cond;
      if (op.kind != OpKind::Fusion && !control_flow)
        for (auto& r : op.regions) {
          auto body = std::make_shared<ir::Function>(*r);
          fuse_rows(*body);
          r = std::move(body);
        }
      out.ops.push_back(std::move(op));
    }
    // Cloneable ops whose readers all took copies are dead now: drop them (latest first, so
    // a chain goes at once).
    std::vector<int> uses(out.value_types.size(), 0);
    for (const auto& op : out.ops)
      for (auto v : op.operands) ++uses[v];
    for (auto r : out.results) ++uses[r];
    std::vector<bool> keep(out.ops.size(), true);
    for (size_t i = out.ops.size(); i-- > 0;) {
      const auto& op = out.ops[i];
      // Ops other than the new fusions are copies of f_'s: their results name the original.
      if (op.kind == OpKind::Fusion || op.results.size() != 1 || uses[op.results[0]] != 0) continue;
      if (!cloneable(f_, f_.ops[static_cast<size_t>(producer_[op.results[0]])], producer_)) continue;
      keep[i] = false;
      for (auto v : op.operands) --uses[v];
    }
    std::vector<ir::Op> live;
    for (size_t i = 0; i < out.ops.size(); ++i)
      if (keep[i]) live.push_back(std::move(out.ops[i]));
    out.ops = std::move(live);
    return out;
  }

  const ir::Function& f_;
  const int n_;
  std::vector<int> producer_;
  std::vector<std::vector<int>> users_;
  std::vector<bool> is_result_;
  std::vector<int> group_of_;
  std::vector<Group> groups_;
};

}  // namespace

void fuse_rows(ir::Function& f) { f = RowFuser(f).run(); }

}  // namespace shard::spmd
