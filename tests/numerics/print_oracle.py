#!/usr/bin/python3
"""Oracle test for shard's array printing: numpy 1.24 (Debian's, /usr/bin/python3) is the oracle.

Generates a few hundred seeded arrays (ranks 0-4, empty and summarised shapes; float16/32/64,
int32/64, uint8/16/32, bool; magnitudes 1e-8..1e12, negatives, NaN/inf/-0.0, integer-valued
floats, random bit patterns), writes each as raw bytes plus shape/dtype to a temp dir, runs print_driver on
them and compares its output with numpy's str(), repr() and JAX's Array repr (JAX's __repr__
formula evaluated on numpy's array2string, since JAX itself is not installed).

usage: /usr/bin/python3 print_oracle.py [PATH_TO_print_driver]
Prints "N passed, N failed"; exits 1 on any mismatch, showing the first few diffs.
"""
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np

assert np.__version__.startswith("1.24"), f"oracle needs numpy 1.24, found {np.__version__}"

SEED = int(os.environ.get("SHARD_ORACLE_SEED", "20240601"))
CASES_PER_DTYPE = int(os.environ.get("SHARD_ORACLE_CASES", "110"))
MAX_DIFFS_SHOWN = 5

rng = np.random.default_rng(SEED)


def jax_repr(a):
    """jax.Array.__repr__ (jax/_src/array.py) for a fully addressable, non-weak array."""
    prefix = "Array("
    dtype_str = f"dtype={a.dtype.name})"
    line_width = np.get_printoptions()["linewidth"]
    if a.size == 0:
        s = f"[], shape={a.shape}"
    else:
        s = np.array2string(a, prefix=prefix, suffix=",", separator=", ",
                            max_line_width=line_width)
    last_line_len = len(s) - s.rfind("\n") + 1
    sep = " "
    if last_line_len + len(dtype_str) + 1 > line_width:
        sep = " " * len(prefix)
    return f"{prefix}{s},{sep}{dtype_str}"


# ---------------------------------------------------------------- shapes

BIG_SHAPES = [(1001,), (2000,), (40, 30), (5, 300), (300, 5), (3, 20, 20), (11, 11, 11),
              (2, 3, 13, 13), (1, 1001), (7, 7, 7, 7), (1000, 2), (4, 251),
              (1001, 1), (2, 1, 600), (1, 1, 1, 1002), (6, 6, 6, 6)]


def gen_shape():
    r = rng.random()
    if r < 0.10:
        return BIG_SHAPES[rng.integers(len(BIG_SHAPES))]
    if r < 0.16:  # empty, possibly of higher rank
        rank = int(rng.integers(1, 4))
        shape = [int(rng.integers(0, 4)) for _ in range(rank)]
        shape[int(rng.integers(rank))] = 0
        return tuple(shape)
    if r < 0.26:
        return ()
    rank = int(rng.choice([1, 1, 1, 2, 2, 2, 3, 3, 4]))
    hi = {1: 25, 2: 9, 3: 5, 4: 4}[rank]
    return tuple(int(rng.integers(1, hi)) for _ in range(rank))


# ---------------------------------------------------------------- values

def magnitude():
    return 10.0 ** rng.uniform(-8, 12)


def float_values(n, dtype):
    kind = rng.choice(["scaled", "scaled", "wide", "narrow_pos", "integers", "quarters",
                       "arange", "boundary", "bits", "tiny_huge", "zeros"])
    sign = np.where(rng.random(n) < 0.3, -1.0, 1.0)
    if kind == "scaled":
        v = rng.uniform(-1, 1, n) * magnitude()
    elif kind == "wide":
        lo = rng.uniform(-8, 12)
        hi = min(12.0, lo + rng.uniform(0, 6))
        v = sign * 10.0 ** rng.uniform(lo, hi, n)
    elif kind == "narrow_pos":
        lo = rng.uniform(-4, 7)
        v = 10.0 ** rng.uniform(lo, lo + 2.9, n)
    elif kind == "integers":
        v = rng.integers(-10 ** int(rng.integers(1, 9)), 10 ** int(rng.integers(1, 9)), n)
        v = v.astype(np.float64)
    elif kind == "quarters":
        v = rng.integers(-40, 40, n) / 4.0
    elif kind == "arange":
        v = np.arange(n) * float(rng.choice([1.0, 0.1, 0.5, 1e-3, 1e5, 3.0, 1 / 3]))
    elif kind == "boundary":
        pool = [1e-4, 9.99e-5, 1.0001e-4, 1e8, 99999999.0, 99999992.0, 1e3, 1.0, 0.5,
                1000.0001, 999.999, 1e-8, 1e12, 123456789.123, 0.1, 1 / 3, 2 / 3, 1e-5]
        v = sign * rng.choice(pool, n)
    elif kind == "bits":
        nbytes = np.dtype(dtype).itemsize
        raw = rng.integers(0, 2 ** (8 * nbytes), n, dtype=np.uint64)
        return raw.astype(f"u{nbytes}").view(dtype)
    elif kind == "tiny_huge":
        v = sign * rng.choice([1e-8, 1e-6, 1.0, 1e6, 1e10, 1e12, 5e-324, 1e-40, 1e300], n)
    else:
        v = np.zeros(n)
    with np.errstate(over="ignore", under="ignore"):
        v = v.astype(dtype)
    # sprinkle specials
    if n and rng.random() < 0.35:
        k = int(rng.integers(1, max(2, n // 4 + 1)))
        idx = rng.integers(0, n, k)
        v[idx] = rng.choice(np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype=dtype), k)
    if n and rng.random() < 0.04:
        v[:] = rng.choice(np.array([np.nan, np.inf, -np.inf, -0.0], dtype=dtype))
    return v


def int_values(n, dtype):
    info = np.iinfo(dtype)
    kind = rng.choice(["small", "pos", "wide", "full", "extremes"])
    if kind == "small":
        return rng.integers(-9, 10, n).astype(dtype)
    if kind == "pos":
        return rng.integers(0, 1000, n).astype(dtype)
    if kind == "wide":
        e = int(rng.integers(1, 9 if dtype == np.int32 else 18))
        return rng.integers(-10 ** e, 10 ** e, n).astype(dtype)
    if kind == "full":
        return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    return rng.choice(np.array([info.min, info.max, 0, -1, 1]).astype(dtype), n)  # -1 wraps for unsigned


def gen_array(dtype):
    shape = gen_shape()
    n = int(np.prod(shape)) if shape else 1
    if dtype == np.bool_:
        flat = rng.random(n) < rng.choice([0.0, 0.5, 1.0, 0.2])
    elif np.issubdtype(dtype, np.integer):
        flat = int_values(n, dtype)
    else:
        flat = float_values(n, dtype)
    return np.ascontiguousarray(np.asarray(flat, dtype=dtype).reshape(shape))


def build_cases():
    dtypes = [np.float32, np.float64, np.int32, np.int64, np.bool_, np.float16, np.uint8, np.uint16, np.uint32]
    cases = [gen_array(dt) for dt in dtypes for _ in range(CASES_PER_DTYPE)]
    # a few fixed classics
    cases += [np.arange(10.0), np.arange(12.0).reshape(3, 4), np.eye(3, dtype=np.float32),
              np.linspace(0, 1, 100), np.arange(24).reshape(2, 3, 4), np.array(1.5),
              np.array(np.float32(1e-4)), np.array(True), np.array(-0.0), np.array(np.nan),
              np.array(7, dtype=np.int32), np.zeros((0, 3), np.float32), np.zeros(0, bool),
              np.arange(2000, dtype=np.float32).reshape(2, 10, 100)]
    return cases


# ---------------------------------------------------------------- run

def find_driver():
    if len(sys.argv) > 1:
        return sys.argv[1]
    if os.environ.get("PRINT_DRIVER"):
        return os.environ["PRINT_DRIVER"]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    found = sorted(glob.glob(os.path.join(root, "build*", "tests", "numerics", "print_driver")))
    if not found:
        sys.exit("print_oracle: print_driver not found; pass its path")
    return found[0]


def parse_records(out):
    """Records are '<id> <kind> <nbytes>\\n<text>\\n'."""
    records, pos = {}, 0
    while pos < len(out):
        nl = out.index(b"\n", pos)
        cid, kind, nbytes = out[pos:nl].decode().split()
        start = nl + 1
        records[(cid, kind)] = out[start:start + int(nbytes)].decode()
        pos = start + int(nbytes) + 1
    return records


def main():
    driver = find_driver()
    cases = build_cases()
    with tempfile.TemporaryDirectory(prefix="shard_print_oracle_") as tmp:
        with open(os.path.join(tmp, "cases.txt"), "w") as manifest:
            for i, a in enumerate(cases):
                name = "bool" if a.dtype == np.bool_ else a.dtype.name
                manifest.write(f"{i} {name} {a.ndim} {' '.join(map(str, a.shape))}\n")
                with open(os.path.join(tmp, f"{i}.bin"), "wb") as f:
                    f.write(a.tobytes())
        proc = subprocess.run([driver, tmp], capture_output=True, timeout=600)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr.decode())
        print(f"0 passed, {len(cases)} failed")
        return 1
    got = parse_records(proc.stdout)
    passed = failed = 0
    shown = 0
    for i, a in enumerate(cases):
        expected = {"str": str(a), "repr": repr(a), "jax": jax_repr(a)}
        bad = [(k, v) for k, v in expected.items() if got.get((str(i), k)) != v]
        if not bad:
            passed += 1
            continue
        failed += 1
        if shown < MAX_DIFFS_SHOWN:
            shown += 1
            print(f"--- case {i}: dtype={a.dtype.name} shape={a.shape}")
            for kind, want in bad:
                print(f"  [{kind}] numpy:\n{want}\n  [{kind}] shard:\n{got.get((str(i), kind))}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
