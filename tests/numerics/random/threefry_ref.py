"""An independent numpy model of JAX's threefry2x32 PRNG (partitionable mode, JAX >= 0.5).

Written from the Threefry specification (Salmon et al., "Parallel random numbers: as easy as
1, 2, 3", SC'11; Random123's threefry2x32 with 20 rounds) and JAX's documented key schedule:
counters are the row-major uint64 index of each output element split into (high, low)
uint32 words; split/bits/fold_in/uniform/normal/randint as jax.random defines them.
Everything is uint32 numpy arithmetic (wrapping), so it shares no code with shard.
"""
import math

import numpy as np

U32 = np.uint32
ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
PARITY = U32(0x1BD11BDA)


def rotl(x, r):
    return (x << U32(r)) | (x >> U32(32 - r))


def threefry2x32(k0, k1, x0, x1):
    """Threefry-2x32, 20 rounds; all arguments broadcast uint32 arrays."""
    with np.errstate(over="ignore"):
        k0, k1 = U32(k0), U32(k1)
        ks = (k0, k1, k0 ^ k1 ^ PARITY)
        x0 = np.asarray(x0, dtype=U32) + ks[0]
        x1 = np.asarray(x1, dtype=U32) + ks[1]
        for group in range(5):
            for r in ROTATIONS[group % 2]:
                x0 = x0 + x1
                x1 = rotl(x1, r) ^ x0
            x0 = x0 + ks[(group + 1) % 3]
            x1 = x1 + ks[(group + 2) % 3] + U32(group + 1)
        return x0.astype(U32), x1.astype(U32)


def seed(s):
    return np.array([0, s & 0xFFFFFFFF], dtype=U32)


def counters(shape):
    n = math.prod(shape)
    idx = np.arange(n, dtype=np.uint64).reshape(shape)
    return (idx >> np.uint64(32)).astype(U32), (idx & np.uint64(0xFFFFFFFF)).astype(U32)


def split(key, num=2):
    shape = (num,) if isinstance(num, int) else tuple(num)
    hi, lo = counters(shape)
    a, b = threefry2x32(key[0], key[1], hi, lo)
    return np.stack([a, b], axis=-1)


def fold_in(key, data):
    a, b = threefry2x32(key[0], key[1], U32(0), U32(data & 0xFFFFFFFF))
    return np.array([a, b], dtype=U32)


def bits(key, shape):
    hi, lo = counters(shape)
    a, b = threefry2x32(key[0], key[1], hi, lo)
    return a ^ b


def uniform(key, shape, minval=0.0, maxval=1.0):
    b = bits(key, shape)
    f = ((b >> U32(9)) | U32(0x3F800000)).view(np.float32) - np.float32(1)
    lo, hi = np.float32(minval), np.float32(maxval)
    return np.maximum(lo, f * (hi - lo) + lo)


_SMALL = [2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
          -0.00125372503, -0.00417768164, 0.246640727, 1.50140941]
_LARGE = [-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
          -0.0076224613, 0.00943887047, 1.00167406, 2.83297682]


def erfinv32(x):
    """Giles' single-precision erfinv approximation, evaluated in float32."""
    x = np.asarray(x, np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = -np.log1p(-x * x)
        lt = w < np.float32(5)
        wr = np.where(lt, w - np.float32(2.5), np.sqrt(w) - np.float32(3)).astype(np.float32)
        p = np.where(lt, np.float32(_SMALL[0]), np.float32(_LARGE[0])).astype(np.float32)
        for s, l in zip(_SMALL[1:], _LARGE[1:]):
            p = (np.where(lt, np.float32(s), np.float32(l)) + p * wr).astype(np.float32)
        return np.where(np.abs(x) == 1, x * np.float32(np.inf), p * x).astype(np.float32)


def normal(key, shape):
    lo = np.nextafter(np.float32(-1), np.float32(0))
    u = uniform(key, shape, lo, 1.0)
    return (np.float32(np.sqrt(2)) * erfinv32(u)).astype(np.float32)


def truncated_normal(key, lower, upper, shape):
    import math
    sqrt2 = np.float32(np.sqrt(2))
    a = np.float32(math.erf(float(np.float32(lower) / sqrt2)))
    b = np.float32(math.erf(float(np.float32(upper) / sqrt2)))
    out = (sqrt2 * erfinv32(uniform(key, shape, a, b))).astype(np.float32)
    return np.clip(out, np.nextafter(np.float32(lower), np.float32(np.inf)), np.nextafter(np.float32(upper), np.float32(-np.inf)))


def randint(key, shape, minval, maxval):
    k = split(key)
    hb, lb = bits(k[0], shape), bits(k[1], shape)
    lo = np.broadcast_to(np.int32(minval), shape).astype(np.int64)
    hi = np.broadcast_to(np.int32(maxval), shape).astype(np.int64)
    span = ((hi - lo) & 0xFFFFFFFF)
    span = np.where(hi <= lo, 1, span)

    def rem(a, b):
        return np.where(b == 0, a, a % np.where(b == 0, 1, b))

    mult = rem(np.int64(65536), span)
    mult = rem((mult * mult) & 0xFFFFFFFF, span)
    off = ((rem(hb.astype(np.int64), span) * mult) + rem(lb.astype(np.int64), span)) & 0xFFFFFFFF
    off = rem(off, span)
    return ((lo + off) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)


def permutation(key, n):
    x = np.arange(n)
    rounds = int(np.ceil(3 * np.log(max(1, n)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(rounds):
        k = split(key)
        key, sub = k[0], k[1]
        order = np.argsort(bits(sub, (n,)), kind="stable")
        x = x[order]
    return x.astype(np.int32)


# ---- transforms of uniform / normal / bernoulli draws (JAX's jax/_src/random formulas) ------
F32 = np.float32
_FI = np.finfo(np.float32)


def exponential(key, shape):
    return (-np.log1p(-uniform(key, shape))).astype(F32)


def gumbel(key, shape, mode="low"):
    if mode == "low":
        return (-np.log(-np.log(uniform(key, shape, _FI.tiny, 1.0)))).astype(F32)
    both = uniform(key, (2,) + tuple(shape))
    high, low = both[0], both[1]
    x = np.where(high >= F32(0.5), high, high + F32(2.0 ** -23) * low + F32(max(2.0 ** -47, float(_FI.tiny))))
    return (-np.log(-np.log1p(-x))).astype(F32)


def laplace(key, shape):
    u = uniform(key, shape, F32(-1.0) + _FI.epsneg, 1.0)
    return (np.sign(u) * np.log1p(-np.abs(u))).astype(F32)


def logistic(key, shape):
    x = uniform(key, shape, _FI.tiny, 1.0)
    return (np.log(x) - np.log1p(-x)).astype(F32)


def cauchy(key, shape):
    u = uniform(key, shape, _FI.eps, 1.0)
    return np.tan(F32(np.pi) * (u - F32(0.5))).astype(F32)


def rademacher(key, shape):
    return np.asarray(2 * (uniform(key, shape) < F32(0.5)).astype(np.int32) - 1, np.int32)


def lognormal(key, sigma, shape):
    return np.exp(normal(key, shape) * F32(sigma)).astype(F32)


def pareto(key, b, shape):
    return np.exp(exponential(key, shape) / F32(b)).astype(F32)


def weibull_min(key, scale, concentration, shape):
    e = -np.log1p(-uniform(key, shape))
    return (np.power(e, F32(1.0) / F32(concentration)) * F32(scale)).astype(F32)


def rayleigh(key, scale, shape):
    return (F32(scale) * np.sqrt(np.log(uniform(key, shape)) * F32(-2))).astype(F32)


def maxwell(key, shape):
    n = normal(key, tuple(shape) + (3,))
    return np.sqrt((n * n).sum(-1, dtype=F32)).astype(F32)


def categorical(key, logits, shape):
    """The Gumbel-max trick over the last axis; `shape` ends with logits.shape[:-1]."""
    logits = np.asarray(logits, F32)
    prefix = tuple(shape[:len(shape) - (logits.ndim - 1)])
    g = gumbel(key, prefix + logits.shape)
    return np.argmax(g + logits, axis=-1).astype(np.int32)


def categorical_without_replacement(key, logits, shape):
    """The Gumbel top-k trick over the last axis: shape = prefix + logits.shape[:-1]."""
    logits = np.asarray(logits, F32)
    batch = logits.shape[:-1]
    k = int(np.prod(shape[:len(shape) - len(batch)], dtype=np.int64))
    perturbed = logits + gumbel(key, logits.shape)
    order = np.argsort(-perturbed, axis=-1, kind="stable")[..., :k]  # largest first, ties by index
    return np.moveaxis(order, -1, 0).reshape(shape).astype(np.int32)


# ---- the gamma family (JAX's _gamma_one: Marsaglia-Tsang with the alpha < 1 boost) ----------
# Per element, with the element's own key from split(key, n), as vmap(_gamma_one) computes it:
# scalar float32 arithmetic step by step (every constant wrapped, so numpy 1.x never widens).


def _f(x):
    return np.float32(x)


def gamma_one(key, alpha, log_space=False):
    one, zero = _f(1), _f(0)
    alpha = _f(alpha)
    boost_mask = alpha >= one
    a = alpha if boost_mask else _f(alpha + one)
    d = _f(a - _f(1.0 / 3.0))
    c = _f(_f(1.0 / 3.0) / np.sqrt(d))
    ks = split(key, 2)
    k, subkey = ks[0], ks[1]

    def rejected(X, V, U):
        first = U >= _f(one - _f(_f(0.0331) * _f(X * X)))
        with np.errstate(divide="ignore", invalid="ignore"):
            second = np.log(U) >= _f(_f(X * _f(0.5)) + _f(d * _f(_f(one - V) + np.log(V))))
        return bool(first and second)

    X, V, U = zero, one, _f(2)
    while rejected(X, V, U):
        ks = split(k, 3)
        k, x_key, u_key = ks[0], ks[1], ks[2]
        x, v = zero, _f(-1)
        while v <= zero:
            s = split(x_key, 2)
            x_key, sk = s[0], s[1]
            x = _f(normal(sk, ()))
            v = _f(one + _f(x * c))
        X = _f(x * x)
        V = _f(_f(v * v) * v)
        U = _f(uniform(u_key, ()))
    if log_space:
        log_samples = _f(np.log1p(-_f(uniform(subkey, ()))))  # -exponential
        log_boost = zero if (boost_mask or log_samples == zero) else _f(log_samples * _f(one / alpha))
        return _f(_f(np.log(d) + np.log(V)) + log_boost)
    samples = _f(one - _f(uniform(subkey, ())))
    boost = one if boost_mask else _f(np.power(samples, _f(one / alpha)))
    return _f(_f(d * V) * boost)


def gamma(key, a, shape, log_space=False):
    a = np.broadcast_to(np.asarray(a, F32), shape).ravel()
    n = a.size
    out = np.zeros(n, F32)
    if n:
        keys = split(key, n)
        for i in range(n):
            out[i] = gamma_one(keys[i], a[i], log_space)
    return out.reshape(shape)


def loggamma(key, a, shape):
    return gamma(key, a, shape, log_space=True)


def beta(key, a, b, shape):
    ks = split(key, 2)
    la = loggamma(ks[0], a, shape)
    lb = loggamma(ks[1], b, shape)
    m = np.maximum(la, lb)
    ga, gb = np.exp(la - m).astype(F32), np.exp(lb - m).astype(F32)
    return (ga / (ga + gb)).astype(F32)


def dirichlet(key, alpha, shape):
    alpha = np.asarray(alpha, F32)
    lg = loggamma(key, alpha, tuple(shape) + alpha.shape[-1:])
    e = np.exp(lg - lg.max(-1, keepdims=True)).astype(F32)
    return (e / e.sum(-1, keepdims=True, dtype=F32)).astype(F32)


def chisquare(key, df, shape):
    half = (np.asarray(df, F32) / F32(2)).astype(F32)
    return (np.exp(loggamma(key, half, shape)) * F32(2)).astype(F32)


def f_dist(key, dfnum, dfden, shape):
    ks = split(key, 2)
    num = chisquare(ks[1], dfnum, shape) / F32(dfnum)
    den = chisquare(ks[0], dfden, shape) / F32(dfden)
    return (num / den).astype(F32)


def student_t(key, df, shape):
    ks = split(key, 2)
    n = normal(ks[0], shape)
    half = (np.asarray(df, F32) / F32(2)).astype(F32)
    g = gamma(ks[1], half, shape)
    return (n * np.sqrt(half / g)).astype(F32)


def rademacher_f(key, shape):
    return (F32(2) * (uniform(key, shape) < F32(0.5)).astype(F32) - F32(1)).astype(F32)


def generalized_normal(key, p, shape):
    ks = split(key, 2)
    g = gamma(ks[0], 1 / p, shape)
    r = rademacher_f(ks[1], shape)
    return (r * np.power(g, F32(1 / p))).astype(F32)


def ball(key, d, p, shape):
    ks = split(key, 2)
    g = generalized_normal(ks[0], p, tuple(shape) + (d,))
    e = exponential(ks[1], shape)
    s = (np.abs(g) ** p).astype(F32).sum(-1, dtype=F32)
    return (g / np.power(s + e, F32(1 / p))[..., None]).astype(F32)


# ---- counting samplers: whole-array rejection loops, one key per iteration ---------------------


def poisson(key, lam, shape):
    lam = np.broadcast_to(np.asarray(lam, F32), shape).astype(F32)
    use_knuth = np.isnan(lam) | (lam < F32(10))
    lam_k = np.where(use_knuth, lam, F32(0)).astype(F32)
    lam_r = np.where(use_knuth, F32(1e5), lam).astype(F32)
    # Knuth
    k = np.zeros(shape, np.int32)
    log_prod = np.zeros(shape, F32)
    rng = key
    while (log_prod > -lam_k).any():
        s = split(rng, 2)
        rng, sub = s[0], s[1]
        k = np.where(log_prod > -lam_k, k + 1, k)
        with np.errstate(divide="ignore"):
            log_prod = (log_prod + np.log(uniform(sub, shape))).astype(F32)
    knuth = k - 1
    # transformed rejection
    log_lam = np.log(lam_r)
    b = (F32(0.931) + F32(2.53) * np.sqrt(lam_r)).astype(F32)
    a = (F32(-0.059) + F32(0.02483) * b).astype(F32)
    inv_alpha = (F32(1.1239) + F32(1.1328) / (b - F32(3.4))).astype(F32)
    v_r = (F32(0.9277) - F32(3.6224) / (b - F32(2))).astype(F32)
    k_out = np.full(shape, F32(-1))
    accepted = np.zeros(shape, bool)
    rng = key
    lgamma = np.vectorize(lambda x: F32(math.lgamma(float(x))) if x > 0 else F32(np.inf), otypes=[F32])
    while (~accepted).any():
        s = split(rng, 3)
        rng = s[0]
        u = (uniform(s[1], shape) - F32(0.5)).astype(F32)
        v = uniform(s[2], shape)
        us = (F32(0.5) - np.abs(u)).astype(F32)
        kk = np.floor(((F32(2) * a / us + b) * u + lam_r + F32(0.43)).astype(F32))
        with np.errstate(divide="ignore", invalid="ignore"):
            ss = np.log((v * inv_alpha / (a / (us * us) + b)).astype(F32))
            tt = (-lam_r + kk * log_lam - lgamma(kk + F32(1))).astype(F32)
        accept1 = (us >= F32(0.07)) & (v <= v_r)
        reject = (kk < 0) | ((us < F32(0.013)) & (v > us))
        accept = accept1 | (~reject & (ss <= tt))
        k_out = np.where(accept, kk, k_out)
        accepted |= accept
    rej = k_out.astype(np.int32)
    out = np.where(use_knuth, knuth, rej)
    return np.where(lam == 0, 0, out).astype(np.int32)


_STIRLING = [0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
             0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
             0.00925546218271273, 0.00833056343336287]


def _stirling_tail(k):
    use = k <= F32(9)
    kc = np.clip(k, F32(0), F32(9)).astype(F32)
    kp1sq = ((kc + F32(1)) * (kc + F32(1))).astype(F32)
    approx = ((F32(1.0 / 12) - (F32(1.0 / 360) - F32(1.0 / 1260) / kp1sq) / kp1sq) / (kc + F32(1))).astype(F32)
    with np.errstate(invalid="ignore"):
        idx = np.clip(np.nan_to_num(np.floor(kc), nan=0), 0, 9).astype(np.int32)
    table = np.asarray(_STIRLING, F32)[idx]
    return np.where(use, table, approx).astype(F32)


def binomial(key, n, p, shape):
    with np.errstate(all="ignore"):  # NaN and infinite counts run through, as in JAX
        return _binomial(key, n, p, shape)


def _binomial(key, n, p, shape):
    prob = np.broadcast_to(np.asarray(p, F32), shape).astype(F32)
    count = np.broadcast_to(np.asarray(n, F32), shape).astype(F32)
    p_lt_half = prob < F32(0.5)
    q = np.where(p_lt_half, prob, F32(1) - prob).astype(F32)
    count_nan_or_neg = np.isnan(count) | (count < 0)
    count_inf = np.isinf(count)
    q_is_nan = np.isnan(q)
    q_l_0 = q < 0
    q = np.where(q_is_nan | q_l_0, F32(0.01), q).astype(F32)
    use_inv = count_nan_or_neg | (count * q <= F32(10))
    count = np.floor(count)
    count_inv = np.where(use_inv, count, F32(0)).astype(F32)
    count_b = np.where(use_inv, F32(1e4), count).astype(F32)
    q_b = np.where(use_inv, F32(0.5), q).astype(F32)
    # inversion
    log1mp = np.log1p(-q).astype(F32)
    num = np.zeros(shape, F32)
    gsum = np.zeros(shape, F32)
    rng = key
    while (gsum <= count_inv).any():
        s = split(rng, 2)
        sub, rng = s[0], s[1]
        num = np.where(gsum <= count_inv, num + F32(1), num).astype(F32)
        with np.errstate(divide="ignore"):
            geom = np.ceil((np.log(uniform(sub, shape)) / log1mp).astype(F32))
        gsum = (gsum + geom).astype(F32)
    inv = (num - F32(1)).astype(F32)
    # btrs
    cnt, pr = count_b, q_b
    stddev = np.sqrt(cnt * pr * (F32(1) - pr)).astype(F32)
    b = (F32(1.15) + F32(2.53) * stddev).astype(F32)
    a = (F32(-0.0873) + F32(0.0248) * b + F32(0.01) * pr).astype(F32)
    c = (cnt * pr + F32(0.5)).astype(F32)
    v_r = (F32(0.92) - F32(4.2) / b).astype(F32)
    r = (pr / (F32(1) - pr)).astype(F32)
    alpha = ((F32(2.83) + F32(5.1) / b) * stddev).astype(F32)
    m = np.floor((cnt + F32(1)) * pr).astype(F32)
    k_out = np.full(shape, F32(-1))
    accepted = np.zeros(shape, bool)
    rng = key
    while (~accepted).any():
        s = split(rng, 3)
        rng = s[0]
        u = uniform(s[1], shape)
        v = uniform(s[2], shape)
        u = (u - F32(0.5)).astype(F32)
        us = (F32(0.5) - np.abs(u)).astype(F32)
        accept1 = (us >= F32(0.07)) & (v <= v_r)
        k = np.floor(((F32(2) * a / us + b) * u + c).astype(F32))
        reject = (k < 0) | (k > cnt)
        with np.errstate(divide="ignore", invalid="ignore"):
            v = np.log((v * alpha / (a / (us * us) + b)).astype(F32))
            ub = ((m + F32(0.5)) * np.log((m + F32(1)) / (r * (cnt - m + F32(1))))
                  + (cnt + F32(1)) * np.log((cnt - m + F32(1)) / (cnt - k + F32(1)))
                  + (k + F32(0.5)) * np.log(r * (cnt - k + F32(1)) / (k + F32(1)))
                  + _stirling_tail(m) + _stirling_tail(cnt - m) - _stirling_tail(k) - _stirling_tail(cnt - k)).astype(F32)
        accept = accept1 | (~reject & (v <= ub))
        k_out = np.where(accept, k, k_out).astype(F32)
        accepted |= accept
    samples = np.where(use_inv, inv, k_out).astype(F32)
    invalid = q_l_0 | q_is_nan | count_nan_or_neg
    samples = np.where(invalid, F32(np.nan), samples)
    samples = np.where(count_inf & ~invalid, F32(np.inf), samples)
    return np.where(p_lt_half | count_nan_or_neg | q_is_nan | count_inf, samples, count - samples).astype(F32)


def geometric(key, p, shape):
    u = uniform(key, shape)
    u = np.where(u == 0, F32(1), u)
    g = np.floor(np.log(u) / np.log1p(-F32(p))) + F32(1)
    return g.astype(F32).astype(np.int32)


def triangular(key, left, mode, right, shape):
    left, mode, right = F32(left), F32(mode), F32(right)
    fc = (mode - left) / (right - left)
    u = uniform(key, shape)
    out1 = left + np.sqrt(u * (right - left) * (mode - left))
    out2 = right - np.sqrt((F32(1) - u) * (right - left) * (right - mode))
    return np.where(u < fc, out1, out2).astype(F32)


def wald(key, mean, shape):
    ks = split(key, 2)
    mean = np.broadcast_to(F32(mean), shape).astype(F32)
    v = normal(ks[0], shape)
    z = uniform(ks[1], shape)
    y = v * v
    y_sq = y * y
    mean_sq = mean * mean
    sqrt_term = np.sqrt(F32(4) * mean * y + mean_sq * y_sq)
    x = mean + mean_sq * y / F32(2) - mean / F32(2) * sqrt_term
    return np.where(z <= mean / (mean + x), x, mean_sq / x).astype(F32)


def double_sided_maxwell(key, loc, scale, shape):
    ks = split(key, 2)
    m = maxwell(ks[0], shape)
    sign = rademacher_f(ks[1], shape)
    return (sign * m * F32(scale) + F32(loc)).astype(F32)


def orthogonal(key, n, shape, m=None):
    m = n if m is None else m
    z = normal(key, tuple(shape) + (max(n, m), min(n, m))).astype(np.float64)
    q, r = np.linalg.qr(z)
    d = np.diagonal(r, axis1=-2, axis2=-1)
    x = q * np.expand_dims(np.sign(d), -2)
    return (np.swapaxes(x, -1, -2) if n < m else x).astype(F32)


def multivariate_normal_cholesky(key, mean, cov, shape):
    mean = np.asarray(mean, np.float64)
    cov = np.asarray(cov, np.float64)
    factor = np.linalg.cholesky(cov)
    z = normal(key, tuple(shape) + mean.shape[-1:]).astype(np.float64)
    return (mean + np.einsum('...ij,...j->...i', factor, z)).astype(F32)


def multinomial(key, n, p, shape):
    p = np.broadcast_to(np.asarray(p, F32), shape).astype(F32)
    n = np.broadcast_to(np.asarray(n, F32), shape[:-1]).astype(F32)
    p = np.moveaxis(p, -1, 0)
    remaining = np.flip(np.cumsum(np.flip(p, 0), 0, dtype=F32), 0)
    ratios = (p / np.where(remaining == 0, F32(1), remaining)).astype(F32)
    keys = split(key, ratios.shape[0])
    counts = []
    rem = n
    for i in range(ratios.shape[0]):
        cnt = binomial(keys[i], rem, np.clip(ratios[i], F32(0), F32(1)), rem.shape)
        counts.append(cnt)
        rem = (rem - cnt).astype(F32)
    return np.moveaxis(np.stack(counts), 0, -1).astype(F32)


# ---- d sample / d alpha of Gamma(alpha) samples: the implicit derivative ---------------------
# -(dP/da) / (dP/dx) of the regularized lower incomplete gamma P(a, x), in float64: P by its
# series (x < a + 1) or Lentz's continued fraction for Q = 1 - P (Numerical Recipes' gammp),
# dP/da by a central difference, dP/dx = x^(a-1) e^-x / Gamma(a).


def _gammp_or_q(a, x, series):
    """P(a, x) by its series (series, for x < a + 1), else Q(a, x) = 1 - P by the continued
    fraction: each where it has no cancellation."""
    gln = math.lgamma(a)
    if series:
        ap, s = a, 1.0 / a
        d = s
        for _ in range(100000):
            ap += 1
            d *= x / ap
            s += d
            if abs(d) < abs(s) * 1e-17:
                break
        return s * math.exp(-x + a * math.log(x) - gln)
    b = x + 1 - a
    c = 1.0 / 1e-300
    d = 1.0 / b
    h = d
    for i in range(1, 100000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-17:
            break
    return math.exp(-x + a * math.log(x) - gln) * h


def gamma_sample_grad(a, samples):
    out = []
    for x in np.asarray(samples, np.float64).ravel():
        h = 1e-5 * max(a, 1e-3)
        series = x < a + 1  # d Q / d a = -d P / d a
        dp_da = (1.0 if series else -1.0) * (_gammp_or_q(a + h, x, series) - _gammp_or_q(a - h, x, series)) / (2 * h)
        dp_dx = math.exp((a - 1) * math.log(x) - x - math.lgamma(a))
        out.append(-dp_da / dp_dx)
    return np.asarray(out, F32).reshape(np.shape(samples))


# ---- method='approximate': JAX's loop-free gamma and poisson ---------------------------------
_CHI2_COEF = ((1.0, -0.2237368, -0.01513904), (0.4713941, 0.02607083, -0.008986007),
              (0.0001348028, 0.01128186, 0.02277679), (-0.008553069, -0.01153761, -0.01323293),
              (0.00312558, 0.005169654, -0.006950356), (-0.0008426812, 0.00253001, 0.001060438),
              (0.00009780499, -0.001450117, 0.001565326))


def _loggamma_chisquare(key, a):
    nu = F32(2) * a
    x = normal(key, a.shape)
    u = F32(1) / nu
    t = x * (F32(1) / np.sqrt(nu))

    def row(c):
        return F32(c[0]) + u * (F32(c[1]) + u * F32(c[2]))

    poly = row(_CHI2_COEF[-1])
    for c in reversed(_CHI2_COEF[:-1]):
        poly = poly * t + row(c)
    poly = np.maximum(poly, _FI.tiny)
    return (np.log(a) + F32(3) * np.log(poly)).astype(F32)


def gamma_approx(key, a, shape, log_space=False):
    a = np.broadcast_to(np.asarray(a, F32), shape).astype(F32)
    ks = split(key, 2)
    log_base = _loggamma_chisquare(ks[0], a + F32(4))
    k = np.arange(4, dtype=F32).reshape((4,) + (1,) * len(shape))
    log_u = -exponential(ks[1], (4,) + tuple(shape))
    log_sample = (log_base + (log_u / (a[None] + k)).sum(0, dtype=F32)).astype(F32)
    return log_sample if log_space else np.exp(log_sample).astype(F32)


def _ndtr(z):
    return np.asarray([0.5 * math.erfc(-float(v) / math.sqrt(2)) for v in np.ravel(z)], F32).reshape(np.shape(z))


def _pp_t(y):
    d = y - F32(1)
    small = np.abs(d) < F32(0.25)
    series = np.zeros_like(d)
    for k in reversed(range(1, 10)):
        series = d * (F32(2 * (-1) ** k / ((k + 1) * (k + 2))) + series)
    y_safe = np.where(small, F32(2), y)
    d_safe = np.where(small, F32(1), d)
    direct = (F32(1) - y_safe * y_safe + F32(2) * y_safe * np.log(y_safe)) / (d_safe * d_safe)
    return np.where(small, series, direct).astype(F32)


def _pp_z(x, lam):
    y = (x + F32(0.5)) / lam
    t = _pp_t(y)
    return ((x - lam + F32(2 / 3) + F32(0.02) / (x + F32(1))) * np.sqrt((F32(1) + t) / lam)).astype(F32)


def poisson_approx(key, lam, shape):
    lam = np.asarray(lam, F32)
    lam = lam.reshape((1,) * (len(shape) - lam.ndim) + lam.shape)
    z = normal(key, shape)
    u = _ndtr(z)
    pmf = np.exp(-lam).astype(F32)
    cdf = pmf
    count = (cdf < u).astype(F32)
    for k in range(1, 19):
        pmf = (pmf * (lam / F32(k))).astype(F32)
        cdf = (cdf + pmf).astype(F32)
        count = count + (cdf < u).astype(F32)
    s = np.sqrt(lam)
    with np.errstate(divide="ignore", invalid="ignore"):
        root = lam + s * z - F32(2 / 3) + z * z / F32(6) + z * (F32(1) - z * z) / (F32(72) * s)
    x = (root + F32(0.6)).astype(F32)
    c = np.ceil(x)

    def root_ge(cc):
        with np.errstate(invalid="ignore", divide="ignore"):
            zi = np.where(cc < 0, F32(-np.inf), _pp_z(np.maximum(cc, F32(0)), lam))
        return (zi >= z).astype(F32)

    large = np.maximum(c + F32(1) - root_ge(c) - root_ge(c - F32(1)), F32(0))
    return np.where(lam < F32(7), count, large).astype(np.int32)


def beta_grad_a(key, a, b, shape):
    """d Beta(a, b) sample / d a: ga / (ga + gb) with d ga / d a the implicit derivative."""
    ks = split(key, 2)
    ga = np.exp(loggamma(ks[0], a, shape).astype(np.float64))
    gb = np.exp(loggamma(ks[1], b, shape).astype(np.float64))
    dga = gamma_sample_grad(a, ga).astype(np.float64)
    return (gb * dga / (ga + gb) ** 2).astype(F32)
