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
