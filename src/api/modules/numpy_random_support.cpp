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

// An int argument (population size, arange length) rather than array-like data.
std::optional<int64_t> int_arg(Interp& I, const Value& v) {
  if (auto* a = as_array(v); a && a->array->type.rank() > 0) return std::nullopt;
  if (v->kind == ObjKind::List || v->kind == ObjKind::Tuple) return std::nullopt;
  return bi::try_index(I, v);
}

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

std::vector<int64_t> permuted_range(Bits& g, int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(std::max<int64_t>(n, 0)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(i);
  for (int64_t i = n - 1; i >= 1; --i) std::swap(v[i], v[bitgen::bounded_masked(g, static_cast<uint64_t>(i))]);
  return v;
}

namespace {

// The rows (slices along axis 0) of a host array, as bytes.
struct Rows {
  std::vector<uint8_t> bytes;
  DType dtype;
  Shape shape;
  size_t row_bytes = 0;
  int64_t count() const { return shape.empty() ? 0 : shape[0]; }
};

Rows rows_of(const exec::ArrayRef& a) {
  Rows r{exec::array_to_host(*a), a->type.dtype(), a->type.shape()};
  size_t per = types::dtype_size(r.dtype);
  for (size_t d = 1; d < r.shape.size(); ++d) per *= static_cast<size_t>(r.shape[d]);
  r.row_bytes = per;
  return r;
}

// Rows `idx` of `src` stacked into an array of shape idx_shape + src.shape[1:].
Value take_rows(Interp& I, const Rows& src, const std::vector<int64_t>& idx, Shape idx_shape) {
  std::vector<uint8_t> out(idx.size() * src.row_bytes);
  for (size_t i = 0; i < idx.size(); ++i)
    std::memcpy(out.data() + i * src.row_bytes, src.bytes.data() + static_cast<size_t>(idx[i]) * src.row_bytes, src.row_bytes);
  for (size_t d = 1; d < src.shape.size(); ++d) idx_shape.push_back(src.shape[d]);
  return host_result(I, out.data(), src.dtype, idx_shape);
}

// One element (a numpy scalar, printed as numpy does) or row.
Value take_one(Interp& I, const Rows& src, int64_t i) {
  Value row = take_rows(I, src, {i}, {});
  return result(as_array(row)->array);
}

}  // namespace

void shuffle(Interp& I, Bits& g, const Value& x) {
  if (x && x->kind == ObjKind::List) {
    auto& items = static_cast<interp::ListObj&>(*x).items;
    for (int64_t i = static_cast<int64_t>(items.size()) - 1; i >= 1; --i)
      std::swap(items[i], items[bitgen::bounded_masked(g, static_cast<uint64_t>(i))]);
    return;
  }
  auto* xa = as_array(x);
  if (!xa || !xa->host)
    I.raise("TypeError", fmt::format("shuffle needs a list or a numpy array to permute in place, not '{}' (JAX arrays are "
                                     "immutable: use permutation, which returns a new array)",
                                     I.type_name(x)));
  if (xa->array->type.rank() == 0) I.raise("TypeError", "len() of unsized object");
  Rows r = rows_of(xa->array);
  auto order = permuted_range(g, r.count());
  Value shuffled = take_rows(I, r, order, {r.count()});
  xa->array = as_array(shuffled)->array;
}

Value permutation(Interp& I, Bits& g, const Value& x) {
  if (auto n = int_arg(I, x)) {
    check_size(I, {*n});
    return int64_result(I, permuted_range(g, *n), {std::max<int64_t>(*n, 0)});
  }
  auto arr = host_array(I, x);
  if (arr->type.rank() == 0) I.raise("IndexError", "x must be an integer or at least 1-dimensional");
  Rows r = rows_of(arr);
  return take_rows(I, r, permuted_range(g, r.count()), {r.count()});
}

namespace {

// numpy's kahan_sum over p.
double kahan_sum(const std::vector<double>& p) {
  if (p.empty()) return 0;
  double sum = p[0], c = 0;
  for (size_t i = 1; i < p.size(); ++i) {
    const double y = p[i] - c, t = sum + y;
    c = (t - sum) - y;
    sum = t;
  }
  return sum;
}

// Indices drawn by inverting the normalised cumulative sum of p at uniforms in [0, 1).
std::vector<int64_t> sample_cdf(Bits& g, const std::vector<double>& p, int64_t n) {
  if (n == 0) return {};
  std::vector<double> cdf(p.size());
  double run = 0;
  for (size_t i = 0; i < p.size(); ++i) cdf[i] = run += p[i];
  const double total = cdf.back();
  for (auto& c : cdf) c /= total;
  std::vector<int64_t> idx(static_cast<size_t>(n));
  for (auto& k : idx) k = std::upper_bound(cdf.begin(), cdf.end(), g.next_double()) - cdf.begin();
  return idx;
}

// Generator.choice without replacement or p: Floyd's algorithm (then a shuffle of the
// picks), or for a large share of a large population a tail shuffle — numpy's choice.
std::vector<int64_t> generator_sample(Bits& g, int64_t pop, int64_t n, bool shuffle_picks) {
  const int64_t cutoff = shuffle_picks ? 50 : 20;
  auto shuffle_tail = [&](std::vector<int64_t>& v, int64_t first) {
    for (int64_t i = static_cast<int64_t>(v.size()) - 1; i >= first; --i) std::swap(v[i], v[bitgen::bounded_lemire(g, static_cast<uint64_t>(i))]);
  };
  if (pop > 10000 && n > pop / cutoff) {
    std::vector<int64_t> all(static_cast<size_t>(pop));
    for (int64_t i = 0; i < pop; ++i) all[i] = i;
    shuffle_tail(all, std::max<int64_t>(pop - n, 1));
    return std::vector<int64_t>(all.end() - n, all.end());
  }
  std::vector<int64_t> picks;
  picks.reserve(static_cast<size_t>(n));
  std::unordered_set<int64_t> seen;
  for (int64_t j = pop - n; j < pop; ++j) {
    const int64_t v = static_cast<int64_t>(bitgen::bounded_lemire(g, static_cast<uint64_t>(j)));
    const int64_t pick = seen.count(v) ? j : v;
    seen.insert(pick);
    picks.push_back(pick);
  }
  if (shuffle_picks) shuffle_tail(picks, 1);
  return picks;
}

// Without replacement, weighted: draw, keep first occurrences of new indices, zero their
// weights, repeat until enough (numpy's loop, in both APIs).
std::vector<int64_t> weighted_sample(Bits& g, std::vector<double> p, int64_t n) {
  std::vector<int64_t> found;
  while (static_cast<int64_t>(found.size()) < n) {
    std::vector<double> u(static_cast<size_t>(n - static_cast<int64_t>(found.size())));
    for (auto& x : u) x = g.next_double();
    for (auto k : found) p[static_cast<size_t>(k)] = 0;
    std::vector<double> cdf(p.size());
    double run = 0;
    for (size_t i = 0; i < p.size(); ++i) cdf[i] = run += p[i];
    const double total = cdf.back();
    for (auto& c : cdf) c /= total;
    std::unordered_set<int64_t> fresh;
    for (double x : u) {
      const int64_t k = std::upper_bound(cdf.begin(), cdf.end(), x) - cdf.begin();
      if (fresh.insert(k).second) found.push_back(k);
    }
  }
  return found;
}

}  // namespace

Value choice(Interp& I, Bits& g, Api api, const Value& a, const Value& size_v, bool replace, const Value& p_v, bool shuffle_picks) {
  const bool legacy = api == Api::Legacy;
  std::optional<Rows> population;
  int64_t pop = 0;
  if (auto n = int_arg(I, a)) {
    pop = *n;
  } else {
    auto arr = host_array(I, a);
    if (arr->type.rank() == 0)
      I.raise("ValueError", legacy ? std::string("a must be 1-dimensional or an integer")
                                   : fmt::format("a must be a sequence or an integer, not <class '{}'>", I.type_name(a)));
    if (legacy && arr->type.rank() != 1) I.raise("ValueError", "a must be 1-dimensional");
    population = rows_of(arr);
    pop = population->count();
  }
  const auto size = size_arg(I, size_v);
  const Shape shape = size.value_or(Shape{});
  const int64_t n = types::shape_product(shape);
  if (!population && pop <= 0 && n != 0)
    I.raise("ValueError", legacy ? "a must be greater than 0 unless no samples are taken" : "a must be a positive integer unless no samples are taken");
  if (population && pop == 0 && n != 0)
    I.raise("ValueError", legacy ? "'a' cannot be empty unless no samples are taken" : "a cannot be empty unless no samples are taken");

  std::optional<std::vector<double>> p;
  if (p_v && p_v->kind != ObjKind::None) {
    double atol = std::sqrt(std::numeric_limits<double>::epsilon());
    if (auto* pa = as_array(p_v); pa && pa->host && pa->array->type.dtype() == DType::F32)
      atol = std::max(atol, std::sqrt(static_cast<double>(std::numeric_limits<float>::epsilon())));
    auto parr = host_array(I, p_v, DType::F64);
    if (parr->type.rank() != 1) I.raise("ValueError", legacy ? "'p' must be 1-dimensional" : "p must be 1-dimensional");
    if (parr->type.shape()[0] != pop) I.raise("ValueError", legacy ? "'a' and 'p' must have same size" : "a and p must have same size");
    auto bytes = exec::array_to_host(*parr);
    std::vector<double> w(static_cast<size_t>(pop));
    if (pop) std::memcpy(w.data(), bytes.data(), w.size() * 8);
    const double sum = kahan_sum(w);
    if (std::isnan(sum)) I.raise("ValueError", "probabilities contain NaN");
    for (double x : w)
      if (x < 0) I.raise("ValueError", "probabilities are not non-negative");
    if (std::abs(sum - 1.0) > atol) I.raise("ValueError", "probabilities do not sum to 1");
    p = std::move(w);
  }

  std::vector<int64_t> idx;
  if (replace) {
    if (p) {
      idx = sample_cdf(g, *p, n);
    } else {
      idx.resize(static_cast<size_t>(n));
      const uint64_t rng = static_cast<uint64_t>(pop - 1);
      for (auto& k : idx) k = static_cast<int64_t>(legacy ? bitgen::bounded_masked(g, rng) : bitgen::bounded_lemire(g, rng));
    }
  } else {
    if (n > pop)
      I.raise("ValueError", legacy ? "Cannot take a larger sample than population when 'replace=False'"
                                   : "Cannot take a larger sample than population when replace is False");
    if (p) {
      int64_t positive = 0;
      for (double x : *p) positive += x > 0;
      if (positive < n) I.raise("ValueError", "Fewer non-zero entries in p than size");
      idx = weighted_sample(g, *p, n);
    } else if (legacy) {
      idx = permuted_range(g, pop);
      idx.resize(static_cast<size_t>(n));
    } else {
      idx = generator_sample(g, pop, n, shuffle_picks);
    }
  }

  if (!size) return population ? take_one(I, *population, idx[0]) : interp::make_int(idx[0]);
  if (!population) return int64_result(I, idx, shape);
  return take_rows(I, *population, idx, shape);
}

}  // namespace shard::api::np::rnd
