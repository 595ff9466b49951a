#!/usr/bin/env bash
# A short fixed-seed run of both fuzzers (issue 19, "Keep it so"): the differential fuzzer of
# the jit pipeline (eager / jit / sharded jit vs numpy) and the API fuzzer (hostile arguments:
# only crashes fail). About 25 s each. Failures of known, unfixed bugs (reproducers in
# tests/fuzz/found/) are counted apart (--allow-known). Picked up by scripts/test.sh.
# Longer runs: docs/fuzzing.md. Last line: "N passed, N failed".
#   bash tests/fuzz/run_fuzz_check.sh build/src/shard
set -uo pipefail
SHARD=$(realpath "${1:?usage: run_fuzz_check.sh SHARD}")
here=$(dirname "$0")
passed=0 failed=0
run() {  # fuzzer, arguments...
  local out status line
  out=$(/usr/bin/python3 "$@" 2>&1); status=$?
  echo "$out" | tail -n 20
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' <<< "$out" | tail -n 1)
  if [ -z "$line" ]; then
    failed=$((failed + 1)); return
  fi
  passed=$((passed + $(cut -d' ' -f1 <<< "$line")))
  local f=$(cut -d' ' -f3 <<< "$line")
  if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  failed=$((failed + f))
}
run "$here/differential_fuzz.py" "$SHARD" --seed 1 --cases 1000 --time-limit 25 --allow-known
run "$here/api_fuzz.py" "$SHARD" --seed 1 --cases 400 --time-limit 25 --allow-known
echo "$passed passed, $failed failed"
