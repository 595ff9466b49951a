#!/usr/bin/python3
# The numpy twin of dtypes_and_values.shard: its output is that golden's expected text
# (/usr/bin/python3 dtypes_and_values_numpy.py > dtypes_and_values.out).
import numpy as np

print(True)
print(np.zeros(3).dtype, np.ones((2, 2)).dtype, np.arange(4).dtype, np.arange(1.5).dtype)
print(np.linspace(0, 1, 5).dtype, np.eye(2).dtype, np.array(1.5).dtype, np.array(7).dtype)
print(np.full((2,), 3).dtype, np.full((2,), 0.5).dtype, np.array([1, 2]).dtype, np.array([1.0, 2]).dtype)
x = np.array(0.1) * 3
print(x, x == 0.30000000000000004)
print(np.float64(1) / 3)
print(np.arange(0.0, 1.0, 0.1))
print(np.linspace(0.0, 1.0, 7))
print(np.sqrt(np.arange(1.0, 6.0)))
print(np.exp(np.array([1e-10, 1.0, 20.0])) - 1)
big = np.array(2**40)
print(big + 1, (big * 1000).dtype, big * 1000)
print(np.arange(5) * 2**33)
print(np.array([2**62, -2**62]) // 3)
f = np.ones(2, dtype=np.float32)
print((f + 0.1).dtype, (f + np.ones(2)).dtype)
i = np.ones(2, dtype=np.int32)
print((i + 1).dtype, (i + np.arange(2)).dtype, (i * 1.5).dtype)
u = np.ones(2, dtype=np.uint32)
print((u + i).dtype, (u + 1).dtype)
print(np.sum(i).dtype, np.mean(np.arange(4)).dtype, np.argmax(np.array([3, 9, 2])).dtype)
print(np.mean(np.arange(10)), np.var(np.arange(10)), np.sum(np.arange(100000) * 100000))
print(np.cumsum(np.arange(1, 6) * 2**40))
a = np.arange(12.0).reshape(3, 4) / 7
print(a @ a.T)
print(np.max(a, axis=1), np.argmin(a, axis=0))
