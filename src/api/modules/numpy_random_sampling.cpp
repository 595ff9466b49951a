// numpy.random's permutations and samples, shared by Generator and RandomState (see
// numpy_random_support.hpp): Fisher-Yates with numpy's random_interval, shuffling rows of a
// numpy array or the items of a list, and choice with numpy's algorithm for each case.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_set>

#include "api/modules/numpy_random_support.hpp"

namespace shard::api::np::rnd {

namespace bi = interp::bi;

namespace {

// An int argument (population size, arange length) rather than array-like data.
std::optional<int64_t> int_arg(Interp& I, const Value& v) {
  if (auto* a = as_array(v); a && a->array->type.rank() > 0) return std::nullopt;
  if (v->kind == ObjKind::List || v->kind == ObjKind::Tuple) return std::nullopt;
  return bi::try_index(I, v);
}

Value int64_result(Interp& I, const std::vector<int64_t>& v, const Shape& shape) { return host_result(I, v.data(), DType::I64, shape); }

}  // namespace

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
