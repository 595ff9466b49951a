// Batching of the elementwise primitives: the batch is a leading dim, so an unbatched
// operand broadcasts against a batched one by numpy's trailing alignment; each primitive is
// applied again through its trace:: entry point (a case per row of ir/elementwise_ops.hpp).
#include "batching/rules.hpp"
#include "trace/ops_random.hpp"
#include "trace/ops_special.hpp"

namespace shard::batching {

using ir::EwOp;

std::vector<Batched> batch_Elementwise(BatchArgs& a) {
  Trace& t = a.t;
  const auto& e = a.op.attr<ir::attr::Elementwise>();
  const ArrayType rt = a.result_type();
  auto x = [&](size_t i) { return a.x.at(i).value; };
  const char* name = ir::ew_info(e.op).primitive;
  ValueId r = -1;
  switch (e.op) {
    case EwOp::Input:
    case EwOp::Const: throw std::logic_error("internal error: a kernel leaf in a traced program");
    case EwOp::Convert: {
      const ArrayType in = t.type(x(0));
      if (in.dtype() != rt.dtype()) {
        r = trace::convert(t, x(0), {rt.dtype(), rt.weak_type()});
      } else {  // a retype (weak type, mesh cast): the batched result type
        const ArrayType to = rt.with_shape(with_batch(a.size, rt.shape()), batch_spec(batch_entry(t, x(0)), rt));
        r = in == to ? x(0) : trace::retype(t, x(0), to);
      }
      break;
    }
    case EwOp::BitcastConvert: r = trace::bitcast_convert(t, x(0), rt.dtype()); break;
    case EwOp::IntegerPow: r = trace::integer_pow(t, x(0), e.y); break;
    case EwOp::StopGradient: r = trace::stop_gradient(t, x(0)); break;
    case EwOp::Select: r = trace::where(t, x(0), x(1), x(2)); break;
    case EwOp::Clamp: r = trace::clip(t, x(0), x(1), x(2)); break;  // (x, lo, hi)
    case EwOp::RegularizedIncompleteBeta: r = trace::betainc(t, x(0), x(1), x(2)); break;
    case EwOp::ShiftLeft:
    case EwOp::ShiftRightLogical:
    case EwOp::ShiftRightArithmetic: r = trace::shift(t, name, e.op, x(0), x(1)); break;
    default:
      r = ir::ew_info(e.op).arity == 1 ? trace::unary(t, name, e.op, x(0)) : trace::binary(t, name, e.op, x(0), x(1));
  }
  return {batched(r)};
}

}  // namespace shard::batching
