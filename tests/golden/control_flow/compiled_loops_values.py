"""Expected output of compiled_loops.shard, computed with numpy in float32 by plain Python
loops (the same operations in the same order). Regenerate the .out with
    /usr/bin/python3 compiled_loops_values.py > compiled_loops.out
"""
import numpy as np

f32 = np.float32

# fori_loop on a scalar
c = f32(0)
for _ in range(10000):
    c = c * f32(0.999) + f32(1)
print(c)

# while_loop on a [1024] carry
n, x = 0, np.arange(1024, dtype=f32)
while x.max() > f32(2.0):
    n, x = n + 1, x * f32(0.5) + f32(0.75)
print(n, x[:3], x[-2:])


def clamp(v, lo, hi):
    return max(lo, min(v, hi))


def start(v, dim, size):  # lax.dynamic_slice: a negative start counts from the end, then clamps
    return clamp(v + dim if v < 0 else v, 0, dim - size)


# fori_loop with dynamic slices
src = np.arange(24, dtype=f32).reshape(6, 4)
t = np.zeros((6, 4), f32)
for i in range(6):
    r, col = start(i + 3, 6, 1), start(i - 2, 4, 2)
    t[i:i + 1, 1:3] = src[r:r + 1, col:col + 2] * f32(i)
print(t)
big = np.arange(4000, dtype=f32).reshape(1000, 4)
tb = np.zeros((1000, 4), f32)
for i in range(10):
    tb[i] = big[999 - i] + f32(0.5)
print(tb[:3], tb[9:11])

# scan with xs and stacked ys
xs = np.arange(12, dtype=f32).reshape(4, 3)
for rev in (False, True):
    c, ys2, sums = np.zeros(3, f32), [None] * 4, [None] * 4
    for k in (range(3, -1, -1) if rev else range(4)):
        c = c + xs[k]
        ys2[k], sums[k] = c * f32(2.0), c.sum()
    print(c, np.stack(ys2), np.array(sums, f32))
c, ys = f32(0), []
for x in np.arange(1000, dtype=f32) / f32(1000):
    ys.append(c * x)
    c = c + x
ys = np.array(ys, f32)
print(c, ys[::250], ys[-1])

# cond and switch
v = np.arange(5, dtype=f32)
print(v[::-1] * f32(2.0), np.concatenate([v[1:], v[:1]]) + f32(1.0))
v = np.arange(4, dtype=np.int32)
branches = [lambda v: v + 1, lambda v: v * v, lambda v: v - 1]
print([branches[clamp(i, 0, 2)](v).tolist() for i in (-2, 0, 1, 2, 7)])

# zero trips
print(np.ones(2, f32))
print(np.arange(300, dtype=f32).sum())
print(f32(0), np.zeros(0, f32), (0,))

# nesting
c, sums = np.ones(2, f32), []
for x in np.arange(4, dtype=f32):
    for _ in range(3):
        c = c * f32(0.5) + x
    sums.append(c.sum())
print(c, np.array(sums, f32))
m, steps = 27, 0
while m != 1:
    m, steps = (m // 2 if m % 2 == 0 else 3 * m + 1), steps + 1
print(m, steps)

# pass-through carries and a twin result
big_c, small_c, keep = np.zeros(100, f32), np.ones(3, np.int32), np.arange(70, dtype=f32)
for _ in range(4):
    big_c, small_c = big_c + f32(1.0), small_c * 2
print(big_c[:2], small_c, keep[-1])
a = b = np.ones(80, f32)
for _ in range(3):
    a = b = a + b
print(a[:2], b[-1:])

# vmap of a while loop; grad of x -> x**3 at 2
out = []
for n in (1, 5, 100):
    c = 1
    while c < n:
        c *= 2
    out.append(c)
print(np.array(out, np.int32))
print(f32(3 * 2.0 ** 2))

# C++ kernels in bodies
w = (np.arange(16, dtype=f32).reshape(4, 4) - f32(8)) / f32(16)
h, best = np.ones(4, f32), []
for x in np.arange(12, dtype=f32).reshape(3, 4):
    best.append(np.argmax(h))
    h = h @ w + x
print(h, np.array(best, np.int32))
v, total = np.array([3.0, 1.0, 2.0, 5.0, 0.0, 4.0], f32), 0
for _ in range(4):
    v = np.sort(v * f32(-1.5) + np.arange(6, dtype=f32))
    total += np.argmax(np.abs(v - f32(5.0)))
print(v, total)
print(np.cumsum(np.arange(5, dtype=np.int32)))
c = np.zeros(5, np.int32)
for i in range(3):
    c = c + np.arange(5, dtype=np.int32) * i
print(c)

# the step path: psum of [0, 1] and [2, 3] added 3 times
print(f32(3) * (np.arange(2, dtype=f32) + np.arange(2, 4, dtype=f32)))
