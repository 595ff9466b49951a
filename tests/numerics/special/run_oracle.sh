#!/usr/bin/env bash
# The gamma family and the normal distribution (jax.lax.lgamma / digamma / polygamma,
# jax.scipy.special) against 40-digit decimal references (scripts/test.sh runs every
# tests/numerics/*/run_oracle.sh with the shard binary).
exec /usr/bin/python3 "$(dirname "$0")/special_oracle.py" "$1"
