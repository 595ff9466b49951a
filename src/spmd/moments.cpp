#include "spmd/moments.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <set>
#include <vector>

namespace shard::spmd {

namespace {

using ir::EwOp;
using ir::OpKind;
using ir::ValueId;
using types::DType;
using types::Shape;

bool is_ew(const ir::Op& op, EwOp e) { return op.kind == OpKind::Elementwise && op.attr<ir::attr::Elementwise>().op == e; }

// The dims a float sum reduces when they are a run of leading or trailing dims that leaves at
// least one dim kept (sorted); empty otherwise.
std::vector<int64_t> sum_axes(const ir::Function& f, const ir::Op& op) {
  if (op.kind != OpKind::Reduce || op.attr<ir::attr::Reduce>().kind != ir::ReduceKind::Sum) return {};
  const auto& t = f.type(op.operands[0]);
  if (t.dtype() != DType::F32 && t.dtype() != DType::F64) return {};
  auto axes = op.attr<ir::attr::Reduce>().axes;
  std::sort(axes.begin(), axes.end());
  const auto rank = static_cast<int64_t>(t.rank());
  if (axes.empty() || static_cast<int64_t>(axes.size()) == rank) return {};
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != axes[0] + static_cast<int64_t>(i)) return {};
  if (axes.front() != 0 && axes.back() + 1 != rank) return {};
  return axes;
}

class MomentFuser {
 public:
  explicit MomentFuser(ir::Function& f) : f_(f) {
    producer_.assign(f.value_types.size(), -1);
    for (size_t i = 0; i < f.ops.size(); ++i)
      for (auto v : f.ops[i].results) producer_[v] = static_cast<int>(i);
  }

  void run() {
    const size_t n = f_.ops.size();
    std::vector<std::vector<ir::Op>> replace(n);
    std::vector<bool> replaced(n, false), first_used(n, false);
    for (size_t i = 0; i < n; ++i) {
      Match m;
      if (replaced[i] || !match(static_cast<int>(i), &m) || first_used[m.first] || replaced[m.first]) continue;
      first_used[m.first] = true;
      replaced[m.first] = replaced[i] = true;
      rewrite(m, &replace[m.first], &replace[i]);
    }
    if (std::none_of(replaced.begin(), replaced.end(), [](bool r) { return r; })) return;
    std::vector<ir::Op> ops;
    for (size_t i = 0; i < n; ++i) {
      if (!replaced[i]) ops.push_back(std::move(f_.ops[i]));
      else
        for (auto& op : replace[i]) ops.push_back(std::move(op));
    }
    f_.ops = std::move(ops);
    drop_dead();
  }

 private:
  struct Match {
    int first = -1, second = -1;  // the sum of X and the sum of (X - broadcast(m))^2
    ValueId x = -1, m = -1;
    std::vector<int64_t> axes, kept;
  };

  const ir::Op* op_of(ValueId v) const { return producer_[v] < 0 ? nullptr : &f_.ops[producer_[v]]; }

  bool match(int i, Match* out) const {
    const ir::Op& r2 = f_.ops[i];
    auto axes = sum_axes(f_, r2);
    if (axes.empty()) return false;
    const ir::Op* sq = op_of(r2.operands[0]);
    if (!sq || sq->kind != OpKind::Elementwise) return false;
    const auto& ew = sq->attr<ir::attr::Elementwise>();
    const bool squares = (ew.op == EwOp::Mul && sq->operands[0] == sq->operands[1]) || ew.op == EwOp::Square ||
                         (ew.op == EwOp::IntegerPow && ew.y == 2);
    if (!squares) return false;
    const ir::Op* dev = op_of(sq->operands[0]);
    if (!dev || !is_ew(*dev, EwOp::Sub)) return false;
    const ValueId x = dev->operands[0];
    const ir::Op* b = op_of(dev->operands[1]);
    if (!b || b->kind != OpKind::BroadcastInDim) return false;
    const ValueId m = b->operands[0];
    const Shape& full = f_.type(x).shape();
    const auto dt = f_.type(x).dtype();
    if (f_.type(r2.operands[0]).dtype() != dt) return false;
    // m is one value per kept position, spread over the reduced dims: the kept dims alone,
    // or all dims with ones in the reduced ones (keepdims).
    std::vector<int64_t> kept;
    for (int64_t d = 0; d < static_cast<int64_t>(full.size()); ++d)
      if (!std::binary_search(axes.begin(), axes.end(), d)) kept.push_back(d);
    const Shape& ms = f_.type(m).shape();
    const auto& dims = b->attr<ir::attr::BroadcastInDim>().broadcast_dimensions;
    if (ms.size() == kept.size()) {
      if (dims != kept) return false;
      for (size_t k = 0; k < kept.size(); ++k)
        if (ms[k] != full[static_cast<size_t>(kept[k])]) return false;
    } else if (ms.size() == full.size()) {
      for (size_t d = 0; d < full.size(); ++d)
        if (dims[d] != static_cast<int64_t>(d) ||
            ms[d] != (std::binary_search(axes.begin(), axes.end(), static_cast<int64_t>(d)) ? 1 : full[d]))
          return false;
    } else {
      return false;
    }
    // The sum of X over the same dims, earlier; m comes from it through an all-reduce.
    int first = -1;
    for (int j = 0; j < i && first < 0; ++j)
      if (f_.ops[j].operands.size() == 1 && f_.ops[j].operands[0] == x && sum_axes(f_, f_.ops[j]) == axes) first = j;
    if (first < 0) return false;
    std::set<int> history;
    std::vector<ValueId> work{m};
    bool all_reduce = false;
    while (!work.empty()) {
      const ValueId v = work.back();
      work.pop_back();
      const int p = producer_[v];
      if (p < 0 || !history.insert(p).second) continue;
      all_reduce |= f_.ops[p].kind == OpKind::AllReduce;
      for (auto u : f_.ops[p].operands) work.push_back(u);
    }
    if (!history.count(first) || !all_reduce) return false;
    *out = {first, i, x, m, std::move(axes), std::move(kept)};
    return true;
  }

  ValueId value(ir::ArrayType t) { return f_.new_value(std::move(t)); }

  static ir::Op make(OpKind kind, std::vector<ValueId> operands, ValueId result, ir::Attrs attrs, ast::Loc loc) {
    return ir::Op{kind, std::move(operands), {result}, std::move(attrs), loc, {}};
  }

  static std::shared_ptr<ir::Literal> scalar(DType dt, double v) {
    auto lit = std::make_shared<ir::Literal>();
    if (dt == DType::F64) {
      lit->bytes.resize(sizeof(double));
      std::memcpy(lit->bytes.data(), &v, sizeof v);
    } else {
      const float x = static_cast<float>(v);
      lit->bytes.resize(sizeof(float));
      std::memcpy(lit->bytes.data(), &x, sizeof x);
    }
    return lit;
  }

  void rewrite(const Match& m, std::vector<ir::Op>* at_first, std::vector<ir::Op>* at_second) {
    const ir::Op r1 = f_.ops[m.first], r2 = f_.ops[m.second];
    const ir::ArrayType xt = f_.type(m.x), st = f_.type(r1.results[0]);
    const DType dt = xt.dtype();
    int64_t count = 1;
    for (auto d : m.axes) count *= xt.shape()[static_cast<size_t>(d)];
    const ir::ArrayType one(dt, {});

    // s, M2 = sum((x - c)^2) and e = sum(x - c) about the local mean c = s / n (a float, so
    // e is not quite 0): one fusion, one pass over x.
    auto region = std::make_shared<ir::Function>();
    region->name = "fused_rows";
    {
      ir::Function& g = *region;
      auto emit = [&](OpKind kind, std::vector<ValueId> operands, const ir::ArrayType& t, ir::Attrs attrs) {
        const ValueId v = g.new_value(t);
        g.ops.push_back(make(kind, std::move(operands), v, std::move(attrs), r1.loc));
        return v;
      };
      const ValueId p = g.new_value(xt);
      g.params = {p};
      const ValueId s = emit(OpKind::Reduce, {p}, st, r1.attrs);
      const ValueId n = emit(OpKind::Constant, {}, one, ir::attr::Constant{scalar(dt, static_cast<double>(count))});
      const ValueId nb = emit(OpKind::BroadcastInDim, {n}, st, ir::attr::BroadcastInDim{{}});
      const ValueId mean = emit(OpKind::Elementwise, {s, nb}, st, ir::attr::Elementwise{EwOp::Div, 0});
      const ValueId spread = emit(OpKind::BroadcastInDim, {mean}, xt, ir::attr::BroadcastInDim{m.kept});
      const ValueId dev = emit(OpKind::Elementwise, {p, spread}, xt, ir::attr::Elementwise{EwOp::Sub, 0});
      const ValueId sq = emit(OpKind::Elementwise, {dev, dev}, xt, ir::attr::Elementwise{EwOp::Mul, 0});
      const ValueId m2 = emit(OpKind::Reduce, {sq}, st, r1.attrs);
      const ValueId e = emit(OpKind::Reduce, {dev}, st, r1.attrs);
      g.results = {s, m2, e};
    }
    const ValueId m2 = value(st), e = value(st);
    ir::Op fusion{OpKind::Fusion, {m.x}, {r1.results[0], m2, e}, ir::attr::Fusion{}, r1.loc, {}};
    fusion.regions.push_back(std::move(region));
    at_first->push_back(std::move(fusion));

    // Where the second sum was: sum((x - m)^2) = M2 + 2 (c - m) e + n (c - m)^2
    //                                          = M2 + (c - m) (2 e + n (c - m)),
    // one value per kept position. c - m is exact (two close floats); nothing cancels.
    auto emit = [&](OpKind kind, std::vector<ValueId> operands, const ir::ArrayType& t, ir::Attrs attrs, ValueId result = -1) {
      const ValueId v = result >= 0 ? result : value(t);
      at_second->push_back(make(kind, std::move(operands), v, std::move(attrs), r2.loc));
      return v;
    };
    const ValueId n = emit(OpKind::Constant, {}, one, ir::attr::Constant{scalar(dt, static_cast<double>(count))});
    const ValueId nb = emit(OpKind::BroadcastInDim, {n}, st, ir::attr::BroadcastInDim{{}});
    const ValueId local_mean = emit(OpKind::Elementwise, {r1.results[0], nb}, st, ir::attr::Elementwise{EwOp::Div, 0});
    ValueId centre = m.m;
    if (f_.type(centre).shape() != st.shape()) centre = emit(OpKind::Reshape, {centre}, st, ir::attr::Reshape{});
    const ValueId d = emit(OpKind::Elementwise, {local_mean, centre}, st, ir::attr::Elementwise{EwOp::Sub, 0});
    const ValueId nd = emit(OpKind::Elementwise, {nb, d}, st, ir::attr::Elementwise{EwOp::Mul, 0});
    const ValueId e2 = emit(OpKind::Elementwise, {e, e}, st, ir::attr::Elementwise{EwOp::Add, 0});
    const ValueId inner = emit(OpKind::Elementwise, {e2, nd}, st, ir::attr::Elementwise{EwOp::Add, 0});
    const ValueId shift = emit(OpKind::Elementwise, {d, inner}, st, ir::attr::Elementwise{EwOp::Mul, 0});
    emit(OpKind::Elementwise, {m2, shift}, st, ir::attr::Elementwise{EwOp::Add, 0}, r2.results[0]);
  }

  // The deviations and squares the second sum read are dead now unless something else reads
  // them: drop pure ops whose results nobody reads (latest first, so a chain goes at once).
  void drop_dead() {
    std::vector<int> uses(f_.value_types.size(), 0);
    for (const auto& op : f_.ops)
      for (auto v : op.operands) ++uses[v];
    for (auto r : f_.results) ++uses[r];
    std::vector<bool> keep(f_.ops.size(), true);
    for (size_t i = f_.ops.size(); i-- > 0;) {
      const auto& op = f_.ops[i];
      const bool pure = op.regions.empty() && (op.kind == OpKind::Elementwise || op.kind == OpKind::BroadcastInDim ||
                                               op.kind == OpKind::Reshape || op.kind == OpKind::Constant || op.kind == OpKind::Reduce);
      if (!pure || std::any_of(op.results.begin(), op.results.end(), [&](ValueId r) { return uses[r] != 0; })) continue;
      keep[i] = false;
      for (auto v : op.operands) --uses[v];
    }
    std::vector<ir::Op> live;
    for (size_t i = 0; i < f_.ops.size(); ++i)
      if (keep[i]) live.push_back(std::move(f_.ops[i]));
    f_.ops = std::move(live);
  }

  ir::Function& f_;
  std::vector<int> producer_;
};

}  // namespace

void fuse_moments(ir::Function& f) { MomentFuser(f).run(); }

}  // namespace shard::spmd
