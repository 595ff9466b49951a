// Partitioning of control flow (while / scan / cond regions), shard_map bodies and the
// collectives users write inside them (see partitioner.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "spmd/partitioner.hpp"

namespace shard::spmd {

using ir::OpKind;
using types::AxisType;
using types::DType;

void Partitioner::partition_control(const ir::Op& op) {
  auto type_layout = [&](ir::ValueId v) { return result_layout(gtype(v), nullptr); };
  // Collectives inside a body run once per iteration (or only when the branch is taken):
  // their ledger entries say so.
  const std::string repeat = op.kind == OpKind::Scan ? fmt::format(" (in a scan body: {} times)", op.attr<ir::attr::Scan>().length)
                           : op.kind == OpKind::While ? std::string(" (in a while_loop body: every iteration)")
                                                      : std::string(" (in a cond branch: when taken)");
  auto sub = [&](const ir::Function& region, const std::vector<PartitionSpec>& in, const std::vector<PartitionSpec>& want) {
    const size_t before = ledger_.size();
    Partitioner p(region, mesh_, ledger_);
    auto local = std::make_shared<const ir::Function>(p.run(in, want).local);
    for (size_t i = before; i < ledger_.size(); ++i) ledger_[i].reason += repeat;
    return local;
  };
  std::vector<ir::ValueId> ins;
  std::vector<PartitionSpec> in_layouts;
  auto keep = [&](ir::ValueId v) {
    ins.push_back(map_[v].id);
    in_layouts.push_back(normalized(map_[v].layout, gtype(v).rank()));
  };
  auto conform = [&](ir::ValueId v, const PartitionSpec& to) {
    ins.push_back(in_layout(op, v, to));
    in_layouts.push_back(to);
  };
  std::vector<std::shared_ptr<const ir::Function>> regions;
  std::vector<PartitionSpec> out_layouts;
  if (op.kind == OpKind::While) {
    const auto& w = op.attr<ir::attr::While>();
    const auto ncc = static_cast<size_t>(w.cond_nconsts), nbc = static_cast<size_t>(w.body_nconsts);
    for (size_t i = 0; i < op.operands.size(); ++i) {
      if (i < ncc + nbc) keep(op.operands[i]);
      else conform(op.operands[i], type_layout(op.operands[i]));
    }
    std::vector<PartitionSpec> carries(in_layouts.begin() + static_cast<long>(ncc + nbc), in_layouts.end());
    std::vector<PartitionSpec> cond_in(in_layouts.begin(), in_layouts.begin() + static_cast<long>(ncc));
    std::vector<PartitionSpec> body_in(in_layouts.begin() + static_cast<long>(ncc), in_layouts.begin() + static_cast<long>(ncc + nbc));
    cond_in.insert(cond_in.end(), carries.begin(), carries.end());
    body_in.insert(body_in.end(), carries.begin(), carries.end());
    regions.push_back(sub(*op.regions[0], cond_in, {PartitionSpec()}));
    regions.push_back(sub(*op.regions[1], body_in, carries));
    out_layouts = carries;
  } else if (op.kind == OpKind::Scan) {
    const auto& scan = op.attr<ir::attr::Scan>();
    const auto nc = static_cast<size_t>(scan.num_consts), nk = static_cast<size_t>(scan.num_carry);
    std::vector<PartitionSpec> body_in;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      auto v = op.operands[i];
      if (i < nc) keep(v);
      else if (i < nc + nk) conform(v, type_layout(v));
      else conform(v, with_entry(normalized(map_[v].layout, gtype(v).rank()), 0, {}));  // scanned dim whole
      auto l = in_layouts.back();
      if (i >= nc + nk) {
        auto e = l.entries();
        e.erase(e.begin());
        l = PartitionSpec(e);
      }
      body_in.push_back(l);
    }
    std::vector<PartitionSpec> want;
    for (size_t r = 0; r < op.results.size(); ++r) {
      // A carry leaves with the layout it entered with (the Auto plan may have picked
      // another for the result), so the body's carries have one type.
      auto l = r < nk ? in_layouts[nc + r] : type_layout(op.results[r]);
      out_layouts.push_back(l);
      if (r >= nk) {
        auto e = l.entries();
        e.erase(e.begin());
        l = PartitionSpec(e);
      }
      want.push_back(l);
    }
    regions.push_back(sub(*op.regions[0], body_in, want));
  } else {  // Cond
    conform(op.operands[0], PartitionSpec());
    for (size_t i = 1; i < op.operands.size(); ++i) keep(op.operands[i]);
    std::vector<PartitionSpec> branch_in(in_layouts.begin() + 1, in_layouts.end());
    for (auto r : op.results) out_layouts.push_back(type_layout(r));
    for (auto& region : op.regions) regions.push_back(sub(*region, branch_in, out_layouts));
  }
  std::vector<std::pair<types::DType, types::Shape>> results;
  for (size_t r = 0; r < op.results.size(); ++r) {
    const auto& t = gtype(op.results[r]);
    results.emplace_back(t.dtype(), b_.local_shape(t.shape(), out_layouts[r]));
  }
  auto locals = b_.emit_multi(op.kind, ins, results, op.attrs, std::move(regions));
  for (size_t r = 0; r < op.results.size(); ++r) define(op.results[r], locals[r], out_layouts[r]);
}

void Partitioner::partition_collective(const ir::Op& op) {
  const auto& rt = gtype(op.results[0]);
  std::vector<ir::ValueId> ins;
  for (auto v : op.operands) ins.push_back(in_layout(op, v, result_layout(gtype(v), nullptr)));
  PartitionSpec layout = result_layout(rt, nullptr);
  auto local = b_.emit(op.kind, ins, rt.dtype(), b_.local_shape(rt.shape(), layout), op.attrs);
  if (const char* kind = ir::collective_kind_name(op.kind)) {  // axis_index moves nothing
    const int64_t bytes = types::shape_product(b_.shape(local)) * static_cast<int64_t>(types::dtype_size(rt.dtype()));
    b_.record(kind, ir::collective_axes(op), bytes, fmt::format("{} in a shard_map body", ir::op_display_name(op)));
  }
  define(op.results[0], local, layout);
}

void Partitioner::partition_shard_map(const ir::Op& op) {
  const auto& a = op.attr<ir::attr::ShardMap>();
  const ir::Function& body = *op.regions[0];
  for (const auto& axis : a.manual_axes)
    if (!am_.has_axis(axis))
      throw types::ShardingError("ValueError", fmt::format("shard_map over the mesh axis '{}' runs in a program on the mesh {}, which "
                                                           "has no such axis; call it on its own mesh, or enter that mesh with "
                                                           "`jax.sharding.use_mesh(mesh)`.", axis, am_.repr()));
  // A layout entry: the spec's manual axes, then the axes the type keeps (partial manual).
  auto merge = [](const PartitionSpec& manual, const PartitionSpec& kept, size_t rank) {
    auto m = normalized(manual, rank).entries(), k = normalized(kept, rank).entries();
    for (size_t d = 0; d < rank; ++d) m[d].insert(m[d].end(), k[d].begin(), k[d].end());
    return PartitionSpec(m);
  };
  std::vector<ir::ValueId> ins;
  std::vector<PartitionSpec> body_in;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    auto v = op.operands[i];
    const auto& inner = body.type(body.params[i]);
    PartitionSpec kept = result_layout(inner, nullptr);
    PartitionSpec manual = i < a.in_specs.size() ? a.in_specs[i] : PartitionSpec();
    ins.push_back(in_layout(op, v, merge(manual, kept, gtype(v).rank())));
    body_in.push_back(kept);
  }
  Partitioner sub(body, mesh_, ledger_);
  Partitioned part = sub.run(body_in);
  const ir::Function& lf = part.local;
  std::vector<ir::ValueId> local(lf.value_types.size(), -1);
  for (size_t i = 0; i < lf.params.size(); ++i) local[lf.params[i]] = ins[i];
  for (const auto& lop : lf.ops) {
    std::vector<ir::ValueId> operands;
    for (auto v : lop.operands) operands.push_back(local[v]);
    std::vector<std::pair<DType, types::Shape>> results;
    for (auto r : lop.results) results.emplace_back(lf.type(r).dtype(), lf.type(r).shape());
    b_.set_loc(lop.loc);
    auto rs = b_.emit_multi(lop.kind, operands, results, lop.attrs, lop.regions);
    for (size_t k = 0; k < rs.size(); ++k) local[lop.results[k]] = rs[k];
  }
  b_.set_loc(op.loc);
  for (size_t r = 0; r < op.results.size(); ++r) {
    PartitionSpec manual = r < a.out_specs.size() ? a.out_specs[r] : PartitionSpec();
    define(op.results[r], local[lf.results[r]], merge(manual, part.out_layouts[r], gtype(op.results[r]).rank()));
  }
}

}  // namespace shard::spmd
