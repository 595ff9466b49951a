# Regenerates decompositions.out: numpy.linalg (float64, then float32 as jax arrays print) on
# the matrices of decompositions.shard.
import numpy as np

f = np.float32
a = np.array([[2.0, 1.0], [1.0, 1.0]], f)
print(np.linalg.inv(a))
print(np.linalg.solve(a, np.array([3.0, 2.0], f)), np.linalg.solve(a, np.array([[3.0, 1.0], [2.0, 1.0]], f)))
print(f(np.linalg.det(a)), f(np.linalg.det(np.array([[0.0, 1.0], [1.0, 0.0]], f))))
sign, logabsdet = np.linalg.slogdet(np.array([[0.0, 2.0], [1.0, 0.0]], f))
print(f(sign), f(np.exp(logabsdet)))
s = np.array([[4.0, 2.0, 0.0], [2.0, 5.0, 2.0], [0.0, 2.0, 5.0]], f)
print(np.linalg.cholesky(s))
print(np.linalg.cholesky(s).T)
print(f(np.linalg.det(s)))
w, v = np.linalg.eigh(np.array([[3.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 2.0]], f))
print(w, np.abs(v))
print(np.linalg.eigvalsh(np.array([[2.0, 1.0], [1.0, 2.0]], f)))
q, r = np.linalg.qr(np.array([[0.0, 2.0], [3.0, 1.0]], f))
print(np.abs(q), np.abs(r))
print(np.linalg.svd(np.array([[3.0, 0.0], [0.0, -2.0], [0.0, 0.0]], f), compute_uv=False))
u, sv, vh = np.linalg.svd(np.array([[0.0, 2.0], [1.0, 0.0]], f))
print(np.abs(u), sv, np.abs(vh))
print(np.linalg.pinv(np.array([[2.0, 0.0], [0.0, 4.0], [0.0, 0.0]], f)))
print(np.linalg.matrix_power(np.array([[1, 1], [1, 0]], np.int32), 10), np.linalg.matrix_power(a, -1), np.linalg.matrix_power(a, 0))
batch = np.stack([a, 2 * a, np.eye(2, dtype=f)])
print(np.linalg.det(batch).astype(f), np.linalg.inv(batch)[1])
print(np.linalg.inv(a), np.linalg.det(batch).astype(f))
print(np.dtype(f), (3,))
