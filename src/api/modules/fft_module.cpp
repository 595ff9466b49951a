// jax.numpy.fft: the sample-frequency and shift helpers (fftfreq, rfftfreq, fftshift,
// ifftshift). The transforms themselves (fft, ifft, rfft, irfft, fft2, ...) produce or read
// complex arrays, and shard has no complex dtypes yet: calling one says so.
#include <fmt/format.h>

#include "api/modules/fft_module.hpp"
#include "api/modules/jnp_module.hpp"

namespace shard::api {

using interp::ArgParser;

namespace {

// The frequencies of jnp.fft.fftfreq / rfftfreq: k / (d * n) for k in `ks`.
Value frequencies(Interp& I, CallArgs& a, const char* name, bool real) {
  ArgParser p(I, a, name, {"n", "d=", "*", "dtype=", "device="});
  const int64_t n = int_arg(I, p.get("n"), "n");
  if (n <= 0) I.raise("ValueError", fmt::format("n should be a positive integer, got {}", n));
  const double d = is_none(p.get("d")) ? 1.0 : float_arg(I, p.get("d"), "d");
  const DType dtype = storage_dtype(dtype_arg(I, p.get("dtype")).value_or(DType::F32), false);
  if (!types::is_float(dtype)) I.raise("ValueError", fmt::format("dtype must be a floating-point type, got {}", types::dtype_name(dtype)));
  const auto out = out_sharding_arg(I, p.get("device"));
  return apply(I, name, {}, [&](Trace& t, const std::vector<ValueId>&) {
    const DTypeW dt{dtype, false};
    ValueId k;
    if (real) {
      k = trace::arange(t, 0, static_cast<double>(n / 2 + 1), 1, dt, out);
    } else {
      // 0, 1, ..., (n - 1) / 2, then -(n / 2), ..., -1: numpy's order of the FFT's bins.
      ValueId pos = trace::arange(t, 0, static_cast<double>((n - 1) / 2 + 1), 1, dt, out);
      ValueId neg = trace::arange(t, -static_cast<double>(n / 2), 0, 1, dt, out);
      k = trace::concatenate(t, {pos, neg}, 0);
    }
    ValueId scale = trace::scalar_constant(t, 1.0 / (d * static_cast<double>(n)), {dtype, true});
    return std::vector<ValueId>{trace::binary(t, "mul", ir::EwOp::Mul, k, scale)};
  });
}

// fftshift moves the zero-frequency bin to the middle (a roll by n / 2 along each axis);
// ifftshift undoes it (a roll by -(n / 2)).
Value shift(Interp& I, CallArgs& a, const char* name, bool inverse) {
  ArgParser p(I, a, name, {"x", "axes="});
  auto axes = axes_arg(I, p.get("axes"));
  return apply(I, name, {p.get("x")}, [&](Trace& t, const std::vector<ValueId>& ids) {
    ValueId x = ids[0];
    const auto xt = t.type(x);
    std::vector<int64_t> dims;
    if (axes) dims = *axes;
    else
      for (size_t d = 0; d < xt.rank(); ++d) dims.push_back(static_cast<int64_t>(d));
    for (auto d : dims) {
      const int64_t ax = trace::normalize_axis(name, d, xt.rank());
      const int64_t n = xt.shape()[static_cast<size_t>(ax)];
      x = roll_axis(t, x, inverse ? -(n / 2) : n / 2, ax);
    }
    return std::vector<ValueId>{x};
  });
}

}  // namespace

void register_jnp_fft_module() {
  Interp::register_builtin_module("jax.numpy.fft", [](Interp&, ModuleObj& m) {
    def_jnp(m, "fftfreq", [](Interp& I, CallArgs& a) { return frequencies(I, a, "fftfreq", false); });
    def_jnp(m, "rfftfreq", [](Interp& I, CallArgs& a) { return frequencies(I, a, "rfftfreq", true); });
    def_jnp(m, "fftshift", [](Interp& I, CallArgs& a) { return shift(I, a, "fftshift", false); });
    def_jnp(m, "ifftshift", [](Interp& I, CallArgs& a) { return shift(I, a, "ifftshift", true); });
    for (const char* name : {"fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn",
                             "hfft", "ihfft"}) {
      def_jnp(m, name, [name](Interp& I, CallArgs&) -> Value {
        I.raise("NotImplementedError",
                fmt::format("jnp.fft.{} works on complex arrays, and shard has no complex dtypes (complex64) yet", name));
      });
    }
  });
}

}  // namespace shard::api
