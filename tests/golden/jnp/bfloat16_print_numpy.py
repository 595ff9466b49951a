"""Expected output of bfloat16_print.shard. numpy has no bfloat16: values are rounded to
bfloat16 here from their float32 bits (round to nearest, ties to even), kept as float32, and
printed as ml_dtypes prints bfloat16 arrays: numpy's array2string (default options) calling
the element type's repr, which is C++ `std::ostringstream << float(x)` (printf's %g; NaN
without its sign), so there is no common width. The repr is JAX's Array.__repr__
(jax/_src/array.py). Regenerate the .out with
    /usr/bin/python3 bfloat16_print_numpy.py > bfloat16_print.out
"""
import numpy as np


def bf16(x):
    u = np.atleast_1d(np.asarray(x, dtype=np.float32)).view(np.uint32).astype(np.uint64)
    k = np.uint64
    r = (((u + k(0x7FFF) + ((u >> k(16)) & k(1))) >> k(16)) << k(16)).astype(np.uint32).view(np.float32)
    return r.reshape(np.shape(x))


def element(v):
    return "nan" if np.isnan(v) else "%g" % float(v)


FMT = {"float_kind": element}


def jax_repr(a):
    prefix = "Array("
    dtype_str = "dtype=bfloat16"
    line_width = np.get_printoptions()["linewidth"]
    s = np.array2string(a, prefix=prefix, suffix=",", separator=", ", max_line_width=line_width, formatter=FMT)
    last_line_len = len(s) - s.rfind("\n") + 1
    sep = " "
    if last_line_len + len(dtype_str) + 2 > line_width:
        sep = " " * len(prefix)
    return f"{prefix}{s},{sep}{dtype_str})"


def show(a):
    a = np.asarray(a, dtype=np.float32)
    return element(a[()]) if a.ndim == 0 else np.array2string(a, formatter=FMT)


x = bf16([1.0, 2.5, 3.14159])
print(show(x))
print(jax_repr(x))
print("bfloat16", 2, "bfloat16")
y = bf16([0.0, -0.0, 1e-05, 123456.0, 3.4e38, 1e-40, 0.1, 1 / 3, -7.25, 1e6])
print(show(y))
print(jax_repr(y))
print(show(bf16([float("nan"), float("inf"), -float("inf"), 1.0])))
print(jax_repr(bf16(np.arange(12, dtype=np.float32).reshape(3, 4) / np.float32(3))))
print(show(bf16(bf16(np.arange(2000, dtype=np.float32)) * np.float32(1.5))))
print(jax_repr(bf16(np.linspace(0, 1, 40).astype(np.float32))))
print(show(x[2]), jax_repr(np.asarray(x[2])))
print(show(bf16(1.5)), jax_repr(bf16(1.5)))
print(jax_repr(np.zeros((2, 2), np.float32)))
print(show(bf16(bf16(np.float32(3.14159)) + np.float32(1))))
