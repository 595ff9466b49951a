"""Expected output of float16_print.shard: the same arrays made by numpy float16 (each op in
float16 as numpy computes it: in float32, rounded to float16), printed by numpy's str and by
JAX's Array.__repr__ (jax/_src/array.py: np.array2string with prefix 'Array(', suffix ',',
separator ', ', then the dtype on the last line when it fits). Regenerate the .out with
    /usr/bin/python3 float16_print_numpy.py > float16_print.out
"""
import numpy as np


def jax_repr(a):
    prefix = "Array("
    dtype_str = f"dtype={a.dtype.name}"
    line_width = np.get_printoptions()["linewidth"]
    s = np.array2string(a, prefix=prefix, suffix=",", separator=", ", max_line_width=line_width)
    last_line_len = len(s) - s.rfind("\n") + 1
    sep = " "
    if last_line_len + len(dtype_str) + 2 > line_width:
        sep = " " * len(prefix)
    return f"{prefix}{s},{sep}{dtype_str})"


f16 = np.float16
vals = [0.0, -0.0, 1.0, 1.5, 3.140625, 65504.0, 6e-08, 0.0001, 0.1, 1 / 3, 2048.0, 2049.0, -7.25]
x = np.array(vals, dtype=f16)
print(x)
print(jax_repr(x))
print(x.dtype, x.dtype.itemsize, x.shape)
print(np.array([1.0, 2.5, 4.0], f16))
print(jax_repr(np.array([1.0, 2.5, 4.0], f16)))
print(np.array([[1.0, 2.5], [10000.0, 3e-05]], dtype=f16))
print(jax_repr(np.array([[1.0, 2.5], [10000.0, 3e-05]], dtype=f16)))
print(np.array([float("nan"), float("inf"), -float("inf"), 1.0], dtype=f16))
print(jax_repr(np.array([0.1, 0.2, 0.3], dtype=f16) * f16(3)))
print(np.arange(2000, dtype=f16) / f16(7))
print(jax_repr(np.arange(24, dtype=f16).reshape(2, 3, 4) / f16(3)))
print(np.linspace(0, 1, 11).astype(np.float32).astype(f16))
s = x[4]
print(s)
print(jax_repr(np.asarray(s)))
print(f16(2.5), jax_repr(np.asarray(f16(2.5))))
print(np.zeros((2, 2), f16))
print(jax_repr(np.ones(3, dtype="float16")))
