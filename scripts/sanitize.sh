#!/usr/bin/env bash
# Sanitizer runs (issue 19, "Keep it so"); docs/sanitizers.md says what each stage covers,
# how long it takes, and how to read a report.
#
#   bash scripts/sanitize.sh [--asan-only | --tsan-only] [--fuzz-minutes N] [--leaks-fatal]
#
# 1. ASan + UBSan (clang-19, -O1, line tables): configures a meson build directory outside the
#    repo (SANITIZE_BUILD_DIR, default ../shard-sanitize-build/asan next to the checkout) and
#    builds only what the tests run (shard, unit_tests, print_driver, the embedding programs).
#    Runs the Catch2 unit tests, the goldens (tests/golden, examples), the numpy oracles that
#    finish under ASan in a few minutes (ASAN_ORACLES below; the others are listed with why),
#    the embedding programs, and the API fuzzer for --fuzz-minutes (default 5) with a random
#    seed (SANITIZE_FUZZ_SEED to replay one), all with detect_leaks=0 and halt_on_error=1.
#    Then a leak pass: the goldens again with detect_leaks=1, counting the goldens that leak.
#    Leaks fail the run only with --leaks-fatal (to turn on once the cycle collector leaves no
#    golden leaking).
# 2. TSan (clang-19, -O1): a second build directory (SANITIZE_TSAN_BUILD_DIR, default
#    ../shard-sanitize-build/tsan) with the embedding programs (libshard: Interpreters on
#    several threads) and a Catch2 binary of the device-runtime tests only (runtime/ and
#    tests/unit/test_{runtime,collectives,processes}.cpp: device threads, rendezvous,
#    collectives), compiled here against the TSan build's libshard_runtime.a; then the goldens
#    with the TSan build's shard (races in whole programs; clang's output against gcc's).
# 3. A summary: each stage's verdict, counts and wall time. Exit status 0 when every stage
#    passed (skipped stages do not fail the run).
#
# Sanitizer reports in third-party code (LLVM, OpenBLAS, Open MPI, libstdc++) are suppressed by
# tests/sanitize/*.supp, one reason per entry. Builds and runs are niced and use -j2
# (SANITIZE_JOBS): the machines this runs on have two cores.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
source scripts/build_env.sh   # LLVM 19's bin directory on PATH (meson finds llvm-config)

run_asan=1 run_tsan=1 fuzz_minutes=5 leaks_fatal=0
while [ $# -gt 0 ]; do
  case $1 in
    --asan-only) run_tsan=0 ;;
    --tsan-only) run_asan=0 ;;
    --fuzz-minutes) fuzz_minutes=${2:?--fuzz-minutes needs a number of minutes}; shift ;;
    --fuzz-minutes=*) fuzz_minutes=${1#*=} ;;
    --leaks-fatal) leaks_fatal=1 ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "sanitize.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if ! [[ $fuzz_minutes =~ ^[0-9]+$ ]]; then
  echo "sanitize.sh: --fuzz-minutes wants a whole number of minutes, got '$fuzz_minutes'" >&2; exit 2
fi

build_root=$(realpath -m "$repo/../shard-sanitize-build")
ASAN_DIR=$(realpath -m "${SANITIZE_BUILD_DIR:-$build_root/asan}")
TSAN_DIR=$(realpath -m "${SANITIZE_TSAN_BUILD_DIR:-$build_root/tsan}")
JOBS=${SANITIZE_JOBS:-2}
ORACLE_TIMEOUT=${SANITIZE_ORACLE_TIMEOUT:-300}   # seconds per oracle under ASan
GOLDEN_TIMEOUT=${SANITIZE_GOLDEN_TIMEOUT:-600}   # seconds per golden under ASan (60 normally)
logs="$build_root/logs"
# shard finds stdlib/ next to its source tree; these binaries live outside it.
export SHARD_STDLIB="$repo/stdlib"
mkdir -p "$logs"
supp="$repo/tests/sanitize"

# The numpy oracles run under ASan (besides print_oracle.py): all of them, about 11 min in all
# on a 2-core machine, the longest jit (3.5 min) and jnp (2.5 min) (docs/sanitizers.md). One still
# running after ORACLE_TIMEOUT is listed as unfinished, not failed, so a slower machine loses
# that oracle, not the run.
ASAN_ORACLES=(dtypes16 grad jit jnp linalg np_random optax random scalax shard_map timeline vmap x64)

# Shared runtime options. allocator_may_return_null: a huge allocation fails as it does
# without ASan (shard turns it into RESOURCE_EXHAUSTED) instead of aborting in the allocator.
# handle_segv=2: ASan keeps its SIGSEGV handler, so a segfault is reported with its stack
# rather than by shard's own "internal error: segmentation fault" handler.
asan_base="halt_on_error=1:abort_on_error=0:allocator_may_return_null=1:handle_segv=2:detect_odr_violation=0"
asan_base+=":suppressions=$supp/asan.supp"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$supp/ubsan.supp"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$supp/tsan.supp"

# ---- stage bookkeeping ----
stage_names=() stage_verdicts=() stage_counts=() stage_seconds=()
any_failed=0
record() {  # name verdict(pass|fail|skip) counts seconds
  stage_names+=("$1") stage_verdicts+=("$2") stage_counts+=("$3") stage_seconds+=("$4")
  [ "$2" = fail ] && any_failed=1
  printf '== %s: %s (%s) in %s\n' "$1" "$2" "$3" "$(fmt_seconds "$4")"
}
fmt_seconds() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
now() { date +%s; }

# "N passed, N failed" (the last such line of a log) -> "N N"; empty when there is none.
passed_failed() { grep -E '^[0-9]+ passed, [0-9]+ failed$' "$1" | tail -n 1 | awk '{print $1, $3}'; }

# Catch2 v2's summary -> "passed failed" (as scripts/test.sh reads it).
catch2_counts() {
  local line
  if line=$(grep -E '^All tests passed' "$1" | tail -n 1) && [ -n "$line" ]; then
    echo "$(sed -E 's/.* in ([0-9]+) test cases?\).*/\1/' <<< "$line") 0"
  elif line=$(grep -E '^test cases:' "$1" | tail -n 1) && [ -n "$line" ]; then
    echo "$(grep -oE '[0-9]+ passed' <<< "$line" | grep -oE '[0-9]+' || echo 0)" \
         "$(grep -oE '[0-9]+ failed' <<< "$line" | grep -oE '[0-9]+' || echo 0)"
  fi
}

# Sanitizer reports written to a log_path directory (one file per reporting process).
reports_in() { find "$1" -type f -name 'report*' 2>/dev/null | wc -l; }

# configure DIR SANITIZE-FLAGS...: meson setup with clang-19 once; ninja re-runs meson later.
configure() {
  local dir=$1 sanitize=$2
  shift 2
  [ -f "$dir/build.ninja" ] && return 0
  CC=clang-19 CXX=clang++-19 nice -n 10 meson setup "$dir" \
    -Doptimization=1 -Ddebug=false -Db_ndebug=false -Db_lundef=false "-Db_sanitize=$sanitize" \
    "-Dcpp_args=$*" "-Dcpp_link_args=$*"
}

# build_stage NAME DIR LOG TARGETS...: records the build's wall time.
build_stage() {
  local name=$1 dir=$2 log=$3 t0
  shift 3
  t0=$(now)
  echo "== $name: ninja -C $dir -j$JOBS $* (log $log)"
  if nice -n 10 ninja -C "$dir" -j"$JOBS" "$@" > "$log" 2>&1; then
    record "$name" pass "$(grep -c 'Compiling' "$log") objects compiled" $(($(now) - t0))
    return 0
  fi
  tail -n 40 "$log"
  record "$name" fail "see $log" $(($(now) - t0))
  return 1
}

# ---- ASan + UBSan ----
asan_stages() {
  local t0 log counts shard="$ASAN_DIR/src/shard" asan_logs="$logs/asan-reports"
  rm -rf "$asan_logs"; mkdir -p "$asan_logs"
  t0=$(now)
  # -fno-sanitize=function: that check reads a type signature just before every function
  # called through a pointer; kernels compiled by LLVM's JIT have none and may start on a fresh
  # page, so the check itself segfaults (the unit tests call kernels directly).
  if ! configure "$ASAN_DIR" address,undefined -gline-tables-only -fno-omit-frame-pointer \
      -fno-sanitize-recover=undefined -fno-sanitize=function > "$logs/asan-setup.log" 2>&1; then
    tail -n 30 "$logs/asan-setup.log"
    record "ASan build" fail "meson setup failed: $logs/asan-setup.log" $(($(now) - t0))
    return
  fi
  build_stage "ASan build" "$ASAN_DIR" "$logs/asan-build.log" \
    src/shard tests/unit_tests tests/numerics/print_driver examples/embed/embed_example \
    tests/embed_threads_stress || return
  export ASAN_OPTIONS="$asan_base:detect_leaks=0"

  # Catch2 unit tests: one process, halts at the first report.
  log="$logs/asan-unit.log"
  t0=$(now)
  nice -n 10 "$ASAN_DIR/tests/unit_tests" > "$log" 2>&1
  local status=$? reported
  read -r p f <<< "$(catch2_counts "$log")"
  reported=$(grep -cE '^(==[0-9]+==ERROR|SUMMARY: (Address|UndefinedBehavior)Sanitizer)|runtime error:' "$log")
  if [ -z "${p:-}" ]; then p=0 f=1; fi
  if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  [ "$reported" -gt 0 ] && grep -m5 -E 'ERROR: |runtime error:' "$log"
  record "ASan unit tests" "$([ "$f" -eq 0 ] && [ "$reported" -eq 0 ] && echo pass || echo fail)" \
    "$p cases passed, $f failed, $reported sanitizer report lines; $log" $(($(now) - t0))

  # Goldens: each test's stderr is part of its output, so a report fails that test (and names
  # it). shard's -j2 runs two at a time.
  golden_stage "ASan goldens" "$logs/asan-goldens.log" 0

  # The embedding programs (one Interpreter; three on threads) under ASan.
  embed_stage "ASan embedding" "$ASAN_DIR" "$logs/asan-embed.log"

  # API fuzzer: hostile jnp / lax / sharding calls, a fresh seed each run.
  fuzz_stage "$shard"

  # Leak pass: the goldens with LeakSanitizer on.
  export ASAN_OPTIONS="$asan_base:detect_leaks=1"
  golden_stage "ASan leak pass (goldens)" "$logs/asan-leaks.log" 1
  export ASAN_OPTIONS="$asan_base:detect_leaks=0"

  # numpy oracles: reports go to files, as the oracles read shard's stdout and stderr.
  log="$logs/asan-oracles.log"
  : > "$log"
  local total_p=0 total_f=0 names_failed=() unfinished=() ran=0
  t0=$(now)
  oracle_run "print" "$log" /usr/bin/python3 tests/numerics/print_oracle.py "$ASAN_DIR/tests/numerics/print_driver"
  for name in "${ASAN_ORACLES[@]}"; do
    oracle_run "$name" "$log" bash "tests/numerics/$name/run_oracle.sh" "$shard"
  done
  record "ASan oracles" "$([ "$total_f" -eq 0 ] && echo pass || echo fail)" \
    "$ran oracles, $total_p checks passed, $total_f failed${names_failed:+ in ${names_failed[*]}}${unfinished:+; unfinished in $ORACLE_TIMEOUT s: ${unfinished[*]}}; $log" \
    $(($(now) - t0))
}

# oracle_run NAME LOG COMMAND...: one oracle with its own report directory; adds its counts.
oracle_run() {
  local name=$1 log=$2 out="$logs/asan-oracle-$1.log" dir="$logs/asan-reports/oracle-$1" t1 status pf p f n
  shift 2
  mkdir -p "$dir"
  t1=$(now)
  ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$dir/report" UBSAN_OPTIONS="$UBSAN_OPTIONS:log_path=$dir/report" \
    nice -n 10 timeout "$ORACLE_TIMEOUT" "$@" > "$out" 2>&1
  status=$?
  pf=$(passed_failed "$out")
  read -r p f <<< "${pf:-0 1}"
  n=$(reports_in "$dir")
  local note=""
  if [ "$status" -eq 124 ] && [ "$n" -eq 0 ]; then
    # Out of time without a report: slow under ASan, not failed (the normal suite runs it whole).
    p=0 f=0 note=" (unfinished after $ORACLE_TIMEOUT s: not counted)"
    unfinished+=("$name")
  else
    [ "$status" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  fi
  [ "$n" -gt 0 ] && f=$((f + n)) note+=" ($n sanitizer reports in $dir)"
  printf '%-10s %5d passed %4d failed  %s%s\n' "$name" "$p" "$f" "$(fmt_seconds $(($(now) - t1)))" "$note" | tee -a "$log"
  total_p=$((total_p + p)) total_f=$((total_f + f)) ran=$((ran + 1))
  [ "$f" -gt 0 ] && names_failed+=("$name")
}

# golden_stage NAME LOG LEAK_PASS: the goldens under the current ASAN_OPTIONS. In the leak
# pass a golden whose output holds a LeakSanitizer report is counted as leaking.
golden_stage() {
  local name=$1 log=$2 leak_pass=$3 t0 pf p f leaking other
  t0=$(now)
  nice -n 10 "$ASAN_DIR/src/shard" test -j "$JOBS" --timeout "$GOLDEN_TIMEOUT" tests/golden examples > "$log" 2>&1
  pf=$(passed_failed "$log")
  read -r p f <<< "${pf:-0 1}"
  # A failing test's report starts with "FAIL name"; count those whose diff has a report.
  leaking=$(awk '/^FAIL /{t=$2} /LeakSanitizer: detected memory leaks/{if (t != "" && !(t in s)) {s[t]=1; n++}} END{print n+0}' "$log")
  other=$(awk '/^FAIL /{t=$2} /ERROR: AddressSanitizer|runtime error:|ERROR: UndefinedBehaviorSanitizer/{if (t != "" && !(t in s)) {s[t]=1; n++}} END{print n+0}' "$log")
  if [ "$leak_pass" -eq 1 ]; then
    local verdict=pass
    [ "$leaks_fatal" -eq 1 ] && [ "$leaking" -gt 0 ] && verdict=fail
    [ "$((f - leaking))" -gt 0 ] && verdict=fail
    record "$name" "$verdict" "$leaking of $((p + f)) goldens leak$([ "$leaks_fatal" -eq 1 ] || echo ' (not fatal without --leaks-fatal)'), $((f - leaking)) fail otherwise; $log" $(($(now) - t0))
  else
    grep -E '^FAIL ' "$log" | head -n 20
    record "$name" "$([ "$f" -eq 0 ] && echo pass || echo fail)" \
      "$p passed, $f failed ($other with a sanitizer report); $log" $(($(now) - t0))
  fi
}

# embed_stage NAME BUILD_DIR LOG: the embedding example and the threads stress test.
embed_stage() {
  local name=$1 dir=$2 log=$3 t0 p=0 f=0 pf a b status
  t0=$(now)
  : > "$log"
  for program in examples/embed/embed_example tests/embed_threads_stress; do
    echo "-- $program" >> "$log"
    nice -n 10 timeout 1200 "$dir/$program" >> "$log" 2>&1
    status=$?
    pf=$(passed_failed "$log")
    read -r a b <<< "${pf:-0 1}"
    [ "$status" -ne 0 ] && [ "$b" -eq 0 ] && b=1
    p=$((p + a)) f=$((f + b))
    echo "-- $program: exit status $status" >> "$log"
  done
  local reported
  reported=$(grep -cE 'ERROR: (Address|Thread|UndefinedBehavior)Sanitizer|WARNING: ThreadSanitizer|runtime error:' "$log")
  [ "$reported" -gt 0 ] && grep -m5 -E 'ERROR: |WARNING: ThreadSanitizer|runtime error:' "$log"
  record "$name" "$([ "$f" -eq 0 ] && [ "$reported" -eq 0 ] && echo pass || echo fail)" \
    "$p checks passed, $f failed, $reported sanitizer reports; $log" $(($(now) - t0))
}

fuzz_stage() {
  local shard=$1 log="$logs/asan-fuzz.log" dir="$logs/asan-reports/fuzz" t0 pf p f n seed
  if [ "$fuzz_minutes" -eq 0 ]; then
    record "ASan API fuzzer" skip "--fuzz-minutes 0" 0
    return
  fi
  seed=${SANITIZE_FUZZ_SEED:-$(( (RANDOM << 15) | RANDOM ))}
  mkdir -p "$dir"
  t0=$(now)
  # No 8 GiB RLIMIT_AS under ASan (its shadow memory reserves terabytes of address space):
  # instead an allocation above 8 GiB, or any while the process holds more than 8 GiB, fails
  # as it would under the limit (without the second, jnp.unique(x, size=2**31) took the
  # machine's memory and the kernel killed it).
  ASAN_OPTIONS="$ASAN_OPTIONS:max_allocation_size_mb=8192:soft_rss_limit_mb=8192:log_path=$dir/report" \
  UBSAN_OPTIONS="$UBSAN_OPTIONS:log_path=$dir/report" \
    nice -n 10 /usr/bin/python3 tests/fuzz/api_fuzz.py "$shard" --seed "$seed" --cases 100000000 \
      --time-limit $((fuzz_minutes * 60)) --no-address-space-limit --save-dir "$logs/asan-fuzz-found" > "$log" 2>&1
  local status=$?
  pf=$(passed_failed "$log")
  read -r p f <<< "${pf:-0 1}"
  [ "$status" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  n=$(reports_in "$dir")
  grep -E '^FAIL' "$log" | head -n 10
  record "ASan API fuzzer" "$([ "$f" -eq 0 ] && [ "$n" -eq 0 ] && echo pass || echo fail)" \
    "seed $seed, $((p + f)) calls in $fuzz_minutes min, $f failed, $n sanitizer reports in $dir; $log" $(($(now) - t0))
}

# ---- TSan ----
tsan_stages() {
  local t0 log status
  t0=$(now)
  if ! configure "$TSAN_DIR" thread -gline-tables-only -fno-omit-frame-pointer > "$logs/tsan-setup.log" 2>&1; then
    tail -n 30 "$logs/tsan-setup.log"
    record "TSan build" fail "meson setup failed: $logs/tsan-setup.log" $(($(now) - t0))
    return
  fi
  # First the device runtime and its Catch2 cases alone (the full unit_tests would need every
  # test file built under TSan), compiled with the flags meson uses for the runtime library;
  # then everything libshard links, for the embedding programs.
  build_stage "TSan build (runtime)" "$TSAN_DIR" "$logs/tsan-build-runtime.log" runtime/libshard_runtime.a || return
  t0=$(now)
  log="$logs/tsan-runtime-build.log"
  local bin="$TSAN_DIR/sanitize/runtime_unit_tests" mpi_flags
  mpi_flags=$(pkg-config --cflags --libs ompi-c)
  mkdir -p "$TSAN_DIR/sanitize"
  # shellcheck disable=SC2086
  if nice -n 10 clang++-19 -std=c++20 -O1 -gline-tables-only -fno-omit-frame-pointer -fsanitize=thread \
      -I src -I . tests/unit/main.cpp tests/unit/test_runtime.cpp tests/unit/test_collectives.cpp \
      tests/unit/test_processes.cpp "$TSAN_DIR/runtime/libshard_runtime.a" $mpi_flags -lfmt -pthread \
      -fuse-ld=lld -o "$bin" > "$log" 2>&1; then
    record "TSan runtime tests build" pass "4 files" $(($(now) - t0))
  else
    tail -n 30 "$log"
    record "TSan runtime tests build" fail "see $log" $(($(now) - t0))
    return
  fi
  log="$logs/tsan-runtime.log"
  t0=$(now)
  nice -n 10 timeout 1200 "$bin" > "$log" 2>&1
  status=$?
  read -r p f <<< "$(catch2_counts "$log")"
  if [ -z "${p:-}" ]; then p=0 f=1; fi
  [ "$status" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  local reported
  reported=$(grep -c 'WARNING: ThreadSanitizer' "$log")
  [ "$reported" -gt 0 ] && grep -m5 -A3 'WARNING: ThreadSanitizer' "$log"
  record "TSan runtime unit tests" "$([ "$f" -eq 0 ] && [ "$reported" -eq 0 ] && echo pass || echo fail)" \
    "$p cases passed, $f failed, $reported races; $log" $(($(now) - t0))
  build_stage "TSan build (libshard, embedding)" "$TSAN_DIR" "$logs/tsan-build.log" \
    examples/embed/embed_example tests/embed_threads_stress || return
  embed_stage "TSan embedding (threads stress)" "$TSAN_DIR" "$logs/tsan-embed.log"

  # The goldens under TSan: races between device threads in whole programs, and a clang build's
  # output against the goldens, which gcc's build snapshots (a jaxpr whose op order hangs on
  # C++ argument evaluation order differs between the two; docs/architecture.md).
  build_stage "TSan build (shard)" "$TSAN_DIR" "$logs/tsan-build-shard.log" src/shard || return
  log="$logs/tsan-goldens.log"
  t0=$(now)
  TSAN_OPTIONS="${TSAN_OPTIONS/halt_on_error=1/halt_on_error=0}" \
    nice -n 10 "$TSAN_DIR/src/shard" test -j "$JOBS" --timeout "$GOLDEN_TIMEOUT" tests/golden examples > "$log" 2>&1
  local pf p f races
  pf=$(passed_failed "$log")
  read -r p f <<< "${pf:-0 1}"
  races=$(grep -c 'WARNING: ThreadSanitizer' "$log")
  grep -E '^FAIL ' "$log" | head -n 20
  record "TSan goldens (clang build)" "$([ "$f" -eq 0 ] && [ "$races" -eq 0 ] && echo pass || echo fail)" \
    "$p passed, $f failed, $races race reports; $log" $(($(now) - t0))
}

start=$(now)
echo "sanitize.sh: ASan build $ASAN_DIR, TSan build $TSAN_DIR, logs $logs"
[ "$run_asan" -eq 1 ] && asan_stages
[ "$run_tsan" -eq 1 ] && tsan_stages

echo
echo "== sanitizer summary (commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
for i in "${!stage_names[@]}"; do
  printf '%-34s %-4s %8s  %s\n' "${stage_names[$i]}" "${stage_verdicts[$i]}" \
    "$(fmt_seconds "${stage_seconds[$i]}")" "${stage_counts[$i]}"
done
echo "total $(fmt_seconds $(($(now) - start))); $([ "$any_failed" -eq 0 ] && echo 'all stages passed' || echo 'SOME STAGES FAILED')"
[ "$any_failed" -eq 0 ]
