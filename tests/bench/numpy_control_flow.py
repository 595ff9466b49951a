# The numpy side of control_flow.shard: the same loops as Python loops over numpy float32,
# the same "name seconds" lines in the same order.
import time
import numpy as np

f32 = np.float32

def best_of(n, f):
    best = 1e9
    for _ in range(n):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best

def fori_scalar():
    c = f32(0)
    for _ in range(10000):
        c = c * f32(0.999) + f32(1)
    return c
print("fori_scalar_10k", best_of(5, fori_scalar))

def while_1024():
    n, x = 0, np.arange(1024, dtype=f32)
    while n < 1000:
        n, x = n + 1, x * f32(0.999) + f32(0.001)
    return x
print("while_1024_1k", best_of(5, while_1024))

xs = np.arange(16000, dtype=f32).reshape(1000, 16) / f32(16000)
def scan_1k():
    c, ys = np.zeros(16, f32), np.empty((1000, 16), f32)
    for i in range(1000):
        ys[i] = c * xs[i]
        c = c + xs[i]
    return c
print("scan_1k", best_of(5, scan_1k))

w64 = (np.arange(4096, dtype=f32).reshape(64, 64) - f32(2048)) / f32(4096) / f32(8)
xs64 = np.arange(64000, dtype=f32).reshape(1000, 64) / f32(64000)
def rnn():
    h = np.zeros(64, f32)
    for x in xs64:
        h = np.tanh(h @ w64 + x)
    return h
print("scan_rnn_1k", best_of(5, rnn))

src = np.arange(64000, dtype=f32).reshape(1000, 64)
def fori_rows():
    t = np.zeros((1000, 64), f32)
    for i in range(1000):
        t[i:i + 1, :] = src[999 - i:1000 - i, :] * f32(2.0)
    return t
print("fori_rows_1k", best_of(5, fori_rows))

def cond_1k():
    c = f32(0)
    for i in range(1000):
        c = c * f32(0.5) if i % 2 == 0 else c + f32(1.0)
    return c
print("cond_1k", best_of(5, cond_1k))

# Two "devices" [0, 1] and [2, 3]: the psum is their sum, added each step.
blocks = np.arange(4, dtype=f32).reshape(2, 2)
def fori_psum():
    c = np.zeros(2, f32)
    for _ in range(1000):
        c = c + blocks.sum(axis=0)
    return c
print("fori_psum_1k_per_step", best_of(5, fori_psum) / 1000)

# Two "devices" [0, 1] and [2, 3], each adding its index.
def fori_axis():
    c = blocks.copy()
    for _ in range(10000):
        c = c * f32(0.5) + np.arange(2, dtype=f32)[:, None]
    return c
print("fori_axis_index_10k_per_step", best_of(5, fori_axis) / 10000)
