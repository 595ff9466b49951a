// numpy's ziggurat samplers for Generator.standard_normal / standard_exponential (float64
// and float32): 256 strips, Marsaglia & Tsang's method as numpy 1.24 lays it out, so a
// Generator over the same bits gives numpy's values bit for bit. The tables are derived at
// first use (numpy_random_ziggurat.cpp says how they reproduce numpy's shipped ones).
#pragma once
#include <cmath>
#include <cstdint>

namespace shard::api::np::ziggurat {

// Strip i of a ziggurat: a draw `u` (an unsigned integer of the table's width) lands inside
// the strip's rectangle when u < k[i]; x = u * w[i]; f[i] is the density at the strip's
// outer edge (f[0] = 1 at the top, index 255 is the base strip reaching the tail).
template <class Int, class Real>
struct Table {
  Int k[256];
  Real w[256];
  Real f[256];
};
using Table64 = Table<uint64_t, double>;
using Table32 = Table<uint32_t, float>;

const Table64& normal_double();
const Table32& normal_float();
const Table64& exponential_double();
const Table32& exponential_float();

// Where the tails start, and 1 / the normal's.
inline constexpr double kNormalTail = 3.6541528853610087963519472518;
inline constexpr double kNormalInvTail = 0.27366123732975827203338247596;
inline constexpr double kExpTail = 7.6971174701310497140446280481;

// `Bits` gives next64(), next32(), next_double() (53-bit in [0, 1)), next_float() (24-bit).

template <class Bits>
double standard_normal(Bits& g) {
  const Table64& t = normal_double();
  for (;;) {
    uint64_t r = g.next64();
    const int idx = static_cast<int>(r & 0xff);
    r >>= 8;
    const bool negative = r & 1;
    const uint64_t rabs = (r >> 1) & 0x000fffffffffffffULL;
    double x = static_cast<double>(rabs) * t.w[idx];
    if (negative) x = -x;
    if (rabs < t.k[idx]) return x;
    if (idx == 0) {
      // The tail beyond kNormalTail (1 - U keeps log1p away from -1).
      for (;;) {
        const double xx = -kNormalInvTail * std::log1p(-g.next_double());
        const double yy = -std::log1p(-g.next_double());
        if (yy + yy > xx * xx) return ((rabs >> 8) & 1) ? -(kNormalTail + xx) : kNormalTail + xx;
      }
    }
    if ((t.f[idx - 1] - t.f[idx]) * g.next_double() + t.f[idx] < std::exp(-0.5 * x * x)) return x;
  }
}

template <class Bits>
float standard_normal_float(Bits& g) {
  const Table32& t = normal_float();
  for (;;) {
    const uint32_t r = g.next32();
    const int idx = static_cast<int>(r & 0xff);
    const bool negative = (r >> 8) & 1;
    const uint32_t rabs = (r >> 9) & 0x007fffffu;
    float x = static_cast<float>(rabs) * t.w[idx];
    if (negative) x = -x;
    if (rabs < t.k[idx]) return x;
    if (idx == 0) {
      for (;;) {
        const float xx = -static_cast<float>(kNormalInvTail) * std::log1p(-g.next_float());
        const float yy = -std::log1p(-g.next_float());
        if (yy + yy > xx * xx) return ((rabs >> 8) & 1) ? -(static_cast<float>(kNormalTail) + xx) : static_cast<float>(kNormalTail) + xx;
      }
    }
    // numpy compares the float wedge against the double density.
    const float edge = (t.f[idx - 1] - t.f[idx]) * g.next_float() + t.f[idx];
    if (edge < std::exp(-0.5 * static_cast<double>(x) * static_cast<double>(x))) return x;
  }
}

template <class Bits>
double standard_exponential(Bits& g) {
  const Table64& t = exponential_double();
  for (;;) {
    uint64_t r = g.next64() >> 3;
    const int idx = static_cast<int>(r & 0xff);
    r >>= 8;
    const double x = static_cast<double>(r) * t.w[idx];
    if (r < t.k[idx]) return x;
    if (idx == 0) return kExpTail - std::log1p(-g.next_double());
    if ((t.f[idx - 1] - t.f[idx]) * g.next_double() + t.f[idx] < std::exp(-x)) return x;
  }
}

template <class Bits>
float standard_exponential_float(Bits& g) {
  const Table32& t = exponential_float();
  for (;;) {
    uint32_t r = g.next32() >> 1;
    const int idx = static_cast<int>(r & 0xff);
    r >>= 8;
    const float x = static_cast<float>(r) * t.w[idx];
    if (r < t.k[idx]) return x;
    if (idx == 0) return static_cast<float>(kExpTail) - std::log1p(-g.next_float());
    if ((t.f[idx - 1] - t.f[idx]) * g.next_float() + t.f[idx] < std::exp(-x)) return x;
  }
}

}  // namespace shard::api::np::ziggurat
