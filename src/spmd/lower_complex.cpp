#include "spmd/lower_complex.hpp"

#include <fmt/format.h>

#include <cstring>
#include <limits>
#include <stdexcept>

#include "ir/builder.hpp"

namespace shard::spmd {

namespace {

using ir::EwOp;
using ir::OpKind;
using ir::ValueId;
using types::ArrayType;
using types::DType;
using types::Shape;

bool function_has_complex(const ir::Function& f) {
  for (const auto& t : f.value_types)
    if (types::is_complex(t.dtype())) return true;
  for (const auto& op : f.ops)
    for (const auto& r : op.regions)
      if (function_has_complex(*r)) return true;
  return false;
}

// A complex type's storage as a real type: the part dtype, one more trailing dim of 2.
ArrayType storage_type(const ArrayType& t) {
  if (!types::is_complex(t.dtype())) return ArrayType(t.dtype(), t.shape());
  Shape s = t.shape();
  s.push_back(2);
  return ArrayType(types::complex_part_dtype(t.dtype()), s);
}

[[noreturn]] void unsupported(const ir::Op& op) {
  throw std::logic_error(fmt::format("internal error: `{}` on complex values reached the complex lowering (it should have been "
                                     "refused when traced)",
                                     ir::op_display_name(op)));
}

// A value of the lowered program holding a complex array's two parts, each of shape S + [1]
// (the trailing 1 keeps every part op elementwise on the same shape; `join` concatenates).
struct Parts {
  ValueId re, im;
};

class Lowering {
 public:
  explicit Lowering(const ir::Function& src) : src_(src), map_(src.value_types.size(), -1) {}

  ir::Function run() {
    out_.name = src_.name;
    for (auto p : src_.params) map_[idx(p)] = ir::Builder(out_).param(storage_type(src_.type(p)));
    for (const auto& op : src_.ops) lower_op(op);
    for (auto r : src_.results) out_.results.push_back(map_[idx(r)]);
    return std::move(out_);
  }

 private:
  static size_t idx(ValueId v) { return static_cast<size_t>(v); }
  bool complex_value(ValueId v) const { return types::is_complex(src_.type(v).dtype()); }
  ValueId in(ValueId v) const { return map_[idx(v)]; }
  // By value: emitting an op grows the value table, which would leave a reference dangling.
  Shape shape(ValueId lowered) const { return out_.type(lowered).shape(); }
  DType dtype(ValueId lowered) const { return out_.type(lowered).dtype(); }

  ValueId emit(OpKind kind, std::vector<ValueId> operands, DType dt, Shape s, ir::Attrs attrs = {}) {
    return ir::Builder(out_, loc_).op(kind, std::move(operands), ArrayType(dt, std::move(s)), std::move(attrs));
  }
  ValueId ew(EwOp op, std::vector<ValueId> operands, std::optional<DType> result = std::nullopt) {
    const Shape s = shape(operands.at(0));
    const DType dt = result ? *result : ir::ew_returns_bool(op) ? DType::Bool : dtype(operands.at(0));
    return emit(OpKind::Elementwise, std::move(operands), dt, s, ir::attr::Elementwise{op, 0});
  }
  ValueId add(ValueId a, ValueId b) { return ew(EwOp::Add, {a, b}); }
  ValueId sub(ValueId a, ValueId b) { return ew(EwOp::Sub, {a, b}); }
  ValueId mul(ValueId a, ValueId b) { return ew(EwOp::Mul, {a, b}); }
  ValueId div(ValueId a, ValueId b) { return ew(EwOp::Div, {a, b}); }
  ValueId neg(ValueId a) { return ew(EwOp::Neg, {a}); }
  ValueId select(ValueId pred, ValueId if_true, ValueId if_false) {
    // shard's select: (pred, on_true, on_false)
    return emit(OpKind::Elementwise, {pred, if_true, if_false}, dtype(if_true), shape(if_true),
                ir::attr::Elementwise{EwOp::Select, 0});
  }

  // A constant of `dt` and shape `s`: a scalar literal broadcast.
  ValueId constant(DType dt, double v, const Shape& s) {
    auto lit = std::make_shared<ir::Literal>();
    lit->bytes.resize(types::dtype_size(dt));
    if (dt == DType::F32) {
      float f = static_cast<float>(v);
      std::memcpy(lit->bytes.data(), &f, 4);
    } else if (dt == DType::F64) {
      std::memcpy(lit->bytes.data(), &v, 8);
    } else if (dt == DType::I32) {
      int32_t i = static_cast<int32_t>(v);
      std::memcpy(lit->bytes.data(), &i, 4);
    } else {
      throw std::logic_error("internal error: complex lowering constant of an unexpected dtype");
    }
    ValueId c = emit(OpKind::Constant, {}, dt, {}, ir::attr::Constant{lit});
    if (s.empty()) return c;
    return emit(OpKind::BroadcastInDim, {c}, dt, s, ir::attr::BroadcastInDim{{}});
  }
  ValueId zeros_like(ValueId v) { return constant(dtype(v), 0, shape(v)); }

  // The parts of a lowered complex value c (shape S + [2]). Narrow parts have shape S: the
  // storage read as S[:-1] + [2 S[-1]] (a free reshape) with stride 2 from 0 or 1, for ops
  // whose result is real. Wide parts have shape S + [2]: the slices [..., 0:1] and [..., 1:2]
  // broadcast back, for ops whose result is complex: every element of the result computes
  // its real and its imaginary part and `join` selects one by the last index, so the whole
  // expression stays views and elementwise ops — one fused loop that reads the operands once
  // and writes the interleaved result once (a concatenate of the two parts would end the
  // fusion and cost a pass of its own).
  Parts parts(ValueId c, bool wide) {
    const Shape s = shape(c);
    if (!wide) return {narrow_part(c, 0), narrow_part(c, 1)};
    auto slice = [&](int64_t k) {
      ir::attr::Slice a;
      a.start_indices.assign(s.size(), 0);
      a.limit_indices = s;
      a.start_indices.back() = k;
      a.limit_indices.back() = k + 1;
      Shape r = s;
      r.back() = 1;
      ValueId v = emit(OpKind::Slice, {c}, dtype(c), r, a);
      ir::attr::BroadcastInDim b;
      for (size_t d = 0; d < s.size(); ++d) b.broadcast_dimensions.push_back(static_cast<int64_t>(d));
      return emit(OpKind::BroadcastInDim, {v}, dtype(c), s, b);
    };
    return {slice(0), slice(1)};
  }
  ValueId narrow_part(ValueId c, int64_t k) {
    Shape s = shape(c);  // S + [2]
    s.pop_back();
    const DType dt = dtype(c);
    if (s.empty()) {  // a complex scalar: element k of [2]
      ir::attr::Slice a{{k}, {k + 1}, {}};
      return emit(OpKind::Reshape, {emit(OpKind::Slice, {c}, dt, {1}, a)}, dt, {});
    }
    Shape flat = s;
    flat.back() *= 2;
    ValueId f = emit(OpKind::Reshape, {c}, dt, flat);
    ir::attr::Slice a;
    a.start_indices.assign(flat.size(), 0);
    a.limit_indices = flat;
    a.strides.assign(flat.size(), 1);
    a.start_indices.back() = std::min<int64_t>(k, flat.back());
    a.strides.back() = 2;
    return emit(OpKind::Slice, {f}, dt, s, a);
  }
  static bool is_wide(const Shape& s) { return !s.empty() && s.back() == 2; }
  // The complex value of parts: wide ones by selecting on the last index, narrow ones (whose
  // producers are buffers anyway: dot products, pads) by a concatenate.
  ValueId join(Parts p) {
    Shape s = shape(p.re);
    if (is_wide(s)) {
      auto lit = std::make_shared<ir::Literal>();
      lit->bytes = {1, 0};  // true at the real part
      ValueId mask = emit(OpKind::Constant, {}, DType::Bool, {2}, ir::attr::Constant{lit});
      ValueId wide = emit(OpKind::BroadcastInDim, {mask}, DType::Bool, s,
                          ir::attr::BroadcastInDim{{static_cast<int64_t>(s.size()) - 1}});
      return select(wide, p.re, p.im);
    }
    const int64_t last = static_cast<int64_t>(s.size());
    s.push_back(2);
    return emit(OpKind::Concatenate, {add_last(p.re), add_last(p.im)}, dtype(p.re), s, ir::attr::Concatenate{last});
  }
  // S -> S + [1].
  ValueId add_last(ValueId v) {
    Shape s = shape(v);
    s.push_back(1);
    return emit(OpKind::Reshape, {v}, dtype(v), s);
  }
  // A real value x (shape S) as a part: itself (narrow), or broadcast to S + [2] (a view).
  ValueId widen(ValueId x, bool wide) {
    if (!wide) return x;
    Shape s = shape(x);
    ir::attr::BroadcastInDim b;
    for (size_t d = 0; d < s.size(); ++d) b.broadcast_dimensions.push_back(static_cast<int64_t>(d));
    s.push_back(2);
    return emit(OpKind::BroadcastInDim, {x}, dtype(x), s, b);
  }
  // A real value (shape S) as the parts of a complex one with a zero imaginary part.
  Parts from_real(ValueId x, DType part, bool wide) {
    if (dtype(x) != part) x = ew(EwOp::Convert, {x}, part);
    ValueId re = widen(x, wide);
    return {re, zeros_like(re)};
  }
  // Operand k of a source op as complex parts (a real operand is widened).
  Parts operand_parts(const ir::Op& op, size_t k, DType part, bool wide) {
    const ValueId v = op.operands.at(k);
    if (complex_value(v)) return parts(in(v), wide);
    return from_real(in(v), part, wide);
  }
  // Operand k as a lowered complex value (a real operand given a zero imaginary part).
  ValueId operand_value(const ir::Op& op, size_t k, DType part) {
    const ValueId v = op.operands.at(k);
    return complex_value(v) ? in(v) : join(from_real(in(v), part, true));
  }

  // Complex arithmetic on parts.
  Parts cmul(Parts a, Parts b) {
    return {sub(mul(a.re, b.re), mul(a.im, b.im)), add(mul(a.re, b.im), mul(a.im, b.re))};
  }
  // Smith's algorithm (as numpy): divides by the larger of |c| and |d| first, so neither
  // |c|^2 nor |d|^2 overflows.
  Parts cdiv(Parts x, Parts y) {
    const ValueId a = x.re, b = x.im, c = y.re, d = y.im;
    ValueId c_larger = ew(EwOp::Ge, {ew(EwOp::Abs, {c}), ew(EwOp::Abs, {d})});
    ValueId r1 = div(d, c), den1 = add(c, mul(d, r1));
    Parts p1{div(add(a, mul(b, r1)), den1), div(sub(b, mul(a, r1)), den1)};
    ValueId r2 = div(c, d), den2 = add(mul(c, r2), d);
    Parts p2{div(add(mul(a, r2), b), den2), div(sub(mul(b, r2), a), den2)};
    // a zero divisor: each part divided by |c| = 0 (inf or nan per part, as numpy)
    ValueId zero = zeros_like(c);
    ValueId by_zero = ew(EwOp::And, {ew(EwOp::Eq, {c, zero}), ew(EwOp::Eq, {d, zero})});
    Parts p0{div(a, zero), div(b, zero)};
    Parts r{select(c_larger, p1.re, p2.re), select(c_larger, p1.im, p2.im)};
    return {select(by_zero, p0.re, r.re), select(by_zero, p0.im, r.im)};
  }
  // |z| without overflow: max * sqrt(1 + (min / max)^2); inf if either part is.
  ValueId cabs(Parts z) {
    ValueId a = ew(EwOp::Abs, {z.re}), b = ew(EwOp::Abs, {z.im});
    ValueId hi = ew(EwOp::Max, {a, b}), lo = ew(EwOp::Min, {a, b});
    ValueId r = div(lo, hi);
    ValueId h = mul(hi, ew(EwOp::Sqrt, {add(constant(dtype(a), 1, shape(a)), mul(r, r))}));
    ValueId zero = zeros_like(a);
    h = select(ew(EwOp::Eq, {hi, zero}), zero, h);
    ValueId inf = constant(dtype(a), std::numeric_limits<double>::infinity(), shape(a));
    return select(ew(EwOp::Or, {ew(EwOp::IsInf, {a}), ew(EwOp::IsInf, {b})}), inf, h);
  }
  Parts cexp(Parts z) {
    ValueId e = ew(EwOp::Exp, {z.re});
    return {mul(e, ew(EwOp::Cos, {z.im})), mul(e, ew(EwOp::Sin, {z.im}))};
  }
  Parts clog(Parts z) { return {ew(EwOp::Log, {cabs(z)}), ew(EwOp::Atan2, {z.im, z.re})}; }
  // The principal square root: t = sqrt((|z| + |re|) / 2); for re >= 0 it is
  // (t, im / 2t), else (|im| / 2t, t with im's sign).
  Parts csqrt(Parts z) {
    ValueId zero = zeros_like(z.re);
    ValueId half = constant(dtype(z.re), 0.5, shape(z.re));
    ValueId t = ew(EwOp::Sqrt, {mul(add(cabs(z), ew(EwOp::Abs, {z.re})), half)});
    ValueId two_t = add(t, t);
    ValueId q = div(z.im, two_t);
    ValueId aq = div(ew(EwOp::Abs, {z.im}), two_t);
    ValueId signed_t = select(signbit(z.im), neg(t), t);  // sqrt(-4 - 0j) = -2j
    ValueId re_nonneg = ew(EwOp::Ge, {z.re, zero});
    ValueId is_zero = ew(EwOp::And, {ew(EwOp::Eq, {z.re, zero}), ew(EwOp::Eq, {z.im, zero})});
    Parts r{select(re_nonneg, t, aq), select(re_nonneg, q, signed_t)};
    return {select(is_zero, zero, r.re), select(is_zero, z.im, r.im)};
  }
  // The sign bit (set for -0.0 too): the bits read as a signed integer of the same width.
  ValueId signbit(ValueId x) {
    const DType as_int = dtype(x) == DType::F64 ? DType::I64 : DType::I32;
    ValueId bits = ew(EwOp::BitcastConvert, {x}, as_int);
    return ew(EwOp::Lt, {bits, constant(as_int, 0, shape(x))});
  }
  Parts csin(Parts z) {
    return {mul(ew(EwOp::Sin, {z.re}), ew(EwOp::Cosh, {z.im})), mul(ew(EwOp::Cos, {z.re}), ew(EwOp::Sinh, {z.im}))};
  }
  Parts ccos(Parts z) {
    return {mul(ew(EwOp::Cos, {z.re}), ew(EwOp::Cosh, {z.im})), neg(mul(ew(EwOp::Sin, {z.re}), ew(EwOp::Sinh, {z.im})))};
  }
  Parts csinh(Parts z) {
    return {mul(ew(EwOp::Sinh, {z.re}), ew(EwOp::Cos, {z.im})), mul(ew(EwOp::Cosh, {z.re}), ew(EwOp::Sin, {z.im}))};
  }
  Parts ccosh(Parts z) {
    return {mul(ew(EwOp::Cosh, {z.re}), ew(EwOp::Cos, {z.im})), mul(ew(EwOp::Sinh, {z.re}), ew(EwOp::Sin, {z.im}))};
  }
  // tanh(x + iy) = (sinh 2x + i sin 2y) / (cosh 2x + cos 2y); for |x| large the real part
  // is sign(x) and the imaginary part vanishes, which the quotient gets as inf/inf.
  Parts ctanh(Parts z) {
    ValueId x2 = add(z.re, z.re), y2 = add(z.im, z.im);
    ValueId den = add(ew(EwOp::Cosh, {x2}), ew(EwOp::Cos, {y2}));
    ValueId re = div(ew(EwOp::Sinh, {x2}), den), im = div(ew(EwOp::Sin, {y2}), den);
    // |x| > 20: cosh 2x overflows first; there tanh z = sign(x) + i 4 sin y cos y e^{-2|x|}
    ValueId ax = ew(EwOp::Abs, {z.re});
    ValueId big = ew(EwOp::Gt, {ax, constant(dtype(z.re), 20, shape(z.re))});
    ValueId tail = mul(mul(constant(dtype(z.re), 4, shape(z.re)), mul(ew(EwOp::Sin, {z.im}), ew(EwOp::Cos, {z.im}))),
                       ew(EwOp::Exp, {neg(add(ax, ax))}));
    return {select(big, ew(EwOp::Sign, {z.re}), re), select(big, tail, im)};
  }
  Parts ctan(Parts z) {  // tan z = -i tanh(i z)
    Parts t = ctanh({neg(z.im), z.re});
    return {t.im, neg(t.re)};
  }
  Parts cpow_int(Parts z, int64_t n) {
    if (n == 0) return {constant(dtype(z.re), 1, shape(z.re)), zeros_like(z.re)};
    const bool inverse = n < 0;
    uint64_t k = inverse ? uint64_t(-(n + 1)) + 1 : uint64_t(n);
    std::optional<Parts> acc;
    Parts base = z;
    while (k) {
      if (k & 1) acc = acc ? cmul(*acc, base) : base;
      k >>= 1;
      if (k) base = cmul(base, base);
    }
    if (!inverse) return *acc;
    return cdiv({constant(dtype(z.re), 1, shape(z.re)), zeros_like(z.re)}, *acc);
  }
  // x < y (<=, >, >=) ordering by the real parts, then the imaginary parts: numpy's order.
  ValueId lexicographic(EwOp cmp, Parts x, Parts y) {
    const EwOp strict = cmp == EwOp::Le ? EwOp::Lt : cmp == EwOp::Ge ? EwOp::Gt : cmp;
    ValueId first = ew(strict, {x.re, y.re});
    ValueId tie = ew(EwOp::And, {ew(EwOp::Eq, {x.re, y.re}), ew(cmp, {x.im, y.im})});
    return ew(EwOp::Or, {first, tie});
  }
  ValueId any_part(EwOp pred, Parts z, EwOp combine) {
    return ew(combine, {ew(pred, {z.re}), ew(pred, {z.im})});
  }

  void define(const ir::Op& op, ValueId v) { map_[idx(op.results.at(0))] = v; }
  void define(const ir::Op& op, Parts p) { define(op, join(p)); }

  void lower_elementwise(const ir::Op& op) {
    const auto& a = op.attr<ir::attr::Elementwise>();
    const DType rt = src_.type(op.results.at(0)).dtype();
    bool any_complex = types::is_complex(rt);
    for (auto v : op.operands) any_complex = any_complex || complex_value(v);
    if (!any_complex) return copy(op);
    // The part dtype of the complex operand (or result).
    DType part = types::is_complex(rt) ? types::complex_part_dtype(rt) : DType::F32;
    for (auto v : op.operands)
      if (complex_value(v)) part = types::complex_part_dtype(src_.type(v).dtype());
    // complex results compute on wide parts, real ones (abs, comparisons) on narrow parts
    const bool wide = types::is_complex(rt);
    auto arg = [&](size_t k) { return operand_parts(op, k, part, wide); };
    switch (a.op) {
      case EwOp::Add: return define(op, ew(EwOp::Add, {operand_value(op, 0, part), operand_value(op, 1, part)}));
      case EwOp::Sub: return define(op, ew(EwOp::Sub, {operand_value(op, 0, part), operand_value(op, 1, part)}));
      case EwOp::Neg: return define(op, ew(EwOp::Neg, {in(op.operands[0])}));
      case EwOp::StopGradient: return define(op, in(op.operands[0]));
      case EwOp::Mul: return define(op, cmul(arg(0), arg(1)));
      case EwOp::Div: return define(op, cdiv(arg(0), arg(1)));
      case EwOp::Square: {
        Parts z = arg(0);
        return define(op, cmul(z, z));
      }
      case EwOp::IntegerPow: return define(op, cpow_int(arg(0), a.y));
      case EwOp::Reciprocal: {
        Parts z = arg(0);
        return define(op, cdiv({constant(part, 1, shape(z.re)), zeros_like(z.re)}, z));
      }
      case EwOp::Pow: {  // exp(y log x); 0 ** y is 0 for Re(y) > 0 and 1 for y = 0 (as numpy)
        Parts x = arg(0), y = arg(1);
        Parts r = cexp(cmul(y, clog(x)));
        ValueId zero = zeros_like(x.re), one = constant(part, 1, shape(x.re));
        ValueId x_zero = ew(EwOp::And, {ew(EwOp::Eq, {x.re, zero}), ew(EwOp::Eq, {x.im, zero})});
        ValueId to_zero = ew(EwOp::And, {x_zero, ew(EwOp::Gt, {y.re, zero})});
        ValueId y_zero = ew(EwOp::And, {ew(EwOp::Eq, {y.re, zero}), ew(EwOp::Eq, {y.im, zero})});
        r = {select(to_zero, zero, r.re), select(to_zero, zero, r.im)};
        return define(op, Parts{select(y_zero, one, r.re), select(y_zero, zero, r.im)});
      }
      case EwOp::Exp: return define(op, cexp(arg(0)));
      case EwOp::Expm1: {  // numpy's: expm1(x) cos y - 2 sin^2(y / 2), e^x sin y (no cancellation near 0)
        Parts z = arg(0);
        ValueId half = mul(z.im, constant(part, 0.5, shape(z.im)));
        ValueId s = ew(EwOp::Sin, {half});
        ValueId re = sub(mul(ew(EwOp::Expm1, {z.re}), ew(EwOp::Cos, {z.im})), mul(constant(part, 2, shape(s)), mul(s, s)));
        return define(op, Parts{re, mul(ew(EwOp::Exp, {z.re}), ew(EwOp::Sin, {z.im}))});
      }
      case EwOp::Log: return define(op, clog(arg(0)));
      case EwOp::Log1p: {
        Parts z = arg(0);
        return define(op, clog({add(z.re, constant(part, 1, shape(z.re))), z.im}));
      }
      case EwOp::Sqrt: return define(op, csqrt(arg(0)));
      case EwOp::Rsqrt: {
        Parts s = csqrt(arg(0));
        return define(op, cdiv({constant(part, 1, shape(s.re)), zeros_like(s.re)}, s));
      }
      case EwOp::Sin: return define(op, csin(arg(0)));
      case EwOp::Cos: return define(op, ccos(arg(0)));
      case EwOp::Tan: return define(op, ctan(arg(0)));
      case EwOp::Sinh: return define(op, csinh(arg(0)));
      case EwOp::Cosh: return define(op, ccosh(arg(0)));
      case EwOp::Tanh: return define(op, ctanh(arg(0)));
      case EwOp::Logistic: {  // 1 / (1 + exp(-z))
        Parts z = arg(0);
        Parts e = cexp({neg(z.re), neg(z.im)});
        ValueId one = constant(part, 1, shape(z.re));
        return define(op, cdiv({one, zeros_like(one)}, {add(one, e.re), e.im}));
      }
      case EwOp::Sign: {  // z / |z|, 0 at 0
        Parts z = arg(0);
        ValueId m = cabs(z), zero = zeros_like(m);
        ValueId is_zero = ew(EwOp::Eq, {m, zero});
        ValueId safe = select(is_zero, constant(part, 1, shape(m)), m);
        return define(op, Parts{select(is_zero, zero, div(z.re, safe)), select(is_zero, zero, div(z.im, safe))});
      }
      case EwOp::Abs: return define(op, cabs(arg(0)));
      case EwOp::Real: return define(op, narrow_part(in(op.operands[0]), 0));
      case EwOp::Imag: return define(op, narrow_part(in(op.operands[0]), 1));
      case EwOp::Conj: {
        Parts z = arg(0);
        return define(op, Parts{z.re, neg(z.im)});
      }
      case EwOp::Complex: {  // two real operands
        ValueId re = in(op.operands[0]), im = in(op.operands[1]);
        if (dtype(re) != part) re = ew(EwOp::Convert, {re}, part);
        if (dtype(im) != part) im = ew(EwOp::Convert, {im}, part);
        return define(op, Parts{widen(re, true), widen(im, true)});
      }
      case EwOp::Eq: {
        Parts x = arg(0), y = arg(1);
        return define(op, ew(EwOp::And, {ew(EwOp::Eq, {x.re, y.re}), ew(EwOp::Eq, {x.im, y.im})}));
      }
      case EwOp::Ne: {
        Parts x = arg(0), y = arg(1);
        return define(op, ew(EwOp::Or, {ew(EwOp::Ne, {x.re, y.re}), ew(EwOp::Ne, {x.im, y.im})}));
      }
      case EwOp::Lt: case EwOp::Le: case EwOp::Gt: case EwOp::Ge:
        return define(op, lexicographic(a.op, arg(0), arg(1)));
      case EwOp::Max: case EwOp::Min: {  // the larger (smaller) in that order
        Parts x = arg(0), y = arg(1);
        ValueId pick_x = lexicographic(a.op == EwOp::Max ? EwOp::Ge : EwOp::Le, x, y);
        return define(op, Parts{select(pick_x, x.re, y.re), select(pick_x, x.im, y.im)});
      }
      case EwOp::IsNan: return define(op, any_part(EwOp::IsNan, arg(0), EwOp::Or));
      case EwOp::IsInf: return define(op, any_part(EwOp::IsInf, arg(0), EwOp::Or));
      case EwOp::IsFinite: return define(op, any_part(EwOp::IsFinite, arg(0), EwOp::And));
      case EwOp::Select:  // (pred, on_true, on_false): the predicate gains the trailing dim
        return define(op, select(widen(in(op.operands[0]), true), operand_value(op, 1, part), operand_value(op, 2, part)));
      case EwOp::Convert: return lower_convert(op, part);
      default: unsupported(op);
    }
  }

  void lower_convert(const ir::Op& op, DType part) {
    const ValueId x = op.operands[0];
    const DType to = src_.type(op.results[0]).dtype();
    if (types::is_complex(to)) {
      const DType to_part = types::complex_part_dtype(to);
      if (complex_value(x)) {
        ValueId v = in(x);
        return define(op, dtype(v) == to_part ? v : ew(EwOp::Convert, {v}, to_part));
      }
      return define(op, from_real(in(x), to_part, true));
    }
    Parts z = parts(in(x), false);
    if (to == DType::Bool) {
      ValueId zero = zeros_like(z.re);
      return define(op, ew(EwOp::Or, {ew(EwOp::Ne, {z.re, zero}), ew(EwOp::Ne, {z.im, zero})}));
    }
    // To a real dtype: the real part (JAX drops the imaginary part, as numpy does).
    ValueId re = z.re;
    (void)part;
    return define(op, to == dtype(re) ? re : ew(EwOp::Convert, {re}, to));
  }

  // A complex dot product: four real products of the parts.
  void lower_dot(const ir::Op& op) {
    const DType rt = src_.type(op.results[0]).dtype();
    const DType part = types::complex_part_dtype(rt);
    auto real_parts = [&](size_t k) { return operand_parts(op, k, part, false); };
    Parts a = real_parts(0), b = real_parts(1);
    const Shape rs = src_.type(op.results[0]).shape();
    auto dot = [&](ValueId x, ValueId y) { return emit(OpKind::DotGeneral, {x, y}, part, rs, op.attrs); };
    ValueId re = sub(dot(a.re, b.re), dot(a.im, b.im));
    ValueId im = add(dot(a.re, b.im), dot(a.im, b.re));
    define(op, Parts{widen(re, true), widen(im, true)});
  }

  // A sort with complex operands: each becomes its two parts, a complex key two keys (numpy's
  // order: real parts first, then imaginary parts), and the sorted parts are joined again.
  void lower_sort(const ir::Op& op) {
    auto a = op.attr<ir::attr::Sort>();
    std::vector<ValueId> operands;
    std::vector<ArrayType> types;
    int64_t keys = 0;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const ValueId v = op.operands[i];
      const bool key = static_cast<int64_t>(i) < a.num_keys;
      if (complex_value(v)) {
        Parts p = parts(in(v), false);
        operands.insert(operands.end(), {p.re, p.im});
        types.insert(types.end(), {out_.type(p.re), out_.type(p.im)});
        keys += key ? 2 : 0;
      } else {
        operands.push_back(in(v));
        types.push_back(out_.type(in(v)));
        keys += key ? 1 : 0;
      }
    }
    a.num_keys = keys;
    auto rs = ir::Builder(out_, loc_).op_multi(OpKind::Sort, operands, types, a, {});
    size_t k = 0;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      if (complex_value(op.operands[i])) {
        map_[idx(op.results[i])] = join(Parts{rs[k], rs[k + 1]});
        k += 2;
      } else {
        map_[idx(op.results[i])] = rs[k++];
      }
    }
  }

  // pad(x, v): each part padded with the part of the padding value.
  void lower_pad(const ir::Op& op) {
    const auto& a = op.attr<ir::attr::Pad>();
    Parts x = parts(in(op.operands[0]), false);
    Parts v = parts(in(op.operands[1]), false);  // scalars
    const Shape rs = src_.type(op.results[0]).shape();
    auto pad = [&](ValueId part, ValueId value) { return emit(OpKind::Pad, {part, value}, dtype(part), rs, a); };
    define(op, Parts{pad(x.re, v.re), pad(x.im, v.im)});
  }

  // Ops on complex values that only move elements or add them up: the same op with one more
  // trailing dim, whose attributes say how that dim moves (not at all).
  void lower_structural(const ir::Op& op) {
    ir::Attrs attrs = op.attrs;
    const size_t rank = src_.type(op.operands.empty() ? op.results[0] : op.operands[0]).rank();
    std::vector<ValueId> operands;
    for (auto v : op.operands) operands.push_back(in(v));
    switch (op.kind) {
      case OpKind::Constant: case OpKind::Reshape: case OpKind::Concatenate: case OpKind::Rev: case OpKind::Reshard:
      case OpKind::ShardingConstraint: case OpKind::AllGather: case OpKind::AllToAll: case OpKind::CollectivePermute:
        break;
      case OpKind::BroadcastInDim: {
        auto b = op.attr<ir::attr::BroadcastInDim>();
        b.broadcast_dimensions.push_back(static_cast<int64_t>(src_.type(op.results[0]).rank()));
        attrs = b;
        break;
      }
      case OpKind::Transpose: {
        auto t = op.attr<ir::attr::Transpose>();
        t.permutation.push_back(static_cast<int64_t>(rank));
        attrs = t;
        break;
      }
      case OpKind::Slice: {
        auto s = op.attr<ir::attr::Slice>();
        s.start_indices.push_back(0);
        s.limit_indices.push_back(2);
        if (!s.strides.empty()) s.strides.push_back(1);
        attrs = s;
        break;
      }
      case OpKind::Reduce:
        if (op.attr<ir::attr::Reduce>().kind != ir::ReduceKind::Sum) unsupported(op);
        break;
      case OpKind::Cumulative:
        if (op.attr<ir::attr::Cumulative>().kind != ir::ReduceKind::Sum) unsupported(op);
        break;
      case OpKind::AllReduce:
        if (op.attr<ir::attr::AllReduce>().kind != ir::ReduceKind::Sum) unsupported(op);
        break;
      case OpKind::ReduceScatter:
        if (op.attr<ir::attr::ReduceScatter>().kind != ir::ReduceKind::Sum) unsupported(op);
        break;
      case OpKind::DynamicSlice: {
        auto d = op.attr<ir::attr::DynamicSlice>();
        d.slice_sizes.push_back(2);
        attrs = d;
        operands.push_back(constant(DType::I32, 0, {}));
        break;
      }
      case OpKind::DynamicUpdateSlice: operands.push_back(constant(DType::I32, 0, {})); break;
      case OpKind::Fft: break;  // the kernel reads and writes the interleaved parts
      case OpKind::HostCallback: {  // the callback gets the values back as complex arrays
        auto h = op.attr<ir::attr::HostCallback>();
        for (auto v : op.operands) h.complex_operands.push_back(src_.type(v).dtype());
        attrs = h;
        break;
      }
      default: unsupported(op);
    }
    std::vector<ArrayType> results;
    for (auto r : op.results) results.push_back(storage_type(src_.type(r)));
    auto rs = ir::Builder(out_, loc_).op_multi(op.kind, operands, results, attrs, {});
    for (size_t k = 0; k < rs.size(); ++k) map_[idx(op.results[k])] = rs[k];
  }

  // Control flow: the regions lowered on their own, the op's values retyped.
  void lower_regions(const ir::Op& op) {
    std::vector<std::shared_ptr<const ir::Function>> regions;
    for (const auto& r : op.regions) {
      auto f = std::make_shared<ir::Function>(*r);
      lower_complex(*f);
      regions.push_back(std::move(f));
    }
    std::vector<ValueId> operands;
    for (auto v : op.operands) operands.push_back(in(v));
    std::vector<ArrayType> results;
    for (auto r : op.results) results.push_back(storage_type(src_.type(r)));
    auto rs = ir::Builder(out_, loc_).op_multi(op.kind, operands, results, op.attrs, std::move(regions));
    for (size_t k = 0; k < rs.size(); ++k) map_[idx(op.results[k])] = rs[k];
  }

  void copy(const ir::Op& op) {
    std::vector<ValueId> operands;
    for (auto v : op.operands) operands.push_back(in(v));
    auto rs = ir::copy_op(out_, src_, op, operands);
    for (size_t k = 0; k < rs.size(); ++k) map_[idx(op.results[k])] = rs[k];
  }

  void lower_op(const ir::Op& op) {
    loc_ = op.loc;
    bool touches_complex = false;
    for (auto v : op.operands) touches_complex = touches_complex || complex_value(v);
    for (auto v : op.results) touches_complex = touches_complex || complex_value(v);
    bool region_complex = false;
    for (const auto& r : op.regions) region_complex = region_complex || function_has_complex(*r);
    if (op.kind == OpKind::Elementwise) return lower_elementwise(op);
    if (!touches_complex && !region_complex) return copy(op);
    switch (op.kind) {
      case OpKind::DotGeneral: return lower_dot(op);
      case OpKind::Sort: return lower_sort(op);
      case OpKind::Pad: return lower_pad(op);
      case OpKind::While: case OpKind::Cond: case OpKind::Scan: return lower_regions(op);
      default: return lower_structural(op);
    }
  }

  const ir::Function& src_;
  ir::Function out_;
  std::vector<ValueId> map_;
  ast::Loc loc_;
};

}  // namespace

void lower_complex(ir::Function& f) {
  if (!function_has_complex(f)) return;
  f = Lowering(f).run();
}

}  // namespace shard::spmd
