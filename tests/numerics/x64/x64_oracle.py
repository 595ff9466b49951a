#!/usr/bin/python3
"""numpy oracle for shard with jax_enable_x64 on.

With x64 on, JAX computes in float64 / int64 where numpy does, so numpy (float64, int64) is
the reference for values and dtypes: each case is a jnp expression and its numpy twin,
evaluated on the same float64/int64 inputs, eagerly, under jit and on a sharded input. Values
must agree to rtol 1e-13 for float64 math (shard calls the same libm-quality functions, but
not the same ones), exactly for integer and exact float ops; dtypes must be equal. A second
program checks that the switch really moves precision: float64 results differ from their
float32 twins, and Python scalars are weak float64 / int64.

usage: x64_oracle.py SHARD_EXE [-v]
Prints `N passed, N failed` last; exit status 1 when anything failed.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

RNG = np.random.default_rng(20261201)

INPUTS = {
    "a": RNG.standard_normal((8, 6)),
    "b": RNG.standard_normal((8, 6)),
    "p": RNG.random((8, 6)) * 4 + 0.05,
    "u": RNG.random((8, 6)) * 1.8 - 0.9,
    "i": RNG.integers(-2**40, 2**40, (8, 6)),
    "k": RNG.integers(1, 50, (8, 6)),
    "c": RNG.standard_normal((6, 5)),
}

# (name, shard expression over the inputs, numpy reference, exact?)
CASES = [
    ("add", "a + b", lambda x: x["a"] + x["b"], True),
    ("mul_scalar", "a * 0.1", lambda x: x["a"] * 0.1, True),
    ("div", "a / p", lambda x: x["a"] / x["p"], True),
    ("sin", "jnp.sin(a)", lambda x: np.sin(x["a"]), False),
    ("exp", "jnp.exp(a)", lambda x: np.exp(x["a"]), False),
    ("log", "jnp.log(p)", lambda x: np.log(x["p"]), False),
    ("tanh", "jnp.tanh(a)", lambda x: np.tanh(x["a"]), False),
    ("sqrt", "jnp.sqrt(p)", lambda x: np.sqrt(x["p"]), True),
    ("arcsin", "jnp.arcsin(u)", lambda x: np.arcsin(x["u"]), False),
    ("sum", "jnp.sum(a, axis=0)", lambda x: np.sum(x["a"], axis=0), False),
    ("mean", "jnp.mean(a)", lambda x: np.mean(x["a"]), False),
    ("var", "jnp.var(a, axis=1)", lambda x: np.var(x["a"], axis=1), False),
    ("max", "jnp.max(a, axis=1)", lambda x: np.max(x["a"], axis=1), True),
    ("argmax", "jnp.argmax(a, axis=1)", lambda x: np.argmax(x["a"], axis=1), True),
    ("matmul", "a @ c", lambda x: x["a"] @ x["c"], False),
    ("cumsum", "jnp.cumsum(a, axis=1)", lambda x: np.cumsum(x["a"], axis=1), False),
    ("int_add", "i + k", lambda x: x["i"] + x["k"], True),
    ("int_mul_wide", "i * 3", lambda x: x["i"] * 3, True),
    ("int_floordiv", "i // k", lambda x: x["i"] // x["k"], True),
    ("int_sum", "jnp.sum(i, axis=0)", lambda x: np.sum(x["i"], axis=0), True),
    ("int32_sum_promotes", "jnp.sum(k.astype(jnp.int32))", lambda x: np.sum(x["k"].astype(np.int32)).astype(np.int64), True),
    ("int_true_div", "i / k", lambda x: x["i"] / x["k"], True),
    ("int_mean", "jnp.mean(k)", lambda x: np.mean(x["k"]), False),
    ("arange", "jnp.arange(7) * 2**33", lambda x: np.arange(7) * 2**33, True),
    ("arange_float", "jnp.arange(0.0, 1.0, 0.1)", lambda x: np.arange(0.0, 1.0, 0.1), False),
    ("linspace", "jnp.linspace(0.0, 1.0, 7)", lambda x: np.linspace(0.0, 1.0, 7), False),
    ("zeros", "jnp.zeros((2, 3)) + 1 / 3", lambda x: np.zeros((2, 3)) + 1 / 3, True),
    ("eye", "jnp.eye(3) * 0.1", lambda x: np.eye(3) * 0.1, True),
    ("wide_int", "jnp.array(2**40) + 1", lambda x: np.array(2**40) + 1, True),
    ("float_literal", "jnp.array(0.1) * 3", lambda x: np.array(0.1) * 3, True),
    ("where", "jnp.where(a > 0, a, 0.5)", lambda x: np.where(x["a"] > 0, x["a"], 0.5), True),
]

PLACEMENTS = [
    ("eager", None),
    ("jit", None),
    ("sharded", "P('x')"),
]


def program(tmp, placement, spec):
    lines = [
        "import jax",
        "jax.config.update('jax_enable_x64', True)",
        "import jax.numpy as jnp",
        "import numpy as np",
        "from jax.sharding import PartitionSpec as P, NamedSharding",
        "mesh = jax.make_mesh((2,), ('x',))",
    ]
    for name in INPUTS:
        lines.append(f"{name} = jnp.asarray(np.load({os.path.join(tmp, name + '.npy')!r}))")
        if spec:
            lines.append(f"{name} = jax.device_put({name}, NamedSharding(mesh, {spec}))")
    for idx, (cname, expr, _, _) in enumerate(CASES):
        out = os.path.join(tmp, f"{placement}_{idx}.npy")
        if placement == "eager":
            body = expr
        else:
            args = ", ".join(INPUTS)
            body = f"jax.jit(lambda {args}: {expr})({args})"
        lines.append("try:")
        lines.append(f"    r = {body}")
        lines.append(f"    np.save({out!r}, np.asarray(r))")
        lines.append(f"    print('dtype', {idx}, r.dtype)")
        lines.append("except Exception as e:")
        lines.append(f"    print('error', {idx}, type(e).__name__, e)")
    return "\n".join(lines) + "\n"


def run(shard, path):
    p = subprocess.run([shard, "--devices", "2", path], capture_output=True, text=True, timeout=600)
    return p.stdout + p.stderr


def main():
    shard = sys.argv[1]
    verbose = "-v" in sys.argv
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, arr in INPUTS.items():
            np.save(os.path.join(tmp, name + ".npy"), arr)
        for placement, spec in PLACEMENTS:
            path = os.path.join(tmp, f"{placement}.shard")
            with open(path, "w") as f:
                f.write(program(tmp, placement, spec))
            out = run(shard, path)
            dtypes, errors = {}, {}
            for line in out.splitlines():
                parts = line.split(" ", 2)
                if len(parts) == 3 and parts[0] == "dtype":
                    dtypes[int(parts[1])] = parts[2]
                elif len(parts) == 3 and parts[0] == "error":
                    errors[int(parts[1])] = parts[2]
            for idx, (cname, _, ref, exact) in enumerate(CASES):
                label = f"{placement}/{cname}"
                want = np.asarray(ref(INPUTS))
                if idx in errors:
                    # Sharded inputs whose dims a case reshapes may be refused by the rules.
                    if spec and errors[idx].startswith("ShardingTypeError"):
                        if verbose: print(f"skip {label}: {errors[idx]}")
                        continue
                    failed += 1
                    print(f"FAIL {label}: {errors[idx]}")
                    continue
                if idx not in dtypes:
                    failed += 1
                    print(f"FAIL {label}: no result\n{out[-2000:]}")
                    continue
                got = np.load(os.path.join(tmp, f"{placement}_{idx}.npy"))
                problems = []
                if dtypes[idx] != str(want.dtype):
                    problems.append(f"dtype {dtypes[idx]}, numpy {want.dtype}")
                if got.shape != want.shape:
                    problems.append(f"shape {got.shape}, numpy {want.shape}")
                elif exact and not np.array_equal(got, want):
                    problems.append(f"values differ (exact): max |diff| {np.max(np.abs(got - want))}")
                elif not exact and not np.allclose(got, want, rtol=1e-13, atol=1e-13):
                    problems.append(f"values differ: max |diff| {np.max(np.abs(got - want))}")
                if problems:
                    failed += 1
                    print(f"FAIL {label}: " + "; ".join(problems))
                else:
                    passed += 1
                    if verbose: print(f"ok {label}")
        # Precision really moves: the same program with x64 off gives float32 answers.
        path = os.path.join(tmp, "switch.shard")
        with open(path, "w") as f:
            f.write("\n".join([
                "import jax",
                "import jax.numpy as jnp",
                "print(jnp.array(1.0).dtype, (jnp.arange(3) + 1).dtype)",
                "jax.config.update('jax_enable_x64', True)",
                "print(jax.config.jax_enable_x64, jnp.array(1.0).dtype, (jnp.arange(3) + 1).dtype)",
                "print(repr(jnp.float32(1) + 0.1))",
                "print(jnp.array(0.1) * 3)",
                "print(jax.random.uniform(jax.random.key(0), (3,)).dtype)",
            ]) + "\n")
        out = run(shard, path).splitlines()
        want = ["float32 int32", "True float64 int64", "Array(1.1, dtype=float32)",
                repr(0.1 * 3).rstrip("0"), "float64"]
        for k, w in enumerate(want):
            got = out[k] if k < len(out) else "<missing>"
            if got == w:
                passed += 1
            else:
                failed += 1
                print(f"FAIL switch line {k + 1}: got {got!r}, want {w!r}")
        # JAX_ENABLE_X64 in the environment turns it on from the start, as in JAX.
        p = subprocess.run([shard, "-c", "import jax.numpy as jnp; print(jnp.ones(2).dtype, jnp.arange(2).dtype)"],
                           capture_output=True, text=True, timeout=120, env={**os.environ, "JAX_ENABLE_X64": "1"})
        if p.stdout.strip() == "float64 int64":
            passed += 1
        else:
            failed += 1
            print(f"FAIL JAX_ENABLE_X64=1: got {p.stdout.strip()!r} {p.stderr.strip()!r}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
