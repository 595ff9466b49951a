#!/usr/bin/python3
"""Gradient oracle: jax.grad, jax.jvp and jax.vjp in shard against numpy.

For every case f (one per differentiable primitive or composite, plus transforms composed
with jit and nested), on every input placement (unsharded; 1-D and 2-D meshes, Explicit and
Auto axes), shard computes
  - g = grad(L) for L(xs) = sum(f(xs) * W) with fixed random W, checked against central
    finite differences of L computed by numpy in float64;
  - jv = jvp(f, xs, V) and vj = vjp(f, xs)(W), checked for consistency: <W, jv> = <vj, V>;
  - the type of each cotangent, which must equal its primal's type (sharding included);
  - for one-argument functions, jacfwd and jacrev against the finite-difference Jacobian.
A case whose function itself fails on an Explicit placement (the sharding rules reject it) is
reported as skipped; when the function runs, its derivatives must too.

usage: grad_oracle.py SHARD_EXE [-v] [-k SUBSTRING] [--keep DIR]
Prints `N passed, N failed` last; exit status 1 when anything failed.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

RNG = np.random.default_rng(20261125)


def make_inputs():
    f32 = lambda *s: RNG.standard_normal(s).astype(np.float32)
    return {
        "a": f32(8, 16),
        "b": f32(8, 16),
        "p": (RNG.random((8, 16)) * 3 + 0.5).astype(np.float32),  # positive, away from 0
        "u": (RNG.random((8, 16)) * 1.6 - 0.8).astype(np.float32),  # in (-0.8, 0.8)
        "q": (RNG.random((8, 16)) * 0.5 + 0.75).astype(np.float32),  # near 1 (products)
        "c": f32(16, 8),
        "v": f32(16),
        "s": f32(2, 8, 16),
        "t": f32(2, 16, 8),
    }


def _erf(x):
    import math
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _erfinv(y):
    # Newton on erf from a good start: float64 accurate for |y| < 0.9
    x = np.sqrt(np.pi) / 2 * (y + np.pi / 12 * y ** 3)
    for _ in range(60):
        x = x - (_erf(x) - y) / (2 / np.sqrt(np.pi) * np.exp(-x * x))
    return x


def _lgamma(x):
    import math
    return np.vectorize(math.lgamma, otypes=[np.float64])(x)


def _polygamma(m, x):
    """psi (m = 0) or psi' (m = 1) in float64, for x > 0."""
    x = np.array(x, np.float64)
    acc = np.zeros_like(x)
    for _ in range(12):
        small = x < 10
        acc += np.where(small, -1 / x if m == 0 else 1 / (x * x), 0)
        x = np.where(small, x + 1, x)
    i2 = 1 / (x * x)
    if m == 0:
        return acc + np.log(x) - 0.5 / x - i2 * (1 / 12 - i2 * (1 / 120 - i2 * (1 / 252 - i2 * (1 / 240 - i2 / 132))))
    return acc + 1 / x + 0.5 * i2 + i2 / x * (1 / 6 - i2 * (1 / 30 - i2 * (1 / 42 - i2 / 30)))


def _lse(v, axis):
    m = np.max(v, axis=axis, keepdims=True)
    return np.log(np.sum(np.exp(v - m), axis=axis)) + np.squeeze(m, axis=axis)


# (name, input names, shard function source, numpy function in float64)
C = []
def add(name, args, src, ref):
    C.append((name, args, src, ref))

for fn in ["sin", "cos", "tanh", "exp", "expm1", "sinh", "cosh", "arctan", "square", "negative"]:
    add(fn, ["a"], f"lambda a: jnp.{fn}(a)", lambda a, fn=fn: getattr(np, fn)(a))
add("abs", ["p"], "lambda p: jnp.abs(p - 2.0)", lambda p: np.abs(p - 2.0))
add("tan", ["u"], "lambda u: jnp.tan(u)", np.tan)
add("arcsin", ["u"], "lambda u: jnp.arcsin(u)", np.arcsin)
add("arccos", ["u"], "lambda u: jnp.arccos(u)", np.arccos)
add("arctanh", ["u"], "lambda u: jnp.arctanh(u)", np.arctanh)
for fn in ["log", "log1p", "sqrt", "reciprocal", "log2", "cbrt"]:
    add(fn, ["p"], f"lambda p: jnp.{fn}(p)", lambda p, fn=fn: getattr(np, fn)(p))
add("rsqrt", ["p"], "lambda p: jax.lax.rsqrt(p)", lambda p: 1 / np.sqrt(p))
add("logistic", ["a"], "lambda a: jax.lax.logistic(a)", lambda a: 1 / (1 + np.exp(-a)))
add("erf", ["a"], "lambda a: jax.lax.erf(a)", _erf)
add("erfc", ["a"], "lambda a: jax.lax.erfc(a)", lambda a: 1 - _erf(a))
add("erf_inv", ["u"], "lambda u: jax.lax.erf_inv(u)", _erfinv)
# The gamma family: lgamma' = digamma, digamma' = polygamma(1, .), polygamma(1)' = polygamma(2, .)
# (float64 references: CPython's math.lgamma; psi and psi' by the recurrence up to 10 and
# their asymptotic series).
add("gammaln", ["p"], "lambda p: jax.scipy.special.gammaln(p)", lambda p: _lgamma(p))
add("digamma", ["p"], "lambda p: jax.scipy.special.digamma(p)", lambda p: _polygamma(0, p))
add("polygamma1", ["p"], "lambda p: jax.scipy.special.polygamma(1, p)", lambda p: _polygamma(1, p))
add("betaln", ["p", "q"], "lambda p, q: jax.scipy.special.betaln(p, q * 12)",
    lambda p, q: _lgamma(p) + _lgamma(q * 12) - _lgamma(p + q * 12))
add("integer_pow", ["a"], "lambda a: a ** 3", lambda a: a ** 3)
add("integer_pow_neg", ["p"], "lambda p: p ** -2", lambda p: p ** -2.0)
add("pow_float", ["p"], "lambda p: p ** 2.5", lambda p: p ** 2.5)
add("pow_both", ["p", "q"], "lambda p, q: jnp.power(p, q)", lambda p, q: p ** q)
add("add", ["a", "b"], "lambda a, b: a + b", lambda a, b: a + b)
add("sub", ["a", "b"], "lambda a, b: a - b", lambda a, b: a - b)
add("mul", ["a", "b"], "lambda a, b: a * b", lambda a, b: a * b)
add("div", ["a", "p"], "lambda a, p: a / p", lambda a, p: a / p)
add("maximum", ["a", "b"], "lambda a, b: jnp.maximum(a, b)", np.maximum)
add("minimum", ["a", "b"], "lambda a, b: jnp.minimum(a, b)", np.minimum)
add("arctan2", ["a", "b"], "lambda a, b: jnp.arctan2(a, b)", np.arctan2)
add("logaddexp", ["a", "b"], "lambda a, b: jnp.logaddexp(a, b)", np.logaddexp)
add("hypot", ["a", "b"], "lambda a, b: jnp.hypot(a, b)", np.hypot)
add("fmod", ["a", "p"], "lambda a, p: jnp.fmod(a * 3, p)", lambda a, p: np.fmod(a * 3, p))
add("remainder", ["a", "p"], "lambda a, p: jnp.remainder(a * 3, p)", lambda a, p: np.remainder(a * 3, p))
add("where", ["a", "b"], "lambda a, b: jnp.where(a > 0, a * 2, b)", lambda a, b: np.where(a > 0, a * 2, b))
add("clip", ["a"], "lambda a: jnp.clip(a, -0.5, 0.7)", lambda a: np.clip(a, -0.5, 0.7))
add("broadcast_add", ["a", "v"], "lambda a, v: a + v", lambda a, v: a + v)
add("broadcast_scalar", ["a"], "lambda a: a * 3.0 + 1.0", lambda a: a * 3.0 + 1.0)
add("astype_roundtrip", ["a"], "lambda a: (a * 2).astype(jnp.float32)", lambda a: a * 2)
# jax.nn
_sig = lambda v: 1 / (1 + np.exp(-v))
add("nn_relu", ["a"], "lambda a: jax.nn.relu(a) * a", lambda a: np.maximum(a, 0) * a)
add("nn_gelu", ["a"], "lambda a: jax.nn.gelu(a)", lambda a: 0.5 * a * (1 + np.tanh(np.sqrt(2 / np.pi) * (a + 0.044715 * a ** 3))))
add("nn_silu", ["a"], "lambda a: jax.nn.silu(a)", lambda a: a * _sig(a))
add("nn_softplus", ["a"], "lambda a: jax.nn.softplus(a)", lambda a: np.logaddexp(a, 0))
add("nn_elu", ["a"], "lambda a: jax.nn.elu(a)", lambda a: np.where(a > 0, a, np.expm1(np.minimum(a, 0))))
add("nn_softmax", ["a"], "lambda a: jax.nn.softmax(a)", lambda a: np.exp(a - a.max(-1, keepdims=True)) / np.exp(a - a.max(-1, keepdims=True)).sum(-1, keepdims=True))
add("nn_log_softmax", ["a"], "lambda a: jax.nn.log_softmax(a, axis=0)", lambda a: a - _lse(a, 0)[None, :])
add("nn_standardize", ["a"], "lambda a: jax.nn.standardize(a)", lambda a: (a - a.mean(-1, keepdims=True)) / np.sqrt(a.var(-1, keepdims=True) + 1e-5))
def _attention(q, k, v, causal=False):
    lg = np.einsum("BTNH,BSNH->BNTS", q, k) / np.sqrt(q.shape[-1])
    if causal:
        lg = np.where(np.tril(np.ones(lg.shape[-2:], bool)), lg, -1e30)
    p = np.exp(lg - lg.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return np.einsum("BNTS,BSNH->BTNH", p, v)
add("nn_attention", ["s", "t"], "lambda s, t: jax.nn.dot_product_attention(s.reshape(2, 8, 2, 8), t.reshape(2, 8, 2, 8), s.reshape(2, 8, 2, 8) * 0.5)",
    lambda s, t: _attention(s.reshape(2, 8, 2, 8), t.reshape(2, 8, 2, 8), s.reshape(2, 8, 2, 8) * 0.5))
add("nn_attention_causal", ["s"], "lambda s: jax.nn.dot_product_attention(s.reshape(2, 8, 2, 8), s.reshape(2, 8, 2, 8), s.reshape(2, 8, 2, 8), is_causal=True)",
    lambda s: _attention(s.reshape(2, 8, 2, 8), s.reshape(2, 8, 2, 8), s.reshape(2, 8, 2, 8), True))
# reductions and scans
add("sum_ax0", ["a"], "lambda a: jnp.sum(jnp.sin(a), axis=0)", lambda a: np.sum(np.sin(a), axis=0))
add("sum_all", ["a"], "lambda a: jnp.sum(a * a)", lambda a: np.sum(a * a))
add("mean_ax1", ["a"], "lambda a: jnp.mean(a, axis=1)", lambda a: np.mean(a, axis=1))
add("max_ax1", ["a"], "lambda a: jnp.max(a, axis=1)", lambda a: np.max(a, axis=1))
add("min_ax0", ["a"], "lambda a: jnp.min(a, axis=0)", lambda a: np.min(a, axis=0))
add("prod_ax1", ["q"], "lambda q: jnp.prod(q, axis=1)", lambda q: np.prod(q, axis=1))
add("var_ax1", ["a"], "lambda a: jnp.var(a, axis=1)", lambda a: np.var(a, axis=1))
add("std_all", ["a"], "lambda a: jnp.std(a)", lambda a: np.std(a))
add("cumsum", ["a"], "lambda a: jnp.cumsum(a, axis=1)", lambda a: np.cumsum(a, axis=1))
add("cummax", ["a"], "lambda a: jax.lax.cummax(a, axis=1)", lambda a: np.maximum.accumulate(a, axis=1))
add("cummin_rev", ["a"], "lambda a: jax.lax.cummin(a, axis=0, reverse=True)", lambda a: np.flip(np.minimum.accumulate(np.flip(a, 0), axis=0), 0))
add("cumprod", ["q"], "lambda q: jnp.cumprod(q, axis=0)", lambda q: np.cumprod(q, axis=0))
add("logsumexp", ["a"], "lambda a: jax.scipy.special.logsumexp(a, axis=1)", lambda a: _lse(a, 1))
add("softmax_manual", ["a"], "lambda a: jnp.exp(a - jnp.max(a, axis=1, keepdims=True)) / jnp.sum(jnp.exp(a - jnp.max(a, axis=1, keepdims=True)), axis=1, keepdims=True)",
    lambda a: np.exp(a - a.max(1, keepdims=True)) / np.exp(a - a.max(1, keepdims=True)).sum(1, keepdims=True))
add("sort_ax1", ["a"], "lambda a: jnp.sort(a, axis=1) * jnp.arange(16.0)", lambda a: np.sort(a, axis=1) * np.arange(16.0))
add("sort_ax0", ["a"], "lambda a: jnp.sort(jnp.sin(a), axis=0)", lambda a: np.sort(np.sin(a), axis=0))
# shape ops
add("reshape", ["a"], "lambda a: jnp.sin(a).reshape(16, 8)", lambda a: np.sin(a).reshape(16, 8))
add("transpose", ["a"], "lambda a: jnp.sin(a).T", lambda a: np.sin(a).T)
add("slice", ["a"], "lambda a: a[1:5, 2:9] * 2", lambda a: a[1:5, 2:9] * 2)
add("slice_strided", ["a"], "lambda a: a[::3, 1::2] ** 2", lambda a: a[::3, 1::2] ** 2)
add("rev", ["a"], "lambda a: jnp.flip(a, axis=1) * a", lambda a: np.flip(a, axis=1) * a)
add("index", ["a"], "lambda a: jnp.sin(a[3])", lambda a: np.sin(a[3]))
add("concatenate", ["a", "b"], "lambda a, b: jnp.concatenate([a, b * 2], axis=1)", lambda a, b: np.concatenate([a, b * 2], axis=1))
add("stack", ["a", "b"], "lambda a, b: jnp.stack([a, jnp.cos(b)])", lambda a, b: np.stack([a, np.cos(b)]))
add("pad", ["a"], "lambda a: jnp.pad(a, ((1, 2), (0, 3))) ** 2", lambda a: np.pad(a, ((1, 2), (0, 3))) ** 2)
add("expand_squeeze", ["a"], "lambda a: jnp.squeeze(jnp.expand_dims(a, 0) * 2, 0)", lambda a: a * 2)
add("broadcast_to", ["v"], "lambda v: jnp.broadcast_to(v, (8, 16)) * jnp.arange(8.0)[:, None]",
    lambda v: np.broadcast_to(v, (8, 16)) * np.arange(8.0)[:, None])
add("dynamic_slice", ["a"], "lambda a: jax.lax.dynamic_slice(a, (2, 3), (4, 5)) ** 2",
    lambda a: a[2:6, 3:8] ** 2)
add("dynamic_update_slice", ["a", "b"], "lambda a, b: jax.lax.dynamic_update_slice(a, b[:2, :3] * 3, (1, 4)) * a",
    lambda a, b: _dus(a, b[:2, :3] * 3, (1, 4)) * a)
add("at_set", ["a", "b"], "lambda a, b: a.at[2].set(b[0] * 2) ** 2", lambda a, b: _at_set(a, 2, b[0] * 2) ** 2)
# contractions
add("matmul", ["a", "c"], "lambda a, c: a @ c", lambda a, c: a @ c)
add("matmul_tanh", ["a", "c"], "lambda a, c: jnp.tanh(a @ c)", lambda a, c: np.tanh(a @ c))
add("matvec", ["a", "v"], "lambda a, v: a @ v", lambda a, v: a @ v)
add("batched_matmul", ["s", "t"], "lambda s, t: s @ t", lambda s, t: s @ t)
add("dot_general_ab", ["a", "b"], "lambda a, b: jax.lax.dot_general(a, b, (((1,), (1,)), ((), ())))",
    lambda a, b: a @ b.T)
add("einsum", ["s", "t"], "lambda s, t: jnp.einsum('bij,bjk->bik', s, t)", lambda s, t: s @ t)
# control flow (reverse mode through scan / fori_loop / cond by partial evaluation)
def _rnn(a, c):
    h = np.zeros(8)
    ys = []
    for x in a:
        h = np.tanh(h * 0.9 + x @ c)
        ys.append(h)
    return np.stack(ys)
add("scan_rnn", ["a", "c"], "lambda a, c: jax.lax.scan(lambda h, x: (jnp.tanh(h * 0.9 + x @ c),) * 2, jnp.zeros(8), a)[1]", _rnn)
def _fori(a):
    for _ in range(3):
        a = np.sin(a) * 1.1
    return a
add("fori_loop", ["a"], "lambda a: jax.lax.fori_loop(0, 3, lambda i, x: jnp.sin(x) * 1.1, a)", _fori)
add("scan_reverse_carry", ["v", "a"], "lambda v, a: jax.lax.scan(lambda h, x: (h * jnp.cos(x), h.sum()), v, a, reverse=True)[0]",
    lambda v, a: v * np.prod(np.cos(a), axis=0))
add("cond", ["a", "b"], "lambda a, b: jax.lax.cond(jnp.sum(a) > 0, lambda x, y: jnp.sin(x) * y, lambda x, y: x - y, a, b)",
    lambda a, b: np.sin(a) * b if np.sum(a) > 0 else a - b)
add("cond_false", ["a", "b"], "lambda a, b: jax.lax.cond(jnp.sum(a) > 1e9, lambda x, y: jnp.sin(x) * y, lambda x, y: x * x - y, a, b)",
    lambda a, b: a * a - b)
add("switch", ["a"], "lambda a: jax.lax.switch(1, [jnp.sin, jnp.cos, jnp.tanh], a)", np.cos)
# shard_map (grad outside the body: partial evaluation of shard_map; inside: collectives' transposes)
add("shard_map_psum", ["a", "b"], "lambda a, b: jax.shard_map(lambda x, y: jax.lax.psum(jnp.sin(x) * y, 'i'), mesh=SMESH, in_specs=(P('i'), P('i')), out_specs=P())(a, b)",
    lambda a, b: (np.sin(a) * b).reshape(4, 2, 16).sum(0))
add("shard_map_gather", ["a"], "lambda a: jax.shard_map(lambda x: x * jax.lax.all_gather(x, 'i', tiled=True).sum(0), mesh=SMESH, in_specs=P('i'), out_specs=P('i'))(a)",
    lambda a: a * a.sum(0))
add("shard_map_grad_inside", ["a"], "lambda a: jax.shard_map(lambda x: jax.grad(lambda v: jax.lax.psum(jnp.sum(jnp.tanh(v) ** 2), 'i'))(x), mesh=SMESH, in_specs=P('i'), out_specs=P('i'))(a)",
    lambda a: 2 * np.tanh(a) * (1 - np.tanh(a) ** 2))
# custom derivatives: rules that give the true derivative (so finite differences check them)
add("custom_jvp", ["a"], "custom_log1pexp", lambda a: np.log1p(np.exp(a)))
add("custom_vjp", ["a", "b"], "custom_mul", lambda a, b: a * b)
# jax.checkpoint: the same derivatives whatever is recomputed
for pol in ["nothing_saveable", "dots_saveable", "everything_saveable"]:
    add(f"checkpoint_{pol}", ["a", "c"], f"jax.checkpoint(lambda a, c: jnp.sin(jnp.tanh(a @ c) * 2), policy=jax.checkpoint_policies.{pol})",
        lambda a, c: np.sin(np.tanh(a @ c) * 2))
add("checkpoint_in_scan", ["a", "c"], "lambda a, c: jax.lax.scan(jax.checkpoint(lambda h, x: (jnp.tanh(h * 0.9 + x @ c),) * 2), jnp.zeros(8), a)[1]", _rnn)
# transforms composed
add("jit_inside", ["a", "b"], "jax.jit(lambda a, b: jnp.sin(a) * b)", lambda a, b: np.sin(a) * b)
add("second_derivative", ["a"], "lambda a: jax.grad(lambda y: jnp.sum(jnp.sin(y) * y))(a)",
    lambda a: np.cos(a) * a + np.sin(a))
add("mlp", ["a", "c", "v"], "lambda a, c, v: jnp.tanh(jnp.tanh(a @ c) @ v[:8])",
    lambda a, c, v: np.tanh(np.tanh(a @ c) @ v[:8]))


def _dus(a, u, starts):
    out = a.copy()
    out[starts[0]:starts[0] + u.shape[0], starts[1]:starts[1] + u.shape[1]] = u
    return out


def _at_set(a, i, val):
    out = a.copy()
    out[i] = val
    return out


PLACEMENTS = [
    ("unsharded", None, None, None),
    ("1d-explicit P('x')", "jax.make_mesh((8,), ('x',), axis_types=(AxisType.Explicit,))", "Explicit", "P('x')"),
    ("1d-explicit P(None,'x')", "jax.make_mesh((8,), ('x',), axis_types=(AxisType.Explicit,))", "Explicit", "P(None, 'x')"),
    ("2d-explicit P('dp','mp')", "jax.make_mesh((4, 2), ('dp', 'mp'), axis_types=(AxisType.Explicit, AxisType.Explicit))",
     "Explicit", "P('dp', 'mp')"),
    ("2d-auto P('dp','mp')", "jax.make_mesh((4, 2), ('dp', 'mp'), axis_types=(AxisType.Auto, AxisType.Auto))", "Auto", "P('dp', 'mp')"),
]


# What the cases' sources name: the shard_map cases' mesh and the custom-derivative functions
# (also used by the vmap oracle, which runs these cases).
CASE_DEFINITIONS = [
    "SMESH = jax.make_mesh((4,), ('i',))",
    "@jax.custom_jvp",
    "def custom_log1pexp(x):",
    "    return jnp.log(1. + jnp.exp(x))",
    "@custom_log1pexp.defjvp",
    "def _log1pexp_jvp(primals, tangents):",
    "    x, = primals",
    "    return custom_log1pexp(x), (1 - 1 / (1 + jnp.exp(x))) * tangents[0]",
    "@jax.custom_vjp",
    "def custom_mul(x, y):",
    "    return x * y",
    "custom_mul.defvjp(lambda x, y: (x * y, (x, y)), lambda res, g: (g * res[1], g * res[0]))",
]


def applies(name, placement):
    # shard_map cases run on their own 4-device mesh, so on the unsharded placement only
    return not name.startswith("shard_map") or placement[1] is None


def shard_program(work, placement, cases, x):
    _label, mesh_ctor, _types, spec = placement
    lines = ["import jax", "import jax.numpy as jnp", "import jax.scipy.special", "import numpy as np",
             "from jax.sharding import PartitionSpec as P, NamedSharding, AxisType"]
    if mesh_ctor:
        lines += [f"mesh = {mesh_ctor}", f"spec = {spec}", "def place(x):",
                  "    entries = list(spec)[:x.ndim]", "    try:",
                  "        return jax.device_put(x, NamedSharding(mesh, P(*entries)))",
                  "    except ValueError:", "        return jax.device_put(x, NamedSharding(mesh, P()))"]
    else:
        lines += ["def place(x):", "    return jnp.asarray(x)"]
    for name in x:
        lines.append(f"{name} = place(np.load({os.path.join(work, 'in', name + '.npy')!r}))")
    lines += CASE_DEFINITIONS
    if mesh_ctor:
        lines.append("jax.sharding.set_mesh(mesh)")
    for k, (name, args, src, _ref) in enumerate(cases):
        if not applies(name, placement):
            continue
        d = os.path.join(work, "case", str(k))
        n = len(args)
        lines += [
            "try:",
            f"    f = {src}",
            f"    W = jnp.asarray(np.load({os.path.join(d, 'W.npy')!r}))",
            f"    V = tuple(jnp.asarray(np.load({d!r} + '/V%d.npy' % i)) for i in range({n}))",
            f"    xs = ({', '.join(args)},)",
            "    L = lambda *xs: jnp.sum(f(*xs) * W)",
            f"    g = jax.grad(L, argnums=tuple(range({n})))(*xs)",
            f"    for i in range({n}):",
            f"        np.save({d!r} + '/g%d.npy' % i, np.asarray(g[i]))",
            f"        print('TYPE', {k}, i, str(jax.typeof(g[i])) + ' | ' + str(jax.typeof(xs[i])))",
            # forward mode through a custom_vjp function is refused (as in JAX)
            "    y, jv = jax.jvp(f, xs, V)" if not name.startswith("custom_vjp") else "    jv = None",
            f"    np.save({d!r} + '/jv.npy', np.asarray(jv))" if not name.startswith("custom_vjp") else "    pass",
            # Jacobians (single-argument functions): jacfwd and jacrev against finite differences
            f"    if {n} == 1 and {'False' if name.startswith('custom_vjp') else 'True'}:",
            f"        np.save({d!r} + '/jf.npy', np.asarray(jax.jacfwd(f)(*xs)))",
            f"        np.save({d!r} + '/jr.npy', np.asarray(jax.jacrev(f)(*xs)))",
            "    y2, back = jax.vjp(f, *xs)",
            "    vj = back(W)",
            f"    for i in range({n}):",
            f"        np.save({d!r} + '/vj%d.npy' % i, np.asarray(vj[i]))",
            "except Exception as e:",
            "    try:",  # did the function itself work? then its derivative must too
            "        f(*xs)",
            "        fwd = 'forward-ok'",
            "    except Exception:",
            "        fwd = 'forward-fails'",
            f"    print('CASE', {k}, fwd, type(e).__name__ + ':', str(e).replace(chr(10), ' '))",
        ]
    return "\n".join(lines) + "\n"


def fd_jacobian(ref, x, eps=1e-6):
    x = x.astype(np.float64)
    y0 = np.asarray(ref(x))
    J = np.zeros(y0.shape + x.shape)
    for idx in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[idx] += eps
        minus[idx] -= eps
        J[(Ellipsis,) + idx] = (np.asarray(ref(plus)) - np.asarray(ref(minus))) / (2 * eps)
    return J


def finite_difference(ref, xs, W, eps=1e-6):
    xs = [v.astype(np.float64) for v in xs]
    L = lambda vs: float(np.sum(ref(*vs) * W))
    grads = []
    for i, v in enumerate(xs):
        g = np.zeros_like(v)
        for idx in np.ndindex(v.shape):
            plus = [w.copy() for w in xs]
            minus = [w.copy() for w in xs]
            plus[i][idx] += eps
            minus[i][idx] -= eps
            g[idx] = (L(plus) - L(minus)) / (2 * eps)
        grads.append(g)
    return grads


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    shard = os.path.abspath(argv[1])
    verbose = "-v" in argv
    only = argv[argv.index("-k") + 1] if "-k" in argv else None
    keep = argv[argv.index("--keep") + 1] if "--keep" in argv else None
    x = make_inputs()
    cases = [c for c in C if only is None or only in c[0]]
    work = keep or tempfile.mkdtemp(prefix="grad_oracle_")
    os.makedirs(os.path.join(work, "in"), exist_ok=True)
    for name, arr in x.items():
        np.save(os.path.join(work, "in", name + ".npy"), arr)
    refs = []
    jacobians = {}
    for k, (name, args, _src, ref) in enumerate(cases):
        d = os.path.join(work, "case", str(k))
        os.makedirs(d, exist_ok=True)
        xs = [x[a] for a in args]
        out = np.asarray(ref(*[v.astype(np.float64) for v in xs]))
        W = RNG.standard_normal(out.shape)
        V = [RNG.standard_normal(v.shape) for v in xs]
        np.save(os.path.join(d, "W.npy"), W.astype(np.float32))
        for i, v in enumerate(V):
            np.save(os.path.join(d, f"V{i}.npy"), v.astype(np.float32))
        refs.append((finite_difference(ref, xs, W.astype(np.float32).astype(np.float64)), W.astype(np.float32), [v.astype(np.float32) for v in V]))
        jacobians[k] = fd_jacobian(ref, xs[0]) if len(args) == 1 else None
    passed = failed = skipped = 0
    for placement in PLACEMENTS:
        label = placement[0]
        for k in range(len(cases)):
            for f in os.listdir(os.path.join(work, "case", str(k))):
                if f[0] in "gjv" and f not in ("W.npy",) and not f.startswith("V"):
                    os.remove(os.path.join(work, "case", str(k), f))
        prog = os.path.join(work, "prog.shard")
        with open(prog, "w") as fh:
            fh.write(shard_program(work, placement, cases, x))
        proc = subprocess.run([shard, prog], capture_output=True, text=True, env=dict(os.environ, SHARD_DEVICES="8"), timeout=1800)
        errors, types = {}, {}
        for line in proc.stdout.splitlines():
            if line.startswith("CASE "):
                _, k, msg = line.split(" ", 2)
                errors[int(k)] = msg
            elif line.startswith("TYPE "):
                _, k, i, rest = line.split(" ", 3)
                types[(int(k), int(i))] = rest
        if proc.returncode != 0:
            print(f"[{label}] shard exited with {proc.returncode}:\n{proc.stderr[-3000:]}")
            failed += 1
        for k, (name, args, src, _ref) in enumerate(cases):
            if not applies(name, placement):
                continue
            if k in errors:
                fwd, msg = errors[k].split(" ", 1)
                if placement[2] == "Explicit" and fwd == "forward-fails":
                    skipped += 1
                    if verbose:
                        print(f"[{label}] SKIP {name}: {errors[k][:200]}")
                    continue
                failed += 1
                print(f"[{label}] FAIL {name} ({fwd}): {msg[:400]}")
                continue
            d = os.path.join(work, "case", str(k))
            fd, W, V = refs[k]
            problems = []
            try:
                for i in range(len(args)):
                    g = np.load(os.path.join(d, f"g{i}.npy")).astype(np.float64)
                    scale = max(1.0, float(np.max(np.abs(fd[i]))))
                    if g.shape != fd[i].shape or not np.allclose(g, fd[i], rtol=2e-3, atol=2e-3 * scale):
                        diff = np.max(np.abs(g - fd[i])) if g.shape == fd[i].shape else "shape"
                        problems.append(f"grad wrt {args[i]} differs from finite differences (max abs diff {diff})")
                    got_t, want_t = types.get((k, i), "? | ?").split(" | ")
                    if got_t != want_t:
                        problems.append(f"cotangent type {got_t} != primal type {want_t}")
                if len(args) == 1 and not name.startswith("custom_vjp"):
                    J = jacobians[k]
                    for tag in ("jf", "jr"):
                        got = np.load(os.path.join(d, f"{tag}.npy")).astype(np.float64)
                        scale = max(1.0, float(np.max(np.abs(J))))
                        if got.shape != J.shape or not np.allclose(got, J, rtol=2e-3, atol=2e-3 * scale):
                            problems.append(f"{'jacfwd' if tag == 'jf' else 'jacrev'} differs from the finite-difference Jacobian"
                                            + (f" (shape {got.shape} vs {J.shape})" if got.shape != J.shape else f" (max abs diff {np.max(np.abs(got - J)):.3g})"))
                if name.startswith("custom_vjp"):
                    raise StopIteration
                jv = np.load(os.path.join(d, "jv.npy")).astype(np.float64)
                lhs = float(np.sum(W.astype(np.float64) * jv))
                rhs = sum(float(np.sum(np.load(os.path.join(d, f"vj{i}.npy")).astype(np.float64) * V[i])) for i in range(len(args)))
                if abs(lhs - rhs) > 1e-3 * max(1.0, abs(lhs), abs(rhs)):
                    problems.append(f"<W, jvp(V)> = {lhs} but <vjp(W), V> = {rhs}")
            except FileNotFoundError as e:
                problems.append(f"no result ({os.path.basename(e.filename)})")
            except StopIteration:  # no forward mode to compare with
                pass
            if problems:
                failed += 1
                print(f"[{label}] FAIL {name} ({src}): " + "; ".join(problems))
            else:
                passed += 1
                if verbose:
                    print(f"[{label}] ok {name}")
    print(f"{skipped} skipped (functions the sharding rules reject on Explicit meshes)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
