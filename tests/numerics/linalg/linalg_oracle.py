#!/usr/bin/python3
"""numpy oracle for jax.numpy.linalg and jax.lax.linalg in shard.

Writes random float32 matrices as .npy files, generates one .shard program per placement
(unsharded; batch dim sharded on an Explicit and on an Auto mesh) that evaluates every case and
np.save()s its result, and compares with numpy in float64:
  - values: solve, inv, det, slogdet, cholesky, eigh, qr, svd, pinv, matrix_power, lu,
    triangular_solve, on single and batched (..., n, n) matrices, eagerly, under jit and
    under vmap. Decompositions unique only up to signs are compared through sign-free
    quantities (eigenvalues, |eigenvector| columns, reconstructions, r with a positive
    diagonal, singular values);
  - gradients: jax.grad of sum(W * f(x)) against central finite differences of the numpy
    function in float64.
A case the sharding rules reject on an Explicit placement (ShardingTypeError) is a failure:
batch dims may be sharded and every case's matrix dims are whole.

usage: linalg_oracle.py SHARD_EXE [-v] [-k SUBSTRING] [--keep DIR]
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
    m = f32(4, 4)
    spd = lambda n, *b: (lambda g: (g @ np.swapaxes(g, -1, -2) + n * np.eye(n)).astype(np.float32))(RNG.standard_normal(b + (n, n)))
    return {
        "A": (m + 4 * np.eye(4)).astype(np.float32),      # well conditioned
        "N": f32(5, 5),                                    # general (pivoting, negative det)
        "S": spd(5),                                       # symmetric positive definite
        "AB": (f32(8, 4, 4) + 4 * np.eye(4)).astype(np.float32),  # a batch (dim 0 shardable by 8)
        "SB": spd(4, 8),
        "b": f32(4),
        "B": f32(4, 3),
        "BB": f32(8, 4, 3),
        "T": f32(6, 4),                                    # tall
        "W": f32(3, 5),                                    # wide
        "L": (np.tril(f32(4, 4)) + 4 * np.eye(4)).astype(np.float32),  # lower triangular
    }


# Sign-free views of decompositions (numpy side and shard side alike).
def abs_cols(v):
    return np.abs(v)


def pos_diag_r(r):
    k = min(r.shape[-2], r.shape[-1])
    d = np.sign(np.diagonal(r, axis1=-2, axis2=-1)[..., :k])
    d = np.where(d == 0, 1, d)
    return r[..., :k, :] * d[..., :, None]


def np_lu(a):
    """Partial pivoting as getrf: returns lu, pivots, permutation."""
    a = np.array(a, dtype=np.float64)
    m, n = a.shape
    perm = np.arange(m)
    piv = np.zeros(min(m, n), np.int32)
    for j in range(min(m, n)):
        p = j + int(np.argmax(np.abs(a[j:, j])))
        piv[j] = p
        a[[j, p]] = a[[p, j]]
        perm[[j, p]] = perm[[p, j]]
        if a[j, j] != 0:
            a[j + 1:, j] /= a[j, j]
            a[j + 1:, j + 1:] -= np.outer(a[j + 1:, j], a[j, j + 1:])
    return a, piv, perm.astype(np.int32)


def sym(x):
    return (x + np.swapaxes(x, -1, -2)) / 2


def pinv_ref(x):
    return np.linalg.pinv(x)


# (name, shard expression, numpy reference of the inputs, tolerance: rtol for float results,
#  "exact" for integers)
C = []
def add(name, expr, ref, tol=2e-4):
    C.append((name, expr, ref, tol))

inv, det = np.linalg.inv, np.linalg.det
add("solve vector", "jnp.linalg.solve(A, b)", lambda x: np.linalg.solve(x["A"], x["b"]))
add("solve matrix", "jnp.linalg.solve(A, B)", lambda x: np.linalg.solve(x["A"], x["B"]))
add("solve batched", "jnp.linalg.solve(AB, BB)", lambda x: np.linalg.solve(x["AB"], x["BB"]))
add("solve batched a, one b", "jnp.linalg.solve(AB, B)", lambda x: np.linalg.solve(x["AB"], np.broadcast_to(x["B"], (8, 4, 3))))
add("solve pivoting", "jnp.linalg.solve(N, N.T)", lambda x: np.linalg.solve(x["N"], x["N"].T), 2e-3)
add("inv", "jnp.linalg.inv(A)", lambda x: inv(x["A"]))
add("inv pivoting", "jnp.linalg.inv(N)", lambda x: inv(x["N"]), 2e-3)
add("inv batched", "jnp.linalg.inv(AB)", lambda x: inv(x["AB"]))
add("inv int", "jnp.linalg.inv(jnp.array([[2, 1], [1, 3]]))", lambda x: inv(np.array([[2., 1], [1, 3]])))
add("det", "jnp.linalg.det(A)", lambda x: det(x["A"]))
add("det pivoting", "jnp.linalg.det(N)", lambda x: det(x["N"]))
add("det batched", "jnp.linalg.det(AB)", lambda x: det(x["AB"]))
add("det singular", "jnp.linalg.det(jnp.ones((3, 3)))", lambda x: np.float64(0.0))
add("slogdet sign", "jnp.linalg.slogdet(N)[0]", lambda x: np.linalg.slogdet(x["N"])[0])
add("slogdet logabsdet", "jnp.linalg.slogdet(N).logabsdet", lambda x: np.linalg.slogdet(x["N"])[1])
add("slogdet batched", "jnp.linalg.slogdet(AB)[1]", lambda x: np.linalg.slogdet(x["AB"])[1])
add("cholesky", "jnp.linalg.cholesky(S)", lambda x: np.linalg.cholesky(x["S"]))
add("cholesky batched", "jnp.linalg.cholesky(SB)", lambda x: np.linalg.cholesky(x["SB"]))
add("cholesky upper", "jnp.linalg.cholesky(S, upper=True)", lambda x: np.linalg.cholesky(x["S"]).T)
add("cholesky not PD is nan", "jnp.isnan(jnp.linalg.cholesky(-S)).all()", lambda x: np.bool_(True), "exact")
add("eigh values", "jnp.linalg.eigh(S).eigenvalues", lambda x: np.linalg.eigh(x["S"])[0])
add("eigh vectors", "jnp.abs(jnp.linalg.eigh(S)[1])", lambda x: abs_cols(np.linalg.eigh(x["S"])[1]), 1e-3)
add("eigh batched", "jnp.linalg.eigh(SB)[0]", lambda x: np.linalg.eigh(x["SB"])[0])
add("eigh reconstruct", "(lambda r: (r[1] * r[0][..., None, :]) @ jnp.swapaxes(r[1], -1, -2))(jnp.linalg.eigh(SB))",
    lambda x: x["SB"])
add("eigh upper", "jnp.linalg.eigh(S, UPLO='U', symmetrize_input=False)[0]", lambda x: np.linalg.eigh(x["S"], UPLO="U")[0])
add("eigvalsh", "jnp.linalg.eigvalsh(N)", lambda x: np.linalg.eigvalsh(sym(x["N"].astype(np.float64))))
add("qr reduced tall r", "(lambda r: r * jnp.sign(jnp.diagonal(r))[:, None])(jnp.linalg.qr(T).R)",
    lambda x: pos_diag_r(np.linalg.qr(x["T"])[1]))
add("qr reduced tall qr", "(lambda f: f[0] @ f[1])(jnp.linalg.qr(T))", lambda x: x["T"])
add("qr complete shapes", "(lambda f: jnp.array(f[0].shape + f[1].shape))(jnp.linalg.qr(T, mode='complete'))",
    lambda x: np.array([6, 6, 6, 4], np.int32), "exact")
add("qr complete orthonormal", "(lambda q: q.T @ q)(jnp.linalg.qr(T, mode='complete')[0])", lambda x: np.eye(6))
add("qr complete qr", "(lambda f: f[0] @ f[1])(jnp.linalg.qr(T, mode='complete'))", lambda x: x["T"])
add("qr wide", "(lambda f: f[0] @ f[1])(jnp.linalg.qr(W))", lambda x: x["W"])
add("qr mode r", "jnp.abs(jnp.linalg.qr(W, mode='r'))", lambda x: np.abs(np.linalg.qr(x["W"], mode="r")))
add("qr batched", "(lambda f: f[0] @ f[1])(jnp.linalg.qr(AB))", lambda x: x["AB"])
add("svd values", "jnp.linalg.svd(T, compute_uv=False)", lambda x: np.linalg.svd(x["T"], compute_uv=False))
add("svd reduced reconstruct", "(lambda f: (f.U * f.S[None, :]) @ f.Vh)(jnp.linalg.svd(T, full_matrices=False))",
    lambda x: x["T"])
add("svd full shapes", "(lambda f: jnp.array(f[0].shape + f[2].shape))(jnp.linalg.svd(W))",
    lambda x: np.array([3, 3, 5, 5], np.int32), "exact")
add("svd full orthonormal", "(lambda v: v @ v.T)(jnp.linalg.svd(W)[2])", lambda x: np.eye(5))
add("svd batched values", "jnp.linalg.svd(AB, compute_uv=False)", lambda x: np.linalg.svd(x["AB"], compute_uv=False))
add("svdvals", "jnp.linalg.svdvals(W)", lambda x: np.linalg.svd(x["W"], compute_uv=False))
add("pinv tall", "jnp.linalg.pinv(T)", lambda x: pinv_ref(x["T"]), 1e-3)
add("pinv wide", "jnp.linalg.pinv(W)", lambda x: pinv_ref(x["W"]), 1e-3)
add("pinv rank deficient", "jnp.linalg.pinv(jnp.ones((3, 4)))", lambda x: pinv_ref(np.ones((3, 4))), 1e-3)
add("matrix_power 5", "jnp.linalg.matrix_power(A, 5)", lambda x: np.linalg.matrix_power(x["A"].astype(np.float64), 5), 1e-3)
add("matrix_power 0", "jnp.linalg.matrix_power(AB, 0)", lambda x: np.broadcast_to(np.eye(4), (8, 4, 4)))
add("matrix_power -2", "jnp.linalg.matrix_power(A, -2)", lambda x: np.linalg.matrix_power(x["A"].astype(np.float64), -2), 1e-3)
add("matrix_power int", "jnp.linalg.matrix_power(jnp.array([[1, 1], [1, 0]]), 10)", lambda x: np.array([[89, 55], [55, 34]], np.int32), "exact")
add("lax lu", "jax.lax.linalg.lu(N)[0]", lambda x: np_lu(x["N"])[0], 1e-3)
add("lax lu pivots", "jax.lax.linalg.lu(N)[1]", lambda x: np_lu(x["N"])[1], "exact")
add("lax lu permutation", "jax.lax.linalg.lu(N)[2]", lambda x: np_lu(x["N"])[2], "exact")
add("lax lu tall", "(lambda f: jnp.tril(f[0], -1)[:, :4] + jnp.eye(6, 4))(jax.lax.linalg.lu(T))",
    lambda x: (lambda f: np.tril(f[0], -1)[:, :4] + np.eye(6, 4))(np_lu(x["T"])), 1e-3)
add("lax triangular_solve left lower", "jax.lax.linalg.triangular_solve(L, B, left_side=True, lower=True)",
    lambda x: np.linalg.solve(x["L"], x["B"]))
add("lax triangular_solve transpose_a", "jax.lax.linalg.triangular_solve(L, B, left_side=True, lower=True, transpose_a=True)",
    lambda x: np.linalg.solve(x["L"].T, x["B"]))
add("lax triangular_solve right upper", "jax.lax.linalg.triangular_solve(L.T, B.T, left_side=False, lower=False)",
    lambda x: x["B"].T @ inv(x["L"].T))
add("lax triangular_solve unit_diagonal", "jax.lax.linalg.triangular_solve(L, b, left_side=True, lower=True, unit_diagonal=True)",
    lambda x: np.linalg.solve(np.tril(x["L"], -1) + np.eye(4), x["b"]))
add("lax cholesky", "jax.lax.linalg.cholesky(S)", lambda x: np.linalg.cholesky(x["S"]))
add("lax eigh (v, w)", "jax.lax.linalg.eigh(S)[1]", lambda x: np.linalg.eigh(x["S"])[0])
add("lax qr", "(lambda f: f[0] @ f[1])(jax.lax.linalg.qr(T, full_matrices=False))", lambda x: x["T"])
add("lax svd", "jax.lax.linalg.svd(T)[1]", lambda x: np.linalg.svd(x["T"], compute_uv=False))
nrm = np.linalg.norm
for o in ["None", "'fro'", "'nuc'", "1", "-1", "2", "-2", "jnp.inf", "-jnp.inf"]:
    no = eval(o.replace("jnp.", "np."))
    add(f"norm matrix ord={o}", f"jnp.linalg.norm(T, ord={o})", lambda x, no=no: nrm(x["T"], ord=no))
    add(f"norm batched ord={o} keepdims", f"jnp.linalg.norm(AB, ord={o}, axis=(2, 1), keepdims=True)",
        lambda x, no=no: nrm(x["AB"], ord=no, axis=(2, 1), keepdims=True))
for o in ["None", "0", "1", "2", "3", "0.5", "jnp.inf", "-jnp.inf"]:
    no = eval(o.replace("jnp.", "np."))
    add(f"norm vector ord={o}", f"jnp.linalg.norm(b, ord={o})", lambda x, no=no: nrm(x["b"], ord=no))
    add(f"norm rows ord={o}", f"jnp.linalg.norm(T, ord={o}, axis=1)", lambda x, no=no: nrm(x["T"], ord=no, axis=1))
add("norm all dims", "jnp.linalg.norm(AB)", lambda x: nrm(x["AB"].ravel()))
add("matrix_rank", "jnp.linalg.matrix_rank(T)", lambda x: np.int32(4), "exact")
add("matrix_rank deficient", "jnp.linalg.matrix_rank(jnp.outer(jnp.arange(1.0, 5.0), jnp.arange(3.0)))", lambda x: np.int32(1), "exact")
add("matrix_rank batched", "jnp.linalg.matrix_rank(AB)", lambda x: np.full(8, 4, np.int32), "exact")
add("matrix_rank vector", "jnp.linalg.matrix_rank(b)", lambda x: np.int32(1), "exact")
# jax.scipy.linalg
def np_scipy_lu(a):
    lu, _, perm = np_lu(a)
    m, n = a.shape
    k = min(m, n)
    p = np.zeros((m, m))
    p[perm, np.arange(m)] = 1
    return p, np.tril(lu, -1)[:, :k] + np.eye(m, k), np.triu(lu)[:k, :]
add("scipy solve_triangular", "jax.scipy.linalg.solve_triangular(L, B, lower=True)", lambda x: np.linalg.solve(x["L"], x["B"]))
add("scipy solve_triangular upper trans", "jax.scipy.linalg.solve_triangular(L.T, b, trans='T')", lambda x: np.linalg.solve(x["L"], x["b"]))
add("scipy solve_triangular trans=1 lower", "jax.scipy.linalg.solve_triangular(L, BB, trans=1, lower=True)",
    lambda x: np.linalg.solve(x["L"].T, x["BB"]))
add("scipy cholesky upper", "jax.scipy.linalg.cholesky(S)", lambda x: np.linalg.cholesky(x["S"]).T)
add("scipy cholesky lower", "jax.scipy.linalg.cholesky(SB, lower=True)", lambda x: np.linalg.cholesky(x["SB"]))
add("scipy cho_solve", "jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(S), S[:, :2])", lambda x: np.linalg.solve(x["S"], x["S"][:, :2]))
add("scipy cho_solve lower vector", "jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(SB[0], lower=True), b)",
    lambda x: np.linalg.solve(x["SB"][0], x["b"]))
add("scipy lu p", "jax.scipy.linalg.lu(N)[0]", lambda x: np_scipy_lu(x["N"])[0], "exact_float")
add("scipy lu l", "jax.scipy.linalg.lu(N)[1]", lambda x: np_scipy_lu(x["N"])[1], 1e-3)
add("scipy lu u", "jax.scipy.linalg.lu(N)[2]", lambda x: np_scipy_lu(x["N"])[2], 1e-3)
add("scipy lu tall plu", "(lambda f: f[0] @ f[1] @ f[2])(jax.scipy.linalg.lu(T))", lambda x: x["T"])
add("scipy lu wide plu", "(lambda f: f[0] @ f[1] @ f[2])(jax.scipy.linalg.lu(W))", lambda x: x["W"])
add("scipy lu permute_l", "(lambda f: f[0] @ f[1])(jax.scipy.linalg.lu(N, permute_l=True))", lambda x: x["N"])
add("scipy det inv", "jax.scipy.linalg.det(A) * jax.scipy.linalg.inv(A)", lambda x: det(x["A"]) * inv(x["A"]), 1e-3)
add("scipy solve gen", "jax.scipy.linalg.solve(N, N[0])", lambda x: np.linalg.solve(x["N"], x["N"][0]), 2e-3)
add("scipy solve pos", "jax.scipy.linalg.solve(S, S[0], assume_a='pos')", lambda x: np.linalg.solve(x["S"], x["S"][0]))
add("scipy eigh eigvals_only", "jax.scipy.linalg.eigh(S, eigvals_only=True)", lambda x: np.linalg.eigh(x["S"])[0])
add("scipy svd", "jax.scipy.linalg.svd(T)[1]", lambda x: np.linalg.svd(x["T"], compute_uv=False))
add("scipy qr economic", "(lambda f: f[0] @ f[1])(jax.scipy.linalg.qr(T, mode='economic'))", lambda x: x["T"])
add("scipy qr full shape", "jnp.array(jax.scipy.linalg.qr(T)[0].shape)", lambda x: np.array([6, 6], np.int32), "exact")
add("scipy qr r", "jnp.abs(jax.scipy.linalg.qr(T, mode='r')[0])", lambda x: np.abs(np.linalg.qr(x["T"], mode="complete")[1]))
# jit and vmap
add("jit solve", "jax.jit(jnp.linalg.solve)(AB, BB)", lambda x: np.linalg.solve(x["AB"], x["BB"]))
add("jit inv det", "jax.jit(lambda a: jnp.linalg.inv(a) * jnp.linalg.det(a)[..., None, None])(AB)",
    lambda x: inv(x["AB"]) * det(x["AB"])[:, None, None], 1e-3)
add("jit eigh", "jax.jit(lambda s: jnp.linalg.eigh(s)[0])(SB)", lambda x: np.linalg.eigh(x["SB"])[0])
add("jit cholesky", "jax.jit(jnp.linalg.cholesky)(SB)", lambda x: np.linalg.cholesky(x["SB"]))
add("jit svd", "jax.jit(lambda a: jnp.linalg.svd(a)[1])(AB)", lambda x: np.linalg.svd(x["AB"], compute_uv=False))
add("jit qr", "jax.jit(lambda a: (lambda f: f[0] @ f[1])(jnp.linalg.qr(a)))(AB)", lambda x: x["AB"])
add("vmap inv", "jax.vmap(jnp.linalg.inv)(AB)", lambda x: inv(x["AB"]))
add("vmap solve one b", "jax.vmap(jnp.linalg.solve, in_axes=(0, None))(AB, b)", lambda x: np.linalg.solve(x["AB"], np.broadcast_to(x["b"][:, None], (8, 4, 1)))[..., 0])
add("vmap solve one a", "jax.vmap(jnp.linalg.solve, in_axes=(None, 0))(A, BB)", lambda x: np.linalg.solve(x["A"], x["BB"]))
add("vmap det", "jax.vmap(jnp.linalg.det)(AB)", lambda x: det(x["AB"]))
add("vmap cholesky", "jax.vmap(jnp.linalg.cholesky)(SB)", lambda x: np.linalg.cholesky(x["SB"]))
add("vmap eigvalsh", "jax.vmap(jnp.linalg.eigvalsh)(SB)", lambda x: np.linalg.eigvalsh(x["SB"]))
add("vmap svd values", "jax.vmap(lambda a: jnp.linalg.svd(a, compute_uv=False))(AB)", lambda x: np.linalg.svd(x["AB"], compute_uv=False))
add("vmap qr", "jax.vmap(lambda a: (lambda f: f[0] @ f[1])(jnp.linalg.qr(a)))(AB)", lambda x: x["AB"])
add("vmap lax triangular_solve", "jax.vmap(lambda b: jax.lax.linalg.triangular_solve(L, b, left_side=True, lower=True))(BB)",
    lambda x: np.linalg.solve(x["L"], x["BB"]))
add("vmap of vmap inv", "jax.vmap(jax.vmap(jnp.linalg.inv))(jnp.stack([AB, 2 * AB], axis=1))",
    lambda x: inv(np.stack([x["AB"], 2 * x["AB"]], axis=1)))
add("scan of solve", "jax.lax.scan(lambda c, a: (c + jnp.linalg.det(a), jnp.linalg.solve(a, b)), 0.0, jnp.stack([A, A.T]))[1]",
    lambda x: np.stack([np.linalg.solve(x["A"], x["b"]), np.linalg.solve(x["A"].T, x["b"])]))
add("scan carry det", "jax.lax.scan(lambda c, a: (c + jnp.linalg.det(a), None), 0.0, jnp.stack([A, A.T]))[0]",
    lambda x: 2 * det(x["A"]))

# jax.scipy.linalg.lu_factor / lu_solve and lax.linalg.lu_pivots_to_permutation
def np_perm(pivots, m):
    perm = np.arange(m)
    for i, j in enumerate(np.asarray(pivots)):
        perm[[i, j]] = perm[[j, i]]
    return perm.astype(np.int32)
solve = np.linalg.solve
add("scipy lu_factor lu", "jax.scipy.linalg.lu_factor(N)[0]", lambda x: np_lu(x["N"])[0], 1e-3)
add("scipy lu_factor piv", "jax.scipy.linalg.lu_factor(N)[1]", lambda x: np_lu(x["N"])[1], "exact")
add("scipy lu_factor batched piv", "jax.scipy.linalg.lu_factor(AB)[1]", lambda x: np.stack([np_lu(a)[1] for a in x["AB"]]), "exact")
add("scipy lu_factor wide", "jax.scipy.linalg.lu_factor(W)[0]", lambda x: np_lu(x["W"])[0], 1e-3)
add("lax lu_pivots_to_permutation", "jax.lax.linalg.lu_pivots_to_permutation(jax.lax.linalg.lu(N)[1], 5)",
    lambda x: np_lu(x["N"])[2], "exact")
add("lax lu_pivots_to_permutation batched", "jax.lax.linalg.lu_pivots_to_permutation(jax.lax.linalg.lu(AB)[1], 4)",
    lambda x: np.stack([np_lu(a)[2] for a in x["AB"]]), "exact")
add("lax lu_pivots_to_permutation longer", "jax.lax.linalg.lu_pivots_to_permutation(jnp.array([2, 2, 4], jnp.int32), 6)",
    lambda x: np_perm([2, 2, 4], 6), "exact")
add("lax lu_pivots_to_permutation jit", "jax.jit(lambda p: jax.lax.linalg.lu_pivots_to_permutation(p, 4))(jax.lax.linalg.lu(AB)[1])",
    lambda x: np.stack([np_lu(a)[2] for a in x["AB"]]), "exact")
add("lax lu_pivots_to_permutation vmap", "jax.vmap(lambda p: jax.lax.linalg.lu_pivots_to_permutation(p, 4))(jax.lax.linalg.lu(AB)[1])",
    lambda x: np.stack([np_lu(a)[2] for a in x["AB"]]), "exact")
for trans, op in [(0, lambda a: a), (1, lambda a: a.T), (2, lambda a: a.T)]:
    add(f"scipy lu_solve trans={trans} vector", f"jax.scipy.linalg.lu_solve(jax.scipy.linalg.lu_factor(N), N[0], trans={trans})",
        lambda x, op=op: solve(op(x["N"]), x["N"][0]), 2e-3)
    add(f"scipy lu_solve trans={trans} matrix", f"jax.scipy.linalg.lu_solve(jax.scipy.linalg.lu_factor(A), B, trans={trans})",
        lambda x, op=op: solve(op(x["A"]), x["B"]))
    add(f"scipy lu_solve trans={trans} batched", f"jax.scipy.linalg.lu_solve(jax.scipy.linalg.lu_factor(AB), BB, trans={trans})",
        lambda x, trans=trans: solve(x["AB"] if trans == 0 else np.swapaxes(x["AB"], -1, -2), x["BB"]))
add("scipy lu_solve batched a, one b", "jax.scipy.linalg.lu_solve(jax.scipy.linalg.lu_factor(AB), b)",
    lambda x: solve(x["AB"], np.broadcast_to(x["b"][:, None], (8, 4, 1)))[..., 0])
add("scipy lu_solve batched vectors", "jax.scipy.linalg.lu_solve(jax.scipy.linalg.lu_factor(AB), BB[..., 0])",
    lambda x: solve(x["AB"], x["BB"][..., :1])[..., 0])
add("scipy lu_solve one a, batched b", "jax.scipy.linalg.lu_solve(jax.scipy.linalg.lu_factor(A), BB, trans=1)",
    lambda x: solve(x["A"].T, x["BB"]))
add("scipy lu_solve int b", "jax.scipy.linalg.lu_solve(jax.scipy.linalg.lu_factor(A), jnp.arange(4))",
    lambda x: solve(x["A"], np.arange(4.0)))
add("jit lu_solve", "jax.jit(lambda a, bb: jax.scipy.linalg.lu_solve(jax.scipy.linalg.lu_factor(a), bb, trans=1))(AB, BB)",
    lambda x: solve(np.swapaxes(x["AB"], -1, -2), x["BB"]))
add("vmap lu_solve", "jax.vmap(lambda a, bb: jax.scipy.linalg.lu_solve(jax.scipy.linalg.lu_factor(a), bb))(AB, BB)",
    lambda x: solve(x["AB"], x["BB"]))
# jnp.linalg's array-API names, cond, multi_dot, lstsq, tensorinv, tensorsolve (numpy's)
cond = np.linalg.cond
for pn in ["None", "1", "-1", "2", "-2", "'fro'", "jnp.inf", "-jnp.inf"]:
    pv = eval(pn.replace("jnp.", "np."))
    add(f"cond p={pn}", f"jnp.linalg.cond(N, {pn})", lambda x, pv=pv: cond(x["N"].astype(np.float64), pv), 2e-3)
add("cond batched", "jnp.linalg.cond(AB)", lambda x: cond(x["AB"].astype(np.float64)), 1e-3)
add("cond batched p=1", "jnp.linalg.cond(AB, 1)", lambda x: cond(x["AB"].astype(np.float64), 1), 1e-3)
add("cond tall", "jnp.linalg.cond(T)", lambda x: cond(x["T"].astype(np.float64)), 1e-3)
add("cond singular p=1 is inf", "jnp.linalg.cond(jnp.ones((3, 3)), 1)", lambda x: np.float64(np.inf), "exact_float")
add("cond int", "jnp.linalg.cond(jnp.array([[1, 2], [2, 1]]))", lambda x: np.float64(3.0))
add("jit cond", "jax.jit(jnp.linalg.cond, static_argnums=1)(AB, 'fro')", lambda x: cond(x["AB"].astype(np.float64), "fro"), 1e-3)
for o in ["'fro'", "'nuc'", "1", "-1", "2", "-2", "jnp.inf", "-jnp.inf"]:
    no = eval(o.replace("jnp.", "np."))
    add(f"matrix_norm ord={o}", f"jnp.linalg.matrix_norm(AB, ord={o})", lambda x, no=no: nrm(x["AB"], ord=no, axis=(-2, -1)))
add("matrix_norm keepdims", "jnp.linalg.matrix_norm(T, keepdims=True)", lambda x: nrm(x["T"], axis=(-2, -1), keepdims=True))
add("matrix_norm int", "jnp.linalg.matrix_norm(jnp.arange(1, 10).reshape(3, 3))", lambda x: nrm(np.arange(1.0, 10.0).reshape(3, 3)))
for o in ["2", "1", "0", "3", "0.5", "jnp.inf", "-jnp.inf", "-2"]:
    no = eval(o.replace("jnp.", "np."))
    add(f"vector_norm ord={o}", f"jnp.linalg.vector_norm(AB, ord={o})", lambda x, no=no: np.linalg.vector_norm(x["AB"], ord=no)
        if hasattr(np.linalg, "vector_norm") else nrm(x["AB"].ravel(), ord=no))
    add(f"vector_norm ord={o} axis=(0, 2)", f"jnp.linalg.vector_norm(AB, axis=(0, 2), ord={o})",
        lambda x, no=no: np.apply_along_axis(lambda v: nrm(v, ord=no), 1, np.moveaxis(x["AB"], 1, 0).reshape(4, -1)))
add("vector_norm keepdims", "jnp.linalg.vector_norm(T, axis=1, keepdims=True)", lambda x: nrm(x["T"], axis=1, keepdims=True))
add("vector_norm int ord=1", "jnp.linalg.vector_norm(jnp.array([3, -4]), ord=1)", lambda x: np.int32(7), "exact")
add("multi_dot", "jnp.linalg.multi_dot([T.T, T, A, B])", lambda x: x["T"].T.astype(np.float64) @ x["T"] @ x["A"] @ x["B"], 1e-3)
add("multi_dot vectors", "jnp.linalg.multi_dot([b, A, A, b])", lambda x: x["b"].astype(np.float64) @ x["A"] @ x["A"] @ x["b"], 1e-3)
add("multi_dot two", "jnp.linalg.multi_dot([W, W.T])", lambda x: x["W"].astype(np.float64) @ x["W"].T)
add("jit multi_dot", "jax.jit(jnp.linalg.multi_dot)([T, A, b])", lambda x: x["T"].astype(np.float64) @ x["A"] @ x["b"], 1e-3)
lstsq = lambda a, bb: np.linalg.lstsq(np.asarray(a, np.float64), np.asarray(bb, np.float64), rcond=None)
add("lstsq x", "jnp.linalg.lstsq(T, T[:, :2] + 1)[0]", lambda x: lstsq(x["T"], x["T"][:, :2] + 1)[0], 1e-3)
add("lstsq resid", "jnp.linalg.lstsq(T, T[:, :2] + 1)[1]", lambda x: lstsq(x["T"], x["T"][:, :2] + 1)[1], 2e-3)
add("lstsq rank", "jnp.linalg.lstsq(T, T[:, 0])[2]", lambda x: np.int32(4), "exact")
add("lstsq s", "jnp.linalg.lstsq(T, T[:, 0])[3]", lambda x: lstsq(x["T"], x["T"][:, 0])[3])
add("lstsq vector b", "jnp.linalg.lstsq(T, jnp.arange(6.0))[0]", lambda x: lstsq(x["T"], np.arange(6.0))[0], 1e-3)
add("lstsq rank deficient", "jnp.linalg.lstsq(jnp.ones((4, 3)), b)[0]", lambda x: lstsq(np.ones((4, 3)), x["b"])[0], 1e-3)
add("lstsq rank deficient rank", "jnp.linalg.lstsq(jnp.ones((4, 3)), b)[2]", lambda x: np.int32(1), "exact")
add("lstsq wide", "jnp.linalg.lstsq(W, W[:, 0])[0]", lambda x: lstsq(x["W"], x["W"][:, 0])[0], 1e-3)
add("lstsq numpy_resid", "jnp.linalg.lstsq(W, W[:, 0], numpy_resid=True)[1].shape[0]", lambda x: np.int32(0), "exact")
add("jit lstsq", "jax.jit(jnp.linalg.lstsq)(T, T[:, 1])[0]", lambda x: lstsq(x["T"], x["T"][:, 1])[0], 1e-3)
add("tensorinv", "jnp.linalg.tensorinv(A.reshape(4, 2, 2), ind=1)", lambda x: np.linalg.tensorinv(x["A"].reshape(4, 2, 2), ind=1), 1e-3)
add("tensorinv ind=2", "jnp.linalg.tensorinv(A.reshape(2, 2, 2, 2))", lambda x: np.linalg.tensorinv(x["A"].reshape(2, 2, 2, 2)), 1e-3)
add("tensorsolve", "jnp.linalg.tensorsolve(A.reshape(2, 2, 4), b.reshape(2, 2))",
    lambda x: np.linalg.tensorsolve(x["A"].reshape(2, 2, 4), x["b"].reshape(2, 2)), 1e-3)
add("tensorsolve axes", "jnp.linalg.tensorsolve(A.reshape(4, 2, 2), b.reshape(2, 2), axes=(0,))",
    lambda x: np.linalg.tensorsolve(x["A"].reshape(4, 2, 2), x["b"].reshape(2, 2), axes=(0,)), 1e-3)
add("linalg.matrix_transpose", "jnp.linalg.matrix_transpose(AB)", lambda x: np.swapaxes(x["AB"], -1, -2), "exact_float")
add("linalg.outer", "jnp.linalg.outer(b, jnp.arange(3))", lambda x: np.outer(x["b"], np.arange(3)))
add("linalg.cross", "jnp.linalg.cross(B, B[::-1])", lambda x: np.cross(x["B"], x["B"][::-1]))
add("linalg.cross axis=0", "jnp.linalg.cross(B.T, B.T[:, ::-1], axis=0)", lambda x: np.cross(x["B"].T, x["B"].T[:, ::-1], axis=0))
add("linalg.matmul", "jnp.linalg.matmul(AB, BB)", lambda x: x["AB"].astype(np.float64) @ x["BB"])
add("linalg.matmul vector", "jnp.linalg.matmul(AB, b)", lambda x: x["AB"].astype(np.float64) @ x["b"])
add("linalg.tensordot", "jnp.linalg.tensordot(T, T, axes=([0], [0]))", lambda x: np.tensordot(x["T"], x["T"], axes=([0], [0])))
add("linalg.tensordot axes=1", "jnp.linalg.tensordot(A, B, axes=1)", lambda x: np.tensordot(x["A"], x["B"], axes=1))
add("linalg.trace", "jnp.linalg.trace(AB, offset=1)", lambda x: np.trace(x["AB"], offset=1, axis1=-2, axis2=-1))
add("linalg.trace int", "jnp.linalg.trace(jnp.arange(12).reshape(3, 4), offset=-1)", lambda x: np.int32(4 + 9), "exact")
add("linalg.diagonal", "jnp.linalg.diagonal(AB, offset=-1)", lambda x: np.diagonal(x["AB"], offset=-1, axis1=-2, axis2=-1), "exact_float")
add("linalg.vecdot", "jnp.linalg.vecdot(BB, B)", lambda x: np.sum(x["BB"].astype(np.float64) * x["B"], -1))
add("linalg.vecdot axis=0", "jnp.linalg.vecdot(T, T, axis=0)", lambda x: np.sum(x["T"].astype(np.float64) ** 2, 0))
def expm_ref(a):
    """exp(a) in float64: Taylor's series of a / 2^s (norm below 1/2) to 30 terms, squared s times."""
    a = np.asarray(a, np.float64)
    if a.ndim > 2:
        return np.stack([expm_ref(x) for x in a])
    nrm1 = np.abs(a).sum(0).max()
    s = max(0, int(np.ceil(np.log2(nrm1 / 0.5)))) if nrm1 > 0 else 0
    x = a / 2.0 ** s
    term = np.eye(len(a))
    r = term.copy()
    for k in range(1, 30):
        term = term @ x / k
        r = r + term
    for _ in range(s):
        r = r @ r
    return r
def polar_ref(a, side="right"):
    u, sv, vh = np.linalg.svd(np.asarray(a, np.float64), full_matrices=False)
    return (u @ vh, (vh.T * sv) @ vh if side == "right" else (u * sv) @ u.T)
add("scipy expm", "jax.scipy.linalg.expm(A / 4)", lambda x: expm_ref(x["A"] / 4), 1e-4)
add("scipy expm scaled", "jax.scipy.linalg.expm(N)", lambda x: expm_ref(x["N"]), 1e-3)
add("scipy expm batched", "jax.scipy.linalg.expm(AB / 8)", lambda x: expm_ref(x["AB"] / 8), 1e-4)
add("scipy expm upper_triangular", "jax.scipy.linalg.expm(L.T / 4, upper_triangular=True)", lambda x: expm_ref(x["L"].T / 4), 1e-4)
add("scipy expm small norm", "jax.scipy.linalg.expm(A / 400)", lambda x: expm_ref(x["A"] / 400), 1e-5)
add("scipy expm max_squarings", "jnp.isnan(jax.scipy.linalg.expm(100 * A, max_squarings=2)).all()", lambda x: np.bool_(True), "exact")
add("jit expm", "jax.jit(jax.scipy.linalg.expm)(AB / 8)", lambda x: expm_ref(x["AB"] / 8), 1e-4)
add("vmap expm", "jax.vmap(jax.scipy.linalg.expm)(AB / 8)", lambda x: expm_ref(x["AB"] / 8), 1e-4)
add("scipy polar unitary", "jax.scipy.linalg.polar(T)[0]", lambda x: polar_ref(x["T"])[0], 1e-3)
add("scipy polar posdef", "jax.scipy.linalg.polar(T)[1]", lambda x: polar_ref(x["T"])[1], 1e-3)
add("scipy polar left svd", "jax.scipy.linalg.polar(W, 'left', method='svd')[1]", lambda x: polar_ref(x["W"], "left")[1], 1e-3)
add("scipy polar batched", "(lambda f: f[0] @ f[1])(jax.scipy.linalg.polar(AB))", lambda x: x["AB"], 1e-3)
add("scipy block_diag", "jax.scipy.linalg.block_diag(A, b, 2.0, T)",
    lambda x: (lambda blocks: np.block([[blocks[i] if i == j else np.zeros((blocks[i].shape[0], blocks[j].shape[1]))
                                          for j in range(4)] for i in range(4)]))([x["A"], x["b"][None, :], np.array([[2.0]]), x["T"]]), "exact_float")
add("scipy block_diag none", "jnp.array(jax.scipy.linalg.block_diag().shape)", lambda x: np.array([1, 0], np.int32), "exact")
def toeplitz_ref(c, r=None):
    c = np.asarray(c, np.float64)
    r = c if r is None else np.asarray(r, np.float64)
    return np.array([[c[i - j] if i >= j else r[j - i] for j in range(len(r))] for i in range(len(c))])
def hankel_ref(c, r=None):
    c = np.asarray(c, np.float64)
    r = np.zeros_like(c) if r is None else np.asarray(r, np.float64)
    v = np.concatenate([c, r[1:]])
    return np.array([[v[i + j] for j in range(len(r))] for i in range(len(c))])
add("scipy toeplitz", "jax.scipy.linalg.toeplitz(b)", lambda x: toeplitz_ref(x["b"]), "exact_float")
add("scipy toeplitz c, r", "jax.scipy.linalg.toeplitz(b, T[0])", lambda x: toeplitz_ref(x["b"], x["T"][0]), "exact_float")
add("scipy toeplitz batched", "jax.scipy.linalg.toeplitz(BB[..., 0], b[:2])",
    lambda x: np.stack([toeplitz_ref(v, x["b"][:2]) for v in x["BB"][..., 0]]), "exact_float")
add("scipy hankel", "jax.scipy.linalg.hankel(b)", lambda x: hankel_ref(x["b"]), "exact_float")
add("scipy hankel c, r", "jax.scipy.linalg.hankel(b, T[0, :3])", lambda x: hankel_ref(x["b"], x["T"][0, :3]), "exact_float")
add("scipy circulant", "jax.scipy.linalg.circulant(b)",
    lambda x: np.array([[x["b"][(i - j) % 4] for j in range(4)] for i in range(4)]), "exact_float")
add("scipy circulant batched", "jax.scipy.linalg.circulant(BB[..., 0])",
    lambda x: np.stack([np.array([[v[(i - j) % 4] for j in range(4)] for i in range(4)]) for v in x["BB"][..., 0]]), "exact_float")
add("jit toeplitz", "jax.jit(jax.scipy.linalg.toeplitz)(b, b[::-1])", lambda x: toeplitz_ref(x["b"], x["b"][::-1]), "exact_float")
from math import comb as _comb
def hadamard_ref(n):
    h = np.ones((1, 1))
    while h.shape[0] < n:
        h = np.block([[h, h], [h, -h]])
    return h
def helmert_ref(n, full=False):
    rows = [np.full(n, 1 / np.sqrt(n))] if full else []
    for k in range(1, n):
        rows.append(np.array([1.0] * k + [-k] + [0.0] * (n - k - 1)) / np.sqrt(k * (k + 1)))
    return np.array(rows)
pascal_lower = lambda n: np.array([[_comb(i, j) for j in range(n)] for i in range(n)], np.float64)
add("scipy hadamard", "jax.scipy.linalg.hadamard(8)", lambda x: hadamard_ref(8).astype(np.int32), "exact")
add("scipy helmert", "jax.scipy.linalg.helmert(5)", lambda x: helmert_ref(5))
add("scipy helmert full", "jax.scipy.linalg.helmert(4, full=True)", lambda x: helmert_ref(4, True))
add("scipy pascal", "jax.scipy.linalg.pascal(6)", lambda x: pascal_lower(6) @ pascal_lower(6).T, "exact_float")
add("scipy pascal upper", "jax.scipy.linalg.pascal(5, kind='upper')", lambda x: pascal_lower(5).T, "exact_float")
add("scipy invpascal", "jax.scipy.linalg.invpascal(6)", lambda x: np.round(np.linalg.inv(pascal_lower(6) @ pascal_lower(6).T)), "exact_float")
add("scipy invpascal lower", "jax.scipy.linalg.invpascal(5, kind='lower')", lambda x: np.round(np.linalg.inv(pascal_lower(5))), "exact_float")
add("scipy invhilbert", "jax.scipy.linalg.invhilbert(5)",
    lambda x: np.round(np.linalg.inv(1 / (np.arange(5)[:, None] + np.arange(5)[None, :] + 1.0))), "exact_float")
add("scipy fiedler", "jax.scipy.linalg.fiedler(b)", lambda x: np.abs(x["b"][:, None] - x["b"][None, :]), "exact_float")
add("scipy companion", "jax.scipy.linalg.companion(b)",
    lambda x: np.vstack([-x["b"][1:] / x["b"][0], np.eye(2, 3)]).astype(np.float32), "exact_float")
add("scipy companion batched", "jax.scipy.linalg.companion(BB[..., 0])",
    lambda x: np.stack([np.vstack([-v[1:] / v[0], np.eye(2, 3)]).astype(np.float32) for v in x["BB"][..., 0]]), "exact_float")
add("scipy leslie", "jax.scipy.linalg.leslie(b, b[1:] / 2)",
    lambda x: np.vstack([x["b"], np.hstack([np.diag(x["b"][1:] / 2), np.zeros((3, 1))])]), "exact_float")
add("scipy leslie batched", "jax.scipy.linalg.leslie(BB[..., 0], BB[..., 1:, 1])",
    lambda x: np.stack([np.vstack([f, np.hstack([np.diag(sv), np.zeros((3, 1))])]) for f, sv in zip(x["BB"][..., 0], x["BB"][:, 1:, 1])]),
    "exact_float")
add("scipy fiedler batched", "jax.scipy.linalg.fiedler(BB[..., 0])", lambda x: np.abs(x["BB"][..., 0][:, :, None] - x["BB"][..., 0][:, None, :]), "exact_float")
conv_ref = lambda a, n, mode: np.array([np.convolve(np.asarray(a, np.float64), np.eye(n)[k], mode) for k in range(n)]).T
for mode in ["full", "same", "valid"]:
    add(f"scipy convolution_matrix {mode}", f"jax.scipy.linalg.convolution_matrix(b[:3], 5, mode='{mode}')",
        lambda x, mode=mode: conv_ref(x["b"][:3], 5, mode), "exact_float")
    add(f"scipy convolution_matrix {mode} long a", f"jax.scipy.linalg.convolution_matrix(T[:, 0], 3, mode='{mode}')",
        lambda x, mode=mode: conv_ref(x["T"][:, 0], 3, mode), "exact_float")
frechet_ref = lambda a, e, h=1e-6: (expm_ref(a + h * e) - expm_ref(a - h * e)) / (2 * h)
add("scipy expm_frechet", "jax.scipy.linalg.expm_frechet(A / 4, B[:, :1] @ B[:, 1:2].T)[1]",
    lambda x: frechet_ref(x["A"] / 4, x["B"][:, :1].astype(np.float64) @ x["B"][:, 1:2].T), 1e-3)
add("scipy expm_frechet expm", "jax.scipy.linalg.expm_frechet(A / 4, A)[0]", lambda x: expm_ref(x["A"] / 4), 1e-4)
add("scipy expm_frechet batched", "jax.scipy.linalg.expm_frechet(AB / 8, AB / 8, compute_expm=False)",
    lambda x: np.stack([frechet_ref(a / 8, a / 8) for a in x["AB"].astype(np.float64)]), 1e-3)
add("scipy qr_multiply right", "(lambda f: jnp.abs(f[0]))(jax.scipy.linalg.qr_multiply(T, T[:, 0]))",
    lambda x: np.abs(x["T"][:, 0].astype(np.float64) @ np.linalg.qr(x["T"].astype(np.float64))[0]))
add("scipy qr_multiply r", "jnp.abs(jax.scipy.linalg.qr_multiply(T, T[:, 0])[1])",
    lambda x: np.abs(np.linalg.qr(x["T"].astype(np.float64))[1]))
add("scipy qr_multiply left reconstruct", "(lambda f: f[0] @ f[1])(jax.scipy.linalg.qr_multiply(T, jnp.eye(4), mode='left'))",
    lambda x: x["T"])
add("scipy qr_multiply right batched", "(lambda f: f[0] @ f[1])(jax.scipy.linalg.qr_multiply(AB, AB))",  # AB Q R = AB AB
    lambda x: x["AB"].astype(np.float64) @ x["AB"], 1e-3)
add("scipy fiedler_companion", "jax.scipy.linalg.fiedler_companion(jnp.array([1.0, -16.0, 86.0, -176.0, 105.0]))",
    lambda x: np.array([[16., -86., 1., 0.], [1., 0., 0., 0.], [0., 176., 0., -105.], [0., 1., 0., 0.]]), "exact_float")  # scipy's docstring
# a companion matrix of a: trace -a1/a0 and determinant (-1)^n an/a0 (the characteristic polynomial's)
add("scipy fiedler_companion batched trace, det",
    "(lambda f: jnp.stack([jnp.trace(f, axis1=-2, axis2=-1), jnp.linalg.det(f)], -1))(jax.scipy.linalg.fiedler_companion(BB[..., 0]))",
    lambda x: np.stack([-x["BB"][:, 1, 0] / x["BB"][:, 0, 0], x["BB"][:, 3, 0] / x["BB"][:, 0, 0] * (-1) ** 3], -1), 1e-3)
add("scipy fiedler_companion n=1", "jax.scipy.linalg.fiedler_companion(jnp.array([2.0, 4.0]))", lambda x: np.array([[-2.0]]), "exact_float")
tri_ref = lambda d, e: np.diag(np.asarray(d, np.float64)) + np.diag(e, 1) + np.diag(e, -1)
add("scipy eigh_tridiagonal values", "jax.scipy.linalg.eigh_tridiagonal(b, T[0, :3], eigvals_only=True)",
    lambda x: np.linalg.eigvalsh(tri_ref(x["b"], x["T"][0, :3])))
add("scipy eigh_tridiagonal select='i'", "jax.scipy.linalg.eigh_tridiagonal(b, T[0, :3], eigvals_only=True, select='i', select_range=(1, 2))",
    lambda x: np.linalg.eigvalsh(tri_ref(x["b"], x["T"][0, :3]))[1:3])
add("scipy eigh_tridiagonal vectors", "(lambda wv: jnp.abs(wv[1]))(jax.scipy.linalg.eigh_tridiagonal(b, T[0, :3]))",
    lambda x: np.abs(np.linalg.eigh(tri_ref(x["b"], x["T"][0, :3]))[1]), 1e-3)
dft_ref = lambda n, scale=1: np.exp(-2j * np.pi * np.outer(np.arange(n), np.arange(n)) / n) / scale
add("scipy dft real", "jnp.real(jax.scipy.linalg.dft(5))", lambda x: dft_ref(5).real, 1e-6)
add("scipy dft imag", "jnp.imag(jax.scipy.linalg.dft(5, scale='sqrtn'))", lambda x: dft_ref(5, np.sqrt(5)).imag, 1e-6)
add("scipy dft @ x is fft", "jnp.abs(jax.scipy.linalg.dft(4, scale='n') @ b)", lambda x: np.abs(np.fft.fft(x["b"].astype(np.float64)) / 4), 1e-5)
add("scipy hilbert", "jax.scipy.linalg.hilbert(5)", lambda x: 1 / (np.arange(5)[:, None] + np.arange(5)[None, :] + 1.0))
add("jnp.matvec", "jnp.matvec(AB, BB[..., 0])", lambda x: np.einsum("bij,bj->bi", x["AB"].astype(np.float64), x["BB"][..., 0]))
add("jnp.matvec broadcast", "jnp.matvec(AB, b)", lambda x: x["AB"].astype(np.float64) @ x["b"])
add("jnp.vecmat", "jnp.vecmat(b, AB)", lambda x: np.einsum("j,bjk->bk", x["b"].astype(np.float64), x["AB"]))
add("jnp.vecmat int", "jnp.vecmat(jnp.array([1, 2]), jnp.array([[1, 2, 3], [4, 5, 6]]))", lambda x: np.array([9, 12, 15], np.int32), "exact")
add("jnp.i0", "jnp.i0(AB)", lambda x: np.i0(x["AB"].astype(np.float64)), 1e-5)
add("jnp.i0 int", "jnp.i0(jnp.arange(4))", lambda x: np.i0(np.arange(4.0)), 1e-6)
add("jnp.vecdot int", "jnp.vecdot(jnp.array([[1, 2, 3], [4, 5, 6]]), jnp.array([[2, 3, 4]]))", lambda x: np.array([20, 47], np.int32), "exact")

# Gradients: grad of sum(Wt * f(x)) against central differences of the float64 reference.
G = []
def grad_case(name, arg, src, ref, tol=2e-3):
    """ref(v) or ref(v, inputs): the numpy function of the differentiated input v."""
    two = getattr(ref, "__name__", "") == "<lambda>" and ref.__code__.co_argcount == 2
    G.append((name, arg, src, ref if two else (lambda v, _x, ref=ref: ref(v)), tol))

grad_case("grad det", "A", "lambda a: jnp.linalg.det(a)", det)
grad_case("grad det pivoting", "N", "lambda a: jnp.linalg.det(a)", det)
grad_case("grad slogdet", "N", "lambda a: jnp.linalg.slogdet(a)[1]", lambda a: np.linalg.slogdet(a)[1])
grad_case("grad inv", "A", "lambda a: jnp.linalg.inv(a)", inv)
grad_case("grad inv pivoting", "N", "lambda a: jnp.linalg.inv(a)", inv, 5e-3)
grad_case("grad solve wrt a", "A", "lambda a: jnp.linalg.solve(a, B)", lambda a, x: np.linalg.solve(a, x["B"]))
grad_case("grad solve wrt b", "B", "lambda bb: jnp.linalg.solve(A, bb)", lambda bb, x: np.linalg.solve(x["A"], bb))
grad_case("grad solve batched", "AB", "lambda a: jnp.linalg.solve(a, BB)", lambda a, x: np.linalg.solve(a, x["BB"]))
grad_case("grad cholesky", "S", "lambda s: jnp.linalg.cholesky(s)", lambda s: np.linalg.cholesky(sym(s)))
grad_case("grad cholesky batched", "SB", "lambda s: jnp.linalg.cholesky(s)", lambda s: np.linalg.cholesky(sym(s)))
grad_case("grad eigh eigenvalues", "S", "lambda s: jnp.linalg.eigh(s)[0]", lambda s: np.linalg.eigh(sym(s))[0])
grad_case("grad eigh eigenvectors (sign-fixed)", "S",
          "lambda s: (lambda v: v * jnp.sign(v[0:1, :]))(jnp.linalg.eigh(s)[1])",
          lambda s: (lambda v: v * np.sign(v[0:1, :]))(np.linalg.eigh(sym(s))[1]), 5e-3)
grad_case("grad triangular_solve wrt a", "L", "lambda l: jax.lax.linalg.triangular_solve(l, B, left_side=True, lower=True)",
          lambda l, x: np.linalg.solve(np.tril(l), x["B"]))
grad_case("grad triangular_solve right transpose", "L",
          "lambda l: jax.lax.linalg.triangular_solve(l, B.T, left_side=False, lower=True, transpose_a=True)",
          lambda l, x: x["B"].T @ inv(np.tril(l).T))
grad_case("grad qr r", "T", "lambda t: (lambda r: r * jnp.sign(jnp.diagonal(r))[:, None])(jnp.linalg.qr(t)[1])",
          lambda t: pos_diag_r(np.linalg.qr(t)[1]), 5e-3)
grad_case("grad svd values", "T", "lambda t: jnp.linalg.svd(t, compute_uv=False)", lambda t: np.linalg.svd(t, compute_uv=False))
grad_case("grad pinv", "T", "lambda t: jnp.linalg.pinv(t)", np.linalg.pinv, 5e-3)
grad_case("grad matrix_power", "A", "lambda a: jnp.linalg.matrix_power(a, 3)", lambda a: np.linalg.matrix_power(a, 3))
grad_case("grad norm nuc", "T", "lambda t: jnp.linalg.norm(t, ord='nuc')", lambda t: nrm(t, ord="nuc"))
grad_case("grad norm 3", "T", "lambda t: jnp.linalg.norm(t, ord=3, axis=0)", lambda t: nrm(t, ord=3, axis=0))
grad_case("grad jit inv", "A", "jax.jit(lambda a: jnp.linalg.inv(a))", inv)
grad_case("grad vmap det", "AB", "jax.vmap(jnp.linalg.det)", det)
grad_case("grad lu_solve wrt b", "B", "lambda bb: jax.scipy.linalg.lu_solve(jax.scipy.linalg.lu_factor(A), bb)",
          lambda bb, x: np.linalg.solve(x["A"], bb))
grad_case("grad lu_solve trans=1 wrt a", "A", "lambda a: jax.scipy.linalg.lu_solve(jax.scipy.linalg.lu_factor(a), B, trans=1)",
          lambda a, x: np.linalg.solve(a.T, x["B"]))
grad_case("grad lu_solve batched wrt a", "AB", "lambda a: jax.scipy.linalg.lu_solve(jax.scipy.linalg.lu_factor(a), BB)",
          lambda a, x: np.linalg.solve(a, x["BB"]))
grad_case("grad cond", "A", "lambda a: jnp.linalg.cond(a)", lambda a: np.linalg.cond(a))
grad_case("grad lstsq", "T", "lambda t: jnp.linalg.lstsq(t, T[:, :2] + 1)[0]",
          lambda t, x: np.linalg.lstsq(t, x["T"][:, :2].astype(np.float64) + 1, rcond=None)[0], 5e-3)
grad_case("grad vector_norm 3", "T", "lambda t: jnp.linalg.vector_norm(t, axis=0, ord=3)", lambda t: nrm(t, ord=3, axis=0))
grad_case("grad expm", "A", "lambda a: jax.scipy.linalg.expm(a / 4)", lambda a: expm_ref(a / 4), 5e-3)
grad_case("grad multi_dot", "A", "lambda a: jnp.linalg.multi_dot([T, a, a, B])", lambda a, x: x["T"] @ a @ a @ x["B"])

PLACEMENTS = [
    ("unsharded", None, None),
    ("explicit batch P('x')", "jax.make_mesh((8,), ('x',), axis_types=(AxisType.Explicit,))", "Explicit"),
    ("auto batch P('x')", "jax.make_mesh((8,), ('x',), axis_types=(AxisType.Auto,))", "Auto"),
]
BATCHED = {"AB", "SB", "BB"}  # inputs whose leading (batch) dim is placed on the mesh


def fd_grad(ref, x, arg, wt, eps=1e-6):
    base = x[arg].astype(np.float64)
    x64 = {k: u.astype(np.float64) for k, u in x.items()}
    call = lambda v: ref(v, x64)
    g = np.zeros_like(base)
    for i in np.ndindex(base.shape):
        hi, lo = base.copy(), base.copy()
        hi[i] += eps
        lo[i] -= eps
        g[i] = (np.sum(wt * call(hi)) - np.sum(wt * call(lo))) / (2 * eps)
    return g


def program(inputs_dir, out_dir, placement, x, wts):
    label, mesh_ctor, _ = placement
    lines = ["import jax", "import jax.numpy as jnp", "import numpy as np",
             "from jax.sharding import PartitionSpec as P, NamedSharding, AxisType"]
    if mesh_ctor:
        lines += [f"mesh = {mesh_ctor}", "def place(x, batched):",
                  "    return jax.device_put(x, NamedSharding(mesh, P('x') if batched else P()))"]
    else:
        lines += ["def place(x, batched):", "    return jnp.asarray(x)"]
    for name in x:
        lines.append(f"{name} = place(np.load({os.path.join(inputs_dir, name + '.npy')!r}), {name in BATCHED})")
    if mesh_ctor:
        lines.append("jax.sharding.set_mesh(mesh)")
    for k, (_name, expr, _ref, _tol) in enumerate(C):
        lines += ["try:", f"    r = {expr}", f"    np.save({os.path.join(out_dir, f'v{k}.npy')!r}, np.asarray(r))",
                  "except Exception as e:", f"    print('CASE v{k}', type(e).__name__ + ':', str(e).replace(chr(10), ' '))"]
    for k, (_name, arg, src, _ref, _tol) in enumerate(G):
        lines += ["try:", f"    wt = np.load({os.path.join(inputs_dir, f'wt{k}.npy')!r})",
                  f"    r = jax.grad(lambda z: jnp.sum(({src})(z) * wt))({arg})",
                  f"    np.save({os.path.join(out_dir, f'g{k}.npy')!r}, np.asarray(r))",
                  "except Exception as e:", f"    print('CASE g{k}', type(e).__name__ + ':', str(e).replace(chr(10), ' '))"]
    return "\n".join(lines) + "\n"


def compare(out, ref, tol):
    ref = np.asarray(ref)
    if out.shape != ref.shape:
        return f"shape {out.shape}, expected {ref.shape}"
    if tol == "exact_float":  # exact values of a float32 result
        return None if out.dtype == np.float32 and np.array_equal(out, ref) else f"got {out.dtype} {out.ravel()[:8]}, expected {ref.ravel()[:8]}"
    if tol == "exact":
        return None if np.array_equal(out, ref) else f"values differ: got {out.ravel()[:8]}, expected {ref.ravel()[:8]}"
    if out.dtype != np.float32:
        return f"dtype {out.dtype}, expected float32"
    ref64 = ref.astype(np.float64)
    scale = max(1.0, float(np.max(np.abs(ref64)))) if ref64.size else 1.0
    if np.allclose(out.astype(np.float64), ref64, rtol=tol, atol=tol * scale, equal_nan=True):
        return None
    diff = np.abs(out.astype(np.float64) - ref64)
    k = int(np.argmax(diff))
    return f"max abs diff {diff.flat[k]:.3g} at flat index {k}: got {out.flat[k]!r}, expected {ref64.flat[k]!r}"


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
    work = keep or tempfile.mkdtemp(prefix="linalg_oracle_")
    inputs_dir = os.path.join(work, "inputs")
    os.makedirs(inputs_dir, exist_ok=True)
    for name, arr in x.items():
        np.save(os.path.join(inputs_dir, name + ".npy"), arr)
    grefs = []
    for k, (_name, arg, _src, ref, _tol) in enumerate(G):
        shape = np.shape(ref(x[arg].astype(np.float64), {kk: u.astype(np.float64) for kk, u in x.items()}))
        wt = RNG.standard_normal(shape).astype(np.float32)
        np.save(os.path.join(inputs_dir, f"wt{k}.npy"), wt)
        grefs.append(fd_grad(ref, x, arg, wt.astype(np.float64)))
    passed = failed = 0
    for pi, placement in enumerate(PLACEMENTS):
        label = placement[0]
        out_dir = os.path.join(work, f"out{pi}")
        os.makedirs(out_dir, exist_ok=True)
        for f in os.listdir(out_dir):
            os.remove(os.path.join(out_dir, f))
        prog = os.path.join(work, f"prog{pi}.shard")
        with open(prog, "w") as f:
            f.write(program(inputs_dir, out_dir, placement, x, None))
        proc = subprocess.run([shard, prog], capture_output=True, text=True, env=dict(os.environ, SHARD_DEVICES="8"), timeout=1200)
        errors = {}
        for line in proc.stdout.splitlines():
            if line.startswith("CASE "):
                _, k, msg = line.split(" ", 2)
                errors[k] = msg
        if proc.returncode != 0:
            print(f"[{label}] shard exited with {proc.returncode}:\n{proc.stderr[-3000:]}")
            failed += 1
        checks = [(f"v{k}", c[0], c[1], refs[k], c[3]) for k, c in enumerate(C)]
        checks += [(f"g{k}", g[0], g[2], grefs[k], g[4]) for k, g in enumerate(G)]
        for key, name, expr, ref, tol in checks:
            path = os.path.join(out_dir, f"{key}.npy")
            if key in errors:
                problem = errors[key][:400]
            elif not os.path.exists(path):
                problem = "no result"
            else:
                problem = compare(np.load(path), ref, tol)
            if problem:
                failed += 1
                print(f"[{label}] FAIL {name} ({expr}): {problem}")
            else:
                passed += 1
                if verbose:
                    print(f"[{label}] ok {name}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
