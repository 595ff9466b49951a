#!/usr/bin/env bash
# jnp.linalg / lax.linalg against numpy: values (float32 vs numpy float64), vmap and jit,
# batch dims sharded, and gradients against numpy finite differences in float64
# (scripts/test.sh runs every tests/numerics/*/run_oracle.sh with the shard binary).
#   bash tests/numerics/linalg/run_oracle.sh build/src/shard [-v] [-k SUBSTRING] [--keep DIR]
exec /usr/bin/python3 "$(dirname "$0")/linalg_oracle.py" "$@"
