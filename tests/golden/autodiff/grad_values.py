# Regenerates grad_values.out: numpy's print of the analytic derivatives in grad_values.shard.
import numpy as np

x = np.arange(4.0, dtype=np.float32)
print(3 * x * x)
print(np.float32(12.0))
print(f"{np.sum(x * x)!r}".replace("np.float32(", "").replace(")", ""), 2 * x)
w = np.arange(6.0, dtype=np.float32).reshape(3, 2)
xs = np.arange(12.0, dtype=np.float32).reshape(4, 3)
print(2 * xs.T @ np.ones((4, 2), np.float32))
print(np.full(2, 8.0, np.float32))
print(np.float32(np.sum(x * 4)), 4, np.full(4, 4.0, np.float32))
print(x * x, 2 * x)
print(f"(Array({np.array2string(np.full(4, 3.0, np.float32), separator=', ')}, dtype=float32), Array({np.array2string(x, separator=', ')}, dtype=float32, weak_type=True))")  # c = jnp.full(4, 3.0) is weak
print(x)
print(x)
print(2 * x)
# Python floats in a dict: weak-typed scalar gradients, as JAX prints them
print("{'a': Array(%s, dtype=float32, weak_type=True), 'b': [Array(%s, dtype=float32, weak_type=True)]}" % (np.array2string(np.float32(5.0)), np.array2string(np.float32(2.0))))
print(np.diag(2 * x))
print(np.diag(2 * x))
print(np.diag(6 * x))
