#include "spmd/fusion.hpp"

#include <memory>
#include <queue>
#include <set>
#include <unordered_map>
#include <vector>

namespace shard::spmd {

namespace {

using ir::OpKind;
using ir::ValueId;
using types::DType;

// How an op may take part in a group.
enum class Role : uint8_t {
  None,       // ends groups (reductions, dot, collectives, control flow, ...)
  Computed,   // an elementwise op over more than one element: computed in exactly one group
  Cloneable,  // a view, a constant or a one-element computation: every reader gets a copy
};

Role role_of(const ir::Function& f, const ir::Op& op) {
  if (op.results.size() != 1 || !op.regions.empty()) return Role::None;
  switch (op.kind) {
    case OpKind::Elementwise:
      return f.type(op.results[0]).num_elements() == 1 ? Role::Cloneable : Role::Computed;
    case OpKind::Constant: case OpKind::BroadcastInDim: case OpKind::Transpose: case OpKind::Slice:
    case OpKind::Rev: case OpKind::Reshape:
      return Role::Cloneable;
    default:
      return Role::None;
  }
}

bool is_view(OpKind k) {
  return k == OpKind::BroadcastInDim || k == OpKind::Transpose || k == OpKind::Slice || k == OpKind::Rev ||
         k == OpKind::Reshape;
}

// How members of a group read a value (bit flags): through a view op's strides, or through a
// reshape (which needs a contiguous buffer).
enum : uint8_t { kReadByView = 1, kReadByReshape = 2 };

struct Group {
  int root;
  std::set<int> members;  // op indices, root included
  bool fused() const { return members.size() >= 2; }
};

class Fuser {
 public:
  explicit Fuser(const ir::Function& f) : f_(f), n_(static_cast<int>(f.ops.size())) {
    producer_.assign(f.value_types.size(), -1);
    users_.resize(f.value_types.size());
    is_result_.assign(f.value_types.size(), false);
    for (int i = 0; i < n_; ++i) {
      const auto& op = f.ops[i];
      for (auto v : op.operands) users_[v].push_back(i);
      for (auto v : op.results) producer_[v] = i;
      roles_.push_back(role_of(f, op));
    }
    for (auto r : f.results) is_result_[r] = true;
    owner_.assign(n_, -1);
    kept_.assign(n_, true);
    fused_groups_of_.resize(n_);
  }

  ir::Function run() {
    // Latest op first: when an op is reached, every reader of its result has been decided.
    for (int i = n_ - 1; i >= 0; --i) {
      if (roles_[i] == Role::None || owner_[i] >= 0) continue;
      if (roles_[i] == Role::Cloneable && !needed(i)) {
        kept_[i] = false;  // every reader has its own copy (or there are none): drop it
        continue;
      }
      form_group(i);
    }
    return rewrite();
  }

 private:
  ValueId result_of(int op) const { return f_.ops[op].results[0]; }

  // Does anything read op i's result as a buffer? Readers are the ops that stay on their own
  // and the fused groups holding a reader but not i (their loop reads i's result as input).
  bool needed(int i) const {
    const ValueId v = result_of(i);
    if (is_result_[v]) return true;
    for (int j : users_[v]) {
      const int g = owner_[j];
      if (kept_[j] && (g < 0 || !groups_[g].fused())) return true;  // j stays on its own
      for (int h : fused_groups_of_[j])
        if (!groups_[h].members.count(i)) return true;
    }
    return false;
  }

  void form_group(int root) {
    const int gid = static_cast<int>(groups_.size());
    groups_.push_back({root, {root}});
    owner_[root] = gid;
    Group& g = groups_.back();
    std::unordered_map<ValueId, uint8_t> reads;  // how members read each value
    std::priority_queue<int> candidates;         // producers of members' operands, latest first
    std::set<int> considered;
    auto add_operands = [&](int op) {
      const auto& o = f_.ops[op];
      const uint8_t how = o.kind == OpKind::Reshape ? kReadByReshape : is_view(o.kind) ? kReadByView : 0;
      for (auto v : o.operands) {
        reads[v] |= how;
        if (producer_[v] >= 0) candidates.push(producer_[v]);
      }
    };
    add_operands(root);
    while (!candidates.empty()) {
      const int p = candidates.top();
      candidates.pop();
      if (!considered.insert(p).second) continue;
      // Every member reading p's result has a later index than p, so it is already in the
      // group: `reads` and the all-uses check below are final for p.
      if (!accepts(g, p, reads[result_of(p)])) continue;
      g.members.insert(p);
      if (roles_[p] == Role::Computed) owner_[p] = gid;
      add_operands(p);
    }
    if (g.fused())
      for (int m : g.members) fused_groups_of_[m].push_back(gid);
  }

  bool accepts(const Group& g, int p, uint8_t reads) const {
    const Role role = roles_[p];
    if (role == Role::None) return false;
    if (role == Role::Computed && owner_[p] >= 0) return false;
    const ValueId v = result_of(p);
    const auto& op = f_.ops[p];
    if ((reads & kReadByReshape) && op.kind != OpKind::Constant && f_.type(v).num_elements() != 1) return false;
    if ((reads & kReadByView) && role != Role::Cloneable) return false;
    if (role == Role::Computed) {
      if (is_result_[v]) return false;
      for (int j : users_[v])
        if (!g.members.count(j)) return false;
    }
    return true;
  }

  ir::Op fusion_op(const Group& g) const {
    auto region = std::make_shared<ir::Function>();
    region->name = "fused_computation";
    std::unordered_map<ValueId, ValueId> inner;
    ir::Op fusion{OpKind::Fusion, {}, {result_of(g.root)}, ir::attr::Fusion{}, f_.ops[g.root].loc, {}};
    for (int m : g.members) {  // ascending: program order
      ir::Op op = f_.ops[m];
      for (auto& v : op.operands) {
        auto it = inner.find(v);
        if (it == inner.end()) {  // defined outside the group: a parameter of the region
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
    }
    region->results = {inner.at(result_of(g.root))};
    fusion.regions.push_back(std::move(region));
    return fusion;
  }

  ir::Function rewrite() const {
    ir::Function out = f_;
    out.ops.clear();
    for (int i = 0; i < n_; ++i) {
      if (!kept_[i]) continue;
      const int gi = owner_[i];
      if (gi >= 0 && groups_[gi].fused()) {
        if (groups_[gi].root == i) out.ops.push_back(fusion_op(groups_[gi]));
        continue;  // a member: computed inside its group's loop
      }
      ir::Op op = f_.ops[i];
      if (op.kind == OpKind::Fusion) {  // a row fusion (spmd/row_fusion): already one loop
        out.ops.push_back(std::move(op));
        continue;
      }
      for (auto& r : op.regions) {  // while / scan / cond bodies are fused on their own
        auto body = std::make_shared<ir::Function>(*r);
        fuse_elementwise(*body);
        r = std::move(body);
      }
      out.ops.push_back(std::move(op));
    }
    return out;
  }

  const ir::Function& f_;
  const int n_;
  std::vector<int> producer_;            // value -> defining op, -1 for parameters
  std::vector<std::vector<int>> users_;  // value -> reading ops (repeated per operand)
  std::vector<bool> is_result_;
  std::vector<Role> roles_;
  std::vector<int> owner_;   // op -> the group it is the root or a computed member of
  std::vector<bool> kept_;   // false: a cloneable op nobody outside the groups reads
  std::vector<Group> groups_;
  std::vector<std::vector<int>> fused_groups_of_;  // op -> the fused groups holding it (or a copy)
};

}  // namespace

void fuse_elementwise(ir::Function& f) { f = Fuser(f).run(); }

}  // namespace shard::spmd
