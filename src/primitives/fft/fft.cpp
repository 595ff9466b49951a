#include "primitives/fft/fft.hpp"

#include <fmt/format.h>

#include <cstring>

#include "autodiff/rules.hpp"
#include "batching/rules.hpp"
#include "sharding/common.hpp"
#include "trace/ops.hpp"
#include "types/x64_mode.hpp"

namespace shard::trace {

using ir::attr::FftType;

namespace {

std::string lengths_tuple(const std::vector<int64_t>& v) { return types::py_int_tuple(v); }

ArrayType fft_result(Trace& t, const ArrayType& x, DType dtype, Shape shape) {
  const auto ctx = t.ctx("fft");
  auto plan = sharding::plan_output(ctx, {x});
  // JAX's abstract eval: NotImplementedError for unreduced or reduced operands.
  if (!x.spec().unreduced().empty() || !x.spec().reduced().empty())
    throw types::ShardingError("NotImplementedError", "fft of an array with unreduced or reduced axes is not supported (as in JAX)");
  types::PartitionSpec spec;
  if (plan.rule_runs) spec = types::PartitionSpec(sharding::spec_entries(x));
  return sharding::make_result(ctx, {x}, dtype, std::move(shape), plan.mesh, spec, plan.vma, false);
}

}  // namespace

ValueId fft(Trace& t, ValueId x, FftType type, const std::vector<int64_t>& lengths) {
  const DType in = t.type(x).dtype();
  if (type == FftType::Rfft) {
    if (types::is_complex(in)) throw types::ShardingError("ValueError", "only real valued inputs supported for rfft");
    x = convert(t, x, to_inexact({in, false}));
  } else {
    // a complex operand keeps its dtype (numpy.fft passes complex128 on the host)
    const DType c = types::is_complex(in) ? in : canonicalize_device(types::complex_of(types::is_float(in) ? in : types::default_float_dtype()));
    x = convert(t, x, {c, false});
  }
  if (lengths.empty()) return x;
  const ArrayType xt = t.type(x);
  const Shape& s = xt.shape();
  const size_t k = lengths.size();
  if (k > s.size())
    throw types::ShardingError("ValueError", fmt::format("FFT input shape {} must have at least as many input dimensions as "
                                                         "fft_lengths {}.", types::py_int_tuple(s), lengths_tuple(lengths)));
  for (auto n : lengths)
    if (n < 0) throw types::ShardingError("ValueError", fmt::format("fft_lengths must be non-negative, got {}", lengths_tuple(lengths)));
  const Shape minor(s.end() - static_cast<std::ptrdiff_t>(k), s.end());
  Shape out = s;
  DType dtype = xt.dtype();
  switch (type) {
    case FftType::Rfft:
      if (xt.dtype() != DType::F32 && xt.dtype() != DType::F64)
        throw types::ShardingError("ValueError", fmt::format("RFFT input must be float32 or float64, got {}", types::dtype_name(xt.dtype())));
      if (minor != lengths)
        throw types::ShardingError("ValueError", fmt::format("RFFT input shape {} minor dimensions must be equal to fft_lengths {}",
                                                             types::py_int_tuple(s), lengths_tuple(lengths)));
      out.back() = lengths.back() / 2 + 1;
      dtype = types::complex_of(xt.dtype());
      break;
    case FftType::Irfft: {
      const Shape head(minor.begin(), minor.end() - 1), want(lengths.begin(), lengths.end() - 1);
      if (head != want)
        throw types::ShardingError("ValueError", fmt::format("IRFFT input shape {} minor dimensions must be equal to all except the "
                                                             "last fft_length, got fft_lengths={}",
                                                             types::py_int_tuple(s), lengths_tuple(lengths)));
      // XLA's shape check (JAX's abstract eval leaves it to XLA): the last dim holds the
      // n // 2 + 1 non-negative frequencies
      if (minor.back() != lengths.back() / 2 + 1)
        throw types::ShardingError("ValueError", fmt::format("IRFFT input shape {} minor dimensions must end with fft_lengths[-1] // 2 + 1 = "
                                                             "{}, got fft_lengths={}", types::py_int_tuple(s), lengths.back() / 2 + 1,
                                                             lengths_tuple(lengths)));
      out.back() = lengths.back();
      dtype = types::complex_part_dtype(xt.dtype());
      break;
    }
    default:
      if (minor != lengths)
        throw types::ShardingError("ValueError", fmt::format("FFT input shape {} minor dimensions must be equal to fft_lengths {}",
                                                             types::py_int_tuple(s), lengths_tuple(lengths)));
  }
  auto rt = fft_result(t, xt, dtype, out);
  return t.emit(ir::OpKind::Fft, {x}, rt, ir::attr::Fft{type, lengths});
}

}  // namespace shard::trace

namespace shard::autodiff {

using ir::attr::FftType;
using types::DType;
using types::Shape;

JvpOut jvp_Fft(JvpArgs& a) { return jvp_linear_unary(a); }

namespace {
// The mask of JAX's rfft / irfft transposes along the last dim of `m` entries: 1 for the DC
// term and (for an even length n) the Nyquist term, 2 for the terms RFFT folds two of.
ValueId hermitian_mask(Trace& t, int64_t m, int64_t n, DType dtype, size_t rank) {
  std::vector<double> w(static_cast<size_t>(m), 2.0);
  w[0] = 1;
  if (n % 2 == 0) w.back() = 1;
  std::vector<uint8_t> bytes;
  const size_t es = types::dtype_size(dtype);
  bytes.resize(static_cast<size_t>(m) * es, 0);
  for (size_t i = 0; i < w.size(); ++i) {
    if (types::complex_part_dtype(dtype) == DType::F64) {
      std::memcpy(bytes.data() + i * es, &w[i], 8);
    } else {
      const float f = static_cast<float>(w[i]);
      std::memcpy(bytes.data() + i * es, &f, 4);
    }
  }
  ValueId mask = trace::constant(t, dtype, {m}, bytes.data());
  Shape s(rank, 1);
  s.back() = m;
  return trace::reshape(t, mask, s);
}
int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (auto x : v) p *= x;
  return p;
}
}  // namespace

std::vector<Tangent> transpose_Fft(TransposeArgs& a) {
  Trace& t = a.t;
  const auto& p = a.op.attr<ir::attr::Fft>();
  std::vector<Tangent> out(1);
  if (!a.ct[0]) return out;
  const ValueId ct = *a.ct[0];
  const size_t rank = t.type(ct).rank();
  const double n_total = static_cast<double>(product(p.fft_lengths));
  switch (p.fft_type) {
    case FftType::Rfft: {  // N * irfft(conj(ct) / mask)
      const DType cd = t.type(ct).dtype();
      ValueId mask = hermitian_mask(t, t.type(ct).shape().back(), p.fft_lengths.back(), cd, rank);
      ValueId x = trace::binary(t, "div", ir::EwOp::Div, trace::conj(t, ct), mask);
      ValueId r = trace::fft(t, x, FftType::Irfft, p.fft_lengths);
      out[0] = trace::binary(t, "mul", ir::EwOp::Mul, r, trace::scalar_constant(t, n_total, {t.type(r).dtype(), true}));
      break;
    }
    case FftType::Irfft: {  // conj(mask * rfft(ct) / N)
      ValueId x = trace::fft(t, ct, FftType::Rfft, p.fft_lengths);
      const DType cd = t.type(x).dtype();
      ValueId mask = hermitian_mask(t, t.type(x).shape().back(), p.fft_lengths.back(), cd, rank);
      ValueId scaled = trace::binary(t, "mul", ir::EwOp::Mul, mask, x);
      scaled = trace::binary(t, "mul", ir::EwOp::Mul, scaled, trace::scalar_constant(t, 1.0 / n_total, {types::complex_part_dtype(cd), true}));
      out[0] = trace::conj(t, scaled);
      break;
    }
    default: out[0] = trace::fft(t, ct, p.fft_type, p.fft_lengths); break;
  }
  return out;
}

}  // namespace shard::autodiff

namespace shard::batching {

// The transformed dims are the trailing ones, so a leading batch dim changes nothing.
std::vector<Batched> batch_Fft(BatchArgs& a) {
  const auto& p = a.op.attr<ir::attr::Fft>();
  return {batched(trace::fft(a.t, a.full(0), p.fft_type, p.fft_lengths))};
}

}  // namespace shard::batching
