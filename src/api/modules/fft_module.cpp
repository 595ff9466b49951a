// jax.numpy.fft: the transforms (fft, ifft, rfft, irfft, their 2-D and N-D forms, hfft,
// ihfft) as JAX's numpy/fft.py composes them from lax.fft (primitives/fft/): the axes moved
// last, the input cropped or zero-padded to `s`, one lax.fft over all the axes, the norm
// applied, the axes moved back. Plus the sample-frequency and shift helpers.
#include <fmt/format.h>

#include <cmath>
#include <numeric>
#include <set>

#include "api/modules/fft_module.hpp"
#include "api/modules/jnp_module.hpp"
#include "api/modules/numpy_internal.hpp"
#include "primitives/fft/fft.hpp"

namespace shard::api {

using interp::ArgParser;

namespace {

// jax.numpy.fft runs on device arrays (numpy arrays given to it are moved there, as jnp
// does); numpy.fft keeps numpy arrays (and lists) on the host.
Value run_fft(Interp& I, const std::string& name, const Value& x, bool host, const std::function<ValueId(Trace&, ValueId)>& body) {
  if (!host)
    return apply(I, name, {x}, [&](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{body(t, ids[0])}; });
  auto h = np::host_array(I, x);
  return np::result(np::run1(I, name, {h}, [&](Trace& t, const std::vector<ValueId>& ids) { return std::vector<ValueId>{body(t, ids[0])}; }));
}

// The frequencies of jnp.fft.fftfreq / rfftfreq: k / (d * n) for k in `ks`.
Value frequencies(Interp& I, CallArgs& a, const char* name, bool real, bool host) {
  ArgParser p(I, a, name, host ? std::vector<std::string>{"n", "d="} : std::vector<std::string>{"n", "d=", "*", "dtype=", "device="});
  const int64_t n = int_arg(I, p.get("n"), "n");
  if (n <= 0) I.raise("ValueError", fmt::format("n should be a positive integer, got {}", n));
  const double d = is_none(p.get("d")) ? 1.0 : float_arg(I, p.get("d"), "d");
  // numpy.fft's frequencies are float64; jnp's float32 unless dtype= says otherwise
  const DType dtype = host ? DType::F64 : storage_dtype(dtype_arg(I, p.get("dtype")).value_or(DType::F32), false);
  if (!types::is_float(dtype)) I.raise("ValueError", fmt::format("dtype must be a floating-point type, got {}", types::dtype_name(dtype)));
  if (host) {  // numpy: k * (1 / (n * d)) in float64, on the host
    std::vector<Value> items;
    const double val = 1.0 / (static_cast<double>(n) * d);
    const int64_t count = real ? n / 2 + 1 : n;
    for (int64_t i = 0; i < count; ++i) {
      const int64_t k = real || i <= (n - 1) / 2 ? i : i - n;
      items.push_back(interp::make_float(static_cast<double>(k) * val));
    }
    return wrap(host_array_from_python(I, interp::make_list(std::move(items)), DType::F64), true);
  }
  const auto out = out_sharding_arg(I, p.get("device"));
  auto r = apply(I, name, {}, [&](Trace& t, const std::vector<ValueId>&) {
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
  return r;
}

// fftshift moves the zero-frequency bin to the middle (a roll by n / 2 along each axis);
// ifftshift undoes it (a roll by -(n / 2)).
Value shift(Interp& I, CallArgs& a, const char* name, bool inverse, bool host) {
  ArgParser p(I, a, name, {"x", "axes="});
  auto axes = axes_arg(I, p.get("axes"));
  return run_fft(I, name, p.get("x"), host, [&](Trace& t, ValueId x) {
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
    return x;
  });
}

using ir::attr::FftType;

// numpy.moveaxis: the axes `from` put at positions `to` (both normalised).
ValueId move_axes(Trace& t, ValueId x, const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
  const int64_t rank = static_cast<int64_t>(t.type(x).rank());
  std::vector<int64_t> order;
  for (int64_t d = 0; d < rank; ++d)
    if (std::find(from.begin(), from.end(), d) == from.end()) order.push_back(d);
  std::vector<std::pair<int64_t, int64_t>> moves;
  for (size_t i = 0; i < from.size(); ++i) moves.emplace_back(to[i], from[i]);
  std::sort(moves.begin(), moves.end());
  for (auto [dst, src] : moves) order.insert(order.begin() + dst, src);
  bool identity = true;
  for (int64_t d = 0; d < rank; ++d) identity = identity && order[static_cast<size_t>(d)] == d;
  return identity ? x : trace::transpose(t, x, order);
}

struct FftCall {
  std::string name;  // numpy's name: fft, rfft2, ifftn, hfft, ...
  FftType type;
  std::optional<std::vector<int64_t>> s, axes;
  std::string norm;  // "" for None
  std::string axes_repr;  // the axes as given, for messages
  bool host = false;  // numpy.fft: computed in float64 / complex128 whatever the input, as numpy's pocketfft
};

// JAX's _fft_core.
ValueId fft_core(Trace& t, const FftCall& c, ValueId x) {
  const std::string full_name = (c.host ? "numpy.fft." : "jax.numpy.fft.") + c.name;
  if (c.s)
    for (auto v : *c.s)
      if (v <= 0)
        throw types::ShardingError("ValueError", c.host ? fmt::format("Invalid number of FFT data points ({}) specified.", v)
                                                        : std::string("Shape should be positive."));
  if (c.s && c.axes && c.s->size() != c.axes->size())
    throw types::ShardingError("ValueError", "Shape and axes have different lengths.");
  const int64_t rank = static_cast<int64_t>(t.type(x).rank());
  std::vector<int64_t> axes;
  if (c.axes) {
    for (auto a : *c.axes) axes.push_back(trace::normalize_axis(c.name, a, static_cast<size_t>(rank)));
  } else {
    const int64_t k = c.s ? static_cast<int64_t>(c.s->size()) : rank;
    if (k > rank)
      throw types::ShardingError("ValueError", fmt::format("{} got s of length {} for an array of rank {}", full_name, k, rank));
    for (int64_t d = rank - k; d < rank; ++d) axes.push_back(d);
  }
  if (std::set<int64_t>(axes.begin(), axes.end()).size() != axes.size())
    throw types::ShardingError("ValueError", fmt::format("{} does not support repeated axes. Got axes {}.", full_name, c.axes_repr));
  std::vector<int64_t> last(axes.size());
  std::iota(last.begin(), last.end(), rank - static_cast<int64_t>(axes.size()));
  if (c.axes) x = move_axes(t, x, axes, last);
  std::vector<int64_t> lengths;
  Shape shape = t.type(x).shape();
  if (c.s) {
    Shape in_s = shape;
    for (size_t i = 0; i < last.size(); ++i) in_s[static_cast<size_t>(last[i])] = (*c.s)[i];
    if (c.type == FftType::Irfft && !in_s.empty()) in_s.back() = in_s.back() / 2 + 1;
    // crop, then zero-pad
    Shape start(shape.size(), 0), limit(shape.size()), strides(shape.size(), 1), low(shape.size(), 0), high(shape.size(), 0);
    bool crop = false, grow = false;
    for (size_t d = 0; d < shape.size(); ++d) {
      limit[d] = std::min(shape[d], in_s[d]);
      crop = crop || limit[d] != shape[d];
      high[d] = in_s[d] - limit[d];
      grow = grow || high[d] != 0;
    }
    if (crop) x = trace::slice(t, x, start, limit, strides);
    if (grow) {
      const auto xt = t.type(x);
      ValueId zero = trace::scalar_constant(t, 0, {xt.dtype(), false});
      x = trace::pad(t, x, zero, low, high);
    }
    lengths = *c.s;
  } else if (c.type == FftType::Irfft) {
    for (size_t i = 0; i + 1 < last.size(); ++i) lengths.push_back(shape[static_cast<size_t>(last[i])]);
    if (!last.empty()) lengths.push_back(std::max<int64_t>(0, 2 * (shape[static_cast<size_t>(last.back())] - 1)));
  } else {
    for (auto d : last) lengths.push_back(shape[static_cast<size_t>(d)]);
  }
  if (c.host) {
    const DType d = t.type(x).dtype();
    const DType to = c.type == FftType::Rfft ? DType::F64 : DType::C128;
    if (c.type == FftType::Rfft && types::is_complex(d)) throw types::ShardingError("TypeError", "ufunc 'rfft' not supported for complex input");
    if (d != to) x = trace::convert(t, x, {to, false});
  }
  if (c.host)  // numpy refuses an empty transform axis too
    for (auto n : lengths)
      if (n < 1) throw types::ShardingError("ValueError", fmt::format("Invalid number of FFT data points ({}) specified.", n));
  ValueId y = trace::fft(t, x, c.type, lengths);
  if (!c.norm.empty() && c.norm != "backward") {
    const double n = std::accumulate(lengths.begin(), lengths.end(), 1.0, [](double a, int64_t b) { return a * double(b); });
    const bool inverse = c.name[0] == 'i';
    const double scale = c.norm == "ortho" ? (inverse ? std::sqrt(n) : 1 / std::sqrt(n)) : (inverse ? n : 1 / n);
    const DType dt = t.type(y).dtype();
    y = trace::binary(t, "mul", ir::EwOp::Mul, y, trace::scalar_constant(t, scale, {types::is_complex(dt) ? types::complex_part_dtype(dt) : dt, true}));
  }
  if (c.axes) y = move_axes(t, y, last, axes);
  return y;
}

// The norm= argument, checked as JAX's _fft_norm does.
std::string norm_arg(Interp& I, const Value& v) {
  if (is_none(v)) return "";
  if (v->kind != interp::ObjKind::Str)
    I.raise("ValueError", fmt::format("Invalid norm value {}; should be \"backward\",\"ortho\" or \"forward\".", I.str(v)));
  const std::string n = static_cast<interp::StrObj&>(*v).v;
  if (n != "backward" && n != "ortho" && n != "forward")
    I.raise("ValueError", fmt::format("Invalid norm value {}; should be \"backward\",\"ortho\" or \"forward\".", n));
  return n;
}

// The 1-D transforms: (a, n=None, axis=-1, norm=None).
Value transform_1d(Interp& I, CallArgs& a, const std::string& name, FftType type, bool host) {
  ArgParser p(I, a, name, {"a", "n=", "axis=", "norm="});
  FftCall c{name, type, std::nullopt, std::nullopt, norm_arg(I, p.get("norm")), "", host};
  const Value axis = p.get("axis");
  if (axis && (axis->kind == interp::ObjKind::List || axis->kind == interp::ObjKind::Tuple))
    I.raise("ValueError", fmt::format("jax.numpy.fft.{} does not support multiple axes. Please use jax.numpy.fft.{}n. Got axis = {}.",
                                      name, name, I.repr(axis)));
  const int64_t ax = is_none(axis) ? -1 : int_arg(I, axis, "axis");
  c.axes = std::vector<int64_t>{ax};
  c.axes_repr = fmt::format("[{}]", ax);
  if (!is_none(p.get("n"))) c.s = std::vector<int64_t>{int_arg(I, p.get("n"), "n")};
  const bool hermitian = name == "hfft" || name == "ihfft";
  std::optional<int64_t> n;
  if (c.s) n = (*c.s)[0];
  return run_fft(I, name, p.get("a"), host, [&](Trace& t, ValueId x) {
    if (!hermitian) return fft_core(t, c, x);
    const auto xt = t.type(x);
    const int64_t d = trace::normalize_axis(name, ax, xt.rank());
    if (name == "hfft") {  // irfft of the conjugate, times n
      ValueId cx = trace::conj(t, x);
      const int64_t nn = n ? *n : (xt.shape()[static_cast<size_t>(d)] - 1) * 2;
      ValueId y = fft_core(t, c, cx);
      return trace::binary(t, "mul", ir::EwOp::Mul, y, trace::scalar_constant(t, double(nn), {t.type(y).dtype(), true}));
    }
    const int64_t nn = n ? *n : xt.shape()[static_cast<size_t>(d)];  // ihfft: conj(rfft) / n
    ValueId y = trace::conj(t, fft_core(t, c, x));
    const DType dt = t.type(y).dtype();
    return trace::binary(t, "mul", ir::EwOp::Mul, y, trace::scalar_constant(t, 1.0 / double(nn), {types::complex_part_dtype(dt), true}));
  });
}

// The 2-D and N-D transforms: (a, s=None, axes=(-2, -1) or None, norm=None).
Value transform_nd(Interp& I, CallArgs& a, const std::string& name, FftType type, bool two_d, bool host) {
  ArgParser p(I, a, name, {"a", "s=", "axes=", "norm="});
  FftCall c{name, type, std::nullopt, std::nullopt, norm_arg(I, p.get("norm")), "", host};
  const Value axes = p.get("axes");
  if (!is_none(axes)) {
    c.axes = axes_arg(I, axes);
    c.axes_repr = I.repr(axes);
  } else if (two_d) {
    c.axes = std::vector<int64_t>{-2, -1};
    c.axes_repr = "(-2, -1)";
  }
  if (two_d && !host && c.axes->size() != 2)  // numpy's fft2 is fftn with other default axes
    I.raise("ValueError", fmt::format("jax.numpy.fft.{} only supports 2 axes. Got axes = {}.", name, c.axes_repr));
  if (!is_none(p.get("s"))) c.s = shape_arg(I, p.get("s"), name);
  return run_fft(I, name, p.get("a"), host, [&](Trace& t, ValueId x) { return fft_core(t, c, x); });
}

}  // namespace

namespace {

// jnp's functions move numpy arguments to the device; numpy's keep them.
void define(ModuleObj& m, const std::string& name, bool host, interp::NativeFn fn) {
  if (host) np::add(m, name, std::move(fn));
  else def_jnp(m, name, std::move(fn));
}

// The transforms, in jax.numpy.fft (device arrays, JAX's dtypes) or numpy.fft (`host`).
void add_transforms(ModuleObj& m, bool host) {
  const std::pair<const char*, FftType> kinds[] = {
      {"fft", FftType::Fft}, {"ifft", FftType::Ifft}, {"rfft", FftType::Rfft}, {"irfft", FftType::Irfft}};
  for (auto [base, type] : kinds) {
    const std::string b = base;
    define(m, b, host, [b, type, host](Interp& I, CallArgs& a) { return transform_1d(I, a, b, type, host); });
    define(m, b + "2", host, [b, type, host](Interp& I, CallArgs& a) { return transform_nd(I, a, b + "2", type, true, host); });
    define(m, b + "n", host, [b, type, host](Interp& I, CallArgs& a) { return transform_nd(I, a, b + "n", type, false, host); });
  }
  define(m, "hfft", host, [host](Interp& I, CallArgs& a) { return transform_1d(I, a, "hfft", FftType::Irfft, host); });
  define(m, "ihfft", host, [host](Interp& I, CallArgs& a) { return transform_1d(I, a, "ihfft", FftType::Rfft, host); });
}

}  // namespace

void register_jnp_fft_module() {
  Interp::register_builtin_module("jax.numpy.fft", [](Interp&, ModuleObj& m) {
    def_jnp(m, "fftfreq", [](Interp& I, CallArgs& a) { return frequencies(I, a, "fftfreq", false, false); });
    def_jnp(m, "rfftfreq", [](Interp& I, CallArgs& a) { return frequencies(I, a, "rfftfreq", true, false); });
    def_jnp(m, "fftshift", [](Interp& I, CallArgs& a) { return shift(I, a, "fftshift", false, false); });
    def_jnp(m, "ifftshift", [](Interp& I, CallArgs& a) { return shift(I, a, "ifftshift", true, false); });
    add_transforms(m, false);
  });
  Interp::register_builtin_module("numpy.fft", [](Interp&, ModuleObj& m) {
    np::add(m, "fftfreq", [](Interp& I, CallArgs& a) { return frequencies(I, a, "fftfreq", false, true); });
    np::add(m, "rfftfreq", [](Interp& I, CallArgs& a) { return frequencies(I, a, "rfftfreq", true, true); });
    np::add(m, "fftshift", [](Interp& I, CallArgs& a) { return shift(I, a, "fftshift", false, true); });
    np::add(m, "ifftshift", [](Interp& I, CallArgs& a) { return shift(I, a, "ifftshift", true, true); });
    add_transforms(m, true);
  });
}

void add_lax_fft(ModuleObj& m) {
  def_jnp(m, "fft", [](Interp& I, CallArgs& a) {
    ArgParser p(I, a, "fft", {"x", "fft_type", "fft_lengths"});
    const Value ty = p.get("fft_type");
    if (!ty || ty->kind != interp::ObjKind::Str) I.raise("TypeError", fmt::format("Unknown FFT type value '{}'", I.str(ty)));
    const std::string s = static_cast<interp::StrObj&>(*ty).v;
    FftType type;
    if (s == "fft" || s == "FFT") type = FftType::Fft;
    else if (s == "ifft" || s == "IFFT") type = FftType::Ifft;
    else if (s == "rfft" || s == "RFFT") type = FftType::Rfft;
    else if (s == "irfft" || s == "IRFFT") type = FftType::Irfft;
    else I.raise("ValueError", fmt::format("Unknown FFT type '{}'", s));
    const Shape lengths = shape_arg(I, p.get("fft_lengths"), "fft");
    return apply(I, "fft", {p.get("x")}, [&](Trace& t, const std::vector<ValueId>& ids) {
      return std::vector<ValueId>{trace::fft(t, ids[0], type, lengths)};
    });
  });
}

}  // namespace shard::api
