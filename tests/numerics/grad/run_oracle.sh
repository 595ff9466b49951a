#!/usr/bin/env bash
# jax.grad / jvp / vjp against finite differences computed by numpy in float64
# (scripts/test.sh runs every tests/numerics/*/run_oracle.sh with the shard binary).
exec /usr/bin/python3 "$(dirname "$0")/grad_oracle.py" "$1"
