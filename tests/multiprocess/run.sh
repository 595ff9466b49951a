#!/usr/bin/env bash
# Multi-process tests: each tests/multiprocess/*.shard (and examples/multiprocess_*.shard) runs
# under `mpirun -np 2` with 4 devices per process and `-np 4` with 2, and every process's
# output must equal the output of one process with all 8 devices. Fault tests (faults/) must
# fail within their time bound with the error they name.
# Usage: tests/multiprocess/run.sh [path/to/shard]
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
shard="$(realpath "${1:-$root/build/src/shard}")"
if ! command -v mpirun >/dev/null; then echo "mpirun not found: run scripts/setup.sh"; exit 1; fi
# CI runs as root; Open MPI refuses that unless told. Loopback only, shared memory inside.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
pass=0 fail=0

run_mpi() {  # run_mpi NP DEVICES SCRIPT OUTDIR [timeout]
  timeout "${5:-120}" mpirun --oversubscribe -np "$1" --output-filename "$4" "$shard" --devices "$2" "$3" </dev/null \
    >"$4.mpirun.out" 2>&1
}

for script in "$here"/*.shard "$root"/examples/multiprocess_*.shard; do
  [ -f "$script" ] || continue
  name="$(basename "$script" .shard)"
  (cd "$(dirname "$script")" && "$shard" --devices 8 "$script") >"$work/$name.single" 2>&1
  if [ $? -ne 0 ]; then echo "FAIL $name: the one-process run failed"; cat "$work/$name.single"; fail=$((fail+1)); continue; fi
  for layout in "2 4" "4 2"; do
    set -- $layout
    out="$work/$name.np$1"
    if ! (cd "$(dirname "$script")" && run_mpi "$1" "$2" "$script" "$out"); then
      echo "FAIL $name (np $1): mpirun failed"; cat "$out.mpirun.out"; cat "$out"/1/rank.*/stderr 2>/dev/null | head -40
      fail=$((fail+1)); continue
    fi
    ok=1
    for ((r = 0; r < $1; r++)); do
      if ! diff -u "$work/$name.single" "$out/1/rank.$r/stdout" >"$out.diff"; then
        echo "FAIL $name (np $1): process $r's output differs from the one-process run"; head -40 "$out.diff"; ok=0
      fi
    done
    if [ $ok = 1 ]; then pass=$((pass+1)); else fail=$((fail+1)); fi
  done
done

# --trace writes one timeline per process (trace.p0.json, trace.p1.json), each with its pid and
# its own devices' tracks.
(cd "$work" && timeout 120 mpirun --oversubscribe -np 2 "$shard" --devices 4 --trace "$work/trace.json" \
  "$here/collectives.shard" </dev/null >"$work/trace.out" 2>&1)
if [ $? = 0 ] && grep -q '"pid": 1, "tid": 4' "$work/trace.p1.json" && grep -q '"pid": 0, "tid": 3' "$work/trace.p0.json" \
   && ! grep -q '"tid": 4' "$work/trace.p0.json"; then
  pass=$((pass+1)); echo "ok --trace: one file per process"
else
  fail=$((fail+1)); echo "FAIL --trace: expected trace.p0.json and trace.p1.json with each process's devices"; head -20 "$work/trace.out"
fi

# Fault tests: `# expect: TEXT` lines must all appear in the job's stderr, the job must fail,
# and it must end within `# within: SECONDS`.
for script in "$here"/faults/*.shard; do
  [ -f "$script" ] || continue
  name="faults/$(basename "$script" .shard)"
  np=$(sed -n 's/^# np: //p' "$script"); np=${np:-2}
  within=$(sed -n 's/^# within: //p' "$script"); within=${within:-30}
  out="$work/$(basename "$script" .shard)"
  start=$(date +%s)
  SHARD_COLLECTIVE_TIMEOUT=$(sed -n 's/^# collective-timeout: //p' "$script") \
    timeout $((within + 30)) mpirun --oversubscribe -np "$np" --output-filename "$out" "$shard" --devices 2 "$script" </dev/null \
    >"$out.mpirun.out" 2>&1
  status=$?
  elapsed=$(( $(date +%s) - start ))
  errs="$(cat "$out"/1/rank.*/stderr "$out.mpirun.out" 2>/dev/null)"
  ok=1
  if [ $status = 0 ]; then echo "FAIL $name: the job succeeded"; ok=0; fi
  if [ $elapsed -gt "$within" ]; then echo "FAIL $name: took ${elapsed}s, more than ${within}s"; ok=0; fi
  while IFS= read -r want; do
    if ! grep -qF -- "$want" <<<"$errs"; then echo "FAIL $name: stderr lacks: $want"; ok=0; fi
  done < <(sed -n 's/^# expect: //p' "$script")
  if [ $ok = 1 ]; then pass=$((pass+1)); echo "ok $name (${elapsed}s)"; else fail=$((fail+1)); echo "$errs" | head -30; fi
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
