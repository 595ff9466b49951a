#include "exec/lower_control.hpp"

#include "exec/lower_control_kernel.hpp"
#include "runtime/device_runtime.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <memory>

namespace shard::exec {

using ir::OpKind;

namespace {

struct Body {
  std::vector<Step> steps;
  std::vector<int> params, results;
};

std::shared_ptr<const Body> lower_body(const ir::Function& region, const LowerRegion& lower_region) {
  auto b = std::make_shared<Body>();
  b->steps = lower_region(region, b->params, b->results);
  return b;
}

// Binds `values` to the body's params (buffers are immutable, so sharing is free), runs it.
void run_body(const StepContext& ctx, const Body& b, std::vector<BufferRef>& slots, const std::vector<BufferRef>& values) {
  for (size_t i = 0; i < b.params.size(); ++i) slots[b.params[i]] = values[i];
  run_steps(ctx, b.steps, slots);
}

size_t bytes_of(const ir::ArrayType& t) { return static_cast<size_t>(t.num_elements()) * types::dtype_size(t.dtype()); }

Step lower_while(const ir::Op& op, const std::vector<int>& in, const std::vector<int>& out, const LowerRegion& lr) {
  auto cond = lower_body(*op.regions[0], lr), body = lower_body(*op.regions[1], lr);
  const auto& w = op.attr<ir::attr::While>();
  const auto ncc = static_cast<size_t>(w.cond_nconsts), nbc = static_cast<size_t>(w.body_nconsts);
  Step s;
  s.name = "while";
  s.in = in;
  s.out = out;
  s.run_region = [=](const StepContext& ctx, std::vector<BufferRef>& slots) {
    std::vector<BufferRef> cond_args, body_args, carry;
    for (size_t i = 0; i < ncc; ++i) cond_args.push_back(slots[in[i]]);
    for (size_t i = ncc; i < ncc + nbc; ++i) body_args.push_back(slots[in[i]]);
    for (size_t i = ncc + nbc; i < in.size(); ++i) carry.push_back(slots[in[i]]);
    const size_t nc = cond_args.size(), nb = body_args.size();
    for (;;) {
      cond_args.resize(nc);
      cond_args.insert(cond_args.end(), carry.begin(), carry.end());
      run_body(ctx, *cond, slots, cond_args);
      if (!*static_cast<const bool*>(slots[cond->results[0]]->data())) break;
      body_args.resize(nb);
      body_args.insert(body_args.end(), carry.begin(), carry.end());
      run_body(ctx, *body, slots, body_args);
      for (size_t i = 0; i < carry.size(); ++i) carry[i] = slots[body->results[i]];
    }
    for (size_t i = 0; i < out.size(); ++i) slots[out[i]] = carry[i];
  };
  return s;
}

// xs are sliced along their leading (whole, contiguous) dim into fresh buffers per
// iteration; ys are written into buffers allocated once.
Step lower_scan(const ir::Op& op, const ir::Function& fn, const std::vector<int>& in, const std::vector<int>& out,
                const LowerRegion& lr) {
  auto body = lower_body(*op.regions[0], lr);
  const auto& scan = op.attr<ir::attr::Scan>();
  const auto nconst = static_cast<size_t>(scan.num_consts), ncarry = static_cast<size_t>(scan.num_carry);
  const int64_t length = scan.length;
  const bool reverse = scan.reverse;
  std::vector<size_t> x_bytes, y_bytes;  // per iteration
  for (size_t i = nconst + ncarry; i < op.operands.size(); ++i) x_bytes.push_back(length ? bytes_of(fn.type(op.operands[i])) / length : 0);
  for (size_t r = ncarry; r < op.results.size(); ++r) y_bytes.push_back(length ? bytes_of(fn.type(op.results[r])) / length : 0);
  Step s;
  s.name = "scan";
  s.in = in;
  s.out = out;
  s.run_region = [=](const StepContext& ctx, std::vector<BufferRef>& slots) {
    std::vector<BufferRef> consts, carry, xs, ys;
    for (size_t i = 0; i < nconst; ++i) consts.push_back(slots[in[i]]);
    for (size_t i = nconst; i < nconst + ncarry; ++i) carry.push_back(slots[in[i]]);
    for (size_t i = nconst + ncarry; i < in.size(); ++i) xs.push_back(slots[in[i]]);
    for (size_t k = 0; k < y_bytes.size(); ++k) ys.push_back(runtime::DeviceBuffer::allocate(ctx.device, y_bytes[k] * static_cast<size_t>(length)));
    std::vector<BufferRef> args;
    for (int64_t it = 0; it < length; ++it) {
      const int64_t i = reverse ? length - 1 - it : it;
      args = consts;
      args.insert(args.end(), carry.begin(), carry.end());
      for (size_t k = 0; k < xs.size(); ++k) {
        auto x = runtime::DeviceBuffer::allocate(ctx.device, x_bytes[k]);
        std::memcpy(x->data(), static_cast<const char*>(xs[k]->data()) + static_cast<size_t>(i) * x_bytes[k], x_bytes[k]);
        args.push_back(std::move(x));
      }
      run_body(ctx, *body, slots, args);
      for (size_t c = 0; c < ncarry; ++c) carry[c] = slots[body->results[c]];
      for (size_t k = 0; k < ys.size(); ++k)
        std::memcpy(static_cast<char*>(ys[k]->data()) + static_cast<size_t>(i) * y_bytes[k], slots[body->results[ncarry + k]]->data(), y_bytes[k]);
    }
    for (size_t c = 0; c < ncarry; ++c) slots[out[c]] = carry[c];
    for (size_t k = 0; k < ys.size(); ++k) slots[out[ncarry + k]] = ys[k];
  };
  return s;
}

Step lower_cond(const ir::Op& op, const std::vector<int>& in, const std::vector<int>& out, const LowerRegion& lr) {
  std::vector<std::shared_ptr<const Body>> branches;
  for (auto& r : op.regions) branches.push_back(lower_body(*r, lr));
  Step s;
  s.name = "cond";
  s.in = in;
  s.out = out;
  s.run_region = [=](const StepContext& ctx, std::vector<BufferRef>& slots) {
    const int32_t raw = *static_cast<const int32_t*>(slots[in[0]]->data());
    const auto& b = *branches[static_cast<size_t>(std::clamp<int32_t>(raw, 0, static_cast<int32_t>(branches.size()) - 1))];
    std::vector<BufferRef> args;
    for (size_t i = 1; i < in.size(); ++i) args.push_back(slots[in[i]]);
    run_body(ctx, b, slots, args);
    for (size_t r = 0; r < out.size(); ++r) slots[out[r]] = slots[b.results[r]];
  };
  return s;
}

// One call of the op's compiled kernel; its scratch arena lives for that call.
Step lower_compiled(const ir::Op& op, const ir::Function& fn, const std::vector<int>& in, const std::vector<int>& out,
                    KernelPlan& kernels) {
  ControlKernel ck = build_control_kernel(op, fn);
  Step s;
  s.name = ir::op_display_name(op);
  s.in = in;
  s.out = out;
  for (auto r : op.results) s.out_bytes.push_back(bytes_of(fn.type(r)));
  auto kernel = kernels.loop(ck.kernel);
  s.repeats = op.kind != OpKind::Cond;  // device threads run it in parallel, however small its data
  s.run = [kernel, operand = std::move(ck.operand), literal = std::move(ck.literal), scratch_bytes = ck.kernel.scratch_bytes()](
              const StepContext& ctx, const std::vector<const void*>& in_ptrs, const std::vector<void*>& out_ptrs) {
    constexpr size_t kInline = 16;  // no allocation for the usual handful of inputs
    const void* inline_ptrs[kInline];
    std::vector<const void*> heap_ptrs;
    const void** ptrs = inline_ptrs;
    if (operand.size() > kInline) {
      heap_ptrs.resize(operand.size());
      ptrs = heap_ptrs.data();
    }
    for (size_t i = 0; i < operand.size(); ++i) ptrs[i] = operand[i] >= 0 ? in_ptrs[static_cast<size_t>(operand[i])] : literal[i]->bytes.data();
    BufferRef scratch = scratch_bytes ? runtime::DeviceBuffer::allocate(ctx.device, static_cast<size_t>(scratch_bytes)) : nullptr;
    kernel(ptrs, out_ptrs.data(), scratch ? scratch->data() : nullptr);
    runtime::throw_if_cancelled();  // the kernel's loops stopped early: its outputs are not results
  };
  return s;
}

}  // namespace

Step lower_control_flow(const ir::Op& op, const ir::Function& fn, const std::vector<int>& in, const std::vector<int>& out,
                        const LowerRegion& lower_region, KernelPlan& kernels) {
  if (can_compile_control_flow(op, fn)) return lower_compiled(op, fn, in, out, kernels);
  switch (op.kind) {
    case OpKind::While: return lower_while(op, in, out, lower_region);
    case OpKind::Scan: return lower_scan(op, fn, in, out, lower_region);
    case OpKind::Cond: return lower_cond(op, in, out, lower_region);
    default: throw std::logic_error(fmt::format("internal error: {} is not control flow", ir::op_display_name(op)));
  }
}

}  // namespace shard::exec
