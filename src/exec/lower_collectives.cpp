#include "exec/lower_collectives.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "exec/timeline.hpp"
#include "runtime/collectives.hpp"

namespace shard::exec {

using ir::OpKind;

namespace {

std::string axes_note(const std::vector<std::string>& axes) {
  std::vector<std::string> q;
  for (auto& a : axes) q.push_back("'" + a + "'");
  return fmt::format("over ({}{})", fmt::join(q, ", "), q.size() == 1 ? "," : "");
}

}  // namespace

Step lower_collective(const ir::Op& op, const ir::Function& fn, Step s, Executable& exe) {
  const auto& axes = ir::collective_axes(op);
  switch (op.kind) {
    case OpKind::AxisIndex: {
      s.run = [axes = axes](const StepContext& ctx, const std::vector<const void*>&, const std::vector<void*>& out) {
        *static_cast<int32_t*>(out[0]) = static_cast<int32_t>(ctx.mesh.axis_index(ctx.device, axes));
      };
      return s;
    }
    case OpKind::AllReduce: {
      const auto& all_reduce = op.attr<ir::attr::AllReduce>();
      const auto& t = fn.type(op.operands[0]);
      // One result buffer for the whole group (results are immutable): each rank writes its
      // chunk once instead of into every rank's copy.
      s.run_region = [groups = exe.groups_over(axes), kind = all_reduce.kind, dt = t.dtype(),
                      n = static_cast<size_t>(t.num_elements()), note = axes_note(axes), in = s.in[0], out = s.out[0],
                      name = s.name](const StepContext& ctx, std::vector<BufferRef>& slots) {
        auto& g = *(*groups)[ctx.device];
        const bool timed = timeline_enabled();
        const int64_t t0 = timed ? timeline_now() : 0;
        slots[out] = runtime::all_reduce_shared(g, g.rank_of(ctx.device), kind, dt, slots[in]->data(), n, note);
        if (timed) timeline_record(ctx.device, name, t0, timeline_now());
      };
      return s;
    }
    case OpKind::AllGather: {
      const auto& gather = op.attr<ir::attr::AllGather>();
      const auto& t = fn.type(op.operands[0]);
      int64_t outer = 1, chunk = 1;
      for (int64_t d = 0; d < static_cast<int64_t>(t.rank()); ++d) (d < gather.all_gather_dimension ? outer : chunk) *= t.shape()[d];
      s.run = [groups = exe.groups_over(axes), dt = t.dtype(), outer, chunk, note = axes_note(axes)](
                  const StepContext& ctx, const std::vector<const void*>& in, const std::vector<void*>& out) {
        auto& g = *(*groups)[ctx.device];
        runtime::all_gather(g, g.rank_of(ctx.device), dt, in[0], out[0], static_cast<size_t>(outer),
                            static_cast<size_t>(chunk), note);
      };
      return s;
    }
    case OpKind::ReduceScatter: {
      const auto& scatter = op.attr<ir::attr::ReduceScatter>();
      const auto& t = fn.type(op.operands[0]);
      auto groups = exe.groups_over(axes);
      const auto& rt = fn.type(op.results[0]);
      const int64_t n = scatter.tiled ? t.shape()[scatter.scatter_dimension] / rt.shape()[scatter.scatter_dimension] : t.shape()[scatter.scatter_dimension];  // the group size
      int64_t outer = 1, chunk = 1;
      for (int64_t d = 0; d < static_cast<int64_t>(t.rank()); ++d) {
        if (d < scatter.scatter_dimension) outer *= t.shape()[d];
        else if (d == scatter.scatter_dimension) chunk *= t.shape()[d] / n;
        else chunk *= t.shape()[d];
      }
      s.run = [groups, kind = scatter.kind, dt = t.dtype(), outer, chunk, note = axes_note(axes)](
                  const StepContext& ctx, const std::vector<const void*>& in, const std::vector<void*>& out) {
        auto& g = *(*groups)[ctx.device];
        runtime::reduce_scatter(g, g.rank_of(ctx.device), kind, dt, in[0], out[0], static_cast<size_t>(outer),
                                static_cast<size_t>(chunk), note);
      };
      return s;
    }
    case OpKind::AllToAll: {
      const auto& a2a = op.attr<ir::attr::AllToAll>();
      // Untiled all_to_all is the tiled one on the operand with a size-1 dim inserted at the
      // concat position (as JAX lowers it): the split dim ends with size 1, then squeezed.
      const auto& t = fn.type(op.operands[0]);
      runtime::AllToAllGeometry geo;
      for (auto d : t.shape()) geo.shape.push_back(static_cast<size_t>(d));
      int64_t split = a2a.split_axis, concat = a2a.concat_axis;
      if (!a2a.tiled && split != concat) {
        if (split < concat) ++concat;
        else ++split;
        geo.shape.insert(geo.shape.begin() + concat, 1);
      }
      geo.split_axis = static_cast<int>(split);
      geo.concat_axis = static_cast<int>(concat);
      s.run = [groups = exe.groups_over(axes), dt = t.dtype(), geo, note = axes_note(axes)](
                  const StepContext& ctx, const std::vector<const void*>& in, const std::vector<void*>& out) {
        auto& g = *(*groups)[ctx.device];
        runtime::all_to_all(g, g.rank_of(ctx.device), dt, in[0], out[0], geo, note);
      };
      return s;
    }
    case OpKind::CollectivePermute: {
      const auto& permute = op.attr<ir::attr::CollectivePermute>();
      const auto& t = fn.type(op.operands[0]);
      runtime::PermutePairs pairs;
      for (auto [src, dst] : permute.perm) pairs.emplace_back(static_cast<int>(src), static_cast<int>(dst));
      s.run = [groups = exe.groups_over(axes), dt = t.dtype(), pairs, n = static_cast<size_t>(t.num_elements()),
               note = axes_note(axes)](const StepContext& ctx, const std::vector<const void*>& in, const std::vector<void*>& out) {
        auto& g = *(*groups)[ctx.device];
        runtime::permute(g, g.rank_of(ctx.device), dt, pairs, in[0], out[0], n, note);
      };
      return s;
    }
    default:
      throw std::logic_error(fmt::format("internal error: no lowering for the collective `{}` yet", ir::op_display_name(op)));
  }
}

}  // namespace shard::exec
