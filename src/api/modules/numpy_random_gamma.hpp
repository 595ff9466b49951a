// numpy's gamma-family samplers over a source of variates, so Generator (float64 and float32,
// on the ziggurats) and RandomState (the polar normal, exponential by inversion) share one
// statement of each: standard_gamma (Marsaglia & Tsang for shape >= 1, rejection from the
// exponential below 1) and beta (Johnk's algorithm when a, b <= 1, else a ratio of gammas).
// `Src` gives uniform(), exponential() and normal() in the type `Real`.
#pragma once
#include <cmath>

namespace shard::api::np::gamma {

template <class Real, class Src>
Real standard_gamma(Src& s, Real shape) {
  if (shape == Real(1)) return s.exponential();
  if (shape == Real(0)) return 0;
  if (shape < Real(1)) {
    for (;;) {
      const Real u = s.uniform();
      const Real v = s.exponential();
      if (u <= Real(1) - shape) {
        const Real x = std::pow(u, Real(1) / shape);
        if (x <= v) return x;
      } else {
        const Real y = -std::log((Real(1) - u) / shape);
        const Real x = std::pow(Real(1) - shape + shape * y, Real(1) / shape);
        if (x <= v + y) return x;
      }
    }
  }
  const Real b = shape - Real(1) / Real(3);
  const Real c = Real(1) / std::sqrt(Real(9) * b);
  for (;;) {
    Real x, v;
    do {
      x = s.normal();
      v = Real(1) + c * x;
    } while (v <= Real(0));
    v = v * v * v;
    const Real u = s.uniform();
    if (u < Real(1) - Real(0.0331) * (x * x) * (x * x)) return b * v;
    if (std::log(u) < Real(0.5) * x * x + b * (Real(1) - v + std::log(v))) return b * v;
  }
}

// `legacy`: RandomState's acceptance test, which also takes X + Y == 0 (then in logs).
template <class Src>
double beta(Src& s, double a, double b, bool legacy) {
  if (a <= 1.0 && b <= 1.0) {
    for (;;) {
      const double u = s.uniform();
      const double v = s.uniform();
      const double x = std::pow(u, 1.0 / a), y = std::pow(v, 1.0 / b);
      const double sum = x + y;
      if (sum <= 1.0 && (legacy || sum > 0.0)) {
        if (sum > 0) return x / sum;
        double log_x = std::log(u) / a, log_y = std::log(v) / b;
        const double log_m = log_x > log_y ? log_x : log_y;
        log_x -= log_m;
        log_y -= log_m;
        return std::exp(log_x - std::log(std::exp(log_x) + std::exp(log_y)));
      }
    }
  }
  const double ga = standard_gamma<double>(s, a);
  const double gb = standard_gamma<double>(s, b);
  return ga / (ga + gb);
}

}  // namespace shard::api::np::gamma
