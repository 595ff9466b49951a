#!/usr/bin/env bash
# jax.random against an independent numpy model of JAX's threefry2x32 PRNG (scripts/test.sh
# runs every tests/numerics/*/run_oracle.sh with the shard binary). Debian's /usr/bin/python3
# has numpy.
exec /usr/bin/python3 "$(dirname "$0")/random_oracle.py" "$1"
