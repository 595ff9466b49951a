#!/usr/bin/env bash
# Builds shard and runs every test: the Catch2 unit tests, then the golden tests
# (tests/golden, and examples/ against their .out files). The last line is exactly "N passed, N failed" (unit test cases + goldens);
# the exit status is non-zero if anything failed or did not build.
#   bash scripts/test.sh          (BUILD_DIR=build by default)
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD_DIR:-build}

bash scripts/setup.sh || { echo "setup failed"; echo "0 passed, 1 failed"; exit 1; }
source scripts/build_env.sh
passed=0 failed=0
if ! configure_and_build "$BUILD"; then
  # Counted as one failure; whatever did build is still run, for information.
  echo "== BUILD FAILED (counted as 1 failure)"
  failed=1
  [ -f "$BUILD/build.ninja" ] || { echo "0 passed, 1 failed"; exit 1; }
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# ---- Catch2 unit tests ----
unit="$BUILD/tests/unit_tests"
if [ -x "$unit" ]; then
  echo "== unit tests ($unit)"
  "$unit" 2>&1 | tee "$log"
  unit_status=${PIPESTATUS[0]}
  # Catch2 v2 ends with either "All tests passed (A assertions in M test cases)" or
  # "test cases: M | P passed | F failed" (the "| P passed" part is absent when P is 0).
  if line=$(grep -E '^All tests passed' "$log" | tail -n 1) && [ -n "$line" ]; then
    unit_passed=$(sed -E 's/.* in ([0-9]+) test cases?\).*/\1/' <<< "$line")
    unit_failed=0
  elif line=$(grep -E '^test cases:' "$log" | tail -n 1) && [ -n "$line" ]; then
    unit_passed=$(grep -oE '[0-9]+ passed' <<< "$line" | grep -oE '[0-9]+' || echo 0)
    unit_failed=$(grep -oE '[0-9]+ failed' <<< "$line" | grep -oE '[0-9]+' || echo 0)
  else
    unit_passed=0 unit_failed=0
  fi
  # A crash or an unreadable summary still counts as a failure.
  if [ "$unit_status" -ne 0 ] && [ "$unit_failed" -eq 0 ]; then
    echo "unit tests exited with status $unit_status"
    unit_failed=1
  fi
  echo "unit tests: $unit_passed passed, $unit_failed failed"
  passed=$((passed + unit_passed)) failed=$((failed + unit_failed))
else
  echo "== unit tests: $unit not built"
  [ "$failed" -gt 0 ] || failed=1  # already counted if the build failed
fi

# ---- golden tests ----
shard=$(shard_binary "$BUILD")
echo "== golden tests ($shard test tests/golden examples)"
if [ -x "$shard" ]; then
  "$shard" test tests/golden examples 2>&1 | tee "$log"  # examples/*.out: what each example prints
  golden_status=${PIPESTATUS[0]}
else
  echo "$shard not built"
  : > "$log"
  golden_status=1
fi
if line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1) && [ -n "$line" ]; then
  golden_passed=$(cut -d' ' -f1 <<< "$line")
  golden_failed=$(cut -d' ' -f3 <<< "$line")
else
  golden_passed=0 golden_failed=1
fi
if [ "$golden_status" -ne 0 ] && [ "$golden_failed" -eq 0 ]; then golden_failed=1; fi
passed=$((passed + golden_passed)) failed=$((failed + golden_failed))

# ---- numpy-oracle tests (numpy is the independent reference) ----
# Each prints "N passed, N failed" last. Debian's /usr/bin/python3 has numpy.
run_oracle() {  # name, command...
  local name=$1
  shift
  echo "== $name"
  "$@" 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]} p=0 f=1
  if line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1) && [ -n "$line" ]; then
    p=$(cut -d' ' -f1 <<< "$line")
    f=$(cut -d' ' -f3 <<< "$line")
  fi
  if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  passed=$((passed + p)) failed=$((failed + f))
}
run_oracle "array printing vs numpy" /usr/bin/python3 tests/numerics/print_oracle.py "$BUILD/tests/numerics/print_driver"
for oracle in tests/numerics/*/run_oracle.sh; do
  [ -f "$oracle" ] && run_oracle "$(basename "$(dirname "$oracle")") vs numpy" bash "$oracle" "$shard"
done
run_oracle "REPL (tmux session, piped stdin)" bash tests/repl/run_oracle.sh "$shard"
run_oracle "--time-passes (timings: checked by shape)" bash tests/cli/run_time_passes_check.sh "$shard"
run_oracle "--stats times, --trace host track, jax.profiler files" bash tests/cli/run_profiler_check.sh "$shard"
run_oracle "bad arguments are said, not ignored" bash tests/cli/run_bad_arguments_check.sh "$shard"
run_oracle "Ctrl-C: KeyboardInterrupt, and devices stop" bash tests/cli/run_interrupt_check.sh "$shard"
run_oracle "memory: cycles collected, nothing leaked at exit" bash tests/cli/run_memory_check.sh "$shard"
run_oracle "fuzzers: jit pipeline vs numpy, hostile API calls (fixed seed)" bash tests/fuzz/run_fuzz_check.sh "$shard"
run_oracle "embedding API example" "$BUILD/examples/embed/embed_example"
run_oracle "libshard installed: SONAME, exported symbols, pkg-config" bash tests/embed/run_installed_check.sh "$BUILD"
run_oracle "libshard: Interpreters on three threads at once" "$BUILD/tests/embed_threads_stress"
run_oracle "multiple processes (mpirun -np 2 and 4) vs one process; faults" bash tests/multiprocess/run.sh "$shard"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
