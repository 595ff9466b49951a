#include "codegen/special_functions.hpp"

#include <cfloat>
#include <cmath>
#include <limits>

#include "codegen/gamma_functions.hpp"

namespace shard::codegen {

namespace {

constexpr double kPi = 3.141592653589793238462643383279502884;
constexpr double kEuler = 0.577215664901532860606512090082402431;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = DBL_EPSILON;
constexpr double kTiny = 1e-300;  // Lentz's stand-in for a zero denominator

// exp(x^2), x^2 = hi + lo split exactly so that a large x keeps its relative accuracy.
double exp_square(double x) {
  const double hi = x * x, lo = std::fma(x, x, -hi);
  return std::exp(hi) * (1 + lo);
}

// sum_k c_k / |x|^k of I_nu's asymptotic expansion (mu = 4 nu^2): c_k / c_(k-1) =
// -(mu - (2k - 1)^2) / (8 k |x|), summed while the terms decrease.
double bessel_asymptotic(double mu, double ax) {
  double term = 1, sum = 1;
  for (int k = 1; k < 200; ++k) {
    const double next = term * -(mu - (2.0 * k - 1) * (2.0 * k - 1)) / (8.0 * k * ax);
    if (std::fabs(next) >= std::fabs(term)) break;
    term = next;
    sum += term;
    if (std::fabs(term) < 1e-17 * std::fabs(sum)) break;
  }
  return sum / std::sqrt(2 * kPi * ax);
}

// sum_k (x^2/4)^k / (k! (k + nu)!), nu = 0 or 1: all terms positive.
double bessel_series(int nu, double ax) {
  const double y = ax * ax / 4;
  double term = 1, sum = 1;
  for (int k = 1; k < 1000; ++k) {
    term *= y / (static_cast<double>(k) * (k + nu));
    sum += term;
    if (term < 1e-17 * sum) break;
  }
  return sum;
}

constexpr double kBesselSwitch = 20;

// E_n(x) for x > 1 by its continued fraction 1/(b0 + a1/(b1 + a2/(b2 + ...))), b_i = x + n + 2i,
// a_i = -i (n - 1 + i): modified Lentz finds how many terms converge, then the fraction is
// evaluated backwards from a few terms further (no product of roundings as in Lentz's).
double expn_fraction(double n, double x) {
  double b = x + n, c = 1 / kTiny, d = 1 / b;
  int terms = 1;
  for (; terms < 10000; ++terms) {
    const double an = -terms * (n - 1 + terms);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    if (std::fabs(c * d - 1) < kEps / 4) break;
  }
  const int last = terms + 8;
  double f = x + n + 2.0 * last;
  for (int i = last; i >= 1; --i) f = x + n + 2.0 * (i - 1) + -i * (n - 1 + i) / f;
  return std::exp(-x) / f;
}

// E_n(x) for 0 < x <= 1 and a natural n >= 1 by its series.
double expn_series(double n, double x) {
  const double nm1 = n - 1;
  double sum = nm1 != 0 ? 1 / nm1 : -std::log(x) - kEuler, fact = 1;
  for (int i = 1; i < 1000; ++i) {
    fact *= -x / i;
    double del;
    if (i != nm1) {
      del = -fact / (i - nm1);
    } else {
      double psi = -kEuler;
      for (int k = 1; k <= nm1; ++k) psi += 1.0 / k;
      del = fact * (-std::log(x) + psi);
    }
    sum += del;
    if (std::fabs(del) < std::fabs(sum) * 1e-17) break;
  }
  return sum;
}

// log(x^a e^-x / Gamma(a)), the prefactor of both gamma expansions.
double log_ax(double a, double x) { return a * std::log(x) - x - lgamma_f64(a); }

struct GammaSeries {
  double ans, dans_da;
};
// sum_n x^n / ((a + 1) ... (a + n)) and its derivative in a (P = x^a e^-x / Gamma(a + 1) times
// the sum).
GammaSeries gamma_series(double a, double x, bool derivative) {
  double r = a, c = 1, ans = 1, dc_da = 0, dans_da = 0;
  for (int i = 0; i < 10000; ++i) {
    r += 1;
    dc_da = dc_da * (x / r) - (c * x) / (r * r);
    dans_da += dc_da;
    c *= x / r;
    ans += c;
    if (derivative ? !(std::fabs(dc_da / dans_da) > kEps / 2) : !(c / ans > kEps / 2)) break;
  }
  return {ans, dans_da};
}

// Q(a, x) e^x x^-a Gamma(a) as Cephes' continued fraction (Legendre's), and its derivative in a.
GammaSeries gamma_fraction(double a, double x, bool derivative) {
  constexpr double kBig = 4.503599627370496e15, kBigInv = 2.22044604925031308085e-16;
  double y = 1 - a, z = x + y + 1, c = 0;
  double pkm2 = 1, qkm2 = x, pkm1 = x + 1, qkm1 = z * x;
  double ans = pkm1 / qkm1;
  double dpkm2 = 0, dqkm2 = 0, dpkm1 = 0, dqkm1 = -x;
  double dans = (dpkm1 - ans * dqkm1) / qkm1;
  for (int i = 0; i < 2000; ++i) {
    c += 1;
    y += 1;
    z += 2;
    const double yc = y * c;
    const double pk = pkm1 * z - pkm2 * yc, qk = qkm1 * z - qkm2 * yc;
    double t = 1, dt = 1;
    const double dpk = dpkm1 * z - pkm1 - dpkm2 * yc + pkm2 * c;
    const double dqk = dqkm1 * z - qkm1 - dqkm2 * yc + qkm2 * c;
    if (qk != 0) {
      const double r = pk / qk;
      t = std::fabs((ans - r) / r);
      ans = r;
      const double dnew = (dpk - ans * dqk) / qk;
      dt = std::fabs(dnew - dans);
      dans = dnew;
    }
    pkm2 = pkm1;
    pkm1 = pk;
    qkm2 = qkm1;
    qkm1 = qk;
    dpkm2 = dpkm1;
    dqkm2 = dqkm1;
    dpkm1 = dpk;
    dqkm1 = dqk;
    if (std::fabs(pk) > kBig) {
      pkm2 *= kBigInv;
      pkm1 *= kBigInv;
      qkm2 *= kBigInv;
      qkm1 *= kBigInv;
      dpkm2 *= kBigInv;
      dqkm2 *= kBigInv;
      dpkm1 *= kBigInv;
      dqkm1 *= kBigInv;
    }
    if (derivative ? !(dt > kEps / 8 * std::fabs(dans)) && !(t > kEps / 4) : !(t > kEps / 2)) break;
  }
  return {ans, dans};
}

bool gamma_domain_error(double a, double x) {
  return std::isnan(a) || std::isnan(x) || x < 0 || a < 0 || (a == 0 && x == 0) || (std::isinf(a) && std::isinf(x));
}

// The continued fraction of I_x(a, b) x^-a (1 - x)^-b a B(a, b) (Numerical Recipes' betacf).
double beta_fraction(double a, double b, double x) {
  const double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1, d = 1 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m < 10000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < kEps / 2) break;
  }
  return h;
}

}  // namespace

double bessel_i0e_f64(double x) {
  if (std::isnan(x)) return x;
  const double ax = std::fabs(x);
  if (std::isinf(ax)) return 0;
  if (ax <= kBesselSwitch) return bessel_series(0, ax) * std::exp(-ax);
  return bessel_asymptotic(0, ax);
}

double bessel_i1e_f64(double x) {
  if (std::isnan(x)) return x;
  const double ax = std::fabs(x);
  if (std::isinf(ax)) return std::copysign(0.0, x);
  const double r = ax <= kBesselSwitch ? ax / 2 * bessel_series(1, ax) * std::exp(-ax) : bessel_asymptotic(4, ax);
  return std::copysign(r, x);
}

double erfcx_f64(double x) {
  if (std::isnan(x)) return x;
  if (x < 0) {
    if (x < -26.7) return kInf;
    return 2 * exp_square(x) - erfcx_f64(-x);
  }
  if (x < 26) return exp_square(x) * std::erfc(x);
  if (std::isinf(x)) return 0;
  // erfcx(x) ~ 1 / (x sqrt(pi)) sum_k (-1)^k (2k - 1)!! / (2 x^2)^k
  const double inv = 1 / (2 * x * x);
  double term = 1, sum = 1;
  for (int k = 1; k < 100; ++k) {
    term *= -(2.0 * k - 1) * inv;
    sum += term;
    if (std::fabs(term) < 1e-17 * sum) break;
  }
  return sum / (x * std::sqrt(kPi));
}

double expi_f64(double x) {
  if (std::isnan(x)) return x;
  if (x == 0) return -kInf;
  if (x < 0) return -expn_f64(1, -x);
  if (x > 709.8) return kInf;
  if (x <= 40) {
    double term = 1, sum = 0;
    for (int k = 1; k < 1000; ++k) {
      term *= x / k;
      const double add = term / k;
      sum += add;
      if (add < 1e-17 * sum) break;
    }
    return kEuler + std::log(x) + sum;
  }
  double term = 1, sum = 1;
  for (int k = 1; k < 200; ++k) {
    const double next = term * k / x;
    if (next >= term) break;
    term = next;
    sum += term;
    if (term < 1e-17 * sum) break;
  }
  return std::exp(x) / x * sum;
}

double expn_f64(double n, double x) {
  if (std::isnan(n) || std::isnan(x) || n < 0 || x < 0 || n != std::floor(n) || std::isinf(n)) return kNaN;
  if (x == 0) return n < 2 ? kInf : 1 / (n - 1);
  if (n == 0) return std::exp(-x) / x;
  if (std::isinf(x)) return 0;
  if (n >= 5000) {
    const double xk = x + n, yk = 1 / (xk * xk), t = n;
    double ans = yk * t * (6 * x * x - 8 * t * x + t * t);
    ans = yk * (ans + t * (t - 2 * x));
    ans = yk * (ans + t);
    return (ans + 1) * std::exp(-x) / xk;
  }
  if (x > 1) return expn_fraction(n, x);
  return expn_series(n, x);
}

double igamma_f64(double a, double x) {
  if (gamma_domain_error(a, x)) return kNaN;
  if (x == 0) return 0;
  if (std::isinf(x)) return 1;
  if (std::isinf(a)) return 0;
  if (a == 0) return 1;
  const double ax = std::exp(log_ax(a, x));
  if (x >= 1 && x > a) return 1 - gamma_fraction(a, x, false).ans * ax;
  return gamma_series(a, x, false).ans * ax / a;
}

double igammac_f64(double a, double x) {
  if (gamma_domain_error(a, x)) return kNaN;
  if (std::isinf(x) || a == 0) return 0;
  if (std::isinf(a)) return 1;
  if (x == 0) return 1;
  const double ax = std::exp(log_ax(a, x));
  if (x < 1 || x < a) return 1 - gamma_series(a, x, false).ans * ax / a;
  return gamma_fraction(a, x, false).ans * ax;
}

double igamma_grad_a_f64(double a, double x) {
  if (std::isnan(a) || std::isnan(x) || x < 0 || a <= 0) return kNaN;
  if (x == 0) return 0;
  if (std::isinf(x) || std::isinf(a)) return 0;
  const double lax = log_ax(a, x);
  const double ax = std::exp(lax);
  if (x > 1 && x > a) {
    const auto f = gamma_fraction(a, x, true);
    return -(ax * (f.ans * (std::log(x) - digamma_f64(a)) + f.dans_da));
  }
  const auto s = gamma_series(a, x, true);
  return ax * (s.ans * (std::log(x) - digamma_f64(a + 1)) + s.dans_da) / a;
}

double zeta_f64(double x, double q) {
  if (std::isnan(x) || std::isnan(q)) return kNaN;
  // XLA's order: a pole (integer q <= 0) decides first, then q <= 0 with x not an integer,
  // then x < 1, then x = 1.
  if (q <= 0 && q == std::floor(q)) return std::fmod(x, 2) == 0 ? kInf : kNaN;
  if (q <= 0 && x != std::floor(x)) return kNaN;
  if (x < 1) return kNaN;
  if (x == 1) return kInf;
  if (q > 1e8) return (1 / (x - 1) + 1 / (2 * q)) * std::pow(q, 1 - x);
  // (2k)! / B_2k, k = 1..12
  static constexpr double kA[12] = {12.0,
                                    -720.0,
                                    30240.0,
                                    -1209600.0,
                                    47900160.0,
                                    -1.8924375803183791606e9,
                                    7.47242496e10,
                                    -2.950130727918164224e12,
                                    1.1646782814350067249e14,
                                    -4.5979787224074726105e15,
                                    1.8152105401943546773e17,
                                    -7.1661652561756670113e18};
  double s = std::pow(q, -x), a = q, b = 0;
  int i = 0;
  while (i < 9 || a <= 9) {
    i += 1;
    a += 1;
    b = std::pow(a, -x);
    s += b;
    if (std::fabs(b / s) < kEps / 2) return s;
  }
  const double w = a;
  s += b * w / (x - 1);
  s -= 0.5 * b;
  double fac = 1, k = 0;
  for (int j = 0; j < 12; ++j) {
    fac *= x + k;
    b /= w;
    const double t = fac * b / kA[j];
    s += t;
    if (std::fabs(t / s) < kEps / 2) return s;
    k += 1;
    fac *= x + k;
    b /= w;
    k += 1;
  }
  return s;
}

double betainc_f64(double a, double b, double x) {
  const bool a_zero = a == 0 || b == kInf, b_zero = b == 0 || a == kInf;
  if (std::isnan(a) || std::isnan(b) || std::isnan(x) || a < 0 || b < 0 || x < 0 || x > 1 || (a_zero && b_zero)) return kNaN;
  if ((a_zero && x != 0) || (b_zero && x == 1)) return 1;
  if ((b_zero && x != 1) || (a_zero && x == 0)) return 0;
  const bool direct = x < (a + 1) / (a + b + 2);
  if (!direct) {
    std::swap(a, b);
    x = 1 - x;
  }
  const double lbeta_small_a = lgamma_f64(b) - lgamma_f64(a + b);
  const double factor = a < 2 * DBL_MIN ? std::exp(std::log1p(-x) * b - lbeta_small_a)
                                         : std::exp(std::log(x) * a + std::log1p(-x) * b - (lgamma_f64(a) + lbeta_small_a)) / a;
  const double r = beta_fraction(a, b, x) * factor;
  return direct ? r : 1 - r;
}

}  // namespace shard::codegen
