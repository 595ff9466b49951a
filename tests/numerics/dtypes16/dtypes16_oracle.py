#!/usr/bin/python3
"""numpy oracle for float16 and bfloat16 device arrays in shard.

The reference computes every op as XLA's CPU backend does: in float32, rounded to the 16-bit
type after each op. float16 rounding is numpy's (`x.astype(np.float32).astype(np.float16)`);
bfloat16 has no numpy type, so it is emulated here from float32 bits (round to nearest, ties
to even; NaN stays a quiet NaN). Results are compared bit for bit as 16-bit patterns; the
cases whose float32 part may differ in its last bit from numpy's (transcendentals from a
different libm, sums and products in another order) may differ by one 16-bit ulp.

Half inputs and results cross the file boundary as uint16 bit patterns
(jax.lax.bitcast_convert_type), so the transfer itself is checked too; the float16 host
transfer (np.asarray of a float16 device array gives numpy float16) has its own cases.

usage: dtypes16_oracle.py SHARD_EXE [-v] [-k SUBSTRING] [--keep DIR]
Prints `N passed, N failed` last; exit status 1 when anything failed.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

RNG = np.random.default_rng(20261201)

# ---- the two formats ------------------------------------------------------------------------


def bf16_bits(x):
    """float32 values -> bfloat16 bit patterns, round to nearest even; NaN quiet."""
    u = np.atleast_1d(np.asarray(x, dtype=np.float32)).view(np.uint32).astype(np.uint64)
    k = lambda v: np.uint64(v)  # numpy 1.24 would make uint64 (op) int a float64
    rounded = ((u + k(0x7FFF) + ((u >> k(16)) & k(1))) >> k(16)).astype(np.uint16)
    nan = np.isnan(u.astype(np.uint32).view(np.float32))
    quiet = ((u >> k(16)) | k(0x40)).astype(np.uint16)
    return np.where(nan, quiet, rounded).astype(np.uint16).reshape(np.shape(x))


def bf16_value(bits):
    b = np.asarray(bits)
    return (np.atleast_1d(b).astype(np.uint32) << np.uint32(16)).view(np.float32).reshape(b.shape)


class Half:
    def __init__(self, name):
        self.name = name

    def bits(self, x):  # float32 (or float64 for float16) values -> 16-bit patterns
        if self.name == "float16":
            return np.asarray(x).astype(np.float16).view(np.uint16)
        return bf16_bits(np.asarray(x, dtype=np.float32))

    def value(self, bits):
        if self.name == "float16":
            return np.asarray(bits, dtype=np.uint16).view(np.float16).astype(np.float32)
        return bf16_value(bits)

    def r(self, x):
        """One op's result: computed in float32, rounded to the 16-bit type (as float32)."""
        with np.errstate(all="ignore"):
            return self.value(self.bits(np.asarray(x, dtype=np.float32)))


F16, BF16 = Half("float16"), Half("bfloat16")

# ---- inputs ---------------------------------------------------------------------------------


def specials():
    v = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 65504.0, 65519.0, 65520.0, 70000.0, -65536.0,
         6e-8, 3e-8, 2.9802322e-08, 5.9604645e-08, 1e-5, 6.1e-5, 1.5, 2.5, 3.140625, 3.1415927, 0.1, 1e38,
         3.3895314e38, 3.4e38, -1e-40, 1.1754944e-38, 9.2e-41, 1 / 3]
    v += list(RNG.standard_normal(34) * 10.0 ** RNG.uniform(-10, 10, 34))
    return np.array(v, dtype=np.float32)


def ties(fmt):
    """float32 values exactly halfway between neighbouring 16-bit values (even and odd)."""
    k = RNG.integers(1, 0x7B00 if fmt is F16 else 0x7F00, 64).astype(np.uint16)
    lo, hi = fmt.value(k).astype(np.float64), fmt.value(k + 1).astype(np.float64)
    mid = ((lo + hi) / 2).astype(np.float32)
    assert np.all(mid.astype(np.float64) == (lo + hi) / 2)
    return np.concatenate([mid, -mid])


def make_inputs(fmt):
    f32 = lambda *s: (RNG.standard_normal(s) * 4).astype(np.float32)
    x = {
        "X": fmt.r(f32(8, 16)),
        "Y": fmt.r(f32(8, 16)),
        "Pp": fmt.r(RNG.random((8, 16)) * 20 + 0.01),
        "Q": fmt.r(RNG.random((8, 16)) * 0.5 + 0.75),
        "C": fmt.r(f32(16, 8)),
        "S": fmt.r(specials()),
    }
    halves = dict(x)
    x.update({
        "a32": f32(8, 16),
        "s32": specials(),
        "t32": ties(fmt),
        "i32": np.array([0, 1, -1, 2049, 2051, 4097, 65504, 65519, 65520, 70000, -70000, 16842753, 16777217,
                         33554435, 2**31 - 1, -2**31, 255, 257, 511, 1000001], dtype=np.int32),
    })
    return x, set(halves)


# ---- cases ----------------------------------------------------------------------------------
# (name, shard expression, reference(x, fmt, other) -> values, result kind, tolerance)
# kind: "half" (the format under test), "other" (the other 16-bit format), or a numpy dtype
# name; tolerance: "exact" or "ulp1" (one 16-bit ulp; float32 results: rtol 1e-6).

C = []


def case(name, expr, ref, kind="half", tol="exact"):
    C.append((name, expr, ref, kind, tol))


def seq_sum(fmt, v, axis):
    """A running sum rounded after every step (cumsum's scan)."""
    v = np.moveaxis(v, axis, 0)
    out = np.empty_like(v)
    acc = np.zeros_like(v[0])
    for i in range(v.shape[0]):
        acc = fmt.r(acc + v[i])
        out[i] = acc
    return np.moveaxis(out, 0, axis)


def half_nextafter(fmt, x, y):
    """One 16-bit ulp from x towards y, on bit patterns (numpy's npy_half_nextafter)."""
    if fmt is F16:
        return np.nextafter(x.astype(np.float16), y.astype(np.float16)).astype(np.float32)
    bits = fmt.bits(x).astype(np.int32)
    away = (x < y) == (x > 0)
    step = np.where(away, bits + 1, bits - 1)
    step = np.where(x == 0, (fmt.bits(y).astype(np.int32) & 0x8000) | 1, step)
    r = fmt.value(step.astype(np.uint16))
    r = np.where(x == y, y, r)
    return np.where(np.isnan(x) | np.isnan(y), np.nan, r).astype(np.float32)


def seq_prod(fmt, v, axis):
    """A running product rounded after every step (cumprod's scan)."""
    v = np.moveaxis(v, axis, 0)
    out = np.empty_like(v)
    acc = np.ones_like(v[0])
    for i in range(v.shape[0]):
        acc = fmt.r(acc * v[i])
        out[i] = acc
    return np.moveaxis(out, 0, axis)


def f32_sum(v, axis=None, keepdims=False):
    return np.sum(v.astype(np.float64), axis=axis, keepdims=keepdims).astype(np.float32)


# elementwise arithmetic: one rounding per op
case("add", "X + Y", lambda x, f, o: f.r(x["X"] + x["Y"]))
case("sub", "X - Y", lambda x, f, o: f.r(x["X"] - x["Y"]))
case("mul", "X * Y", lambda x, f, o: f.r(x["X"] * x["Y"]))
case("div", "X / Y", lambda x, f, o: f.r(x["X"] / x["Y"]))
case("floor_divide", "X // Y", lambda x, f, o: f.r(np.floor_divide(x["X"], x["Y"])))
case("mod", "X % Y", lambda x, f, o: f.r(np.mod(x["X"], x["Y"])))
case("power", "jnp.power(Pp, Y / 4)", lambda x, f, o: f.r(np.power(x["Pp"], f.r(x["Y"] / 4))), tol="ulp1")
case("arctan2", "jnp.arctan2(X, Y)", lambda x, f, o: f.r(np.arctan2(x["X"], x["Y"])), tol="ulp1")
case("logaddexp", "jnp.logaddexp(X, Y)", lambda x, f, o: f.r(np.logaddexp(x["X"], x["Y"])), tol="ulp1")
case("neg", "-X", lambda x, f, o: -x["X"])
case("abs", "jnp.abs(S)", lambda x, f, o: np.abs(x["S"]))
case("maximum", "jnp.maximum(X, Y)", lambda x, f, o: np.maximum(x["X"], x["Y"]))
case("minimum_nan", "jnp.minimum(S, X[0, :1])", lambda x, f, o: np.minimum(x["S"], x["X"][0, :1]))
case("sqrt", "jnp.sqrt(Pp)", lambda x, f, o: f.r(np.sqrt(x["Pp"])))
case("square", "jnp.square(X)", lambda x, f, o: f.r(x["X"] * x["X"]))
case("integer_pow_3", "X ** 3", lambda x, f, o: f.r(x["X"] * f.r(x["X"] * x["X"])))
case("integer_pow_neg2", "X ** -2", lambda x, f, o: f.r(1 / f.r(x["X"] * x["X"])))
case("floor", "jnp.floor(X)", lambda x, f, o: np.floor(x["X"]))
case("round", "jnp.round(X)", lambda x, f, o: np.round(x["X"]))
case("sign", "jnp.sign(S)", lambda x, f, o: np.sign(x["S"]))
case("nextafter", "jnp.nextafter(X, Y)", lambda x, f, o: half_nextafter(f, x["X"], x["Y"]))
case("nextafter_specials", "jnp.nextafter(S, jnp.flip(S))", lambda x, f, o: half_nextafter(f, x["S"], x["S"][::-1]))
case("nextafter_zero", "jnp.nextafter(jnp.zeros(2, DT), jnp.array([1.0, -1.0], DT))",
     lambda x, f, o: half_nextafter(f, np.zeros(2, np.float32), np.array([1.0, -1.0], np.float32)))
case("where", "jnp.where(X > Y, X, Y)", lambda x, f, o: np.where(x["X"] > x["Y"], x["X"], x["Y"]))
case("less", "X < Y", lambda x, f, o: x["X"] < x["Y"], "bool")
case("isnan", "jnp.isnan(S)", lambda x, f, o: np.isnan(x["S"]), "bool")
case("isinf", "jnp.isinf(S)", lambda x, f, o: np.isinf(x["S"]), "bool")
case("scalar_mul", "X * 0.1", lambda x, f, o: f.r(x["X"] * f.r(np.float32(0.1))))
case("scalar_add", "1 + X", lambda x, f, o: f.r(x["X"] + 1))
case("overflow", "S * 4.0", lambda x, f, o: f.r(x["S"] * 4))
case("underflow", "S * 1e-3", lambda x, f, o: f.r(x["S"] * f.r(np.float32(1e-3))))
# fused under jit: still one rounding per op
case("jit_chain", "jax.jit(lambda x, y: (x * y + x) * 3 - y)(X, Y)",
     lambda x, f, o: f.r(f.r(f.r(f.r(x["X"] * x["Y"]) + x["X"]) * 3) - x["Y"]))
case("jit_hypot", "jax.jit(lambda x, y: jnp.sqrt(x * x + y * y) / 2)(X, Y)",
     lambda x, f, o: f.r(f.r(np.sqrt(f.r(f.r(x["X"] * x["X"]) + f.r(x["Y"] * x["Y"])))) / 2))
case("jit_mixed_f32", "jax.jit(lambda x, a: x * 2 + a)(X, a32)",
     lambda x, f, o: f.r(x["X"] * 2) + x["a32"], "float32")
# transcendentals: float32 libm results may differ in their last bit from numpy's
case("exp", "jnp.exp(X / 4)", lambda x, f, o: f.r(np.exp(f.r(x["X"] / 4))), tol="ulp1")
case("log", "jnp.log(Pp)", lambda x, f, o: f.r(np.log(x["Pp"])), tol="ulp1")
case("sin", "jnp.sin(X)", lambda x, f, o: f.r(np.sin(x["X"])), tol="ulp1")
case("tanh", "jnp.tanh(X)", lambda x, f, o: f.r(np.tanh(x["X"])), tol="ulp1")
case("jit_softplus", "jax.jit(lambda x: jnp.log1p(jnp.exp(x)))(X)",
     lambda x, f, o: f.r(np.log1p(f.r(np.exp(x["X"])))), tol="ulp1")

# conversions
case("from_f32_specials", "s32.astype(DT)", lambda x, f, o: f.r(x["s32"]))
case("from_f32_ties", "jax.lax.convert_element_type(t32, DT)", lambda x, f, o: f.r(x["t32"]))
case("from_i32", "i32.astype(DT)", lambda x, f, o: f.r(x["i32"].astype(np.float32)))
case("from_bool", "(X > 0).astype(DT)", lambda x, f, o: (x["X"] > 0).astype(np.float32))
case("to_f32", "S.astype(jnp.float32)", lambda x, f, o: x["S"], "float32")
case("to_i32", "X.astype(jnp.int32)", lambda x, f, o: np.trunc(x["X"]).astype(np.int32), "int32")
case("to_i32_saturating", "S.astype(jnp.int32)",
     lambda x, f, o: np.where(np.isnan(x["S"]), 0, np.clip(np.nan_to_num(np.trunc(x["S"].astype(np.float64)),
                                                                         posinf=2**31 - 1, neginf=-2**31),
                                                             -2**31, 2**31 - 1)).astype(np.int32), "int32")
case("to_u8", "jnp.abs(X).astype(jnp.uint8)", lambda x, f, o: np.trunc(np.abs(x["X"])).astype(np.uint8), "uint8")
case("to_bool", "S.astype(jnp.bool_)", lambda x, f, o: x["S"] != 0, "bool")
case("to_other", "S.astype(OTHER)", lambda x, f, o: o.r(x["S"]), "other")
case("to_other_and_back", "S.astype(OTHER).astype(DT)", lambda x, f, o: f.r(o.r(x["S"])))
case("bitcast_u16", "jax.lax.bitcast_convert_type(S, jnp.uint16)", lambda x, f, o: f.bits(x["S"]), "uint16")

# creation
case("array_list", "jnp.array([1.5, 2.25, 0.1, 65504.0, 1e5, -3.0e-6, 1.0e-9], dtype=DT)",
     lambda x, f, o: f.r(np.array([1.5, 2.25, 0.1, 65504.0, 1e5, -3.0e-6, 1.0e-9], np.float32))
     if f is BF16 else np.array([1.5, 2.25, 0.1, 65504.0, 1e5, -3.0e-6, 1.0e-9]).astype(np.float16).astype(np.float32))
case("zeros", "jnp.zeros((2, 3), dtype=DT)", lambda x, f, o: np.zeros((2, 3), np.float32))
case("ones", "jnp.ones(4, DT)", lambda x, f, o: np.ones(4, np.float32))
case("arange", "jnp.arange(6, dtype=DT)", lambda x, f, o: np.arange(6, dtype=np.float32))
case("full", "jnp.full((3,), 0.1, dtype=DT)", lambda x, f, o: f.r(np.full(3, 0.1, np.float32)))
case("scalar_type", "DT(1.7)", lambda x, f, o: f.r(np.float32(1.7)).reshape(()))

# reductions: sums, products, means and variances in float32, rounded once at the end
case("sum", "jnp.sum(X)", lambda x, f, o: f.r(f32_sum(x["X"])), tol="ulp1")
case("sum_axis0", "jnp.sum(X, axis=0)", lambda x, f, o: f.r(f32_sum(x["X"], 0)), tol="ulp1")
case("sum_axis1_keepdims", "X.sum(axis=1, keepdims=True)", lambda x, f, o: f.r(f32_sum(x["X"], 1, True)), tol="ulp1")
case("sum_f32", "jnp.sum(X, dtype=jnp.float32)", lambda x, f, o: f32_sum(x["X"]), "float32", "ulp1")
case("prod_axis1", "jnp.prod(Q, axis=1)",
     lambda x, f, o: f.r(np.prod(x["Q"].astype(np.float64), axis=1).astype(np.float32)), tol="ulp1")
case("mean", "jnp.mean(X)", lambda x, f, o: f.r(f32_sum(x["X"]) / np.float32(128)), tol="ulp1")
# nan* reductions upcast as their plain forms do (no NaNs in X: the same values)
case("nansum", "jnp.nansum(X)", lambda x, f, o: f.r(f32_sum(x["X"])), tol="ulp1")
case("nanmean_axis0", "jnp.nanmean(X, axis=0)", lambda x, f, o: f.r(f32_sum(x["X"], 0) / np.float32(8)), tol="ulp1")
case("mean_axis0", "X.mean(axis=0)", lambda x, f, o: f.r(f32_sum(x["X"], 0) / np.float32(8)), tol="ulp1")
case("var_axis1", "jnp.var(X, axis=1)",
     lambda x, f, o: f.r(np.var(x["X"].astype(np.float64), axis=1).astype(np.float32)), tol="ulp1")
case("std_axis1", "jnp.std(X, axis=1)",
     lambda x, f, o: f.r(np.sqrt(f.r(np.var(x["X"].astype(np.float64), axis=1).astype(np.float32)))), tol="ulp1")
case("max", "jnp.max(X)", lambda x, f, o: np.max(x["X"]).reshape(()))
case("min_axis0", "jnp.min(X, axis=0)", lambda x, f, o: np.min(x["X"], axis=0))
case("max_nan", "jnp.max(S)", lambda x, f, o: np.max(x["S"]).reshape(()))
case("argmax_axis1", "jnp.argmax(X, axis=1)", lambda x, f, o: np.argmax(x["X"], axis=1).astype(np.int32), "int32")
case("argmin_axis0", "jnp.argmin(X, axis=0)", lambda x, f, o: np.argmin(x["X"], axis=0).astype(np.int32), "int32")
case("argmax_nan", "jnp.argmax(S)", lambda x, f, o: np.array(np.argmax(x["S"]), np.int32), "int32")
case("cumsum_axis1", "jnp.cumsum(X, axis=1)", lambda x, f, o: seq_sum(f, x["X"], 1))
case("cumsum_axis0", "jnp.cumsum(X, axis=0)", lambda x, f, o: seq_sum(f, x["X"], 0))
case("cummax", "jax.lax.cummax(X, axis=1)", lambda x, f, o: np.maximum.accumulate(x["X"], axis=1))
case("cumprod", "jnp.cumprod(Q, axis=1)", lambda x, f, o: seq_prod(f, x["Q"], 1))
case("sort", "jnp.sort(S)", lambda x, f, o: np.sort(x["S"], kind="stable"))
case("sort_axis0", "jnp.sort(X, axis=0)", lambda x, f, o: np.sort(x["X"], axis=0, kind="stable"))
case("argsort", "jnp.argsort(X, axis=1)", lambda x, f, o: np.argsort(x["X"], axis=1, kind="stable").astype(np.int32), "int32")

# contractions: float32 products and sums, one rounding
case("matmul", "X @ C", lambda x, f, o: f.r((x["X"].astype(np.float64) @ x["C"].astype(np.float64)).astype(np.float32)),
     tol="ulp1")
case("dot_transposed", "jnp.dot(X.T, Y)",
     lambda x, f, o: f.r((x["X"].T.astype(np.float64) @ x["Y"].astype(np.float64)).astype(np.float32)), tol="ulp1")
case("matmul_jit_fused", "jax.jit(lambda x, c: (x @ c) * 2 + 1)(X, C)",
     lambda x, f, o: f.r(f.r(f.r((x["X"].astype(np.float64) @ x["C"].astype(np.float64)).astype(np.float32)) * 2) + 1),
     tol="ulp1")
case("dot_preferred_f32", "jnp.dot(X, C, preferred_element_type=jnp.float32)",
     lambda x, f, o: (x["X"].astype(np.float64) @ x["C"].astype(np.float64)).astype(np.float32), "float32", "ulp1")

# compiled loops and branches (one LLVM function per loop): the same rounding per op
def loop_ref(f, x, y, n):
    for _ in range(n):
        x = f.r(f.r(x * f.r(np.float32(0.5))) + y)
    return x


case("fori_loop", "jax.lax.fori_loop(0, 5, lambda i, c: c * 0.5 + Y, X)", lambda x, f, o: loop_ref(f, x["X"], x["Y"], 5))
case("jit_fori_loop", "jax.jit(lambda x, y: jax.lax.fori_loop(0, 5, lambda i, c: c * 0.5 + y, x))(X, Y)",
     lambda x, f, o: loop_ref(f, x["X"], x["Y"], 5))
case("scan_cumsum", "jax.lax.scan(lambda c, r: (c + r, c + r), jnp.zeros(16, DT), X)[1]",
     lambda x, f, o: seq_sum(f, x["X"], 0))
case("scan_matmul", "jax.lax.scan(lambda c, r: (c, c @ r.reshape(16, 1)), X, jnp.stack([C[:, 0], C[:, 1]]))[1]",
     lambda x, f, o: np.stack([f.r((x["X"].astype(np.float64) @ x["C"][:, j:j + 1].astype(np.float64)).astype(np.float32))
                               for j in range(2)]), tol="ulp1")
case("cond", "jax.lax.cond(X[0, 0] > 0, lambda a: a * 3, lambda a: a / 3, Y)",
     lambda x, f, o: f.r(x["Y"] * 3) if x["X"][0, 0] > 0 else f.r(x["Y"] / 3))

# on a mesh: dtypes do not change sharding; collectives move 2-byte elements
SHARDED = "jax.device_put({}, NamedSharding(mesh, P('x')))"
case("mesh_add", f"jax.jit(lambda x, y: x + y)({SHARDED.format('X')}, {SHARDED.format('Y')})",
     lambda x, f, o: f.r(x["X"] + x["Y"]))
case("mesh_sum", f"jax.jit(jnp.sum)({SHARDED.format('X')})", lambda x, f, o: f.r(f32_sum(x["X"])), tol="ulp1")
case("mesh_sum_axis0", f"jax.jit(lambda x: x.sum(axis=0))({SHARDED.format('X')})",
     lambda x, f, o: f.r(f32_sum(x["X"], 0)), tol="ulp1")
case("mesh_matmul", f"jax.jit(lambda x, c: x @ c)({SHARDED.format('X')}, C)",
     lambda x, f, o: f.r((x["X"].astype(np.float64) @ x["C"].astype(np.float64)).astype(np.float32)), tol="ulp1")
case("shard_map_psum",
     f"jax.shard_map(lambda x: jax.lax.psum(x, 'x'), mesh=mesh, in_specs=P('x'), out_specs=P())({SHARDED.format('X')})",
     lambda x, f, o: seq_sum(f, x["X"].reshape(4, 2, 16), 0)[-1], tol="ulp1")
case("shard_map_pmax",
     f"jax.shard_map(lambda x: jax.lax.pmax(x, 'x'), mesh=mesh, in_specs=P('x'), out_specs=P())({SHARDED.format('X')})",
     lambda x, f, o: np.max(x["X"].reshape(4, 2, 16), axis=0))
case("shard_map_all_gather",
     f"jax.shard_map(lambda x: jax.lax.all_gather(x * 2, 'x', tiled=True), mesh=mesh, in_specs=P('x'), "
     f"out_specs=P('x'))({SHARDED.format('X')})",
     lambda x, f, o: np.concatenate([f.r(x["X"] * 2)] * 4))

# float16 only: the host transfer gives numpy float16 (saved as it is, not as bits)
HOST_F16 = [
    ("host_asarray", "np.asarray(X + Y)", lambda x: (x["X"] + x["Y"]).astype(np.float16)),
    ("host_from_f64", "np.asarray(jnp.asarray(np.asarray(s32, dtype=np.float64) * 3.0).astype(jnp.float16))",
     lambda x: (x["s32"].astype(np.float32) * np.float32(3)).astype(np.float16)),
    ("host_numpy_astype_f64", "np.asarray(s32, dtype=np.float64).__mul__(1.0000001).astype(np.float16)",
     lambda x: (x["s32"].astype(np.float64) * 1.0000001).astype(np.float16)),
    ("host_device_put", "np.asarray(jax.device_put(np.asarray(X)))", lambda x: x["X"].astype(np.float16)),
]


def ulp_order(bits):
    """16-bit patterns -> integers ordered as the values are (adjacent values differ by 1)."""
    b = bits.astype(np.int32)
    return np.where(b & 0x8000, -(b & 0x7FFF), b)


def compare(out, ref, kind, tol, fmt, other):
    if kind in ("half", "other"):
        f = fmt if kind == "half" else other
        if out.dtype != np.uint16:
            return f"saved as {out.dtype}, expected the 16-bit pattern (uint16): wrong result dtype"
        want = f.bits(ref)
        if out.shape != want.shape:
            return f"shape {out.shape}, expected {want.shape}"
        got_v, want_v = f.value(out), f.value(want)
        nan_ok = np.isnan(got_v) == np.isnan(want_v)
        if not nan_ok.all():
            return "NaN where none is expected (or the reverse)"
        d = np.atleast_1d(np.abs(ulp_order(out) - ulp_order(want)))
        d[np.atleast_1d(np.isnan(want_v))] = 0
        limit = 0 if tol == "exact" else 1
        if d.size and d.max() > limit:
            k = int(np.argmax(d))
            got_v, want_v, out, want = (np.atleast_1d(v) for v in (got_v, want_v, out, want))
            return (f"{d.max()} ulps off at flat index {k}: got {got_v.flat[k]!r} (0x{int(out.flat[k]):04x}), "
                    f"expected {want_v.flat[k]!r} (0x{int(want.flat[k]):04x})")
        return None
    want = np.asarray(ref).astype(kind)
    if out.dtype != want.dtype:
        return f"dtype {out.dtype}, expected {want.dtype}"
    if out.shape != want.shape:
        return f"shape {out.shape}, expected {want.shape}"
    if tol == "exact" or want.dtype.kind != "f":
        return None if np.array_equal(out, want, equal_nan=True) else "values differ"
    return None if np.allclose(out, want, rtol=1e-6, atol=0, equal_nan=True) else "not within rtol 1e-6"


def program(inputs_dir, out_dir, fmt, other, cases, half_inputs, names, host_cases):
    lines = [
        "import jax",
        "import jax.numpy as jnp",
        "import numpy as np",
        "from jax.sharding import PartitionSpec as P, NamedSharding",
        f"DT = jnp.{fmt.name}",
        f"OTHER = jnp.{other.name}",
        "mesh = jax.make_mesh((4,), ('x',))",
        "def save(k, r):",
        "    if str(r.dtype) in ('float16', 'bfloat16'):",
        "        r = jax.lax.bitcast_convert_type(r, jnp.uint16)",
        f"    np.save({out_dir!r} + '/' + str(k) + '.npy', np.asarray(r))",
    ]
    for name in names:
        path = os.path.join(inputs_dir, name + ".npy")
        if name in half_inputs:
            lines.append(f"{name} = jax.lax.bitcast_convert_type(jnp.asarray(np.load({path!r})), DT)")
        else:
            lines.append(f"{name} = jnp.asarray(np.load({path!r}))")
    for k, (_name, expr, *_rest) in enumerate(cases):
        lines += ["try:", f"    save({k}, {expr})", "except Exception as e:",
                  f"    print('CASE', {k}, type(e).__name__ + ':', str(e).replace(chr(10), ' '))"]
    for k, (_name, expr, _ref) in enumerate(host_cases):
        lines += ["try:", f"    np.save({out_dir!r} + '/host{k}.npy', {expr})", "except Exception as e:",
                  f"    print('CASE', 'host{k}', type(e).__name__ + ':', str(e).replace(chr(10), ' '))"]
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    shard = os.path.abspath(argv[1])
    verbose = "-v" in argv
    only = argv[argv.index("-k") + 1] if "-k" in argv else None
    keep = argv[argv.index("--keep") + 1] if "--keep" in argv else None
    work = keep or tempfile.mkdtemp(prefix="dtypes16_oracle_")
    passed = failed = 0
    for fmt, other in ((F16, BF16), (BF16, F16)):
        x, half_inputs = make_inputs(fmt)
        cases = [c for c in C if only is None or only in c[0]]
        host_cases = [c for c in HOST_F16 if fmt is F16 and (only is None or only in c[0])]
        inputs_dir = os.path.join(work, fmt.name, "inputs")
        out_dir = os.path.join(work, fmt.name, "out")
        os.makedirs(inputs_dir, exist_ok=True)
        os.makedirs(out_dir, exist_ok=True)
        for f in os.listdir(out_dir):
            os.remove(os.path.join(out_dir, f))
        for name, arr in x.items():
            np.save(os.path.join(inputs_dir, name + ".npy"), fmt.bits(arr) if name in half_inputs else arr)
        prog = os.path.join(work, fmt.name, "prog.shard")
        with open(prog, "w") as f:
            f.write(program(inputs_dir, out_dir, fmt, other, cases, half_inputs, list(x), host_cases))
        env = dict(os.environ, SHARD_DEVICES="4")
        proc = subprocess.run([shard, prog], capture_output=True, text=True, env=env, timeout=1200)
        errors = {}
        for line in proc.stdout.splitlines():
            if line.startswith("CASE "):
                _, k, msg = line.split(" ", 2)
                errors[k] = msg
        if proc.returncode != 0:
            print(f"[{fmt.name}] shard exited with {proc.returncode}:\n{proc.stderr[-3000:]}")
            failed += 1
        results = [(str(k), name, expr, lambda r=ref: r(x, fmt, other), kind, tol)
                   for k, (name, expr, ref, kind, tol) in enumerate(cases)]
        results += [(f"host{k}", name, expr, lambda r=ref: r(x), "host", "exact")
                    for k, (name, expr, ref) in enumerate(host_cases)]
        for key, name, expr, ref, kind, tol in results:
            label = f"[{fmt.name}] {name} ({expr})"
            if key in errors:
                failed += 1
                print(f"FAIL {label}: {errors[key][:400]}")
                continue
            path = os.path.join(out_dir, f"{key}.npy")
            if not os.path.exists(path):
                failed += 1
                print(f"FAIL {label}: no result")
                continue
            out = np.load(path)
            with np.errstate(all="ignore"):
                want = ref()
            if kind == "host":
                ok = out.dtype == np.float16 and out.shape == want.shape and np.array_equal(
                    out.view(np.uint16)[~np.isnan(want)], want.view(np.uint16)[~np.isnan(want)]) and np.array_equal(
                    np.isnan(out), np.isnan(want))
                problem = None if ok else f"got {out.dtype} {out.ravel()[:6]}, expected float16 {want.ravel()[:6]}"
            else:
                problem = compare(out, want, kind, tol, fmt, other)
            if problem:
                failed += 1
                print(f"FAIL {label}: {problem}")
            else:
                passed += 1
                if verbose:
                    print(f"ok {label}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
