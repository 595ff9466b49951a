#include "codegen/gamma_functions.hpp"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <limits>

namespace shard::codegen {

namespace {

constexpr double kPi = 3.141592653589793238462643383279502884;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// The Bernoulli numbers B_2, B_4, ..., B_20.
constexpr double kBernoulli[10] = {1.0 / 6,    -1.0 / 30,     1.0 / 42,       -1.0 / 30,      5.0 / 66,
                                   -691.0 / 2730, 7.0 / 6, -3617.0 / 510, 43867.0 / 798, -174611.0 / 330};

// n! for n = 0..170, the largest finite one last: the products in long double (64-bit
// mantissa, so 170 roundings stay far below a double's ulp), then rounded once.
constexpr std::array<double, 171> kFactorial = [] {
  std::array<double, 171> f{};
  long double p = 1;
  f[0] = 1;
  for (size_t n = 1; n < f.size(); ++n) f[n] = static_cast<double>(p *= static_cast<long double>(n));
  return f;
}();

double log_gamma(double x) {
  int sign;
  return lgamma_r(x, &sign);
}

// 0, -1, -2, ... and -inf: where psi and its derivatives have poles.
bool is_pole(double x) { return x <= 0 && x == std::floor(x); }

// cot(pi x) for a non-integer x: x reduced exactly to r in [-1/2, 1/2] (cot has period 1),
// and past |r| = 1/4 as tan(pi (1/2 - |r|)), whose argument is exact, so cot keeps its
// relative accuracy near its zeros at the half-integers.
double cot_pi(double x) {
  const double r = x - std::nearbyint(x);
  if (std::fabs(r) <= 0.25) return std::cos(kPi * r) / std::sin(kPi * r);
  return std::tan(kPi * (r > 0 ? 0.5 - r : -0.5 - r));
}

// a + b = s + e exactly (Knuth's two-sum).
void two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  const double bb = s - a;
  e = (a - (s - bb)) + (b - bb);
}

// psi(x) around its positive root x0 = 1.46163214496836...: sum_k c_k (x - x0)^k with
// c_k = psi^(k)(x0) / k!, k = 1..24 (mpmath at 50 digits). Used for |x - x0| < 1/4, where the
// recurrence below would subtract two numbers near 2.3 and lose the result's low digits.
constexpr double kRootHi = 1.4616321449683622, kRootLo = 9.549995429965697e-17;
constexpr double kRootTaylor[24] = {
    0.967672245447621170427,    -0.442763168983592106093,   0.258499760955651010624,    -0.163942705442406527504,
    0.107824050691262365757,    -0.0721995612564547109261,  0.0488042881641431072251,   -0.0331611264748473592923,
    0.0225976482322181046596,   -0.0154247659049489591388,  0.0105387916166121753881,   -0.00720453438635686824097,
    0.00492678139572985344635,  -0.00336980165543932808279, 0.00230512632673492783694,  -0.00157693677143019725927,
    0.00107882520191629658069,  -0.000738070938996005129566, 0.000504953265834602035177, -0.000345468025106307699556,
    0.000236356015640270527924, -0.000161706220919748034494, 0.000110633727687474109041, -0.0000756917958219506591924};

// psi(x + x_lo) for x > 0 (x_lo a low-order part, |x_lo| <= ulp(x)): psi(x) = psi(x + n) -
// sum_{k<n} 1/(x + k) with x + n >= 10, then psi(z) ~ log z - 1/(2z) - sum_k B_2k / (2k z^2k)
// (eight terms: below 1e-17 relative at 10). Below 10 the two sides nearly cancel where psi is
// small, so the shifted points x + k and the sum are carried in double-double (each 1/y with
// its exact residual) and log z is log(10) (split in two) + log1p((z - 10) / 10).
double digamma_positive(double x, double x_lo = 0) {
  const double d = ((x - kRootHi) - kRootLo) + x_lo;  // x - kRootHi is exact (Sterbenz)
  if (std::fabs(d) < 0.25) {
    double p = 0;
    for (int k = 23; k >= 0; --k) p = p * d + kRootTaylor[k];
    return p * d;
  }
  if (std::isinf(x)) return x;
  if (x >= 10) {
    const double inv_sq = 1 / (x * x);
    double series = 0;
    for (int k = 7; k >= 0; --k) series = series * inv_sq + kBernoulli[k] / (2 * (k + 1));
    return std::log(x) - 0.5 / x - series * inv_sq + x_lo / x;
  }
  double y = x, y_lo = x_lo, sum = 0, sum_lo = 0;  // y + y_lo = x + k; sum + sum_lo = sum of 1/(x + k)
  for (; y < 10; ) {
    const double q = 1 / y;
    const double r = (std::fma(-q, y, 1) - q * y_lo) / y;  // 1/(y + y_lo) - q, to first order
    double e;
    two_sum(sum, q, sum, e);
    sum_lo += e + r;
    two_sum(y, 1, y, e);
    y_lo += e;
  }
  constexpr double kLn10Hi = 2.302585092994046, kLn10Lo = -2.1707562233822494e-16;
  const double inv_sq = 1 / (y * y);
  double series = 0;
  for (int k = 7; k >= 0; --k) series = series * inv_sq + kBernoulli[k] / (2 * (k + 1));
  const double small = std::log1p((y - 10) / 10) + kLn10Lo - 0.5 / y - series * inv_sq + y_lo / y;
  return (kLn10Hi - sum) + (small - sum_lo);
}

// n! / y^(n + 1) for y > 0: directly while that is a normal number, else through logs.
// A power below the normal range is taken as the square of y^-(n+1)/2, the factorial
// multiplied in between; what still leaves the normal range goes through logs.
double power_term(double n, double y) {
  if (n <= 170) {
    const double f = kFactorial[static_cast<size_t>(n)], p = std::pow(y, -(n + 1));
    double r = f * p;
    if (!std::isnormal(p)) {
      const double h = std::pow(y, -(n + 1) / 2);
      r = (f * h) * h;
    }
    if (std::isnormal(r)) return r;
  }
  return std::exp(log_gamma(n + 1) - (n + 1) * std::log(y));
}

// |psi^(m)(z + z_lo)| ~ (m-1)!/z^m * [1 + m/(2z) + sum_k B_2k m(m+1)...(m+2k-1) / ((2k)! z^2k)],
// for z >= m + 10 (ten terms: the next is below 1e-17 relative there). z_lo, the low part of
// the point, enters the leading power: (z + z_lo)^-m = z^-m (1 - m z_lo / z) to first order.
double polygamma_asymptotic(double m, double z, double z_lo) {
  const double inv_sq = 1 / (z * z);
  double sum = 1 + m / (2 * z), r = 1;
  for (int k = 1; k <= 10; ++k) {
    r *= (m + 2 * k - 2) * (m + 2 * k - 1) / ((2.0 * k) * (2.0 * k - 1)) * inv_sq;
    sum += kBernoulli[k - 1] * r;
  }
  return power_term(m - 1, z) * (1 - m * (z_lo / z)) * sum;
}

// |psi^(m)(x + x_lo)| = m! sum_{k>=0} (x + k)^-(m+1) for m >= 1, x > 0 (every term has
// psi^(m)'s sign): terms until x + k >= m + 10, then the asymptotic series. The points x + k
// are carried in two parts (rounding one would be amplified m + 1 times by the power). The
// terms still to come are below term * x / m (the integral of y^-(m+1) from x), so a large
// m stops after a few.
double polygamma_magnitude(double m, double x, double x_lo = 0) {
  const double z0 = m + 10;
  double sum = 0;
  for (; x < z0;) {
    const double term = power_term(m, x) * (1 - (m + 1) * (x_lo / x));
    sum += term;
    if (term * (x / m) < 1e-17 * sum) return sum;
    double e;
    two_sum(x, 1, x, e);
    x_lo += e;
  }
  return sum + polygamma_asymptotic(m, x, x_lo);
}

// P_m(c) with d^m/dy^m cot(y) = P_m(cot y): P_0(c) = c, P_(k+1)(c) = -(1 + c^2) P_k'(c).
constexpr int kReflectMaxOrder = 100;  // P_100's coefficients reach 1e168
double cot_derivative_poly(int m, double c) {
  double p[kReflectMaxOrder + 2] = {0, 1}, q[kReflectMaxOrder + 2];
  for (int k = 0; k < m; ++k) {  // P_k has degree k + 1
    for (int i = 0; i <= k + 2; ++i) q[i] = 0;
    for (int i = 1; i <= k + 1; ++i) {
      q[i - 1] -= i * p[i];
      q[i + 1] -= i * p[i];
    }
    for (int i = 0; i <= k + 2; ++i) p[i] = q[i];
  }
  double v = 0;
  for (int i = m + 1; i >= 0; --i) v = v * c + p[i];
  return v;
}

}  // namespace

double lgamma_f64(double x) { return log_gamma(x); }

double digamma_f64(double x) {
  if (std::isnan(x)) return x;
  if (is_pole(x)) return kNaN;
  // Reflection: psi(x) = psi(1 - x) - pi cot(pi x), 1 - x passed exactly in two parts.
  if (x < 0) {
    double y, y_lo;
    two_sum(1, -x, y, y_lo);
    return digamma_positive(y, y_lo) - kPi * cot_pi(x);
  }
  return digamma_positive(x);
}

double polygamma_f64(double m, double x) {
  if (std::isnan(m) || std::isnan(x) || m < 0 || std::isinf(m) || m != std::floor(m)) return kNaN;
  if (m == 0) return digamma_f64(x);
  const bool odd = std::fmod(m, 2) == 1;
  const double sign = odd ? 1 : -1;  // psi^(m)(x) for x > 0 has the sign of (-1)^(m+1)
  if (is_pole(x)) return odd ? kInf : kNaN;
  if (x == kInf) return sign * 0.0;
  if (x > 0) return sign * polygamma_magnitude(m, x);
  if (m <= kReflectMaxOrder) {
    // Reflection: psi^(m)(x) = (-1)^m psi^(m)(1 - x) - pi^(m+1) P_m(cot(pi x)).
    double y, y_lo;
    two_sum(1, -x, y, y_lo);
    const double reflected = -polygamma_magnitude(m, y, y_lo);
    return reflected - std::pow(kPi, m + 1) * cot_derivative_poly(static_cast<int>(m), cot_pi(x));
  }
  // A large order: psi^(m)(x) = (-1)^(m+1) m! sum_k (x + k)^-(m+1) is the terms nearest the
  // poles; those with |x + k| >= 3 are below 6^-(m+1) of the largest and dropped, but for
  // x = -n - 1/2 and even m, where the terms cancel in pairs up to psi^(m)(n + 3/2).
  const double frac = x - std::floor(x);  // in (0, 1), exact
  if (!odd && frac == 0.5) {
    double y, y_lo;
    two_sum(1, -x, y, y_lo);
    return sign * polygamma_magnitude(m, y, y_lo);
  }
  // Each x + k is frac + j, computed afresh (exact near 0, where the terms are largest).
  double sum = 0;
  for (double j = std::max(-3.0, std::floor(x)); j < 3; j += 1) {
    const double y = frac + j;
    const double t = power_term(m, std::fabs(y));
    sum += y > 0 || odd ? t : -t;  // y^-(m+1) is negative for y < 0 and m even
  }
  return sign * (sum + polygamma_magnitude(m, frac + 3));
}

}  // namespace shard::codegen
