"""Expected output of special_gamma.shard, from float64 references rounded to float32:
CPython's math.lgamma, math.gamma and math.erfc, and digamma / polygamma written here from
their series (the recurrence up to 20, then the asymptotic series with Bernoulli numbers;
below 0 the reflection formula). Special values are the documented ones: Gamma is +-inf at
+-0 and NaN at the negative integers and -inf; lgamma is +inf at the poles; polygamma(m, inf)
is 0 with the sign of (-1)^(m+1). Derivatives are the functions' known derivatives
(lgamma' = digamma, digamma' = polygamma(1, .), d/da betaln = digamma(a) - digamma(a + b)).
Regenerate the .out with
    /usr/bin/python3 special_gamma_numpy.py > special_gamma.out
"""
import math

import numpy as np

INF, NAN = math.inf, math.nan
# B_2, B_4, ..., B_16
BERNOULLI = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510]


def show(name, values, digits):
    print(name, " ".join(f"{float(np.float32(v)):.{digits}g}" for v in values))


def is_pole(x):
    return x <= 0 and (math.isinf(x) or x == math.floor(x))


def lgamma(x):
    if math.isnan(x):
        return NAN
    return INF if math.isinf(x) or is_pole(x) else math.lgamma(x)


def polygamma(m, x):
    """psi^(m)(x) in float64 for non-pole x."""
    if math.isnan(x):
        return NAN
    if x == INF:
        return INF if m == 0 else math.copysign(0.0, (-1) ** (m + 1))
    if x < 0:  # reflection, m <= 3: (-1)^m psi^(m)(1 - x) - pi^(m+1) P_m(cot(pi x))
        c = 1 / math.tan(math.pi * x)
        p = [c, -(1 + c * c), 2 * c * (1 + c * c), -2 * (1 + c * c) * (1 + 3 * c * c)][m]
        return (-1) ** m * polygamma(m, 1 - x) - math.pi ** (m + 1) * p
    terms = []
    while x < 20:
        terms.append(-1 / x if m == 0 else (-1) ** (m + 1) * math.factorial(m) / x ** (m + 1))
        x += 1
    if m == 0:
        tail = math.log(x) - 0.5 / x - sum(b / (2 * (k + 1) * x ** (2 * k + 2)) for k, b in enumerate(BERNOULLI))
    else:
        s = math.factorial(m - 1) / x ** m + math.factorial(m) / (2 * x ** (m + 1))
        for k, b in enumerate(BERNOULLI, start=1):
            s += b * math.factorial(2 * k + m - 1) / (math.factorial(2 * k) * x ** (2 * k + m))
        tail = (-1) ** (m + 1) * s
    return math.fsum(terms + [tail])


def gammasgn(x):
    if math.isnan(x) or (x < 0 and is_pole(x)):
        return NAN
    if x == 0:
        return math.copysign(1.0, x)
    return -1.0 if x < 0 and math.floor(x) % 2 else 1.0


def gamma(x):
    if math.isnan(x) or x == -INF or (x < 0 and is_pole(x)):
        return NAN
    if x == 0:
        return math.copysign(INF, x)
    return INF if x == INF else math.gamma(x)


def ndtr(x):
    return 0.5 * math.erfc(-x / math.sqrt(2))


def ndtri(p):
    if p in (0.0, 0.5, 1.0):
        return {0.0: -INF, 0.5: 0.0, 1.0: INF}[p]
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if ndtr(mid) < p else (lo, mid)
    return (lo + hi) / 2


def betaln(a, b):
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


f32 = lambda vs: [float(np.float32(v)) for v in vs]
x = f32([0.25, 0.5, 1.0, 1.5, 2.0, 3.7, 10.0, 55.5, -0.5, -2.25, INF, NAN])
show("lgamma", [lgamma(v) for v in x], 7)
show("lgamma_poles", [lgamma(v) for v in [0.0, -0.0, -3.0, -INF]], 7)
show("digamma", [polygamma(0, v) for v in x], 7)
for m in [1, 2, 3]:
    show(f"polygamma{m}", [polygamma(m, v) for v in x], 7)
show("gammaln_int", [lgamma(v) for v in range(1, 8)], 7)
show("digamma_int", [polygamma(0, v) for v in range(1, 6)], 7)
show("polygamma_n", [polygamma(m, 2.5) for m in range(4)], 7)
show("jit_lgamma", [np.float32(lgamma(v)) - np.float32(polygamma(0, v)) for v in x[:8]], 6)
show("vmap_polygamma", [polygamma(1, v) for v in x[:8]], 7)

g = f32([0.5, 1.5, 4.0, 7.25, 20.5, -0.5, -1.5, -2.25, 0.0, -0.0, -4.0, INF, -INF])
show("gamma", [gamma(v) for v in g], 5)
show("gammasgn", [gammasgn(v) for v in g], 3)
show("factorial", [0.0 if n < 0 else math.gamma(n + 1) for n in [0, 1, 5, 10, 12, -1, 2.5]], 5)
a = f32([0.5, 1.0, 2.5, 3.0, 7.0, 30.0])
b = f32([0.5, 2.0, 1.5, 9.0, 40.0, 1000.0])
show("betaln", [betaln(p, q) for p, q in zip(a, b)], 5)
show("beta", [math.exp(betaln(p, q)) for p, q in zip(a[:4], b[:4])], 5)
show("multigammaln", [math.lgamma(v) + math.lgamma(v - 0.5) + 0.5 * math.log(math.pi) for v in [1.5, 3.0, 10.25]], 6)
show("entr", [-v * math.log(v) if v > 0 else -INF for v in f32([0.25, 1.0, 3.0, 1e-30, -1.0])], 6)
show("xlog1py", [0.0, 2.0 * math.log1p(0.5), -1.5 * math.log1p(3.0)], 6)
z = [-12.0, -5.0, -1.0, 0.0, 0.5, 2.0, 6.0]
show("ndtr", [ndtr(v) for v in z], 5)
show("log_ndtr", [math.log(ndtr(v)) if v < 0 else math.log1p(-ndtr(-v)) for v in z], 5)
show("ndtri", [ndtri(p) for p in f32([1e-20, 0.025, 0.3, 0.5, 0.9, 0.999, 0.0, 1.0])], 5)

show("grad_gammaln", [polygamma(0, v) for v in [0.5, 3.0, 12.5]], 7)
show("grad_digamma", [polygamma(1, v) for v in [0.5, 2.0, 12.5]], 7)
show("grad_polygamma1", [polygamma(2, 1.5)], 7)
show("jit_grad_betaln", [polygamma(0, 2.0) - polygamma(0, 5.0), polygamma(0, 3.0) - polygamma(0, 5.0)], 6)

for v in [0.5, 2.5, -2.5, 10.1, 100.3, 1e-05]:
    print(f"{math.lgamma(v):.12g} {math.gamma(v):.12g}")
print(math.lgamma(-math.inf), math.lgamma(math.inf), math.gamma(math.inf))
for f, v in [(math.lgamma, 0.0), (math.lgamma, -3.0), (math.gamma, -1.0), (math.gamma, 0.0), (math.lgamma, 1e308), (math.gamma, 200.0)]:
    try:
        f(v)
    except (ValueError, OverflowError) as e:
        print(f.__name__, v, type(e).__name__, e)
