#include "exec/lower_collectives.hpp"

#include <fmt/format.h>

#include <stdexcept>

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
  const auto& a = op.attrs;
  switch (op.kind) {
    case OpKind::AxisIndex: {
      s.run = [axes = a.axes](const StepContext& ctx, const std::vector<const void*>&, const std::vector<void*>& out) {
        *static_cast<int32_t*>(out[0]) = static_cast<int32_t>(ctx.mesh.axis_index(ctx.device, axes));
      };
      return s;
    }
    case OpKind::AllReduce: {
      const auto& t = fn.type(op.operands[0]);
      s.run = [groups = exe.groups_over(a.axes), kind = static_cast<runtime::ReduceKind>(a.reduce), dt = t.dtype(),
               n = static_cast<size_t>(t.num_elements()), note = axes_note(a.axes)](
                  const StepContext& ctx, const std::vector<const void*>& in, const std::vector<void*>& out) {
        auto& g = *(*groups)[ctx.device];
        runtime::all_reduce(g, g.rank_of(ctx.device), kind, dt, in[0], out[0], n, note);
      };
      return s;
    }
    case OpKind::AllGather: {
      const auto& t = fn.type(op.operands[0]);
      int64_t outer = 1, chunk = 1;
      for (int64_t d = 0; d < static_cast<int64_t>(t.rank()); ++d) (d < a.axis ? outer : chunk) *= t.shape()[d];
      s.run = [groups = exe.groups_over(a.axes), dt = t.dtype(), outer, chunk, note = axes_note(a.axes)](
                  const StepContext& ctx, const std::vector<const void*>& in, const std::vector<void*>& out) {
        auto& g = *(*groups)[ctx.device];
        runtime::all_gather(g, g.rank_of(ctx.device), dt, in[0], out[0], static_cast<size_t>(outer),
                            static_cast<size_t>(chunk), note);
      };
      return s;
    }
    default:
      throw std::logic_error(fmt::format("internal error: no lowering for the collective `{}` yet", ir::op_display_name(op)));
  }
}

}  // namespace shard::exec
