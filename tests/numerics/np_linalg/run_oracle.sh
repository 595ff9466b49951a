#!/usr/bin/env bash
# numpy.linalg in shard (host arrays) against numpy 1.24 itself: each case is one numpy
# expression, evaluated by shard's numpy and by /usr/bin/python3's numpy on the same inputs,
# compared in float64 at 1e-12 (normwise) and in float32 at 2e-6, dtypes and shapes exactly
# (scripts/test.sh runs every tests/numerics/*/run_oracle.sh with the shard binary).
#   bash tests/numerics/np_linalg/run_oracle.sh build/src/shard [-v] [-k SUBSTRING] [--keep DIR]
exec /usr/bin/python3 "$(dirname "$0")/np_linalg_oracle.py" "$@"
