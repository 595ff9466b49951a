"""memcpy reference for shard_map_collectives.shard: copies SIZE bytes (what one device holds
after each collective) with numpy, the same lines in the same order: "name seconds"."""
import time

import numpy as np


def best_of(n, f):
    best = 1e9
    for _ in range(n):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best


for label, size, reps in [("1MiB", 1 << 20, 20), ("64MiB", 64 << 20, 2)]:
    src = np.ones(size // 4, dtype=np.float32)
    dst = np.empty_like(src)

    def many():
        for _ in range(reps):
            np.copyto(dst, src)
    t = best_of(3, many) / reps
    for kind in ("psum", "all_gather", "all_to_all"):
        print(f"{kind}_{label}", t)
