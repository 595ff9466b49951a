#include "exec/host_kernels.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <type_traits>

#include "types/half_float.hpp"

namespace shard::exec {

using ir::ReduceKind;
using types::DType;

std::vector<int64_t> contiguous_strides(const Shape& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

int64_t num_elements(const Shape& shape) {
  int64_t n = 1;
  for (auto s : shape) n *= s;
  return n;
}

namespace {

// Calls f(T{}) with T the C++ type of dtype.
template <class F>
void dispatch(DType t, F&& f) {
  switch (t) {
    case DType::F32: f(float{}); break;
    case DType::F64: f(double{}); break;
    case DType::I32: f(int32_t{}); break;
    case DType::I64: f(int64_t{}); break;
    case DType::U8: f(uint8_t{}); break;  // bool's C++ type too: kernels test the dtype for bool
    case DType::U16: f(uint16_t{}); break;
    case DType::U32: f(uint32_t{}); break;
    case DType::Bool: f(uint8_t{}); break;
    case DType::F16: f(types::HalfValue<DType::F16>{}); break;  // float32 arithmetic, rounded per op
    case DType::BF16: f(types::HalfValue<DType::BF16>{}); break;
  }
}

// Integer arithmetic that wraps: through the unsigned type at least as wide as int, so
// neither int32 overflow nor uint16 * uint16 (promoted to int) is undefined.
template <class T>
T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using W = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    return static_cast<T>(static_cast<W>(a) + static_cast<W>(b));
  } else {
    return static_cast<T>(a + b);
  }
}
template <class T>
T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using W = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    return static_cast<T>(static_cast<W>(a) * static_cast<W>(b));
  } else {
    return static_cast<T>(a * b);
  }
}

// Views `shape` around `axis` as [outer, len, inner].
struct AxisView {
  int64_t outer = 1, len = 1, inner = 1;
  AxisView(const Shape& shape, int64_t axis) {
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
      if (d < axis) outer *= shape[d];
      else if (d == axis) len = shape[d];
      else inner *= shape[d];
    }
  }
};

template <class T>
constexpr bool is_half_value = false;
template <DType D>
constexpr bool is_half_value<types::HalfValue<D>> = true;

template <class T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else if constexpr (is_half_value<T>) return std::isnan(static_cast<float>(v));
  else return false;
}

}  // namespace

void iota_kernel(DType dtype, const Shape& shape, int64_t axis, int64_t start, void* out) {
  AxisView v(shape, axis);
  dispatch(dtype, [&](auto zero) {
    using T = decltype(zero);
    T* o = static_cast<T*>(out);
    for (int64_t a = 0; a < v.outer; ++a)
      for (int64_t i = 0; i < v.len; ++i)
        for (int64_t c = 0; c < v.inner; ++c) *o++ = static_cast<T>(start + i);
  });
}

void arg_reduce_kernel(DType dtype, ReduceKind kind, const Shape& shape, int64_t axis, const void* in, int32_t* out) {
  AxisView v(shape, axis);
  if (v.len == 0) throw std::runtime_error(std::string("attempt to get arg") + (kind == ReduceKind::Max ? "max" : "min") + " of an empty sequence");
  dispatch(dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = static_cast<const T*>(in);
    for (int64_t a = 0; a < v.outer; ++a)
      for (int64_t c = 0; c < v.inner; ++c) {
        const T* base = x + a * v.len * v.inner + c;
        int64_t best = 0;
        T bv = base[0];
        if (!is_nan(bv))
          for (int64_t i = 1; i < v.len; ++i) {
            T cur = base[i * v.inner];
            if (is_nan(cur)) { best = i; break; }
            if (kind == ReduceKind::Max ? cur > bv : cur < bv) { bv = cur; best = i; }
          }
        out[a * v.inner + c] = static_cast<int32_t>(best);
      }
  });
}

void cumulative_kernel(DType dtype, ReduceKind kind, const Shape& shape, int64_t axis, bool reverse, const void* in, void* out) {
  AxisView v(shape, axis);
  dispatch(dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = static_cast<const T*>(in);
    T* o = static_cast<T*>(out);
    for (int64_t a = 0; a < v.outer; ++a)
      for (int64_t c = 0; c < v.inner; ++c) {
        const int64_t base = a * v.len * v.inner + c;
        T acc{};
        for (int64_t j = 0; j < v.len; ++j) {
          const int64_t i = reverse ? v.len - 1 - j : j;
          T cur = x[base + i * v.inner];
          if (j == 0) acc = cur;
          else switch (kind) {
            case ReduceKind::Sum: acc = wrap_add(acc, cur); break;
            case ReduceKind::Prod: acc = wrap_mul(acc, cur); break;
            case ReduceKind::Max: acc = (is_nan(acc) || acc >= cur) ? acc : cur; break;
            case ReduceKind::Min: acc = (is_nan(acc) || acc <= cur) ? acc : cur; break;
            case ReduceKind::And: acc = static_cast<T>(acc && cur); break;
            case ReduceKind::Or: acc = static_cast<T>(acc || cur); break;
          }
          o[base + i * v.inner] = acc;
        }
      }
  });
}

void sort_kernel(DType dtype, const Shape& shape, int64_t axis, const void* in, void* out) {
  AxisView v(shape, axis);
  dispatch(dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = static_cast<const T*>(in);
    T* o = static_cast<T*>(out);
    std::vector<T> lane(static_cast<size_t>(v.len));
    for (int64_t a = 0; a < v.outer; ++a)
      for (int64_t c = 0; c < v.inner; ++c) {
        const int64_t base = a * v.len * v.inner + c;
        for (int64_t i = 0; i < v.len; ++i) lane[i] = x[base + i * v.inner];
        std::stable_sort(lane.begin(), lane.end(), [](T p, T q) { return is_nan(q) ? !is_nan(p) : p < q; });
        for (int64_t i = 0; i < v.len; ++i) o[base + i * v.inner] = lane[i];
      }
  });
}

void sort_multi_kernel(const std::vector<DType>& dtypes, const Shape& shape, int64_t axis, int64_t num_keys,
                       const std::vector<const void*>& in, const std::vector<void*>& out) {
  AxisView v(shape, axis);
  const size_t n = dtypes.size();
  std::vector<int64_t> order(static_cast<size_t>(v.len));
  std::vector<std::vector<uint8_t>> scratch(n);
  for (int64_t a = 0; a < v.outer; ++a)
    for (int64_t c = 0; c < v.inner; ++c) {
      const int64_t base = a * v.len * v.inner + c;
      for (int64_t i = 0; i < v.len; ++i) order[static_cast<size_t>(i)] = i;
      // The lane's stable order by the keys, compared lexicographically (NaNs last).
      std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) {
        for (int64_t k = 0; k < num_keys; ++k) {
          int cmp = 0;
          dispatch(dtypes[static_cast<size_t>(k)], [&](auto zero) {
            using T = decltype(zero);
            const T* x = static_cast<const T*>(in[static_cast<size_t>(k)]);
            const T xp = x[base + p * v.inner], xq = x[base + q * v.inner];
            if (is_nan(xp) || is_nan(xq)) cmp = is_nan(xp) == is_nan(xq) ? 0 : (is_nan(xp) ? 1 : -1);
            else cmp = xp < xq ? -1 : (xq < xp ? 1 : 0);
          });
          if (cmp != 0) return cmp < 0;
        }
        return false;
      });
      for (size_t o = 0; o < n; ++o)
        dispatch(dtypes[o], [&](auto zero) {
          using T = decltype(zero);
          const T* x = static_cast<const T*>(in[o]);
          T* y = static_cast<T*>(out[o]);
          for (int64_t i = 0; i < v.len; ++i) y[base + i * v.inner] = x[base + order[static_cast<size_t>(i)] * v.inner];
        });
    }
}

void gemm_kernel(DType dtype, int64_t batch, int64_t m, int64_t n, int64_t k, const void* lhs, const void* rhs, void* out) {
  // One OpenBLAS thread per call: each device thread is its own worker.
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
  if (dtype == DType::F16 || dtype == DType::BF16) {
    // Widened to float32 (exact), multiplied there, rounded once, as XLA's CPU dot does.
    auto widen = [&](const void* p, int64_t count) {
      std::vector<float> w(static_cast<size_t>(count));
      const auto* h = static_cast<const uint16_t*>(p);
      for (int64_t i = 0; i < count; ++i) w[static_cast<size_t>(i)] = types::half_to_float(h[i], dtype);
      return w;
    };
    const std::vector<float> L = widen(lhs, batch * m * k), R = widen(rhs, batch * k * n);
    std::vector<float> product(static_cast<size_t>(batch * m * n));
    gemm_kernel(DType::F32, batch, m, n, k, L.data(), R.data(), product.data());
    auto* o = static_cast<uint16_t*>(out);
    for (size_t i = 0; i < product.size(); ++i) o[i] = types::round_to_half(product[i], dtype);
    return;
  }
  if (dtype == DType::F32) {
    for (int64_t b = 0; b < batch; ++b)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, static_cast<const float*>(lhs) + b * m * k, k,
                  static_cast<const float*>(rhs) + b * k * n, n, 0.0f, static_cast<float*>(out) + b * m * n, n);
    return;
  }
  if (dtype == DType::F64) {
    for (int64_t b = 0; b < batch; ++b)
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, static_cast<const double*>(lhs) + b * m * k, k,
                  static_cast<const double*>(rhs) + b * k * n, n, 0.0, static_cast<double*>(out) + b * m * n, n);
    return;
  }
  const bool is_bool = dtype == DType::Bool;
  dispatch(dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* L = static_cast<const T*>(lhs);
    const T* R = static_cast<const T*>(rhs);
    T* O = static_cast<T*>(out);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t i = 0; i < m; ++i) {
        T* row = O + (b * m + i) * n;
        std::fill(row, row + n, T{});
        for (int64_t p = 0; p < k; ++p) {
          const T a = L[(b * m + i) * k + p];
          const T* r = R + (b * k + p) * n;
          for (int64_t j = 0; j < n; ++j) {
            if (is_bool) row[j] = static_cast<T>(row[j] || (a && r[j]));
            else row[j] = wrap_add(row[j], wrap_mul(a, r[j]));
          }
        }
      }
  });
}

void copy_block(size_t elem_bytes, const Shape& shape, const std::vector<int64_t>& starts, const Shape& sizes,
                const void* src, void* dst, bool update) {
  const auto strides = contiguous_strides(shape);
  const int64_t total = num_elements(sizes);
  if (total == 0) return;
  const size_t rank = shape.size();
  const int64_t row = rank ? sizes[rank - 1] : 1;
  std::vector<int64_t> idx(rank, 0);
  const auto* s = static_cast<const uint8_t*>(src);
  auto* d = static_cast<uint8_t*>(dst);
  for (int64_t done = 0; done < total; done += row) {
    int64_t off = 0;
    for (size_t i = 0; i < rank; ++i) off += (starts[i] + idx[i]) * strides[i];
    const size_t bytes = static_cast<size_t>(row) * elem_bytes;
    if (update) std::memcpy(d + off * elem_bytes, s + done * elem_bytes, bytes);
    else std::memcpy(d + done * elem_bytes, s + off * elem_bytes, bytes);
    for (size_t i = rank >= 1 ? rank - 1 : 0; i-- > 0;) {
      if (++idx[i] < sizes[i]) break;
      idx[i] = 0;
    }
  }
}

}  // namespace shard::exec
