# The training step of train_step.shard in PyTorch on the CPU with 2 threads (autograd).
import time

import numpy as np
import torch

torch.set_num_threads(2)
B, D_IN, D_FF, D_OUT = 2048, 1024, 4096, 1024
rng = np.random.default_rng(0)
x = torch.from_numpy(rng.standard_normal((B, D_IN)).astype(np.float32))
y = torch.from_numpy(rng.standard_normal((B, D_OUT)).astype(np.float32))
p = {"w1": torch.from_numpy((rng.standard_normal((D_IN, D_FF)) / 32).astype(np.float32)), "b1": torch.zeros(D_FF),
     "w2": torch.from_numpy((rng.standard_normal((D_FF, D_OUT)) / 64).astype(np.float32)), "b2": torch.zeros(D_OUT)}
for v in p.values():
    v.requires_grad_(True)


def step():
    h = torch.relu(x @ p["w1"] + p["b1"])
    loss = torch.mean((h @ p["w2"] + p["b2"] - y) ** 2)
    for v in p.values():
        v.grad = None
    loss.backward()
    with torch.no_grad():
        for v in p.values():
            v -= 0.01 * v.grad
    return loss


step()
best = 1e9
for _ in range(5):
    t0 = time.perf_counter()
    step()
    best = min(best, time.perf_counter() - t0)
print("sgd_step_mlp", best)
