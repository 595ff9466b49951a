#!/usr/bin/python3
"""numpy oracle for jax.random in shard.

Generates one .shard program per placement (eager; eager with out_sharding= on a 4x2 mesh;
inside jax.jit with out_sharding=) that draws every case and np.save()s it, runs `shard`,
and compares each result with threefry_ref.py, an independent numpy model of JAX's
partitionable threefry2x32: bit-exact for key data and bits (which must be uint32), uniform,
randint, bernoulli and permutations; normal within 2 ulp-ish (rtol 1e-6: erf_inv goes
through libm's log1pf).
Values must not depend on the placement.

usage: random_oracle.py SHARD_EXE [-v] [--keep DIR]
Prints `N passed, N failed` last; exit status 1 when anything failed.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import threefry_ref as ref  # noqa: E402

SEEDS = [0, 1, 42, 1701, -1, 2**31 + 3]
SHAPES = [(), (1,), (7,), (8, 4), (2, 3, 4), (1000,)]


def cases():
    """(name, shard expression over `key`/`raw`, reference thunk, kind, shape)."""
    out = []
    for s in SEEDS:
        k = ref.seed(s)
        key = f"jax.random.key({s})"
        raw = f"jax.random.PRNGKey({s})"
        out.append((f"seed{s}", f"jax.random.key_data({key})", lambda k=k: k, "bits", None))
        out.append((f"split{s}", f"jax.random.key_data(jax.random.split({key}, 5))", lambda k=k: ref.split(k, 5), "bits", None))
        out.append((f"split2d{s}", f"jax.random.split({raw}, (2, 3))", lambda k=k: ref.split(k, (2, 3)), "bits", None))
        for d in [0, 1, 7, 2**31 + 5]:
            out.append((f"fold{s}_{d}", f"jax.random.key_data(jax.random.fold_in({key}, {d}))", lambda k=k, d=d: ref.fold_in(k, d), "bits", None))
        for shape in SHAPES:
            tag = f"{s}_{'x'.join(map(str, shape)) or 'scalar'}"
            out.append((f"bits{tag}", f"jax.random.bits({key}, {shape}{{OS}})", lambda k=k, sh=shape: ref.bits(k, sh), "bits", shape))
            out.append((f"uniform{tag}", f"jax.random.uniform({key}, {shape}{{OS}})", lambda k=k, sh=shape: ref.uniform(k, sh), "exact", shape))
            out.append((f"uniformab{tag}", f"jax.random.uniform({raw}, {shape}, minval=-3.0, maxval=0.5{{OS}})",
                        lambda k=k, sh=shape: ref.uniform(k, sh, -3.0, 0.5), "exact", shape))
            out.append((f"normal{tag}", f"jax.random.normal({key}, {shape}{{OS}})", lambda k=k, sh=shape: ref.normal(k, sh), "normal", shape))
            out.append((f"truncnormal{tag}", f"jax.random.truncated_normal({key}, -2.0, 1.5, {shape}{{OS}})",
                        lambda k=k, sh=shape: ref.truncated_normal(k, -2.0, 1.5, sh), "normal", shape))
            out.append((f"randint{tag}", f"jax.random.randint({key}, {shape}, -7, 1000{{OS}})",
                        lambda k=k, sh=shape: ref.randint(k, sh, -7, 1000), "exact", shape))
            out.append((f"randintbig{tag}", f"jax.random.randint({key}, {shape}, -2**31, 2**31 - 1{{OS}})",
                        lambda k=k, sh=shape: ref.randint(k, sh, -2**31, 2**31 - 1), "exact", shape))
            out.append((f"bernoulli{tag}", f"jax.random.bernoulli({key}, 0.25, {shape}{{OS}})",
                        lambda k=k, sh=shape: ref.uniform(k, sh) < np.float32(0.25), "exact", shape))
            # Transforms of the draws above: float math (log, tan, pow) as XLA's, so within
            # a few float32 ulps of numpy's.
            for name, fn in [("exponential", ref.exponential), ("laplace", ref.laplace), ("logistic", ref.logistic),
                             ("cauchy", ref.cauchy), ("maxwell", ref.maxwell)]:
                out.append((f"{name}{tag}", f"jax.random.{name}({key}, {shape}{{OS}})", lambda k=k, sh=shape, fn=fn: fn(k, sh), "float", shape))
            out.append((f"gumbel{tag}", f"jax.random.gumbel({key}, {shape}{{OS}})", lambda k=k, sh=shape: ref.gumbel(k, sh), "float", shape))
            out.append((f"gumbelhigh{tag}", f"jax.random.gumbel({key}, {shape}, mode='high'{{OS}})",
                        lambda k=k, sh=shape: ref.gumbel(k, sh, "high"), "float", shape))
            out.append((f"rademacher{tag}", f"jax.random.rademacher({key}, {shape}{{OS}})", lambda k=k, sh=shape: ref.rademacher(k, sh), "exact", shape))
            out.append((f"lognormal{tag}", f"jax.random.lognormal({key}, 0.5, {shape}{{OS}})",
                        lambda k=k, sh=shape: ref.lognormal(k, 0.5, sh), "float", shape))
            out.append((f"pareto{tag}", f"jax.random.pareto({key}, 3.0, {shape}{{OS}})", lambda k=k, sh=shape: ref.pareto(k, 3.0, sh), "float", shape))
            out.append((f"rayleigh{tag}", f"jax.random.rayleigh({key}, 2.0, {shape}{{OS}})",
                        lambda k=k, sh=shape: ref.rayleigh(k, 2.0, sh), "float", shape))
            out.append((f"weibull{tag}", f"jax.random.weibull_min({key}, 2.0, 1.5, {shape})",
                        lambda k=k, sh=shape: ref.weibull_min(k, 2.0, 1.5, sh), "float", shape))
            logits = "[[0.1, 2.0, -1.0, 0.5], [3.0, 0.0, 0.0, -2.0]]"
            cshape = tuple(shape) + (2,)
            out.append((f"categorical{tag}", f"jax.random.categorical({key}, jnp.array({logits}), shape={cshape})",
                        lambda k=k, sh=cshape, lg=logits: ref.categorical(k, np.array(eval(lg)), sh), "exact", cshape))
        # Without replacement: k = 3 draws of 2 x 4 logits, and all 4 of one row of 4.
        out.append((f"categorical_noreplace{s}", f"jax.random.categorical({key}, jnp.array({logits}), shape=(3, 2), replace=False)",
                    lambda k=k, lg=logits: ref.categorical_without_replacement(k, np.array(eval(lg)), (3, 2)), "exact", None))
        out.append((f"categorical_all{s}", f"jax.random.categorical({key}, jnp.array([0.5, 0.5, 0.5, 2.0]), shape=(4,), replace=False)",
                    lambda k=k: ref.categorical_without_replacement(k, np.array([0.5, 0.5, 0.5, 2.0]), (4,)), "exact", None))
        for n in [1, 2, 10, 100, 2000]:
            out.append((f"perm{s}_{n}", f"jax.random.permutation(jax.random.key({s}), {n})", lambda k=k, n=n: ref.permutation(k, n), "exact", None))
        out.append((f"choice{s}", f"jax.random.choice(jax.random.key({s}), 50, (4, 5), replace=False)",
                    lambda k=k: ref.permutation(k, 50)[:20].reshape(4, 5), "exact", None))
    return out


PLACEMENTS = {
    "eager": ("", lambda shape: ""),
    "mesh": ("mesh", lambda shape: ", out_sharding=P('x', 'y')" if len(shape) == 2
             else ", out_sharding=P('x')" if len(shape) == 1 and shape[0] % 4 == 0 else ""),
    "jit": ("jit", lambda shape: ", out_sharding=P(None, 'y')" if len(shape) == 2 else ""),
}


def program(placement, cs, outdir):
    mode, os_for = PLACEMENTS[placement]
    lines = ["import jax", "import jax.numpy as jnp", "import numpy as np",
             "from jax.sharding import PartitionSpec as P, AxisType",
             "mesh = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Explicit, AxisType.Explicit))",
             "jax.sharding.set_mesh(mesh)" if mode else ""]
    for name, expr, _, _, shape in cs:
        e = expr.replace("{OS}", os_for(shape) if shape is not None else "")
        if mode == "jit":
            e = f"jax.jit(lambda: {e})()"
        lines.append(f"np.save({os.path.join(outdir, name + '.npy')!r}, np.asarray({e}))")
    lines.append("print('done')")
    return "\n".join(lines) + "\n"


def compare(kind, got, want):
    if kind == "bits":  # key data and random bits are uint32 arrays, as in JAX
        return got.shape == want.shape and got.dtype == np.uint32 and np.array_equal(got, want.astype(np.uint32))
    if kind == "normal":
        return got.shape == want.shape and got.dtype == np.float32 and np.allclose(got, want, rtol=1e-6, atol=1e-7)
    if kind == "float":  # libm-level math (log, log1p, tan, pow) in float32: a few ulps apart
        return got.shape == want.shape and got.dtype == np.float32 and np.allclose(got, want, rtol=4e-6, atol=1e-6)
    return got.shape == want.shape and got.dtype == np.asarray(want).dtype and np.array_equal(got, want)


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 2
    shard, verbose = args[0], "-v" in args
    keep = args[args.index("--keep") + 1] if "--keep" in args else None
    cs = cases()
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = keep or tmp
        for placement in PLACEMENTS:
            outdir = os.path.join(work, placement)
            os.makedirs(outdir, exist_ok=True)
            src = os.path.join(work, f"random_{placement}.shard")
            with open(src, "w") as f:
                f.write(program(placement, cs, outdir))
            r = subprocess.run([shard, "--devices", "8", src], capture_output=True, text=True, timeout=1200)
            if r.returncode != 0:
                print(f"FAIL {placement}: shard exited {r.returncode}\n{r.stdout}{r.stderr}")
                failed += len(cs)
                continue
            for name, expr, want_fn, kind, _ in cs:
                want = np.asarray(want_fn())
                try:
                    got = np.load(os.path.join(outdir, name + ".npy"))
                except OSError as e:
                    print(f"FAIL {placement} {name}: {e}")
                    failed += 1
                    continue
                if compare(kind, got, want):
                    passed += 1
                    if verbose:
                        print(f"ok   {placement} {name}")
                else:
                    failed += 1
                    print(f"FAIL {placement} {name}: {expr}\n  got  {got.dtype}{got.shape} {got.ravel()[:8]}\n"
                          f"  want {want.dtype}{want.shape} {want.ravel()[:8]}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
