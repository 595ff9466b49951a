#!/usr/bin/python3
"""numpy oracle for shard's host numpy.random: its streams must equal numpy's bit for bit.

Writes one plain-numpy program that draws every case (Generator over PCG64: random, uniform,
integers, standard_normal / normal and standard_exponential / exponential in float64 and
float32, permutation, shuffle, choice; the legacy MT19937 API: seed, rand, randn, random,
standard_normal, normal, uniform, exponential, randint, choice, permutation, shuffle,
RandomState objects, get_state / set_state) over many seeds and sizes and prints each result
as repr() of Python data (exact for floats). The same file runs under numpy (Debian's
/usr/bin/python3) and under shard; every case's line must be identical.

usage: np_random_oracle.py SHARD_EXE [-v] [--keep FILE]
Prints `N passed, N failed` last (N = cases; the values compared are counted too); exit
status 1 when anything failed.
"""
import os
import subprocess
import sys
import tempfile

SEEDS = [0, 1, 2, 42, 1234, 99991, 2**32 - 1, 2**32 + 7, 2**62 + 5, "[7, 2**32 + 1, 3]"]
SIZES = ["None", "1", "7", "(3, 4)", "(2, 3, 5)", "1000"]
BIG = "20000"  # enough draws to reach the ziggurats' tails and wedges many times


def generator_cases():
    out = []
    for s in SEEDS:
        g = f"np.random.default_rng({s})"
        for size in SIZES + ([BIG] if s in SEEDS[:3] else []):
            out.append(f"{g}.standard_normal({size})")
            out.append(f"{g}.standard_exponential({size})")
        for size in SIZES + (["5000"] if s in SEEDS[:3] else []):
            out.append(f"{g}.standard_normal({size}, dtype=np.float32)")
            out.append(f"{g}.standard_exponential({size}, dtype=np.float32)")
            out.append(f"{g}.standard_exponential({size}, method='inv')")
            out.append(f"{g}.normal(1.5, 2.0, {size})")
            out.append(f"{g}.normal(size={size})")
            out.append(f"{g}.exponential(3.0, {size})")
            out.append(f"{g}.random({size})")
            out.append(f"{g}.random({size}, dtype=np.float32)")
            out.append(f"{g}.uniform(-2.0, 5.0, {size})")
            out.append(f"{g}.integers(-7, 1000, {size})")
            out.append(f"{g}.integers(0, 2**40, {size})")
            out.append(f"{g}.integers(5, size={size}, dtype=np.int32)")
            out.append(f"{g}.integers(0, 2, {size}, dtype=bool)")
            out.append(f"{g}.integers(1, 6, {size}, endpoint=True)")
        # One generator through a mix of methods: the 32-bit half buffered by float32 and
        # small-range draws must carry over into the 64-bit ones exactly as in numpy.
        out.append(f"mixed({g})")
        out.append(f"into_out({g})")
        for n in [0, 1, 2, 10, 100, 3000]:
            out.append(f"{g}.permutation({n})")
        out.append(f"{g}.permutation(np.arange(12.0).reshape(4, 3))")
        out.append(f"{g}.permutation([3, 1, 4, 1, 5, 9, 2, 6])")
        out.append(f"shuffled_list({g})")
        out.append(f"shuffled_array({g})")
        out.append(f"{g}.choice(5)")
        out.append(f"{g}.choice(10, 6)")
        out.append(f"{g}.choice(10, (2, 3), replace=False)")
        out.append(f"{g}.choice(20000, 300, replace=False)")
        out.append(f"{g}.choice(20000, 1000, replace=False)")
        out.append(f"{g}.choice(20000, 300, replace=False, shuffle=False)")
        out.append(f"{g}.choice(100, 30, replace=False, shuffle=False)")
        out.append(f"{g}.choice([10.5, 20.5, 30.5, 40.5], 7, p=[0.1, 0.2, 0.3, 0.4])")
        out.append(f"{g}.choice(6, 4, replace=False, p=[0.05, 0.3, 0.05, 0.2, 0.2, 0.2])")
        out.append(f"{g}.choice(np.arange(8) * 3, 5, replace=False)")
        out.append(f"{g}.choice([1.5, 2.5, 3.5])")
        # Array parameters broadcast against each other and size=, drawn in C order.
        out.append(f"{g}.normal([0.0, 10.0, 100.0], 2.0)")
        out.append(f"{g}.normal(np.arange(3.0), [[1.0], [0.5]])")
        out.append(f"{g}.normal(0.0, [1.0, 2.0], size=(3, 2))")
        out.append(f"{g}.uniform([0.0, 5.0], [1.0, 15.0], size=(2, 2))")
        out.append(f"{g}.uniform(np.zeros((2, 1)), np.arange(1.0, 4.0))")
        out.append(f"{g}.exponential([1.0, 0.5, 4.0])")
        out.append(f"{g}.exponential(np.ones((2, 3)), size=(4, 2, 3))")
        # The gamma family (on the ziggurats; float32 on the float ones).
        for shape in ["0.0", "0.3", "1.0", "2.5", "[0.5, 1.0, 7.0]"]:
            out.append(f"{g}.standard_gamma({shape}, size=(50, 3) if isinstance({shape}, list) else 200)")
            out.append(f"{g}.standard_gamma({shape}, size=(50, 3) if isinstance({shape}, list) else 200, dtype=np.float32)")
        out.append(f"{g}.gamma(3.0, 2.0, size=100)")
        out.append(f"{g}.gamma([0.5, 4.0], [[1.0], [3.0]])")
        out.append(f"{g}.gamma(2.0)")
        for ab in ["0.5, 0.5", "0.3, 0.9", "2.0, 5.0", "0.5, 3.0", "[0.5, 2.0], 1.5"]:
            out.append(f"{g}.beta({ab}, size=(40, 2))")
    return out


def legacy_cases():
    out = []
    for s in [0, 1, 42, 1234, 2**32 - 1, "[1, 2, 3]", "[0]", "[2**32 - 1, 5, 7, 11]"]:
        rs = f"np.random.RandomState({s})"
        for size in SIZES + ([BIG] if s == 0 else []):
            out.append(f"{rs}.standard_normal({size})")
            out.append(f"{rs}.random_sample({size})")
        for size in SIZES:
            out.append(f"{rs}.normal(-1.0, 0.5, {size})")
            out.append(f"{rs}.normal(size={size})")
            out.append(f"{rs}.uniform(3.0, 4.0, {size})")
            out.append(f"{rs}.exponential(2.0, {size})")
            out.append(f"{rs}.standard_exponential({size})")
            out.append(f"{rs}.randint(-3, 17, {size})")
            out.append(f"{rs}.randint(10, size={size}, dtype=np.int32)")
            out.append(f"{rs}.randint(0, 2**40, {size})")
            out.append(f"{rs}.randint(-2**62, 2**62, {size})")
            out.append(f"{rs}.randint(0, 2, {size}, dtype=bool)")
            out.append(f"{rs}.random({size})")
        out.append(f"legacy_mixed({rs})")
        for n in [0, 1, 2, 10, 100, 3000]:
            out.append(f"{rs}.permutation({n})")
        out.append(f"{rs}.permutation(np.arange(12.0).reshape(4, 3))")
        out.append(f"shuffled_list({rs})")
        out.append(f"shuffled_array({rs})")
        out.append(f"{rs}.choice(5)")
        out.append(f"{rs}.choice(10, 6)")
        out.append(f"{rs}.choice(10, (2, 3), replace=False)")
        out.append(f"{rs}.choice(20000, 300, replace=False)")
        out.append(f"{rs}.choice([10.5, 20.5, 30.5, 40.5], 7, p=[0.1, 0.2, 0.3, 0.4])")
        out.append(f"{rs}.choice(6, 4, replace=False, p=[0.05, 0.3, 0.05, 0.2, 0.2, 0.2])")
        out.append(f"{rs}.choice([1.5, 2.5, 3.5])")
        out.append(f"state_roundtrip({rs})")
        out.append(f"{rs}.normal([0.0, 10.0, 100.0], 2.0)")
        out.append(f"{rs}.normal(np.arange(3.0), [[1.0], [0.5]], size=(2, 3))")
        out.append(f"{rs}.uniform([0.0, 5.0], [1.0, 15.0])")
        out.append(f"{rs}.uniform(5.0, 2.0, 3)")
        out.append(f"{rs}.exponential([[1.0, 0.5, 4.0]], size=(2, 3))")
        for shape in ["0.3", "1.0", "2.5"]:
            out.append(f"{rs}.standard_gamma({shape}, 200)")
        out.append(f"{rs}.gamma([0.5, 4.0], 2.0, size=(30, 2))")
        for ab in ["0.5, 0.5", "2.0, 5.0", "0.5, 3.0"]:
            out.append(f"{rs}.beta({ab}, 100)")
    # The module functions share numpy's global RandomState.
    for s in [0, 7, 2024, 2**32 - 1]:
        out.append(f"module_stream({s})")
    return out


PRELUDE = '''import numpy as np


def show(x):
    if isinstance(x, np.ndarray):
        return repr((str(x.dtype), x.shape, x.tolist()))
    if isinstance(x, (list, tuple)):
        return repr([show(v) for v in x])
    if isinstance(x, str):
        return repr(x)
    # numpy returns numpy scalars where shard returns Python ones: compare by kind.
    kind = type(x).__name__
    if kind in ("bool", "bool_"):
        return repr(("bool", bool(x)))
    if kind in ("int", "int64", "int32", "uint32", "uint64"):
        return repr(("int", int(x)))
    return repr(("float", float(x)))


def mixed(g):
    return [g.random(dtype=np.float32), g.integers(0, 10, 3), g.standard_normal(3), g.integers(0, 2, 5, dtype=bool),
            g.standard_normal(dtype=np.float32), g.standard_exponential(2), g.random(3, dtype=np.float32), g.random(),
            g.integers(0, 2**33, 2), g.standard_exponential(3, dtype=np.float32), g.normal(), g.choice(7, 3)]


def into_out(g):
    a = np.zeros((3, 2))
    r = g.standard_normal(out=a)
    b = np.ones(4, dtype=np.float32)
    g.random(out=b, dtype=np.float32)
    c = np.empty(5)
    g.standard_exponential(size=5, out=c)
    d = np.empty((2, 2))
    g.standard_gamma([[0.5, 2.0]], out=d)
    return [a, r is a, b, c, d]


def legacy_mixed(r):
    return [r.randn(3), r.rand(), r.randn(), r.randint(5), r.normal(), r.randn(2, 2), r.standard_normal(), r.rand(2, 3),
            r.randint(0, 2**35), r.uniform(), r.randn()]


def shuffled_list(g):
    x = list(range(20))
    g.shuffle(x)
    return x


def shuffled_array(g):
    x = np.arange(30).reshape(10, 3)
    g.shuffle(x)
    y = np.arange(9.0)
    g.shuffle(y)
    return [x, y]


def state_roundtrip(r):
    r.randn()  # leave a cached normal
    st = r.get_state()
    a = [r.randn(), r.rand(3), r.randint(0, 100, 4)]
    r.set_state(st)
    b = [r.randn(), r.rand(3), r.randint(0, 100, 4)]
    d = r.get_state(legacy=False)
    c = [r.randn(), r.rand(2)]
    r.set_state(d)
    e = [r.randn(), r.rand(2)]
    return [st[0], int(st[1].sum()), st[1].dtype.name, st[2], st[3], st[4], a, b, d["bit_generator"], d["state"]["pos"],
            int(d["state"]["key"][5]), c, e]


def module_stream(s):
    np.random.seed(s)
    out = [np.random.rand(3), np.random.randn(5), np.random.random(), np.random.random_sample((2,)), np.random.randint(0, 50, 6),
           np.random.normal(2.0, 3.0, 3), np.random.uniform(-1.0, 1.0, 2), np.random.standard_normal(), np.random.choice(9, 4),
           np.random.choice(9, 4, replace=False), np.random.permutation(8), np.random.exponential(1.5, 2),
           np.random.gamma(2.0, size=3), np.random.beta(0.5, 0.5, 2), np.random.standard_gamma(0.5, 2)]
    x = list(range(6))
    np.random.shuffle(x)
    out.append(x)
    np.random.seed([s, 3])
    out.append(np.random.rand(2))
    st = np.random.get_state()
    out.append(np.random.randn(3))
    np.random.set_state(st)
    out.append(np.random.randn(3))
    return out


'''


def program(cases):
    lines = [PRELUDE]
    for i, c in enumerate(cases):
        lines.append(f"print({i}, show({c}))")
    return "\n".join(lines) + "\n"


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 2
    shard = args[0]
    verbose = "-v" in args
    keep = args[args.index("--keep") + 1] if "--keep" in args else None
    cases = generator_cases() + legacy_cases()
    src = program(cases)
    with tempfile.TemporaryDirectory() as d:
        path = keep or os.path.join(d, "np_random_cases.py")
        with open(path, "w") as f:
            f.write(src)
        want = subprocess.run(["/usr/bin/python3", path], capture_output=True, text=True, timeout=600)
        if want.returncode != 0:
            print("numpy run failed:\n" + want.stderr[-3000:])
            print("0 passed, 1 failed")
            return 1
        got = subprocess.run([shard, path], capture_output=True, text=True, timeout=1200)
    want_lines = want.stdout.splitlines()
    got_lines = got.stdout.splitlines()
    if got.returncode != 0:
        print(f"shard exited {got.returncode} after {len(got_lines)} of {len(cases)} cases:\n" + got.stderr[-3000:])
    passed = failed = values = 0
    for i, case in enumerate(cases):
        w = want_lines[i] if i < len(want_lines) else None
        g = got_lines[i] if i < len(got_lines) else None
        if w is not None and w == g:
            passed += 1
            values += w.count(",") + 1
            if verbose:
                print(f"ok   {case}")
        else:
            failed += 1
            print(f"FAIL {case}")
            print(f"  numpy: {(w or '<missing>')[:400]}")
            print(f"  shard: {(g or '<missing>')[:400]}")
    print(f"compared about {values} values in {len(cases)} cases")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
