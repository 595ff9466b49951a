// Lowering of per-device IR ops to executable steps. Data movement ops (broadcast,
// transpose, slice, rev, concatenate, pad) become strided-copy elementwise kernels, so every
// element loop is LLVM-generated; fused groups (spmd/fusion) become one such loop each
// (exec/lower_fusion); reductions get reduction kernels; dot_general is a layout copy plus
// GEMM; the rest are C++ kernels.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "codegen/elementwise_kernel.hpp"
#include "codegen/reduce_kernel.hpp"
#include "exec/host_callback.hpp"
#include "exec/host_kernels.hpp"
#include "exec/kernel_cache.hpp"
#include "exec/lower_collectives.hpp"
#include "exec/lower_control.hpp"
#include "exec/lower_fusion.hpp"
#include "exec/lower_linalg.hpp"
#include "exec/program.hpp"
#include "ir/dim_map.hpp"

namespace shard::exec {

using ir::EwOp;
using ir::OpKind;
using types::DType;

namespace {

size_t bytes_of(const ir::ArrayType& t) { return static_cast<size_t>(t.num_elements()) * types::dtype_size(t.dtype()); }

class Lowering {
 public:
  Lowering(Executable& exe, const ir::Function& fn, std::vector<Step>* steps = nullptr)
      : exe_(exe), fn_(fn), kernels_(exe.mutable_kernels()), steps_(steps ? steps : &exe.mutable_steps()) {
    slot_of_.assign(fn.value_types.size(), -1);
  }

  void run(std::vector<int>& params, std::vector<int>& results) {
    for (auto p : fn_.params) params.push_back(slot(p));
    for (const auto& op : fn_.ops) lower(op);
    for (auto r : fn_.results) results.push_back(slot(r));
  }

 private:
  void emit(Step s) { steps_->push_back(std::move(s)); }

  void lower_control(const ir::Op& op) {
    std::vector<int> in, out;
    for (auto v : op.operands) in.push_back(slot(v));
    for (auto v : op.results) out.push_back(slot(v));
    emit(lower_control_flow(op, fn_, in, out, [this](const ir::Function& region, std::vector<int>& params, std::vector<int>& results) {
      std::vector<Step> steps;
      Lowering(exe_, region, &steps).run(params, results);
      return steps;
    }, kernels_));
  }

  int slot(ir::ValueId v) {
    if (slot_of_[v] < 0) slot_of_[v] = exe_.new_slot();
    return slot_of_[v];
  }
  const ir::ArrayType& type(ir::ValueId v) const { return fn_.type(v); }

  // Whether reading `shape` with `strides` (elements) walks one contiguous run of the operand
  // in order: every dim of more than one element has its row-major stride.
  static bool reads_one_run(const Shape& shape, const std::vector<int64_t>& strides) {
    auto want = contiguous_strides(shape);
    for (size_t d = 0; d < shape.size(); ++d)
      if (shape[d] > 1 && strides[d] != want[d]) return false;
    return true;
  }

  Step make_step(const ir::Op& op) {
    Step s;
    s.name = ir::op_display_name(op);
    for (auto a : op.operands) s.in.push_back(slot(a));
    for (auto r : op.results) {
      s.out.push_back(slot(r));
      s.out_bytes.push_back(bytes_of(type(r)));
    }
    return s;
  }

  // A one-input copy kernel reading `in` through `strides`/`offset` into `out_shape`.
  void add_copy(Step s, DType dt, const Shape& out_shape, std::vector<int64_t> strides, int64_t offset) {
    codegen::ElementwiseKernel k;
    k.shape = out_shape;
    k.inputs = {{dt, std::move(strides), offset}};
    k.nodes = {{EwOp::Input, dt, {}, 0}};
    k.outputs = {0};
    auto fn = kernels_.elementwise(k);
    s.run = [fn](const StepContext&, const std::vector<const void*>& in, const std::vector<void*>& out) {
      fn(in.data(), out.data());
    };
    emit(std::move(s));
  }

  void lower_elementwise(const ir::Op& op) {
    codegen::ElementwiseKernel k;
    const auto& rt = type(op.results[0]);
    k.shape = rt.shape();
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const auto& t = type(op.operands[i]);
      k.inputs.push_back({t.dtype(), contiguous_strides(t.shape()), 0});
      k.nodes.push_back({EwOp::Input, t.dtype(), {}, static_cast<int>(i)});
    }
    std::vector<int> args;
    for (size_t i = 0; i < op.operands.size(); ++i) args.push_back(static_cast<int>(i));
    const auto& ew = op.attr<ir::attr::Elementwise>();
    k.nodes.push_back({ew.op, rt.dtype(), args, -1, static_cast<double>(ew.y)});
    k.outputs = {static_cast<int>(op.operands.size())};
    auto fn = kernels_.elementwise(k);
    Step s = make_step(op);
    s.run = [fn](const StepContext&, const std::vector<const void*>& in, const std::vector<void*>& out) {
      fn(in.data(), out.data());
    };
    emit(std::move(s));
  }

  void lower(const ir::Op& op) {
    // Communicating ops meet the other devices through the runtime (lower_collectives.cpp).
    if (ir::is_collective(op.kind) || op.kind == OpKind::AxisIndex) return emit(lower_collective(op, fn_, make_step(op), exe_));
    switch (op.kind) {
      case OpKind::Elementwise: return lower_elementwise(op);
      case OpKind::Fusion: return emit(lower_fusion(op, make_step(op), kernels_));
      case OpKind::Constant: {
        auto lit = op.attr<ir::attr::Constant>().literal;
        Step s = make_step(op);
        s.run = [lit](const StepContext&, const std::vector<const void*>&, const std::vector<void*>& out) {
          // A zero-size constant may have no buffer (null): memcpy must not be given one.
          if (!lit->bytes.empty()) std::memcpy(out[0], lit->bytes.data(), lit->bytes.size());
        };
        emit(std::move(s));
        return;
      }
      case OpKind::Iota: {
        const auto& rt = type(op.results[0]);
        Step s = make_step(op);
        s.run = [dt = rt.dtype(), shape = rt.shape(), axis = op.attr<ir::attr::Iota>().dimension](const StepContext&, const std::vector<const void*>&,
                                                                     const std::vector<void*>& out) {
          iota_kernel(dt, shape, axis, 0, out[0]);
        };
        emit(std::move(s));
        return;
      }
      case OpKind::Reshape: {
        Step s = make_step(op);
        s.alias_of = 0;  // contiguous row-major: same bytes
        emit(std::move(s));
        return;
      }
      case OpKind::BroadcastInDim: case OpKind::Transpose: case OpKind::Slice: case OpKind::Rev: {
        // A strided read of the operand: result index j walks operand dim d by step.
        const auto& it = type(op.operands[0]);
        const auto& rt = type(op.results[0]);
        auto in_strides = contiguous_strides(it.shape());
        std::vector<int64_t> strides(rt.rank(), 0);
        int64_t offset = 0;
        auto map = ir::dim_map(fn_, op);
        for (size_t d = 0; d < map.size(); ++d) {
          offset += map[d].start * in_strides[d];
          if (map[d].result_dim >= 0) strides[static_cast<size_t>(map[d].result_dim)] += map[d].step * in_strides[d];
        }
        if (reads_one_run(rt.shape(), strides)) {  // e.g. a slice of leading rows: a view, not a copy
          Step s = make_step(op);
          s.alias_of = 0;
          s.alias_offset = static_cast<size_t>(offset) * types::dtype_size(rt.dtype());
          emit(std::move(s));
          return;
        }
        return add_copy(make_step(op), rt.dtype(), rt.shape(), strides, offset);
      }
      case OpKind::Concatenate: return lower_concatenate(op);
      case OpKind::While: case OpKind::Scan: case OpKind::Cond: return lower_control(op);
      case OpKind::HostCallback: {
        const auto& callback = op.attr<ir::attr::HostCallback>();
        std::vector<ir::ArrayType> types;
        for (size_t i = 0; i < op.operands.size(); ++i) {
          ir::ArrayType t = type(op.operands[i]);
          // a complex value lowered to its parts (a trailing dim of 2) is handed back as itself
          if (i < callback.complex_operands.size() && types::is_complex(callback.complex_operands[i])) {
            types::Shape s = t.shape();
            s.pop_back();
            t = ir::ArrayType(callback.complex_operands[i], s);
          }
          types.push_back(t);
        }
        Step s = make_step(op);
        s.run = [types, cb = std::static_pointer_cast<const HostCallback>(callback.callable), varying = callback.varying](
                    const StepContext& ctx, const std::vector<const void*>& in, const std::vector<void*>&) {
          if (!ctx.callbacks) return;
          const bool send = varying || ctx.position == 0;  // replicated operands: one copy speaks
          std::vector<HostValue> values;
          for (size_t i = 0; send && i < types.size(); ++i) {
            const auto* p = static_cast<const uint8_t*>(in[i]);
            values.push_back({types[i], std::vector<uint8_t>(p, p + bytes_of(types[i]))});
          }
          ctx.callbacks->push(ctx.position, cb, std::move(values), send);
        };
        emit(std::move(s));
        return;
      }
      case OpKind::Pad: return lower_pad(op);
      case OpKind::Reduce: {
        const auto& it = type(op.operands[0]);
        const auto& reduce = op.attr<ir::attr::Reduce>();
        std::vector<bool> mask(it.rank(), false);
        for (auto d : reduce.axes) mask[d] = true;
        auto fn = kernels_.reduce({it.dtype(), reduce.kind, it.shape(), mask});
        Step s = make_step(op);
        s.run = [fn](const StepContext&, const std::vector<const void*>& in, const std::vector<void*>& out) { fn(in[0], out[0]); };
        emit(std::move(s));
        return;
      }
      case OpKind::ArgReduce: {
        const auto& arg = op.attr<ir::attr::ArgReduce>();
        return lower_along_axis(op, codegen::ReduceForm::ArgReduce, arg.kind, arg.axis, false);
      }
      case OpKind::Cumulative: {
        const auto& cum = op.attr<ir::attr::Cumulative>();
        return lower_along_axis(op, codegen::ReduceForm::Cumulative, cum.kind, cum.axis, cum.reverse);
      }
      case OpKind::Sort: {
        const auto& it = type(op.operands[0]);
        const auto& sa = op.attr<ir::attr::Sort>();
        Step s = make_step(op);
        if (op.operands.size() == 1) {
          s.run = [dt = it.dtype(), shape = it.shape(), axis = sa.dimension](
                      const StepContext&, const std::vector<const void*>& in, const std::vector<void*>& out) {
            sort_kernel(dt, shape, axis, in[0], out[0]);
          };
        } else {
          std::vector<types::DType> dtypes;
          for (auto v : op.operands) dtypes.push_back(type(v).dtype());
          s.run = [dtypes, shape = it.shape(), axis = sa.dimension, keys = sa.num_keys](
                      const StepContext&, const std::vector<const void*>& in, const std::vector<void*>& out) {
            sort_multi_kernel(dtypes, shape, axis, keys, in, out);
          };
        }
        emit(std::move(s));
        return;
      }
      case OpKind::Cholesky: case OpKind::Lu: case OpKind::TriangularSolve: case OpKind::Eigh: case OpKind::Svd: case OpKind::Qr:
      case OpKind::Fft: {
        Step s = make_step(op);
        s.run = linalg_step_run(fn_, op);
        emit(std::move(s));
        return;
      }
      case OpKind::DotGeneral: return lower_dot(op);
      case OpKind::DynamicSlice: case OpKind::DynamicUpdateSlice: return lower_dynamic_slice(op);
      default:
        throw std::logic_error(fmt::format("internal error: no lowering for `{}` in a per-device program", ir::op_display_name(op)));
    }
  }

  // argmax / argmin and the cumulative scans: an LLVM kernel along the axis (codegen/
  // arg_reduce_kernel, cumulative_kernel); what it does not cover (an empty arg-reduction,
  // which raises at run time, and storage-only dtypes) runs the host kernel.
  void lower_along_axis(const ir::Op& op, codegen::ReduceForm form, ir::ReduceKind kind, int64_t axis, bool reverse) {
    const auto& it = type(op.operands[0]);
    std::vector<bool> mask(it.rank(), false);
    mask[static_cast<size_t>(axis)] = true;
    codegen::ReduceKernel k{it.dtype(), kind, it.shape(), mask, form, reverse};
    Step s = make_step(op);
    if (codegen::jit_supports(k)) {
      auto fn = kernels_.reduce(k);
      s.run = [fn](const StepContext&, const std::vector<const void*>& in, const std::vector<void*>& out) { fn(in[0], out[0]); };
    } else if (form == codegen::ReduceForm::ArgReduce) {
      s.run = [dt = it.dtype(), kind, shape = it.shape(), axis](const StepContext&, const std::vector<const void*>& in,
                                                                const std::vector<void*>& out) {
        arg_reduce_kernel(dt, kind, shape, axis, in[0], static_cast<int32_t*>(out[0]));
      };
    } else {
      s.run = [dt = it.dtype(), kind, shape = it.shape(), axis, reverse](const StepContext&, const std::vector<const void*>& in,
                                                                         const std::vector<void*>& out) {
        cumulative_kernel(dt, kind, shape, axis, reverse, in[0], out[0]);
      };
    }
    emit(std::move(s));
  }

  // Each operand is copied into its slab of the output (strided output writes).
  void lower_concatenate(const ir::Op& op) {
    const auto& rt = type(op.results[0]);
    const auto out_strides = contiguous_strides(rt.shape());
    const int64_t axis = op.attr<ir::attr::Concatenate>().dimension;
    std::vector<std::pair<EwKernelRef, int>> parts;  // kernel, operand index
    int64_t at = 0;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const auto& t = type(op.operands[i]);
      if (t.shape()[axis] > 0) {
        codegen::ElementwiseKernel k;
        k.shape = t.shape();
        k.inputs = {{t.dtype(), contiguous_strides(t.shape()), 0}};
        k.nodes = {{EwOp::Input, t.dtype(), {}, 0}};
        k.outputs = {0};
        k.out_strides = out_strides;
        k.out_offset = at * out_strides[axis];
        parts.emplace_back(kernels_.elementwise(k), static_cast<int>(i));
      }
      at += t.shape()[axis];
    }
    Step s = make_step(op);
    s.run = [parts](const StepContext&, const std::vector<const void*>& in, const std::vector<void*>& out) {
      for (auto& [fn, i] : parts) {
        const void* src[] = {in[i]};
        fn(src, out.data());
      }
    };
    emit(std::move(s));
  }

  void lower_pad(const ir::Op& op) {
    const auto& pad = op.attr<ir::attr::Pad>();
    const auto& it = type(op.operands[0]);
    const auto& rt = type(op.results[0]);
    const auto out_strides = contiguous_strides(rt.shape());
    for (size_t d = 0; d < it.rank(); ++d)
      if (pad.low[d] < 0 || pad.high[d] < 0) throw std::runtime_error("negative padding is not supported yet");
    // fill: out[:] = pad value (a broadcast scalar input); then the interior copy.
    codegen::ElementwiseKernel fill;
    fill.shape = rt.shape();
    fill.inputs = {{rt.dtype(), std::vector<int64_t>(rt.rank(), 0), 0}};
    fill.nodes = {{EwOp::Input, rt.dtype(), {}, 0}};
    fill.outputs = {0};
    codegen::ElementwiseKernel copy;
    copy.shape = it.shape();
    copy.inputs = {{it.dtype(), contiguous_strides(it.shape()), 0}};
    copy.nodes = {{EwOp::Input, it.dtype(), {}, 0}};
    copy.outputs = {0};
    copy.out_strides = out_strides;
    for (size_t d = 0; d < it.rank(); ++d) copy.out_offset += pad.low[d] * out_strides[d];
    auto fill_fn = kernels_.elementwise(fill);
    auto copy_fn = num_elements(it.shape()) ? kernels_.elementwise(copy) : nullptr;
    Step s = make_step(op);
    s.run = [fill_fn, copy_fn](const StepContext&, const std::vector<const void*>& in, const std::vector<void*>& out) {
      const void* value[] = {in[1]};
      fill_fn(value, out.data());
      if (copy_fn) {
        const void* src[] = {in[0]};
        copy_fn(src, out.data());
      }
    };
    emit(std::move(s));
  }

  // dot_general: copy both operands into (batch, m, k) and (batch, k, n) layouts when they are
  // not already, then a batched GEMM whose (batch, m, n) result is JAX's output order.
  void lower_dot(const ir::Op& op) {
    const auto& a = op.attr<ir::attr::DotGeneral>();
    const auto& lt = type(op.operands[0]);
    const auto& rt = type(op.operands[1]);
    const auto& ot = type(op.results[0]);
    auto free_dims = [](size_t rank, const std::vector<int64_t>& c, const std::vector<int64_t>& b) {
      std::vector<int64_t> f;
      for (int64_t d = 0; d < static_cast<int64_t>(rank); ++d)
        if (std::find(c.begin(), c.end(), d) == c.end() && std::find(b.begin(), b.end(), d) == b.end()) f.push_back(d);
      return f;
    };
    auto lfree = free_dims(lt.rank(), a.lhs_contracting, a.lhs_batch);
    auto rfree = free_dims(rt.rank(), a.rhs_contracting, a.rhs_batch);
    auto prod = [](const Shape& s, const std::vector<int64_t>& ds) {
      int64_t p = 1;
      for (auto d : ds) p *= s[d];
      return p;
    };
    const int64_t batch = prod(lt.shape(), a.lhs_batch), m = prod(lt.shape(), lfree), k = prod(lt.shape(), a.lhs_contracting),
                  n = prod(rt.shape(), rfree);
    std::vector<int64_t> lperm = a.lhs_batch, rperm = a.rhs_batch;
    lperm.insert(lperm.end(), lfree.begin(), lfree.end());
    lperm.insert(lperm.end(), a.lhs_contracting.begin(), a.lhs_contracting.end());
    rperm.insert(rperm.end(), a.rhs_contracting.begin(), a.rhs_contracting.end());
    rperm.insert(rperm.end(), rfree.begin(), rfree.end());
    // float16 / bfloat16 operands are multiplied in float32 (widened while laid out) and the
    // result rounded once, as XLA's CPU backend does.
    auto is_half = [](DType d) { return d == DType::F16 || d == DType::BF16; };
    const DType cdt = is_half(lt.dtype()) || is_half(rt.dtype()) ? DType::F32 : lt.dtype();
    auto layout_kernel = [&](const ir::ArrayType& t, const std::vector<int64_t>& perm) -> EwKernelRef {
      bool identity = true;
      for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == static_cast<int64_t>(i);
      if (identity && t.dtype() == cdt) return nullptr;
      auto in_strides = contiguous_strides(t.shape());
      codegen::ElementwiseKernel kk;
      std::vector<int64_t> strides;
      for (auto p : perm) {
        kk.shape.push_back(t.shape()[p]);
        strides.push_back(in_strides[p]);
      }
      kk.inputs = {{t.dtype(), strides, 0}};
      kk.nodes = {{EwOp::Input, t.dtype(), {}, 0}};
      if (t.dtype() != cdt) kk.nodes.push_back({EwOp::Convert, cdt, {0}});
      kk.outputs = {static_cast<int>(kk.nodes.size()) - 1};
      return kernels_.elementwise(kk);
    };
    auto lfn = layout_kernel(lt, lperm), rfn = layout_kernel(rt, rperm);
    const size_t esz = types::dtype_size(cdt);
    EwKernelRef round_fn;  // float32 product -> the result dtype
    if (ot.dtype() != cdt) {
      codegen::ElementwiseKernel kk;
      kk.shape = {batch * m * n};
      kk.inputs = {{cdt, {1}, 0}};
      kk.nodes = {{EwOp::Input, cdt, {}, 0}, {EwOp::Convert, ot.dtype(), {0}}};
      kk.outputs = {1};
      round_fn = kernels_.elementwise(kk);
    }
    Step s = make_step(op);
    s.run = [=](const StepContext& ctx, const std::vector<const void*>& in, const std::vector<void*>& out) {
      runtime::BufferRef ltmp, rtmp;
      const void* L = in[0];
      const void* R = in[1];
      if (lfn) {
        ltmp = runtime::DeviceBuffer::allocate(ctx.device, static_cast<size_t>(batch * m * k) * esz);
        const void* src[] = {in[0]};
        void* dst[] = {ltmp->data()};
        lfn(src, dst);
        L = ltmp->data();
      }
      if (rfn) {
        rtmp = runtime::DeviceBuffer::allocate(ctx.device, static_cast<size_t>(batch * k * n) * esz);
        const void* src[] = {in[1]};
        void* dst[] = {rtmp->data()};
        rfn(src, dst);
        R = rtmp->data();
      }
      if (!round_fn) return gemm_kernel(ot.dtype(), batch, m, n, k, L, R, out[0]);
      runtime::BufferRef product = runtime::DeviceBuffer::allocate(ctx.device, static_cast<size_t>(batch * m * n) * esz);
      gemm_kernel(cdt, batch, m, n, k, L, R, product->data());
      const void* src[] = {product->data()};
      void* dst[] = {out[0]};
      round_fn(src, dst);
    };
    emit(std::move(s));
  }

  // Start indices are scalar int32/int64 operands read at run time, clamped into range as
  // XLA does.
  void lower_dynamic_slice(const ir::Op& op) {
    const bool update = op.kind == OpKind::DynamicUpdateSlice;
    const auto& it = type(op.operands[0]);
    const size_t first_index = update ? 2 : 1;
    std::vector<DType> index_types;
    for (size_t i = first_index; i < op.operands.size(); ++i) index_types.push_back(type(op.operands[i]).dtype());
    Shape sizes = update ? type(op.operands[1]).shape() : op.attr<ir::attr::DynamicSlice>().slice_sizes;
    Step s = make_step(op);
    s.run = [=, shape = it.shape(), esz = types::dtype_size(it.dtype())](
                const StepContext&, const std::vector<const void*>& in, const std::vector<void*>& out) {
      std::vector<int64_t> starts;
      for (size_t d = 0; d < index_types.size(); ++d) {
        const void* p = in[first_index + d];
        int64_t v = index_types[d] == DType::I64 ? *static_cast<const int64_t*>(p) : *static_cast<const int32_t*>(p);
        starts.push_back(std::clamp<int64_t>(v, 0, shape[d] - sizes[d]));
      }
      if (!update) {
        copy_block(esz, shape, starts, sizes, in[0], out[0], false);
      } else {
        std::memcpy(out[0], in[0], static_cast<size_t>(num_elements(shape)) * esz);
        copy_block(esz, shape, starts, sizes, in[1], out[0], true);
      }
    };
    emit(std::move(s));
  }

  Executable& exe_;
  const ir::Function& fn_;
  KernelPlan& kernels_;  // the kernels the steps call (compiled later, by the JIT stage)
  std::vector<Step>* steps_;
  std::vector<int> slot_of_;
};

}  // namespace

void lower_function(Executable& exe, const ir::Function& fn, std::vector<int>& param_slots, std::vector<int>& result_slots) {
  Lowering(exe, fn).run(param_slots, result_slots);
}

}  // namespace shard::exec
