#!/usr/bin/env bash
# Runs every benchmark side by side with its reference in one run and prints ratios
# (reference time / shard time: > 1 means shard is faster). Not part of the test suite.
#   bash tests/bench/run.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
shard=$build/src/shard
py=/usr/bin/python3  # Debian's python3 has numpy

# side_by_side SHARD_PROGRAM NUMPY_PROGRAM: pairs their "name seconds" lines in order.
side_by_side() {
  paste <("$shard" "$1") <("$py" "$2") | while read -r name s _ n; do
    awk -v name="$name" -v s="$s" -v n="$n" 'BEGIN {
      unit = (s < 1e-3) ? 1e6 : 1e3; u = (s < 1e-3) ? "us" : "ms";
      printf "%-20s shard %9.2f %s   numpy %9.2f %s   numpy/shard %.4gx\n", name, s*unit, u, n*unit, u, n/s }'
  done
}

echo "== eager ops (8 devices available; arrays on device 0)"
side_by_side "$here/eager_ops.shard" "$here/numpy_eager_ops.py"

echo "== jit (8 devices; numpy's compile_*/retrace_* is one eager run of the same ops)"
side_by_side "$here/jit_ops.shard" "$here/numpy_jit_ops.py"

echo "== shard_map collectives (8 devices; numpy copies the bytes one device ends with)"
side_by_side "$here/shard_map_collectives.shard" "$here/numpy_memcpy.py"

if [ -x "$build/tests/bench/bench_collectives" ]; then
  echo "== runtime collectives (8 device threads)"
  "$build/tests/bench/bench_collectives"
fi
