#!/usr/bin/env bash
# float16 / bfloat16 device arrays against numpy computed per op through float32 (bfloat16
# emulated from float32 bits); scripts/test.sh runs every tests/numerics/*/run_oracle.sh with
# the shard binary. Debian's /usr/bin/python3 has numpy.
#   bash tests/numerics/dtypes16/run_oracle.sh build/src/shard [-v] [-k SUBSTRING] [--keep DIR]
exec /usr/bin/python3 "$(dirname "$0")/dtypes16_oracle.py" "$@"
