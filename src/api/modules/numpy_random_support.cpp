// Shared pieces of numpy.random's Generator and RandomState (see numpy_random_support.hpp).
#include "api/modules/numpy_random_support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_set>

#include "api/device_count.hpp"

namespace shard::api::np::rnd {

namespace bi = interp::bi;

namespace {
const uint8_t kNoBytes = 0;  // the data of an empty result
}

std::vector<uint32_t> seed_sequence_entropy(Interp& I, const Value& seed) {
  if (!seed || seed->kind == ObjKind::None) return bitgen::os_entropy();
  std::vector<Value> parts;
  if (seed->kind == ObjKind::List || seed->kind == ObjKind::Tuple) parts = I.to_vector(seed);
  else parts = {seed};
  std::vector<uint32_t> words;
  for (auto& p : parts) {
    auto v = bi::try_index(I, p);
    if (!v) I.raise("TypeError", fmt::format("SeedSequence expects int or sequence of ints for entropy not {}", I.repr(p)));
    if (*v < 0) I.raise("ValueError", "expected non-negative integer");
    const uint64_t u = static_cast<uint64_t>(*v);
    // numpy splits each int into 32-bit words, low word first, without high zero words.
    words.push_back(static_cast<uint32_t>(u));
    if (u >> 32) words.push_back(static_cast<uint32_t>(u >> 32));
  }
  if (words.empty()) words.push_back(0);
  return words;
}

std::optional<Shape> size_arg(Interp& I, const Value& v) {
  if (!v || v->kind == ObjKind::None) return std::nullopt;
  return shape_arg(I, v);
}

DType float_dtype_arg(Interp& I, const Value& v, const char* method) {
  auto d = dtype_arg(I, v).value_or(DType::F64);
  if (d != DType::F64 && d != DType::F32)
    I.raise("TypeError", fmt::format("Unsupported dtype dtype('{}') for {} (float64 and float32 are)", types::dtype_name(d), method));
  return d;
}

Broadcast broadcast_shapes(const std::vector<Shape>& shapes) {
  // numpy's PyArray_Broadcast: dimension by dimension (right-aligned), remembering which
  // argument set each one, so a conflict names the same two arguments numpy names.
  Broadcast b;
  size_t rank = 0;
  for (auto& s : shapes) rank = std::max(rank, s.size());
  b.shape.assign(rank, 1);
  for (size_t d = 0; d < rank; ++d) {
    int source = -1;
    for (size_t k = 0; k < shapes.size(); ++k) {
      const int64_t offset = static_cast<int64_t>(d) + static_cast<int64_t>(shapes[k].size()) - static_cast<int64_t>(rank);
      if (offset < 0) continue;
      const int64_t n = shapes[k][static_cast<size_t>(offset)];
      if (n == 1) continue;
      if (b.shape[d] == 1) {
        b.shape[d] = n;
        source = static_cast<int>(k);
      } else if (b.shape[d] != n) {
        b.conflict_a = source;
        b.conflict_b = static_cast<int>(k);
        return b;
      }
    }
  }
  return b;
}

Param param_arg(Interp& I, const Value& v, double dflt, const char* name, Check check) {
  Param p;
  if (!v) {
    p.values = {dflt};
  } else if (as_array(v) || v->kind == ObjKind::List || v->kind == ObjKind::Tuple) {
    auto arr = host_array(I, v, DType::F64);
    p.shape = arr->type.shape();
    p.values.resize(static_cast<size_t>(arr->type.num_elements()));
    auto bytes = exec::array_to_host(*arr);
    if (!p.values.empty()) std::memcpy(p.values.data(), bytes.data(), p.values.size() * 8);
  } else {
    p.values = {number_arg(I, v, name)};
  }
  // numpy's constraints: -0.0 counts as negative, NaN passes both.
  for (double x : p.values) {
    if (check == Check::NonNegative && std::signbit(x) && !std::isnan(x)) I.raise("ValueError", fmt::format("{} < 0", name));
    if (check == Check::Positive && x <= 0) I.raise("ValueError", fmt::format("{} <= 0", name));
  }
  return p;
}

Value param_draws(Interp& I, const std::vector<Param>& params, const Value& size_v, const std::function<double(const double*)>& draw,
                  DType dt) {
  const auto size = size_arg(I, size_v);
  std::vector<double> cur(params.size());
  bool scalars = true;
  for (auto& p : params) scalars = scalars && p.shape.empty();
  if (scalars) {
    for (size_t k = 0; k < params.size(); ++k) cur[k] = params[k].values[0];
    return float_result(I, size, dt, [&] { return draw(cur.data()); });
  }
  // np.broadcast(out, *params) (or of the params alone without size=), with its errors.
  std::vector<Shape> shapes;
  if (size) shapes.push_back(*size);
  for (auto& p : params) shapes.push_back(p.shape);
  const Broadcast b = broadcast_shapes(shapes);
  if (b.conflict_b >= 0)
    I.raise("ValueError", fmt::format("shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg {} with "
                                      "shape {} and arg {} with shape {}.",
                                      b.conflict_a, types::py_int_tuple(shapes[static_cast<size_t>(b.conflict_a)]), b.conflict_b,
                                      types::py_int_tuple(shapes[static_cast<size_t>(b.conflict_b)])));
  const Shape out = size.value_or(b.shape);
  if (b.shape != out)
    I.raise("ValueError", fmt::format("Output size {} is not compatible with broadcast dimensions of inputs {}.", types::py_int_tuple(out),
                                      types::py_int_tuple(b.shape)));
  // Element strides of each parameter over the output's dimensions (0 where broadcast).
  const size_t rank = out.size();
  std::vector<std::vector<int64_t>> strides(params.size(), std::vector<int64_t>(rank, 0));
  for (size_t k = 0; k < params.size(); ++k) {
    const Shape& s = params[k].shape;
    int64_t stride = 1;
    for (size_t j = s.size(); j-- > 0;) {
      if (s[j] != 1) strides[k][rank - s.size() + j] = stride;
      stride *= s[j];
    }
  }
  std::vector<int64_t> coord(rank, 0), offset(params.size(), 0);
  const int64_t n = types::shape_product(out);
  std::vector<double> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < params.size(); ++k) cur[k] = params[k].values[static_cast<size_t>(offset[k])];
    values[static_cast<size_t>(i)] = draw(cur.data());
    for (size_t d = rank; d-- > 0;) {  // next C-order coordinate
      for (size_t k = 0; k < params.size(); ++k) offset[k] += strides[k][d];
      if (++coord[d] < out[d]) break;
      for (size_t k = 0; k < params.size(); ++k) offset[k] -= strides[k][d] * out[d];
      coord[d] = 0;
    }
  }
  if (dt == DType::F32) {
    std::vector<float> narrow(values.begin(), values.end());
    return host_result(I, n ? static_cast<const void*>(narrow.data()) : &kNoBytes, dt, out);
  }
  return host_result(I, n ? static_cast<const void*>(values.data()) : &kNoBytes, dt, out);
}

Value drawn_into(Interp& I, const Value& out, const Value& size, DType dt, const std::function<Value(const Value&)>& draw) {
  if (!out || out->kind == ObjKind::None) return draw(size);
  auto* oa = as_array(out);
  if (!oa || !oa->host) I.raise("TypeError", fmt::format("out must be a numpy array, not '{}'", I.type_name(out)));
  if (oa->array->type.dtype() != dt)
    I.raise("TypeError", fmt::format("Supplied output array has the wrong type. Expected {}, got {}", types::dtype_name(dt),
                                     types::dtype_name(oa->array->type.dtype())));
  const Shape shape = oa->array->type.shape();
  if (auto s = size_arg(I, size); s && *s != shape) I.raise("ValueError", "size must match out.shape when used together");
  std::vector<Value> dims;
  for (auto d : shape) dims.push_back(interp::make_int(d));
  Value drawn = draw(interp::make_tuple(std::move(dims)));
  oa->array = as_array(drawn)->array;
  return out;
}

Param uniform_range(Interp& I, const Param& low, const Param& high, const char* overflow, bool nonneg) {
  if (broadcast_shapes({high.shape, low.shape}).conflict_b >= 0)  // numpy computes np.subtract(high, low)
    I.raise("ValueError", fmt::format("operands could not be broadcast together with shapes {} {} ", types::py_int_tuple(high.shape),
                                      types::py_int_tuple(low.shape)));
  Value diff = param_draws(I, {low, high}, nullptr, [](const double* p) { return p[1] - p[0]; });
  Param range = param_arg(I, diff, 0.0, "high - low", Check::None);
  for (double x : range.values)
    if (!std::isfinite(x)) I.raise("OverflowError", overflow);
  if (nonneg)
    for (double x : range.values)
      if (std::signbit(x)) I.raise("ValueError", "high - low < 0");
  return range;
}

Value host_result(Interp& I, const void* bytes, DType dt, const Shape& shape) {
  ensure_device_runtime();
  types::ArrayType t(dt, shape);
  return wrap(guarded(I, [&] {
                return exec::array_from_host(bytes, t, types::NamedSharding(exec::single_device_mesh(), types::PartitionSpec()), true);
              }),
              true);
}

Value float_result(Interp& I, const std::optional<Shape>& size, DType dt, const std::function<double()>& draw) {
  if (!size) return interp::make_float(draw());
  const int64_t n = types::shape_product(*size);
  std::vector<uint8_t> bytes(static_cast<size_t>(n) * types::dtype_size(dt));
  for (int64_t i = 0; i < n; ++i) {
    const double x = draw();
    if (dt == DType::F32) {
      const float f = static_cast<float>(x);
      std::memcpy(bytes.data() + i * 4, &f, 4);
    } else {
      std::memcpy(bytes.data() + i * 8, &x, 8);
    }
  }
  return host_result(I, bytes.data(), dt, *size);
}

namespace {

Value int64_result(Interp& I, const std::vector<int64_t>& v, const Shape& shape) { return host_result(I, v.data(), DType::I64, shape); }

}  // namespace

Value integers(Interp& I, Bits& g, const Value& low_v, const Value& high_v, const Value& size_v, const Value& dtype_v,
               bool endpoint, bool masked) {
  int64_t low = bi::index_of(I, low_v, ""), high = 0;
  if (!high_v || high_v->kind == ObjKind::None) {
    high = low;
    low = 0;
  } else {
    high = bi::index_of(I, high_v, "");
  }
  const DType dt = dtype_arg(I, dtype_v).value_or(DType::I64);
  if (dt != DType::I64 && dt != DType::I32 && dt != DType::Bool)
    I.raise("TypeError", fmt::format("Unsupported dtype dtype('{}') for randint: use int64, int32 or bool", types::dtype_name(dt)));
  auto size = size_arg(I, size_v);
  if (size && types::shape_product(*size) == 0) return host_result(I, &kNoBytes, dt, *size);
  if (!endpoint) {
    // numpy checks [low, high - 1]; high - 1 cannot overflow for high > INT64_MIN.
    if (high == std::numeric_limits<int64_t>::min()) I.raise("ValueError", "low >= high");
    high -= 1;
  }
  const std::string_view name = types::dtype_name(dt);
  const int64_t lo_bound = dt == DType::I32 ? INT32_MIN : dt == DType::Bool ? 0 : INT64_MIN;
  const int64_t hi_bound = dt == DType::I32 ? INT32_MAX : dt == DType::Bool ? 1 : INT64_MAX;
  if (low < lo_bound) I.raise("ValueError", fmt::format("low is out of bounds for {}", name));
  if (high > hi_bound) I.raise("ValueError", fmt::format("high is out of bounds for {}", name));
  if (low > high)  // numpy's wording names the one-argument case (low = 0) by its bound
    I.raise("ValueError", low == 0 ? fmt::format("high {} 0", endpoint ? "<" : "<=") : fmt::format("low {} high", endpoint ? ">" : ">="));
  const uint64_t rng = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  const int64_t n = size ? types::shape_product(*size) : 1;
  std::vector<int64_t> out(static_cast<size_t>(n));
  if (dt == DType::Bool) {
    bitgen::BitBuffer<Bits> bits{g};
    for (auto& x : out) x = rng == 0 ? low : bits.next();
  } else {
    for (auto& x : out)
      x = static_cast<int64_t>(static_cast<uint64_t>(low) + (masked ? bitgen::bounded_masked(g, rng) : bitgen::bounded_lemire(g, rng)));
  }
  if (!size) return dt == DType::Bool ? interp::make_bool(out[0] != 0) : interp::make_int(out[0]);
  if (dt == DType::I64) return int64_result(I, out, *size);
  std::vector<uint8_t> bytes(static_cast<size_t>(n) * types::dtype_size(dt));
  for (int64_t i = 0; i < n; ++i) {
    if (dt == DType::I32) {
      const int32_t y = static_cast<int32_t>(out[i]);
      std::memcpy(bytes.data() + i * 4, &y, 4);
    } else {
      bytes[static_cast<size_t>(i)] = out[i] != 0;
    }
  }
  return host_result(I, bytes.data(), dt, *size);
}

}  // namespace shard::api::np::rnd
