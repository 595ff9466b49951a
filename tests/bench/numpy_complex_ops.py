# The numpy side of complex_ops.shard: the same work, the same "name seconds" lines in order.
import time
import numpy as np

def best_of(n, f):
    f()
    best = 1e9
    for _ in range(n):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best

rng = np.random.default_rng(0)
n = 1 << 22
zr, zi = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
z = (zr + 1j * zi).astype(np.complex64)
w = (z * np.complex64(0.3 - 1j)).astype(np.complex64)
print("cmul_add_2^22", best_of(10, lambda: z * w + z))
print("abs_exp_2^22", best_of(10, lambda: np.abs(np.exp(z))))
x = rng.standard_normal((512, 4096)).astype(np.float32)
print("rfft_512x4096", best_of(10, lambda: np.fft.rfft(x)))
print("fft_512x4096", best_of(10, lambda: np.fft.fft(x)))
print("rfft_512x4096_2dev", best_of(10, lambda: np.fft.rfft(x)))
