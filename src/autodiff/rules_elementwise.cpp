// JVP and transpose rules of the elementwise primitives: one case per row of
// ir/elementwise_ops.hpp (the switch has no default, so a new row without a rule does not
// compile). Derivatives follow JAX's lax rules, including its choices at the edges: max and
// min split the tangent evenly on ties, pow's log term is 0 where the base is 0.
#include <cmath>
#include <numbers>

#include "autodiff/rules.hpp"
#include "trace/ops_special.hpp"

namespace shard::autodiff {

using ir::EwOp;

namespace {
ValueId un(Trace& t, EwOp op, ValueId x) { return trace::unary(t, ir::ew_info(op).primitive, op, x); }
ValueId bin(Trace& t, EwOp op, ValueId a, ValueId b) { return trace::binary(t, ir::ew_info(op).primitive, op, a, b); }
// d * s(), with the scale computed only for a nonzero tangent (no dead primal-side ops).
template <class F>
Tangent scale(Trace& t, const Tangent& d, F&& s) {
  return d ? Tangent(mul(t, *d, s())) : std::nullopt;
}
// 1 where x == z (0.5 when y == z too), else 0: max/min's share of the tangent.
ValueId balanced_eq(Trace& t, ValueId x, ValueId z, ValueId y) {
  ValueId one = scalar_like(t, 1, x), half = scalar_like(t, 0.5, x), zero = scalar_like(t, 0, x);
  ValueId x_hit = bin(t, EwOp::Eq, x, z);
  ValueId y_hit = bin(t, EwOp::Eq, y, z);
  return trace::where(t, x_hit, trace::where(t, y_hit, half, one), zero);
}
// d0 * s0() + d1 * s1(), the first operand's ops emitted first.
template <class F0, class F1>
Tangent add_scaled(Trace& t, const Tangent& d0, F0&& s0, const Tangent& d1, F1&& s1) {
  Tangent first = scale(t, d0, s0);
  Tangent second = scale(t, d1, s1);
  return add_tangents(t, first, second);
}
}  // namespace

JvpOut jvp_Elementwise(JvpArgs& a) {
  Trace& t = a.t;
  const auto& e = a.op.attr<ir::attr::Elementwise>();
  JvpOut out = emit_primal(a);
  const ValueId y = out.y[0];
  const ValueId x = a.x[0];
  const Tangent dx = a.dx[0];
  auto c = [&](double v) { return scalar_like(t, v, y); };
  Tangent dy;
  switch (e.op) {
    case EwOp::Input:
    case EwOp::Const: throw std::logic_error("internal error: a kernel leaf in a traced program");
    // Piecewise constant or not real-valued: zero tangents.
    case EwOp::Sign: case EwOp::Floor: case EwOp::Ceil: case EwOp::Round: case EwOp::Not: case EwOp::IsNan:
    case EwOp::IsInf: case EwOp::IsFinite: case EwOp::BitcastConvert: case EwOp::StopGradient: case EwOp::FloorDiv: case EwOp::NextAfter:
    case EwOp::And: case EwOp::Or: case EwOp::Xor: case EwOp::Eq: case EwOp::Ne: case EwOp::Lt: case EwOp::Le:
    case EwOp::Gt: case EwOp::Ge: case EwOp::ShiftLeft: case EwOp::ShiftRightLogical: case EwOp::ShiftRightArithmetic:
      break;
    case EwOp::Neg: if (dx) dy = neg(t, *dx); break;
    // Linear in the complex parts.
    case EwOp::Real: case EwOp::Imag: case EwOp::Conj: if (dx) dy = emit_like1(t, a.fn, a.op, {*dx}); break;
    case EwOp::Complex:
      if (dx || a.dx[1])
        dy = trace::make_complex(t, instantiate(t, dx, a.operand_type(0)), instantiate(t, a.dx[1], a.operand_type(1)));
      break;
    case EwOp::Abs:
      if (types::is_complex(a.operand_type(0).dtype())) {  // d|z| = Re(conj(z / |z|) dz), as JAX's _abs_jvp_rule
        if (dx) dy = trace::real(t, mul(t, trace::conj(t, un(t, EwOp::Sign, x)), *dx));
        break;
      }
      dy = scale(t, dx, [&] { return un(t, EwOp::Sign, x); });
      break;
    case EwOp::Sqrt: dy = scale(t, dx, [&] { return div(t, c(0.5), y); }); break;
    case EwOp::Rsqrt: dy = scale(t, dx, [&] { ValueId q = div(t, y, x); return mul(t, q, c(-0.5)); }); break;
    case EwOp::Cbrt: dy = scale(t, dx, [&] { ValueId k = c(1.0 / 3.0); return mul(t, k, trace::integer_pow(t, y, -2)); }); break;
    case EwOp::Exp: dy = scale(t, dx, [&] { return y; }); break;
    case EwOp::Expm1: dy = scale(t, dx, [&] { return add(t, y, c(1)); }); break;
    case EwOp::Log: if (dx) dy = div(t, *dx, x); break;
    case EwOp::Log1p: if (dx) dy = div(t, *dx, add(t, x, c(1))); break;
    case EwOp::Sin: dy = scale(t, dx, [&] { return un(t, EwOp::Cos, x); }); break;
    case EwOp::Cos: dy = scale(t, dx, [&] { return neg(t, un(t, EwOp::Sin, x)); }); break;
    case EwOp::Tan: dy = scale(t, dx, [&] { ValueId one = c(1); return add(t, one, mul(t, y, y)); }); break;
    case EwOp::Sinh: dy = scale(t, dx, [&] { return un(t, EwOp::Cosh, x); }); break;
    case EwOp::Cosh: dy = scale(t, dx, [&] { return un(t, EwOp::Sinh, x); }); break;
    case EwOp::Tanh: dy = scale(t, dx, [&] { ValueId one = c(1); return sub(t, one, mul(t, y, y)); }); break;
    case EwOp::Logistic: dy = scale(t, dx, [&] { return mul(t, y, sub(t, c(1), y)); }); break;
    case EwOp::Erf:
    case EwOp::Erfc: {
      const double k = (e.op == EwOp::Erf ? 2 : -2) / std::sqrt(std::numbers::pi);
      dy = scale(t, dx, [&] {
        ValueId kc = c(k);
        return mul(t, kc, un(t, EwOp::Exp, neg(t, mul(t, x, x))));
      });
      break;
    }
    case EwOp::ErfInv:
      dy = scale(t, dx, [&] {
        ValueId k = c(std::sqrt(std::numbers::pi) / 2);
        return mul(t, k, un(t, EwOp::Exp, mul(t, y, y)));
      });
      break;
    // lgamma' = digamma, digamma' = polygamma(1, .) (JAX's lgamma_p / digamma_p rules).
    case EwOp::Lgamma: dy = scale(t, dx, [&] { return un(t, EwOp::Digamma, x); }); break;
    case EwOp::Digamma: dy = scale(t, dx, [&] { return bin(t, EwOp::Polygamma, c(1), x); }); break;
    case EwOp::Square: dy = scale(t, dx, [&] { return mul(t, c(2), x); }); break;
    case EwOp::IntegerPow:
      if (e.y == 0 || !dx) break;
      if (e.y == 1) dy = *dx;
      else {
        ValueId n = c(static_cast<double>(e.y));
        ValueId power = e.y == 2 ? x : trace::integer_pow(t, x, e.y - 1);
        dy = mul(t, *dx, mul(t, n, power));
      }
      break;
    case EwOp::Reciprocal: dy = scale(t, dx, [&] { return neg(t, mul(t, y, y)); }); break;
    case EwOp::Convert:
      if (dx && is_differentiable(a.result_type())) dy = emit_like1(t, a.fn, a.op, {*dx});
      break;
    case EwOp::Add: dy = add_tangents(t, dx, a.dx[1]); break;
    case EwOp::Sub: dy = a.dx[1] ? add_tangents(t, dx, neg(t, *a.dx[1])) : dx; break;
    case EwOp::Mul: dy = add_scaled(t, dx, [&] { return a.x[1]; }, a.dx[1], [&] { return x; }); break;
    case EwOp::Div: {
      Tangent d0 = dx ? Tangent(div(t, *dx, a.x[1])) : std::nullopt;
      dy = add_tangents(t, d0, scale(t, a.dx[1], [&] { return neg(t, div(t, y, a.x[1])); }));
      break;
    }
    case EwOp::Rem:
    case EwOp::Mod: {
      // x - y * q with q = trunc(x / y) (rem) or floor(x / y) (remainder).
      dy = add_tangents(t, dx, scale(t, a.dx[1], [&] {
                          ValueId q = bin(t, EwOp::Div, x, a.x[1]);
                          if (e.op == EwOp::Mod) {
                            q = un(t, EwOp::Floor, q);
                          } else {
                            ValueId sign = un(t, EwOp::Sign, q);
                            q = mul(t, sign, un(t, EwOp::Floor, un(t, EwOp::Abs, q)));
                          }
                          return neg(t, q);
                        }));
      break;
    }
    case EwOp::Pow: {
      const ValueId b = a.x[1];
      Tangent d0, d1;
      if (dx) d0 = mul(t, *dx, mul(t, b, bin(t, EwOp::Pow, x, sub(t, b, c(1)))));
      if (a.dx[1]) {
        ValueId at_zero = bin(t, EwOp::Eq, x, c(0));
        ValueId safe = trace::where(t, at_zero, c(1), x);
        d1 = mul(t, *a.dx[1], mul(t, un(t, EwOp::Log, safe), y));
      }
      dy = add_tangents(t, d0, d1);
      break;
    }
    case EwOp::Max:
    case EwOp::Min:
      dy = add_scaled(t, dx, [&] { return balanced_eq(t, x, y, a.x[1]); }, a.dx[1], [&] { return balanced_eq(t, a.x[1], y, x); });
      break;
    case EwOp::Atan2: {
      ValueId xx = mul(t, x, x);
      ValueId r2 = add(t, xx, mul(t, a.x[1], a.x[1]));
      dy = add_scaled(t, dx, [&] { return div(t, a.x[1], r2); }, a.dx[1], [&] { return neg(t, div(t, x, r2)); });
      break;
    }
    case EwOp::LogAddExp:
      dy = add_scaled(t, dx, [&] { return un(t, EwOp::Exp, sub(t, x, y)); }, a.dx[1], [&] { return un(t, EwOp::Exp, sub(t, a.x[1], y)); });
      break;
    case EwOp::Polygamma:  // d/dx polygamma(m, x) = polygamma(m + 1, x); m has none (JAX raises)
      if (dx) throw types::ShardingError("ValueError", "polygamma gradient with respect to m is not supported");
      dy = scale(t, a.dx[1], [&] { return bin(t, EwOp::Polygamma, add(t, x, c(1)), a.x[1]); });
      break;
    // The special functions: JAX's lax rules (lax/special.py) and jax.scipy.special's custom JVPs.
    case EwOp::BesselI0e:  // i0e' = i1e - sign(x) i0e
      dy = scale(t, dx, [&] { ValueId i1e = un(t, EwOp::BesselI1e, x); return sub(t, i1e, mul(t, un(t, EwOp::Sign, x), y)); });
      break;
    case EwOp::BesselI1e:  // i1e' = i0e - i1e (sign(x) + 1/x), 1/2 at |x| <= eps
      dy = scale(t, dx, [&] {
        const types::DType dt = a.result_type().dtype();  // finfo(dt).eps
        const double eps = dt == types::DType::F64 ? 0x1p-52 : dt == types::DType::F16 ? 0x1p-10 : dt == types::DType::BF16 ? 0x1p-7 : 0x1p-23;
        ValueId tiny = c(eps);
        ValueId big = bin(t, EwOp::Gt, un(t, EwOp::Abs, x), tiny);
        ValueId safe = trace::where(t, big, x, tiny);
        ValueId i0e = un(t, EwOp::BesselI0e, safe);
        ValueId k = add(t, un(t, EwOp::Sign, safe), un(t, EwOp::Reciprocal, safe));
        ValueId d = sub(t, i0e, mul(t, y, k));
        return trace::where(t, big, d, c(0.5));
      });
      break;
    case EwOp::Erfcx:  // 2 x erfcx(x) - 2 / sqrt(pi)
      dy = scale(t, dx, [&] { ValueId two_x = mul(t, c(2), x); return sub(t, mul(t, two_x, y), c(2 / std::sqrt(std::numbers::pi))); });
      break;
    case EwOp::Expi: dy = scale(t, dx, [&] { return div(t, un(t, EwOp::Exp, x), x); }); break;
    case EwOp::Igamma:
    case EwOp::Igammac: {  // d/da: igamma_grad_a; d/dx: x^(a-1) e^-x / Gamma(a); igammac's negated
      const ValueId av = x, xv = a.x[1];
      dy = add_scaled(t, dx, [&] { return bin(t, EwOp::IgammaGradA, av, xv); }, a.dx[1], [&] {
        ValueId am1 = sub(t, av, c(1));
        ValueId expo = sub(t, mul(t, am1, un(t, EwOp::Log, xv)), xv);
        return un(t, EwOp::Exp, sub(t, expo, un(t, EwOp::Lgamma, av)));
      });
      if (dy && e.op == EwOp::Igammac) dy = neg(t, *dy);
      break;
    }
    case EwOp::IgammaGradA:
      if (dx || a.dx[1]) throw types::ShardingError("NotImplementedError", "Differentiation rule for 'igamma_grad_a' not implemented");
      break;
    case EwOp::Zeta:  // d/dq zeta(x, q) = -x zeta(x + 1, q); d/dx by JAX's series expansion (jss.zeta's JVP)
      dy = add_scaled(t, dx, [&] { return trace::zeta_dx(t, x, a.x[1]); }, a.dx[1], [&] {
        ValueId x1 = add(t, x, c(1));
        return neg(t, mul(t, x, bin(t, EwOp::Zeta, x1, a.x[1])));
      });
      break;
    case EwOp::Expn:  // d/dx expn(n, x) = -expn(n - 1, x); n is not differentiable (JAX's nondiff_argnums)
      if (dx) throw types::ShardingError("ValueError", "expn gradient with respect to n is not supported");
      dy = scale(t, a.dx[1], [&] { ValueId n1 = sub(t, x, c(1)); return neg(t, bin(t, EwOp::Expn, n1, a.x[1])); });
      break;
    case EwOp::RegularizedIncompleteBeta:  // x only: x^(a-1) (1-x)^(b-1) / B(a, b)
      if (dx || a.dx[1]) throw types::ShardingError("ValueError", "Betainc gradient with respect to a and b not supported.");
      dy = scale(t, a.dx[2], [&] {
        const ValueId av = x, bv = a.x[1], xv = a.x[2];
        ValueId la = un(t, EwOp::Lgamma, av);
        ValueId lb = un(t, EwOp::Lgamma, bv);
        ValueId lab = un(t, EwOp::Lgamma, add(t, av, bv));
        ValueId lbeta = sub(t, add(t, la, lb), lab);
        ValueId bm1 = sub(t, bv, c(1));
        ValueId t1 = mul(t, bm1, un(t, EwOp::Log1p, neg(t, xv)));
        ValueId am1 = sub(t, av, c(1));
        ValueId t2 = mul(t, am1, un(t, EwOp::Log, xv));
        return un(t, EwOp::Exp, sub(t, add(t, t1, t2), lbeta));
      });
      break;
    case EwOp::Select:
      if (a.dx[1] || a.dx[2])
        dy = emit_like1(t, a.fn, a.op, {x, instantiate(t, a.dx[1], a.operand_type(1)), instantiate(t, a.dx[2], a.operand_type(2))});
      break;
    case EwOp::Clamp: {
      // clamp (x, lo, hi) as codegen orders it: the tangent of whichever operand the result is.
      const ValueId v = a.x[0], lo = a.x[1], hi = a.x[2];
      ValueId zero = zeros(t, a.result_type());
      auto pick = [&](const Tangent& d, ValueId pred) -> Tangent {
        if (!d) return std::nullopt;
        return trace::where(t, pred, *d, zero);
      };
      ValueId above_lo = bin(t, EwOp::Gt, v, lo);
      ValueId below_hi = bin(t, EwOp::Lt, v, hi);
      dy = pick(a.dx[0], bin(t, EwOp::And, above_lo, below_hi));
      dy = add_tangents(t, dy, pick(a.dx[1], bin(t, EwOp::Gt, lo, v)));
      dy = add_tangents(t, dy, pick(a.dx[2], bin(t, EwOp::Lt, hi, v)));
      break;
    }
  }
  out.dy[0] = dy;
  return out;
}

// The elementwise ops tangents flow through linearly.
std::vector<Tangent> transpose_Elementwise(TransposeArgs& a) {
  Trace& t = a.t;
  const auto& e = a.op.attr<ir::attr::Elementwise>();
  const ValueId ct = a.ct_value();
  std::vector<Tangent> out(a.op.operands.size());
  auto on = [&](size_t i, ValueId v) {
    if (a.linear[i]) out[i] = v;
  };
  switch (e.op) {
    case EwOp::Neg: on(0, neg(t, ct)); break;
    // Complex parts: JAX's transposes (lax.py's real_p, imag_p, complex_p, conj_p).
    case EwOp::Real: on(0, trace::make_complex(t, ct, zeros(t, t.type(ct)))); break;
    case EwOp::Imag: on(0, trace::make_complex(t, zeros(t, t.type(ct)), neg(t, ct))); break;
    case EwOp::Complex: on(0, trace::real(t, ct)); on(1, trace::imag(t, neg(t, ct))); break;
    case EwOp::Conj: on(0, trace::conj(t, ct)); break;
    case EwOp::Add: on(0, ct); on(1, ct); break;
    case EwOp::Sub: on(0, ct); if (a.linear[1]) on(1, neg(t, ct)); break;
    case EwOp::Mul:
      if (a.linear[0] && a.linear[1]) throw std::logic_error("internal error: a product of two tangents");
      if (a.linear[0]) on(0, mul(t, ct, a.x[1]));
      else on(1, mul(t, a.x[0], ct));
      break;
    case EwOp::Div:
      if (a.linear[1]) throw std::logic_error("internal error: a tangent as a divisor");
      on(0, div(t, ct, a.x[1]));
      break;
    case EwOp::Convert: {
      const ArrayType to = a.operand_type(0);
      if (!is_differentiable(to)) break;
      if (t.type(ct) == to) { on(0, ct); break; }
      on(0, t.type(ct).dtype() == to.dtype() ? trace::retype(t, ct, to) : trace::convert(t, ct, {to.dtype(), to.weak_type()}));
      break;
    }
    case EwOp::Select: {
      ValueId zero = zeros(t, a.result_type());
      if (a.linear[1]) on(1, trace::where(t, a.x[0], ct, zero));
      if (a.linear[2]) on(2, trace::where(t, a.x[0], zero, ct));
      break;
    }
    default:
      throw std::logic_error(std::string("internal error: no transpose for ") + ir::ew_info(e.op).primitive);
  }
  return out;
}

}  // namespace shard::autodiff
