#!/usr/bin/env bash
# Jitted functions on sharded inputs vs numpy, over 1-D and 2-D meshes and every spec
# combination of the inputs (scripts/test.sh runs every tests/numerics/*/run_oracle.sh with the
# shard binary and adds the counts of the last line, `N passed, N failed`). The control-flow
# cases turn themselves on once shard has jax.lax.fori_loop. Debian's /usr/bin/python3 has
# numpy (the pyenv python3 on PATH has none).
#   bash tests/numerics/jit/run_oracle.sh build/src/shard [-v] [-k SUBSTRING] [--keep DIR]
shard=$1
shift
flags=()
if "$shard" -c 'import jax; jax.lax.fori_loop' >/dev/null 2>&1; then
  flags+=(--with-control-flow)
fi
exec /usr/bin/python3 "$(dirname "$0")/jit_oracle.py" "$shard" "${flags[@]}" "$@"
