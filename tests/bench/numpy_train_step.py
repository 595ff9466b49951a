# The training step of train_step.shard in numpy, backprop written by hand.
import time

import numpy as np

B, D_IN, D_FF, D_OUT = 2048, 1024, 4096, 1024
rng = np.random.default_rng(0)
x = rng.standard_normal((B, D_IN)).astype(np.float32)
y = rng.standard_normal((B, D_OUT)).astype(np.float32)
p = {"w1": (rng.standard_normal((D_IN, D_FF)) / 32).astype(np.float32), "b1": np.zeros(D_FF, np.float32),
     "w2": (rng.standard_normal((D_FF, D_OUT)) / 64).astype(np.float32), "b2": np.zeros(D_OUT, np.float32)}


def step(p):
    pre = x @ p["w1"] + p["b1"]
    h = np.maximum(pre, 0)
    out = h @ p["w2"] + p["b2"]
    d_out = (2.0 / out.size) * (out - y)
    g = {"w2": h.T @ d_out, "b2": d_out.sum(0)}
    d_h = (d_out @ p["w2"].T) * (pre > 0)
    g["w1"] = x.T @ d_h
    g["b1"] = d_h.sum(0)
    return {k: p[k] - np.float32(0.01) * g[k] for k in p}, np.mean((out - y) ** 2)


p, _ = step(p)
best = 1e9
for _ in range(5):
    t0 = time.perf_counter()
    p, loss = step(p)
    best = min(best, time.perf_counter() - t0)
print("sgd_step_mlp", best)
