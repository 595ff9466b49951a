# The PyTorch side of reductions.shard (CPU, 2 threads): softmax, layernorm and the transpose
# only, the kernels issue 16 compares with PyTorch. Same "name seconds" line format.
import time
import numpy as np
import torch

torch.set_num_threads(2)

def best_of(n, f):
    best = 1e9
    for _ in range(n):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best

a = torch.from_numpy(np.linspace(-1.0, 1.0, 4096 * 4096, dtype=np.float32).reshape(4096, 4096))
kernels = [
    ("softmax", lambda: torch.softmax(a, -1)),
    ("layernorm", lambda: torch.nn.functional.layer_norm(a, (4096,), eps=1e-5)),
    ("transpose_add", lambda: a.T + 1),
]
with torch.no_grad():
    for name, fn in kernels:
        fn()
        print(name, best_of(5, fn))
