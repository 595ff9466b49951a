// Complex numbers at the jnp / lax level. The primitives real, imag, conj and complex are
// rows of the elementwise table; like every op on complex values they are rewritten into
// real ops on the parts before codegen (spmd/lower_complex.hpp).
#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "trace/ops.hpp"

namespace shard::trace {

using ir::OpKind;

void reject_complex(const std::string& op, DType d) {
  if (types::is_complex(d))
    throw types::ShardingError("NotImplementedError",
                               fmt::format("{} of complex values ({}) is not supported by shard yet", op, types::dtype_name(d)));
}

ValueId complex_constant(Trace& t, double re, double im, DTypeW dtype) {
  uint8_t buf[16] = {};
  if (dtype.dtype == DType::C128) {
    std::memcpy(buf, &re, 8);
    std::memcpy(buf + 8, &im, 8);
  } else {
    const float r = static_cast<float>(re), i = static_cast<float>(im);
    std::memcpy(buf, &r, 4);
    std::memcpy(buf + 4, &i, 4);
  }
  return constant(t, dtype.dtype, {}, buf, dtype.weak);
}

namespace {
ValueId part_op(Trace& t, const char* name, EwOp op, ValueId x, DType result) {
  const auto& xt = t.type(x);
  auto rt = sharding::propagate_unary(t.ctx(name), xt, result).with_weak_type(xt.weak_type());
  return t.emit(OpKind::Elementwise, {x}, rt, ir::attr::Elementwise{op, 0});
}
}  // namespace

ValueId make_complex(Trace& t, ValueId re, ValueId im) {
  const auto& rt = t.type(re);
  const auto& it = t.type(im);
  for (const auto* x : {&rt, &it})
    if (!types::is_float(x->dtype()) || x->dtype() == DType::F16 || x->dtype() == DType::BF16)
      throw types::ShardingError("TypeError", fmt::format("complex does not accept dtype {}. Accepted dtypes are subtypes of "
                                                          "float32, float64.", types::dtype_name(x->dtype())));
  if (rt.dtype() != it.dtype())
    throw types::ShardingError("TypeError", fmt::format("lax.complex requires arguments to have the same dtypes, got {}, {}.",
                                                        types::dtype_name(rt.dtype()), types::dtype_name(it.dtype())));
  auto type = sharding::propagate_elementwise(t.ctx("complex"), {rt, it}, types::complex_of(rt.dtype()))
                  .with_weak_type(rt.weak_type() && it.weak_type());
  ValueId a = broadcast_to(t, re, type.shape());
  ValueId b = broadcast_to(t, im, type.shape());
  return t.emit(OpKind::Elementwise, {a, b}, type, ir::attr::Elementwise{EwOp::Complex, 0});
}

ValueId real(Trace& t, ValueId x) {
  const DType d = t.type(x).dtype();
  if (!types::is_complex(d)) return x;
  return part_op(t, "real", EwOp::Real, x, types::complex_part_dtype(d));
}

ValueId imag(Trace& t, ValueId x) {
  const auto& xt = t.type(x);
  if (!types::is_complex(xt.dtype())) return full_like(t, "imag", x, 0, {xt.dtype(), xt.weak_type()}, std::nullopt, std::nullopt);
  return part_op(t, "imag", EwOp::Imag, x, types::complex_part_dtype(xt.dtype()));
}

ValueId conj(Trace& t, ValueId x) {
  const DType d = t.type(x).dtype();
  if (!types::is_complex(d)) return x;
  return part_op(t, "conj", EwOp::Conj, x, d);
}

ValueId complex_inverse(Trace& t, const std::string& name, ValueId z) {
  const DTypeW dt{t.type(z).dtype(), t.type(z).weak_type()};
  auto c = [&](double re, double im) { return complex_constant(t, re, im, {dt.dtype, true}); };
  auto add = [&](ValueId a, ValueId b) { return binary(t, "add", EwOp::Add, a, b); };
  auto sub = [&](ValueId a, ValueId b) { return binary(t, "sub", EwOp::Sub, a, b); };
  auto mul = [&](ValueId a, ValueId b) { return binary(t, "mul", EwOp::Mul, a, b); };
  auto un = [&](EwOp op, ValueId a) { return unary(t, ir::ew_info(op).primitive, op, a); };
  auto asinh = [&](ValueId w) { return un(EwOp::Log, add(w, un(EwOp::Sqrt, add(mul(w, w), c(1, 0))))); };
  auto atanh = [&](ValueId w) { return mul(c(0.5, 0), sub(un(EwOp::Log1p, w), un(EwOp::Log1p, un(EwOp::Neg, w)))); };
  if (name == "arcsinh") return asinh(z);
  if (name == "arctanh") return atanh(z);
  if (name == "arccosh") return un(EwOp::Log, add(z, mul(un(EwOp::Sqrt, add(z, c(1, 0))), un(EwOp::Sqrt, sub(z, c(1, 0))))));
  // multiplying by i exactly (i (x + iy) = -y + ix, signed zeros kept, which puts the branch
  // cuts where C99 and numpy put them)
  auto times_i = [&](ValueId w) { return make_complex(t, un(EwOp::Neg, imag(t, w)), real(t, w)); };
  auto times_minus_i = [&](ValueId w) { return make_complex(t, imag(t, w), un(EwOp::Neg, real(t, w))); };
  if (name == "arcsin") return times_minus_i(asinh(times_i(z)));  // -i asinh(i z)
  if (name == "arccos") return sub(c(M_PI / 2, 0), times_minus_i(asinh(times_i(z))));
  if (name == "arctan") return times_minus_i(atanh(times_i(z)));  // -i atanh(i z)
  throw std::logic_error("internal error: complex_inverse of " + name);
}

ValueId angle(Trace& t, ValueId x, bool deg) {
  const auto& xt = t.type(x);
  ValueId re = real(t, x), im = imag(t, x);
  if (!types::is_inexact(xt.dtype())) {
    re = convert(t, re, to_inexact({xt.dtype(), xt.weak_type()}));
    im = convert(t, im, to_inexact({xt.dtype(), xt.weak_type()}));
  }
  ValueId a = binary(t, "angle", EwOp::Atan2, im, re);
  if (!deg) return a;
  return binary(t, "angle", EwOp::Mul, a, scalar_constant(t, 180.0 / M_PI, {t.type(a).dtype(), true}));
}

}  // namespace shard::trace
