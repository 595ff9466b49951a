# The numpy side of reductions.shard: the same kernels, the same "name seconds" lines in the
# same order.
import time
import numpy as np

def best_of(n, f):
    best = 1e9
    for _ in range(n):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best

def softmax(a):
    e = np.exp(a - a.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)

def layernorm(a):
    m = a.mean(-1, keepdims=True)
    v = ((a - m) ** 2).mean(-1, keepdims=True)
    return (a - m) / np.sqrt(v + np.float32(1e-5))

one = np.float32(1)
kernels = [
    ("softmax", softmax),
    ("layernorm", layernorm),
    ("transpose_add", lambda a: a.T + one),
    ("square", lambda a: a ** 2),
    ("mul_self", lambda a: a * a),
    ("add_one", lambda a: a + one),
]
for axis, tag in ((-1, "last"), (0, "first")):
    kernels += [
        (f"sum_{tag}", lambda a, axis=axis: a.sum(axis)),
        (f"max_{tag}", lambda a, axis=axis: a.max(axis)),
        (f"min_{tag}", lambda a, axis=axis: a.min(axis)),
        (f"argmax_{tag}", lambda a, axis=axis: a.argmax(axis)),
        (f"argmin_{tag}", lambda a, axis=axis: a.argmin(axis)),
        (f"mean_{tag}", lambda a, axis=axis: a.mean(axis)),
        (f"var_{tag}", lambda a, axis=axis: a.var(axis)),
        (f"any_{tag}", lambda a, axis=axis: (a > np.float32(0.5)).any(axis)),
        (f"all_{tag}", lambda a, axis=axis: (a > np.float32(-2.0)).all(axis)),
        (f"cumsum_{tag}", lambda a, axis=axis: a.cumsum(axis)),
    ]

kernels.append(("std_first", lambda a: a.std(0)))
kernels += [("sum_first_1dev", lambda a: a.sum(0)), ("var_first_1dev", lambda a: a.var(0)), ("std_first_1dev", lambda a: a.std(0))]

a = np.linspace(-1.0, 1.0, 4096 * 4096, dtype=np.float32).reshape(4096, 4096)
for name, fn in kernels:
    fn(a)
    print(name, best_of(5, lambda: fn(a)))
