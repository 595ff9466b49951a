#!/usr/bin/env bash
# jnp.fft and complex arithmetic against numpy: values (complex64 vs numpy complex128), jit,
# vmap, batch dims sharded, and gradients through complex values against numpy finite
# differences in float64 (scripts/test.sh runs every tests/numerics/*/run_oracle.sh).
#   bash tests/numerics/fft/run_oracle.sh build/src/shard [-v] [-k SUBSTRING] [--keep DIR]
exec /usr/bin/python3 "$(dirname "$0")/fft_oracle.py" "$@"
