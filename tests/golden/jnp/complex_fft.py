# Regenerates complex_fft.out with numpy (the complex64 results JAX gives, printed by numpy).
import numpy as np

c = lambda a: np.asarray(a, np.complex64)


def jax_repr(a, weak=False):
    """JAX's ArrayImpl.__repr__ over numpy's array2string."""
    prefix = "Array("
    dtype_str = f"dtype={a.dtype.name}" + (", weak_type=True)" if weak else ")")
    s = np.array2string(a, prefix=prefix, suffix=",", separator=", ", max_line_width=75)
    last_line_len = len(s) - s.rfind("\n") + 1
    sep = " " if last_line_len + len(dtype_str) + 1 <= 75 else " " * len(prefix)
    return f"{prefix}{s},{sep}{dtype_str}"


f = lambda a: np.asarray(a, np.float32)
z = c([1 + 2j, 3 - 4.5j, -0.5 + 0j, 0j, -1j])
print(z)
print(jax_repr(z))
print(z.dtype, z.real, z.imag)
print(jax_repr(c([1e10 + 1j, 1])))
print(jax_repr(c([complex("nan") + 1j, complex(1, float("inf")), -np.inf])))
print(c(1 + 2j), jax_repr(c(2.5j), weak=True))
print(np.zeros((2, 2), np.complex64))
print(c(np.ones(3) * (2 - 1j)))
print(np.array([1 + 2j, 3]), np.array([1 + 2j, 3], np.complex64).dtype)
print(complex(c(3 - 4j)), complex(c(3 - 4j)), f(np.abs(3 - 4j)))

x = f([1.0, 2.0, 3.0, 4.0])
F = np.fft
print(c(F.fft(x)))
print(c(F.ifft(F.fft(x))))
print(c(F.rfft(x)), f(F.irfft(F.rfft(x))))
print(c(F.fft(np.ones(8))), np.complex64(0).dtype)
print(c(F.fft2(f([[1.0, 2.0], [3.0, 4.0]]))))
print(c(F.fftn(np.ones((2, 2, 2)))))
print(c(F.fft(x, n=2)), c(F.fft(f([1.0, 1.0]), n=4)))
print(c(F.ifft(f([4.0, 0, 0, 0]), norm="forward")), c(F.fft(x, norm="forward")))
print(f(F.hfft(f([1.0, 2.0, 3.0]))))
print(c(x * 1j), c((x + 1j) * (x - 1j)))
print(c(np.conj(x + 2j)), f(np.angle(c([1j, -1, 1]))))
