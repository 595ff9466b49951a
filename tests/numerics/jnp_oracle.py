#!/usr/bin/python3
"""numpy oracle for jax.numpy / jax.lax / Array methods in shard.

Writes random inputs as .npy files, generates one .shard program per input placement
(unsharded; 1-D and 2-D meshes, Explicit and Auto axes, several PartitionSpecs) that runs
every case and np.save()s its result, runs `shard` on it, and compares each result with
numpy's: exact for exact ops (integer math, comparisons, copies, indexing), rtol 1e-5
for float32 transcendentals, reductions and contractions. Results must also have JAX's
dtype (numpy's result dtype with 64-bit types made 32-bit).

A case the sharding rules reject on a placement (ShardingTypeError) is reported as skipped;
any other error, a wrong value, dtype or shape is a failure.

usage: jnp_oracle.py SHARD_EXE [-v] [-k SUBSTRING] [--keep DIR]
Prints `N passed, N failed` last; exit status 1 when anything failed.
"""
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

RNG = np.random.default_rng(20251122)

# ---- inputs -------------------------------------------------------------------------------

def make_inputs():
    f32 = lambda *s: RNG.standard_normal(s).astype(np.float32)
    return {
        "a": f32(8, 16),
        "b": f32(8, 16),
        "p": (RNG.random((8, 16)) * 4 + 0.05).astype(np.float32),  # positive
        "u": (RNG.random((8, 16)) * 1.8 - 0.9).astype(np.float32),  # in (-0.9, 0.9)
        "c": f32(16, 8),
        "v": f32(16),
        "w": f32(16),
        "s": f32(2, 8, 16),
        "t": f32(2, 16, 8),
        "i": RNG.integers(-20, 20, (8, 16)).astype(np.int32),
        "j": (RNG.integers(1, 9, (8, 16)) * RNG.choice([-1, 1], (8, 16))).astype(np.int32),
        "m": RNG.random((8, 16)) < 0.5,
        "n": RNG.random((8, 16)) < 0.5,
        "q": (RNG.random((8, 16)) * 0.5 + 0.75).astype(np.float32),  # near 1 (products)
        # tiny magnitudes, 1e-8 .. 1e-2, either sign: where exp(x) - 1 or log(1 + x) lose digits
        "z": (RNG.choice([-1, 1], (8, 16)) * 10.0 ** RNG.uniform(-8, -2, (8, 16))).astype(np.float32),
        "L": (RNG.standard_normal((8, 16)) * 100).astype(np.float32),  # exp() overflows float32
        # NaNs scattered, row 3 all NaN (nan* reductions, median)
        "N": np.where((RNG.random((8, 16)) < 0.2) | (np.arange(8)[:, None] == 3), np.nan, f32(8, 16)).astype(np.float32),
        "x": RNG.integers(-8, 8, (6,)).astype(np.int32),  # indices valid for 8 and 16 long axes, negative ones too
        "y": RNG.integers(-16, 16, (8, 5)).astype(np.int32),  # take_along_axis, axis 1 of (8, 16)
        "Y": RNG.integers(-8, 8, (3, 16)).astype(np.int32),  # take_along_axis, axis 0 of (8, 16)
        # variances over many rows (the one-pass column moments; rows divide by 8, and by the
        # 256-row tiles with a remainder): a mean far from zero, and 1000 standard deviations
        # away (where sum(x^2) - sum(x)^2 / n in float32 keeps no digit); W is wider than a
        # 4096-column block. Magnitudes stay below L's, which sets the "red" tolerance.
        "R": (RNG.standard_normal((4104, 24)) * 0.5 + 10).astype(np.float32),
        "H": (RNG.standard_normal((4104, 24)) * 0.1 + 100).astype(np.float32),
        "W": (RNG.standard_normal((64, 4104)) + 50).astype(np.float32),
    }

# ---- cases --------------------------------------------------------------------------------
# (name, shard expression, numpy reference, tolerance): tolerance "exact", "ew" (rtol 1e-5
# for elementwise float math), "precise" (rtol 1e-6 and no absolute slack: a few float32
# ulps, for the primitives that must not lose digits near zero), "sum5" (rtol 1e-5, atol
# 1e-5: a few products summed, as in cross, convolve, polyval), "red" (reductions/contractions: rtol 1e-5 plus an atol
# scaled by the magnitude of the summed terms) or "moments" (rtol 1e-5 and no absolute slack:
# variances, whose error must not scale with the mean).

def ew(name, expr, ref, tol="ew"):
    return (name, expr, ref, tol)

C = []
add = C.append

# elementwise unary
for fn in ["sin", "cos", "tanh", "exp", "abs", "sign", "floor", "ceil", "round", "negative", "square",
           "expm1", "sinh", "cosh", "arctan", "trunc"]:
    add(ew(fn, f"jnp.{fn}(a)", lambda x, fn=fn: getattr(np, fn)(x["a"])))
add(ew("tan", "jnp.tan(u)", lambda x: np.tan(x["u"])))
add(ew("arcsin", "jnp.arcsin(u)", lambda x: np.arcsin(x["u"])))
add(ew("arccos", "jnp.arccos(u)", lambda x: np.arccos(x["u"])))
for fn in ["log", "log1p", "sqrt", "reciprocal", "log2", "log10"]:
    add(ew(fn, f"jnp.{fn}(p)", lambda x, fn=fn: getattr(np, fn)(x["p"])))
# primitives that keep their digits near zero and far out (float64 references, rounded to float32)
for fn in ["expm1", "log1p", "sinh"]:
    add(ew(f"{fn}_tiny", f"jnp.{fn}(z)", lambda x, fn=fn: getattr(np, fn)(_f64(x["z"])).astype(np.float32), "precise"))
add(ew("cosh_tiny", "jnp.cosh(z) - 1", lambda x: (np.cosh(_f64(x["z"])) - 1).astype(np.float32), "ew"))
add(ew("cbrt", "jnp.cbrt(a)", lambda x: np.cbrt(_f64(x["a"])).astype(np.float32), "precise"))
add(ew("cbrt_int", "jnp.cbrt(i)", lambda x: np.cbrt(_f64(x["i"])).astype(np.float32), "precise"))
add(ew("lax_erf", "jax.lax.erf(a)", lambda x: _erf(_f64(x["a"])).astype(np.float32), "precise"))
add(ew("lax_erf_tiny", "jax.lax.erf(z)", lambda x: _erf(_f64(x["z"])).astype(np.float32), "precise"))
add(ew("lax_erfc", "jax.lax.erfc(a * 2)", lambda x: _erfc(_f64(x["a"] * np.float32(2))).astype(np.float32), "precise"))
add(ew("lax_expm1", "jax.lax.expm1(z)", lambda x: np.expm1(_f64(x["z"])).astype(np.float32), "precise"))
add(ew("lax_cosh", "jax.lax.cosh(a)", lambda x: np.cosh(_f64(x["a"])).astype(np.float32), "precise"))
# x ** n with a concrete integer n is integer_pow (multiplies), as in JAX
add(ew("pow_int2", "a ** 2", lambda x: x["a"] ** 2))
add(ew("pow_int3", "a ** 3", lambda x: x["a"] ** 3))
add(ew("pow_neg", "p ** -2", lambda x: (x["p"].astype(np.float64) ** -2).astype(np.float32)))
add(ew("power_int", "jnp.power(j, 3)", lambda x: x["j"] ** 3, "exact"))
add(ew("lax_integer_pow", "jax.lax.integer_pow(q, 7)", lambda x: (x["q"].astype(np.float64) ** 7).astype(np.float32)))
# jax.scipy.special (float64 references from numpy and math, rounded to float32)
def _lse(v, axis=None, keepdims=False, b=None):
    v = v.astype(np.float64)
    m = np.max(v, axis=axis, keepdims=True)
    e = np.exp(v - m) * (1 if b is None else b.astype(np.float64))
    return (np.log(np.sum(e, axis=axis, keepdims=True)) + m if keepdims
            else np.log(np.sum(e, axis=axis)) + np.squeeze(m, axis=axis)).astype(np.float32)
add(ew("logsumexp_all", "jss.logsumexp(L)", lambda x: _lse(x["L"]), "precise"))
add(ew("logsumexp_axis", "jss.logsumexp(a, axis=1)", lambda x: _lse(x["a"], axis=1), "precise"))
add(ew("logsumexp_keep", "jss.logsumexp(L, axis=0, keepdims=True)", lambda x: _lse(x["L"], axis=0, keepdims=True), "precise"))
add(ew("logsumexp_b", "jss.logsumexp(a, axis=1, b=p)", lambda x: _lse(x["a"], axis=1, b=x["p"]), "precise"))
add(ew("xlogy", "jss.xlogy(i, p)", lambda x: np.where(x["i"] == 0, 0, x["i"] * np.log(_f64(x["p"]))).astype(np.float32), "precise"))
add(ew("xlog1py", "jss.xlog1py(a, p)", lambda x: (_f64(x["a"]) * np.log1p(_f64(x["p"]))).astype(np.float32), "precise"))
add(ew("expit", "jss.expit(a)", lambda x: (1 / (1 + np.exp(-_f64(x["a"])))).astype(np.float32)))
add(ew("logit", "jss.logit(q - 0.5)", lambda x: np.log(_f64(x["q"] - np.float32(0.5)) / (1 - _f64(x["q"] - np.float32(0.5)))).astype(np.float32)))
add(ew("jss_erf", "jss.erf(i)", lambda x: _erf(_f64(x["i"])).astype(np.float32), "precise"))
# composites bound from trace/ops_composite.cpp
add(ew("logaddexp2", "jnp.logaddexp2(a, b)", lambda x: np.logaddexp2(_f64(x["a"]), _f64(x["b"])).astype(np.float32)))
add(ew("heaviside", "jnp.heaviside(i, a)", lambda x: np.heaviside(x["i"].astype(np.float32), x["a"]), "exact"))
add(ew("sinc", "jnp.sinc(a)", lambda x: np.sinc(_f64(x["a"])).astype(np.float32)))
add(ew("sinc_int", "jnp.sinc(i)", lambda x: np.sinc(_f64(x["i"])).astype(np.float32)))
add(ew("isposinf", "jnp.isposinf(L * 1e37)", lambda x: np.isposinf(x["L"] * np.float32(1e37)), "exact"))
add(ew("isneginf", "jnp.isneginf(L * 1e37)", lambda x: np.isneginf(x["L"] * np.float32(1e37)), "exact"))
add(ew("copy", "jnp.copy(a)", lambda x: np.copy(x["a"]), "exact"))
add(ew("imag", "jnp.imag(a)", lambda x: np.imag(x["a"]), "exact"))
add(ew("isreal", "jnp.isreal(i)", lambda x: np.isreal(x["i"]), "exact"))
add(ew("nextafter", "jnp.nextafter(a, b)", lambda x: np.nextafter(x["a"], x["b"]), "exact"))
add(ew("nextafter_up", "jnp.nextafter(z, 1.0)", lambda x: np.nextafter(x["z"], np.float32(1)), "exact"))
add(ew("lax_nextafter", "jax.lax.nextafter(a, b)", lambda x: np.nextafter(x["a"], x["b"]), "exact"))
add(ew("logaddexp", "jnp.logaddexp(a, b)", lambda x: np.logaddexp(_f64(x["a"]), _f64(x["b"])).astype(np.float32), "precise"))
add(ew("logaddexp_large", "jnp.logaddexp(L, a * 100)",
       lambda x: np.logaddexp(_f64(x["L"]), _f64(x["a"] * np.float32(100))).astype(np.float32), "precise"))
add(ew("logaddexp_same", "jnp.logaddexp(L, L)", lambda x: np.logaddexp(_f64(x["L"]), _f64(x["L"])).astype(np.float32), "precise"))
add(ew("rsqrt", "jnp.rsqrt(p)", lambda x: (1 / np.sqrt(x["p"].astype(np.float64))).astype(np.float32)))
add(ew("exp2", "jnp.exp2(a)", lambda x: np.exp2(x["a"])))
def _isfinite_ref(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.isfinite(x["a"] / (x["a"] > 0))
add(ew("isfinite", "jnp.isfinite(a / (a > 0))", _isfinite_ref, "exact"))
add(ew("abs_int", "jnp.abs(i)", lambda x: np.abs(x["i"]), "exact"))
add(ew("neg_op", "-a", lambda x: -x["a"], "exact"))
add(ew("invert_int", "~i", lambda x: ~x["i"], "exact"))
add(ew("not_bool", "~m", lambda x: ~x["m"], "exact"))
add(ew("logical_not", "jnp.logical_not(m)", lambda x: np.logical_not(x["m"]), "exact"))
add(ew("astype_int", "a.astype(jnp.int32)", lambda x: x["a"].astype(np.int32), "exact"))
add(ew("astype_f", "i.astype(jnp.float32)", lambda x: x["i"].astype(np.float32), "exact"))
add(ew("astype_bool", "i.astype(bool)", lambda x: x["i"].astype(bool), "exact"))

# jax.nn (float64 references, rounded to float32)
_sig = lambda v: 1 / (1 + np.exp(-v))
def _softmax(v, axis=-1):
    e = np.exp(v - v.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
_gelu_tanh = lambda v: 0.5 * v * (1 + np.tanh(np.sqrt(2 / np.pi) * (v + 0.044715 * v ** 3)))
_gelu_erf = lambda v: 0.5 * v * (1 + _erf(v / np.sqrt(2)))
for name, expr, ref in [
        ("nn_relu", "jax.nn.relu(a)", lambda v: np.maximum(v, 0)),
        ("nn_relu6", "jax.nn.relu6(a * 4)", lambda v: np.clip(v * 4, 0, 6)),
        ("nn_sigmoid", "jax.nn.sigmoid(a)", _sig),
        ("nn_softplus", "jax.nn.softplus(L)", lambda v: np.logaddexp(v, 0)),
        ("nn_log_sigmoid", "jax.nn.log_sigmoid(a)", lambda v: -np.logaddexp(-v, 0)),
        ("nn_soft_sign", "jax.nn.soft_sign(a)", lambda v: v / (np.abs(v) + 1)),
        ("nn_silu", "jax.nn.silu(a)", lambda v: v * _sig(v)),
        ("nn_gelu", "jax.nn.gelu(a)", _gelu_tanh),
        ("nn_gelu_exact", "jax.nn.gelu(a, approximate=False)", _gelu_erf),
        ("nn_elu", "jax.nn.elu(a, alpha=0.5)", lambda v: np.where(v > 0, v, 0.5 * np.expm1(np.minimum(v, 0)))),
        ("nn_celu", "jax.nn.celu(a)", lambda v: np.where(v > 0, v, np.expm1(np.minimum(v, 0)))),
        ("nn_selu", "jax.nn.selu(a)", lambda v: 1.0507009873554805 * np.where(v > 0, v, 1.6732632423543772 * np.expm1(np.minimum(v, 0)))),
        ("nn_leaky_relu", "jax.nn.leaky_relu(a, negative_slope=0.2)", lambda v: np.where(v >= 0, v, 0.2 * v)),
        ("nn_hard_tanh", "jax.nn.hard_tanh(a * 2)", lambda v: np.clip(v * 2, -1, 1)),
        ("nn_softmax", "jax.nn.softmax(a)", _softmax),
        ("nn_softmax_ax0", "jax.nn.softmax(L, axis=0)", lambda v: _softmax(v, 0)),
        ("nn_log_softmax", "jax.nn.log_softmax(a)", lambda v: np.log(_softmax(v))),
        ("nn_standardize", "jax.nn.standardize(a)", lambda v: (v - v.mean(-1, keepdims=True)) / np.sqrt(v.var(-1, keepdims=True) + 1e-5)),
        ("nn_logsumexp", "jax.nn.logsumexp(a, axis=0)", lambda v: _lse(v, axis=0))]:
    src = "a" if "(a" in expr else "L"
    add(ew(name, expr, lambda x, ref=ref, src=src: ref(_f64(x[src])).astype(np.float32), "red" if "soft" in name or "standard" in name or "logsumexp" in name else "ew"))
add(ew("nn_one_hot", "jax.nn.one_hot(i % 5, 5)", lambda x: (np.mod(x["i"], 5)[..., None] == np.arange(5)).astype(np.float32), "exact"))

# sorting (stable, as numpy's kind="stable")
add(ew("argsort", "jnp.argsort(a, axis=1)", lambda x: np.argsort(x["a"], axis=1, kind="stable").astype(np.int32), "exact"))
add(ew("argsort_ties", "jnp.argsort(i % 5, axis=0)", lambda x: np.argsort(np.mod(x["i"], 5), axis=0, kind="stable").astype(np.int32), "exact"))
add(ew("argsort_flat", "jnp.argsort(i, axis=None)", lambda x: np.argsort(x["i"], axis=None, kind="stable").astype(np.int32), "exact"))
add(ew("lax_sort_payload", "jax.lax.sort((i % 3, a), dimension=1, num_keys=1)[1]",
       lambda x: np.take_along_axis(x["a"], np.argsort(np.mod(x["i"], 3), axis=1, kind="stable"), axis=1), "exact"))

# elementwise binary
add(ew("add", "a + b", lambda x: x["a"] + x["b"], "exact"))
add(ew("sub", "a - b", lambda x: x["a"] - x["b"], "exact"))
add(ew("mul", "a * b", lambda x: x["a"] * x["b"], "exact"))
add(ew("div", "a / p", lambda x: x["a"] / x["p"]))
add(ew("radd_scalar", "2.5 + a", lambda x: 2.5 + x["a"], "exact"))
add(ew("rsub_scalar", "1 - a", lambda x: 1 - x["a"], "exact"))
add(ew("mul_scalar", "a * 3", lambda x: x["a"] * np.float32(3), "exact"))
add(ew("rdiv_scalar", "2.0 / p", lambda x: np.float32(2.0) / x["p"]))
add(ew("pow", "p ** b", lambda x: x["p"] ** x["b"]))
add(ew("pow_scalar", "a ** 2", lambda x: x["a"] ** 2))
add(ew("rpow", "2.0 ** a", lambda x: np.float32(2.0) ** x["a"]))
add(ew("int_add", "i + j", lambda x: x["i"] + x["j"], "exact"))
add(ew("int_mul", "i * j", lambda x: x["i"] * x["j"], "exact"))
add(ew("int_floordiv", "i // j", lambda x: x["i"] // x["j"], "exact"))
add(ew("int_mod", "i % j", lambda x: x["i"] % x["j"], "exact"))
add(ew("int_truediv", "i / j", lambda x: (x["i"] / x["j"]).astype(np.float32)))
add(ew("int_pow", "j ** 2", lambda x: x["j"] ** 2, "exact"))
add(ew("int_scalar_float", "i * 1.5", lambda x: (x["i"] * 1.5).astype(np.float32), "exact"))
add(ew("float_floordiv", "a // p", lambda x: x["a"] // x["p"]))
add(ew("float_mod", "a % p", lambda x: x["a"] % x["p"], "red"))
add(ew("and_int", "i & j", lambda x: x["i"] & x["j"], "exact"))
add(ew("or_int", "i | j", lambda x: x["i"] | x["j"], "exact"))
add(ew("xor_int", "i ^ j", lambda x: x["i"] ^ x["j"], "exact"))
add(ew("and_bool", "m & n", lambda x: x["m"] & x["n"], "exact"))
add(ew("maximum", "jnp.maximum(a, b)", lambda x: np.maximum(x["a"], x["b"]), "exact"))
add(ew("minimum", "jnp.minimum(a, b)", lambda x: np.minimum(x["a"], x["b"]), "exact"))
add(ew("arcsinh", "jnp.arcsinh(a)", lambda x: np.arcsinh(_f64(x["a"])).astype(np.float32)))
add(ew("arcsinh_tiny", "jnp.arcsinh(z)", lambda x: np.arcsinh(_f64(x["z"])).astype(np.float32), "precise"))
add(ew("arccosh", "jnp.arccosh(p + 1)", lambda x: np.arccosh(_f64(x["p"] + np.float32(1))).astype(np.float32)))
add(ew("arctanh", "jnp.arctanh(u)", lambda x: np.arctanh(_f64(x["u"])).astype(np.float32)))
add(ew("arctanh_tiny", "jnp.arctanh(z)", lambda x: np.arctanh(_f64(x["z"])).astype(np.float32), "precise"))
add(ew("arctan2", "jnp.arctan2(a, b)", lambda x: np.arctan2(x["a"], x["b"])))
add(ew("hypot", "jnp.hypot(a, b)", lambda x: np.hypot(x["a"], x["b"])))
add(ew("power_fn", "jnp.power(p, 0.5)", lambda x: np.power(x["p"], np.float32(0.5))))
for op, fn in [("<", "less"), ("<=", "less_equal"), (">", "greater"), (">=", "greater_equal"),
               ("==", "equal"), ("!=", "not_equal")]:
    add(ew(f"cmp_{fn}", f"a {op} b", lambda x, fn=fn: getattr(np, fn)(x["a"], x["b"]), "exact"))
    add(ew(f"cmp_int_{fn}", f"jnp.{fn}(i, j)", lambda x, fn=fn: getattr(np, fn)(x["i"], x["j"]), "exact"))
add(ew("cmp_scalar", "a > 0.5", lambda x: x["a"] > 0.5, "exact"))
add(ew("logical_and", "jnp.logical_and(m, n)", lambda x: np.logical_and(x["m"], x["n"]), "exact"))
add(ew("logical_or", "jnp.logical_or(m, n)", lambda x: np.logical_or(x["m"], x["n"]), "exact"))
add(ew("logical_xor", "jnp.logical_xor(m, i)", lambda x: np.logical_xor(x["m"], x["i"]), "exact"))
add(ew("where", "jnp.where(m, a, b)", lambda x: np.where(x["m"], x["a"], x["b"]), "exact"))
add(ew("where_scalar", "jnp.where(a > 0, a, 0.0)", lambda x: np.where(x["a"] > 0, x["a"], np.float32(0)), "exact"))
add(ew("where_bcast", "jnp.where(v > 0, a, w)", lambda x: np.where(x["v"] > 0, x["a"], x["w"]), "exact"))
add(ew("clip", "jnp.clip(a, -0.5, 0.5)", lambda x: np.clip(x["a"], np.float32(-0.5), np.float32(0.5)), "exact"))
add(ew("clip_method", "i.clip(-3, 4)", lambda x: np.clip(x["i"], -3, 4), "exact"))
add(ew("bcast_add", "a + v", lambda x: x["a"] + x["v"], "exact"))
add(ew("bcast_col", "a * a[:, :1]", lambda x: x["a"] * x["a"][:, :1], "exact"))
add(ew("round_dec", "jnp.round(a, 2)", lambda x: np.round(x["a"], 2)))
add(ew("isclose", "jnp.isclose(a, a + 1e-7)", lambda x: np.isclose(x["a"], x["a"] + np.float32(1e-7)), "exact"))
add(ew("allclose", "jnp.allclose(a, b)", lambda x: np.array(np.allclose(x["a"], x["b"])), "exact"))
add(ew("array_equal", "jnp.array_equal(i, i)", lambda x: np.array(True), "exact"))

# reductions and scans
for meth in ["sum", "mean", "max", "min"]:
    add(ew(f"{meth}_all", f"a.{meth}()", lambda x, meth=meth: getattr(x["a"], meth)(), "red"))
    add(ew(f"{meth}_ax0", f"jnp.{meth}(a, axis=0)", lambda x, meth=meth: getattr(np, meth)(x["a"], axis=0), "red"))
    add(ew(f"{meth}_ax1_keep", f"a.{meth}(axis=1, keepdims=True)",
           lambda x, meth=meth: getattr(x["a"], meth)(axis=1, keepdims=True), "red"))
    add(ew(f"{meth}_3d", f"jnp.{meth}(s, axis=(0, 2))", lambda x, meth=meth: getattr(np, meth)(x["s"], axis=(0, 2)), "red"))
add(ew("prod", "q.prod(axis=1)", lambda x: x["q"].prod(axis=1), "red"))
add(ew("var", "a.var()", lambda x: x["a"].astype(np.float64).var().astype(np.float32), "red"))
add(ew("var_ax", "jnp.var(a, axis=0)", lambda x: np.var(x["a"].astype(np.float64), axis=0).astype(np.float32), "red"))
add(ew("std_ddof", "jnp.std(a, axis=1, ddof=1)", lambda x: np.std(x["a"].astype(np.float64), axis=1, ddof=1).astype(np.float32), "red"))
# variances down many rows, against float64 to rtol 1e-5 ("moments"; numpy's own float32 var is
# within ~1e-6 of it on these inputs)
_var64 = lambda v, **kw: np.var(_f64(v), **kw).astype(np.float32)
add(ew("var_rows0", "jnp.var(R, axis=0)", lambda x: _var64(x["R"], axis=0), "moments"))
add(ew("var_rows0_offset", "jnp.var(H, axis=0)", lambda x: _var64(x["H"], axis=0), "moments"))
add(ew("std_rows0_ddof_keep", "jnp.std(H, axis=0, ddof=1, keepdims=True)",
       lambda x: np.std(_f64(x["H"]), axis=0, ddof=1, keepdims=True).astype(np.float32), "moments"))
add(ew("var_rows0_wide", "W.var(axis=0)", lambda x: _var64(x["W"], axis=0), "moments"))
add(ew("var_rows01_3d", "jnp.var(R.reshape(8, 513, 24), axis=(0, 1))", lambda x: _var64(x["R"].reshape(8, 513, 24), axis=(0, 1)), "moments"))
add(ew("mean_plus_var_rows0", "jnp.mean(R, axis=0) + jnp.var(R, axis=0)",
       lambda x: (np.mean(_f64(x["R"]), axis=0) + np.var(_f64(x["R"]), axis=0)).astype(np.float32), "moments"))
add(ew("var_rows0_jit_expr", "jax.jit(lambda r: jnp.var(r * 2 - 1, axis=0))(H)",
       lambda x: _var64(x["H"] * np.float32(2) - np.float32(1), axis=0), "moments"))
add(ew("standardize_rows0_jit", "jax.jit(lambda r: (r - r.mean(0)) / jnp.sqrt(r.var(0) + 1e-5))(R)",
       lambda x: ((_f64(x["R"]) - _f64(x["R"]).mean(0)) / np.sqrt(_f64(x["R"]).var(0) + 1e-5)).astype(np.float32), "sum5"))
add(ew("argmax", "a.argmax()", lambda x: np.int32(x["a"].argmax()), "exact"))
add(ew("argmax_ax", "jnp.argmax(a, axis=1)", lambda x: np.argmax(x["a"], axis=1).astype(np.int32), "exact"))
add(ew("argmin_ax0", "a.argmin(axis=0)", lambda x: x["a"].argmin(axis=0).astype(np.int32), "exact"))
add(ew("all", "jnp.all(m, axis=0)", lambda x: np.all(x["m"], axis=0), "exact"))
add(ew("any", "m.any(axis=1)", lambda x: x["m"].any(axis=1), "exact"))
add(ew("sum_int", "i.sum(axis=0)", lambda x: x["i"].sum(axis=0).astype(np.int32), "exact"))
add(ew("sum_bool", "m.sum()", lambda x: np.int32(x["m"].sum()), "exact"))
add(ew("max_int", "jnp.max(i, axis=1)", lambda x: np.max(x["i"], axis=1), "exact"))
add(ew("mean_int", "i.mean()", lambda x: np.float32(x["i"].mean())))
add(ew("cumsum", "jnp.cumsum(a, axis=1)", lambda x: np.cumsum(x["a"], axis=1), "red"))
add(ew("cumsum_flat", "a.cumsum()", lambda x: np.cumsum(x["a"]), "red"))
add(ew("cumsum_int", "jnp.cumsum(i, axis=0)", lambda x: np.cumsum(x["i"], axis=0).astype(np.int32), "exact"))
add(ew("cumprod", "jnp.cumprod(q, axis=1)", lambda x: np.cumprod(x["q"], axis=1), "red"))
add(ew("sort", "jnp.sort(a, axis=1)", lambda x: np.sort(x["a"], axis=1), "exact"))
add(ew("sort_ax0", "jnp.sort(i, axis=0)", lambda x: np.sort(x["i"], axis=0), "exact"))

# shape ops
add(ew("reshape", "a.reshape(16, 8)", lambda x: x["a"].reshape(16, 8), "exact"))
add(ew("reshape_tuple", "jnp.reshape(a, (4, 2, 16))", lambda x: x["a"].reshape(4, 2, 16), "exact"))
add(ew("reshape_infer", "a.reshape(-1, 4)", lambda x: x["a"].reshape(-1, 4), "exact"))
add(ew("transpose", "a.T", lambda x: x["a"].T, "exact"))
add(ew("transpose3", "jnp.transpose(s, (2, 0, 1))", lambda x: np.transpose(x["s"], (2, 0, 1)), "exact"))
add(ew("transpose_meth", "s.transpose(1, 2, 0)", lambda x: x["s"].transpose(1, 2, 0), "exact"))
add(ew("swapaxes", "jnp.swapaxes(s, 0, 2)", lambda x: np.swapaxes(x["s"], 0, 2), "exact"))
add(ew("moveaxis", "jnp.moveaxis(s, 0, -1)", lambda x: np.moveaxis(x["s"], 0, -1), "exact"))
add(ew("expand_dims", "jnp.expand_dims(a, 1)", lambda x: np.expand_dims(x["a"], 1), "exact"))
add(ew("squeeze", "jnp.expand_dims(a, 0).squeeze(0)", lambda x: x["a"], "exact"))
add(ew("ravel", "jnp.ravel(a)", lambda x: np.ravel(x["a"]), "exact"))
add(ew("flatten", "s.flatten()", lambda x: x["s"].flatten(), "exact"))
add(ew("concat0", "jnp.concatenate([a, b], axis=0)", lambda x: np.concatenate([x["a"], x["b"]], axis=0), "exact"))
add(ew("concat1", "jnp.concatenate([a, b, a], axis=1)", lambda x: np.concatenate([x["a"], x["b"], x["a"]], axis=1), "exact"))
add(ew("stack", "jnp.stack([a, b])", lambda x: np.stack([x["a"], x["b"]]), "exact"))
add(ew("stack1", "jnp.stack([a, b], axis=1)", lambda x: np.stack([x["a"], x["b"]], axis=1), "exact"))
add(ew("split", "jnp.split(a, 2, axis=1)[1]", lambda x: np.split(x["a"], 2, axis=1)[1], "exact"))
add(ew("split_idx", "jnp.split(v, [3, 10])[1]", lambda x: np.split(x["v"], [3, 10])[1], "exact"))
add(ew("tile", "jnp.tile(v, 3)", lambda x: np.tile(x["v"], 3), "exact"))
add(ew("tile2", "jnp.tile(a, (2, 1))", lambda x: np.tile(x["a"], (2, 1)), "exact"))
add(ew("repeat", "jnp.repeat(a, 2, axis=1)", lambda x: np.repeat(x["a"], 2, axis=1), "exact"))
add(ew("repeat_flat", "jnp.repeat(v, 3)", lambda x: np.repeat(x["v"], 3), "exact"))
add(ew("flip", "jnp.flip(a, axis=1)", lambda x: np.flip(x["a"], axis=1), "exact"))
add(ew("flip_all", "jnp.flip(s)", lambda x: np.flip(x["s"]), "exact"))
add(ew("broadcast_to", "jnp.broadcast_to(v, (3, 16))", lambda x: np.broadcast_to(x["v"], (3, 16)), "exact"))
add(ew("triu", "jnp.triu(a, 1)", lambda x: np.triu(x["a"], 1), "exact"))
add(ew("tril", "jnp.tril(a)", lambda x: np.tril(x["a"]), "exact"))
add(ew("pad", "jnp.pad(a, ((1, 2), (0, 3)))", lambda x: np.pad(x["a"], ((1, 2), (0, 3))), "exact"))
add(ew("hstack", "jnp.hstack([v, w])", lambda x: np.hstack([x["v"], x["w"]]), "exact"))
add(ew("vstack", "jnp.vstack([a, b])", lambda x: np.vstack([x["a"], x["b"]]), "exact"))

# indexing
add(ew("index_int", "a[3]", lambda x: x["a"][3], "exact"))
add(ew("index_neg", "a[-1, -2]", lambda x: x["a"][-1, -2], "exact"))
add(ew("index_slice", "a[:, 2:6]", lambda x: x["a"][:, 2:6], "exact"))
add(ew("index_step", "a[1::2, ::4]", lambda x: x["a"][1::2, ::4], "exact"))
add(ew("index_rev", "a[::-1, ::-3]", lambda x: x["a"][::-1, ::-3], "exact"))
add(ew("index_newaxis", "a[None, 1:3, ..., 5]", lambda x: x["a"][None, 1:3, ..., 5], "exact"))
add(ew("index_ellipsis", "s[..., 3]", lambda x: x["s"][..., 3], "exact"))
add(ew("index_mixed", "s[1, :, 2:10:3]", lambda x: x["s"][1, :, 2:10:3], "exact"))
add(ew("index_list", "v[[0, 5, 5, 15]]", lambda x: x["v"][[0, 5, 5, 15]], "exact"))
add(ew("at_set", "a.at[2, 3].set(7.0)", lambda x: _at(x["a"], (2, 3), "set", 7.0), "exact"))
add(ew("at_set_row", "a.at[1].set(v)", lambda x: _at(x["a"], 1, "set", x["v"]), "exact"))
add(ew("at_add_slice", "a.at[:, 1:9:2].add(1.0)", lambda x: _at(x["a"], np.s_[:, 1:9:2], "add", 1.0), "exact"))
add(ew("at_mul_rev", "a.at[::-2].multiply(2.0)", lambda x: _at(x["a"], np.s_[::-2], "mul", 2.0), "exact"))
add(ew("at_min", "i.at[:, :4].min(0)", lambda x: _at(x["i"], np.s_[:, :4], "min", 0), "exact"))
add(ew("at_max", "i.at[3:5].max(i[0])", lambda x: _at(x["i"], np.s_[3:5], "max", x["i"][0]), "exact"))
add(ew("at_get", "a.at[1:3].get()", lambda x: x["a"][1:3], "exact"))
add(ew("at_set_list", "a.at[[1, 6]].set(0.5)", lambda x: _at(x["a"], [1, 6], "set", 0.5), "exact"))
add(ew("at_add_list_dup", "i.at[:, [0, 0, 5]].add(j[:, :3])", lambda x: _add_at(x["i"], x["j"][:, :3]), "exact"))

# contractions
add(ew("dot", "jnp.dot(a, c)", lambda x: x["a"] @ x["c"], "red"))
add(ew("matmul_op", "a @ c", lambda x: x["a"] @ x["c"], "red"))
add(ew("matmul_fn", "jnp.matmul(c, a)", lambda x: x["c"] @ x["a"], "red"))
add(ew("matvec", "a @ v", lambda x: x["a"] @ x["v"], "red"))
add(ew("vecdot", "jnp.dot(v, w)", lambda x: np.dot(x["v"], x["w"]), "red"))
add(ew("batched_matmul", "s @ t", lambda x: x["s"] @ x["t"], "red"))
add(ew("batched_2d", "s @ c", lambda x: x["s"] @ x["c"], "red"))
add(ew("einsum_mm", "jnp.einsum('ij,jk->ik', a, c)", lambda x: np.einsum("ij,jk->ik", x["a"], x["c"]), "red"))
add(ew("einsum_t", "jnp.einsum('ij->ji', a)", lambda x: np.einsum("ij->ji", x["a"]), "exact"))
add(ew("einsum_rowdot", "jnp.einsum('ij,ij->i', a, b)", lambda x: np.einsum("ij,ij->i", x["a"], x["b"]), "red"))
add(ew("einsum_batch", "jnp.einsum('bij,bjk->bki', s, t)", lambda x: np.einsum("bij,bjk->bki", x["s"], x["t"]), "red"))
add(ew("einsum_sum", "jnp.einsum('ij->j', a)", lambda x: np.einsum("ij->j", x["a"]), "red"))
add(ew("einsum_outer", "jnp.einsum('i,j->ij', v, w)", lambda x: np.einsum("i,j->ij", x["v"], x["w"]), "red"))
add(ew("einsum_3", "jnp.einsum('ij,jk,k->i', a, c, a[0, :8])",
       lambda x: np.einsum("ij,jk,k->i", x["a"], x["c"], x["a"][0, :8]), "red"))
add(ew("tensordot", "jnp.tensordot(a, c, axes=1)", lambda x: np.tensordot(x["a"], x["c"], axes=1), "red"))
add(ew("tensordot_pairs", "jnp.tensordot(s, a, axes=([1, 2], [0, 1]))",
       lambda x: np.tensordot(x["s"], x["a"], axes=([1, 2], [0, 1])), "red"))
add(ew("outer", "jnp.outer(v, w)", lambda x: np.outer(x["v"], x["w"]), "exact"))
add(ew("inner", "jnp.inner(a, b)", lambda x: np.inner(x["a"], x["b"]), "red"))
add(ew("vdot", "jnp.vdot(a, b)", lambda x: np.vdot(x["a"], x["b"]), "red"))
add(ew("norm", "jnp.linalg.norm(a)", lambda x: np.linalg.norm(x["a"].astype(np.float64)).astype(np.float32), "red"))

# creation
add(ew("arange", "jnp.arange(10)", lambda x: np.arange(10, dtype=np.int32), "exact"))
add(ew("arange_f", "jnp.arange(0, 1, 0.1)", lambda x: np.arange(0, 1, 0.1, dtype=np.float32), "exact"))
add(ew("arange_step", "jnp.arange(3, 30, 4)", lambda x: np.arange(3, 30, 4, dtype=np.int32), "exact"))
add(ew("linspace", "jnp.linspace(-1, 2, 7)", lambda x: np.linspace(-1, 2, 7, dtype=np.float32)))
add(ew("linspace_noend", "jnp.linspace(0, 1, 5, endpoint=False)", lambda x: np.linspace(0, 1, 5, endpoint=False, dtype=np.float32)))
add(ew("eye", "jnp.eye(4, 6, k=1)", lambda x: np.eye(4, 6, k=1, dtype=np.float32), "exact"))
add(ew("zeros_like", "jnp.zeros_like(a)", lambda x: np.zeros_like(x["a"]), "exact"))
add(ew("ones_like_int", "jnp.ones_like(i)", lambda x: np.ones_like(x["i"]), "exact"))
add(ew("full_like", "jnp.full_like(a, 2.5)", lambda x: np.full_like(x["a"], 2.5), "exact"))
add(ew("full", "jnp.full((3, 2), 7)", lambda x: np.full((3, 2), 7, dtype=np.int32), "exact"))
add(ew("ones_dtype", "jnp.ones((2, 3), dtype=jnp.int32)", lambda x: np.ones((2, 3), dtype=np.int32), "exact"))
add(ew("array_list", "jnp.array([[1, 2], [3, 4]]) * 2", lambda x: np.array([[2, 4], [6, 8]], dtype=np.int32), "exact"))

# lax
add(ew("lax_dot_general", "jax.lax.dot_general(s, t, (((2,), (1,)), ((0,), (0,))))",
       lambda x: np.einsum("bij,bjk->bik", x["s"], x["t"]), "red"))
add(ew("lax_reshape", "jax.lax.reshape(a, (16, 8))", lambda x: x["a"].reshape(16, 8), "exact"))
add(ew("lax_iota", "jax.lax.broadcasted_iota(jnp.int32, (3, 5), 1)",
       lambda x: np.broadcast_to(np.arange(5, dtype=np.int32), (3, 5)), "exact"))
add(ew("lax_convert", "jax.lax.convert_element_type(a, jnp.int32)", lambda x: x["a"].astype(np.int32), "exact"))
add(ew("lax_add", "jax.lax.add(a, b)", lambda x: x["a"] + x["b"], "exact"))
add(ew("lax_div_int", "jax.lax.div(i, j)", lambda x: (np.trunc(x["i"] / x["j"])).astype(np.int32), "exact"))
add(ew("lax_rem_int", "jax.lax.rem(i, j)", lambda x: np.fmod(x["i"], x["j"]), "exact"))
add(ew("lax_slice", "jax.lax.slice(a, (1, 2), (7, 14), (2, 3))", lambda x: x["a"][1:7:2, 2:14:3], "exact"))
add(ew("lax_dynamic_slice", "jax.lax.dynamic_slice(a, (2, 3), (4, 5))", lambda x: x["a"][2:6, 3:8], "exact"))
add(ew("lax_dus", "jax.lax.dynamic_update_slice(a, b[:2, :3], (5, 7))",
       lambda x: _dus(x["a"], x["b"][:2, :3], (5, 7)), "exact"))
add(ew("lax_pad", "jax.lax.pad(a, 0.5, ((1, 0, 0), (2, 3, 0)))",
       lambda x: np.pad(x["a"], ((1, 0), (2, 3)), constant_values=0.5), "exact"))
add(ew("lax_cumsum_rev", "jax.lax.cumsum(a, axis=1, reverse=True)", lambda x: np.cumsum(x["a"][:, ::-1], axis=1)[:, ::-1], "red"))
add(ew("lax_reduce_max", "jax.lax.reduce_max(a, (1,))", lambda x: x["a"].max(axis=1), "exact"))
add(ew("lax_select", "jax.lax.select(m, a, b)", lambda x: np.where(x["m"], x["a"], x["b"]), "exact"))
add(ew("lax_bid", "jax.lax.broadcast_in_dim(v, (4, 16), (1,))", lambda x: np.broadcast_to(x["v"], (4, 16)), "exact"))
add(ew("stop_gradient", "jax.lax.stop_gradient(a) * 2", lambda x: x["a"] * 2, "exact"))


def _at(x, idx, kind, val):
    y = np.array(x, copy=True)
    val = np.asarray(val).astype(x.dtype)
    if kind == "set":
        y[idx] = val
    elif kind == "add":
        y[idx] += val
    elif kind == "mul":
        y[idx] *= val
    elif kind == "min":
        y[idx] = np.minimum(y[idx], val)
    elif kind == "max":
        y[idx] = np.maximum(y[idx], val)
    return y


def _add_at(x, u):
    y = np.array(x, copy=True)
    np.add.at(y, (slice(None), [0, 0, 5]), u)
    return y


def _dus(x, u, starts):
    y = np.array(x, copy=True)
    y[starts[0]:starts[0] + u.shape[0], starts[1]:starts[1] + u.shape[1]] = u
    return y


# ---- coverage: indexing, array building, nan-statistics (jnp and the host numpy module) ----
# np_* cases run numpy (host) functions on np.asarray copies: results keep numpy's dtypes.

def _nz(v, size, fill=0):
    out = []
    for c in np.nonzero(v):
        c = c[:size]
        out.append(np.concatenate([c, np.full(size - len(c), fill, c.dtype)]))
    return tuple(out)

def _aw(v, size, fill=0):
    w = np.argwhere(v)[:size]
    return np.concatenate([w, np.full((size - len(w), v.ndim), fill, w.dtype)])

def _take_fill(v, idx, axis, fill):
    n = v.shape[axis]
    ok = (idx >= -n) & (idx < n)
    r = np.take(v, np.where(ok, idx, 0), axis=axis)
    shape = [1] * v.ndim
    shape[axis] = len(idx)
    return np.where(ok.reshape(shape), r, np.asarray(fill).astype(v.dtype))

def _tal_fill(v, idx):
    ok = (idx >= -16) & (idx < 16)
    return np.where(ok, np.take_along_axis(v, np.where(ok, idx, 0), axis=1), np.float32(np.nan))

def _take_grad(x):
    g = np.zeros((8, 16), np.float32)
    np.add.at(g, (slice(None), np.where(x["x"] < 0, x["x"] + 16, x["x"])), 1)
    return g

_COV = [
    # take / take_along_axis
    ("take_ax0", "jnp.take(a, x, axis=0)", lambda x: np.take(x["a"], x["x"], axis=0)),
    ("take_ax1", "jnp.take(a, x, axis=1)", lambda x: np.take(x["a"], x["x"], axis=1)),
    ("take_neg_axis", "jnp.take(i, x, axis=-1)", lambda x: np.take(x["i"], x["x"], axis=-1)),
    ("take_flat", "jnp.take(i, x)", lambda x: np.take(x["i"], x["x"])),
    ("take_2d_idx", "jnp.take(s, jnp.reshape(x, (2, 3)), axis=1)", lambda x: np.take(x["s"], x["x"].reshape(2, 3), axis=1)),
    ("take_scalar", "jnp.take(v, 3)", lambda x: np.take(x["v"], 3)),
    ("take_list", "jnp.take(a, [0, -1, 2], axis=1)", lambda x: np.take(x["a"], [0, -1, 2], axis=1)),
    ("take_jit", "jax.jit(lambda z, k: jnp.take(z, k, axis=1))(a, x)", lambda x: np.take(x["a"], x["x"], axis=1)),
    ("take_grad", "jax.grad(lambda z: jnp.take(z, x, axis=1).sum())(a)", _take_grad),
    ("tal_ax1", "jnp.take_along_axis(a, y, axis=1)", lambda x: np.take_along_axis(x["a"], x["y"], axis=1)),
    ("tal_neg_axis", "jnp.take_along_axis(a, y, axis=-1)", lambda x: np.take_along_axis(x["a"], x["y"], axis=-1)),
    ("tal_ax0_int", "jnp.take_along_axis(i, Y, axis=0)", lambda x: np.take_along_axis(x["i"], x["Y"], axis=0)),
    ("tal_argsort", "jnp.take_along_axis(a, jnp.argsort(a, axis=1), axis=1)", lambda x: np.sort(x["a"], axis=1)),
    ("tal_none", "jnp.take_along_axis(i, x, axis=None)", lambda x: np.take_along_axis(x["i"], x["x"], axis=None)),
    ("take_fill", "jnp.take(a, x * 3, axis=0)", lambda x: _take_fill(x["a"], x["x"] * 3, 0, np.nan)),
    ("take_fill_int", "jnp.take(i, x * 3, axis=1, fill_value=7)", lambda x: _take_fill(x["i"], x["x"] * 3, 1, 7)),
    ("take_wrap", "jnp.take(a, x * 3, axis=1, mode='wrap')", lambda x: np.take(x["a"], x["x"] * 3, axis=1, mode="wrap")),
    ("take_clip", "jnp.take(i, x * 3, axis=0, mode='clip')", lambda x: np.take(x["i"], x["x"] * 3, axis=0, mode="clip")),
    ("tal_fill", "jnp.take_along_axis(a, y * 2, axis=1)", lambda x: _tal_fill(x["a"], x["y"] * 2)),
    ("repeat_counts", "jnp.repeat(a, jnp.concatenate([jnp.abs(x) % 3, jnp.array([1, 2])]), axis=0)",
     lambda x: np.repeat(x["a"], np.concatenate([np.abs(x["x"]) % 3, [1, 2]]), axis=0)),
    ("repeat_counts_list", "jnp.repeat(i[:2, :3], [2, 0, 1], axis=-1)", lambda x: np.repeat(x["i"][:2, :3], [2, 0, 1], axis=-1)),
    ("repeat_counts_jit", "jax.jit(lambda r: jnp.repeat(v[:4], r, total_repeat_length=6))(jnp.array([3, 0, 1, 2]))",
     lambda x: np.repeat(x["v"][:4], [3, 0, 1, 2])),
    # roll
    ("roll_flat", "jnp.roll(a, 3)", lambda x: np.roll(x["a"], 3)),
    ("roll_big_shift", "jnp.roll(a, 20, axis=1)", lambda x: np.roll(x["a"], 20, axis=1)),
    ("roll_neg", "jnp.roll(i, -5, axis=0)", lambda x: np.roll(x["i"], -5, axis=0)),
    ("roll_multi", "jnp.roll(i, (2, -3), axis=(0, 1))", lambda x: np.roll(x["i"], (2, -3), axis=(0, 1))),
    ("roll_3d", "jnp.roll(s, 100, axis=-1)", lambda x: np.roll(x["s"], 100, axis=-1)),
    ("roll_vec", "jnp.roll(v, 17)", lambda x: np.roll(x["v"], 17)),
    ("roll_jit", "jax.jit(lambda z: jnp.roll(z, -33))(a)", lambda x: np.roll(x["a"], -33)),
    # diff
    ("diff", "jnp.diff(a)", lambda x: np.diff(x["a"])),
    ("diff_n2_ax0", "jnp.diff(a, n=2, axis=0)", lambda x: np.diff(x["a"], n=2, axis=0)),
    ("diff_int", "jnp.diff(i, axis=-1)", lambda x: np.diff(x["i"], axis=-1)),
    ("diff_3d", "jnp.diff(s, n=3, axis=1)", lambda x: np.diff(x["s"], n=3, axis=1)),
    ("diff_n0", "jnp.diff(v, n=0)", lambda x: np.diff(x["v"], n=0)),
    ("diff_prepend", "jnp.diff(i, prepend=0)", lambda x: np.diff(x["i"], prepend=0)),
    ("diff_append_arr", "jnp.diff(a, axis=0, append=b[:2])", lambda x: np.diff(x["a"], axis=0, append=x["b"][:2])),
    ("diff_both", "jnp.diff(v, n=2, prepend=w[:3], append=1.5)", lambda x: np.diff(x["v"], n=2, prepend=x["w"][:3], append=np.float32(1.5))),
    ("diff_bool", "jnp.diff(m, axis=1)", lambda x: np.diff(x["m"], axis=1)),
    # meshgrid
    ("meshgrid_xy0", "jnp.meshgrid(v[:5], x)[0]", lambda x: np.meshgrid(x["v"][:5], x["x"])[0]),
    ("meshgrid_xy1", "jnp.meshgrid(v[:5], x)[1]", lambda x: np.meshgrid(x["v"][:5], x["x"])[1]),
    ("meshgrid_ij", "jnp.meshgrid(v[:5], w[:3], indexing='ij')[1]", lambda x: np.meshgrid(x["v"][:5], x["w"][:3], indexing="ij")[1]),
    ("meshgrid_3", "jnp.meshgrid(v[:2], w[:3], x[:4])[2]", lambda x: np.meshgrid(x["v"][:2], x["w"][:3], x["x"][:4])[2]),
    # diag / trace
    ("diag_vec", "jnp.diag(v)", lambda x: np.diag(x["v"])),
    ("diag_vec_k2", "jnp.diag(v, k=2)", lambda x: np.diag(x["v"], k=2)),
    ("diag_vec_km3", "jnp.diag(x, k=-3)", lambda x: np.diag(x["x"], k=-3)),
    ("diag_mat", "jnp.diag(a)", lambda x: np.diag(x["a"])),
    ("diag_mat_k3", "jnp.diag(a, k=3)", lambda x: np.diag(x["a"], k=3)),
    ("diag_mat_km2", "jnp.diag(i, k=-2)", lambda x: np.diag(x["i"], k=-2)),
    ("diag_mat_k20", "jnp.diag(a, k=20)", lambda x: np.diag(x["a"], k=20)),
    ("diag_tall_km7", "jnp.diag(c, k=-7)", lambda x: np.diag(x["c"], k=-7)),
    ("trace", "jnp.trace(a)", lambda x: np.trace(x["a"]), "red"),
    ("trace_off3", "jnp.trace(a, offset=3)", lambda x: np.trace(x["a"], offset=3), "red"),
    ("trace_offm2_int", "jnp.trace(i, offset=-2)", lambda x: np.trace(x["i"], offset=-2)),
    ("trace_3d", "jnp.trace(s, axis1=1, axis2=2)", lambda x: np.trace(x["s"], axis1=1, axis2=2), "red"),
    ("trace_3d_neg", "jnp.trace(s, offset=1, axis1=-1, axis2=0)", lambda x: np.trace(x["s"], offset=1, axis1=-1, axis2=0), "red"),
    ("trace_off_big", "jnp.trace(a, offset=100)", lambda x: np.trace(x["a"], offset=100), "red"),
    ("diagonal", "jnp.diagonal(a)", lambda x: np.diagonal(x["a"])),
    ("diagonal_off", "jnp.diagonal(a, offset=-3)", lambda x: np.diagonal(x["a"], offset=-3)),
    ("diagonal_3d", "jnp.diagonal(s, offset=2, axis1=2, axis2=1)", lambda x: np.diagonal(x["s"], offset=2, axis1=2, axis2=1)),
    ("diagonal_int", "jnp.diagonal(i, 5, 0, -1)", lambda x: np.diagonal(x["i"], 5, 0, -1)),
    ("searchsorted", "jnp.searchsorted(jnp.sort(v), a)", lambda x: np.searchsorted(np.sort(x["v"]), x["a"]).astype(np.int32)),
    ("searchsorted_right", "jnp.searchsorted(jnp.arange(-20, 20, 2), i, side='right')",
     lambda x: np.searchsorted(np.arange(-20, 20, 2), x["i"], side="right").astype(np.int32)),
    ("searchsorted_jit", "jax.jit(lambda z: jnp.searchsorted(jnp.arange(-20, 20, 2), z))(j)",
     lambda x: np.searchsorted(np.arange(-20, 20, 2), x["j"]).astype(np.int32)),
    ("bincount", "jnp.bincount(jnp.abs(i[0]))", lambda x: np.bincount(np.abs(x["i"][0])).astype(np.int32)),
    ("bincount_min_w", "jnp.bincount(jnp.abs(x), weights=v[:6], minlength=12)", lambda x: np.bincount(np.abs(x["x"]), weights=x["v"][:6], minlength=12).astype(np.float32), "red"),
    ("bincount_len_clip", "jax.jit(lambda z: jnp.bincount(z, length=5))(x)", lambda x: np.bincount(np.clip(x["x"], 0, None), minlength=5)[:5].astype(np.int32)),
    ("unique", "jnp.unique(i)", lambda x: np.unique(x["i"])),
    ("unique_nan", "jnp.unique(jnp.floor(N * 2))", lambda x: np.unique(np.floor(x["N"] * 2))),
    ("unique_size", "jax.jit(lambda z: jnp.unique(z, size=60, fill_value=-99))(i)",
     lambda x: np.concatenate([np.unique(x["i"]), np.full(60 - len(np.unique(x["i"])), -99, np.int32)])[:60]),
    ("unique_size_default_fill", "jnp.unique(jnp.abs(x), size=8)",
     lambda x: np.concatenate([np.unique(np.abs(x["x"])), np.full(8, np.abs(x["x"]).min(), np.int32)])[:8]),
    # kron, count_nonzero, nonzero, argwhere
    ("kron_mixed", "jnp.kron(a[:2, :3], i[:3, :2])", lambda x: np.kron(x["a"][:2, :3], x["i"][:3, :2])),
    ("kron_vec", "jnp.kron(x, x[:4])", lambda x: np.kron(x["x"], x["x"][:4])),
    ("kron_ranks", "jnp.kron(a[:3, :4], v[:2])", lambda x: np.kron(x["a"][:3, :4], x["v"][:2])),
    ("count_nonzero", "jnp.count_nonzero(i)", lambda x: np.count_nonzero(x["i"])),
    ("count_nonzero_ax0", "jnp.count_nonzero(i, axis=0)", lambda x: np.count_nonzero(x["i"], axis=0)),
    ("count_nonzero_bool", "jnp.count_nonzero(m, axis=-1, keepdims=True)", lambda x: np.count_nonzero(x["m"], axis=-1, keepdims=True)),
    ("count_nonzero_float", "jnp.count_nonzero(jnp.floor(a), axis=(0, 1))", lambda x: np.count_nonzero(np.floor(x["a"]), axis=(0, 1))),
    ("nonzero_size0", "jnp.nonzero(i > 5, size=30)[0]", lambda x: _nz(x["i"] > 5, 30)[0].astype(np.int32)),
    ("nonzero_size1", "jnp.nonzero(i > 5, size=30)[1]", lambda x: _nz(x["i"] > 5, 30)[1].astype(np.int32)),
    ("nonzero_pad", "jnp.nonzero(i > 17, size=40, fill_value=-1)[1]", lambda x: _nz(x["i"] > 17, 40, -1)[1].astype(np.int32)),
    ("nonzero_eager", "jnp.nonzero(i > 15)[1]", lambda x: np.nonzero(x["i"] > 15)[1].astype(np.int32)),
    ("nonzero_jit", "jax.jit(lambda z: jnp.nonzero(z, size=10, fill_value=-1)[0])(v > 0)", lambda x: _nz(x["v"] > 0, 10, -1)[0].astype(np.int32)),
    ("argwhere_eager", "jnp.argwhere(s > 1.5)", lambda x: np.argwhere(x["s"] > 1.5).astype(np.int32)),
    ("argwhere_size", "jnp.argwhere(i, size=140)", lambda x: _aw(x["i"], 140).astype(np.int32)),
    # nan reductions
    ("nansum", "jnp.nansum(N)", lambda x: np.nansum(x["N"]), "red"),
    ("nansum_ax0", "jnp.nansum(N, axis=0)", lambda x: np.nansum(x["N"], axis=0), "red"),
    ("nansum_int", "jnp.nansum(i, axis=1)", lambda x: np.nansum(x["i"], axis=1)),
    ("nanmean_keep", "jnp.nanmean(N, axis=1, keepdims=True)", lambda x: np.nanmean(x["N"], axis=1, keepdims=True), "red"),
    ("nanmean_int", "jnp.nanmean(i)", lambda x: np.nanmean(x["i"]), "red"),
    ("nanmax_ax1", "jnp.nanmax(N, axis=1)", lambda x: np.nanmax(x["N"], axis=1)),
    ("nanmax_all", "jnp.nanmax(N)", lambda x: np.nanmax(x["N"])),
    ("nanmin_neg", "jnp.nanmin(N, axis=-1)", lambda x: np.nanmin(x["N"], axis=-1)),
    ("nanmin_ax0", "jnp.nanmin(N, axis=0, keepdims=True)", lambda x: np.nanmin(x["N"], axis=0, keepdims=True)),
    ("nanmax_jit", "jax.jit(lambda z: jnp.nanmax(z, axis=0))(N)", lambda x: np.nanmax(x["N"], axis=0)),
    ("nanprod", "jnp.nanprod(N * 0.5 + 1, axis=1)", lambda x: np.nanprod(x["N"] * np.float32(0.5) + np.float32(1), axis=1), "red"),
    ("nanprod_int", "jnp.nanprod(j[:, :4], axis=0)", lambda x: np.nanprod(x["j"][:, :4], axis=0)),
    ("nanvar", "jnp.nanvar(N, axis=0)", lambda x: np.nanvar(x["N"], axis=0), "red"),
    ("nanvar_ddof", "jnp.nanvar(N, axis=1, ddof=1, keepdims=True)", lambda x: np.nanvar(x["N"], axis=1, ddof=1, keepdims=True), "red"),
    ("nanstd", "jnp.nanstd(N)", lambda x: np.nanstd(x["N"]), "red"),
    ("nanstd_int", "jnp.nanstd(i, axis=-1)", lambda x: np.nanstd(x["i"], axis=-1), "red"),
    ("nanargmax", "jnp.nanargmax(N, axis=0)", lambda x: np.nanargmax(x["N"], axis=0).astype(np.int32)),
    ("nanargmin_all", "jnp.nanargmin(N)", lambda x: np.int32(np.nanargmin(x["N"]))),
    ("nanargmin_row", "jnp.nanargmin(N, axis=1)", lambda x: np.array([np.nanargmin(r) if not np.all(np.isnan(r)) else -1 for r in x["N"]], np.int32)),
    ("nanargmax_int", "jnp.nanargmax(i, axis=1, keepdims=True)", lambda x: np.argmax(x["i"], axis=1, keepdims=True).astype(np.int32)),
    # order statistics, average
    ("median", "jnp.median(a)", lambda x: np.median(x["a"]), "ew"),
    ("median_ax0", "jnp.median(a, axis=0)", lambda x: np.median(x["a"], axis=0), "ew"),
    ("median_keep", "jnp.median(a, axis=-1, keepdims=True)", lambda x: np.median(x["a"], axis=-1, keepdims=True), "ew"),
    ("median_int", "jnp.median(i, axis=1)", lambda x: np.median(x["i"], axis=1), "ew"),
    ("median_3d", "jnp.median(s, axis=1)", lambda x: np.median(x["s"], axis=1), "ew"),
    ("median_nan", "jnp.median(N, axis=1)", lambda x: np.median(x["N"], axis=1), "ew"),
    ("median_axes", "jnp.median(s, axis=(0, 2))", lambda x: np.median(x["s"], axis=(0, 2)), "ew"),
    ("quantile_axes_keep", "jnp.quantile(s, jnp.array([0.2, 0.7]), axis=(-1, 0), keepdims=True)",
     lambda x: np.quantile(x["s"], [0.2, 0.7], axis=(-1, 0), keepdims=True), "ew"),
    ("nanmedian", "jnp.nanmedian(N, axis=1)", lambda x: np.nanmedian(x["N"], axis=1), "ew"),
    ("nanmedian_all", "jnp.nanmedian(N)", lambda x: np.nanmedian(x["N"]), "ew"),
    ("nanmedian_keep", "jnp.nanmedian(N, axis=0, keepdims=True)", lambda x: np.nanmedian(x["N"], axis=0, keepdims=True), "ew"),
    ("nanquantile", "jnp.nanquantile(N, jnp.array([0.1, 0.5, 0.95]), axis=-1)", lambda x: np.nanquantile(x["N"], [0.1, 0.5, 0.95], axis=-1), "ew"),
    ("nanpercentile", "jnp.nanpercentile(N, 30, axis=0)", lambda x: np.nanpercentile(x["N"], 30, axis=0), "ew"),
    ("nanquantile_int", "jnp.nanquantile(i, 0.4, axis=1)", lambda x: np.nanquantile(x["i"], 0.4, axis=1), "ew"),
    ("quantile_lower", "jnp.quantile(a, jnp.array([0.1, 0.5, 0.77]), axis=1, method='lower')",
     lambda x: np.quantile(x["a"], [0.1, 0.5, 0.77], axis=1, method="lower"), "ew"),
    ("quantile_higher", "jnp.quantile(s, 0.3, axis=0, method='higher')", lambda x: np.quantile(x["s"], 0.3, axis=0, method="higher"), "ew"),
    ("quantile_nearest", "jnp.quantile(a, jnp.array([0.1, 0.5, 0.9]), axis=0, method='nearest')",
     lambda x: np.quantile(x["a"], [0.1, 0.5, 0.9], axis=0, method="nearest"), "ew"),
    ("percentile_midpoint", "jnp.percentile(i, 35, axis=-1, method='midpoint')", lambda x: np.percentile(x["i"], 35, axis=-1, method="midpoint"), "ew"),
    ("quantile", "jnp.quantile(a, 0.3)", lambda x: np.quantile(x["a"], 0.3), "ew"),
    ("quantile_list", "jnp.quantile(a, jnp.array([0.1, 0.5, 0.9]), axis=1)", lambda x: np.quantile(x["a"], [0.1, 0.5, 0.9], axis=1), "ew"),
    ("quantile_int", "jnp.quantile(i, 0.75, axis=0)", lambda x: np.quantile(x["i"], 0.75, axis=0), "ew"),
    ("quantile_ends", "jnp.quantile(v, jnp.array([0.0, 1.0]))", lambda x: np.quantile(x["v"], [0.0, 1.0]), "ew"),
    ("percentile", "jnp.percentile(a, 37, axis=-1)", lambda x: np.percentile(x["a"], 37, axis=-1), "ew"),
    ("percentile_keep", "jnp.percentile(s, jnp.array([5, 95]), axis=0, keepdims=True)",
     lambda x: np.percentile(x["s"], [5, 95], axis=0, keepdims=True), "red"),
    ("average_returned_scl", "jnp.average(a, axis=0, weights=p[:, 0], returned=True)[1]",
     lambda x: np.average(x["a"], axis=0, weights=x["p"][:, 0], returned=True)[1], "red"),
    ("average_returned_cnt", "jnp.average(i, axis=1, returned=True)[1]", lambda x: np.average(x["i"], axis=1, returned=True)[1], "red"),
    ("cov", "jnp.cov(a)", lambda x: np.cov(x["a"]), "red"),
    ("cov_cols_bias", "jnp.cov(a, rowvar=False, bias=True)", lambda x: np.cov(x["a"], rowvar=False, bias=True), "red"),
    ("cov_xy_ddof", "jnp.cov(v, w, ddof=0)", lambda x: np.cov(x["v"], x["w"], ddof=0), "red"),
    ("cov_1d", "jnp.cov(i[0])", lambda x: np.cov(x["i"][0]), "red"),
    ("corrcoef", "jnp.corrcoef(a)", lambda x: np.corrcoef(x["a"]), "red"),
    ("corrcoef_xy", "jnp.corrcoef(v, w)", lambda x: np.corrcoef(x["v"], x["w"]), "red"),
    ("average", "jnp.average(a)", lambda x: np.average(x["a"]), "red"),
    ("average_int_ax", "jnp.average(i, axis=0)", lambda x: np.average(x["i"], axis=0), "red"),
    ("average_w_full", "jnp.average(a, weights=p)", lambda x: np.average(x["a"], weights=x["p"]), "red"),
    ("average_w_1d", "jnp.average(a, axis=0, weights=p[:, 0])", lambda x: np.average(x["a"], axis=0, weights=x["p"][:, 0]), "red"),
    ("average_w_keep", "jnp.average(i, axis=-1, weights=p[0], keepdims=True)",
     lambda x: np.average(x["i"], axis=-1, weights=x["p"][0], keepdims=True), "red"),
]
for c in _COV:
    add(ew(c[0], c[1], c[2], c[3] if len(c) > 3 else "exact"))

# The host numpy module: the same functions on host copies (h(...) = np.asarray), numpy's dtypes.
_NP = [
    ("take", "np.take(h(a), h(x), axis=1)", lambda x: np.take(x["a"], x["x"], axis=1)),
    ("take_flat", "np.take(h(i), h(x))", lambda x: np.take(x["i"], x["x"])),
    ("take_along_axis", "np.take_along_axis(h(i), h(Y), axis=0)", lambda x: np.take_along_axis(x["i"], x["Y"], axis=0)),
    ("take_wrap", "np.take(h(a), h(x) * 3, axis=1, mode='wrap')", lambda x: np.take(x["a"], x["x"] * 3, axis=1, mode="wrap")),
    ("take_clip", "np.take(h(i), h(x) * 3, mode='clip')", lambda x: np.take(x["i"], x["x"] * 3, mode="clip")),
    ("diff_prepend", "np.diff(h(i), axis=0, prepend=h(j)[:1], append=3)", lambda x: np.diff(x["i"], axis=0, prepend=x["j"][:1], append=3)),
    ("roll", "np.roll(h(i), (2, -19), axis=(0, -1))", lambda x: np.roll(x["i"], (2, -19), axis=(0, -1))),
    ("diff", "np.diff(h(i), n=2, axis=0)", lambda x: np.diff(x["i"], n=2, axis=0)),
    ("meshgrid", "np.meshgrid(h(v)[:3], h(x))[0]", lambda x: np.meshgrid(x["v"][:3], x["x"])[0]),
    ("meshgrid_ij", "np.meshgrid(h(x), h(v)[:3], indexing='ij')[1]", lambda x: np.meshgrid(x["x"], x["v"][:3], indexing="ij")[1]),
    ("diag", "np.diag(h(x), k=-2)", lambda x: np.diag(x["x"], k=-2)),
    ("diag_mat", "np.diag(h(a), k=5)", lambda x: np.diag(x["a"], k=5)),
    ("trace_int", "np.trace(h(i), offset=1)", lambda x: np.trace(x["i"], offset=1)),
    ("trace", "np.trace(h(s), axis1=0, axis2=2)", lambda x: np.trace(x["s"], axis1=0, axis2=2), "red"),
    ("diagonal", "np.diagonal(h(s), offset=-1, axis1=1, axis2=2)", lambda x: np.diagonal(x["s"], offset=-1, axis1=1, axis2=2)),
    ("searchsorted", "np.searchsorted(np.sort(h(w)), h(a), side='right')", lambda x: np.searchsorted(np.sort(x["w"]), x["a"], side="right")),
    ("searchsorted_int", "np.searchsorted(np.arange(0, 40, 3), h(i))", lambda x: np.searchsorted(np.arange(0, 40, 3), x["i"])),
    ("searchsorted_scalar", "np.searchsorted(np.arange(0, 40, 3), 17)", lambda x: np.searchsorted(np.arange(0, 40, 3), 17)),
    ("bincount", "np.bincount(np.abs(h(i)[2]), minlength=30)", lambda x: np.bincount(np.abs(x["i"][2]), minlength=30)),
    ("bincount_w", "np.bincount(np.abs(h(x)), h(a)[0, :6])", lambda x: np.bincount(np.abs(x["x"]), x["a"][0, :6])),
    ("unique", "np.unique(h(i))", lambda x: np.unique(x["i"])),
    ("unique_counts", "np.unique(h(j), return_counts=True)[1]", lambda x: np.unique(x["j"], return_counts=True)[1]),
    ("unique_inverse", "np.unique(h(j), return_inverse=True)[1]", lambda x: np.unique(x["j"], return_inverse=True)[1]),
    ("unique_index", "np.unique(h(i), return_index=True)[1]", lambda x: np.unique(x["i"], return_index=True)[1]),
    ("unique_nan", "np.unique(np.floor(h(N) * 2))", lambda x: np.unique(np.floor(x["N"] * 2))),
    ("outer", "np.outer(h(v)[:4], h(x))", lambda x: np.outer(x["v"][:4], x["x"])),
    ("triu", "np.triu(h(i), k=1)", lambda x: np.triu(x["i"], k=1)),
    ("tril", "np.tril(h(s), k=-2)", lambda x: np.tril(x["s"], k=-2)),
    ("kron", "np.kron(h(x), h(i)[:2, :3])", lambda x: np.kron(x["x"], x["i"][:2, :3])),
    ("count_nonzero", "np.count_nonzero(h(i), axis=1)", lambda x: np.count_nonzero(x["i"], axis=1)),
    ("nonzero", "np.nonzero(h(i) > 12)[1]", lambda x: np.nonzero(x["i"] > 12)[1]),
    ("argwhere", "np.argwhere(h(s) > 1.0)", lambda x: np.argwhere(x["s"] > 1.0)),
    ("flip", "np.flip(h(i), axis=1)", lambda x: np.flip(x["i"], axis=1)),
    ("flip_all", "np.flip(h(s))", lambda x: np.flip(x["s"])),
    ("repeat", "np.repeat(h(i), 3, axis=0)", lambda x: np.repeat(x["i"], 3, axis=0)),
    ("repeat_counts", "np.repeat(h(i)[:, :3], [1, 3, 0], axis=1)", lambda x: np.repeat(x["i"][:, :3], [1, 3, 0], axis=1)),
    ("repeat_counts_flat", "np.repeat(h(x), np.arange(6))", lambda x: np.repeat(x["x"], np.arange(6))),
    ("repeat_flat", "np.repeat(h(x), 2)", lambda x: np.repeat(x["x"], 2)),
    ("pad", "np.pad(h(i), ((1, 2), (0, 3)), constant_values=7)", lambda x: np.pad(x["i"], ((1, 2), (0, 3)), constant_values=7)),
    ("tensordot", "np.tensordot(h(s), h(a), axes=([1, 2], [0, 1]))", lambda x: np.tensordot(x["s"], x["a"], axes=([1, 2], [0, 1])), "red"),
    ("tensordot_int", "np.tensordot(h(i), h(i).T, axes=1)", lambda x: np.tensordot(x["i"], x["i"].T, axes=1)),
    ("inner", "np.inner(h(a), h(b))", lambda x: np.inner(x["a"], x["b"]), "red"),
    ("vdot", "np.vdot(h(i), h(j))", lambda x: np.vdot(x["i"], x["j"])),
    ("nansum", "np.nansum(h(N), axis=1)", lambda x: np.nansum(x["N"], axis=1), "red"),
    ("nansum_int", "np.nansum(h(i))", lambda x: np.nansum(x["i"])),
    ("nanmean", "np.nanmean(h(N), axis=0)", lambda x: np.nanmean(x["N"], axis=0), "red"),
    ("nanmax", "np.nanmax(h(N), axis=1, keepdims=True)", lambda x: np.nanmax(x["N"], axis=1, keepdims=True)),
    ("nanmin", "np.nanmin(h(N))", lambda x: np.nanmin(x["N"])),
    ("nanprod", "np.nanprod(h(N)[:, :5], axis=0)", lambda x: np.nanprod(x["N"][:, :5], axis=0), "red"),
    ("nanvar", "np.nanvar(h(N), axis=0, ddof=1)", lambda x: np.nanvar(x["N"], axis=0, ddof=1), "red"),
    ("nanstd_int", "np.nanstd(h(i))", lambda x: np.nanstd(x["i"]), "red"),
    ("nanargmax", "np.nanargmax(h(N), axis=0)", lambda x: np.nanargmax(x["N"], axis=0)),
    ("nanargmin", "np.nanargmin(h(N))", lambda x: np.nanargmin(x["N"])),
    ("median", "np.median(h(i), axis=0)", lambda x: np.median(x["i"], axis=0), "ew"),
    ("median_f32", "np.median(h(a), axis=1)", lambda x: np.median(x["a"], axis=1), "ew"),
    ("quantile", "np.quantile(h(a), [0.25, 0.5], axis=-1)", lambda x: np.quantile(x["a"], [0.25, 0.5], axis=-1), "ew"),
    ("percentile_axes", "np.percentile(h(s), 33, axis=(1, 2), keepdims=True)", lambda x: np.percentile(x["s"], 33, axis=(1, 2), keepdims=True), "ew"),
    ("nanmedian", "np.nanmedian(h(N), axis=1)", lambda x: np.nanmedian(x["N"], axis=1), "ew"),
    ("nanpercentile", "np.nanpercentile(h(N), [10, 60], axis=0)", lambda x: np.nanpercentile(x["N"], [10, 60], axis=0), "ew"),
    ("nanquantile_all", "np.nanquantile(h(N), 0.8)", lambda x: np.nanquantile(x["N"], 0.8), "ew"),
    ("quantile_lower_int", "np.quantile(h(i), [0.3, 0.6], axis=0, method='lower')", lambda x: np.quantile(x["i"], [0.3, 0.6], axis=0, method="lower")),
    ("quantile_nearest_f32", "np.quantile(h(a), 0.5, axis=1, method='nearest')", lambda x: np.quantile(x["a"], 0.5, axis=1, method="nearest")),
    ("percentile_higher", "np.percentile(h(i), 12.5, method='higher')", lambda x: np.percentile(x["i"], 12.5, method="higher")),
    ("percentile_midpoint", "np.percentile(h(a), [25, 50], axis=0, method='midpoint')", lambda x: np.percentile(x["a"], [25, 50], axis=0, method="midpoint"), "ew"),
    ("percentile", "np.percentile(h(i), 90)", lambda x: np.percentile(x["i"], 90), "ew"),
    ("average", "np.average(h(i), axis=1, weights=h(p)[0])", lambda x: np.average(x["i"], axis=1, weights=x["p"][0]), "red"),
    ("average_returned", "np.average(h(a), axis=1, weights=h(p), returned=True)[1]",
     lambda x: np.average(x["a"], axis=1, weights=x["p"], returned=True)[1], "red"),
    ("cov", "np.cov(h(a), rowvar=False)", lambda x: np.cov(x["a"], rowvar=False), "red"),
    ("cov_int", "np.cov(h(i))", lambda x: np.cov(x["i"]), "red"),
    ("corrcoef", "np.corrcoef(h(v), h(w))", lambda x: np.corrcoef(x["v"], x["w"]), "red"),
    ("average_plain", "np.average(h(a))", lambda x: np.average(x["a"]), "red"),
    ("einsum", "np.einsum('ij,jk->ik', h(a), h(c))", lambda x: np.einsum("ij,jk->ik", x["a"], x["c"]), "red"),
    ("einsum_int", "np.einsum('ij->j', h(i))", lambda x: np.einsum("ij->j", x["i"])),
    ("einsum_mixed", "np.einsum('i,i->', h(x), h(v)[:6])", lambda x: np.einsum("i,i->", x["x"], x["v"][:6]), "red"),
]
for c in _NP:
    add(ew("np_" + c[0], c[1], c[2], c[3] if len(c) > 3 else "exact"))

# ---- coverage: binning, interpolation, reordering, products, log spaces (jnp and numpy) ----

def _put(v, idx, vals, mode="raise"):
    y = np.array(v, copy=True)
    np.put(y, idx, vals, mode=mode)
    return y

def _put_clamp(v, idx, vals):
    # jnp.put's default: unravel_index clamps (after counting negative indices from the end)
    n = v.size
    idx = np.asarray(idx)
    return _put(v, np.clip(np.where(idx < 0, idx + n, idx), 0, n - 1), vals)

def _interp_extrap(x, xp, fp):
    # the end segments' lines continued outside [xp[0], xp[-1]]
    y = np.interp(x, xp, fp)
    lo = fp[0] + (x - xp[0]) * (fp[1] - fp[0]) / (xp[1] - xp[0])
    hi = fp[-1] + (x - xp[-1]) * (fp[-1] - fp[-2]) / (xp[-1] - xp[-2])
    return np.where(x < xp[0], lo, np.where(x > xp[-1], hi, y))

def _interp_grad(x, xp, fp):
    i = np.clip(np.searchsorted(xp, x, side="right"), 1, len(xp) - 1)
    slope = (fp[i] - fp[i - 1]) / (xp[i] - xp[i - 1])
    return np.where((x < xp[0]) | (x > xp[-1]), 0, slope)

_sv = lambda x: np.sort(x["v"])
_BIN = [
    # histogram / histogram_bin_edges
    ("histogram", "jnp.histogram(a)[0]", lambda x: np.histogram(x["a"])[0].astype(np.float32)),
    ("histogram_edges", "jnp.histogram(a)[1]", lambda x: np.histogram(x["a"])[1], "ew"),
    ("histogram_range", "jnp.histogram(a, bins=5, range=(-1, 1))[0]", lambda x: np.histogram(x["a"], bins=5, range=(-1, 1))[0].astype(np.float32)),
    ("histogram_edges_arr", "jnp.histogram(v, bins=jnp.array([-2.0, -0.5, 0.0, 0.5, 2.0]))[0]",
     lambda x: np.histogram(x["v"], bins=[-2.0, -0.5, 0.0, 0.5, 2.0])[0].astype(np.float32)),
    ("histogram_int", "jnp.histogram(i, bins=4)[0]", lambda x: np.histogram(x["i"], bins=4)[0].astype(np.float32)),
    ("histogram_weights", "jnp.histogram(a, bins=6, weights=p)[0]", lambda x: np.histogram(x["a"], bins=6, weights=_f64(x["p"]))[0], "sum5"),
    ("histogram_density", "jnp.histogram(s, bins=6, weights=s * s, density=True)[0]",
     lambda x: np.histogram(x["s"], bins=6, weights=_f64(x["s"]) ** 2, density=True)[0], "ew"),
    ("histogram_jit", "jax.jit(lambda z: jnp.histogram(z, bins=7)[0])(a)", lambda x: np.histogram(x["a"], bins=7)[0].astype(np.float32)),
    ("histogram_jit_range", "jax.jit(lambda z, r: jnp.histogram(z, bins=3, range=r)[0])(i, jnp.array([-5.0, 5.0]))",
     lambda x: np.histogram(x["i"], bins=3, range=(-5, 5))[0].astype(np.float32)),
    ("histogram_bin_edges", "jnp.histogram_bin_edges(i, bins=5)", lambda x: np.histogram_bin_edges(x["i"], bins=5), "ew"),
    ("histogram_bin_edges_range", "jnp.histogram_bin_edges(a, 4, range=(0, 3))", lambda x: np.histogram_bin_edges(x["a"], 4, range=(0, 3)), "ew"),
    # interp
    ("interp", "jnp.interp(a, jnp.sort(v), w)", lambda x: np.interp(x["a"], _sv(x), x["w"]), "ew"),
    ("interp_left_right", "jnp.interp(a * 2, jnp.sort(v), w, left=-9.0, right=9.0)",
     lambda x: np.interp(x["a"] * np.float32(2), _sv(x), x["w"], left=-9.0, right=9.0), "ew"),
    ("interp_period", "jnp.interp(a, v, w, period=2.0)", lambda x: np.interp(x["a"], x["v"], x["w"], period=2.0), "ew"),
    ("interp_int", "jnp.interp(i, jnp.arange(-20, 20, 3), jnp.arange(-20, 20, 3) ** 2)",
     lambda x: np.interp(x["i"], np.arange(-20, 20, 3), np.arange(-20, 20, 3) ** 2), "ew"),
    ("interp_extrapolate", "jnp.interp(a * 3, jnp.sort(v), w, left='extrapolate', right='extrapolate')",
     lambda x: _interp_extrap(_f64(x["a"]) * 3, _f64(_sv(x)), _f64(x["w"])), "sum5"),
    ("interp_jit", "jax.jit(jnp.interp)(s, jnp.sort(v), w)", lambda x: np.interp(x["s"], _sv(x), x["w"]), "ew"),
    ("interp_vmap", "jax.vmap(lambda r: jnp.interp(r, jnp.linspace(-2, 2, 5), jnp.array([1.0, -1.0, 0.0, 2.0, 3.0])))(a)",
     lambda x: np.interp(x["a"], np.linspace(-2, 2, 5), [1.0, -1.0, 0.0, 2.0, 3.0]), "ew"),
    ("histogram_vmap", "jax.vmap(lambda r: jnp.histogram(r, bins=4, range=(-2, 2))[0])(a)",
     lambda x: np.stack([np.histogram(r, bins=4, range=(-2, 2))[0] for r in x["a"]]).astype(np.float32)),
    ("interp_grad", "jax.grad(lambda z: jnp.interp(z, jnp.sort(v), w).sum())(a)",
     lambda x: _interp_grad(_f64(x["a"]), _f64(_sv(x)), _f64(x["w"])), "ew"),
    # lexsort
    ("lexsort", "jnp.lexsort((a, jnp.floor(b)))", lambda x: np.lexsort((x["a"], np.floor(x["b"]))).astype(np.int32)),
    ("lexsort_ties", "jnp.lexsort([i % 3, j % 2])", lambda x: np.lexsort([x["i"] % 3, x["j"] % 2]).astype(np.int32)),
    ("lexsort_array_keys", "jnp.lexsort(jnp.stack([v, jnp.round(w)]))", lambda x: np.lexsort(np.stack([x["v"], np.round(x["w"])])).astype(np.int32)),
    ("lexsort_axis0", "jnp.lexsort((i, i % 4), axis=0)", lambda x: np.lexsort((x["i"], x["i"] % 4), axis=0).astype(np.int32)),
    ("lexsort_jit", "jax.jit(lambda k1, k2: jnp.lexsort((k1, k2)))(i, j % 3)", lambda x: np.lexsort((x["i"], x["j"] % 3)).astype(np.int32)),
    # put (functional: inplace=False)
    ("put", "jnp.put(a, x, v[:6], inplace=False)", lambda x: _put(x["a"], x["x"], x["v"][:6])),
    ("put_clip", "jnp.put(i, x * 30, jnp.array([1, 2]), mode='clip', inplace=False)", lambda x: _put(x["i"], x["x"] * 30, [1, 2], "clip")),
    ("put_wrap", "jnp.put(a, x * 50, 7.5, mode='wrap', inplace=False)", lambda x: _put(x["a"], x["x"] * 50, 7.5, "wrap")),
    ("put_clamp", "jnp.put(v, x * 3, w[:6], inplace=False)", lambda x: _put_clamp(x["v"], x["x"] * 3, x["w"][:6])),
    ("put_jit", "jax.jit(lambda z, k: jnp.put(z, k, 0.0, inplace=False))(s, x)", lambda x: _put(x["s"], x["x"], 0.0)),
    # rot90
    ("rot90", "jnp.rot90(a)", lambda x: np.rot90(x["a"])),
    ("rot90_k3_axes", "jnp.rot90(s, k=3, axes=(2, 0))", lambda x: np.rot90(x["s"], k=3, axes=(2, 0))),
    ("rot90_k2_int", "jnp.rot90(i, k=-2)", lambda x: np.rot90(x["i"], k=-2)),
    ("rot90_k5_neg_axis", "jnp.rot90(s, 5, (1, -1))", lambda x: np.rot90(x["s"], 5, (1, -1))),
    ("rot90_jit", "jax.jit(lambda z: jnp.rot90(z, 3))(a)", lambda x: np.rot90(x["a"], 3)),
    # logspace / geomspace
    ("logspace", "jnp.logspace(0, 2, 7)", lambda x: np.logspace(0, 2, 7), "ew"),
    ("logspace_base", "jnp.logspace(1, 3, 5, endpoint=False, base=2.0)", lambda x: np.logspace(1, 3, 5, endpoint=False, base=2.0), "ew"),
    ("geomspace", "jnp.geomspace(1, 1000, 4)", lambda x: np.geomspace(1, 1000, 4), "ew"),
    ("geomspace_neg", "jnp.geomspace(-2, -64, 6, endpoint=False)", lambda x: np.geomspace(-2, -64, 6, endpoint=False), "ew"),
    # cross
    ("cross3", "jnp.cross(a[:, :3], b[:, :3])", lambda x: np.cross(x["a"][:, :3], x["b"][:, :3]), "sum5"),
    ("cross_axis0", "jnp.cross(a[:3], b[:3], axis=0)", lambda x: np.cross(x["a"][:3], x["b"][:3], axis=0), "sum5"),
    ("cross23", "jnp.cross(a[:, :2], b[:, :3])", lambda x: np.cross(x["a"][:, :2], x["b"][:, :3]), "sum5"),
    ("cross22", "jnp.cross(a[:, :2], b[:, :2])", lambda x: np.cross(x["a"][:, :2], x["b"][:, :2]), "sum5"),
    ("cross_axes", "jnp.cross(c[:3], a[:, :3], axisa=0, axisb=1, axisc=0)", lambda x: np.cross(x["c"][:3], x["a"][:, :3], axisa=0, axisb=1, axisc=0), "sum5"),
    ("cross_int_bcast", "jnp.cross(i[:, :3], j[0, :3])", lambda x: np.cross(x["i"][:, :3], x["j"][0, :3])),
    # convolve / correlate
    ("convolve", "jnp.convolve(v, w[:5])", lambda x: np.convolve(_f64(x["v"]), _f64(x["w"][:5])), "sum5"),
    ("convolve_same_swap", "jnp.convolve(v[:3], w, mode='same')", lambda x: np.convolve(_f64(x["v"][:3]), _f64(x["w"]), mode="same"), "sum5"),
    ("convolve_valid", "jnp.convolve(v, w[:4], mode='valid')", lambda x: np.convolve(_f64(x["v"]), _f64(x["w"][:4]), mode="valid"), "sum5"),
    ("convolve_int", "jnp.convolve(x, x[:3])", lambda x: np.convolve(x["x"], x["x"][:3]).astype(np.float32)),
    ("correlate", "jnp.correlate(v, w[:4])", lambda x: np.correlate(_f64(x["v"]), _f64(x["w"][:4])), "sum5"),
    ("correlate_full_swap", "jnp.correlate(v[:5], w, mode='full')", lambda x: np.correlate(_f64(x["v"][:5]), _f64(x["w"]), mode="full"), "sum5"),
    ("correlate_same", "jnp.correlate(w, v[:6], mode='same')", lambda x: np.correlate(_f64(x["w"]), _f64(x["v"][:6]), mode="same"), "sum5"),
    ("convolve_jit", "jax.jit(lambda p, q: jnp.convolve(p, q, mode='same'))(v, w[:7])",
     lambda x: np.convolve(_f64(x["v"]), _f64(x["w"][:7]), mode="same"), "sum5"),
    # polyval
    ("polyval", "jnp.polyval(v[:4], a)", lambda x: np.polyval(_f64(x["v"][:4]), _f64(x["a"])), "sum5"),
    ("polyval_int", "jnp.polyval(jnp.array([2, -1, 3]), i)", lambda x: np.polyval(np.array([2, -1, 3], np.int32), x["i"])),
    ("polyval_jit", "jax.jit(jnp.polyval)(w[:5], v)", lambda x: np.polyval(_f64(x["w"][:5]), _f64(x["v"])), "sum5"),
    # index tuples
    ("tril_indices", "jnp.tril_indices(5, k=1)[1]", lambda x: np.tril_indices(5, k=1)[1].astype(np.int32)),
    ("triu_indices", "jnp.triu_indices(4, -1, 6)[0]", lambda x: np.triu_indices(4, -1, 6)[0].astype(np.int32)),
    ("triu_indices_from", "jnp.triu_indices_from(a, k=3)[1]", lambda x: np.triu_indices_from(x["a"], k=3)[1].astype(np.int32)),
    ("tril_indices_from", "jnp.tril_indices_from(c)[0]", lambda x: np.tril_indices_from(x["c"])[0].astype(np.int32)),
    ("diag_indices", "jnp.diag_indices(4, 3)[2]", lambda x: np.diag_indices(4, 3)[2].astype(np.int32)),
    ("diag_indices_from", "jnp.diag_indices_from(a[:5, :5])[0]", lambda x: np.diag_indices_from(x["a"][:5, :5])[0].astype(np.int32)),
    # the functions' own operands sharded (no slicing of a sharded input before the call)
    ("interp_sharded_x", "jnp.interp(a, jnp.linspace(-2, 2, 9), jnp.arange(9.0) ** 2)",
     lambda x: np.interp(x["a"], np.linspace(-2, 2, 9), np.arange(9.0) ** 2), "ew"),
    ("interp_sharded_xp", "jnp.interp(jnp.linspace(-1, 1, 5), v, w, period=1.5)", lambda x: np.interp(np.linspace(-1, 1, 5), x["v"], x["w"], period=1.5), "ew"),
    ("put_sharded", "jnp.put(i, jnp.array([3, -1, 40, 3]), j[0, 0], inplace=False)", lambda x: _put(x["i"], [3, -1, 40, 3], x["j"][0, 0])),
    ("put_sharded_values", "jnp.put(jnp.zeros(20), jnp.arange(16) + 2, v, inplace=False)", lambda x: _put(np.zeros(20, np.float32), np.arange(16) + 2, x["v"])),
    ("cross_sharded_batch", "jnp.cross(jnp.stack([a, b, p], axis=-1), jnp.stack([q, u, a], axis=-1))",
     lambda x: np.cross(np.stack([x["a"], x["b"], x["p"]], -1), np.stack([x["q"], x["u"], x["a"]], -1)), "sum5"),
    ("convolve_sharded", "jnp.convolve(v, jnp.array([0.5, -1.0, 2.0]), mode='same')", lambda x: np.convolve(_f64(x["v"]), [0.5, -1.0, 2.0], mode="same"), "sum5"),
    ("correlate_sharded_both", "jnp.correlate(v, w, mode='full')", lambda x: np.correlate(_f64(x["v"]), _f64(x["w"]), mode="full"), "sum5"),
    ("polyval_sharded_x", "jnp.polyval(jnp.array([0.5, -1.0, 2.0, 0.25]), a)", lambda x: np.polyval([0.5, -1.0, 2.0, 0.25], _f64(x["a"])), "sum5"),
    ("polyval_sharded_p", "jnp.polyval(v, 0.5)", lambda x: np.polyval(_f64(x["v"]), 0.5), "sum5"),
    ("histogram_sharded_weights", "jnp.histogram(i, bins=jnp.array([-20.0, -3.0, 0.0, 4.0, 20.0]), weights=a)[0]",
     lambda x: np.histogram(x["i"], bins=[-20.0, -3.0, 0.0, 4.0, 20.0], weights=_f64(x["a"]))[0], "sum5"),
    ("rot90_sharded_3d", "jnp.rot90(s, 1, (0, 1))", lambda x: np.rot90(x["s"], 1, (0, 1))),
    ("tri_indices_gather", "jnp.take(a, jnp.triu_indices(8, 1, 16)[0] * 16 + jnp.triu_indices(8, 1, 16)[1])",
     lambda x: x["a"][np.triu_indices(8, 1, 16)]),
]
for c in _BIN:
    add(ew(c[0], c[1], c[2], c[3] if len(c) > 3 else "exact"))

# numpy's put is in place: the case returns the modified copy
_NP_PUT = "(lambda y: (np.put(y, {idx}, {vals}{mode}), y)[1])(np.array(h({arr})))"
_NP_BIN = [
    ("histogram", "np.histogram(h(a))[0]", lambda x: np.histogram(x["a"])[0]),
    ("histogram_edges", "np.histogram(h(a), bins=7)[1]", lambda x: np.histogram(x["a"], bins=7)[1], "ew"),
    ("histogram_int_edges", "np.histogram(h(i), bins=[-20, -5, 0, 3, 20])[0]", lambda x: np.histogram(x["i"], bins=[-20, -5, 0, 3, 20])[0]),
    ("histogram_weights", "np.histogram(h(a), bins=4, range=(-1, 2), weights=h(p))[0]",
     lambda x: np.histogram(x["a"], bins=4, range=(-1, 2), weights=x["p"])[0], "sum5"),
    ("histogram_density", "np.histogram(h(i), bins=5, density=True)[0]", lambda x: np.histogram(x["i"], bins=5, density=True)[0], "ew"),
    ("histogram_bin_edges", "np.histogram_bin_edges(h(i), 6)", lambda x: np.histogram_bin_edges(x["i"], 6), "ew"),
    ("interp", "np.interp(h(a), np.sort(h(v)), h(w))", lambda x: np.interp(x["a"], _sv(x), x["w"]), "ew"),
    ("interp_left_right", "np.interp(h(a) * 2, np.sort(h(v)), h(w), left=-1, right=5.5)",
     lambda x: np.interp(x["a"] * np.float32(2), _sv(x), x["w"], left=-1, right=5.5), "ew"),
    ("interp_period", "np.interp(h(i), h(x), h(v)[:6], period=5)", lambda x: np.interp(x["i"], x["x"], x["v"][:6], period=5), "ew"),
    ("interp_scalar", "np.interp(0.25, np.sort(h(v)), h(w))", lambda x: np.interp(0.25, _sv(x), x["w"]), "ew"),
    ("lexsort", "np.lexsort((h(a), np.floor(h(b))))", lambda x: np.lexsort((x["a"], np.floor(x["b"])))),
    ("lexsort_axis0", "np.lexsort([h(i) % 2, h(j) % 3], axis=0)", lambda x: np.lexsort([x["i"] % 2, x["j"] % 3], axis=0)),
    ("put", _NP_PUT.format(idx="h(x)", vals="h(v)[:6]", mode="", arr="a"), lambda x: _put(x["a"], x["x"], x["v"][:6])),
    ("put_wrap", _NP_PUT.format(idx="h(x) * 50", vals="[1, 2, 3]", mode=", mode='wrap'", arr="i"), lambda x: _put(x["i"], x["x"] * 50, [1, 2, 3], "wrap")),
    ("put_clip", _NP_PUT.format(idx="h(x) * 3", vals="-1.5", mode=", mode='clip'", arr="v"), lambda x: _put(x["v"], x["x"] * 3, -1.5, "clip")),
    ("rot90", "np.rot90(h(s), 1, (0, 2))", lambda x: np.rot90(x["s"], 1, (0, 2))),
    ("rot90_k2", "np.rot90(h(i), 2)", lambda x: np.rot90(x["i"], 2)),
    ("logspace", "np.logspace(-1, 2, 9)", lambda x: np.logspace(-1, 2, 9), "ew"),
    ("logspace_base_dtype", "np.logspace(0, 4, 5, base=2, dtype=np.float32)", lambda x: np.logspace(0, 4, 5, base=2, dtype=np.float32), "ew"),
    ("geomspace", "np.geomspace(1, 256, 9)", lambda x: np.geomspace(1, 256, 9), "ew"),
    ("geomspace_neg", "np.geomspace(-1000, -1, 4)", lambda x: np.geomspace(-1000, -1, 4), "ew"),
    ("cross", "np.cross(h(a)[:, :3], h(b)[:, :3])", lambda x: np.cross(x["a"][:, :3], x["b"][:, :3]), "sum5"),
    ("cross_int", "np.cross(h(i)[:2], h(j)[:2], axis=0)", lambda x: np.cross(x["i"][:2], x["j"][:2], axis=0)),
    ("convolve_int", "np.convolve(h(x), h(i)[0])", lambda x: np.convolve(x["x"], x["i"][0])),
    ("convolve_same", "np.convolve(h(v), h(w)[:5], 'same')", lambda x: np.convolve(x["v"], x["w"][:5], "same"), "sum5"),
    ("correlate_full_swap", "np.correlate(h(x)[:3], h(i)[1], 'full')", lambda x: np.correlate(x["x"][:3], x["i"][1], "full")),
    ("correlate", "np.correlate(h(v), h(w)[:3])", lambda x: np.correlate(x["v"], x["w"][:3]), "sum5"),
    ("polyval", "np.polyval(h(v)[:3], h(a))", lambda x: np.polyval(x["v"][:3], x["a"]), "sum5"),
    ("polyval_list_int", "np.polyval([1, -2, 3], h(i))", lambda x: np.polyval([1, -2, 3], x["i"])),
    ("tril_indices", "np.tril_indices(4, -1)[0]", lambda x: np.tril_indices(4, -1)[0]),
    ("triu_indices_from", "np.triu_indices_from(h(c), 2)[1]", lambda x: np.triu_indices_from(x["c"], 2)[1]),
    ("diag_indices", "np.diag_indices(3, 4)[1]", lambda x: np.diag_indices(3, 4)[1]),
]
for c in _NP_BIN:
    add(ew("np_" + c[0], c[1], c[2], c[3] if len(c) > 3 else "exact"))

# ---- placements ---------------------------------------------------------------------------
# (label, mesh constructor or None, axis types, spec for rank>=1 inputs)

PLACEMENTS = [
    ("unsharded", None, None, None),
    ("1d-explicit P('x')", "jax.make_mesh((8,), ('x',), axis_types=(AxisType.Explicit,))", "Explicit", "P('x')"),
    ("1d-explicit P(None,'x')", "jax.make_mesh((8,), ('x',), axis_types=(AxisType.Explicit,))", "Explicit", "P(None, 'x')"),
    ("2d-explicit P('dp','mp')", "jax.make_mesh((4, 2), ('dp', 'mp'), axis_types=(AxisType.Explicit, AxisType.Explicit))",
     "Explicit", "P('dp', 'mp')"),
    ("2d-explicit P(('dp','mp'),)", "jax.make_mesh((4, 2), ('dp', 'mp'), axis_types=(AxisType.Explicit, AxisType.Explicit))",
     "Explicit", "P(('dp', 'mp'),)"),
    ("2d-explicit P('mp','dp')", "jax.make_mesh((2, 4), ('mp', 'dp'), axis_types=(AxisType.Explicit, AxisType.Explicit))",
     "Explicit", "P('mp', 'dp')"),
    ("2d-auto P('dp','mp')", "jax.make_mesh((4, 2), ('dp', 'mp'), axis_types=(AxisType.Auto, AxisType.Auto))",
     "Auto", "P('dp', 'mp')"),
]


def shard_program(inputs_dir, out_dir, placement, cases):
    label, mesh_ctor, _types, spec = placement
    lines = [
        "import jax",
        "import jax.numpy as jnp",
        "import jax.scipy.special as jss",
        "import numpy as np",
        "from jax.sharding import PartitionSpec as P, NamedSharding, AxisType",
        "def h(z):",
        "    return np.asarray(z)",
    ]
    if mesh_ctor:
        lines += [
            f"mesh = {mesh_ctor}",
            f"spec = {spec}",
            "def place(x):",
            "    # the spec, trimmed to the rank; replicated where it does not divide",
            "    entries = list(spec)[:x.ndim]",
            "    try:",
            "        return jax.device_put(x, NamedSharding(mesh, P(*entries)))",
            "    except ValueError:",
            "        return jax.device_put(x, NamedSharding(mesh, P()))",
        ]
    else:
        lines += ["def place(x):", "    return jnp.asarray(x)"]
    for name in INPUT_NAMES:
        lines.append(f"{name} = place(np.load({os.path.join(inputs_dir, name + '.npy')!r}))")
    if mesh_ctor:
        lines.append("jax.sharding.set_mesh(mesh)")
    for k, (name, expr, _ref, _tol) in enumerate(cases):
        lines += [
            "try:",
            f"    r = {expr}",
            f"    np.save({os.path.join(out_dir, f'{k}.npy')!r}, np.asarray(r))",
            "except Exception as e:",
            f"    print('CASE', {k}, type(e).__name__ + ':', str(e).replace(chr(10), ' '))",
        ]
    return "\n".join(lines) + "\n"


def jax_dtype(d):
    d = np.dtype(d)
    return {np.dtype(np.float64): np.dtype(np.float32), np.dtype(np.int64): np.dtype(np.int32)}.get(d, d)


_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])
_f64 = lambda v: v.astype(np.float64)


def compare(out, ref, tol, x, host=False):
    ref = np.asarray(ref)
    want_dtype = ref.dtype if host else jax_dtype(ref.dtype)
    if out.dtype != want_dtype:
        return f"dtype {out.dtype}, expected {want_dtype}"
    if out.shape != ref.shape:
        return f"shape {out.shape}, expected {ref.shape}"
    if tol == "exact":
        ok = np.array_equal(out, ref.astype(want_dtype), equal_nan=True)
        return None if ok else f"values differ (max abs diff {np.max(np.abs(out.astype(np.float64) - ref)) if out.size else 0})"
    ref64 = ref.astype(np.float64)
    atol = 1e-6
    if tol == "precise":
        ok = np.allclose(out.astype(np.float64), ref64, rtol=1e-6, atol=0, equal_nan=True)
        return None if ok else f"not within 1e-6 relative: max rel diff {np.max(np.abs(out - ref64) / np.maximum(np.abs(ref64), 1e-300)):.3g}"
    if tol == "sum5":  # sums of a few float32 products: cancellation leaves ~1e-6 absolute error
        atol = 1e-5
    if tol == "moments":  # variances: relative to the value itself, however far the mean is from 0
        atol = 0
    if tol == "red":
        scale = max(float(np.nanmax(np.abs(v))) for v in x.values() if v.dtype.kind == "f")
        atol = 1e-5 * scale * scale * 16
    if np.allclose(out.astype(np.float64), ref64, rtol=1e-5, atol=atol, equal_nan=True):
        return None
    diff = np.abs(out.astype(np.float64) - ref64)
    k = int(np.argmax(diff)) if diff.size else 0
    return f"max abs diff {diff.flat[k]:.3g} at flat index {k}: got {out.flat[k]!r}, expected {ref64.flat[k]!r}"


INPUT_NAMES = []


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    shard = os.path.abspath(argv[1])
    verbose = "-v" in argv
    only = argv[argv.index("-k") + 1] if "-k" in argv else None
    keep = argv[argv.index("--keep") + 1] if "--keep" in argv else None
    x = make_inputs()
    INPUT_NAMES.extend(x.keys())
    cases = [c for c in C if only is None or only in c[0]]
    refs = [c[2](x) for c in cases]
    work = keep or tempfile.mkdtemp(prefix="jnp_oracle_")
    inputs_dir = os.path.join(work, "inputs")
    os.makedirs(inputs_dir, exist_ok=True)
    for name, arr in x.items():
        np.save(os.path.join(inputs_dir, name + ".npy"), arr)
    passed = failed = skipped = 0
    for pi, placement in enumerate(PLACEMENTS):
        label = placement[0]
        out_dir = os.path.join(work, f"out{pi}")
        os.makedirs(out_dir, exist_ok=True)
        for f in os.listdir(out_dir):
            os.remove(os.path.join(out_dir, f))
        prog = os.path.join(work, f"prog{pi}.shard")
        with open(prog, "w") as f:
            f.write(shard_program(inputs_dir, out_dir, placement, cases))
        env = dict(os.environ, SHARD_DEVICES="8")
        proc = subprocess.run([shard, prog], capture_output=True, text=True, env=env, timeout=1200)
        errors = {}
        for line in proc.stdout.splitlines():
            if line.startswith("CASE "):
                _, k, msg = line.split(" ", 2)
                errors[int(k)] = msg
        if proc.returncode != 0:
            print(f"[{label}] shard exited with {proc.returncode}:\n{proc.stderr[-3000:]}")
            failed += 1
        for k, (name, expr, _ref, tol) in enumerate(cases):
            if k in errors:
                if errors[k].startswith("ShardingTypeError") and placement[2] == "Explicit":
                    skipped += 1
                    if verbose:
                        print(f"[{label}] SKIP {name}: {errors[k][:200]}")
                    continue
                failed += 1
                print(f"[{label}] FAIL {name} ({expr}): {errors[k][:400]}")
                continue
            path = os.path.join(out_dir, f"{k}.npy")
            if not os.path.exists(path):
                failed += 1
                print(f"[{label}] FAIL {name} ({expr}): no result")
                continue
            problem = compare(np.load(path), refs[k], tol, x, host=name.startswith("np_"))
            if problem:
                failed += 1
                print(f"[{label}] FAIL {name} ({expr}): {problem}")
            else:
                passed += 1
                if verbose:
                    print(f"[{label}] ok {name}")
    print(f"{skipped} skipped (sharding rule errors on Explicit meshes)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
