# golden: numpy (the twin of fused_reductions.shard: the same computations in numpy; its output is fused_reductions.out)
import numpy as np

a_np = ((np.arange(6 * 37, dtype=np.float32) * 7) % 23 - 11).reshape(6, 37) / 8
a_np[1, 5] = a_np[1, 30] = 3.0
a_np[4, 36] = np.nan
a_np[5, 0] = np.nan
i_np = ((np.arange(6 * 37) * 13) % 29 - 14).astype(np.int32).reshape(6, 37)
for a in (a_np, a_np):
    print(np.argmax(a, -1).tolist(), np.argmin(a, -1).tolist())
    print(np.argmax(a, 0).tolist())
    print(np.argmin(a, 0).tolist())
    print(np.max(a, -1).tolist(), np.min(a * 2 - 1, -1).tolist())
    print(np.sum(a[:4] * 4, -1).tolist(), np.mean(a[:4], -1).tolist())
    print(np.any(a > 1.25, -1).tolist(), np.all(a > -1.25, -1).tolist())
    print(np.cumsum(a[:4], -1)[:, ::9].tolist())
    print(np.cumsum(a[:4], 0)[:, ::9].tolist())
    print((a.T + 1)[::5, :].tolist())
    print((a[:4] ** 2 - a[:4] * a[:4]).tolist() == np.zeros((4, 37)).tolist())
for i in (i_np, i_np):
    print(np.argmax(i, -1).tolist(), np.argmin(i, 0).tolist())
    print(np.cumsum(i, -1)[:, -1].tolist(), np.max(i * 3, -1).tolist())
    print(np.sum(i * 2, 0).tolist(), np.min(i - 1, 0).tolist())
    print(np.any(i > 12, 0).tolist(), np.all(i > -14, 0).tolist())
for b in range(2):
    print(True, True)
    print(True, True)
    print(True, True)
e = np.exp(a_np - a_np.max(-1, keepdims=True))
print(np.isnan(e / e.sum(-1, keepdims=True)).sum(-1).tolist())
