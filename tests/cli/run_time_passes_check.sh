#!/usr/bin/env bash
# --time-passes outside the golden runner (its table has timings, which a golden cannot
# compare): the table goes to stderr at exit with one row per compile pipeline stage, each
# counting the programs compiled; stdout is untouched. Picked up by scripts/test.sh. Last
# line: "N passed, N failed".
#   bash tests/cli/run_time_passes_check.sh build/src/shard
set -uo pipefail
SHARD=$(realpath "${1:?usage: run_time_passes_check.sh SHARD}")
passed=0 failed=0
check() {  # description, command status (0 = ok)
  if [ "$2" -eq 0 ]; then
    echo "ok   $1"; passed=$((passed + 1))
  else
    echo "FAIL $1"; failed=$((failed + 1))
  fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/prog.shard" <<'PY'
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    return jnp.sin(x) + 1.0

x = jnp.arange(8.0)
print(f(x)[0])
print(f(x)[1])
PY
(cd "$tmp" && env -u SHARD_DEVICES NO_COLOR=1 "$SHARD" --time-passes prog.shard > out.txt 2> err.txt)
check "runs with --time-passes" $?
(cd "$tmp" && env -u SHARD_DEVICES NO_COLOR=1 "$SHARD" prog.shard > out2.txt 2> err2.txt)
check "stdout is the script's own (as without the flag)" "$(cmp -s "$tmp/out.txt" "$tmp/out2.txt"; echo $?)"
check "stdout is not empty" "$( [ -s "$tmp/out.txt" ]; echo $?)"
grep -q '^===--- compile pipeline timing (--time-passes) ---===$' "$tmp/err.txt"
check "stderr has the table's title" $?
grep -qE '^stage +programs +wall ms +share$' "$tmp/err.txt"
check "the table has its column heads" $?
# Every stage, in pipeline order, with at least one program (f, and the eager ops around it).
stages=$(grep -oE '^(verify-traced|partition|device-passes|verify-device|lower|jit|total) +[1-9][0-9]* +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]%$' \
           "$tmp/err.txt" | awk '{print $1}' | tr '\n' ' ')
check "one row per stage with programs, ms and share" \
  "$( [ "$stages" == "verify-traced partition device-passes verify-device lower jit total " ]; echo $?)"
grep -qE '^total +[0-9]+ +[0-9.]+ +100\.0%$' "$tmp/err.txt"
check "the total is 100%" $?
check "no table without --time-passes" "$( [ ! -s "$tmp/err2.txt" ]; echo $?)"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
