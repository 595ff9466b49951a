# The memcpy bound for tests/bench/placement.shard: one copy of the same 512 MiB (best of 3),
# printed once per shard line.
import time
import numpy as np

a = np.ones((128 << 20,), np.float32)
best = 1e9
for _ in range(3):
    t = time.perf_counter()
    b = a.copy()
    best = min(best, time.perf_counter() - t)
for name in ("device_put_512MiB_sharded", "device_put_512MiB_replicated", "to_host_512MiB"):
    print(name, best)
