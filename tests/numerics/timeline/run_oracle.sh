#!/usr/bin/env bash
# `shard --trace FILE.json` writes a valid Chrome-trace timeline (scripts/test.sh runs every
# tests/numerics/*/run_oracle.sh with the shard binary). Debian's /usr/bin/python3 checks it.
exec /usr/bin/python3 "$(dirname "$0")/timeline_check.py" "$1"
