#!/usr/bin/python3
"""Oracle for the gamma family and the normal distribution in jax.lax / jax.scipy.special.

References are computed here, independently of shard, in 40-digit decimal arithmetic
(Python's decimal module): lgamma by Stirling's series after the recurrence, digamma and
polygamma by their asymptotic (Bernoulli) series after the recurrence, with the reflection
formulas below 0 (exact integer coefficients for the derivatives of cot). The decimal lgamma
is itself checked against CPython's math.lgamma (and Gamma against math.gamma) first. The
normal distribution's references are float64 from math.erfc.

shard runs each case eagerly, under jit and on inputs sharded over 8 devices, in float32 and
(jax_enable_x64) float64. Tolerances, in units in the last place of the correctly rounded
result (ulp) where the primitive is computed to that accuracy:
  - lax.lgamma / digamma / polygamma, float32 (and float16 / bfloat16): <= 1 ulp (they are
    computed in float64 and rounded once; 0.5 is measured);
  - the same in float64: <= 4 ulp for lgamma and for x > 0; below 0, reflection subtracts
    terms of size S (pi cot(pi x) for digamma, pi^(m+1) P_m(cot(pi x)) for polygamma), and
    cot's own rounding is raised to the power m + 1: 4 ulp + 4 eps S + 2 (m + 1) ulp;
  - compositions (gamma, factorial, betaln, beta, multigammaln, ndtr, ndtri, log_ndtr, entr):
    the bound of their formula in float32 (JAX's formulas), stated with each case.
With -v the largest error of each case is printed.
Special values (poles, infinities, NaN) must match exactly (JAX's: NaN for digamma at the
poles, +inf for odd-order polygamma there, NaN for even).

usage: special_oracle.py SHARD_EXE [-v]
Prints `N passed, N failed` last; exit status 1 when anything failed.
"""
import functools
import math
import os
import subprocess
import sys
import tempfile
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np

getcontext().prec = 40
RNG = np.random.default_rng(20260311)
D = Decimal
PI = D("3.141592653589793238462643383279502884197169399375105820974944592")

# ---- 40-digit references ------------------------------------------------------------------


def _bernoulli(n):
    """B_0..B_n as Fractions (the Akiyama-Tanigawa algorithm; its B_1 is +1/2, unused here)."""
    out = []
    for m in range(n + 1):
        a = [Fraction(1, k + 1) for k in range(m + 1)]
        for i in range(m, 0, -1):
            for j in range(i):
                a[j] = (j + 1) * (a[j] - a[j + 1])
        out.append(a[0])
    return out


B = _bernoulli(42)
B2K = [D(B[2 * k].numerator) / D(B[2 * k].denominator) for k in range(21)]  # B2K[k] = B_2k


def _sin_cos_pi(x):
    """sin(pi r), cos(pi r) for r = x - round(x) (exact), by their Taylor series."""
    n = x.to_integral_value()
    r = x - n
    sign = -1 if int(n) % 2 else 1  # sin(pi (n + r)) = (-1)^n sin(pi r)
    if abs(r) == D("0.5"):  # cos is 0 exactly there (the series would leave 1e-40)
        return sign * (1 if r > 0 else -1), D(0)
    th = PI * r
    s, c, term_s, term_c, th2 = D(0), D(0), th, D(1), th * th
    for k in range(60):
        s += term_s
        c += term_c
        term_s = -term_s * th2 / ((2 * k + 2) * (2 * k + 3))
        term_c = -term_c * th2 / ((2 * k + 1) * (2 * k + 2))
    return sign * s, sign * c


def is_pole(x):  # 0, -1, -2, ..., -inf
    return x <= 0 and (math.isinf(x) or x == math.floor(x))


def lgamma_ref(x):
    if math.isnan(x):
        return math.nan
    if math.isinf(x) or is_pole(x):
        return math.inf
    if x in (1.0, 2.0):  # exactly 0 (the series would leave 1e-37)
        return 0.0
    d = D(x)
    if x < 0:  # log|Gamma(x)| = log(pi / |sin(pi x)|) - log|Gamma(1 - x)|
        s, _ = _sin_cos_pi(d)
        return float((PI / abs(s)).ln() - D(lgamma_dec(1 - d)))
    return float(lgamma_dec(d))


def lgamma_dec(z):
    prod = D(1)
    while z < 40:
        prod *= z
        z += 1
    s = (z - D("0.5")) * z.ln() - z + (2 * PI).ln() / 2
    for k in range(1, 21):
        s += B2K[k] / (2 * k * (2 * k - 1) * z ** (2 * k - 1))
    return s - prod.ln()


@functools.lru_cache(maxsize=None)
def _cot_poly(m):
    """Integer coefficients of P_m, d^m/dy^m cot(y) = P_m(cot y)."""
    p = [0, 1]
    for _ in range(m):
        q = [0] * (len(p) + 1)
        for i in range(1, len(p)):
            q[i - 1] -= i * p[i]
            q[i + 1] -= i * p[i]
        p = q
    return p


def _poly_eval(p, c):
    v = D(0)
    for a in reversed(p):
        v = v * c + a
    return v


def polygamma_magnitude_dec(m, z):
    """m! sum_k (z + k)^-(m+1) for z > 0."""
    s = D(0)
    while z < 40 + m:
        s += z ** -(m + 1)
        z += 1
    fact = D(math.factorial(m))
    if m == 0:
        raise ValueError
    asym = D(math.factorial(m - 1)) / z ** m + fact / (2 * z ** (m + 1))
    for k in range(1, 21):
        asym += B2K[k] * D(math.factorial(2 * k + m - 1)) / (D(math.factorial(2 * k)) * z ** (2 * k + m))
    return fact * s + asym


def digamma_dec(z):
    acc = D(0)
    while z < 40:
        acc -= 1 / z
        z += 1
    s = z.ln() - 1 / (2 * z)
    for k in range(1, 21):
        s -= B2K[k] / (2 * k * z ** (2 * k))
    return s + acc


def polygamma_ref(m, x):
    """(value, scale): scale is the size of the terms reflection subtracts (0 for x > 0)."""
    if math.isnan(x):
        return math.nan, 0
    if is_pole(x):
        return (math.inf if m % 2 else math.nan) if m else math.nan, 0
    if x == math.inf:
        return (math.inf if m == 0 else 0.0), 0
    d = D(x)
    if m == 0:
        if x < 0:  # psi(x) = psi(1 - x) - pi cot(pi x)
            s, c = _sin_cos_pi(d)
            refl = PI * c / s
            return float(digamma_dec(1 - d) - refl), float(abs(refl))
        return float(digamma_dec(d)), 0
    sign = 1 if m % 2 else -1
    if x < 0:  # psi^(m)(x) = (-1)^m psi^(m)(1 - x) - pi^(m+1) P_m(cot(pi x))
        s, c = _sin_cos_pi(d)
        refl = PI ** (m + 1) * _poly_eval(_cot_poly(m), c / s)
        return float(-polygamma_magnitude_dec(m, 1 - d) - refl), float(abs(refl))
    return float(sign * polygamma_magnitude_dec(m, d)), 0


def digamma_ref(x):
    return polygamma_ref(0, x)


# ---- inputs -------------------------------------------------------------------------------

def _points():
    u = RNG.uniform
    pts = [
        10.0 ** u(-30, -3, 24),            # tiny
        u(0, 3, 120),                      # around the minimum of Gamma and digamma's root
        1.4616321449683622 + u(-0.3, 0.3, 40),
        u(3, 40, 80),
        10.0 ** u(1.6, 30, 40),            # large
        u(-30, 0, 120),                    # negative, between the poles
        -np.arange(1, 9) + u(-1e-3, 1e-3, 8),  # next to the poles
        np.arange(1.0, 25.0),              # integers: lgamma of factorials, psi(n)
        [0.5, 1.5, 2.0, 1.0, -0.5, -2.5, 0.0, -0.0, -1.0, -3.0, np.inf, -np.inf, np.nan],
    ]
    x = np.concatenate([np.asarray(p, np.float64).ravel() for p in pts])
    pad = (-len(x)) % 8
    return np.concatenate([x, np.full(pad, 2.5)])


X64 = _points()
X32 = X64.astype(np.float32)
# Arguments of the compositions (float32 only).
A = np.concatenate([RNG.uniform(0.05, 6, 48), RNG.uniform(6, 300, 40)]).astype(np.float32)
Bv = np.concatenate([RNG.uniform(0.05, 6, 48), RNG.uniform(6, 3000, 40)]).astype(np.float32)
N = np.concatenate([np.arange(-3, 25), RNG.uniform(-2, 30, 60)]).astype(np.float32)
Z = np.concatenate([RNG.uniform(-30, 12, 80), [-20.0, -10.0, -5.0, 0.0, 5.0, 8.0, 40.0, -40.0]]).astype(np.float32)
Pr = np.concatenate([10.0 ** RNG.uniform(-30, 0, 40), RNG.uniform(0, 1, 40), 1 - 10.0 ** RNG.uniform(-7, -1, 8)]).astype(np.float32)
E = np.concatenate([RNG.uniform(0, 5, 80), [0.0, -1.0, 1.0, 1e-30, np.nan, np.inf, 2.0, 0.5]]).astype(np.float32)
INPUTS32 = {"x": X32, "a": A, "b": Bv, "n": N, "z": Z, "pr": Pr, "e": E}
INPUTS64 = {"x": X64}

# ---- cases --------------------------------------------------------------------------------

ORDERS = [1, 2, 3, 4, 7, 25]
ORDERS64 = [101, 102]  # large orders (float64: their values overflow float32)


def _vec(f, *arrs):
    out = [f(*(float(a[i]) for a in arrs)) for i in range(len(arrs[0]))]
    if isinstance(out[0], tuple):
        return np.array([o[0] for o in out]), np.array([o[1] for o in out])
    return np.array(out), np.zeros(len(out))


def cases(dtype):
    """(name, expression, input it runs over, reference(inputs) -> (values, scale), tolerance)."""
    c = [
        ("lax.lgamma", "jax.lax.lgamma(x)", "x", lambda v: _vec(lgamma_ref, v["x"]), "ulp"),
        ("lax.digamma", "jax.lax.digamma(x)", "x", lambda v: _vec(digamma_ref, v["x"]), "ulp:0"),
        ("gammaln", "jss.gammaln(x)", "x", lambda v: _vec(lgamma_ref, v["x"]), "ulp"),
        ("digamma", "jss.digamma(x)", "x", lambda v: _vec(digamma_ref, v["x"]), "ulp:0"),
    ]
    for m in ORDERS + (ORDERS64 if dtype == np.float64 else []):
        c.append((f"lax.polygamma({m})", f"jax.lax.polygamma(jnp.asarray({m}.0, x.dtype), x)", "x",
                  lambda v, m=m: _vec(lambda t: polygamma_ref(m, t), v["x"]), f"ulp:{m}"))
    c.append(("polygamma(2)", "jss.polygamma(2, x)", "x", lambda v: _vec(lambda t: polygamma_ref(2, t), v["x"]), "ulp:2"))
    if dtype == np.float64:
        return c
    c += [
        # 16-bit floats: computed in float32, rounded once more.
        ("lgamma_f16", "jax.lax.lgamma(x.astype(jnp.float16))", "x",
         lambda v: _vec(lgamma_ref, _f16(v["x"])), "ulp16"),
        ("digamma_bf16", "jax.lax.digamma(x.astype(jnp.bfloat16)).astype(jnp.float32)", "x",
         lambda v: _vec(digamma_ref, _bf16(v["x"])), "ulpbf16"),
        # gamma = gammasgn * exp(lgamma): exp turns lgamma's rounding into |lgamma| ulps.
        ("gamma", "jss.gamma(x)", "x", lambda v: _vec(_gamma_ref, v["x"]), "exp"),
        ("gammasgn", "jss.gammasgn(x)", "x", lambda v: _vec(_gammasgn_ref, v["x"]), "exact"),
        ("factorial", "jss.factorial(n)", "n", lambda v: _vec(lambda t: (0.0, 0.0) if t < 0 else _gamma_ref(t + 1), v["n"]), "exp"),
        ("betaln", "jss.betaln(a, b)", "a", lambda v: _betaln_ref(v["a"], v["b"]), "terms"),
        ("beta", "jss.beta(a, b * 0.01 + 0.1)", "a", lambda v: _beta_ref(v["a"], v["b"] * np.float32(0.01) + np.float32(0.1)), "exp"),
        ("multigammaln", "jss.multigammaln(a + 2, 3)", "a", lambda v: _multigammaln_ref(v["a"] + np.float32(2), 3), "terms"),
        ("entr", "jss.entr(e)", "e", lambda v: _vec(_entr_ref, v["e"]), "ulp4"),
        # The normal distribution: float32 rounding of x / sqrt(2) is amplified by the
        # relative condition number |x f'(x) / f(x)| (the scale), large in the tails.
        ("ndtr", "jss.ndtr(z)", "z", lambda v: _vec(_ndtr_ref, v["z"]), "cond"),
        ("ndtri", "jss.ndtri(pr)", "pr", lambda v: _vec(_ndtri_ref, v["pr"]), "ndtri"),
        ("log_ndtr", "jss.log_ndtr(z)", "z", lambda v: _vec(_log_ndtr_ref, v["z"]), "cond"),
        ("log_ndtr_order5", "jss.log_ndtr(z - 12, series_order=5)", "z", lambda v: _vec(_log_ndtr_ref, v["z"] - np.float32(12)), "cond"),
    ]
    return c


def _f16(v):
    with np.errstate(over="ignore"):
        return np.asarray(v, np.float32).astype(np.float16)


def _bf16(v):
    u = np.asarray(v, np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    return r.astype(np.uint32).view(np.float32)


def _gamma_ref(x):
    """(Gamma(x), |lgamma(x)|)."""
    if math.isnan(x) or x == -math.inf or is_pole(x) and x != 0:
        return math.nan, 0.0
    if x == 0:
        return math.copysign(math.inf, x), 0.0
    if x == math.inf:
        return math.inf, 0.0
    lg = lgamma_ref(x)
    return (_gammasgn_ref(x) * math.exp(lg) if lg < 709 else _gammasgn_ref(x) * math.inf), abs(lg)


def _gammasgn_ref(x):
    if math.isnan(x) or (x < 0 and is_pole(x)):
        return math.nan
    if x == 0:
        return math.copysign(1.0, x)
    if x > 0:
        return 1.0
    return -1.0 if math.floor(x) % 2 else 1.0


def _betaln_ref(a, b):
    """(betaln, |lgamma(a)| + |lgamma(b)| + |lgamma(a + b)|)."""
    terms = [np.array([lgamma_ref(float(t)) for t in arr]) for arr in (a, b, a.astype(np.float64) + b)]
    return terms[0] + terms[1] - terms[2], np.abs(terms[0]) + np.abs(terms[1]) + np.abs(terms[2])


def _beta_ref(a, b):
    v, scale = _betaln_ref(a, b)
    sgn = np.array([_gammasgn_ref(float(p)) * _gammasgn_ref(float(q)) * _gammasgn_ref(float(p) + float(q)) for p, q in zip(a, b)])
    return sgn * np.exp(v), scale


def _multigammaln_ref(a, d):
    terms = [np.array([lgamma_ref(float(t) - j / 2) for t in a]) for j in range(d)]
    const = d * (d - 1) / 4 * math.log(math.pi)
    return sum(terms) + const, sum(np.abs(t) for t in terms) + const


def _entr_ref(x):
    if math.isnan(x):
        return math.nan
    if x < 0 or x == math.inf:
        return -math.inf
    return -x * math.log(x) if x else 0.0


def _phi(x):
    return math.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def _ndtr_ref(x):
    """(ndtr(x), its relative condition number |x phi(x) / ndtr(x)|)."""
    v = 0.5 * math.erfc(-x / math.sqrt(2))
    return v, (abs(x) * _phi(x) / v if v > 0 else x * x)


def _log_ndtr_ref(x):
    """(log(ndtr(x)), its relative condition number)."""
    v, cond = _ndtr_ref(x)
    if v > 1e-300:
        lv = math.log(v) if v < 0.5 else math.log1p(-0.5 * math.erfc(x / math.sqrt(2)))
        # log of a float32 ndtr near 1 keeps only its absolute accuracy (JAX's formula up to
        # x = 5): the rounding of ndtr itself, 2^-24, counts too.
        return lv, ((cond + (1 if x <= 5 else 0)) / abs(lv) if lv != 0 else 0.0)
    # below erfc's normal range: the asymptotic series to convergence
    s, term = 1.0, 1.0
    for k in range(1, 20):
        term *= -(2 * k - 1) / (x * x)
        s += term
    return -0.5 * x * x - math.log(-x) - 0.5 * math.log(2 * math.pi) + math.log(s), 2.0


def _ndtri_ref(p):
    if p == 0:
        return -math.inf, 0.0
    if p == 1:
        return math.inf, 0.0
    # Newton on ndtr from a bracket found by bisection (float64).
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if _ndtr_ref(mid)[0] < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2, 0.0


# ---- comparing ----------------------------------------------------------------------------

def _ulp(v, dtype):
    v = np.abs(np.asarray(v, np.float64))
    info = np.finfo(dtype)
    e = np.floor(np.log2(np.maximum(v, info.tiny)))
    return np.maximum(2.0 ** (e - info.nmant), info.smallest_subnormal if hasattr(info, "smallest_subnormal") else info.tiny * info.eps)


def compare(kind, got, ref, scale, dtype, x):
    """None, or the problem; also the largest error in ulps (for reporting)."""
    got = np.asarray(got, np.float64)
    rdt = np.float16 if kind == "ulp16" else dtype
    with np.errstate(over="ignore", invalid="ignore"):
        if kind == "ulpbf16":
            ref_r = _bf16(np.asarray(ref, np.float32)).astype(np.float64)
        else:
            ref_r = np.asarray(ref, np.float64).astype(rdt).astype(np.float64)  # overflow -> inf
    special = ~np.isfinite(ref_r) | ~np.isfinite(got)
    bad_special = special & ~((np.isnan(ref_r) & np.isnan(got)) | (ref_r == got))
    if bad_special.any():
        k = int(np.argmax(bad_special))
        return f"special value at x={x.flat[k]!r}: got {got.flat[k]!r}, expected {ref_r.flat[k]!r}", 0
    if kind == "exact":
        ok = np.array_equal(got, ref_r, equal_nan=True)
        return (None if ok else "values differ"), 0
    fin = ~special
    with np.errstate(invalid="ignore"):
        err = np.where(fin, np.abs(got - np.asarray(ref, np.float64)), 0)
    if kind == "ulpbf16":
        unit = 2.0 ** (np.floor(np.log2(np.maximum(np.abs(ref_r), 1e-38))) - 7)
    else:
        unit = _ulp(ref_r, rdt)
    eps = float(np.finfo(dtype).eps)
    eps64 = float(np.finfo(np.float64).eps)  # the primitives compute in float64
    scale = np.where(fin, np.asarray(scale, np.float64), 0)
    ulps = np.where(fin, err / unit, 0)
    if kind.startswith("ulp:") or kind in ("ulp", "ulp16", "ulpbf16"):
        limit = (4.0 if dtype == np.float64 else 1.0) + 4 * eps64 * scale / unit
        if dtype == np.float64 and kind != "ulp16":
            # Below 0, cot(pi x)'s own rounding enters P_m(cot) raised to the power m + 1.
            m = int(kind[4:]) if kind.startswith("ulp:") else 0
            limit = limit + np.where(scale > 0, 2 * (m + 1), 0)
    elif kind == "ulp4":
        limit = np.full(err.shape, 4.0)
    elif kind == "exp":  # |d exp(l)| = exp(l) |dl|: lgamma's rounding becomes |lgamma| ulps
        limit = 4 + 2 * scale
    elif kind == "terms":  # a sum of lgammas: each term's rounding, in ulps of the result
        limit = 4 + 2 * eps * scale / unit
    elif kind == "cond":  # the argument's rounding times the condition number
        limit = 4 + 2 * scale
    elif kind == "ndtri":  # Cephes' rational approximations in float32: rtol 2e-6, atol 1e-6
        limit = (2e-6 * np.abs(ref_r) + 1e-6) / unit
    bad = fin & (ulps > limit)
    if bad.any():
        k = int(np.argmax(np.where(bad, ulps - limit, -np.inf)))
        return (f"{ulps[k]:.2f} ulp > {limit.flat[k]:.2f} at x={x.flat[k]!r}: got {got.flat[k]!r}, expected {float(np.asarray(ref).flat[k])!r}",
                float(np.max(ulps)))
    return None, float(np.max(ulps)) if ulps.size else 0.0


# ---- programs -----------------------------------------------------------------------------

PLACEMENTS = ["eager", "jit", "sharded"]


def program(tmp, dtype, inputs, cs, placement):
    x64 = dtype == np.float64
    lines = ["import jax"]
    if x64:
        lines.append("jax.config.update('jax_enable_x64', True)")
    lines += [
        "import jax.numpy as jnp",
        "import jax.scipy.special as jss",
        "import numpy as np",
        "from jax.sharding import PartitionSpec as P, NamedSharding",
        "mesh = jax.make_mesh((8,), ('d',))",
    ]
    for name in inputs:
        lines.append(f"{name} = jnp.asarray(np.load({os.path.join(tmp, name + '.npy')!r}))")
        if placement == "sharded":
            lines.append(f"{name} = jax.device_put({name}, NamedSharding(mesh, P('d')))")
    args = ", ".join(inputs)
    for k, (name, expr, _, _, _) in enumerate(cs):
        body = expr if placement == "eager" else f"jax.jit(lambda {args}: {expr})({args})"
        out = os.path.join(tmp, f"{placement}_{k}.npy")
        lines += ["try:", f"    r = {body}", f"    np.save({out!r}, np.asarray(r).astype(np.float64))",
                  f"    print('dtype', {k}, r.dtype)", "except Exception as e:", f"    print('error', {k}, type(e).__name__, e)"]
    return "\n".join(lines) + "\n"


def self_check():
    """The decimal references against CPython's own float64 lgamma and gamma."""
    problems = []
    for x in list(X64[np.isfinite(X64)]) + [0.25, 7.5, 100.5, -7.25]:
        x = float(x)
        if is_pole(x):
            continue
        ref = lgamma_ref(x)
        if abs(ref - math.lgamma(x)) > 1e-13 * max(1.0, abs(ref)):
            problems.append(f"lgamma({x!r}): decimal {ref!r}, math.lgamma {math.lgamma(x)!r}")
        if -170 < x < 170:
            g = _gamma_ref(x)[0]
            try:
                mg = math.gamma(x)
            except (OverflowError, ValueError):
                continue
            if g != 0 and abs(g - mg) > 1e-12 * abs(mg) and math.isfinite(mg):
                problems.append(f"gamma({x!r}): {g!r} vs math.gamma {mg!r}")
    # psi(1) = -Euler's gamma; psi'(1) = pi^2/6; psi''(1) = -2 zeta(3)
    for (m, x, want) in [(0, 1.0, -0.5772156649015329), (1, 1.0, math.pi ** 2 / 6), (2, 1.0, -2.4041138063191885),
                         (0, 0.5, -1.9635100260214235), (1, 0.5, math.pi ** 2 / 2)]:
        got = polygamma_ref(m, x)[0]
        if abs(got - want) > 1e-15 * abs(want):
            problems.append(f"polygamma({m}, {x}): {got!r}, want {want!r}")
    # digamma is lgamma's derivative: central differences of math.lgamma.
    for x in [0.3, 1.7, 4.2, 13.0, -0.4, -3.7]:
        h = 1e-5
        fd = (math.lgamma(x + h) - math.lgamma(x - h)) / (2 * h)
        if abs(fd - digamma_ref(x)[0]) > 1e-8 * max(1, abs(fd)):
            problems.append(f"digamma({x}) = {digamma_ref(x)[0]!r}, finite differences of math.lgamma {fd!r}")
    return problems


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    shard = os.path.abspath(argv[1])
    verbose = "-v" in argv
    passed = failed = 0
    problems = self_check()
    for p in problems:
        print("FAIL reference:", p)
    failed += len(problems)
    passed += 0 if problems else 1
    worst = {}
    with tempfile.TemporaryDirectory() as tmp:
        for dtype, inputs in [(np.float32, INPUTS32), (np.float64, INPUTS64)]:
            tag = np.dtype(dtype).name
            sub = os.path.join(tmp, tag)
            os.makedirs(sub)
            for name, arr in inputs.items():
                np.save(os.path.join(sub, name + ".npy"), arr)
            cs = cases(dtype)
            refs = [c[3](inputs) for c in cs]
            for placement in PLACEMENTS:
                path = os.path.join(sub, placement + ".shard")
                with open(path, "w") as f:
                    f.write(program(sub, dtype, inputs, cs, placement))
                proc = subprocess.run([shard, "--devices", "8", path], capture_output=True, text=True, timeout=1200)
                dtypes, errors = {}, {}
                for line in proc.stdout.splitlines():
                    parts = line.split(" ", 2)
                    if len(parts) == 3 and parts[0] in ("dtype", "error"):
                        (dtypes if parts[0] == "dtype" else errors)[int(parts[1])] = parts[2]
                if proc.returncode != 0:
                    print(f"[{tag} {placement}] shard exited with {proc.returncode}:\n{proc.stderr[-2000:]}")
                    failed += 1
                for k, (name, expr, key, _, kind) in enumerate(cs):
                    label = f"[{tag} {placement}] {name}"
                    if k in errors or k not in dtypes:
                        failed += 1
                        print(f"FAIL {label} ({expr}): {errors.get(k, 'no result')}")
                        continue
                    want_dtype = {"lgamma_f16": "float16", "digamma_bf16": "float32"}.get(name, tag)
                    if dtypes[k] != want_dtype:
                        failed += 1
                        print(f"FAIL {label}: dtype {dtypes[k]}, expected {want_dtype}")
                        continue
                    got = np.load(os.path.join(sub, f"{placement}_{k}.npy"))
                    ref, scale = refs[k]
                    problem, ulps = compare(kind, got, ref, scale, dtype, inputs[key])
                    worst[(tag, name)] = max(worst.get((tag, name), 0), ulps)
                    if problem:
                        failed += 1
                        print(f"FAIL {label} ({expr}): {problem}")
                    else:
                        passed += 1
                        if verbose:
                            print(f"ok {label}: max {ulps:.2f} ulp")
    if verbose:
        for (tag, name), u in sorted(worst.items()):
            print(f"largest error {tag} {name}: {u:.2f} ulp")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
