# Regenerates fft_helpers.out: numpy.fft's helpers on the inputs of fft_helpers.shard.
import numpy as np

print(np.fft.fftfreq(8), np.fft.fftfreq(5, d=0.25), np.fft.rfftfreq(8), np.fft.rfftfreq(5, 2.0))
x = np.arange(10).reshape(2, 5)
print(np.fft.fftshift(np.arange(7)), np.fft.ifftshift(np.arange(7)), np.fft.ifftshift(np.fft.fftshift(np.arange(8))))
print(np.fft.fftshift(x), np.fft.fftshift(x, axes=1), np.fft.ifftshift(x, axes=(0,)))
print(np.fft.fftshift(np.fft.fftfreq(6)).astype(np.float32), np.fft.ifftshift(np.arange(6.0)))
