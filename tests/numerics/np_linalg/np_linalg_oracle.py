#!/usr/bin/python3
"""numpy oracle for shard's host numpy.linalg.

Writes float64 (and float32 / int64) inputs as .npy files; every case is one numpy expression
(with `L = np.linalg`) that a generated .shard program evaluates with shard's numpy and
np.save()s (each element of a tuple result apart), and that numpy 1.24 evaluates here on the
same inputs (where numpy raises, shard must raise the same exception type and message). Results must have numpy's dtype and shape, and agree to 1e-12 in float64 (relative
to the result's largest magnitude, elementwise too) and 2e-6 in float32 (numpy computes float32
input in float64 and rounds once, as shard does). Both use OpenBLAS's LAPACK (getrf, potrf,
geqrf / orgqr, gesdd, syevd), so eigenvectors and singular vectors are compared as they are,
signs included.

usage: np_linalg_oracle.py SHARD_EXE [-v] [-k SUBSTRING] [--keep DIR]
Prints `N passed, N failed` last; exit status 1 when anything failed.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

RNG = np.random.default_rng(20261202)


def make_inputs():
    g = lambda *s: RNG.standard_normal(s)
    spd = lambda n, *b: (lambda m: m @ np.swapaxes(m, -1, -2) + n * np.eye(n))(g(*(b + (n, n))))
    t = g(6, 4)
    x = {
        "A": g(4, 4) + 4 * np.eye(4),              # well conditioned
        "N": g(5, 5),                              # general: pivoting, either sign of det
        "S": spd(5),                               # symmetric positive definite
        "AB": g(3, 4, 4) + 4 * np.eye(4),          # a batch
        "SB": spd(4, 3),
        "b": g(4),
        "B": g(4, 3),
        "BB": g(3, 4, 3),
        "T": t,                                    # tall
        "W": g(3, 5),                              # wide
        "R": g(5, 2) @ g(2, 4),                    # rank 2
        "y": g(6),
        "Y": g(6, 2),
        "X": g(4, 6, 8, 3),                        # tensorinv / tensorsolve
        "Z": g(2, 3, 6),
        "I": np.array([[2, 1, 0], [1, 3, 1], [0, 1, 4]], np.int64),
    }
    x["F"] = x["A"].astype(np.float32)
    x["FS"] = x["S"].astype(np.float32)
    x["FT"] = x["T"].astype(np.float32)
    x["FB"] = x["B"].astype(np.float32)
    return x


C = []  # (name, expression, tolerance: None = by dtype, "exact")


def add(expr, tol=None, name=None):
    C.append((name or expr, expr, tol))


# inv, solve
for e in ["L.inv(A)", "L.inv(N)", "L.inv(AB)", "L.inv(I)", "L.inv(F)", "L.inv([[2, 1], [1, 3]])", "L.inv(np.zeros((0, 0)))"]:
    add(e)
for e in ["L.solve(A, b)", "L.solve(A, B)", "L.solve(AB, BB)", "L.solve(AB, BB[:, :, 0])", "L.solve(AB, B)", "L.solve(A, BB)",
          "L.solve(N, N.T)", "L.solve(F, b)", "L.solve(F, FB)", "L.solve(I, [1, 2, 3])", "L.solve(AB[:1], BB)"]:
    add(e)
# det, slogdet
for e in ["L.det(A)", "L.det(N)", "L.det(AB)", "L.det(I)", "L.det(F)", "L.det(np.ones((3, 3)))", "L.det([[1., 2.], [2., 4.]])",
          "L.det(np.zeros((0, 0)))", "L.slogdet(N)", "L.slogdet(-N)", "L.slogdet(AB)", "L.slogdet(F)", "L.slogdet(np.ones((3, 3)))",
          "L.slogdet(np.zeros((2, 0, 0)))", "L.slogdet(I)"]:
    add(e)
# cholesky
for e in ["L.cholesky(S)", "L.cholesky(SB)", "L.cholesky(FS)", "L.cholesky(np.tril(S))", "L.cholesky([[4, 2], [2, 3]])",
          "L.cholesky([[np.nan]])", "L.cholesky([[1., 0.], [np.nan, 5.]])", "L.cholesky([[1., np.nan], [2., 5.]])"]:
    add(e)
# qr
for e in ["L.qr(T)", "L.qr(T, mode='complete')", "L.qr(W)", "L.qr(W, 'complete')", "L.qr(T, mode='r')", "L.qr(W, mode='r')",
          "L.qr(AB)", "L.qr(FT)", "L.qr(A)", "L.qr(I)"]:
    add(e)
# svd
for e in ["L.svd(T)", "L.svd(T, full_matrices=False)", "L.svd(W)", "L.svd(W, False)", "L.svd(AB, compute_uv=False)",
          "L.svd(AB)", "L.svd(FT, compute_uv=False)", "L.svd(FT, full_matrices=False)", "L.svd(I)", "L.svd(R, compute_uv=False)",
          "L.svd(np.array([[np.inf, 0.], [0., 1.]]), compute_uv=False)", "L.svd(S, hermitian=True)",
          "L.svd(S - 8 * np.eye(5), hermitian=True)", "L.svd(SB - 6 * np.eye(4), hermitian=True)",
          "L.svd(S - 8 * np.eye(5), compute_uv=False, hermitian=True)", "L.svd(FS - 8 * np.eye(5), hermitian=True)",
          "L.svd(np.diag([2., 0., -3.]), hermitian=True)"]:
    add(e)
# eigh, eigvalsh
for e in ["L.eigh(S)", "L.eigh(S, UPLO='U')", "L.eigh(S, 'u')", "L.eigh(np.tril(S))", "L.eigh(SB)", "L.eigh(FS)", "L.eigh(I)",
          "L.eigvalsh(N)", "L.eigvalsh(N, 'U')", "L.eigvalsh(SB)", "L.eigvalsh(I)", "L.eigvalsh(FS)"]:
    add(e)
# norm
for e in ["L.norm(A)", "L.norm(b)", "L.norm(b, 1)", "L.norm(b, np.inf)", "L.norm(b, -np.inf)", "L.norm(b, 0)", "L.norm(b, 3)",
          "L.norm(b, -1)", "L.norm(b, 0.5)", "L.norm(b, 2)", "L.norm(A, 'fro')", "L.norm(A, 'nuc')", "L.norm(A, 1)", "L.norm(A, -1)",
          "L.norm(A, 2)", "L.norm(A, -2)", "L.norm(A, np.inf)", "L.norm(A, -np.inf)", "L.norm(AB, axis=(1, 2))",
          "L.norm(AB, 2, axis=(2, 1))", "L.norm(AB, 'nuc', axis=(0, 2), keepdims=True)", "L.norm(AB, 1, axis=(0, 2))",
          "L.norm(AB, -np.inf, axis=(2, 0), keepdims=True)", "L.norm(T, axis=0)", "L.norm(T, axis=1, keepdims=True)",
          "L.norm(T, 3, axis=-1)", "L.norm(T, 0, axis=0)", "L.norm(AB, keepdims=True)", "L.norm(AB)", "L.norm(I)", "L.norm(I, 1)",
          "L.norm(I, 'nuc')", "L.norm(F)", "L.norm(F, 2)", "L.norm(F, 'nuc')", "L.norm(F, axis=0)", "L.norm(FT, 3, axis=0)",
          "L.norm(F, np.inf)", "L.norm([3, 4])", "L.norm(T, axis=1.0)", "L.norm(np.zeros((0, 3)), axis=0)"]:
    add(e)
# pinv
for e in ["L.pinv(T)", "L.pinv(W)", "L.pinv(R, rcond=1e-10)", "L.pinv(R, 0.5)", "L.pinv(AB)", "L.pinv(FT)", "L.pinv(np.ones((3, 4)))",
          "L.pinv(np.zeros((2, 0)))", "L.pinv(I)", "L.pinv(AB, rcond=np.array([0.1, 0.2, 0.3]))",
          "L.pinv(S - 8 * np.eye(5), hermitian=True)", "L.pinv(np.diag([2., 0., -3.]), hermitian=True)"]:
    add(e)
# matrix_power
for e in ["L.matrix_power(A, 0)", "L.matrix_power(A, 1)", "L.matrix_power(A, 2)", "L.matrix_power(A, 3)", "L.matrix_power(A, 5)",
          "L.matrix_power(A, 12)", "L.matrix_power(A, -1)", "L.matrix_power(A, -3)", "L.matrix_power(I, 4)", "L.matrix_power(I, 0)",
          "L.matrix_power(AB, 3)", "L.matrix_power(F, 2)", "L.matrix_power(I, -2)"]:
    add(e)
# matrix_rank
for e in ["L.matrix_rank(A)", "L.matrix_rank(R)", "L.matrix_rank(AB)", "L.matrix_rank(R, tol=0.5)", "L.matrix_rank(R, 1e-8)",
          "L.matrix_rank(np.ones(3))", "L.matrix_rank(np.zeros(3))", "L.matrix_rank(S, hermitian=True)", "L.matrix_rank(FT)",
          "L.matrix_rank(np.eye(4))", "L.matrix_rank(np.ones((2, 3, 3)))", "L.matrix_rank(I)", "L.matrix_rank(5)",
          "L.matrix_rank(R.T @ R, hermitian=True)", "L.matrix_rank(S - 8 * np.eye(5), hermitian=True)"]:
    add(e)
# lstsq
for e in ["L.lstsq(T, y, rcond=None)", "L.lstsq(T, Y, rcond=None)", "L.lstsq(W, b[:3], rcond=None)", "L.lstsq(R, y[:5], rcond=None)",
          "L.lstsq(R, y[:5], rcond=-1)", "L.lstsq(T, y, rcond=0.5)", "L.lstsq(T, y, rcond=2)", "L.lstsq(FT, FT[:, 0] + 1, rcond=None)",
          "L.lstsq(FT, y, rcond=None)", "L.lstsq(I, [1, 2, 3], rcond=None)", "L.lstsq(A, B, rcond=None)",
          "L.lstsq(np.ones((2, 0)), np.ones(2), rcond=None)", "L.lstsq(np.ones((0, 2)), np.ones(0), rcond=None)",
          "L.lstsq(T, np.ones((6, 0)), rcond=None)"]:
    add(e)
# cond
for e in ["L.cond(A)", "L.cond(A, 2)", "L.cond(A, -2)", "L.cond(A, 1)", "L.cond(A, -1)", "L.cond(A, np.inf)", "L.cond(A, -np.inf)",
          "L.cond(A, 'fro')", "L.cond(A, 'nuc')", "L.cond(AB)", "L.cond(AB, 1)", "L.cond(T)", "L.cond(W, -2)", "L.cond(F, 1)", "L.cond(F)",
          "L.cond(I, 'fro')", "L.cond([[1., 2.], [2., 4.]], 1)", "L.cond([[1., 2.], [2., 4.]])",
          "L.cond(np.stack([A[:2, :2], np.array([[1., 2.], [2., 4.]])]), 'fro')", "L.cond([[1., np.nan], [2., 4.]], 'fro')"]:
    add(e)
# multi_dot
for e in ["L.multi_dot([A, A])", "L.multi_dot([T, A, B])", "L.multi_dot([b, A, A, b])", "L.multi_dot([T.T, T, A, b])",
          "L.multi_dot([b, A, B])", "L.multi_dot([W, T[:5].T @ T[:5], A, B])", "L.multi_dot([I, I, I])", "L.multi_dot([b, b])", "L.multi_dot([A, A, A])",
          "L.multi_dot([I, A[:3], T[:3].T])"]:
    add(e)
# tensorinv, tensorsolve
for e in ["L.tensorinv(X)", "L.tensorinv(Z.reshape(6, 2, 3), ind=1)", "L.tensorinv(X.reshape(24, 4, 6), 1)",
          "L.tensorsolve(X, X[:, :, 0, 0])", "L.tensorsolve(Z, Z[:, :, 0])", "L.tensorsolve(np.transpose(Z, (2, 0, 1)), Z[:, :, 1], axes=(0,))",
          "L.tensorsolve(X.reshape(24, 24), np.repeat(y, 4))"]:
    add(e)


# mixed dtypes
for e in ["L.solve(F, [1, 2, 3, 4])", "L.solve(I, np.ones(3, np.float32))", "L.lstsq(FT, np.arange(6), rcond=None)",
          "L.norm(F, 0.5, axis=1)", "L.norm(FT, -np.inf, axis=0)", "L.cond(F, 'nuc')", "L.cond(F, -2)", "L.pinv(F, rcond=0.3)",
          "L.matrix_rank(F, tol=1.0)", "L.slogdet(np.array([[True, False], [True, True]]))", "L.eigh(np.array([[2, 1], [1, 2]], np.int32))",
          "L.svd(np.arange(12).reshape(3, 4), full_matrices=False)", "L.tensorsolve(X.astype(np.float32), X[:, :, 0, 0].astype(np.float32))",
          "L.tensorinv(X.astype(np.float32))", "L.multi_dot([F, F, F, b])"]:
    add(e)
# empty matrices and stacks
for e in ["L.eigh(np.zeros((0, 0)))", "L.eigvalsh(np.zeros((2, 0, 0)))", "L.cholesky(np.zeros((0, 0)))", "L.qr(np.zeros((0, 3)))",
          "L.qr(np.zeros((3, 0)))", "L.svd(np.zeros((0, 3)))", "L.svd(np.zeros((2, 3, 0)), compute_uv=False)",
          "L.solve(np.zeros((0, 0)), np.zeros(0))", "L.solve(np.zeros((0, 2, 2)), np.zeros((0, 2)))", "L.inv(np.zeros((0, 3, 3)))",
          "L.det(np.zeros((0, 3, 3)))", "L.norm(np.zeros(0))", "L.norm(np.zeros((0, 3)))", "L.matrix_power(np.zeros((0, 0)), 3)",
          "L.pinv(np.zeros((0, 2, 2)))", "L.cond(np.zeros((0, 2, 2)))", "L.matrix_rank(np.zeros((0, 2, 2)))"]:
    add(e)


def program(inputs_dir, out_dir, x):
    lines = ["import numpy as np", "L = np.linalg"]
    for name in x:
        lines.append(f"{name} = np.load({os.path.join(inputs_dir, name + '.npy')!r})")
    for k, (_name, expr, _tol) in enumerate(C):
        base = os.path.join(out_dir, f"v{k}")
        lines += ["try:", f"    r = {expr}",
                  "    if isinstance(r, tuple):",
                  "        for i, e in enumerate(r):",
                  f"            np.save({base!r} + '_' + str(i) + '.npy', np.asarray(e))",
                  f"        print('TUPLE v{k}', len(r))",
                  "    else:",
                  f"        np.save({base!r} + '.npy', np.asarray(r))",
                  "except Exception as e:", f"    print('CASE v{k}', type(e).__name__ + ':', str(e).replace(chr(10), ' '))"]
    return "\n".join(lines) + "\n"


def compare(out, ref, tol):
    ref = np.asarray(ref)
    if ref.dtype == np.int32 and ref.ndim == 0:  # lstsq's rank, a numpy int32; shard's is a Python int
        ref = ref.astype(np.int64)
    if out.shape != ref.shape:
        return f"shape {out.shape}, expected {ref.shape}"
    if out.dtype != ref.dtype:
        return f"dtype {out.dtype}, expected {ref.dtype}"
    if tol == "exact" or ref.dtype.kind in "biu":
        return None if np.array_equal(out, ref) else f"values differ: got {out.ravel()[:8]}, expected {ref.ravel()[:8]}"
    if tol is None:
        tol = 2e-6 if ref.dtype == np.float32 else 1e-12
    o, r = out.astype(np.float64), ref.astype(np.float64)
    finite = np.isfinite(r)
    if not np.array_equal(np.isnan(o), np.isnan(r)) or not np.array_equal(o[np.isinf(r)], r[np.isinf(r)]):
        return f"non-finite values differ: got {out.ravel()[:8]}, expected {ref.ravel()[:8]}"
    scale = float(np.max(np.abs(r[finite]))) if finite.any() else 0.0
    if np.allclose(o[finite], r[finite], rtol=tol, atol=tol * scale):
        return None
    diff = np.where(finite, np.abs(o - r), 0)
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
    global C
    C = [c for c in C if only is None or only in c[0]]
    work = keep or tempfile.mkdtemp(prefix="np_linalg_oracle_")
    inputs_dir, out_dir = os.path.join(work, "inputs"), os.path.join(work, "out")
    os.makedirs(inputs_dir, exist_ok=True)
    os.makedirs(out_dir, exist_ok=True)
    for f in os.listdir(out_dir):
        os.remove(os.path.join(out_dir, f))
    for name, arr in x.items():
        np.save(os.path.join(inputs_dir, name + ".npy"), arr)
    env = {"np": np, "L": np.linalg}
    env.update({name: np.load(os.path.join(inputs_dir, name + ".npy")) for name in x})
    prog = os.path.join(work, "prog.shard")
    with open(prog, "w") as f:
        f.write(program(inputs_dir, out_dir, x))
    proc = subprocess.run([shard, prog], capture_output=True, text=True, timeout=1200)
    errors, tuples = {}, {}
    for line in proc.stdout.splitlines():
        if line.startswith("CASE "):
            _, k, msg = line.split(" ", 2)
            errors[k] = msg
        elif line.startswith("TUPLE "):
            _, k, n = line.split(" ")
            tuples[k] = int(n)
    passed = failed = 0
    if proc.returncode != 0:
        print(f"shard exited with {proc.returncode}:\n{proc.stderr[-3000:]}")
        failed += 1
    for k, (name, expr, tol) in enumerate(C):
        key = f"v{k}"
        try:
            with np.errstate(all="ignore"):
                ref = eval(expr, dict(env))
            expected_error = None
        except Exception as e:  # numpy's error: shard must raise the same type and message
            expected_error = type(e).__name__ + ": " + str(e).replace(chr(10), " ")
        problem = None
        if expected_error is not None:
            if errors.get(key) != expected_error:
                problem = f"expected {expected_error!r}, got {errors.get(key, 'a result')!r}"
        elif key in errors:
            problem = errors[key][:400]
        elif isinstance(ref, tuple):
            if tuples.get(key) != len(ref):
                problem = f"expected a tuple of {len(ref)}, got {tuples.get(key, 'no tuple')}"
            for i, part in enumerate(ref):
                path = os.path.join(out_dir, f"{key}_{i}.npy")
                if problem is None:
                    problem = "no result" if not os.path.exists(path) else compare(np.load(path), part, tol)
                    if problem:
                        problem = f"[{i}] {problem}"
        else:
            path = os.path.join(out_dir, f"{key}.npy")
            if key in tuples:
                problem = "a tuple, expected one array"
            else:
                problem = "no result" if not os.path.exists(path) else compare(np.load(path), ref, tol)
        if problem:
            failed += 1
            print(f"FAIL {name}: {problem}")
        else:
            passed += 1
            if verbose:
                print(f"ok {name}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
