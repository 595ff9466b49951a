# The numpy side of jit_ops.shard: the same work, the same "name seconds" lines in the same
# order (numpy has no compile step: compile_*/retrace_* lines time one eager run of the
# same 20 ops, i.e. how many numpy runs a compile costs).
import time
import numpy as np

def best_of(n, f):
    best = 1e9
    for _ in range(n):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best

def per_call(f, reps=2000):
    def many():
        for _ in range(reps):
            f()
    return best_of(5, many) / reps

small = np.ones(8, dtype=np.float32)
one = np.float32(1.0)
print("dispatch_1dev", per_call(lambda: small + one))
print("dispatch_8dev", per_call(lambda: small + one))

def twenty(a, b):
    c = np.sin(a) * b + one
    d = np.exp(-c * c) - a
    e = np.tanh(d) / (one + b * b)
    f = np.maximum(e, np.float32(0)) + np.sqrt(np.abs(a))
    return f.sum(axis=0) + e.max(axis=0) + d.mean(axis=0)

a = np.ones((64, 128), dtype=np.float32)
b = np.full((64, 128), 0.5, dtype=np.float32)
t = best_of(5, lambda: twenty(a, b))
print("compile_20ops", t)
print("retrace_20ops", t)

n = 2 ** 24
ah = np.linspace(0.0, 1.0, n, dtype=np.float32)
bh = np.linspace(1.0, 2.0, n, dtype=np.float32)
t = best_of(5, lambda: np.sin(ah) + bh * np.float32(2))
for devs in (1, 2, 8):
    print(f"sin_add_2^24_{devs}dev", t)
for name, fn in (("tanh", np.tanh), ("log1p", np.log1p), ("expm1", np.expm1), ("logaddexp", lambda v: np.logaddexp(v, -v)),
                 ("pow3", lambda v: v ** 3)):
    print(f"{name}_2^24", best_of(5, lambda: fn(ah)))

a2 = np.linspace(-1.0, 1.0, 4096 * 4096, dtype=np.float32).reshape(4096, 4096)
print("max_rows_4096^2", best_of(5, lambda: a2.max(-1)))

for k in (1024, 2048):
    xh = np.linspace(-1.0, 1.0, k * k, dtype=np.float32).reshape(k, k)
    wh = np.linspace(1.0, -1.0, k * k, dtype=np.float32).reshape(k, k)
    t = best_of(3, lambda: xh @ wh)
    print(f"matmul_{k}", t)
    print(f"matmul_{k}_dp2", t)
