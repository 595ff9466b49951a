#!/usr/bin/env bash
# jax_enable_x64 numerics and dtypes against numpy's float64 / int64 (scripts/test.sh runs
# every tests/numerics/*/run_oracle.sh with the shard binary).
exec /usr/bin/python3 "$(dirname "$0")/x64_oracle.py" "$1"
