// The ziggurat tables, derived by the construction numpy's shipped tables come from (each
// checked entry for entry against numpy 1.24's when this was written):
// - normal: Marsaglia & Tsang's recurrence x' = sqrt(-2 log(f(x) + V / x)) for f(x) =
//   exp(-x^2 / 2) from the tail start r, in double arithmetic with correctly rounded exp and
//   log, V = 0.0049286732339746519; k = round(2^52 * x_{i-1} / x_i) (2^23 for float32).
//   numpy's generator ran on a libm whose exp(-x^2 / 2) at the 218th point rounded up (the
//   true value lies 0.0017 ulp below the midpoint); we round that one value the same way,
//   or every strip above it would differ.
// - exponential: the recurrence x' = -log(e^-x + V / x) with V the exact strip area
//   r e^-r + e^-r, carried in 113-bit arithmetic and rounded once; k = 2 floor(2^52 x_{i-1} /
//   x_i) for float64 and round(2^23 x_{i-1} / x_i) for float32.
// - the float32 tables are the float64 values numpy printed as decimals (21 significant
//   digits for normal, 9 for exponential) and compiled as float; we round through the same
//   decimal text, which differs from rounding the double directly in a few entries.
#include "api/modules/numpy_random_ziggurat.hpp"

#include <cfloat>
#include <cstdio>
#include <cstdlib>

namespace shard::api::np::ziggurat {

namespace {

#if defined(__SIZEOF_FLOAT128__)
using Wide = __float128;
#elif LDBL_MANT_DIG >= 113
using Wide = long double;
#else
#error "deriving numpy's exponential ziggurat needs a floating type of at least 113 bits"
#endif

constexpr int kStrips = 256;
constexpr double kTwo52 = 4503599627370496.0, kTwo53 = 9007199254740992.0, kTwo23 = 8388608.0;

// exp and log to about 100 bits: exp(a) = exp(a / 2^12)^(2^12) with a short Taylor series
// (the arguments here lie in [-8, 0]); log by Newton's method on exp from libm's guess.
Wide wide_exp(Wide a) {
  const Wide r = a / 4096;
  Wide term = 1, sum = 1;
  for (int n = 1; n < 16; ++n) {
    term = term * r / n;
    sum += term;
  }
  for (int i = 0; i < 12; ++i) sum *= sum;
  return sum;
}
Wide wide_log(Wide y) {
  Wide z = std::log(static_cast<double>(y));
  for (int i = 0; i < 3; ++i) z += y * wide_exp(-z) - 1;
  return z;
}
double exp_rounded(double a) { return static_cast<double>(wide_exp(a)); }
double log_rounded(double a) { return static_cast<double>(wide_log(a)); }

// A double as numpy's table source wrote it (`digits` significant digits), read as a float.
float float_through_decimal(double v, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*e", digits - 1, v);
  return std::strtof(text, nullptr);
}

struct NormalStrips {
  double x[kStrips];        // x[0] = 0 (top) ... x[255] = r (base)
  double density[kStrips];  // exp(-x^2 / 2), as numpy's generator computed it
};
constexpr double kNormalArea = 0.0049286732339746519;

const NormalStrips& normal_strips() {
  static const NormalStrips s = [] {
    NormalStrips n{};
    double x = kNormalTail;
    for (int i = kStrips - 1; i >= 1; --i) {
      double d = exp_rounded(-0.5 * x * x);
      if (i == kStrips - 1 - 217) d = std::nextafter(d, 2.0);  // the generator's libm, see above
      n.x[i] = x;
      n.density[i] = d;
      if (i > 1) x = std::sqrt(-2 * log_rounded(d + kNormalArea / x));
    }
    n.x[0] = 0;
    n.density[0] = 1;
    return n;
  }();
  return s;
}

template <class Int, class Real>
Table<Int, Real> normal_table(double scale, bool as_float) {
  const NormalStrips& n = normal_strips();
  Table<Int, Real> t{};
  const double r = n.x[kStrips - 1], fr = n.density[kStrips - 1];
  t.k[0] = static_cast<Int>(std::nearbyint(r * fr / kNormalArea * scale));
  for (int i = 1; i < kStrips; ++i) t.k[i] = static_cast<Int>(std::nearbyint(n.x[i - 1] / n.x[i] * scale));
  for (int i = 0; i < kStrips; ++i) {
    const double w = i == 0 ? kNormalArea / fr / scale : n.x[i] / scale;
    t.w[i] = as_float ? static_cast<Real>(float_through_decimal(w, 21)) : static_cast<Real>(w);
    t.f[i] = as_float ? static_cast<Real>(float_through_decimal(n.density[i], 21)) : static_cast<Real>(n.density[i]);
  }
  return t;
}

struct ExpStrips {
  Wide x[kStrips];  // x[0] = 0 (top) ... x[255] = r (base)
  Wide area, tail_density;
};

const ExpStrips& exp_strips() {
  static const ExpStrips s = [] {
    ExpStrips e{};
    // r to 106 bits, as a sum of two doubles.
    const Wide r = static_cast<Wide>(0x1.ec9d9297ebb83p+2) + static_cast<Wide>(-0x1.a1eb4a1d9ae5ep-52);
    e.tail_density = wide_exp(-r);
    e.area = r * e.tail_density + e.tail_density;
    e.x[kStrips - 1] = r;
    for (int i = kStrips - 2; i >= 1; --i) e.x[i] = -wide_log(wide_exp(-e.x[i + 1]) + e.area / e.x[i + 1]);
    e.x[0] = 0;
    return e;
  }();
  return s;
}

}  // namespace

const Table64& normal_double() {
  static const Table64 t = normal_table<uint64_t, double>(kTwo52, false);
  return t;
}

const Table32& normal_float() {
  static const Table32 t = normal_table<uint32_t, float>(kTwo23, true);
  return t;
}

const Table64& exponential_double() {
  static const Table64 t = [] {
    const ExpStrips& e = exp_strips();
    const Wide r = e.x[kStrips - 1];
    Table64 t{};
    auto threshold = [](Wide ratio) { return 2 * static_cast<uint64_t>(ratio * (kTwo52)); };
    t.k[0] = threshold(r * e.tail_density / e.area);
    t.w[0] = static_cast<double>(e.area / e.tail_density / kTwo53);
    t.f[0] = 1;
    for (int i = 1; i < kStrips; ++i) {
      t.k[i] = threshold(e.x[i - 1] / e.x[i]);
      t.w[i] = static_cast<double>(e.x[i] / kTwo53);
      t.f[i] = static_cast<double>(wide_exp(-e.x[i]));
    }
    return t;
  }();
  return t;
}

const Table32& exponential_float() {
  static const Table32 t = [] {
    const ExpStrips& e = exp_strips();
    const Wide r = e.x[kStrips - 1];
    Table32 t{};
    auto threshold = [](Wide ratio) { return static_cast<uint32_t>(std::nearbyint(static_cast<double>(ratio * kTwo23))); };
    t.k[0] = threshold(r * e.tail_density / e.area);
    t.w[0] = float_through_decimal(static_cast<double>(e.area / e.tail_density / kTwo23), 9);
    t.f[0] = 1;
    for (int i = 1; i < kStrips; ++i) {
      t.k[i] = threshold(e.x[i - 1] / e.x[i]);
      t.w[i] = float_through_decimal(static_cast<double>(e.x[i] / kTwo23), 9);
      t.f[i] = float_through_decimal(static_cast<double>(wide_exp(-e.x[i])), 9);
    }
    return t;
  }();
  return t;
}

}  // namespace shard::api::np::ziggurat
