#!/usr/bin/env bash
# shard's host numpy.random against numpy itself: the same program's printed streams must be
# identical (scripts/test.sh runs every tests/numerics/*/run_oracle.sh with the shard binary).
# Debian's /usr/bin/python3 has numpy.
exec /usr/bin/python3 "$(dirname "$0")/np_random_oracle.py" "$1"
