#!/usr/bin/python3
"""numpy oracle for jax.numpy.fft, lax.fft and complex arithmetic in shard.

Writes random float32 / complex64 arrays as .npy files, generates one .shard program per
placement (unsharded; the leading dim of the batched inputs sharded on an Explicit and on an
Auto mesh) that evaluates every case and np.save()s its result, and compares with numpy in
complex128 / float64:
  - transforms: fft, ifft, rfft, irfft, their 2-D and N-D forms, hfft, ihfft, n= / s= crops
    and zero-pads, axes, norm="ortho" / "forward", lax.fft; eagerly, under jit and vmap;
  - complex elementwise ops (arithmetic, abs, angle, exp, log, sqrt, trigonometric and
    hyperbolic functions, powers, comparisons), reductions and complex matmul;
  - gradients: jax.grad of real functions through complex intermediates against central
    finite differences of the numpy function in float64.
The tolerance is relative to the largest magnitude of the reference (float32 accuracy).

usage: fft_oracle.py SHARD_EXE [-v] [-k SUBSTRING] [--keep DIR]
Prints `N passed, N failed` last; exit status 1 when anything failed.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

RNG = np.random.default_rng(20261202)


def make_inputs():
    f32 = lambda *s: RNG.standard_normal(s).astype(np.float32)
    c64 = lambda *s: (RNG.standard_normal(s) + 1j * RNG.standard_normal(s)).astype(np.complex64)
    return {
        "x": f32(16), "odd": f32(7), "m": f32(4, 6), "t": f32(2, 3, 8), "xb": f32(8, 12),
        "c": c64(16), "cm": c64(4, 6), "cb": c64(8, 10), "ct": c64(2, 3, 4),
        "z": c64(64), "w": c64(64), "za": c64(4, 4), "zb": c64(4, 3),
    }


def divided_by_zero(v):
    with np.errstate(all="ignore"):
        return np.isinf(v["z"] / np.zeros(64, np.complex64))


C = []  # (name, shard expression, numpy reference, tolerance)
def add(name, expr, ref, tol=1e-5):
    C.append((name, expr, ref, tol))

F = np.fft
add("fft", "jnp.fft.fft(x)", lambda v: F.fft(v["x"]))
add("ifft", "jnp.fft.ifft(c)", lambda v: F.ifft(v["c"]))
add("fft of complex", "jnp.fft.fft(c)", lambda v: F.fft(v["c"]))
add("fft int input", "jnp.fft.fft(jnp.arange(6))", lambda v: F.fft(np.arange(6)))
add("fft n crop", "jnp.fft.fft(x, n=10)", lambda v: F.fft(v["x"], n=10))
add("fft n pad", "jnp.fft.fft(x, n=20)", lambda v: F.fft(v["x"], n=20))
add("fft odd", "jnp.fft.fft(odd)", lambda v: F.fft(v["odd"]))
add("fft axis 0", "jnp.fft.fft(m, axis=0)", lambda v: F.fft(v["m"], axis=0))
add("fft norm ortho", "jnp.fft.fft(x, norm='ortho')", lambda v: F.fft(v["x"], norm="ortho"))
add("fft norm forward", "jnp.fft.fft(x, norm='forward')", lambda v: F.fft(v["x"], norm="forward"))
add("ifft norm ortho", "jnp.fft.ifft(c, norm='ortho')", lambda v: F.ifft(v["c"], norm="ortho"))
add("ifft norm forward", "jnp.fft.ifft(c, norm='forward')", lambda v: F.ifft(v["c"], norm="forward"))
add("rfft", "jnp.fft.rfft(x)", lambda v: F.rfft(v["x"]))
add("rfft odd", "jnp.fft.rfft(odd)", lambda v: F.rfft(v["odd"]))
add("rfft n", "jnp.fft.rfft(x, n=9)", lambda v: F.rfft(v["x"], n=9))
add("irfft", "jnp.fft.irfft(c[:9])", lambda v: F.irfft(v["c"][:9]))
add("irfft n odd", "jnp.fft.irfft(c[:9], n=17)", lambda v: F.irfft(v["c"][:9], n=17))
add("irfft roundtrip odd", "jnp.fft.irfft(jnp.fft.rfft(odd), n=7)", lambda v: v["odd"])
add("irfft axis 0", "jnp.fft.irfft(cm, axis=0)", lambda v: F.irfft(v["cm"], axis=0))
add("fft2", "jnp.fft.fft2(m)", lambda v: F.fft2(v["m"]))
add("ifft2", "jnp.fft.ifft2(cm)", lambda v: F.ifft2(v["cm"]))
add("fft2 s", "jnp.fft.fft2(m, s=(3, 8))", lambda v: F.fft2(v["m"], s=(3, 8)))
add("rfft2", "jnp.fft.rfft2(m)", lambda v: F.rfft2(v["m"]))
add("irfft2", "jnp.fft.irfft2(jnp.fft.rfft2(m), s=(4, 6))", lambda v: v["m"])
add("irfft2 default s", "jnp.fft.irfft2(cm)", lambda v: F.irfft2(v["cm"]))
add("fftn", "jnp.fft.fftn(t)", lambda v: F.fftn(v["t"]))
add("fftn axes", "jnp.fft.fftn(t, axes=(0, 2))", lambda v: F.fftn(v["t"], axes=(0, 2)))
add("fftn s", "jnp.fft.fftn(t, s=(4, 5))", lambda v: F.fftn(v["t"], s=(4, 5)))
add("ifftn", "jnp.fft.ifftn(ct)", lambda v: F.ifftn(v["ct"]))
add("rfftn", "jnp.fft.rfftn(t)", lambda v: F.rfftn(v["t"]))
add("irfftn", "jnp.fft.irfftn(ct)", lambda v: F.irfftn(v["ct"]))
add("irfftn axes", "jnp.fft.irfftn(ct, axes=(0, 1))", lambda v: F.irfftn(v["ct"], axes=(0, 1)))
add("hfft", "jnp.fft.hfft(c[:9])", lambda v: F.hfft(v["c"][:9]))
add("hfft n", "jnp.fft.hfft(c[:9], n=15)", lambda v: F.hfft(v["c"][:9], n=15))
add("ihfft", "jnp.fft.ihfft(x)", lambda v: F.ihfft(v["x"]))
add("lax.fft FFT", "jax.lax.fft(cm, 'fft', (4, 6))", lambda v: F.fft2(v["cm"]))
add("lax.fft IRFFT", "jax.lax.fft(cm, 'irfft', (4, 10))", lambda v: F.irfft2(v["cm"], s=(4, 10)))
add("batched fft", "jnp.fft.fft(xb)", lambda v: F.fft(v["xb"]))
add("batched ifft", "jnp.fft.ifft(cb)", lambda v: F.ifft(v["cb"]))
add("batched rfft", "jnp.fft.rfft(xb)", lambda v: F.rfft(v["xb"]))
add("batched fft axis 0 (the batch dim)", "jnp.fft.fft(xb, axis=0)", lambda v: F.fft(v["xb"], axis=0))
add("jit fft", "jax.jit(jnp.fft.fft)(xb)", lambda v: F.fft(v["xb"]))
add("jit rfft irfft", "jax.jit(lambda a: jnp.fft.irfft(jnp.fft.rfft(a) * 2, n=12))(xb)", lambda v: 2 * v["xb"])
add("jit fft2 of sharded", "jax.jit(jnp.fft.fft2)(cb)", lambda v: F.fft2(v["cb"]))
add("vmap fft", "jax.vmap(jnp.fft.fft)(xb)", lambda v: F.fft(v["xb"]))
add("vmap in_axes=1 fft", "jax.vmap(jnp.fft.fft, in_axes=1)(m)", lambda v: F.fft(v["m"].T))
add("fftshift of fft", "jnp.fft.fftshift(jnp.fft.fft(x))", lambda v: F.fftshift(F.fft(v["x"])))
add("convolution by fft", "jnp.fft.irfft(jnp.fft.rfft(x, 32) * jnp.fft.rfft(x[::-1], 32), 32)[:31]",
    lambda v: np.convolve(v["x"], v["x"][::-1]))
# complex arithmetic
add("add", "z + w", lambda v: v["z"] + v["w"])
add("sub", "z - w", lambda v: v["z"] - v["w"])
add("mul", "z * w", lambda v: v["z"] * v["w"])
add("div", "z / w", lambda v: v["z"].astype(np.complex128) / v["w"])
add("div large", "(z * 1e30) / (w * 1e30)", lambda v: v["z"].astype(np.complex128) / v["w"])
add("neg", "-z", lambda v: -v["z"])
add("mul real", "z * x[0]", lambda v: v["z"] * v["x"][0])
add("add python complex", "z + (1 - 2j)", lambda v: v["z"] + (1 - 2j))
add("mul python complex", "(0.5 + 1j) * z", lambda v: (0.5 + 1j) * v["z"].astype(np.complex128))
add("real from float", "x * 1j + x", lambda v: v["x"] * 1j + v["x"])
add("abs", "jnp.abs(z)", lambda v: np.abs(v["z"].astype(np.complex128)))
add("abs huge", "jnp.abs(z * 1e30)", lambda v: np.abs(v["z"].astype(np.complex128) * 1e30), 1e-5)
add("angle", "jnp.angle(z)", lambda v: np.angle(v["z"].astype(np.complex128)))
add("angle deg", "jnp.angle(z, deg=True)", lambda v: np.angle(v["z"].astype(np.complex128), deg=True))
add("real imag conj", "jnp.stack([z.real, z.imag, jnp.conj(z).imag])", lambda v: np.stack([v["z"].real, v["z"].imag, -v["z"].imag]))
add("lax.complex", "jax.lax.complex(x, x[::-1])", lambda v: v["x"] + 1j * v["x"][::-1])
add("exp", "jnp.exp(z)", lambda v: np.exp(v["z"].astype(np.complex128)))
add("log", "jnp.log(w)", lambda v: np.log(v["w"].astype(np.complex128)))
add("sqrt", "jnp.sqrt(z)", lambda v: np.sqrt(v["z"].astype(np.complex128)))
add("sqrt negative reals", "jnp.sqrt(-(x * x) + 0j)", lambda v: np.sqrt(-(v["x"].astype(np.float64) ** 2) + 0j))
add("sin", "jnp.sin(z)", lambda v: np.sin(v["z"].astype(np.complex128)))
add("cos", "jnp.cos(z)", lambda v: np.cos(v["z"].astype(np.complex128)))
add("tan", "jnp.tan(z)", lambda v: np.tan(v["z"].astype(np.complex128)), 1e-4)
add("sinh", "jnp.sinh(z)", lambda v: np.sinh(v["z"].astype(np.complex128)))
add("cosh", "jnp.cosh(z)", lambda v: np.cosh(v["z"].astype(np.complex128)))
add("tanh", "jnp.tanh(z)", lambda v: np.tanh(v["z"].astype(np.complex128)), 1e-4)
for f in ["arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh"]:  # off the branch cuts
    add(f"{f} of complex", f"jnp.{f}(z)", lambda v, f=f: getattr(np, f)(v["z"].astype(np.complex128)), 1e-4)
add("sqrt keeps the sign of a zero imaginary part", "jnp.sqrt(jax.lax.complex(-(x * x) - 1, jnp.zeros(16) * -1.0))",
    lambda v: np.sqrt(np.array([complex(a, -0.0) for a in -(v["x"].astype(np.float64) ** 2) - 1])))
add("expm1 near 0", "jnp.expm1(z * 1e-4)", lambda v: np.expm1(v["z"].astype(np.complex128) * 1e-4), 1e-4)
add("tanh far out", "jnp.tanh(z + 25)", lambda v: np.tanh(v["z"].astype(np.complex128) + 25), 1e-4)
add("division by complex zero", "jnp.isinf(z / jnp.zeros(64, jnp.complex64))", divided_by_zero, "exact")
add("square", "jnp.square(z)", lambda v: v["z"].astype(np.complex128) ** 2)
add("z ** 3", "z ** 3", lambda v: v["z"].astype(np.complex128) ** 3)
add("z ** -2", "z ** -2", lambda v: v["z"].astype(np.complex128) ** -2)
add("z ** w", "z ** w", lambda v: v["z"].astype(np.complex128) ** v["w"], 1e-4)
add("reciprocal", "jnp.reciprocal(z)", lambda v: 1 / v["z"].astype(np.complex128))
add("expm1", "jnp.expm1(z)", lambda v: np.expm1(v["z"].astype(np.complex128)), 1e-4)
add("log1p", "jnp.log1p(w)", lambda v: np.log(1 + v["w"].astype(np.complex128)), 1e-4)
add("sign", "jnp.sign(z)", lambda v: v["z"] / np.abs(v["z"].astype(np.complex128)))
add("eq ne", "jnp.stack([z == z, z != w, z == jnp.conj(z)])", lambda v: np.stack([v["z"] == v["z"], v["z"] != v["w"], v["z"] == np.conj(v["z"])]), "exact")
add("isnan isfinite", "jnp.stack([jnp.isnan(z * jnp.nan), jnp.isfinite(z), jnp.isinf(z * jnp.inf)])",
    lambda v: np.stack([np.full(64, True), np.full(64, True), np.full(64, True)]), "exact")
add("less, greater_equal (lexicographic)", "jnp.stack([z < w, z >= w, jnp.round(z) <= jnp.round(w), z > z])",
    lambda v: np.stack([v["z"] < v["w"], v["z"] >= v["w"], np.round(v["z"]) <= np.round(v["w"]), v["z"] > v["z"]]), "exact")
add("maximum minimum (lexicographic)", "jnp.stack([jnp.maximum(z, w), jnp.minimum(z, w)])",
    lambda v: np.stack([np.maximum(v["z"], v["w"]), np.minimum(v["z"], v["w"])]), "exact")
add("sort (lexicographic)", "jnp.sort(jnp.round(z))", lambda v: np.sort(np.round(v["z"])), "exact")
add("argsort, sort along an axis", "jnp.stack([jnp.argsort(jnp.round(z)).astype(jnp.float32), jnp.sort(jnp.round(z)).real])",
    lambda v: np.stack([np.argsort(np.round(v["z"]), kind="stable").astype(np.float32), np.sort(np.round(v["z"])).real]), "exact")
add("sort axis 0 of a matrix", "jnp.sort(cm, axis=0)", lambda v: np.sort(v["cm"], axis=0), "exact")
add("where", "jnp.where(z.real > 0, z, w)", lambda v: np.where(v["z"].real > 0, v["z"], v["w"]))
add("sum", "jnp.sum(z)", lambda v: np.sum(v["z"].astype(np.complex128)))
add("mean axis", "jnp.mean(cm, axis=0)", lambda v: np.mean(v["cm"].astype(np.complex128), axis=0))
add("cumsum", "jnp.cumsum(z)", lambda v: np.cumsum(v["z"].astype(np.complex128)))
add("matmul", "za @ zb", lambda v: v["za"].astype(np.complex128) @ v["zb"])
add("matmul real by complex", "za.real @ zb", lambda v: v["za"].real.astype(np.float64) @ v["zb"])
add("einsum", "jnp.einsum('ij,jk->ik', za, zb)", lambda v: v["za"].astype(np.complex128) @ v["zb"])
add("vdot-like", "jnp.sum(jnp.conj(z) * w)", lambda v: np.vdot(v["z"].astype(np.complex128), v["w"]))
add("full complex", "jnp.full((2, 3), 1 + 2j)", lambda v: np.full((2, 3), 1 + 2j, np.complex64))
add("full_like complex", "jnp.full_like(z, 2 - 1j)", lambda v: np.full(64, 2 - 1j, np.complex64))
add("vdot conjugates", "jnp.vdot(z, w)", lambda v: np.vdot(v["z"].astype(np.complex128), v["w"]))
add("norm of complex", "jnp.linalg.norm(z)", lambda v: np.linalg.norm(v["z"].astype(np.complex128)))
add("norm of complex matrix", "jnp.linalg.norm(za, axis=1)", lambda v: np.linalg.norm(v["za"].astype(np.complex128), axis=1))
add("var std of complex", "jnp.stack([jnp.var(cm, axis=0), jnp.std(cm, axis=0)])",
    lambda v: np.stack([np.var(v["cm"].astype(np.complex128), axis=0), np.std(v["cm"].astype(np.complex128), axis=0)]))
add("isclose allclose complex", "jnp.stack([jnp.allclose(z, z + 1e-9), jnp.allclose(z, w), jnp.isclose(z, z * (1 + 1e-9)).all()])",
    lambda v: np.array([True, False, True]), "exact")
add("0 ** y", "jnp.array([0j, 0j, 1 + 1j]) ** jnp.array([0.5 + 0j, 0j, 0.5 + 0j])",
    lambda v: np.array([0j, 1 + 0j, (1 + 1j) ** 0.5]))
add("transpose reshape slice", "za.T.reshape(2, 8)[:, 1:6:2]", lambda v: v["za"].T.reshape(2, 8)[:, 1:6:2], "exact")
add("concatenate pad", "jnp.pad(jnp.concatenate([z[:3], w[:2]]), 2)", lambda v: np.pad(np.concatenate([v["z"][:3], v["w"][:2]]), 2), "exact")
add("astype", "x.astype(jnp.complex64)", lambda v: v["x"].astype(np.complex64), "exact")
add("astype to float (real part)", "z.astype(jnp.float32)", lambda v: v["z"].real, "exact")
add("jit complex chain", "jax.jit(lambda a, b: jnp.exp(a) * jnp.conj(b) / (1 + jnp.abs(a)))(z, w)",
    lambda v: np.exp(v["z"].astype(np.complex128)) * np.conj(v["w"]) / (1 + np.abs(v["z"])))
add("vmap complex", "jax.vmap(lambda a: a * jnp.conj(a[::-1]))(cb)", lambda v: v["cb"] * np.conj(v["cb"][:, ::-1]))
add("scan complex carry", "jax.lax.scan(lambda c, a: (c * a, c), jnp.complex64(1), z[:8])[0]",
    lambda v: np.prod(v["z"][:8].astype(np.complex128)), 1e-4)

G = []  # (name, argument, shard function, numpy function of the argument (float64), tolerance)
def grad_case(name, arg, src, ref, tol=2e-3):
    G.append((name, arg, src, ref, tol))

grad_case("grad |fft|^2", "x", "lambda a: jnp.sum(jnp.abs(jnp.fft.fft(a)) ** 2)", lambda a: np.sum(np.abs(F.fft(a)) ** 2))
grad_case("grad weighted rfft", "x", "lambda a: jnp.sum(jnp.real(jnp.fft.rfft(a) * jnp.arange(1.0, 10.0)) + jnp.imag(jnp.fft.rfft(a)) ** 2)",
          lambda a: np.sum(np.real(F.rfft(a) * np.arange(1.0, 10.0)) + np.imag(F.rfft(a)) ** 2))
grad_case("grad irfft of rfft", "odd", "lambda a: jnp.sum(jnp.fft.irfft(jnp.fft.rfft(a) * (1 + 2j), n=7) * jnp.arange(7.0))",
          lambda a: np.sum(F.irfft(F.rfft(a) * (1 + 2j), n=7) * np.arange(7.0)))
grad_case("grad ifft2 abs", "m", "lambda a: jnp.sum(jnp.abs(jnp.fft.ifft2(a + 1j)))", lambda a: np.sum(np.abs(F.ifft2(a + 1j))))
grad_case("grad complex exp", "x", "lambda a: jnp.sum(jnp.real(jnp.exp(1j * a) * (2 - 1j)))", lambda a: np.sum(np.real(np.exp(1j * a) * (2 - 1j))))
grad_case("grad abs of complex product", "x", "lambda a: jnp.sum(jnp.abs(jax.lax.complex(a, a[::-1]) * (1 + 1j)))",
          lambda a: np.sum(np.abs((a + 1j * a[::-1]) * (1 + 1j))))
grad_case("grad angle", "x", "lambda a: jnp.sum(jnp.angle(a + 0.5j))", lambda a: np.sum(np.angle(a + 0.5j)))
grad_case("grad jit hfft", "x", "jax.jit(lambda a: jnp.sum(jnp.fft.hfft(a[:9] + 0.5j * a[7:]) ** 2))",
          lambda a: np.sum(F.hfft(a[:9] + 0.5j * a[7:]) ** 2))

PLACEMENTS = [
    ("unsharded", None),
    ("explicit batch P('x')", "jax.make_mesh((2,), ('x',), axis_types=(AxisType.Explicit,))"),
    ("auto batch P('x')", "jax.make_mesh((2,), ('x',), axis_types=(AxisType.Auto,))"),
]
BATCHED = {"xb", "cb"}


def fd_grad(ref, base, eps=1e-6):
    base = base.astype(np.float64)
    g = np.zeros_like(base)
    for i in np.ndindex(base.shape):
        hi, lo = base.copy(), base.copy()
        hi[i] += eps
        lo[i] -= eps
        g[i] = (ref(hi) - ref(lo)) / (2 * eps)
    return g


def program(inputs_dir, out_dir, placement, names):
    _label, mesh_ctor = placement
    lines = ["import jax", "import jax.numpy as jnp", "import numpy as np",
             "from jax.sharding import PartitionSpec as P, NamedSharding, AxisType"]
    if mesh_ctor:
        lines += [f"mesh = {mesh_ctor}", "def place(x, batched):",
                  "    return jax.device_put(x, NamedSharding(mesh, P('x') if batched else P()))"]
    else:
        lines += ["def place(x, batched):", "    return jnp.asarray(x)"]
    for name in names:
        lines.append(f"{name} = place(np.load({os.path.join(inputs_dir, name + '.npy')!r}), {name in BATCHED})")
    if mesh_ctor:
        lines.append("jax.sharding.set_mesh(mesh)")
    for k, (_name, expr, _ref, _tol) in enumerate(C):
        lines += ["try:", f"    r = {expr}", f"    np.save({os.path.join(out_dir, f'v{k}.npy')!r}, np.asarray(r))",
                  "except Exception as e:", f"    print('CASE v{k}', type(e).__name__ + ':', str(e).replace(chr(10), ' '))"]
    for k, (_name, arg, src, _ref, _tol) in enumerate(G):
        lines += ["try:", f"    r = jax.grad({src})({arg})", f"    np.save({os.path.join(out_dir, f'g{k}.npy')!r}, np.asarray(r))",
                  "except Exception as e:", f"    print('CASE g{k}', type(e).__name__ + ':', str(e).replace(chr(10), ' '))"]
    return "\n".join(lines) + "\n"


def compare(out, ref, tol):
    ref = np.asarray(ref)
    if out.shape != ref.shape:
        return f"shape {out.shape}, expected {ref.shape}"
    if tol == "exact":
        return None if np.array_equal(out, ref) else f"values differ: got {out.ravel()[:6]}, expected {ref.ravel()[:6]}"
    want = np.complex64 if np.iscomplexobj(ref) else np.float32
    if out.dtype != want:
        return f"dtype {out.dtype}, expected {np.dtype(want).name}"
    scale = max(1.0, float(np.max(np.abs(ref)))) if ref.size else 1.0
    diff = np.abs(out.astype(np.complex128) - ref)
    if ref.size == 0 or np.all(diff <= tol * scale + tol * np.abs(ref)):
        return None
    k = int(np.argmax(diff))
    return f"max abs diff {diff.flat[k]:.3g} (scale {scale:.3g}) at flat index {k}: got {out.flat[k]!r}, expected {ref.flat[k]!r}"


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    shard = os.path.abspath(argv[1])
    verbose = "-v" in argv
    only = argv[argv.index("-k") + 1] if "-k" in argv else None
    keep = argv[argv.index("--keep") + 1] if "--keep" in argv else None
    x = make_inputs()
    global C, G
    C = [c for c in C if only is None or only in c[0]]
    G = [g for g in G if only is None or only in g[0]]
    refs = [c[2](x) for c in C]
    grefs = [fd_grad(g[3], x[g[1]]) for g in G]
    work = keep or tempfile.mkdtemp(prefix="fft_oracle_")
    inputs_dir = os.path.join(work, "inputs")
    os.makedirs(inputs_dir, exist_ok=True)
    for name, arr in x.items():
        np.save(os.path.join(inputs_dir, name + ".npy"), arr)
    passed = failed = 0
    for pi, placement in enumerate(PLACEMENTS):
        label = placement[0]
        out_dir = os.path.join(work, f"out{pi}")
        os.makedirs(out_dir, exist_ok=True)
        for f in os.listdir(out_dir):
            os.remove(os.path.join(out_dir, f))
        prog = os.path.join(work, f"prog{pi}.shard")
        with open(prog, "w") as f:
            f.write(program(inputs_dir, out_dir, placement, x))
        proc = subprocess.run([shard, prog], capture_output=True, text=True, env=dict(os.environ, SHARD_DEVICES="8"), timeout=1200)
        errors = {}
        for line in proc.stdout.splitlines():
            if line.startswith("CASE "):
                key, _, msg = line[5:].partition(" ")
                errors[key] = msg
        if proc.returncode != 0:
            print(f"FAIL [{label}] program exited {proc.returncode}: {proc.stderr.strip()[-2000:]}")
            failed += 1
            continue
        checks = [(f"v{k}", C[k][0], refs[k], C[k][3]) for k in range(len(C))]
        checks += [(f"g{k}", G[k][0], grefs[k], G[k][4]) for k in range(len(G))]
        for key, name, ref, tol in checks:
            path = os.path.join(out_dir, key + ".npy")
            if key in errors:
                problem = "raised " + errors[key]
            elif not os.path.exists(path):
                problem = "no result"
            else:
                problem = compare(np.load(path), ref, tol)
            if problem:
                failed += 1
                print(f"FAIL [{label}] {name}: {problem}")
            else:
                passed += 1
                if verbose:
                    print(f"ok   [{label}] {name}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
